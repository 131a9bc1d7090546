"""Dated snapshots on disk: ``snapshots/YYYY-MM-DD.json`` (UTC date), written and listed.

Rules ("Freshness and update schedule" of the method):

- the first snapshot saved for a UTC day stays; a same-day rebuild replaces it only when it
  has strictly more sources with status "ok" (or the saved file does not load, or is of the
  other kind: demo data against a live build);
- a live build (``demo: false``) reads no demo snapshot (history, movement, changes) and a
  demo build no live one: each snapshot records which it is (``demo``);
- a snapshot with no rows on any board (every source failed) is never saved;
- files are written atomically (temporary file in the same folder, then ``os.replace``), so
  a failure never leaves a half-written snapshot;
- guards refuse the live boards for a missing snapshot, a future date, a date more than two
  UTC calendar days old ("too old") or no rows on any board ("empty"). "Stale" is never a
  guard reason: it means only that the Arena source failed.
"""

from __future__ import annotations

import json
from datetime import date, datetime
from pathlib import Path

from builder.errors import UserError
from builder.snapshot.load import load_snapshot
from builder.snapshot.models import Snapshot
from builder.util.io import as_utc, write_text_atomic
from builder.util.snapshot_files import list_snapshots as list_snapshots

MAX_AGE_DAYS = 2
"A snapshot more than this many UTC calendar days old is refused."


def sources_ok(snapshot: Snapshot) -> int:
    """Number of sources with status "ok"."""
    return sum(1 for s in snapshot.sources if s.status == "ok")


def has_rows(snapshot: Snapshot) -> bool:
    """Some board has a ranked row; a site without role boards (eval suites only) counts its
    eval suites' rows instead."""
    if snapshot.boards:
        return any(b.rows for b in snapshot.boards)
    return snapshot.evals is not None and any(s.rows for s in snapshot.evals.suites)


def dump_snapshot(snapshot: Snapshot) -> str:
    """The file text of a snapshot: JSON in field order, one-space indent, UTF-8, final newline."""
    return json.dumps(snapshot.model_dump(mode="json"), indent=1, ensure_ascii=False, allow_nan=False) + "\n"


def write_snapshot(snapshot: Snapshot, snapshots_dir: Path, *, replace: bool = False) -> tuple[Path, str]:
    """Save ``snapshot`` as ``<dir>/<date>.json``; return (path, "written" | "replaced" | "kept" | "empty").

    An existing same-day file is replaced only by a snapshot with strictly more sources ok
    (or when the existing file does not load), unless ``replace`` (the backfill's
    ``--force``); otherwise it is kept untouched. A snapshot with no rows on any board is
    never saved ("empty"): it would only push the last useful day out of the history.
    """
    snapshots_dir = Path(snapshots_dir)
    path = snapshots_dir / f"{snapshot.date}.json"
    if not has_rows(snapshot):
        return path, "empty"
    action = "written"
    if path.exists():
        action = "replaced"
        if not replace:
            try:
                existing: Snapshot | None = load_snapshot(path)
            except UserError:
                existing = None
            # a day of the other kind (demo vs live) is never history of this site: replaced
            if existing is not None and existing.demo == snapshot.demo and sources_ok(snapshot) <= sources_ok(existing):
                return path, "kept"
    text = dump_snapshot(snapshot)  # serialise before touching the folder: a bad value writes nothing
    write_text_atomic(path, text, durable=True)
    return path, action


def previous_snapshot(snapshots_dir: Path, day: date, *, demo: bool | None = None) -> Snapshot | None:
    """The newest snapshot dated strictly before ``day`` (None if there is none); with
    ``demo`` given, the newest of that kind only (a live site's history never includes the
    demo history, nor the demo a live one).

    It decides the movement column, so a file that does not load is a ``UserError`` (one
    line naming the file and the JSON path), not silently skipped.
    """
    earlier = [p for p in list_snapshots(snapshots_dir) if date.fromisoformat(p.name[:10]) < day]
    for p in reversed(earlier):
        snap = load_snapshot(p)
        if demo is None or snap.demo == demo:
            return snap
    return None


def check_guards(snapshot: Snapshot | None, now: datetime) -> list[str]:
    """Why the live boards must not be shown (empty list: they may be).

    Reasons: "missing snapshot", "future date ...", "too old ...", "empty: no rows on any
    board". ``now`` is compared by its UTC calendar date (a naive time is taken as UTC).
    """
    if snapshot is None:
        return ["missing snapshot"]
    today = as_utc(now).date()
    reasons = []
    day = date.fromisoformat(snapshot.date)
    if day > today:
        reasons.append(f"future date {day.isoformat()} (today is {today.isoformat()} UTC)")
    elif (today - day).days > MAX_AGE_DAYS:
        reasons.append(f"too old: {day.isoformat()} is {(today - day).days} UTC days old (limit {MAX_AGE_DAYS})")
    if not has_rows(snapshot):
        reasons.append("empty: no rows on any board")
    return reasons
