"""Demo history: dated variants of the bundled demo payloads, scored day by day into snapshots.

DEMO ONLY. Archived live payloads are not kept, so the only history that can be replayed is
the bundled demo data's. For each date D (``start``, ``start + every``, ... up to ``end``) a
variant keeps only what existed on D:

- every observation with a publication or run date after D is dropped (Epoch rows, Aider
  runs, Terminal-Bench runs), and so is every PirateBench job dated after D (so an epoch
  scored after D does not exist yet);
- LiveBench uses its newest release (the table and categories files dated in their names)
  not after D; before its first release it is "missing";
- a model whose curated release date (``builder/data/models.yml``) is after D is removed
  from every source: observations, prices, build checks, model facts and Arena battles;
- the LMArena file carries no dates, so each rating drifts deterministically towards its
  final value (invented for the demo, stated in every snapshot's ``backfill`` entry)::

      rating_D = rating_final + DRIFT_POINTS * u * w(D)
      u        = 2 * int(sha256(feed + "|" + spelling)[:8], 16) / 2**32 - 1      in [-1, 1)
      w(D)     = clamp((T - D) / DRIFT_DAYS, 0, 1)     T = the file's date, in days

  and its 95% bounds move with it; on and after T the file is used as published;
- the price lists (LiteLLM, OpenRouter) and the LMArena catalog have no per-row dates: they
  are used as published (the demo assumes prices stood still), minus unreleased models;
- each source is dated no later than D, and its fetch is "ok" at D 12:45 UTC;
- the Arena section is fitted on the battles on or before D between released models;
- the operator's eval files carry no dates: each suite is aggregated over the models
  released by D only (a suite with none is left out; no suite left: ``evals`` is null).

Each day is scored by the real build's ``builder.scoring.boards.compute_snapshot`` (now =
D 12:45 UTC, previous = the snapshot generated for the date before, so movement works),
given the day's Arena and eval-suite sections and the ``backfill`` entry describing the
above; it assembles the snapshot exactly as ``builder.pipeline.compute_full_snapshot`` does.
Every snapshot says ``"demo": true``.

Regenerate the committed history (whenever the snapshot schema or method changes) with::

    modelboards backfill --demo --start 2026-09-20 --end 2026-11-29 --every 7 --force
"""

from __future__ import annotations

import hashlib
import logging
import re
import tempfile
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, date, datetime, time, timedelta
from pathlib import Path
from typing import Any

from builder.config import SiteConfig
from builder.errors import UserError
from builder.records import (
    BuildCheck,
    FetchStatus,
    ModelInfo,
    Observation,
    ParseResult,
    Payload,
    Price,
)
from builder.snapshot.models import Arena, Backfill, Evals, LmarenaDrift, Snapshot
from builder.sources.registry import kind_of, sources_with

log = logging.getLogger(__name__)

DRIFT_POINTS = 40.0
"Largest LMArena drift, Arena points (demo only)."
DRIFT_DAYS = 70
"Days before the LMArena file's date over which the drift fades to zero (demo only)."
BUILD_TIME = time(12, 45, tzinfo=UTC)
"Each backfilled day is built at the 12:45 UTC refresh."
BACKFILL_COMMAND = "modelboards backfill --demo"

_DATE_IN_NAME = re.compile(r"(?<!\d)(\d{4})[-_](\d{2})[-_](\d{2})(?!\d)")


# --------------------------------------------------------------------------- dates


def compute_backfill_dates(start: date, end: date, every: int) -> list[date]:
    """``start, start + every, ...`` up to and including ``end`` (days); a user error when empty."""
    if every < 1:
        raise UserError(f"--every: must be a positive number of days, got {every}")
    if end < start:
        raise UserError(f"--end {end.isoformat()} is before --start {start.isoformat()}")
    n = (end - start).days // every + 1
    return [start + timedelta(days=k * every) for k in range(n)]


def build_time_of(day: date) -> datetime:
    """The build time of a backfilled day: ``day`` at 12:45 UTC."""
    return datetime.combine(day, BUILD_TIME)


def _name_date(name: str) -> date | None:
    found = []
    for m in _DATE_IN_NAME.finditer(name):
        try:
            found.append(date(int(m[1]), int(m[2]), int(m[3])))
        except ValueError:
            continue
    return max(found) if found else None


# --------------------------------------------------------------------------- drift


