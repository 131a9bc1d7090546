"""Price, build-check and metadata parsers (LiteLLM, OpenRouter, PirateBench, curated YAML,
LMArena catalog) on the real upstream files and on the bundled demo payloads.

The real files live in ``../shared/data`` (see its MANIFEST.md); every trap the MANIFEST lists
for LiteLLM, OpenRouter and the LMArena catalog has a test here.
"""

from __future__ import annotations

import json
import math
import statistics
from collections import defaultdict
from datetime import UTC, date, datetime
from pathlib import Path

import pytest
from conftest import require_shared_data

from builder.config import PACKAGE_DATA, SourceConfig, load_config
from builder.errors import UserError
from builder.records import Payload
from builder.sources import PayloadError, litellm, lmarena_catalog, metadata, openrouter, parse_payload, piratebench
from builder.sources.litellm import blended_price, check_price
from builder.sources.metadata import is_proprietary, open_weight

SHARED = require_shared_data()  # ../shared/data, or the pinned files fetched (tests/realdata.py)
REPO = Path(__file__).resolve().parents[1]
NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)

LITELLM = SourceConfig(name="litellm", kind="litellm")
OPENROUTER = SourceConfig(name="openrouter", kind="openrouter")
CATALOG = SourceConfig(name="arena-catalog", kind="lmarena_catalog")
PIRATE = SourceConfig(name="piratebench", kind="piratebench")
META = SourceConfig(name="metadata", kind="metadata", local=True)


def file_payload(path: Path, source: str) -> Payload:
    return Payload(source=source, files={path.name: path.read_bytes()}, fetched_at=NOW, origin=str(path))


def blob_payload(name: str, data: object, source: str) -> Payload:
    raw = data if isinstance(data, bytes) else json.dumps(data).encode()
    return Payload(source=source, files={name: raw}, fetched_at=NOW, origin=name)


# --------------------------------------------------------------------------- LiteLLM, real file


@pytest.fixture(scope="module")
def litellm_raw() -> dict:
    return json.loads((SHARED / "litellm" / "model_prices_and_context_window.json").read_text())


@pytest.fixture(scope="module")
def litellm_real():
    return litellm.parse(file_payload(SHARED / "litellm" / "model_prices_and_context_window.json", "litellm"), LITELLM)


def test_litellm_non_model_keys_skipped_and_last_updated_is_the_date(litellm_real):
    keys = {p.key for p in litellm_real.prices}
    assert "sample_spec" not in keys and "last_updated" not in keys
    assert litellm_real.published == date(2026, 7, 24)
    assert {p.date for p in litellm_real.prices} == {date(2026, 7, 24)}


def test_litellm_nine_entries_without_mode_are_excluded(litellm_real, litellm_raw):
    no_mode = [p for p in litellm_real.prices if p.excluded and p.excluded.startswith("no mode")]
    assert len(no_mode) == 9
    assert "fallback_generalizations" in {p.key for p in no_mode}
    assert all(p.blended is None for p in no_mode)


def test_litellm_103_chat_entries_without_prices(litellm_real, litellm_raw):
    missing = [p for p in litellm_real.prices if p.excluded and "is missing" in p.excluded]
    assert len(missing) == 103
    for p in missing:
        entry = litellm_raw[p.key]
        assert entry["mode"] == "chat" and ":" not in p.key
        assert "input_cost_per_token" not in entry or "output_cost_per_token" not in entry


def test_litellm_colon_names_excluded_and_non_chat_modes_skipped(litellm_real, litellm_raw):
    by_key = {p.key: p for p in litellm_real.prices}
    colon_chat = [k for k, v in litellm_raw.items() if isinstance(v, dict) and v.get("mode") == "chat" and ":" in k]
    assert len(colon_chat) == 209
    for k in colon_chat:
        assert by_key[k].excluded and "':'" in by_key[k].excluded and by_key[k].blended is None
    assert not any(":" in p.key for p in litellm_real.prices if p.excluded is None)
    # names with '/' are ordinary keys (folding strips the provider later)
    assert by_key["gemini/gemini-2.5-pro"].excluded is None and by_key["gemini/gemini-2.5-pro"].blended > 0
    non_chat = [k for k, v in litellm_raw.items() if isinstance(v, dict) and v.get("mode") not in (None, "chat")]
    assert non_chat and not (set(non_chat) - {"sample_spec"}) & set(by_key)


