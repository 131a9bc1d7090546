"""Dated snapshots: atomic writes, the same-day rule, loading errors, listing and guards."""

from __future__ import annotations

import json
import re
from datetime import UTC, date, datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest
from fixtures.make_snapshot import make_snapshot, with_worked_example

from builder.errors import UserError
from builder.snapshot import (
    SCHEMA_VERSION,
    Snapshot,
    check_guards,
    list_snapshots,
    load_snapshot,
    previous_snapshot,
    validate_snapshot,
    write_snapshot,
)

ROOT = Path(__file__).resolve().parents[1]


def snap_json(
    day: str = "2026-11-30", ok: int = 3, failed: int = 1, rows: bool = True, seed: int = 0
) -> dict[str, Any]:
    """A snapshot's JSON with ``ok`` sources ok, ``failed`` failed (the rest missing), and no
    board rows at all when not ``rows``."""
    d = make_snapshot(24, seed=seed, day=day)
    for i, s in enumerate(d["sources"]):
        s["status"] = "ok" if i < ok else "failed" if i < ok + failed else "missing"
        s["error"] = "HTTP 503" if s["status"] == "failed" else None
    if not rows:
        for b in d["boards"]:
            b["rows"], b["new"], b["uncertainty"] = [], [], None
        for m in d["machines"]:
            m["rows"] = []
        d["stacks"]["best"] = []
        d["worked_example"] = None
    return d


def snap(**kw: Any) -> Snapshot:
    return validate_snapshot(snap_json(**kw))


def test_write_then_load_round_trips_floats(tmp_path):
    s = snap()
    path, action = write_snapshot(s, tmp_path / "snaps")
    assert action == "written" and path == tmp_path / "snaps" / "2026-11-30.json"
    back = load_snapshot(path)
    assert back == s
    assert back.boards[0].rows[0].r == s.boards[0].rows[0].r and isinstance(back.boards[0].rows[0].r, float)
    assert json.loads(path.read_text(encoding="utf-8"))["schema_version"] == SCHEMA_VERSION == 3
    assert [p.name for p in (tmp_path / "snaps").iterdir()] == ["2026-11-30.json"]  # no temp file left


def test_first_snapshot_of_the_day_stays_unless_strictly_more_sources_ok(tmp_path):
    path, _ = write_snapshot(snap(ok=3, seed=1), tmp_path)
    assert write_snapshot(snap(ok=3, failed=0, seed=2), tmp_path) == (path, "kept")
    assert write_snapshot(snap(ok=2, seed=3), tmp_path) == (path, "kept")
    assert load_snapshot(path) == snap(ok=3, seed=1)
    assert write_snapshot(snap(ok=4, seed=4), tmp_path) == (path, "replaced")
    assert load_snapshot(path) == snap(ok=4, seed=4)
    assert write_snapshot(snap(day="2026-12-01", ok=1), tmp_path)[1] == "written"
    assert write_snapshot(snap(ok=1, seed=5), tmp_path, replace=True) == (path, "replaced")


def test_unreadable_same_day_file_is_replaced(tmp_path):
    (tmp_path / "2026-11-30.json").write_text("{not json")
    assert write_snapshot(snap(), tmp_path)[1] == "replaced"


def test_a_snapshot_without_rows_is_never_written(tmp_path):
    assert write_snapshot(snap(rows=False), tmp_path) == (tmp_path / "2026-11-30.json", "empty")
    assert list(tmp_path.iterdir()) == []


def test_models_refuse_what_json_cannot_hold_or_the_schema_forbids():
    d = snap_json()
    d["boards"][0]["rows"][0]["r"] = float("nan")
    with pytest.raises(UserError, match=r"boards\[0\]\.rows\[0\]\.r"):
        validate_snapshot(d)
    with pytest.raises(UserError, match="date"):
        validate_snapshot({**snap_json(), "date": "30/11/2026"})
    with pytest.raises(UserError, match=r"^<snapshot>: date: "):
        validate_snapshot({**snap_json(), "date": "2026-02-30"})  # the right shape, not a calendar day


