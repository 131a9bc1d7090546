"""The guards that decide whether a snapshot may replace the fallback front page.

A snapshot is refused when it is missing, its date is not a valid ISO date, its date is in
the future (UTC), it is more than two UTC calendar days old, or no board has a ranked row.
A refused snapshot is "too old" (or future, missing, empty), never "stale": "stale" means
only that the Arena source failed.

``check_guards`` prefers ``builder.snapshot.check_guards`` (the snapshot module owns the
rule); ``local_check_guards`` is the same rule, used when that module does not provide it.
"""

from __future__ import annotations

from datetime import date, datetime, timezone
from typing import Any, Mapping

MAX_AGE_DAYS = 2


def local_check_guards(snapshot: Mapping[str, Any] | None, now: datetime) -> list[str]:
    """Reasons the live boards are refused (empty list: the snapshot may be shown).

    ``now`` is converted to UTC; ages are whole UTC calendar days between ``now``'s date
    and the snapshot's ``date``.
    """
    if snapshot is None:
        return ["no snapshot: the boards have never been built"]
    today = _utc(now).date()
    raw = snapshot.get("date")
    try:
        day = date.fromisoformat(raw) if isinstance(raw, str) else None
    except ValueError:
        day = None
    if day is None:
        return [f"invalid snapshot date: {raw!r}"]
    reasons: list[str] = []
    if day > today:
        reasons.append(f"future snapshot date {day.isoformat()} (today is {today.isoformat()} UTC)")
    elif (today - day).days > MAX_AGE_DAYS:
        reasons.append(
            f"snapshot too old: {day.isoformat()} is {(today - day).days} UTC days before "
            f"{today.isoformat()} (at most {MAX_AGE_DAYS} allowed)"
        )
    boards = snapshot.get("boards") or []
    if not any(isinstance(b, Mapping) and b.get("rows") for b in boards):
        reasons.append("no rows on any board")
    return reasons


def check_guards(snapshot: Mapping[str, Any] | None, now: datetime) -> list[str]:
    """``builder.snapshot.check_guards`` when it exists, else ``local_check_guards``."""
    try:
        from builder.snapshot import check_guards as shared
    except ImportError:
        shared = None
    if shared is None:
        return local_check_guards(snapshot, now)
    return list(shared(snapshot, now))


def _utc(t: datetime) -> datetime:
    return t.replace(tzinfo=timezone.utc) if t.tzinfo is None else t.astimezone(timezone.utc)