def drift_unit(feed: str, spelling: str) -> float:
    """u in [-1, 1): ``2 * int(sha256(feed|spelling)[:8], 16) / 2**32 - 1`` (deterministic)."""
    digest = hashlib.sha256(f"{feed}|{spelling}".encode()).hexdigest()
    return 2.0 * int(digest[:8], 16) / 2**32 - 1.0


def drift_weight(day: date, final_day: date, days: int = DRIFT_DAYS) -> float:
    """w(D) = clamp((final_day - D) / days, 0, 1): 1 long before the file's date, 0 on and after it."""
    return min(1.0, max(0.0, (final_day - day).days / days))


def drift_observation(o: Observation, day: date, final_day: date, points: float = DRIFT_POINTS) -> Observation:
    """An LMArena observation as the demo pretends it stood on ``day`` (rating and bounds moved)."""
    if o.raw is None:
        return o.replace(date=min(o.date, day) if o.date else day)
    shift = points * drift_unit(o.feed, o.model) * drift_weight(day, final_day)
    details = dict(o.details)
    for k in ("rating_q025", "rating_q975"):
        if isinstance(details.get(k), (int, float)) and not isinstance(details.get(k), bool):
            details[k] = details[k] + shift
    return o.replace(raw=o.raw + shift, details=details, date=min(o.date, day) if o.date else day)


# --------------------------------------------------------------------------- payloads


@dataclass(frozen=True)
class DemoSource:
    """One source's bundled payload, parsed once.

    ``releases``: for kinds with dated releases (LiveBench), ``(release date, records)`` oldest
    first, each parsed from the files dated on or before that release; for every other kind one entry
    ``(payload date, records)``. ``payload_date``: the payload's own date (publication,
    else site.yml's date hint, else its recorded date).
    """

    name: str
    kind: str
    origin: str
    size: int
    payload_date: date
    releases: tuple[tuple[date, ParseResult], ...]


def read_demo_sources(cfg: SiteConfig, base: Path) -> dict[str, DemoSource]:
    """Read and parse every enabled source's recorded (bundled) payload.

    A source without a readable recorded payload is left out (it will be "missing" on every
    day); a payload that does not parse is a user error naming the source.
    """
    from builder.fetch import FetchError, read_recorded
    from builder.sources import PayloadError, parse_payload

    out: dict[str, DemoSource] = {}
    for source in cfg.sources:
        if not source.enabled:
            continue
        try:
            payload = read_recorded(source, base)
        except FetchError as exc:
            log.warning("%s: no recorded payload for the backfill: %s", source.name, exc)
            continue
        try:
            if kind_of(source).dated_releases:
                releases = _dated_releases(payload, source)
            else:
                r = parse_payload(payload, source, cfg.limits)
                day = r.published or source.date or payload.fetched_at.astimezone(UTC).date()
                releases = ((day, r),)
        except PayloadError as exc:
            raise UserError(f"{payload.origin}: bundled payload of {source.name} does not parse: {exc}") from None
        if not releases:
            continue
        out[source.name] = DemoSource(
            name=source.name, kind=source.kind, origin=payload.origin,
            size=sum(len(b) for b in payload.files.values()),
            payload_date=releases[-1][0], releases=tuple(releases),
        )
    return out


def _dated_releases(payload: Payload, source) -> tuple[tuple[date, ParseResult], ...]:
    """One payload's releases told apart by the dates in its file names, oldest first: each
    parsed from the files dated on or before it (and the undated ones)."""
    from builder.sources import parse_payload

    days = sorted({d for name in payload.files if (d := _name_date(name)) is not None})
    releases = []
    for day in days:
        files = {k: v for k, v in payload.files.items() if (d := _name_date(k)) is None or d <= day}
        r = parse_payload(replace(payload, files=files), source)
        releases.append((r.published or day, r))
    return tuple(releases)


# --------------------------------------------------------------------------- variant


def compute_release_dates(models: Sequence[ModelInfo], metadata_sources: set[str]) -> dict[str, date]:
    """Identity -> curated release date, from identified ModelInfo of the metadata sources."""
    out: dict[str, date] = {}
    for m in models:
        if m.source in metadata_sources and m.identity and m.release_date is not None:
            out[m.identity] = min(out.get(m.identity, m.release_date), m.release_date)
    return out


def _released(identity: str, releases: Mapping[str, date], day: date) -> bool:
    d = releases.get(identity)
    return d is None or d <= day


