"""The build, as a list of stages.

    fetch  -> store (payload + status per source)        builder.fetch
    parse  -> typed records per source                   builder.sources
    select -> identities, one observation per source     builder.scoring.select
    score  -> typed Snapshot (boards, arena, evals, index)  builder.scoring / pairwise / evals
    write  -> snapshots/YYYY-MM-DD.json (same-day rules)  builder.snapshot
    render -> site/ (temp dir swapped in whole)          builder.render

Each stage is a function of the previous stage's records; ``build`` strings them together
and times them.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from datetime import UTC, date, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from builder.config import SiteConfig, SourceConfig, resolve_data_path, snapshots_path
from builder.errors import CheckFailed, UserError
from builder.records import (
    NOT_CONFIGURED_LIVE,
    BuildCheck,
    FetchStatus,
    ModelInfo,
    Observation,
    ParseResult,
    Payload,
    Price,
)
from builder.snapshot.attempt import RefreshAttempt
from builder.snapshot.models import Snapshot, Source
from builder.util.gc import keep_until_exit
from builder.util.io import as_utc, parse_utc
from builder.util.text import public_message

if TYPE_CHECKING:
    from builder.evidence.verify import RecomputeRun, RememberedRun
    from builder.render.site import ChangeLog

log = logging.getLogger(__name__)
T = TypeVar("T")


@dataclass
class Timings:
    """Seconds per stage, in order."""

    stages: list[tuple[str, float]] = field(default_factory=list)

    @contextmanager
    def stage(self, name: str) -> Iterator[None]:
        t0 = time.perf_counter()
        try:
            yield
        finally:
            self.stages.append((name, time.perf_counter() - t0))

    def format(self) -> str:
        total = sum(s for _, s in self.stages)
        lines = [f"  {name:<10} {secs:8.3f} s" for name, secs in self.stages]
        return "\n".join(["timings:", *lines, f"  {'total':<10} {total:8.3f} s"])


@dataclass(frozen=True)
class Parsed:
    """All records parsed from the stored payloads, before selection."""

    result: ParseResult
    statuses: dict[str, FetchStatus | None]
    published: dict[str, date | None]


def parse_stored(cfg: SiteConfig, base: Path) -> Parsed:
    """Parse every enabled source's stored payload (the last good one).

    A stored payload that no longer parses (e.g. a parser got stricter) marks that source
    failed for this build; the others go on.
    """
    from builder.fetch import load_payloads
    from builder.sources import PayloadError, parse_payload

    payloads = load_payloads(cfg, base)
    observations: list[Observation] = []
    prices: list[Price] = []
    checks: list[BuildCheck] = []
    models: list[ModelInfo] = []
    statuses: dict[str, FetchStatus | None] = {}
    published: dict[str, date | None] = {}
    for source in cfg.sources:
        if not source.enabled:
            continue
        payload, status = payloads.get(source.name, (None, None))
        if status is not None and status.error:  # the site publishes it: no local folders in it
            status = replace(status, error=public_message(status.error, str(base)))
        statuses[source.name] = status
        published[source.name] = None
        if payload is None:
            continue
        try:
            parsed = parse_payload(payload, source, cfg.limits)
        except PayloadError as exc:
            log.warning("%s: stored payload does not parse: %s", source.name, exc)
            statuses[source.name] = _failed(status, payload, public_message(f"unparseable payload: {exc}", str(base))
                                            or "unparseable payload")
            continue
        observations += parsed.observations
        prices += parsed.prices
        checks += parsed.build_checks
        models += parsed.models
        # the payload's own date, else the configured one, else the upstream commit's; None: unknown
        published[source.name] = parsed.published or source.date or payload.published
    result = ParseResult(tuple(observations), tuple(prices), tuple(checks), tuple(models))
    return Parsed(result, statuses, published)


def _failed(status: FetchStatus | None, payload: Payload, error: str) -> FetchStatus:
    now = datetime.now(UTC)
    if status is None:
        return FetchStatus(payload.source, False, None, error, 0, None, now, None, payload.origin, False)
    return replace(status, ok=False, error=error)


def gather_inputs(cfg: SiteConfig, base: Path):
    """Stored payloads -> parsed records -> identities and selection -> ScoringInputs."""
    from builder.scoring.boards import ScoringInputs
    from builder.scoring.select import identify, select_observations, spellings

    parsed = parse_stored(cfg, base)
    r = parsed.result
    # Every record folds against the rating sources' dated releases (the cross-source date rule).
    everything = spellings(r.observations)
    return ScoringInputs(
        observations=tuple(select_observations(r.observations, cfg, everything)),
        prices=tuple(identify(r.prices, cfg, everything)),
        build_checks=tuple(identify(r.build_checks, cfg, everything)),
        models=tuple(identify(r.models, cfg, everything)),
        statuses=parsed.statuses,
        published=parsed.published,
    )


def compute_full_snapshot(cfg: SiteConfig, base: Path, now: datetime, snapshots_dir: Path) -> Snapshot:
    """The day's snapshot from the stored payloads: the Arena and eval-suite sections, then the
    role boards and the Capability Index scored with them (``scoring.boards.compute_snapshot``).

    The previous day's snapshot gives the movement column; one that does not load never
    blocks today's build: movement is then left out (``build`` warns, naming the file).
    After a live fetch the battles dump is one of the snapshot's sources (``battles_source``).
    """
    from builder.scoring.boards import compute_snapshot
    from builder.snapshot import previous_snapshot

    inputs = gather_inputs(cfg, base)
    try:
        previous = previous_snapshot(snapshots_dir, as_utc(now).date(), demo=cfg.demo)
    except UserError as exc:
        log.warning("no movement today: the previous snapshot does not load (%s): restore it from version control "
                    "or delete it", exc)
        previous = None
    live = any(s is not None and s.live for s in inputs.statuses.values())
    battles = battles_path(cfg, base, live=live)
    arena = None
    if battles is not None:
        from builder.pairwise.arena import compute_arena_section

        try:
            arena = compute_arena_section(battles, cfg.arena, history_bootstrap=cfg.arena.history_bootstrap,
                                          organisation_of=catalog_organisations(cfg, inputs))
        except UserError as exc:
            if not live:
                raise  # the operator's own battles file: one line, exit code 2
            # a stored upstream dump that no longer reads (the reader got stricter) never stops a build
            log.warning("arena: the stored battles dump is not usable, no Arena section today: %s", exc)
    arenas = compute_more_arenas(cfg, base, live=live, organisation_of=catalog_organisations(cfg, inputs))
    evals = None
    if cfg.evals:
        from builder.evals.section import compute_evals_section

        evals = compute_evals_section(cfg.evals, base)
    snapshot = compute_snapshot(inputs, cfg, now, previous, arena=arena, evals=evals)
    if arenas:
        snapshot = snapshot.model_copy(update={"arenas": tuple(arenas)})
    if live and cfg.arena.enabled and cfg.arena.live_url:
        extra = battles_source(cfg, base, contributing=arena is not None)
        snapshot = snapshot.model_copy(update={"sources": (*snapshot.sources, extra)})
    return snapshot


BATTLES_SOURCE = "arena-battles"


def arena_store(cfg: SiteConfig, base: Path, arena_id: str) -> Path:
    """The store folder of one more arena's live battles dump (``<store>/arenas/<id>/battles/``)."""
    from builder.fetch import store_path

    return store_path(cfg, base) / "arenas" / arena_id


