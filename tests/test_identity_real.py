"""Identity on the real upstream files: the spellings of one model fold across publishers,
separately released look-alikes stay apart, and `modelboards identities` reviews the rest.

Runs `fetch` and `select` through the command line on a site.yml whose sources point at
../shared/data (demo: false, no site aliases: the shipped rules and registry do the work)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from builder.cli import main
from builder.identity import REGISTRY_FILE, read_registry

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def real_site(tmp_path_factory, shared_data) -> Path:
    tmp = tmp_path_factory.mktemp("identity-real")
    data = yaml.safe_load((ROOT / "site.yml").read_text())
    data["demo"] = False
    data["aliases"] = {}
    recorded = {
        "arena": "arena/lmarena/leaderboard-text.json", "epoch": "epoch/epoch_capabilities_index.csv",
        "aider": "aider/polyglot_leaderboard.yml", "livebench": "livebench", "terminal-bench": "terminal-bench",
    }
    data["sources"] = [dict(s, recorded=str(shared_data / recorded[s["name"]])) for s in data["sources"]
                       if s["name"] in recorded]
    data["fetch"] = {"store": str(tmp / "store")}
    data["arena"] = {"enabled": False}
    data["evals"] = []
    path = tmp / "site.yml"
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    result = CliRunner().invoke(main, ["--config", str(path), "fetch", "--no-progress"])
    assert result.exit_code == 0 and "0 failed" in result.output, result.output
    return path


def _select(config: Path) -> list[dict]:
    result = CliRunner().invoke(main, ["--config", str(config), "select", "--format", "json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


@pytest.fixture(scope="module")
def rows(real_site) -> list[dict]:
    return _select(real_site)


def _identity(rows: list[dict], source: str, spelling: str) -> str:
    found = {r["identity"] for r in rows if r["source"] == source and r["model"] == spelling}
    assert len(found) == 1, (source, spelling, found)
    return found.pop()


# Every pair the issue names: (source, spelling) pairs that are one model.
SAME_MODEL = [
    [("arena", "gemini-3-pro"), ("livebench", "gemini-3-pro-preview-11-2025-high")],
    [("arena", "claude-sonnet-4-20250514"), ("livebench", "claude-4-sonnet-20250514-thinking-64k"),
     ("livebench", "claude-4-sonnet-20250514-base"), ("terminal-bench", "claude-4-sonnet")],
    [("arena", "claude-opus-4-1-20250805"), ("livebench", "claude-4-1-opus-20250805-thinking-32k"),
     ("livebench", "claude-4-1-opus-20250805-base"), ("terminal-bench", "claude-4.1-opus")],
    [("aider", "gemini-2.5-pro-preview-06-05 (32k think)"), ("livebench", "gemini-2.5-pro-06-05-highthinking"),
     ("epoch", "gemini-2.5-pro-preview-06-05")],
    [("arena", "llama-3-70b-instruct"), ("epoch", "Meta-Llama-3-70B-Instruct")],
    [("arena", "amazon-nova-pro-v1.0"), ("epoch", "amazon.nova-pro-v1:0")],
    [("aider", "grok-4 (high)"), ("arena", "grok-4-0709"), ("livebench", "grok-4-0709"), ("epoch", "grok-4-0709")],
    [("arena", "mistral-small-3.1-24b-instruct-2503"), ("epoch", "mistral-small-2503")],
    [("arena", "qwen2.5-max"), ("epoch", "qwen-max-2025-01-25"), ("aider", "qwen-max-2025-01-25")],
    [("arena", "deepseek-v3"), ("aider", "DeepSeek Chat V3 (prev)")],
    [("arena", "qwen3-235b-a22b"), ("aider", "Qwen3 235B A22B diff, no think, Alibaba API")],
    [("arena", "kimi-k2-0711-preview"), ("aider", "Kimi K2"), ("epoch", "Kimi-K2-Instruct"),
     ("livebench", "kimi-k2-instruct")],
    # Aider's lone dated Claude 3.5 Sonnet meets the same dated release on LMArena (which has two).
    [("arena", "claude-3-5-sonnet-20241022"), ("aider", "claude-3-5-sonnet-20241022"),
     ("epoch", "claude-3-5-sonnet-20241022")],
    [("arena", "qwen3-coder-480b-a35b-instruct"), ("terminal-bench", "qwen-3-coder-480B")],
]


@pytest.mark.parametrize("group", SAME_MODEL, ids=lambda g: g[0][1])
def test_each_pair_the_issue_names_folds_to_one_identity(rows, group):
    identities = {(s, m): _identity(rows, s, m) for s, m in group}
    assert len(set(identities.values())) == 1, identities


def test_separately_released_look_alikes_stay_apart(rows):
    kimi_k2 = _identity(rows, "arena", "kimi-k2-0711-preview")
    assert _identity(rows, "livebench", "kimi-k2-thinking") == "kimi-k2-thinking" != kimi_k2
    assert _identity(rows, "arena", "kimi-k2-thinking-turbo") not in {kimi_k2, "kimi-k2-thinking"}
    assert _identity(rows, "arena", "kimi-k2-0905-preview") != kimi_k2
    assert (_identity(rows, "arena", "claude-3-5-sonnet-20240620")
            != _identity(rows, "arena", "claude-3-5-sonnet-20241022"))
    assert _identity(rows, "arena", "mistral-medium") != _identity(rows, "arena", "mistral-large-2407")
    assert _identity(rows, "epoch", "Meta-Llama-3-70B") != _identity(rows, "epoch", "Meta-Llama-3-70B-Instruct")
    assert (_identity(rows, "livebench", "qwen3-next-80b-a3b-thinking")
            != _identity(rows, "livebench", "qwen3-next-80b-a3b-instruct"))
    assert _identity(rows, "arena", "gemini-2.5-flash") != _identity(rows, "arena", "gemini-2.5-flash-preview-09-2025")
    # one selected row per identity and feed still holds with the registry in play
    picked = [(r["feed"], r["identity"]) for r in rows if r["selected"]]
    assert len(picked) == len(set(picked))


def _overlap(rows: list[dict]) -> dict[str, int]:
    arena = {r["identity"] for r in rows if r["feed"] == "arena/text" and r["selected"]}
    return {s: len({r["identity"] for r in rows if r["source"] == s and r["selected"]} & arena)
            for s in ("livebench", "aider", "epoch", "terminal-bench")}


def test_more_models_of_every_source_match_an_arena_rating(rows):
    # Before the rules and the registry: 20 LiveBench, 26 Aider, 63 Epoch, 2 Terminal-Bench.
    got = _overlap(rows)
    assert got["livebench"] >= 25 and got["aider"] >= 35 and got["epoch"] >= 70, got
    assert got["terminal-bench"] >= 5, got  # every Terminal-Bench model (the agent name ob1-sdk is excluded)


def test_shipped_registry_loads_and_every_entry_has_a_reason():
    entries = read_registry(REGISTRY_FILE)
    assert len(entries) >= 25
    assert all(e.reason and e.spellings for e in entries)
    assert len({e.id for e in entries}) == len(entries)


# --------------------------------------------------------------------------- the command


def test_identities_lists_unmatched_spellings_with_candidates(real_site, rows):
    result = CliRunner().invoke(main, ["--config", str(real_site), "identities", "--format", "json"])
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    by_source = {s["source"]: s for s in doc["sources"]}
    assert set(by_source) == {"arena", "aider", "epoch", "livebench", "terminal-bench"}
    unmatched = {u["spelling"]: u for u in by_source["aider"]["unmatched"]}
    assert "Kimi K2" not in unmatched and "grok-4 (high)" not in unmatched  # they match other sources
    tb = {u["spelling"] for u in by_source["terminal-bench"]["unmatched"]}
    assert tb == {"ob1-sdk"}
    quality = unmatched["command-a-03-2025-quality"]
    assert quality["candidates"] and {"identity", "score", "sources"} <= set(quality["candidates"][0])
    assert any(c["identity"] == "command-a-03-2025" for c in quality["candidates"])
    text = CliRunner().invoke(main, ["--config", str(real_site), "identities", "--source", "terminal-bench"])
    assert text.exit_code == 0 and text.output.startswith("terminal-bench: 1 of ")
    assert "ob1-sdk" in text.output and "--accept" in text.output


def test_accept_writes_the_site_registry_and_the_next_run_folds_it(real_site, tmp_path):
    site = tmp_path / "site.yml"
    site.write_text(real_site.read_text())  # same store (absolute path), its own registry
    runner = CliRunner()
    result = runner.invoke(main, ["--config", str(site), "identities",
                                  "--accept", "command-a-03-2025-quality=command-a-03-2025",
                                  "--reason", "Aider's quality-mode run of Command A"])
    assert result.exit_code == 0, result.output
    written = read_registry(tmp_path / "identities.yml")
    assert [(e.id, e.spellings, e.reason) for e in written] == [
        ("command-a-03-2025", ("command-a-03-2025-quality",), "Aider's quality-mode run of Command A")]
    assert _identity(_select(site), "aider", "command-a-03-2025-quality") == "command-a-03-2025"
    # a second accept joins the entry; the site's registry overrides the shipped one
    result = runner.invoke(main, ["--config", str(site), "identities", "--accept", "Grok 3 Beta=grok-3-preview-02-24"])
    assert result.exit_code == 0, result.output
    assert _identity(_select(site), "aider", "Grok 3 Beta") == _identity(_select(site), "arena", "grok-3-preview-02-24")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--accept", "no-equals-sign"], "expected SPELLING=ID"),
        (["--accept", "Kimi K2=Not A Key!"], "is not an identity key"),
        (["--source", "nowhere"], "no stored observations"),
    ],
)
def test_bad_options_are_one_line_and_exit_2(real_site, tmp_path, args, message):
    site = tmp_path / "site.yml"
    site.write_text(real_site.read_text())
    result = CliRunner().invoke(main, ["--config", str(site), "identities", *args])
    assert result.exit_code == 2
    assert message in result.output and len(result.output.strip().splitlines()) == 1
    assert not (tmp_path / "identities.yml").exists()


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("models:\n  - id: kimi-k2\n    spellings: [Kimi K2]\n", "models[0] (kimi-k2): every entry needs a reason"),
        ("models:\n  - id: Kimi K2\n    spellings: [x]\n    reason: r\n",
         "models[0]: id 'Kimi K2' is not an identity key"),
        ("models: [\n", "invalid YAML"),
        ("models:\n  - {id: a, spellings: [x], reason: r}\n  - {id: b, spellings: [X], reason: r}\n",
         "models[1] (b): spelling 'X' is already given to 'a'"),
    ],
)
def test_a_bad_site_registry_is_one_line_naming_file_and_entry(real_site, tmp_path, text, message):
    site = tmp_path / "site.yml"
    site.write_text(real_site.read_text())
    (tmp_path / "identities.yml").write_text(text)
    result = CliRunner().invoke(main, ["--config", str(site), "select"])
    assert result.exit_code == 2
    assert "identities.yml" in result.output and message in result.output, result.output
    assert "Traceback" not in result.output