def compute_variant(sources: Mapping[str, DemoSource], cfg: SiteConfig, day: date):
    """(ScoringInputs, release dates) of the bundled payloads as they stood on ``day``.

    Rules: the module docstring. Pure: parsed records in, identified and selected records
    out, as ``builder.pipeline.gather_inputs`` makes them for a real build; the release
    dates (identity -> curated release date) decide which Arena battles count.
    """
    from builder.scoring.boards import ScoringInputs
    from builder.scoring.select import identify, select_observations, spellings

    now = build_time_of(day)
    observations: list[Observation] = []
    prices: list[Price] = []
    checks: list[BuildCheck] = []
    models: list[ModelInfo] = []
    statuses: dict[str, FetchStatus | None] = {s.name: None for s in cfg.sources if s.enabled}
    published: dict[str, date | None] = {s.name: None for s in cfg.sources if s.enabled}
    for src in sources.values():
        spec = kind_of(src.kind)
        usable = [(d, r) for d, r in src.releases if d <= day] if spec.dated_releases else list(src.releases)
        if not usable:
            continue  # not published yet: "missing" on this day
        release_day, r = usable[-1]
        # rows that carry the file's date, not their own, are never dropped by date
        dated = spec.dated_rows
        for o in r.observations:
            if "arena" in spec.roles:
                observations.append(drift_observation(o, day, src.payload_date))
            elif not dated or o.date is None or o.date <= day:
                observations.append(o)
        prices += [p if p.date is None or p.date <= day else p.replace(date=day) for p in r.prices]
        checks += [c for c in r.build_checks if c.date is None or c.date <= day]
        models += list(r.models)
        fetched = build_time_of(min(release_day, day))
        statuses[src.name] = FetchStatus(src.name, True, None, None, src.size, None, now, fetched, src.origin, False)
        published[src.name] = min(release_day, day)

    everything = spellings(observations)
    selected = select_observations(observations, cfg, everything)
    models = identify(models, cfg, everything)
    releases = compute_release_dates(models, sources_with(cfg, "curated"))
    return ScoringInputs(
        observations=tuple(o for o in selected if _released(o.identity, releases, day)),
        prices=tuple(p for p in identify(prices, cfg, everything) if _released(p.identity, releases, day)),
        build_checks=tuple(c for c in identify(checks, cfg, everything) if _released(c.identity, releases, day)),
        models=tuple(m for m in models if _released(m.identity, releases, day)),
        statuses=statuses,
        published=published,
    ), releases


# --------------------------------------------------------------------------- sections


def compute_arena_variant(
    battles_path: Path, cfg: SiteConfig, day: date, releases: Mapping[str, date]
) -> Arena | None:
    """The Arena section fitted on the votes on or before ``day`` between released models.

    None when no vote is left. The votes are cut into a temporary JSON Lines file with the
    original file's name and fitted by the real ``compute_arena_section``.
    """
    from builder.identity import alias_table, identity_of
    from builder.pairwise.arena import battle_filters, compute_arena_section, reader_settings
    from builder.pairwise.battles import OUTCOMES, write_battles_jsonl
    from builder.pairwise.scan import read_battles

    battles = read_battles(battles_path, replace(battle_filters(cfg.arena), max_date=day),
                           reader_settings(cfg.arena.reader))
    ok_model = [_released(identity_of(m, cfg.folding, alias_table(cfg)), releases, day) for m in battles.models]

    def rows() -> Iterator[dict[str, Any]]:
        for k in range(len(battles)):
            a, b = int(battles.model_a[k]), int(battles.model_b[k])
            if not (ok_model[a] and ok_model[b]):
                continue
            row: dict[str, Any] = {"model_a": battles.models[a], "model_b": battles.models[b],
                                   "winner": OUTCOMES[int(battles.outcome[k])], "anony": True}
            if battles.tstamp is not None and battles.tstamp[k] == battles.tstamp[k]:
                row["tstamp"] = float(battles.tstamp[k])
            yield row

    with tempfile.TemporaryDirectory(prefix="modelboards-backfill-") as tmp:
        path = Path(tmp) / battles_path.name
        if write_battles_jsonl(rows(), path) == 0:
            return None
        section = compute_arena_section(path, cfg.arena, history_bootstrap=cfg.arena.history_bootstrap)
    # the official filters ran on the first read (the cut file holds the votes they kept): their
    # counts, and the rows they removed, belong to the day's section
    official = {k: n for k, n in battles.report.removed.items() if k in ("anony", "dedup")}
    if not official:
        return section
    return section.model_copy(update={"filters": {**section.filters, **official},
                                      "rows_read": section.rows_read + sum(official.values())})