def catalog_organisations(cfg: SiteConfig, inputs: Any) -> Any:
    """Battle spelling -> the model's organisation in the catalog (curated facts first, then
    LMArena's catalog, then Epoch's), folded to identities as every observation is; None
    when no source names it. For the Arena's ``catalog: same_org`` covariates."""
    from builder.identity import identity_of

    kinds = {s.name: s.kind for s in cfg.sources}
    order = {"metadata": 0, "lmarena_catalog": 1, "epoch": 2}
    makers: dict[str, str] = {}
    for m in sorted(inputs.models, key=lambda m: order.get(kinds.get(m.source, ""), 9)):
        if m.maker and m.identity and m.identity not in makers:
            makers[m.identity] = m.maker

    def organisation_of(spelling: str) -> str | None:
        return makers.get(identity_of(spelling, cfg.folding, cfg.aliases))

    return organisation_of


def compute_more_arenas(cfg: SiteConfig, base: Path, *, live: bool, organisation_of: Any = None) -> list[Any]:
    """The sections of site.yml's ``arenas`` (each fitted like the text arena). After a live
    fetch an arena with a ``live_url`` reads its last complete live dump, else its recorded
    file; an arena without battles, or whose stored live dump no longer reads, is left out
    with a warning (the operator's own recorded file failing is a user error)."""
    from builder.pairwise.arena import compute_arena_section

    out = []
    for a in cfg.arenas:
        if not a.enabled:
            continue
        path: Path | None = None
        fetched = live and a.live_url is not None
        if fetched:
            from builder.fetch_battles import stored_battles

            path = stored_battles(a, arena_store(cfg, base, a.id))
        elif a.battles:
            path = resolve_data_path(a.battles, base)
        if path is None:
            log.warning("arena %s: no battles file, no section today", a.id)
            continue
        try:
            out.append(compute_arena_section(path, a, history_bootstrap=a.history_bootstrap,
                                             organisation_of=organisation_of))
        except UserError as exc:
            if not fetched:
                raise
            log.warning("arena %s: the stored battles dump is not usable, no section today: %s", a.id, exc)
    return out