def test_load_errors_are_one_line(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"schema_version": 2,\n "date": }')
    with pytest.raises(UserError) as exc:
        load_snapshot(bad)
    msg = str(exc.value)
    assert "\n" not in msg and str(bad) in msg and "line 2" in msg
    (tmp_path / "list.json").write_text("[]")
    with pytest.raises(UserError, match="JSON object"):
        load_snapshot(tmp_path / "list.json")
    with pytest.raises(UserError, match="not found"):
        load_snapshot(tmp_path / "missing.json")


@pytest.mark.parametrize("version", [0, 4, "2", None, True])
def test_an_unknown_schema_version_is_one_clear_line(tmp_path, version):
    path = tmp_path / "2026-11-30.json"
    path.write_text(json.dumps({**snap_json(), "schema_version": version}))
    with pytest.raises(UserError) as exc:
        load_snapshot(path)
    assert str(exc.value) == (f"{path}: schema_version {version!r} is not one this ModelBoards reads (1, 2, 3)")


@pytest.mark.parametrize("edit, path, words", [
    (lambda d: d["boards"][1]["rows"][0].update(rank="1"), r"boards\[1\]\.rows\[0\]\.rank", "valid integer"),
    (lambda d: d["boards"][0]["rows"][2].pop("score"), r"boards\[0\]\.rows\[2\]\.score", "Field required"),
    (lambda d: d["sources"][0].update(colour="red"), r"sources\[0\]\.colour", "unknown field"),
    (lambda d: d["boards"][0]["rows"][0].update(movement="up"), r"boards\[0\]\.rows\[0\]\.movement", "integer"),
    (lambda d: next(iter(d["models"].values())).update(open_weight="yes"), r'models\["[a-z0-9-]+"\]\.open_weight',
     "boolean"),
    (lambda d: d["boards"][0].update(id="../../escape"), r"boards\[0\]\.id", "pattern"),
])
def test_a_bad_shape_names_the_json_path(edit, path, words):
    d = snap_json()
    edit(d)
    with pytest.raises(UserError) as exc:
        validate_snapshot(d, "snapshots/x.json")
    msg = str(exc.value)
    assert "\n" not in msg and msg.startswith("snapshots/x.json: ")
    assert re.search(rf"^snapshots/x\.json: {path}: .*{words}", msg), msg


def _drop_model(d: dict[str, Any], ident: str) -> None:
    """Remove ``ident`` from ``models`` only (everything else still names it)."""
    del d["models"][ident]


@pytest.mark.parametrize("edit, expected", [
    (lambda d: d["boards"][0]["rows"][1].update(rank=1, r=d["boards"][0]["rows"][1]["r"] - 1e-9),
     r"boards\[0\]\.rows\[1\]\.rank: rank 1 disagrees with the rows \(expected 2\)"),
    (lambda d: d["boards"][0]["rows"][3].update(r=d["boards"][0]["rows"][0]["r"] + 1),
     r"boards\[0\]\.rows\[3\]\.r: R .* is above the row before it"),
    (lambda d: d["boards"][0]["new"].append({**d["boards"][0]["rows"][0], "rank": 2}),
     r"boards\[0\]\.new\[\d+\]\.rank: a row of the new strip has no rank"),
    (lambda d: d["stacks"]["best"][0].update(board="nowhere"),
     r"stacks\.best\[0\]\.board: board 'nowhere' is not in the snapshot's boards"),
    (lambda d: d["boards"][0].update(role="conductor"),
     r"boards\[0\]\.role: role 'conductor' is not in the snapshot's roles"),
    (lambda d: d["worked_example"].update(identity="someone-else"),
     r"worked_example\.identity: 'someone-else' is not the first row of board 'orchestrator'"),
])
def test_cross_references_name_the_first_problem(edit, expected):
    d = snap_json()
    edit(d)
    with pytest.raises(UserError, match=rf"^<snapshot>: {expected}"):
        validate_snapshot(d)


def test_every_named_model_must_exist_in_models():
    d = snap_json()
    top = d["boards"][0]["rows"][0]["identity"]
    _drop_model(d, top)
    with pytest.raises(UserError) as exc:
        validate_snapshot(d)
    first_obs = next(i for i, o in enumerate(d["observations"]) if o["identity"] == top)
    assert str(exc.value) == (f"<snapshot>: observations[{first_obs}].identity: model {top!r} is not in the "
                              "snapshot's models")


