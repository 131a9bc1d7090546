"""The record of the latest refresh attempt, so the site tells the truth about freshness.

The snapshot rules keep the first snapshot of a UTC day unless a later build has strictly
more sources ok. So after a good morning build, an afternoon refresh in which the Arena
source fails keeps the morning snapshot (right), and a site rendered from that snapshot alone
would still say Arena "ok" (wrong). Each build therefore also writes a small record of its
attempt beside the snapshots:

    <snapshots_dir>/attempts/YYYY-MM-DD.json     the latest attempt of that UTC day

(committed with the snapshots by the deployed workflow, so the 15-minute render-only job,
which starts from a fresh checkout, sees it too). ``render`` takes the snapshot and this
record, nothing else: ``apply_attempt`` overlays each source's status, error and attempt time
on the snapshot's ``sources`` and marks the boards stale when an Arena (``lmarena``) source
failed, while the boards themselves stay the kept snapshot's (and the site's snapshot
download stays the saved file's content).

Which record applies to a snapshot (``find_attempt``): the newest one made no earlier than the
snapshot (``created_at``) and no later than the render's ``now``. Re-rendering an old day at
its own ``created_at`` therefore uses only the attempt that made it, and renders as it did.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from datetime import date, datetime
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from builder.snapshot.models import Snapshot
from builder.util.io import as_utc, write_text_atomic

ATTEMPTS_DIR = "attempts"
ATTEMPT_SCHEMA_VERSION = 1

_NAME = re.compile(r"^(\d{4}-\d{2}-\d{2})\.json$")


class SourceAttempt(BaseModel):
    """What happened to one source in the attempt."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str
    "Source name (site.yml), or ``arena-battles`` for the live battles dump."
    status: Literal["ok", "failed", "not_configured"]
    """``ok``: a new payload was accepted; ``failed``: the last good payload (if any) stays;
    ``not_configured``: a live build of a source without a live URL (nothing fetched, no warning)."""
    error: str | None = None
    "Why it failed, one line (None when ok)."
    http_status: int | None = None
    "HTTP status of the last response, when there was one."
    payload_fetched_at: datetime | None = None
    "When the payload in use after the attempt was fetched (None: there is none)."


class RefreshAttempt(BaseModel):
    """One refresh attempt: when, in which mode, and each source's outcome."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    schema_version: Literal[1] = 1
    "Version of this record's layout."
    at: datetime
    "When the attempt ran (UTC, timezone-aware): the build's ``now``."
    live: bool
    "Fetched from the live URLs (False: the bundled recorded payloads)."
    sources: tuple[SourceAttempt, ...] = Field(default=())
    "Every source tried, in config order."

    def source(self, name: str) -> SourceAttempt | None:
        return next((s for s in self.sources if s.name == name), None)


def attempt_path(snapshots_dir: Path, day: date) -> Path:
    return Path(snapshots_dir) / ATTEMPTS_DIR / f"{day.isoformat()}.json"


def write_attempt(attempt: RefreshAttempt, snapshots_dir: Path) -> Path:
    """Save ``attempt`` as the latest of its UTC day (atomically: temporary file, then rename)."""
    path = attempt_path(snapshots_dir, as_utc(attempt.at).date())
    path.parent.mkdir(parents=True, exist_ok=True)
    write_text_atomic(path, json.dumps(attempt.model_dump(mode="json"), indent=1, ensure_ascii=False) + "\n")
    return path


def read_attempt(path: Path) -> RefreshAttempt | None:
    """The record at ``path``; None when it is missing or unreadable (a record never stops a render)."""
    try:
        return RefreshAttempt.model_validate_json(Path(path).read_bytes())
    except (OSError, ValidationError, ValueError):
        return None


def find_attempt(folders: Iterable[Path], since: datetime | None, until: datetime) -> RefreshAttempt | None:
    """The newest readable attempt in ``folders``' ``attempts/`` made in ``[since, until]``."""
    best: RefreshAttempt | None = None
    until = as_utc(until)
    lo = as_utc(since) if since is not None else None
    for folder in folders:
        sub = Path(folder) / ATTEMPTS_DIR
        if not sub.is_dir():
            continue
        for p in sub.iterdir():
            m = _NAME.match(p.name)
            day = m.group(1) if m else None
            if day is None or day > until.date().isoformat() or (lo is not None and day < lo.date().isoformat()):
                continue
            a = read_attempt(p)
            if a is None:
                continue
            at = as_utc(a.at)
            if at <= until and (lo is None or at >= lo) and (best is None or at > as_utc(best.at)):
                best = a
    return best


def apply_attempt(snapshot: Snapshot, attempt: RefreshAttempt | None) -> Snapshot:
    """The snapshot as the site should show it after ``attempt``: each listed source's status,
    error and attempt time from the record, and ``stale`` when an Arena source failed in it.
    Everything else (boards, ratings, payload dates) is the snapshot's own. Pure."""
    if attempt is None:
        return snapshot
    at = as_utc(attempt.at).isoformat()
    sources = []
    for s in snapshot.sources:
        a = attempt.source(s.name)
        update = {"status": a.status, "error": a.error, "fetched_at": at} if a is not None else None
        sources.append(s if update is None else s.model_copy(update=update))
    # the Arena source's failure makes the boards stale (the snapshot rules)
    arena_failed = any("arena" in s.roles and s.status == "failed" for s in sources)
    return snapshot.model_copy(update={"sources": tuple(sources), "stale": snapshot.stale or arena_failed})