def battles_source(cfg: SiteConfig, base: Path, *, contributing: bool) -> Source:
    """The live battles dump as one of the snapshot's ``sources`` (status of its latest fetch)."""
    from builder.fetch import store_path
    from builder.fetch_battles import read_battles_status

    st = read_battles_status(store_path(cfg, base))
    return Source(
        name=BATTLES_SOURCE, title="LMArena battles dump (Arena page)", kind="arena_battles",
        status="missing" if st is None else ("ok" if st.ok else "failed"),
        error=public_message(st.error, str(base)) if st is not None else None,
        licence="no licence stated (votes cited)",
        attribution="LMArena (lmarena.ai), public clean_battle dump", homepage="https://lmarena.ai/leaderboard",
        url=cfg.arena.live_url, published=None,
        fetched_at=st.fetched_at.isoformat() if st is not None else None,
        payload_fetched_at=st.payload_fetched_at.isoformat() if st is not None and st.payload_fetched_at else None,
        contributing=contributing,
    )  # fmt: skip


def battles_path(cfg: SiteConfig, base: Path, *, live: bool) -> Path | None:
    """The battles file the Arena page is fitted from: after a live fetch, the last complete
    live dump in the store (never the bundled demo file); offline, the configured file."""
    if not cfg.arena.enabled:
        return None
    if live:
        from builder.fetch import store_path
        from builder.fetch_battles import stored_battles

        return stored_battles(cfg.arena, store_path(cfg, base))
    return resolve_data_path(cfg.arena.battles, base) if cfg.arena.battles else None


def dry_run(result: ParseResult, source: SourceConfig) -> str | None:
    """Why a later stage could not use one source's checked parse result (None: every stage can).

    The records have passed the parser, the name cleaning, the caps of ``limits`` and the
    plausibility rule; the caps bound every number the scoring arithmetic sees (a rating or
    price beyond them is already excluded). What remains is the contract: every record goes
    through the scoring stage's own conversion into the snapshot's models (observations with
    their details, token and build prices, model facts; strict types, no NaN, calendar dates)
    and their JSON encoding, as the snapshot writer and the renderer's JSON, CSV and HTML
    files need (UTF-8: a lone surrogate that JSON may spell as ``\\ud800`` survives parsing and
    cleaning but cannot be written). Cost: one pydantic model per record, about 10 us each.

    Returns one line, ``"snapshot dry run: <record> <name>: <reason>"``.
    """
    from pydantic import ValidationError
    from pydantic_core import PydanticSerializationError

    from builder.scoring.boards import compute_observation
    from builder.scoring.prices import blended_price, positive_number
    from builder.snapshot import models as snap

    def records() -> Iterator[tuple[str, str, Any]]:
        for o in result.observations:
            yield "observation", f"{o.model} ({o.feed})", lambda o=o: compute_observation(o, o.raw)
        for p in result.prices:
            if p.excluded is None and positive_number(p.input_per_token) and positive_number(p.output_per_token):
                i, out = float(p.input_per_token or 0), float(p.output_per_token or 0)
                yield "price", p.key, lambda p=p, i=i, out=out: snap.TokenPrice(
                    identity=p.model, source=p.source, key=p.key, input_per_token=i, output_per_token=out,
                    blended=blended_price(i, out), used=False)
        for c in result.build_checks:
            yield "build check", c.model, lambda c=c: snap.BuildPrice(
                identity=c.model, model=c.model, epoch=c.epoch, price=c.price, passed=c.passed, jobs=1)
        for m in result.models:
            yield "model", m.model, lambda m=m: snap.ModelFacts(
                name=m.name or m.model, maker=m.maker, licence=m.licence, open_weight=m.open_weight,
                params_b=m.params_b, context_window=m.context_window,
                release_date=m.release_date.isoformat() if m.release_date else None, lineage=m.lineage,
                spellings=(m.model,), sources=snap.FactSources(licence=None, params_b=None))

    for what, name, make in records():
        try:
            make().model_dump_json()
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(x) for x in first.get("loc", ()))
            reason = f"{where}: {first.get('msg')}" if where else str(first.get("msg"))
        except (PydanticSerializationError, ValueError, TypeError, OverflowError) as exc:
            reason = str(exc).removeprefix("Error serializing to JSON: ")
        else:
            continue
        shown = ascii(name[:80])  # the name as escapes: it may hold what cannot be printed
        return " ".join(f"snapshot dry run: {what} {shown} of {source.name}: {reason}".split())
    return None


