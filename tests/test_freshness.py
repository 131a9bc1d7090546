"""Freshness on the site follows the latest refresh attempt: after a good morning build, an
afternoon refresh in which the Arena source fails keeps the morning snapshot (the snapshot
rules) but the site says Arena failed, with its reason, and shows the stale banner; the
15-minute render job (``render --snapshot``) says the same from the attempt record."""

from __future__ import annotations

from datetime import UTC
from pathlib import Path

import yaml
from click.testing import CliRunner
from conftest import LIGHT_ARENA

from builder.cli import main
from builder.snapshot.attempt import RefreshAttempt, SourceAttempt, apply_attempt, find_attempt, read_attempt

ROOT = Path(__file__).resolve().parents[1]
MORNING = "2026-11-30T06:45:00+00:00"
AFTERNOON = "2026-11-30T12:45:00+00:00"


def _config(tmp: Path, *, arena_recorded: str | None = None) -> Path:
    data = yaml.safe_load((ROOT / "site.yml").read_text())
    data["arena"].update(bootstrap=5, **LIGHT_ARENA)
    for suite in data["evals"]:
        suite["bootstrap"] = 20
    data["fetch"] = {"store": str(tmp / "store")}
    data["snapshots_dir"] = str(tmp / "snapshots")
    if arena_recorded is not None:
        data["sources"][0]["recorded"] = arena_recorded
    path = tmp / "site.yml"
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    return path


def _build(cfg: Path, now: str, out: Path):
    result = CliRunner().invoke(main, ["--config", str(cfg), "build", "--now", now, "--out", str(out)])
    assert result.exit_code == 0, result.output
    return result


def _arena_cell(site: Path) -> str:
    html = (site / "boards" / "orchestrator" / "index.html").read_text()
    row = html[html.index("LMArena leaderboard (text and coding)"):]
    return row[: row.index("</tr>")]


def test_a_failed_afternoon_refresh_shows_on_the_site_while_the_morning_snapshot_stays(tmp_path):
    site = tmp_path / "site"
    _build(_config(tmp_path), MORNING, site)
    snap = tmp_path / "snapshots" / "2026-11-30.json"
    morning = snap.read_bytes()
    assert "<td>ok</td>" in _arena_cell(site) and "Stale." not in (site / "index.html").read_text()

    broken = _config(tmp_path, arena_recorded=str(tmp_path / "gone" / "leaderboard-text.json"))
    result = _build(broken, AFTERNOON, site)
    assert "kept" in result.output
    assert snap.read_bytes() == morning  # the day's first snapshot stays, byte for byte
    cell = _arena_cell(site)
    assert "failed: recorded payload not found" in cell, cell
    assert "Stale." in (site / "index.html").read_text()
    assert "Stale." in (site / "boards" / "orchestrator" / "index.html").read_text()

    record = read_attempt(tmp_path / "snapshots" / "attempts" / "2026-11-30.json")
    assert isinstance(record, RefreshAttempt) and record.at.isoformat() == AFTERNOON and not record.live
    assert record.source("arena").status == "failed" and "not found" in record.source("arena").error
    assert record.source("aider").status == "ok"

    # the render-only job: the snapshot and the record, nothing else
    again = tmp_path / "again"
    result = CliRunner().invoke(main, ["--config", str(broken), "render", "--snapshot", str(snap),
                                       "--now", "2026-11-30T13:00:00+00:00", "--out", str(again)])
    assert result.exit_code == 0, result.output
    assert "failed: recorded payload not found" in _arena_cell(again)
    assert "Stale." in (again / "index.html").read_text()
    # re-rendering the day as it was (at its own created_at) ignores the later attempt
    then = tmp_path / "then"
    result = CliRunner().invoke(main, ["--config", str(broken), "render", "--snapshot", str(snap), "--out", str(then)])
    assert result.exit_code == 0, result.output
    assert "<td>ok</td>" in _arena_cell(then) and "Stale." not in (then / "index.html").read_text()
    # the downloadable snapshot is the saved one, never the overlay
    assert (again / "data" / "snapshots" / "2026-11-30.json").read_text() == (
        then / "data" / "snapshots" / "2026-11-30.json").read_text()


def test_apply_attempt_is_pure_and_only_touches_statuses():
    from datetime import UTC, datetime

    from fixtures.make_snapshot import make_snapshot

    from builder.snapshot import validate_snapshot

    snap = validate_snapshot(make_snapshot(30, seed=11))
    arena = next(s for s in snap.sources if s.kind == "lmarena")
    other = next(s for s in snap.sources if s.kind != "lmarena")
    assert not snap.stale and arena.status == "ok"
    at = datetime(2026, 11, 30, 12, 45, tzinfo=UTC)
    failed = SourceAttempt(name=arena.name, status="failed", error="HTTP 500")
    shown = apply_attempt(snap, RefreshAttempt(at=at, live=True, sources=(failed,)))
    assert shown.stale is True and shown.boards == snap.boards
    after = next(s for s in shown.sources if s.name == arena.name)
    assert (after.status, after.error, after.fetched_at) == ("failed", "HTTP 500", at.isoformat())
    assert after.payload_fetched_at == arena.payload_fetched_at  # the payload in use is the kept one
    assert next(s for s in shown.sources if s.name == other.name) == other
    assert not snap.stale and arena.status == "ok"  # the input is untouched
    assert apply_attempt(snap, None) is snap


def test_find_attempt_picks_the_newest_in_the_window(tmp_path):
    from datetime import datetime

    from builder.snapshot.attempt import write_attempt

    def at(day: int, hour: int) -> datetime:
        return datetime(2026, 11, day, hour, 45, tzinfo=UTC)

    for day, hour in ((28, 6), (29, 12), (30, 6)):
        write_attempt(RefreshAttempt(at=at(day, hour), live=True), tmp_path)
    (tmp_path / "attempts" / "2026-11-27.json").write_text("{not json")  # unreadable: ignored
    assert find_attempt([tmp_path], at(29, 6), at(30, 23)).at == at(30, 6)
    assert find_attempt([tmp_path], at(29, 6), at(29, 23)).at == at(29, 12)
    assert find_attempt([tmp_path], at(30, 7), at(30, 23)) is None
    assert find_attempt([tmp_path / "nowhere"], None, at(30, 23)) is None