def test_litellm_blended_arithmetic_is_exact(litellm_real, litellm_raw):
    gpt4o = next(p for p in litellm_real.prices if p.key == "gpt-4o")
    assert gpt4o.input_per_token == 2.5e-06 and gpt4o.output_per_token == 1e-05
    assert gpt4o.blended == pytest.approx(4.375, rel=1e-12)
    usable = [p for p in litellm_real.prices if p.excluded is None]
    assert len(usable) == 1902
    for p in usable:
        entry = litellm_raw[p.key]
        expected = 1_000_000 * (0.75 * entry["input_cost_per_token"] + 0.25 * entry["output_cost_per_token"])
        assert p.blended == expected
        assert p.input_per_token > 0 and p.output_per_token > 0 and math.isfinite(p.blended)


def test_litellm_zero_prices_are_not_positive(litellm_real, litellm_raw):
    zero = [p for p in litellm_real.prices if p.excluded and "not positive" in p.excluded]
    assert len(zero) == 71
    assert all(
        litellm_raw[p.key].get("input_cost_per_token") == 0 or litellm_raw[p.key].get("output_cost_per_token") == 0
        for p in zero
    )


def test_litellm_context_window_from_max_input_tokens(litellm_real):
    info = {m.model: m for m in litellm_real.models}
    assert info["gpt-4o"].context_window == 128000
    assert all(isinstance(m.context_window, int) and m.context_window > 0 for m in info.values())


# --------------------------------------------------------------------------- LiteLLM, synthetic


@pytest.mark.parametrize(
    "value, reason",
    [
        (True, "boolean"),
        (False, "boolean"),
        (float("nan"), "not finite"),
        (float("inf"), "not finite"),
        (-1e-06, "not positive"),
        (0, "not positive"),
        ("1e-06", "string"),
        (None, "missing"),
        ([1e-06], "not a number"),
    ],
)
def test_litellm_bad_prices_are_kept_with_a_reason(value, reason):
    entry = {"mode": "chat", "litellm_provider": "x", "input_cost_per_token": value, "output_cost_per_token": 2e-06}
    doc = {"good-model": {"mode": "chat", "input_cost_per_token": 1e-06, "output_cost_per_token": 4e-06},
           "bad-model": entry}
    # json.dumps writes NaN/Infinity literals, which LiteLLM's own loader (Python json) accepts
    result = litellm.parse(blob_payload("model_prices_and_context_window.json", doc, "litellm"), LITELLM)
    by_key = {p.key: p for p in result.prices}
    assert reason in by_key["bad-model"].excluded and by_key["bad-model"].blended is None
    assert by_key["good-model"].excluded is None
    assert by_key["good-model"].blended == 1_000_000 * (0.75 * 1e-06 + 0.25 * 4e-06) == pytest.approx(1.75)


def test_check_price_rules():
    assert check_price(3e-06, "p") == (3e-06, None)
    assert check_price("0.000003", "p", strings=True) == (3e-06, None)
    assert check_price("abc", "p", strings=True)[1] == "p is not a number ('abc')"
    assert check_price(True, "p", strings=True)[1] == "p is a boolean (True)"
    assert blended_price(4e-06, 8e-06) == 1_000_000 * (0.75 * 4e-06 + 0.25 * 8e-06)


@pytest.mark.parametrize("blob", [b"{not json", b"[1, 2]", b"\xff\xfe"])
def test_litellm_unreadable_payload_raises(blob):
    with pytest.raises(PayloadError):
        litellm.parse(blob_payload("model_prices_and_context_window.json", blob, "litellm"), LITELLM)


