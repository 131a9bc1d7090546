"""Race frames (every model, true ranks, one frame and two hundred) and the demo backfill
(dated variants scored day by day: rank swaps, movement labels, refusing to overwrite)."""

from __future__ import annotations

import hashlib
import itertools
import json
from datetime import date, timedelta
from pathlib import Path

import pytest
from click.testing import CliRunner
from fixtures.make_snapshot import bare_board, bare_snapshot, board_row, full_arena

from builder.charts.race import (
    PALETTE,
    colour_of,
    compute_arena_frames,
    compute_board_frames,
    compute_race_data,
    write_race_data,
)
from builder.cli.context import Context, Group
from builder.cli.site import backfill as backfill_cmd
from builder.config import load_config
from builder.history import backfill as bf
from builder.snapshot import Snapshot, list_snapshots, load_snapshot, validate_snapshot

ROOT = Path(__file__).resolve().parents[1]
START, END, EVERY = date(2026, 9, 20), date(2026, 11, 8), 7  # 8 dates


# --------------------------------------------------------------------------- synthetic snapshots


def _row(ident: str, r: float, rank: int | None, **extra) -> dict:
    return board_row(ident, r, rank, **extra)


def _snap(day: str, rows: list[dict], board: str = "orchestrator", new: list[dict] | None = None) -> Snapshot:
    return validate_snapshot(bare_snapshot(day, [bare_board(board, rows, new)]))


def test_frames_hold_every_model_with_true_ranks():
    n = 30
    values = [1500.0 - 3.7 * k + (0.123456789 if k % 2 else 0.0) for k in range(n)]
    values[5] = values[4]  # a tie: competition ranks 1..5, 5, 7..
    rows = []
    for k, v in enumerate(values):
        rank = k + 1 if k != 5 else 5
        rows.append(_row(f"m{k:02d}", v, rank, partial=k % 7 == 0, movement="new" if k == 3 else -1))
    snap = _snap("2026-11-01", rows, new=[_row("single-evaluator", 1700.0, None)])  # the new strip never races
    doc = compute_board_frames([snap], "orchestrator")
    assert doc["title"] == "Orchestrator"
    (frame,) = doc["frames"]
    assert frame["date"] == "2026-11-01"
    got = {m["identity"]: m for m in frame["models"]}
    assert len(frame["models"]) == n  # all of them, far beyond a top 12
    assert "single-evaluator" not in got
    for k, v in enumerate(values):
        m = got[f"m{k:02d}"]
        assert m["value"] == v  # unrounded
        assert m["rank"] == (5 if k == 5 else k + 1)
        assert m["score"] == round(v)
        assert m["partial"] is (k % 7 == 0)
        assert m["name"] == f"M{k:02d}"
    assert got["m03"]["movement"] == "new" and got["m04"]["movement"] == -1
    # by rank, ties by name: M04 before M05 at rank 5
    assert [m["identity"] for m in frame["models"][3:6]] == ["m03", "m04", "m05"]


def test_frames_are_dated_ordered_and_one_per_day():
    a = _snap("2026-11-02", [_row("x", 1400.0, 1)])
    b = _snap("2026-11-01", [_row("x", 1300.0, 1)])
    dup = _snap("2026-11-02", [_row("x", 1.0, 1)])
    other = _snap("2026-11-03", [_row("x", 1.0, 1)], board="rote")  # no orchestrator that day
    doc = compute_board_frames([a, b, dup, other], "orchestrator")
    assert [f["date"] for f in doc["frames"]] == ["2026-11-01", "2026-11-02"]
    assert doc["frames"][1]["models"][0]["value"] == 1400.0  # the first given for a date wins


def test_one_frame_and_two_hundred_frames(tmp_path):
    one = compute_board_frames([_snap("2026-01-01", [_row("a", 1.5, 1)])], "orchestrator")
    assert len(one["frames"]) == 1
    day0 = date(2026, 1, 1)
    snaps = []
    for k in range(200):
        rows = [_row(f"m{j}", 1000.0 + ((j * 37 + k * 11) % 97) + j / 1000, 1) for j in range(15)]
        rows.sort(key=lambda r: -r["r"])
        for i, r in enumerate(rows):
            r["rank"] = i + 1
        snaps.append(_snap((day0 + timedelta(days=k)).isoformat(), rows))
    current, history = snaps[-1], snaps[:-1]
    boards, arena = compute_race_data(list(reversed(history)), current)
    (doc,) = boards["boards"]
    assert len(doc["frames"]) == 200
    dates = [f["date"] for f in doc["frames"]]
    assert dates == sorted(dates) and dates[0] == "2026-01-01" and dates[-1] == "2026-07-19"
    assert all(len(f["models"]) == 15 for f in doc["frames"])
    assert arena["frames"] == []
    # a past day renders its own past: later snapshots are left out
    past, _ = compute_race_data(snaps, snaps[9])
    assert len(past["boards"][0]["frames"]) == 10
    paths = write_race_data(tmp_path, history, current)
    assert [p.relative_to(tmp_path).as_posix() for p in paths] == ["data/race/boards.json", "data/race/arena.json"]
    written = json.loads(paths[0].read_text(encoding="utf-8"))
    assert len(written["boards"][0]["frames"]) == 200
    assert set(written["colours"]) == {f"m{j}" for j in range(15)}