def test_migrating_schema_2_adds_an_empty_bootstrap_and_changes_nothing_else():
    from builder.snapshot.migrate import migrate, v2_to_v3

    v3 = snap_json()
    v2 = json.loads(json.dumps(v3))
    v2["schema_version"] = 2
    del v2["uncertainty"]
    for b in v2["boards"]:
        del b["uncertainty"]
        for row in [*b["rows"], *b["new"]]:
            del row["uncertainty"]
    for m in v2["machines"]:
        for row in m["rows"]:
            del row["uncertainty"]
    before = json.dumps(v2)
    out = v2_to_v3(v2)
    assert json.dumps(v2) == before  # the input is left as it was
    assert out["schema_version"] == 3 and out["uncertainty"] is None
    assert all(b["uncertainty"] is None and all(r["uncertainty"] is None for r in [*b["rows"], *b["new"]])
               for b in out["boards"])
    assert all(r["uncertainty"] is None for m in out["machines"] for r in m["rows"])
    stripped = json.loads(json.dumps(v3))
    stripped["uncertainty"] = None
    for b in stripped["boards"]:
        b["uncertainty"] = None
        for row in [*b["rows"], *b["new"]]:
            row["uncertainty"] = None
    assert out == stripped and migrate(v2) == out
    assert validate_snapshot(v2).boards[0].rows[0].uncertainty is None


def test_migrating_schema_1_renames_fields_and_adds_the_worked_example():
    from builder.snapshot.migrate import migrate, v1_to_v2

    v2 = snap_json()
    v1 = {k: v for k, v in v2.items() if k not in ("previous_date", "worked_example", "backfill")}
    v1["schema_version"] = 1
    v1["index"] = {"method_id": "capindex-v1-x", "settings": {
        "version": "capindex-v1", "boards": [], "family_weights": {}, "delta_bound": 8.0, "sigmas": {},
        "confidence_per_sigma": 5.0, "tolerance": 0.15, "lineages": {}},
        "models": [{"identity": v2["boards"][0]["rows"][0]["identity"], "name": "x", "maker": None, "lineage": "x",
                    "release_date": None, "families": {"coding": 50.0},
                    "observations": [{"family": "coding", "board": "arena/coding", "sourceScore": 50.0, "share": 1.0,
                                      "confidence": 80.0, "url": None, "date": None, "raw": 1.0}],
                    "fusion": {"terms": [{"channel": "lineage", "mean": 50.0, "sigma": 8.0, "from": "y"},
                                         {"channel": "measured-specialist", "mean": 50.0, "sigma": 6.0}],
                               "sigma": 4.8},
                    "basis": "estimated", "score": 50.0, "confidence": 76.0,
                    "rank": {"current": 1, "allVersions": 1}}],
        "boards": {"current": [v2["boards"][0]["rows"][0]["identity"]],
                   "allVersions": [v2["boards"][0]["rows"][0]["identity"]]}}
    v1["observations"][0]["raw"] = "nan"
    before = json.dumps(v1)
    out = v1_to_v2(v1)
    assert json.dumps(v1) == before  # the input is left as it was
    assert out["schema_version"] == 2 and out["previous_date"] is None and out["backfill"] is None
    assert out["worked_example"] == v2["worked_example"] and out["worked_example"] is not None
    assert out["observations"][0]["raw"] is None
    idx = out["index"]
    assert idx["boards"]["all_versions"] and "allVersions" not in idx["boards"]
    m = idx["models"][0]
    assert m["rank"] == {"current": 1, "all_versions": 1}
    assert m["observations"][0]["source_score"] == 50.0 and "sourceScore" not in m["observations"][0]
    assert [t["from_identity"] for t in m["fusion"]["terms"]] == ["y", None]
    current = migrate(out)  # on to the current version
    assert current["schema_version"] == 3 and migrate(current) is current  # current: unchanged