# --------------------------------------------------------------------------- OpenRouter, real file


@pytest.fixture(scope="module")
def openrouter_real():
    return openrouter.parse(file_payload(SHARED / "openrouter" / "openrouter_models.json", "openrouter"), OPENROUTER)


def test_openrouter_every_model_kept(openrouter_real):
    assert len(openrouter_real.prices) == 414
    assert len({p.key for p in openrouter_real.prices}) == 414


def test_openrouter_string_prices_blended_exactly(openrouter_real):
    p = next(p for p in openrouter_real.prices if p.key == "qwen/qwen3.8-27b")
    assert p.input_per_token == 0.00000045 and p.output_per_token == 0.0000032
    assert p.blended == 1_000_000 * (0.75 * 0.00000045 + 0.25 * 0.0000032)
    assert p.blended == pytest.approx(1.1375, rel=1e-12)


def test_openrouter_routers_with_minus_one_excluded(openrouter_real):
    variable = {p.key for p in openrouter_real.prices if p.excluded and "'-1'" in p.excluded}
    assert variable == {"openrouter/auto-beta", "openrouter/fusion", "openrouter/pareto-code",
                        "openrouter/bodybuilder", "openrouter/auto"}


def test_openrouter_free_and_batch_ids_excluded(openrouter_real):
    colon = [p for p in openrouter_real.prices if ":" in p.key]
    assert len(colon) == 79
    assert {p.key.rsplit(":", 1)[1] for p in colon} == {"free", "batch", "thinking"}
    assert all(p.excluded and "':'" in p.excluded and p.blended is None for p in colon)


def test_openrouter_tiered_overrides_use_the_base_price(openrouter_real):
    raw = json.loads((SHARED / "openrouter" / "openrouter_models.json").read_text())
    tiered = next(m for m in raw["data"]
                  if "overrides" in m["pricing"] and ":" not in m["id"] and "alias_target" not in m)
    p = next(p for p in openrouter_real.prices if p.key == tiered["id"])
    assert p.input_per_token == float(tiered["pricing"]["prompt"])
    assert p.output_per_token == float(tiered["pricing"]["completion"])


def test_openrouter_aliases_and_zero_prices_excluded(openrouter_real):
    aliases = [p for p in openrouter_real.prices if p.key.startswith("~")]
    assert len(aliases) == 11 and all(p.excluded.startswith("alias of ") for p in aliases)
    free_router = next(p for p in openrouter_real.prices if p.key == "openrouter/free")
    assert "not positive" in free_router.excluded
    usable = [p for p in openrouter_real.prices if p.excluded is None]
    assert len(usable) == 316 and all(p.blended > 0 for p in usable)


def test_openrouter_bad_payloads():
    with pytest.raises(PayloadError):
        openrouter.parse(blob_payload("models.json", {"models": []}, "openrouter"), OPENROUTER)
    doc = {"data": [{"id": "a/b", "pricing": {"prompt": "abc", "completion": "0.000001"}},
                    {"id": "a/c", "pricing": {"prompt": True, "completion": "0.000001"}},
                    {"id": "a/d"},
                    {"name": "no id"}]}
    result = openrouter.parse(blob_payload("models.json", doc, "openrouter"), OPENROUTER)
    reasons = [p.excluded for p in result.prices]
    assert reasons == ["pricing.prompt is not a number ('abc')", "pricing.prompt is a boolean (True)",
                       "pricing.prompt is missing", "entry has no model id"]


# --------------------------------------------------------------------------- licences and the catalog


@pytest.mark.parametrize("licence", ["Proprietary", "proprietary", "Propretary", " PROPRIETARY ", "Proprietory",
                                     "closed", "Closed-source", "API only", "Unreleased"])
def test_is_proprietary_recognises_closed_licences(licence):
    assert is_proprietary(licence) and open_weight(licence) is False