def fetch_everything(
    cfg: SiteConfig, base: Path, *, live: bool, progress: bool, now: datetime | None = None
) -> list[FetchStatus]:
    """Every source, and with ``live`` the Arena battles dump (streamed, resumable). Each new
    payload is dry-run through the later stages (``dry_run``) before it is stored."""
    from builder.fetch import fetch_all, store_path

    statuses = fetch_all(cfg, base, live=live, progress=progress, now=now, dry_run=dry_run)
    if live and cfg.arena.enabled and cfg.arena.live_url:
        from builder.fetch_battles import fetch_battles

        statuses.append(fetch_battles(cfg.arena, cfg.fetch, store_path(cfg, base), progress=progress, now=now))
    if live:
        from builder.fetch_battles import fetch_battles

        for a in cfg.arenas:
            if a.enabled and a.live_url:
                st = fetch_battles(a, cfg.fetch, arena_store(cfg, base, a.id), progress=progress, now=now)
                statuses.append(replace(st, source=f"{BATTLES_SOURCE}-{a.id}"))
    return statuses


@dataclass
class BuildReport:
    snapshot_path: Path
    snapshot_action: str
    out: Path
    warnings: list[str]
    timings: Timings
    statuses: list[FetchStatus]


def build(
    cfg: SiteConfig,
    base: Path,
    *,
    live: bool = False,
    out: Path | None = None,
    base_url: str | None = None,
    strict: bool = False,
    now: datetime | None = None,
    snapshots_dir: Path | None = None,
    progress: bool = False,
    change_log: ChangeLog | None = None,
    keep_for_exit: bool = False,
) -> BuildReport:
    """The whole job: fetch, parse, select, score, write the snapshot, render, verify.

    Runs holding the project lock (``builder.util.lock``): a second build waits for this one.
    ``change_log`` makes the "what changed" documents of the rendered snapshots (the command
    passes ``builder.history.diff.compute_change_log``: the pipeline does not import history).
    ``keep_for_exit``: the caller is a one-shot command, and the process may end without
    freeing the snapshots (``builder.util.gc.keep_until_exit``).
    """
    from builder.render.site import recover_site
    from builder.util.lock import project_lock

    check_base_url(base_url)  # before anything is fetched or written
    out = out or base / "site"
    check_out(cfg, base, out, snapshots_dir)
    with project_lock(base, cfg.fetch.lock_timeout):
        recover_site(out)  # a site a killed build left renamed away is back before anything else
        return _build(cfg, base, live=live, out=out, base_url=base_url, strict=strict, now=now,
                      snapshots_dir=snapshots_dir, progress=progress, change_log=change_log,
                      keep_for_exit=keep_for_exit)


