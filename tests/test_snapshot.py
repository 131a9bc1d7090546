"""Dated snapshots: atomic writes, the same-day rule, loading errors, listing and guards."""

from __future__ import annotations

import json
from datetime import date, datetime, timezone

import pytest

from builder.errors import UserError
from builder.snapshot import (
    SCHEMA_VERSION,
    check_guards,
    list_snapshots,
    load_snapshot,
    previous_snapshot,
    write_snapshot,
)


def snap(day: str = "2026-11-30", ok: int = 3, failed: int = 1, rows: int = 1, **extra) -> dict:
    sources = [{"name": f"s{i}", "status": "ok"} for i in range(ok)]
    sources += [{"name": f"f{i}", "status": "failed"} for i in range(failed)]
    board = {"id": "orchestrator", "rows": [{"rank": i + 1, "identity": f"m{i}"} for i in range(rows)], "new": []}
    return {"schema_version": SCHEMA_VERSION, "date": day, "method_id": "m", "sources": sources,
            "boards": [board], **extra}


def test_write_then_load_round_trips_floats(tmp_path):
    s = snap(r=1509.956986086938)
    path, action = write_snapshot(s, tmp_path / "snaps")
    assert action == "written" and path == tmp_path / "snaps" / "2026-11-30.json"
    assert load_snapshot(path) == s and load_snapshot(path)["r"] == 1509.956986086938
    assert [p.name for p in (tmp_path / "snaps").iterdir()] == ["2026-11-30.json"]  # no temp file left


def test_first_snapshot_of_the_day_stays_unless_strictly_more_sources_ok(tmp_path):
    path, _ = write_snapshot(snap(ok=3, tag="first"), tmp_path)
    assert write_snapshot(snap(ok=3, failed=0, tag="same"), tmp_path) == (path, "kept")
    assert write_snapshot(snap(ok=2, tag="fewer"), tmp_path) == (path, "kept")
    assert load_snapshot(path)["tag"] == "first"
    assert write_snapshot(snap(ok=4, tag="more"), tmp_path) == (path, "replaced")
    assert load_snapshot(path)["tag"] == "more"
    assert write_snapshot(snap(day="2026-12-01", ok=1), tmp_path)[1] == "written"


def test_unreadable_same_day_file_is_replaced(tmp_path):
    (tmp_path / "2026-11-30.json").write_text("{not json")
    assert write_snapshot(snap(), tmp_path)[1] == "replaced"


def test_a_value_json_cannot_hold_writes_nothing(tmp_path):
    with pytest.raises(ValueError):
        write_snapshot(snap(r=float("nan")), tmp_path)
    assert list(tmp_path.iterdir()) == []


def test_bad_date_is_a_user_error(tmp_path):
    with pytest.raises(UserError):
        write_snapshot(snap(day="30/11/2026"), tmp_path)


def test_load_errors_are_one_line(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"schema_version": 1,\n "date": }')
    with pytest.raises(UserError) as exc:
        load_snapshot(bad)
    msg = str(exc.value)
    assert "\n" not in msg and str(bad) in msg and "line 2" in msg
    old = tmp_path / "old.json"
    old.write_text(json.dumps({"schema_version": 0}))
    with pytest.raises(UserError, match="schema_version 0"):
        load_snapshot(old)
    (tmp_path / "list.json").write_text("[]")
    with pytest.raises(UserError, match="JSON object"):
        load_snapshot(tmp_path / "list.json")
    with pytest.raises(UserError, match="not found"):
        load_snapshot(tmp_path / "missing.json")


def test_list_and_previous(tmp_path):
    for day in ["2026-11-28", "2026-11-30", "2026-11-02"]:
        write_snapshot(snap(day=day, tag=day), tmp_path)
    (tmp_path / "2026-13-01.json").write_text("{}")  # not a date
    (tmp_path / "notes.json").write_text("{}")
    (tmp_path / "2026-11-29.json").write_text("broken")  # unreadable: skipped by previous_snapshot
    assert [p.name for p in list_snapshots(tmp_path)] == [
        "2026-11-02.json", "2026-11-28.json", "2026-11-29.json", "2026-11-30.json"]
    assert previous_snapshot(tmp_path, date(2026, 11, 30))["tag"] == "2026-11-28"
    assert previous_snapshot(tmp_path, date(2026, 12, 5))["tag"] == "2026-11-30"
    assert previous_snapshot(tmp_path, date(2026, 11, 2)) is None
    assert list_snapshots(tmp_path / "nowhere") == []


NOW = datetime(2026, 11, 30, 23, 59, tzinfo=timezone.utc)


def test_guards_accept_a_fresh_snapshot():
    assert check_guards(snap(), NOW) == []
    assert check_guards(snap(day="2026-11-28"), NOW) == []  # two UTC days old is fine


@pytest.mark.parametrize("s, word", [
    (None, "missing"),
    (snap(day="2026-11-3"), "invalid date"),
    (snap(day="2026-02-30"), "invalid date"),
    ({**snap(), "date": None}, "invalid date"),
    (snap(day="2026-12-01"), "future"),
    (snap(day="2026-11-27"), "too old"),
    (snap(rows=0), "empty"),
])
def test_guards_refuse(s, word):
    reasons = check_guards(s, NOW)
    assert reasons and any(word in r for r in reasons)
    assert not any("stale" in r for r in reasons)


def test_guards_use_the_utc_calendar_date():
    from datetime import timedelta

    tokyo = datetime(2026, 12, 1, 8, 0, tzinfo=timezone(timedelta(hours=9)))  # 2026-11-30 23:00 UTC
    assert check_guards(snap(day="2026-11-30"), tokyo) == []
    assert "future" in check_guards(snap(day="2026-12-01"), tokyo)[0]
