"""A site.yml whose every source points at the real upstream files in ../shared/data runs
`fetch`, `select` and `score` end to end through the command line."""

from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from builder.cli import main

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def real_config(tmp_path_factory, shared_data) -> Path:
    tmp = tmp_path_factory.mktemp("real")
    data = yaml.safe_load((ROOT / "site.yml").read_text())
    data["demo"] = False
    data["aliases"] = {}  # the shipped identity rules and registry fold the real spellings
    recorded = {
        "arena": shared_data / "arena/lmarena/leaderboard-text.json",
        "arena-catalog": shared_data / "arena/lmarena/scatterplot-data.json",
        "epoch": shared_data / "epoch/epoch_capabilities_index.csv",
        "aider": shared_data / "aider/polyglot_leaderboard.yml",
        "livebench": shared_data / "livebench",
        "terminal-bench": shared_data / "terminal-bench",
        "litellm": shared_data / "litellm/model_prices_and_context_window.json",
        "openrouter": shared_data / "openrouter/openrouter_models.json",
    }
    dates = {"arena": "2025-12-11", "arena-catalog": "2025-12-17", "epoch": "2025-11-07", "aider": "2025-10-04",
             "terminal-bench": "2025-09-25", "litellm": "2026-07-24", "openrouter": "2026-08-19"}
    sources = []
    for s in data["sources"]:
        if s["name"] in recorded:
            s["recorded"] = str(recorded[s["name"]])
            s.pop("recorded_date", None)
            if s["name"] in dates:
                s["recorded_date"] = dates[s["name"]]
            sources.append(s)
        elif s["kind"] == "metadata":
            sources.append(s)  # the project's curated file
    data["sources"] = sources
    data["fetch"] = {"store": str(tmp / "store")}
    data["snapshots_dir"] = str(tmp / "snapshots")
    data["arena"] = {"enabled": False}
    data["evals"] = []
    path = tmp / "site.yml"
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    result = CliRunner().invoke(main, ["--config", str(path), "fetch", "--no-progress"])
    assert result.exit_code == 0, result.output
    assert "0 failed" in result.output
    return path


def test_select_on_the_real_files(real_config):
    result = CliRunner().invoke(main, ["--config", str(real_config), "select", "--format", "json"])
    assert result.exit_code == 0, result.stderr
    rows = json.loads(result.stdout)
    assert set(rows[0]) == {"source", "feed", "evaluator", "model", "identity", "raw", "date", "url", "selected",
                            "reason"}
    by_source: dict[str, list[dict]] = {}
    for r in rows:
        by_source.setdefault(r["source"], []).append(r)
    assert set(by_source) >= {"arena", "epoch", "aider", "livebench", "terminal-bench"}
    aider = by_source["aider"]
    assert len(aider) == 69 and sum(1 for r in aider if not r["reason"].startswith("excluded")) == 65
    # one selected row per source feed and identity; every other row says why
    seen = set()
    for r in rows:
        if r["selected"]:
            key = (r["feed"], r["identity"])
            assert key not in seen, key
            seen.add(key)
        else:
            assert r["reason"], r
    ragged = [r for r in by_source["livebench"] if r["model"] == "nemotron-3-super-120b-a12b"]
    assert ragged and all(not r["selected"] and "field" in r["reason"] for r in ragged)


def test_select_csv_output_to_file(real_config, tmp_path):
    out = tmp_path / "rows.csv"
    result = CliRunner().invoke(main, ["--config", str(real_config), "select", "--format", "csv", "--output", str(out)])
    assert result.exit_code == 0
    rows = list(csv.DictReader(io.StringIO(out.read_text())))
    assert rows and {r["selected"] for r in rows} == {"true", "false"}


def test_score_on_the_real_files(real_config):
    result = CliRunner().invoke(main, ["--config", str(real_config), "score"])
    assert result.exit_code == 0, result.output
    snap = json.loads(next((real_config.parent / "snapshots").glob("*.json")).read_text())
    used = [c for c in snap["calibration"] if c["used"]]
    assert {c["feed"] for c in used} >= {"epoch/eci", "livebench/global", "aider/polyglot"}
    for c in used:
        assert len(c["overlap"]) >= 10 and c["beta"] > 0
    orchestrator = next(b for b in snap["boards"] if b["id"] == "orchestrator")
    assert orchestrator["rows"] and orchestrator["rows"][0]["rank"] == 1


def test_snapshot_counts_each_sources_arena_overlap_and_the_methodology_shows_it(real_config):
    from builder.render.writer import make_env
    from builder.snapshot import load_snapshot

    result = CliRunner().invoke(main, ["--config", str(real_config), "score"])
    assert result.exit_code == 0, result.output
    snap = load_snapshot(next((real_config.parent / "snapshots").glob("*.json")))
    sources = {s.name: s for s in snap.sources}
    # the Arena anchors the overlap; price lists have no ratings to match
    assert sources["arena"].models and sources["arena"].arena_overlap is None
    assert sources["litellm"].models is None and sources["litellm"].arena_overlap is None
    rows = select_rows_by_source(real_config)
    arena = {r["identity"] for r in rows if r["feed"] == "arena/text" and r["selected"]}
    for name in ("livebench", "aider", "epoch", "terminal-bench"):
        mine = {r["identity"] for r in rows if r["source"] == name and r["selected"] and r["raw"] is not None}
        assert sources[name].models == len(mine) and sources[name].arena_overlap == len(mine & arena), name
    assert sources["terminal-bench"].arena_overlap >= 5  # enough names match; before the identity rules: 2
    # Gemini 3 Pro (LMArena's gemini-3-pro, LiveBench's gemini-3-pro-preview-11-2025) is ranked, not new
    orchestrator = next(b for b in snap.boards if b.id == "orchestrator")
    assert "gemini-3-pro" in {r.identity for r in orchestrator.rows}
    assert "gemini-3-pro" not in {r.identity for r in orchestrator.new}
    html = make_env(ROOT / "templates").get_template("_arena_overlap.html").render({"snap": snap})
    cells = re.findall(r"<tr><td>([^<]*)</td><td class=\"num\">(\d+)</td><td class=\"num\">(\d+)</td>", html)
    shown = {title: (int(m), int(o)) for title, m, o in cells}
    assert shown[sources["epoch"].title] == (sources["epoch"].models, sources["epoch"].arena_overlap)
    assert sources["arena"].title not in shown
    # an older snapshot without the counts renders nothing
    old = load_snapshot(ROOT / "snapshots" / "2026-11-29.json")
    if all(s.arena_overlap is None for s in old.sources):
        assert make_env(ROOT / "templates").get_template("_arena_overlap.html").render({"snap": old}).strip() == ""


def select_rows_by_source(config: Path) -> list[dict]:
    result = CliRunner().invoke(main, ["--config", str(config), "select", "--format", "json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)