@pytest.mark.parametrize("licence", ["MIT", "Apache 2.0", "Llama 5 Community", "Modified MIT", "CC-BY-NC-4.0",
                                     "Gemma", "Open", "Mistral Research", "Qwen", "DeepSeek"])
def test_open_licences_are_not_proprietary(licence):
    assert not is_proprietary(licence) and open_weight(licence) is True


@pytest.mark.parametrize("licence", [None, "", "   "])
def test_missing_licence_is_unknown(licence):
    assert open_weight(licence) is None


def test_catalog_real_file_licences():
    result = lmarena_catalog.parse(file_payload(SHARED / "arena" / "lmarena" / "scatterplot-data.json", "c"), CATALOG)
    assert len(result.models) == 141
    misspelt = [m for m in result.models if m.licence == "Propretary"]
    assert len(misspelt) == 1 and misspelt[0].open_weight is False
    assert sum(m.open_weight is False for m in result.models) == 81  # 80 "Proprietary" + 1 "Propretary"
    gpt4o = next(m for m in result.models if m.model == "chatgpt-4o-latest-20241120")
    assert (gpt4o.maker, gpt4o.licence, gpt4o.open_weight) == ("OpenAI", "Proprietary", False)
    assert all(m.open_weight is True for m in result.models if m.licence == "MIT")


def test_catalog_rejects_a_non_list():
    with pytest.raises(PayloadError):
        lmarena_catalog.parse(blob_payload("scatterplot-data.json", {"a": 1}, "c"), CATALOG)


# --------------------------------------------------------------------------- curated metadata


def test_curated_metadata_parses():
    path = PACKAGE_DATA / "models.yml"
    result = metadata.parse(file_payload(path, "metadata"), META)
    info = {m.model: m for m in result.models}
    assert len(info) == 42
    assert info["deepseek-v4"].params_b == 685 and info["deepseek-v4"].open_weight is True
    assert info["nova-2-pro"].open_weight is False and info["claude-opus-5.5"].open_weight is False
    assert info["claude-opus-5.5"].lineage == "claude-opus"
    assert info["gpt-6"].release_date == date(2026, 9, 18)
    for m in info.values():
        assert m.maker and m.licence and m.context_window and m.release_date
        assert (m.params_b is not None) == m.open_weight  # parameter counts for open weights only


@pytest.mark.parametrize(
    "text, where",
    [
        ("- model: a\n  params_b: lots\n", "line 2: params_b"),
        ("- model: a\n  maker: X\n- model: a\n", "line 3: model is listed twice"),
        ("- model: a\n  context_window: 12.5\n", "line 2: context_window"),
        ("- model: a\n  release_date: soon\n", "line 2: release_date"),
        ("- model: a\n  licnce: MIT\n", "line 2: unknown field 'licnce'"),
        ("- maker: X\n", "line 1: model"),
        ("- model: a\n  maker: [unclosed\n", "invalid YAML"),
        ("model: a\n", "expected a list"),
    ],
)
def test_curated_metadata_errors_name_the_line(text, where):
    with pytest.raises(UserError, match=r"models\.yml") as err:
        metadata.parse(blob_payload("models.yml", text.encode(), "metadata"), META)
    assert where in str(err.value)
    assert "\n" not in str(err.value)


# --------------------------------------------------------------------------- PirateBench


def pirate(jobs, **epoch) -> dict:
    e = {"id": "2026-11", "date": "2026-11-20", "scored": True, "jobs": jobs}
    e.update(epoch)
    return {"benchmark": "PirateBench", "version": 1, "epochs": [e]}