def test_colour_is_stable_and_from_the_palette():
    for ident in ("gpt-6", "claude-opus-5.5", "x"):
        digest = hashlib.sha256(ident.encode()).hexdigest()
        assert colour_of(ident) == PALETTE[int(digest[:8], 16) % len(PALETTE)]
    assert len({colour_of(f"model-{k}") for k in range(200)}) == len(PALETTE)


def test_arena_frames_from_history_slices():
    def facts(name, spellings):
        return {"name": name, "maker": None, "licence": None, "open_weight": None, "params_b": None,
                "context_window": None, "release_date": None, "lineage": None, "spellings": spellings,
                "sources": {"licence": None, "params_b": None}}

    history = [
        {"date": "2026-10-12", "n_battles": 900, "models": [
            {"model": "gpt-6", "rating": 1010.5, "rank": 1},
            {"model": "grok-5", "rating": 990.25, "rank": 2, "lower": 980.0, "upper": 1000.0},
            {"model": "gpt-6-high", "rating": 999.5, "rank": 2},
            {"model": "mystery", "rating": 1005.0, "rank": 2},
            {"model": "broken", "rating": None, "rank": 3},
        ]},
        {"date": "2026-10-05", "n_battles": 400, "models": [{"model": "grok-5", "rating": 1000.0, "rank": 1}]},
    ]
    models = {"gpt-6": facts("GPT-6", ["gpt-6", "gpt-6-high"]), "grok-5": facts("Grok 5", ["grok-5"]),
              # a spelling only the Arena knows: scoring gives it bare facts under its own name
              "mystery": facts("mystery", ["mystery"]), "broken": facts("broken", ["broken"])}
    arena = full_arena([{"model": "grok-5", "rating": 1000.0, "lower": None, "upper": None, "rank": 1,
                         "component": 0}], history, n_battles=900)
    snap = validate_snapshot(bare_snapshot("2026-11-30", [], models=models, arena=arena))
    doc = compute_arena_frames(snap)
    assert [f["date"] for f in doc["frames"]] == ["2026-10-05", "2026-10-12"]
    assert doc["frames"][1]["n_battles"] == 900
    got = {m["identity"]: m for m in doc["frames"][1]["models"]}
    # grok-5 is the only Arena spelling of its identity: board identity and name
    assert got["grok-5"]["name"] == "Grok 5" and got["grok-5"]["lower"] == 980.0
    # two spellings of gpt-6 stay apart, each with gpt-6's colour
    assert got["gpt-6"]["name"] == "gpt-6" and got["gpt-6-high"]["name"] == "gpt-6-high"
    assert doc["colours"]["gpt-6-high"] == doc["colours"]["gpt-6"] == colour_of("gpt-6")
    assert got["mystery"]["name"] == "mystery" and "broken" not in got
    assert got["gpt-6-high"]["score"] == 1000  # round half to even
    assert compute_arena_frames(snap.model_copy(update={"arena": None}))["frames"] == []
    assert compute_arena_frames(None)["frames"] == []


# --------------------------------------------------------------------------- backfill


@pytest.fixture(scope="module")
def demo_cfg():
    cfg, base = load_config(ROOT / "site.yml")
    # the Arena section is fitted in its own test; here it would only cost time
    fast = cfg.model_copy(update={"arena": cfg.arena.model_copy(update={"enabled": False})})
    return fast, base


@pytest.fixture(scope="module")
def history(demo_cfg, tmp_path_factory):
    cfg, base = demo_cfg
    folder = tmp_path_factory.mktemp("snapshots")
    days = bf.compute_backfill_dates(START, END, EVERY)
    written = bf.write_demo_history(cfg, base, days, folder)
    return folder, written, [load_snapshot(p).model_dump(mode="json") for p in list_snapshots(folder)]


