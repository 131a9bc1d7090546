"""LMArena's official filters are on by default: anonymous votes only, duplicate-tagged
prompts dropped (where the battles file carries the columns); ``--all-votes`` turns them off."""

from __future__ import annotations

import json

import numpy as np
from click.testing import CliRunner

from builder.cli.arena import arena
from builder.config import ArenaConfig
from builder.pairwise.arena import compute_arena_section


def _write_battles(path, n=600, seed=0):
    """Battles among four models; every 5th non-anonymous, every 7th a duplicate-tagged prompt."""
    rng = np.random.default_rng(seed)
    models = ["alpha", "beta", "gamma", "delta"]
    skill = {"alpha": 1.0, "beta": 0.5, "gamma": 0.0, "delta": -0.5}
    rows, n_non_anon, n_dup = [], 0, 0
    for k in range(n):
        a, b = rng.choice(4, size=2, replace=False)
        ma, mb = models[a], models[b]
        p = 1 / (1 + np.exp(skill[mb] - skill[ma]))
        anony = k % 5 != 0
        sampled = k % 7 != 0
        # the dropped rows all favour delta: counting them would move its rating
        winner = "model_a" if rng.random() < p else "model_b"
        if not anony or not sampled:
            winner = "model_a" if ma == "delta" else "model_b" if mb == "delta" else winner
        n_non_anon += not anony
        n_dup += anony and not sampled
        rows.append({"model_a": ma, "model_b": mb, "winner": winner, "tstamp": 1.7e9 + 3600 * k, "anony": anony,
                     "dedup_tag": {"high_freq": not sampled, "sampled": sampled}})
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    return n_non_anon, n_dup


def test_arena_fit_reports_and_removes_official_rows_by_default(tmp_path):
    path = tmp_path / "battles.jsonl"
    non_anon, dup = _write_battles(path)
    out, out_all = tmp_path / "fit.json", tmp_path / "all.json"
    res = CliRunner().invoke(arena, ["fit", "--input", str(path), "--output", str(out)])
    assert res.exit_code == 0, res.output
    kept = 600 - non_anon - dup
    assert f"600 rows, {kept} battles" in res.output
    assert f"removed: anony {non_anon}, dedup {dup}" in res.output
    assert "official filters: anony and dedup" in res.output
    res_all = CliRunner().invoke(arena, ["fit", "--input", str(path), "--all-votes", "--output", str(out_all)])
    assert res_all.exit_code == 0, res_all.output
    assert "600 rows, 600 battles" in res_all.output and "official filters off" in res_all.output
    rows = {r["model"]: r for r in json.loads(out.read_text())}
    rows_all = {r["model"]: r for r in json.loads(out_all.read_text())}
    assert sum(r["battles"] for r in rows.values()) == 2 * kept
    assert rows_all["delta"]["rating"] > rows["delta"]["rating"] + 20  # the dropped votes are not counted


def test_official_filters_skip_a_file_without_the_columns(tmp_path):
    path = tmp_path / "plain.jsonl"
    path.write_text("".join(json.dumps({"model_a": a, "model_b": b, "winner": "model_a"}) + "\n"
                            for a, b in [("x", "y"), ("y", "z"), ("z", "x"), ("y", "x")]), encoding="utf-8")
    res = CliRunner().invoke(arena, ["fit", "--input", str(path)])
    assert res.exit_code == 0, res.output
    assert "removed: no filters (official filters: the file has no anony or dedup_tag column)" in res.output


def test_site_arena_uses_official_filters_unless_all_votes(tmp_path):
    path = tmp_path / "battles.jsonl"
    non_anon, dup = _write_battles(path)
    on = compute_arena_section(path, ArenaConfig(bootstrap=0, history="week", style_control=False))
    off = compute_arena_section(path, ArenaConfig(bootstrap=0, history="week", style_control=False, all_votes=True))
    assert on.filters == {"anony": non_anon, "dedup": dup} and on.n_battles == 600 - non_anon - dup
    assert on.method.official_filters and not off.method.official_filters
    assert off.filters == {} and off.n_battles == 600


def test_pipeline_drops_non_anonymous_simulated_votes():
    res = CliRunner().invoke(arena, ["pipeline", "--n", "2000", "--bootstrap", "0", "--anony-share", "0.8"])
    assert res.exit_code == 0, res.output
    line = next(t for t in res.output.splitlines() if t.startswith("filters:"))
    removed = int(line.split(": ")[2].split()[0])
    assert 300 < removed < 500 and f"{2000 - removed} fitted" in line
    res_all = CliRunner().invoke(arena, ["pipeline", "--n", "2000", "--bootstrap", "0", "--anony-share", "0.8",
                                         "--all-votes"])
    assert "filters: none (--all-votes)" in res_all.output


def test_arena_history_and_leaderboard_use_the_official_filters_by_default(tmp_path):
    path = tmp_path / "battles.jsonl"
    non_anon, dup = _write_battles(path)
    out = tmp_path / "history.json"
    res = CliRunner().invoke(arena, ["history", "--input", str(path), "--period", "week", "--workers", "1",
                                     "--output", str(out)])
    assert res.exit_code == 0, res.output
    assert f"removed: anony {non_anon}, dedup {dup}" in res.output
    slices = json.loads(out.read_text())
    assert slices[-1]["n_battles"] == 600 - non_anon - dup
    res_all = CliRunner().invoke(arena, ["history", "--input", str(path), "--all-votes", "--workers", "1"])
    assert res_all.exit_code == 0 and "official filters off" in res_all.output
    board = CliRunner().invoke(arena, ["leaderboard", "--input", str(path)])
    assert board.exit_code == 0 and f"removed: anony {non_anon}, dedup {dup}" in board.output