@pytest.mark.parametrize(
    "price, reason",
    [(True, "boolean"), ("0.42", "string"), (0, "not positive"), (-1.0, "not positive"),
     (None, "missing"), (float("nan"), "not finite")],
)
def test_piratebench_bad_prices_keep_the_job(price, reason):
    jobs = [{"model": "m", "passed": True, "price_usd": 0.4}, {"model": "m", "passed": False, "price_usd": price}]
    result = piratebench.parse(blob_payload("piratebench.json", pirate(jobs), "piratebench"), PIRATE)
    good, bad = result.build_checks
    assert (good.price, good.excluded, good.passed) == (0.4, None, True)
    assert bad.price is None and reason in bad.excluded and bad.passed is False and bad.model == "m"
    assert result.published == date(2026, 11, 20)


def test_piratebench_missing_price_key_and_bad_fields():
    jobs = [{"model": "m", "passed": "yes", "price_usd": 0.3}, {"passed": True}, "junk"]
    checks = piratebench.parse(blob_payload("piratebench.json", pirate(jobs), "piratebench"), PIRATE).build_checks
    assert "passed is not true/false" in checks[0].excluded and checks[0].price == 0.3
    assert "model is missing" in checks[1].excluded and "price_usd is missing" in checks[1].excluded
    assert "not an object" in checks[2].excluded


@pytest.mark.parametrize(
    "doc",
    [
        {"benchmark": "Other", "version": 1, "epochs": []},
        {"benchmark": "PirateBench", "version": 2, "epochs": []},
        {"benchmark": "PirateBench", "version": True, "epochs": []},
        {"benchmark": "PirateBench", "version": 1, "epochs": {}},
        pirate([], scored="yes"),
        pirate([], date="20 Nov 2026"),
        pirate([], id=""),
        pirate(None),
        {"benchmark": "PirateBench", "version": 1, "epochs": [pirate([])["epochs"][0]] * 2},
    ],
)
def test_piratebench_structural_faults_reject_the_payload(doc):
    with pytest.raises(PayloadError):
        piratebench.parse(blob_payload("piratebench.json", doc, "piratebench"), PIRATE)


def test_piratebench_demo_epochs():
    path = PACKAGE_DATA / "demo" / "piratebench" / "piratebench.json"
    checks = piratebench.parse(file_payload(path, "piratebench"), PIRATE).build_checks
    epochs = {(c.epoch, c.scored, c.date) for c in checks}
    assert epochs == {("2026-09", True, date(2026, 9, 25)), ("2026-11", True, date(2026, 11, 20)),
                      ("2026-12-preview", False, date(2026, 11, 27))}
    latest = [c for c in checks if c.epoch == "2026-11"]
    assert len({c.model for c in latest}) >= 15
    unpriced = [c for c in latest if c.excluded]
    assert [(c.model, c.price) for c in unpriced] == [("minimax-m3", None)]
    # flagship builds around $1-3, workers $0.05-0.9
    median = {m: statistics.median(c.price for c in latest if c.model == m)
              for m in {c.model for c in latest} if m != "minimax-m3"}
    assert 1.0 <= median["claude-opus-5.5"] <= 3.0 and 0.04 <= median["gpt-6-nano"] <= 0.1
    assert any(p <= 0.25 for p in median.values()) and any(0.25 < p < 1.0 for p in median.values())


# --------------------------------------------------------------------------- every demo payload


@pytest.fixture(scope="module")
def demo_parsed():
    from builder.fetch import read_recorded

    cfg, base = load_config(REPO / "site.yml")
    parsed = {}
    for source in cfg.sources:
        parsed[source.name] = parse_payload(read_recorded(source, base), source)
    return cfg, parsed


def test_every_demo_payload_parses(demo_parsed):
    cfg, parsed = demo_parsed
    assert set(parsed) == {s.name for s in cfg.sources}
    for name, result in parsed.items():
        assert result.observations or result.prices or result.build_checks or result.models, name