def _order(board: dict) -> list[str]:
    return [r["identity"] for r in board["rows"]]


def test_backfill_writes_eight_dated_snapshots_scored_by_the_real_method(history, demo_cfg):
    cfg, _ = demo_cfg
    _, written, snaps = history
    assert [a for _, a in written] == ["written"] * 8
    assert [s["date"] for s in snaps] == [(START + timedelta(days=7 * k)).isoformat() for k in range(8)]
    for s in snaps:
        assert s["demo"] is True and s["backfill"]["demo"] is True
        assert s["method_id"] == cfg.method_id()
        assert s["created_at"] == f"{s['date']}T12:45:00+00:00"
        assert s["as_of"] <= s["date"]
        assert all(src["published"] is None or src["published"] <= s["date"] for src in s["sources"])
        assert all(o["date"] is None or o["date"] <= s["date"] for o in s["observations"])
    # the eval suites (undated files) hold only the models released by each day
    releases = {i: m["release_date"] for i, m in snaps[-1]["models"].items()}
    for s in snaps:
        for suite in s["evals"]["suites"] if s["evals"] else []:
            for board in suite["boards"].values():
                for row in board["rows"]:
                    assert releases.get(row["model_id"]) is None or releases[row["model_id"]] <= s["date"]
    assert snaps[-1]["evals"] and len(snaps[-1]["evals"]["suites"]) == len(cfg.evals)
    counts = [len(s["evals"]["suites"][0]["boards"]["pass_rate"]["rows"]) if s["evals"] else 0 for s in snaps]
    assert counts == sorted(counts) and counts[0] < counts[-1]  # models join as they are released


def test_backfill_has_rank_swaps_and_movement_labels(history):
    _, _, snaps = history
    swaps = 0
    for a, b in itertools.pairwise(snaps):
        for ba, bb in zip(a["boards"], b["boards"], strict=False):
            ra = {r["identity"]: r["r"] for r in ba["rows"]}
            rb = {r["identity"]: r["r"] for r in bb["rows"]}
            common = sorted(set(ra) & set(rb))
            swaps += sum(1 for i in common for j in common if i < j and (ra[i] - ra[j]) * (rb[i] - rb[j]) < 0)
    assert swaps >= 3
    first_moves = [r["movement"] for b in snaps[0]["boards"] for r in b["rows"]]
    assert all(m is None for m in first_moves)  # nothing to compare the first day with
    later = [r["movement"] for s in snaps[1:] for b in s["boards"] for r in b["rows"]]
    assert "new" in later
    assert any(isinstance(m, int) and m > 0 for m in later)
    assert any(isinstance(m, int) and m < 0 for m in later)


def test_backfill_variant_keeps_only_what_existed(history, demo_cfg):
    cfg, base = demo_cfg
    _, _, snaps = history
    by_day = {s["date"]: s for s in snaps}
    releases = {i: m.get("release_date") for i, m in snaps[-1]["models"].items()}
    for s in snaps:
        ranked = {r["identity"] for b in s["boards"] for r in b["rows"] + b["new"]}
        for ident in ranked:
            assert releases.get(ident) is None or releases[ident] <= s["date"], (s["date"], ident)
    # sol-2 is released 2026-10-20: absent on 10-18, new on 10-25
    orch = {d: {r["identity"]: r for r in next(b for b in s["boards"] if b["id"] == "orchestrator")["rows"]}
            for d, s in by_day.items()}
    assert "sol-2" not in orch["2026-10-18"] and orch["2026-10-25"]["sol-2"]["movement"] == "new"
    # LiveBench: the June release until the November one exists (after these dates)
    lb = {o["release"] for o in by_day["2026-11-08"]["observations"] if o["source"] == "livebench"}
    assert lb == {"2026-06-25"}
    # Terminal-Bench runs appear only from their run dates
    tb = [o for o in by_day["2026-09-20"]["observations"] if o["source"] == "terminal-bench"]
    assert tb == []
    # LMArena drift: within DRIFT_POINTS of the file's value, gone from the file's date on
    sources = bf.read_demo_sources(cfg, base)
    final = {(o.feed, o.model): o.raw for o in sources["arena"].releases[-1][1].observations}
    arena_name = next(s.name for s in cfg.sources if s.kind == "lmarena")
    for d in (date(2026, 9, 20), date(2026, 11, 26), date(2026, 11, 29)):
        inputs, _ = bf.compute_variant(sources, cfg, d)
        drifts = [o.raw - final[(o.feed, o.model)] for o in inputs.observations
                  if o.source == arena_name and o.raw is not None]
        assert drifts and max(abs(x) for x in drifts) <= bf.DRIFT_POINTS
        if d >= sources["arena"].payload_date:
            assert max(abs(x) for x in drifts) == 0
        else:
            weight = bf.drift_weight(d, sources["arena"].payload_date)
            assert max(abs(x) for x in drifts) > 0.5 * bf.DRIFT_POINTS * weight