def test_migrating_schema_1_eval_suites_and_arena_history():
    from builder.snapshot.migrate import v1_to_v2

    suite = {"id": "s", "title": "S", "kind": "clarify", "description": "", "metric": "tkqr", "metrics": ["tkqr"],
             "n_tasks": 1, "n_models": 1, "categories": [], "bootstrap": 10, "alpha": 0.05, "seed": 1,
             "inputs": ["x"], "rows": [], "pairwise": [], "markdown": "",
             "boards": {"tkqr": {"n_tasks": 1, "categories": [], "rows": [], "pairwise": [], "markdown": ""}},
             "clarify": {"overall": {"num_tasks": 1, "num_files": 1, "TKQR": 0.5, "ORA": 0.25, "avg_turns": 1.0,
                                     "avg_diff": 0.0},
                         "models": {"m": {"num_tasks": 1, "num_files": 1, "TKQR": 0.5, "ORA": 0.25, "avg_turns": 1.0,
                                          "avg_diff": 0.0}}}}
    plain = {**suite, "id": "p", "kind": "aggregate"}
    del plain["clarify"]
    v1 = {**snap_json(), "schema_version": 1, "evals": {"suites": [suite, plain]},
          "arena": {"history": [{"date": "2026-01-01", "n_battles": 3, "models": [{"model": "a", "rating": 1.0,
                                                                                   "rank": 1, "elo": 1.0}]}]}}
    out = v1_to_v2(v1)
    s, p = out["evals"]["suites"]
    assert set(s) == {"id", "title", "kind", "description", "metric", "metrics", "bootstrap", "alpha", "seed",
                      "inputs", "boards", "clarify"}
    assert s["clarify"]["overall"]["tkqr"] == 0.5 and s["clarify"]["models"]["m"]["ora"] == 0.25
    assert p["clarify"] is None
    assert out["arena"]["history"][0]["models"][0] == {"model": "a", "rating": 1.0, "rank": 1, "elo": 1.0,
                                                      "lower": None, "upper": None}


def test_a_committed_schema_1_snapshot_loads_migrated(tmp_path):
    """The history a site committed before schema 2 keeps loading (and validating)."""
    v2 = snap_json()
    v1 = {k: v for k, v in v2.items() if k not in ("previous_date", "worked_example", "backfill")}
    path = tmp_path / "2026-11-30.json"
    path.write_text(json.dumps({**v1, "schema_version": 1}))
    got = load_snapshot(path)
    assert got.schema_version == 3 and got.previous_date is None
    assert got.worked_example == validate_snapshot(v2).worked_example


def test_a_schema_1_problem_names_its_path_in_the_file(tmp_path):
    v1 = {k: v for k, v in snap_json().items() if k not in ("previous_date", "worked_example", "backfill")}
    v1["schema_version"] = 1
    v1["boards"][0]["rows"][0]["score"] = "high"
    path = tmp_path / "old.json"
    path.write_text(json.dumps(v1))
    with pytest.raises(UserError, match=rf"^{path}: boards\[0\]\.rows\[0\]\.score: Input should be a valid integer"):
        load_snapshot(path)


def test_list_and_previous(tmp_path):
    for day in ["2026-11-28", "2026-11-30", "2026-11-02"]:
        write_snapshot(snap(day=day), tmp_path)
    (tmp_path / "2026-13-01.json").write_text("{}")  # not a date
    (tmp_path / "notes.json").write_text("{}")
    assert [p.name for p in list_snapshots(tmp_path)] == ["2026-11-02.json", "2026-11-28.json", "2026-11-30.json"]
    assert previous_snapshot(tmp_path, date(2026, 11, 30)).date == "2026-11-28"
    assert previous_snapshot(tmp_path, date(2026, 12, 5)).date == "2026-11-30"
    assert previous_snapshot(tmp_path, date(2026, 11, 2)) is None
    assert list_snapshots(tmp_path / "nowhere") == []


def test_a_broken_previous_day_is_one_line_not_skipped(tmp_path):
    write_snapshot(snap(day="2026-11-28"), tmp_path)
    broken = tmp_path / "2026-11-29.json"
    broken.write_text(json.dumps({**snap_json(day="2026-11-29"), "stale": "no"}))
    with pytest.raises(UserError, match=rf"^{broken}: stale: Input should be a valid boolean$"):
        previous_snapshot(tmp_path, date(2026, 11, 30))


NOW = datetime(2026, 11, 30, 23, 59, tzinfo=UTC)


def test_guards_accept_a_fresh_snapshot():
    assert check_guards(snap(), NOW) == []
    assert check_guards(snap(day="2026-11-28"), NOW) == []  # two UTC days old is fine