def _build(cfg: SiteConfig, base: Path, *, live: bool, out: Path, base_url: str | None, strict: bool,
           now: datetime | None, snapshots_dir: Path | None, progress: bool,
           change_log: ChangeLog | None, keep_for_exit: bool = False) -> BuildReport:
    from builder.render.site import render_site, write_site_atomically
    from builder.snapshot import list_snapshots, load_snapshot, write_snapshot
    from builder.snapshot.attempt import write_attempt

    now = now or datetime.now(UTC)
    snaps = snapshots_dir or snapshots_path(cfg, base)
    t = Timings()
    with t.stage("check"):
        check_operator_files(cfg, base, live=live)  # a bad one stops the run before anything is written
    with t.stage("fetch"):
        statuses = fetch_everything(cfg, base, live=live, progress=progress, now=now)
        attempt = attempt_from_statuses(statuses, now, live=live, base=base)
        write_attempt(attempt, snaps)
    with t.stage("score"):
        snapshot = compute_full_snapshot(cfg, base, now, snaps)
    with t.stage("snapshot"):
        path, action = write_snapshot(snapshot, snaps)
        if action == "empty":
            # Nothing scored: keep showing the newest saved day (the guards judge its age).
            current = snapshot
            for p in reversed([p for p in list_snapshots(snaps) if p.stem <= snapshot.date]):
                try:  # the newest readable one of this kind (a corrupt day is reported with the history below)
                    saved = load_snapshot(p)
                except UserError:
                    continue
                if saved.demo == cfg.demo:
                    current, path = saved, p
                    break
        else:
            current = load_snapshot(path)  # the day's snapshot in use (the first one may stay)
    with t.stage("render"):
        history, skipped = load_old_snapshots(snaps, exclude=path, demo=cfg.demo)
        if keep_for_exit:
            keep_until_exit(snapshot, current, history)

        def _render(tmp: Path) -> list[str]:
            return render_verified(tmp, lambda after_page: render_site(
                current, history, cfg, base, tmp, now=now, base_url=base_url, attempt=attempt,
                change_log=change_log, after=after_page), base)

        warnings = write_site_atomically(out, _render)
    failed = [s for s in statuses if not s.ok and s.error != NOT_CONFIGURED_LIVE]
    if action == "empty":
        warnings.insert(0, "no rows on any board: today's snapshot was not saved"
                        + (f"; the site shows {path.name}" if path.exists() else ""))
    warnings = [*(f"source {s.source} failed: {s.error}" for s in failed), *skipped, *warnings]
    report = BuildReport(path, action, out, warnings, t, statuses)
    if strict and warnings:
        raise CheckFailed(f"{len(warnings)} warning(s) with --strict: " + "; ".join(warnings))
    return report


def check_operator_files(cfg: SiteConfig, base: Path, *, live: bool) -> None:
    """Read every file of the operator's own before the fetch: each eval suite's files and,
    offline, the configured battles file. Raises UserError (one line naming file and line)."""
    if cfg.evals:
        from builder.evals.section import read_suite_files

        for suite in cfg.evals:
            read_suite_files(suite, base)
    path = battles_path(cfg, base, live=False) if not live else None
    if path is not None:
        from builder.pairwise.arena import battle_filters
        from builder.pairwise.scan import read_battles

        read_battles(path, battle_filters(cfg.arena))


def load_old_snapshots(snapshots_dir: Path, exclude: Path | None = None,
                       demo: bool | None = None) -> tuple[list[Snapshot], list[str]]:
    """Every readable saved snapshot but ``exclude`` (with ``demo`` given, only those of that
    kind: a live site's history holds no demo day), and one warning per unreadable one.

    A corrupt old day never blocks today's build: it is left out of the history and the
    archive, and the warning names the file and what to do about it.
    """
    from builder.snapshot import list_snapshots, load_snapshot

    history, skipped = [], []
    for p in list_snapshots(snapshots_dir):
        if exclude is not None and p == exclude:
            continue
        try:
            old = load_snapshot(p)
            if demo is None or old.demo == demo:
                history.append(old)
        except UserError as exc:
            skipped.append(f"unreadable snapshot skipped ({exc}): restore it from version control "
                           f"(git checkout -- {p}) or delete it")
    return history, skipped


def attempt_from_statuses(statuses: list[FetchStatus], at: datetime, *, live: bool,
                          base: Path | None = None) -> RefreshAttempt:
    """The typed record of this refresh attempt (``builder.snapshot.attempt``) from the fetch statuses
    (errors without local folders: the site shows them)."""
    from builder.snapshot.attempt import SourceAttempt

    root = str(base) if base is not None else None
    return RefreshAttempt(at=at, live=live, sources=tuple(
        SourceAttempt(name=s.source, status="ok" if s.ok else "not_configured" if s.error == NOT_CONFIGURED_LIVE
                      else "failed", error=public_message(s.error, root), http_status=s.http_status,
                      payload_fetched_at=s.payload_fetched_at)
        for s in statuses
    ))  # fmt: skip