def test_drift_formula():
    assert bf.drift_weight(date(2026, 11, 26), date(2026, 11, 26)) == 0
    assert bf.drift_weight(date(2026, 12, 1), date(2026, 11, 26)) == 0
    assert bf.drift_weight(date(2026, 11, 26) - timedelta(days=35), date(2026, 11, 26)) == 0.5
    assert bf.drift_weight(date(2026, 1, 1), date(2026, 11, 26)) == 1
    u = bf.drift_unit("arena/text", "gpt-6")
    digest = hashlib.sha256(b"arena/text|gpt-6").hexdigest()
    assert u == 2 * int(digest[:8], 16) / 2**32 - 1 and -1 <= u < 1


def test_backfill_arena_section_uses_only_past_votes_of_released_models(demo_cfg):
    cfg, base = demo_cfg
    small = cfg.model_copy(update={"arena": cfg.arena.model_copy(update={"enabled": True, "bootstrap": 10})})
    sources = bf.read_demo_sources(small, base)
    day = date(2026, 10, 4)
    _, releases = bf.compute_variant(sources, small, day)
    from builder.config import resolve_data_path

    section = bf.compute_arena_variant(resolve_data_path(small.arena.battles, base), small, day, releases)
    assert section is not None and section.models
    assert section.history[-1].date <= day.isoformat()
    names = {m.model for m in section.models}
    assert not any(n.startswith("sol-2") for n in names)  # released 2026-10-20
    full = bf.compute_arena_variant(resolve_data_path(small.arena.battles, base), small, date(2026, 11, 29),
                                    releases | {"sol-2": date(2026, 10, 20)})
    assert full is not None and section.n_battles < full.n_battles


def _cli(args: list[str], config: Path) -> object:
    group = Group()
    group.add_command(backfill_cmd)
    return CliRunner().invoke(group, args, obj=Context(str(config), 0))


def test_backfill_refuses_to_overwrite(history, demo_cfg, tmp_path):
    folder, _, _ = history
    before = {p.name: p.read_bytes() for p in list_snapshots(folder)}
    res = _cli(["backfill", "--demo", "--start", START.isoformat(), "--end", END.isoformat(),
                "--snapshots-dir", str(folder)], ROOT / "site.yml")
    assert res.exit_code == 2
    assert "already exists" in res.output and "--force" in res.output and "2026-09-20.json" in res.output
    assert {p.name: p.read_bytes() for p in list_snapshots(folder)} == before
    # without --demo: one line, nothing written
    res = _cli(["backfill", "--snapshots-dir", str(tmp_path / "none")], ROOT / "site.yml")
    assert res.exit_code == 2 and "--demo" in res.output and not (tmp_path / "none").exists()
    res = _cli(["backfill", "--demo", "--start", "2026-11-10", "--end", "2026-11-01",
                "--snapshots-dir", str(tmp_path / "none")], ROOT / "site.yml")
    assert res.exit_code == 2 and "before --start" in res.output


def test_backfill_force_replaces(demo_cfg, tmp_path):
    cfg, base = demo_cfg
    day = date(2026, 11, 1)
    (tmp_path / "2026-11-01.json").write_text('{"schema_version": 1, "date": "2026-11-01", "sources": []}')
    with pytest.raises(Exception, match="already exists"):
        bf.write_demo_history(cfg, base, [day], tmp_path)
    ((path, action),) = bf.write_demo_history(cfg, base, [day], tmp_path, force=True)
    backfill = load_snapshot(path).backfill
    assert action == "replaced" and backfill is not None and backfill.command == "modelboards backfill --demo"


def test_backfill_dates():
    assert bf.compute_backfill_dates(date(2026, 9, 20), date(2026, 11, 29), 7)[-1] == date(2026, 11, 29)
    assert len(bf.compute_backfill_dates(date(2026, 9, 20), date(2026, 11, 29), 7)) == 11
    assert bf.compute_backfill_dates(date(2026, 1, 1), date(2026, 1, 1), 3) == [date(2026, 1, 1)]
    with pytest.raises(Exception, match="--every"):
        bf.compute_backfill_dates(date(2026, 1, 1), date(2026, 1, 9), 0)