@pytest.mark.parametrize("s, word", [
    (None, "missing"),
    (snap(day="2026-12-01"), "future"),
    (snap(day="2026-11-27"), "too old"),
    (snap(rows=False), "empty"),
])
def test_guards_refuse(s, word):
    reasons = check_guards(s, NOW)
    assert reasons and any(word in r for r in reasons)
    assert not any("stale" in r for r in reasons)


def test_guards_use_the_utc_calendar_date():
    tokyo = datetime(2026, 12, 1, 8, 0, tzinfo=timezone(timedelta(hours=9)))  # 2026-11-30 23:00 UTC
    assert check_guards(snap(day="2026-11-30"), tokyo) == []
    assert "future" in check_guards(snap(day="2026-12-01"), tokyo)[0]


def test_the_generator_computes_the_worked_example_as_scoring_does():
    d = snap_json()
    assert d["worked_example"] is not None
    assert with_worked_example({**d, "worked_example": None}) == d


def test_a_loaded_snapshot_tells_the_digest_of_its_text(tmp_path):
    import hashlib

    from builder.snapshot import load_snapshot, validate_snapshot
    from builder.snapshot.load import source_sha256

    text = json.dumps(make_snapshot(6), indent=1) + "\n"
    path = tmp_path / "2026-01-01.json"
    path.write_text(text, encoding="utf-8")
    snap = load_snapshot(path)
    assert source_sha256(snap) == hashlib.sha256(text.encode()).hexdigest()
    assert snap == load_snapshot(path) == validate_snapshot(json.loads(text))  # equality is the fields' alone
    assert source_sha256(snap.model_copy(update={"stale": not snap.stale})) is None  # another object
    assert source_sha256(validate_snapshot(json.loads(text))) is None  # not parsed from a text


def test_a_saved_file_is_published_byte_for_byte_and_an_older_one_as_a_build_saves_it(tmp_path):
    """``data/snapshots/<date>.json`` is the saved file itself when it loads as it is (its SHA-256
    is the repository's file's); an older schema's file, migrated on load, and a snapshot not
    read from a file are written as a build saves them, and load back to the same snapshot."""
    import hashlib

    from builder.render.pages.archive import snapshot_download
    from builder.snapshot.load import source_text, validated_here
    from builder.snapshot.store import dump_snapshot

    saved = ROOT / "snapshots" / "2026-11-29.json"
    demo = load_snapshot(saved)
    assert snapshot_download(demo) == saved.read_text(encoding="utf-8")
    assert validated_here(hashlib.sha256(saved.read_bytes()).hexdigest())
    v1 = {k: v for k, v in snap_json().items() if k not in ("previous_date", "worked_example", "backfill")}
    old = tmp_path / "2026-11-30.json"
    old.write_text(json.dumps({**v1, "schema_version": 1}), encoding="utf-8")
    migrated = load_snapshot(old)
    assert source_text(migrated) is None and not validated_here(hashlib.sha256(old.read_bytes()).hexdigest())
    assert snapshot_download(migrated) == dump_snapshot(migrated)
    again = tmp_path / "again.json"
    again.write_text(snapshot_download(migrated), encoding="utf-8")
    assert load_snapshot(again) == migrated
    built = validate_snapshot(snap_json())
    assert source_text(built) is None and snapshot_download(built) == dump_snapshot(built)


def test_the_published_snapshots_check_loads_only_what_this_process_did_not(tmp_path, monkeypatch):
    """A published text that validated here (a saved file published as it is) is not loaded
    again; any other text is, and one that does not load still stops the verify."""
    import shutil

    from builder.evidence import verify

    published = tmp_path / "site" / "data" / "snapshots"
    published.mkdir(parents=True)
    saved = ROOT / "snapshots" / "2026-11-29.json"
    load_snapshot(saved)
    shutil.copy(saved, published / saved.name)
    (published / "2026-11-30.json").write_text(saved.read_text(encoding="utf-8").replace("\n", "\n "),
                                               encoding="utf-8")  # the same values, another text
    loads: list[str] = []
    real = verify.load_snapshot
    monkeypatch.setattr(verify, "load_snapshot", lambda path: (loads.append(path.name), real(path))[1])
    verify.check_published_snapshots(tmp_path / "site")
    assert loads == ["2026-11-30.json"]
    (published / "2026-12-01.json").write_text("{not json", encoding="utf-8")
    with pytest.raises(UserError, match="2026-12-01.json"):
        verify.check_published_snapshots(tmp_path / "site")
