"""``arena`` commands end to end, the snapshot's arena section, and the bundled demo battles."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from builder.cli.arena import arena
from builder.config import PACKAGE_DATA, ArenaConfig
from builder.pairwise.arena import TABLE_COLUMNS, compute_arena_section

ROOT = Path(__file__).resolve().parents[1]
DEMO = PACKAGE_DATA / "demo" / "battles" / "clean_battle_demo.jsonl"
DEMO_ARGS = ["--models-from", str(PACKAGE_DATA / "demo" / "arena" / "leaderboard-text.json"), "--n", "30000",
             "--seed", "7", "--start", "2026-05-01", "--end", "2026-11-25", "--debut-spread", "0.6",
             "--anony-share", "0.85", "--style-effect", "tokens=1.2", "--style-effect", "bold=0.4",
             "--verbose-model", "qwen4-32b=1.2"]


def run(*args):
    return CliRunner().invoke(arena, [str(a) for a in args])


@pytest.fixture(scope="module")
def simulated(tmp_path_factory):
    out = tmp_path_factory.mktemp("sim") / "battles.jsonl"
    res = run("simulate", "--models", 8, "--n", 4000, "--seed", 3, "--tie-prob", 0.2, "--output", out,
              "--truth-output", out.with_suffix(".truth.json"))
    assert res.exit_code == 0, res.output
    return out


def test_every_command_has_help():
    for cmd in ("simulate", "fit", "history", "judge"):
        res = run(cmd, "--help")
        assert res.exit_code == 0 and "Usage" in res.output


def test_fit_json_rows(simulated, tmp_path):
    out = tmp_path / "ratings.json"
    res = run("fit", "--input", simulated, "--bootstrap", 50, "--seed", 1, "--output", out)
    assert res.exit_code == 0, res.output
    rows = json.loads(out.read_text())
    assert len(rows) == 8 and all(list(r) == list(TABLE_COLUMNS) for r in rows)
    assert [r["rank"] for r in rows] == list(range(1, 9))
    assert sum(r["battles"] for r in rows) == 2 * 4000
    for r in rows:
        assert r["win_rate"] == pytest.approx((r["wins"] + 0.5 * r["ties"]) / r["battles"], abs=1e-4)
        assert r["lower"] <= r["median"] <= r["upper"] and r["lower"] <= r["rating"] <= r["upper"]
        assert 1 <= r["rank_ub"] <= r["rank"]
    assert 0.15 * 8000 < sum(r["ties"] for r in rows) < 0.25 * 8000  # 20% ties, counted on both sides
    assert sum(r["rating"] for r in rows) / 8 == pytest.approx(1000.0, abs=0.01)
    truth = json.loads(simulated.with_suffix(".truth.json").read_text())
    assert rows[0]["model"] == max(truth, key=truth.get)


def test_fit_csv_elo_and_stdout(simulated, tmp_path):
    out = tmp_path / "elo.csv"
    res = run("fit", "--input", simulated, "--method", "elo", "--output", out)
    assert res.exit_code == 0, res.output
    with out.open() as f:
        rows = list(csv.DictReader(f))
    assert list(rows[0]) == list(TABLE_COLUMNS) and len(rows) == 8
    assert rows[0]["rating"] == rows[0]["median"]  # no bootstrap: the interval collapses
    res = run("fit", "--input", simulated, "--anchor", "model-1=1200")
    assert res.exit_code == 0 and "1200.0" in res.output


def test_fit_errors_are_one_line(tmp_path):
    bad = tmp_path / "b.jsonl"
    bad.write_text('{"model_a": "a", "model_b": "b"}\n')
    res = run("fit", "--input", bad)
    assert res.exit_code == 2 and res.output.strip().count("\n") == 0
    assert "b.jsonl" in res.output and "no column 'winner'" in res.output
    loser = tmp_path / "l.jsonl"
    loser.write_text("".join(json.dumps({"model_a": a, "model_b": b, "winner": w}) + "\n" for a, b, w in [
        ("a", "b", "model_a"), ("b", "a", "model_a"), ("c", "a", "model_b"), ("b", "c", "model_a")]))
    res = run("fit", "--input", loser)
    assert res.exit_code == 2 and "no finite Bradley-Terry rating exists: c: lost every battle" in res.output
    res = run("fit", "--input", loser, "--anchor", "oops")
    assert res.exit_code == 2 and "MODEL=RATING" in res.output
    res = run("fit", "--input", tmp_path / "none.json")
    assert res.exit_code == 2 and "not found" in res.output
    empty = tmp_path / "e.csv"
    empty.write_text("model_a,model_b,winner\n")
    res = run("fit", "--input", empty)
    assert res.exit_code == 2 and "no battles" in res.output


def test_history_outputs(simulated, tmp_path):
    js, cs = tmp_path / "h.json", tmp_path / "h.csv"
    assert run("history", "--input", simulated, "--period", "month", "--output", js).exit_code == 0
    assert run("history", "--input", simulated, "--period", "month", "--output", cs).exit_code == 0
    slices = json.loads(js.read_text())
    assert [s["date"] for s in slices] == ["2026-01-31", "2026-02-28", "2026-03-31"]
    assert slices[-1]["n_battles"] == 4000 and len(slices[-1]["models"]) == 8
    boot = tmp_path / "hb.json"
    res = run("history", "--input", simulated, "--period", "month", "--bootstrap", "5", "--output", boot)
    assert res.exit_code == 0
    rows = [m for s in json.loads(boot.read_text()) for m in s["models"]]
    # every rating and bound is written to two decimals, as `arena fit --output` writes them
    values = [m[k] for m in rows for k in ("rating", "elo", "lower", "upper") if m.get(k) is not None]
    assert rows and any(m.get("lower") is not None for m in rows)
    assert all(v == round(v, 2) for v in values)
    with cs.open() as f:
        assert len(list(csv.DictReader(f))) == sum(len(s["models"]) for s in slices)


def arena_json(path, cfg):
    """The typed Arena section as the JSON the snapshot stores."""
    return compute_arena_section(path, cfg).model_dump(mode="json")


def test_arena_section_on_demo_battles():
    cfg = ArenaConfig(bootstrap=40, seed=3, history="month", all_votes=True)
    section = arena_json(DEMO, cfg)
    json.dumps(section, allow_nan=False)  # plain JSON, no NaN or infinity
    assert section["source"] == "clean_battle_demo.jsonl"
    assert section["rows_read"] == section["n_battles"] == 30000 and section["filters"] == {}
    models = section["models"]
    assert len(models) == 46 and len(section["components"]) == 1 and section["unrated"] == []
    for row in models:
        assert set(row) == set(TABLE_COLUMNS) | {"elo", "component"}
        assert row["lower"] <= row["rating"] <= row["upper"]
    wr = section["winrate"]
    assert cfg.top_heatmap == 30  # the seed's win-rate matrix covers the top 30
    assert len(wr["models"]) == 30 and len(wr["predicted"]) == 30 and len(wr["empirical"][0]) == 30
    assert wr["models"] == [m["model"] for m in models[:30]]
    assert wr["predicted"][0][0] is None and 0.5 < wr["predicted"][0][29] < 1
    assert any(v is None for row in wr["empirical"] for v in row[1:])  # some top pairs never met
    assert 0 < wr["mae"] < 0.1 and wr["pairs_used"] > 20
    hist = section["history"]
    assert hist[-1]["date"] == "2026-11-25" and len(hist) == 7
    assert len(hist[0]["models"]) < len(hist[-1]["models"]) == 46
    assert arena_json(DEMO, cfg) == section  # seeded
    anon = arena_json(DEMO, ArenaConfig(bootstrap=0, anony_only=True, history="month", all_votes=True))
    assert anon["filters"]["anony"] > 0 and anon["n_battles"] == 30000 - anon["filters"]["anony"]
    official = arena_json(DEMO, ArenaConfig(bootstrap=0, history="month"))  # the default: official filters
    assert official["filters"] == anon["filters"] and official["n_battles"] == anon["n_battles"]
    assert official["method"]["official_filters"] and official["method"]["anony_only"]


def test_arena_section_on_real_battles_reports_components(shared_data):
    path = shared_data / "arena" / "genai-arena" / "clean_battle_20240220.json"
    section = arena_json(path, ArenaConfig(bootstrap=30, history="week"))
    json.dumps(section, allow_nan=False)
    assert section["bad_rows"]["same_model"] == 1
    gen, edit = section["components"]
    assert len(gen["models"]) == 6 and len(edit["models"]) == 7 and gen["n_battles"] > edit["n_battles"]
    assert all(m.endswith("_generation") for m in section["winrate"]["models"])


def test_demo_battles_regenerate_from_the_documented_command(tmp_path):
    out = tmp_path / "demo.jsonl"
    res = run("simulate", *DEMO_ARGS, "--output", out)
    assert res.exit_code == 0, res.output
    assert out.read_bytes() == DEMO.read_bytes(), (
        "builder/data/demo/battles/clean_battle_demo.jsonl is stale: rerun the command in "
        "builder/cli/arena.py's docstring")
    assert DEMO.stat().st_size < 11_000_000  # with conv_metadata (zero dict entries left out)


def test_heatmap_size_comes_from_site_yml_or_the_command_line(tmp_path):
    from builder.cli import main
    from builder.cli.options import with_top_heatmap
    from builder.config import load_config

    root = Path(__file__).resolve().parents[1]
    cfg = load_config(root / "site.yml")[0]
    assert cfg.arena.top_heatmap == 30
    assert with_top_heatmap(cfg, 12).arena.top_heatmap == 12 and with_top_heatmap(cfg, None) is cfg
    section = arena_json(DEMO, ArenaConfig(bootstrap=0, history="month", top_heatmap=12))
    assert len(section["winrate"]["models"]) == 12 and len(section["winrate"]["battles"][11]) == 12
    for cmd in ("build", "score"):
        res = CliRunner().invoke(main, [cmd, "--help"])
        assert "--top-heatmap" in res.output
    bad = tmp_path / "site.yml"
    bad.write_text((root / "site.yml").read_text().replace("top_heatmap: 30", "top_heatmap: 1"))
    res = CliRunner().invoke(main, ["--config", str(bad), "build", "--out", str(tmp_path / "o")])
    assert res.exit_code == 2 and "top_heatmap" in res.output and "Traceback" not in res.output
