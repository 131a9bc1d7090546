"""Dated snapshots: ``snapshots/YYYY-MM-DD.json`` (UTC date), the single source of truth for rendering.

A snapshot is plain JSON (dates as ISO strings, floats unrounded) with ``schema_version``
and the scoring ``method_id``. Rules (seed 004, "Freshness and update schedule"):

- the first snapshot saved for a UTC day stays; a same-day rebuild replaces it only when it
  has strictly more top-level sources with status "ok";
- files are written atomically (temporary file in the same folder, then ``os.replace``);
- guards refuse the live boards for a missing snapshot, an invalid or future date, a date
  more than two UTC calendar days old ("too old") or no rows on any board ("empty").
  "Stale" is never a guard reason: it means only that the Arena source failed.
"""

from __future__ import annotations

import json
import os
import re
import tempfile
from datetime import date, datetime, timezone
from pathlib import Path
from typing import Any

from builder.errors import UserError

SCHEMA_VERSION = 1
MAX_AGE_DAYS = 2
"A snapshot more than this many UTC calendar days old is refused."

_NAME = re.compile(r"^(\d{4}-\d{2}-\d{2})\.json$")


def sources_ok(snapshot: dict[str, Any]) -> int:
    """Number of top-level sources with status "ok"."""
    return sum(1 for s in snapshot.get("sources") or [] if isinstance(s, dict) and s.get("status") == "ok")


def _dump(snapshot: dict[str, Any]) -> str:
    return json.dumps(snapshot, indent=1, ensure_ascii=False, allow_nan=False) + "\n"


def write_snapshot(snapshot: dict[str, Any], snapshots_dir: Path) -> tuple[Path, str]:
    """Save ``snapshot`` as ``<dir>/<date>.json``; return (path, "written" | "replaced" |
    "kept" | "empty").

    An existing same-day file is replaced only by a snapshot with strictly more sources ok
    (or when the existing file is unreadable); otherwise it is kept untouched. A snapshot
    with no rows on any board (every source failed) is never saved ("empty"): it would only
    push the last useful day out of the history and off the front page.
    """
    day = snapshot.get("date")
    try:
        date.fromisoformat(str(day))
    except ValueError:
        raise UserError(f"snapshot date {day!r} is not an ISO date (YYYY-MM-DD)") from None
    snapshots_dir = Path(snapshots_dir)
    path = snapshots_dir / f"{day}.json"
    if not any(b.get("rows") for b in snapshot.get("boards") or []):
        return path, "empty"
    snapshots_dir.mkdir(parents=True, exist_ok=True)
    action = "written"
    if path.exists():
        try:
            existing = load_snapshot(path)
        except UserError:
            existing = None
        if existing is not None and sources_ok(snapshot) <= sources_ok(existing):
            return path, "kept"
        action = "replaced"
    text = _dump(snapshot)  # serialise before touching the folder: a bad value writes nothing
    fd, tmp = tempfile.mkstemp(prefix=f".{day}.", suffix=".tmp", dir=snapshots_dir)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path, action


def load_snapshot(path: Path) -> dict[str, Any]:
    """Read one snapshot; a missing file, bad JSON or wrong schema is one ``UserError`` line."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise UserError(f"{path}: snapshot not found") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise UserError(f"{path}: cannot read snapshot: {exc}") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise UserError(f"{path}: line {exc.lineno}, column {exc.colno}: invalid JSON: {exc.msg}") from None
    if not isinstance(data, dict):
        raise UserError(f"{path}: expected a JSON object at the top level, got {type(data).__name__}")
    version = data.get("schema_version")
    if version != SCHEMA_VERSION:
        raise UserError(f"{path}: schema_version {version!r} is not supported (expected {SCHEMA_VERSION})")
    return data


def list_snapshots(snapshots_dir: Path) -> list[Path]:
    """``YYYY-MM-DD.json`` files with a valid date in the folder, oldest first."""
    snapshots_dir = Path(snapshots_dir)
    if not snapshots_dir.is_dir():
        return []
    found = []
    for p in snapshots_dir.iterdir():
        m = _NAME.match(p.name)
        if not m or not p.is_file():
            continue
        try:
            found.append((date.fromisoformat(m.group(1)), p))
        except ValueError:
            continue
    return [p for _, p in sorted(found)]


def previous_snapshot(snapshots_dir: Path, day: date) -> dict[str, Any] | None:
    """The newest readable snapshot dated strictly before ``day`` (None if there is none)."""
    for p in reversed(list_snapshots(snapshots_dir)):
        if date.fromisoformat(p.name[:10]) >= day:
            continue
        try:
            return load_snapshot(p)
        except UserError:
            continue
    return None


def check_guards(snapshot: dict[str, Any] | None, now: datetime) -> list[str]:
    """Why the live boards must not be shown (empty list: they may be).

    Reasons: "missing snapshot", "invalid date ...", "future date ...", "too old ...",
    "empty: no rows on any board". ``now`` is compared by its UTC calendar date.
    """
    if snapshot is None:
        return ["missing snapshot"]
    today = (now.replace(tzinfo=timezone.utc) if now.tzinfo is None else now.astimezone(timezone.utc)).date()
    reasons = []
    raw = snapshot.get("date")
    try:
        day = date.fromisoformat(raw) if isinstance(raw, str) and len(raw) == 10 else None
    except ValueError:
        day = None
    if day is None:
        reasons.append(f"invalid date {raw!r}")
    elif day > today:
        reasons.append(f"future date {day.isoformat()} (today is {today.isoformat()} UTC)")
    elif (today - day).days > MAX_AGE_DAYS:
        reasons.append(f"too old: {day.isoformat()} is {(today - day).days} UTC days old (limit {MAX_AGE_DAYS})")
    boards = snapshot.get("boards") or []
    if not any(isinstance(b, dict) and b.get("rows") for b in boards):
        reasons.append("empty: no rows on any board")
    return reasons