def check_out(cfg: SiteConfig, base: Path, out: Path, snapshots_dir: Path | None = None) -> Path:
    """Refuse an ``--out`` the site swap must not replace (``builder.util.outdir``): the
    project folder, the snapshots folder, the payload store, ``$HOME``, ``/``, or any folder
    that is neither empty nor a site this tool wrote. One line, exit code 2."""
    from builder.store import store_path  # not builder.fetch: a render does not import httpx
    from builder.util.outdir import check_out_dir

    snaps = snapshots_dir or snapshots_path(cfg, base)
    store = store_path(cfg, base)
    # a site inside the snapshots folder deletes nothing (its swap replaces the site folder only),
    # and tests and operators keep a site beside the snapshots of a scratch folder
    return check_out_dir(out, protected=[("the project folder (site.yml's)", base), ("the snapshots folder", snaps),
                                         ("the payload store", store)], inside=[("the payload store", store)])


def check_base_url(base_url: str | None) -> None:
    """Refuse a ``--base-url`` that is not an absolute http(s) URL (one line, exit code 2)."""
    from builder.util.text import safe_url

    if base_url is not None and safe_url(base_url) is None:
        raise UserError(f"--base-url: must be an absolute http(s) URL, got {base_url!r}")


def verify_or_fail(site_dir: Path, run: RecomputeRun | RememberedRun | None = None, base: Path | None = None) -> None:
    """Run the site's own recompute.py on its export; raise CheckFailed naming the misses.

    ``build`` calls this on the new output before swapping it in, so a site whose numbers
    do not rebuild is never published (the previous site stays). ``run`` is the script
    already started on this site (``render_verified``); without it, it runs here. ``base``
    (site.yml's folder) keeps the memos of published snapshot texts that loaded before and
    of the script's runs that rebuilt everything (``builder.evidence.verify``).
    """
    from builder.evidence.verify import SNAPSHOT_CHECK_MEMO, VERDICT_MEMO, verify_site
    from builder.util.memo import Memo

    if run is None and not (Path(site_dir) / "data" / "recompute.py").is_file():
        return  # no snapshot rendered (fallback site): nothing to recompute
    memos = (Memo(base, SNAPSHOT_CHECK_MEMO), Memo(base, VERDICT_MEMO)) if base is not None else (None, None)
    result = verify_site(site_dir, run, *memos)
    if not result.ok:
        misses = [line for line in result.output.splitlines() if line.startswith(("MISS", "recompute.py"))]
        if result.reason:  # it crashed: say why
            misses = [*misses[:1], result.reason, *misses[1:]]
        text = "; ".join(m.rstrip(":") for m in misses[:5]).replace(str(Path(site_dir).resolve()) + "/", "")
        raise CheckFailed("the new site's numbers do not rebuild: " + (text or "recompute.py failed"))


def render_verified(site_dir: Path, render: Callable[[Callable[[str], None]], T], base: Path | None = None) -> T:
    """``render(after_page)`` into ``site_dir``, then ``verify_or_fail`` (with ``base``); the render's result.

    The site's recompute.py starts as soon as the step that writes it is done (``render_site``'s
    ``after`` hook, ``builder.evidence.verify.RecomputeWhenReady``) and runs while the pages are
    written; the verdict still waits for it, so a site whose numbers do not rebuild is never
    swapped in. A render that fails stops the script. With ``base``, a run of the same script
    over inputs of the same bytes that rebuilt everything is read back from its memo.
    """
    from builder.evidence.verify import VERDICT_MEMO, RecomputeWhenReady
    from builder.util.memo import Memo

    early = RecomputeWhenReady(site_dir, Memo(base, VERDICT_MEMO) if base is not None else None)
    try:
        result = render(early.after_page)
        verify_or_fail(site_dir, early.run, base)
    except BaseException:
        early.cancel()
        raise
    return result


def parse_now(value: str | None) -> datetime | None:
    """``--now`` option: an ISO date or time, taken as UTC when it has no offset."""
    return None if value is None else parse_utc(value, "--now")