def compute_evals_variant(cfg: SiteConfig, base: Path, day: date, releases: Mapping[str, date]) -> Evals | None:
    """The eval suites over the models released by ``day`` (model ids folded to identities)."""
    if not cfg.evals:
        return None
    from builder.evals.section import compute_evals_section
    from builder.identity import alias_table, identity_of

    def released(model_id: str) -> bool:
        return _released(identity_of(model_id, cfg.folding, alias_table(cfg)), releases, day)

    evals = compute_evals_section(cfg.evals, base, include=released)
    return evals if evals.suites else None


def backfill_entry(sources: Mapping[str, DemoSource]) -> Backfill:
    """The ``backfill`` entry every demo-history snapshot carries (the rules above, in short)."""
    lmarena = [s for s in sources.values() if "arena" in kind_of(s.kind).roles]
    return Backfill(
        command=BACKFILL_COMMAND,
        demo=True,
        rules="dated variant of the bundled demo payloads: rows dated after this day dropped, "
              "LiveBench's newest release not after it, models released after it removed from every "
              "source (Arena battles and eval suites included)",
        lmarena_drift=LmarenaDrift(
            formula="rating = final + points * u * clamp((final_date - date) / days, 0, 1), "
                    "u = 2 * int(sha256(feed|spelling)[:8], 16) / 2**32 - 1",
            points=DRIFT_POINTS,
            days=DRIFT_DAYS,
            final_date=lmarena[0].payload_date.isoformat() if lmarena else None,
            note="invented for the demo: the LMArena file carries no dates",
        ),
    )


def compute_day_snapshot(
    sources: Mapping[str, DemoSource], cfg: SiteConfig, base: Path, day: date, previous: Snapshot | None
) -> Snapshot:
    """One backfilled day: the variant scored and assembled by ``compute_snapshot``."""
    from builder.config import resolve_data_path
    from builder.scoring.boards import compute_snapshot

    inputs, releases = compute_variant(sources, cfg, day)
    arena = None
    if cfg.arena.enabled and cfg.arena.battles:
        arena = compute_arena_variant(resolve_data_path(cfg.arena.battles, base), cfg, day, releases)
    return compute_snapshot(inputs, cfg, build_time_of(day), previous, arena=arena,
                            evals=compute_evals_variant(cfg, base, day, releases), demo=True,
                            backfill=backfill_entry(sources))


# --------------------------------------------------------------------------- command body


def write_demo_history(
    cfg: SiteConfig, base: Path, days: Sequence[date], snapshots_dir: Path, *, force: bool = False
) -> list[tuple[Path, str]]:
    """Score every day of ``days`` (oldest first) and write its snapshot; ``[(path, action)]``.

    Refuses (UserError, nothing written) when any target file exists, unless ``force``, which
    replaces them. The first day's movement is against the newest snapshot already in the
    folder before it (if any); every later day's against the day generated before it.
    """
    from builder.snapshot import previous_snapshot, write_snapshot

    days = sorted(set(days))
    snapshots_dir = Path(snapshots_dir)
    targets = [snapshots_dir / f"{d.isoformat()}.json" for d in days]
    existing = [p for p in targets if p.exists()]
    if existing and not force:
        more = f" (and {len(existing) - 1} more)" if len(existing) > 1 else ""
        raise UserError(f"{existing[0]}: snapshot already exists{more}; pass --force to replace")
    sources = read_demo_sources(cfg, base)
    if not sources:
        raise UserError("backfill: no enabled source has a recorded (bundled) payload")
    # gather everything, then write: a failure on a later day leaves the folder untouched
    snaps: list[Snapshot] = []
    previous = previous_snapshot(snapshots_dir, days[0]) if days else None
    for d in days:
        snap = compute_day_snapshot(sources, cfg, base, d, previous)
        snaps.append(snap)
        previous = snap
    return [write_snapshot(snap, snapshots_dir, replace=force) for snap in snaps]


__all__ = [
    "DRIFT_DAYS",
    "DRIFT_POINTS",
    "DemoSource",
    "build_time_of",
    "compute_arena_variant",
    "compute_backfill_dates",
    "backfill_entry",
    "compute_day_snapshot",
    "compute_evals_variant",
    "compute_release_dates",
    "compute_variant",
    "drift_observation",
    "drift_unit",
    "drift_weight",
    "read_demo_sources",
    "write_demo_history",
]