def test_demo_price_traps(demo_parsed):
    _, parsed = demo_parsed
    lite = {p.key: p for p in parsed["litellm"].prices}
    assert "sample_spec" not in lite and parsed["litellm"].published == date(2026, 11, 25)
    assert "boolean" in lite["openrouter/baidu/ernie-5"].excluded
    assert "string" in lite["openrouter/qwen/qwen4-32b"].excluded
    assert "missing" in lite["azure/gpt-6"].excluded
    assert "not positive" in lite["ollama/qwen4-8b"].excluded
    assert "':'" in lite["anthropic.claude-opus-5-5-20261001-v1:0"].excluded
    assert lite["fireworks-ai-up-to-4b"].excluded.startswith("no mode")
    router = {p.key: p for p in parsed["openrouter"].prices}
    assert "'-1'" in router["openrouter/auto"].excluded
    assert "':'" in router["openai/gpt-oss-2-20b:free"].excluded and "':'" in router["openai/gpt-6:batch"].excluded
    assert router["~anthropic/claude-opus-latest"].excluded.startswith("alias of")
    catalog = {m.model: m for m in parsed["arena-catalog"].models}
    assert catalog["nova-2-pro"].licence == "Propretary" and catalog["nova-2-pro"].open_weight is False


def _identities(cfg, records):
    from builder.identity import identity_map

    return identity_map([r.model for r in records], cfg.folding, cfg.aliases)


def test_demo_roster_spellings_fold_to_curated_models(demo_parsed):
    cfg, parsed = demo_parsed
    curated = {m.model for m in parsed["metadata"].models}
    arena = parsed["arena"].observations
    ids = _identities(cfg, arena)
    not_on_arena = {"hermes-5-70b", "claude-haiku-5.1"}  # Aider only; released after the boards
    assert {ids[o.model] for o in arena} == curated - not_on_arena
    for name in ("litellm", "openrouter"):
        prices = [p for p in parsed[name].prices if p.excluded is None]
        pids = _identities(cfg, prices)
        assert curated - not_on_arena <= {pids[p.model] for p in prices}, name


def test_demo_feeds_overlap_arena_and_agree_with_it(demo_parsed):
    """Calibration needs >= 10 overlapping identities per feed and a positive slope."""
    cfg, parsed = demo_parsed
    arena = parsed["arena"].observations
    aid = _identities(cfg, arena)
    text: dict[str, float] = {}
    for o in arena:
        if o.feed == "arena/text" and o.excluded is None:
            text[aid[o.model]] = max(text.get(aid[o.model], -math.inf), o.raw)
    feeds = {f for fam in cfg.families.values() for f in fam.feeds if not f.startswith("arena/")}
    for source in ("epoch", "aider", "livebench", "terminal-bench"):
        obs = parsed[source].observations
        ids = _identities(cfg, obs)
        best: dict[str, dict[str, float]] = defaultdict(dict)
        for o in obs:
            if o.excluded is None and o.feed in feeds:
                k = ids[o.model]
                best[o.feed][k] = max(best[o.feed].get(k, -math.inf), o.raw)
        assert best, source
        for feed, scores in best.items():
            overlap = sorted(set(scores) & set(text))
            assert len(overlap) >= 10, (feed, overlap)
            r = statistics.correlation([scores[k] for k in overlap], [text[k] for k in overlap])
            assert r > 0.5, (feed, r)


def test_demo_home_machines_and_price_bands_have_candidates(demo_parsed):
    cfg, parsed = demo_parsed
    curated = [m for m in parsed["metadata"].models if m.open_weight]
    for machine in cfg.machines:
        budget = cfg.prices.memory_fraction * machine.memory_gb
        fits = [m for m in curated if m.params_b * cfg.prices.bytes_per_param_4bit <= budget]
        assert len(fits) >= 3, machine.id
    prices = [p for p in parsed["litellm"].prices if p.excluded is None]
    ids = _identities(cfg, prices)
    cheapest: dict[str, float] = {}
    for p in prices:
        cheapest[ids[p.model]] = min(cheapest.get(ids[p.model], math.inf), p.blended)
    assert sum(v <= cfg.prices.rote_token_max for v in cheapest.values()) >= 5
    assert sum(cfg.prices.mid_token_min < v <= cfg.prices.mid_token_max for v in cheapest.values()) >= 5
