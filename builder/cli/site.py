"""The site's commands: fetch, select, score, build, verify, explain and backfill.

Thin: options -> config -> pipeline stage. ``render`` is in ``builder.cli.render``, ``serve`` in ``builder.cli.serve``.
"""

from __future__ import annotations

import json
import sys
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING

import click

from builder.cli.context import Context, pass_ctx
from builder.cli.options import (
    base_url_option,
    live_option,
    now_option,
    out_option,
    snapshots_dir_option,
    strict_option,
    top_heatmap_option,
    with_top_heatmap,
)
from builder.errors import CheckFailed, UserError
from builder.util.io import as_utc

if TYPE_CHECKING:
    from builder.config import SiteConfig


@click.command()
@live_option("Ask the real upstream URLs (default: the bundled recorded payloads).")
@click.option("--progress/--no-progress", default=True, show_default=True, help="Progress display on a terminal.")
@pass_ctx
def fetch(obj: Context, live: bool | None, progress: bool) -> None:
    """Fetch every enabled source into the payload store, with a status per source.

    A failed source never stops the others and never overwrites its last good payload.
    """
    cfg, base = obj.load()
    from builder.fetch import format_status_table
    from builder.pipeline import fetch_everything
    from builder.util.lock import project_lock

    with project_lock(base, cfg.fetch.lock_timeout):
        statuses = fetch_everything(cfg, base, live=bool(live), progress=progress)
    click.echo(format_status_table(statuses))


@click.command("select")
@click.option("--format", "fmt", type=click.Choice(["json", "csv"]), default="json", show_default=True,
              help="Output format.")
@click.option("--output", type=click.Path(dir_okay=False, writable=True), default=None,
              help="Write to this file instead of standard output.")
@pass_ctx
def select_cmd(obj: Context, fmt: str, output: str | None) -> None:
    """Print every observation with its identity and whether it was selected, and why not.

    This answers "why is my model missing": every row that did not count says why.
    Reads the payload store (run `modelboards fetch` first).
    """
    cfg, base = obj.load()
    from builder.pipeline import parse_stored
    from builder.scoring.select import select_observations, select_rows, spellings, write_select

    parsed = parse_stored(cfg, base)
    r = parsed.result
    everything = spellings(r.observations)
    rows = select_rows(select_observations(r.observations, cfg, everything))
    if output:
        with open(output, "w", encoding="utf-8", newline="") as fh:
            write_select(rows, fmt, fh)
    else:
        write_select(rows, fmt, sys.stdout)


@click.command()
@live_option("Fetch the real upstream URLs instead of the bundled payloads.")
@out_option()
@base_url_option()
@strict_option()
@snapshots_dir_option()
@now_option()
@click.option("--timings", is_flag=True, default=None, help="Print how long each stage took.")
@top_heatmap_option()
@pass_ctx
def build(obj: Context, live: bool | None, out: Path | None, base_url: str | None, strict: bool | None,
          snapshots_dir: Path | None, now: str | None, timings: bool | None, top_heatmap: int | None) -> None:
    """Fetch, score, write today's snapshot and render the whole site.

    Output is written to a temporary folder and swapped in whole: a failure leaves the
    previous site untouched.
    """
    cfg, base = obj.load()
    cfg = with_top_heatmap(cfg, top_heatmap)
    from builder.cli.render import change_log
    from builder.pipeline import build as run_build
    from builder.pipeline import parse_now

    report = run_build(
        cfg, base,
        live=bool(live),
        out=out,
        base_url=base_url,
        strict=bool(strict),
        now=parse_now(now),
        snapshots_dir=snapshots_dir,
        progress=True,
        change_log=change_log(cfg),
        keep_for_exit=True,
    )
    if report.snapshot_action == "empty":
        click.echo("snapshot: none saved today (no rows on any board)"
                   + (f"; the site shows {report.snapshot_path.name}" if report.snapshot_path.exists() else ""))
    else:
        click.echo(f"snapshot {report.snapshot_path} ({report.snapshot_action})")
    click.echo(f"site written to {report.out}")
    for w in report.warnings:
        click.echo(f"warning: {w}", err=True)
    with report.timings.stage("mcp"):
        _prepare_mcp_documents(cfg, base, snapshots_dir)
    if timings:
        click.echo(report.timings.format())


def _prepare_mcp_documents(cfg: SiteConfig, base: Path, snapshots_dir: Path | None) -> None:
    """Put the MCP server's documents for the newest snapshot into its document cache now (the
    server's own computation, under the server's key), so the first ``modelboards mcp`` after a
    build reads them instead of computing them. The site is already built: a failure here is a
    warning, and the server computes the documents itself when it starts."""
    from builder.cli.mcp import CACHE_DIR
    from builder.config import snapshots_path
    from builder.mcp.cache import DocumentCache
    from builder.mcp.data import LocalBackend

    folder = snapshots_path(cfg, base, snapshots_dir)
    try:
        LocalBackend(cfg, base, folder, cache=DocumentCache(base / CACHE_DIR)).load()
    except (UserError, OSError) as exc:
        click.echo(f"warning: the MCP server's documents were not prepared: {exc}", err=True)


@click.command()
@click.argument("site_dir", required=False, type=click.Path(file_okay=False), default=None)
def verify(site_dir: str | None) -> None:
    """Rebuild every published number of a built site from its evidence downloads.

    Runs the site's own data/recompute.py (standard library only) and prints what it
    reproduced. Exit code 1 when anything did not rebuild. SITE_DIR defaults to site/.
    """
    from builder.errors import CheckFailed
    from builder.evidence.verify import verify_site

    result = verify_site(Path(site_dir or "site"))
    click.echo(result.output.rstrip())
    if not result.ok:
        raise CheckFailed("some published numbers did not rebuild (see MISS lines)")


def _parse_day(option: str, value: str | None) -> date | None:
    if value is None:
        return None
    try:
        return date.fromisoformat(value)
    except ValueError:
        raise UserError(f"{option}: not an ISO date (YYYY-MM-DD): {value!r}") from None


def build_time(day: date | None, now: datetime) -> datetime:
    """The build time: ``now`` (UTC), moved to ``day`` when one is given (time of day kept)."""
    now = as_utc(now)
    return now if day is None else now.replace(year=day.year, month=day.month, day=day.day)


@click.command("score")
@click.option("--date", "day", default=None, metavar="D",
              help="Snapshot date (UTC, YYYY-MM-DD) [default: today].")
@snapshots_dir_option()
@top_heatmap_option()
@pass_ctx
def score(obj: Context, day: str | None, snapshots_dir: Path | None, top_heatmap: int | None) -> None:
    """Turn the stored payloads into the day's snapshot (calibrate, combine, rank, qualify).

    The first snapshot saved for a UTC day stays; a same-day rebuild replaces it only with
    strictly more sources ok. Reads the payload store (run `modelboards fetch` first).
    """
    cfg, base = obj.load()
    cfg = with_top_heatmap(cfg, top_heatmap)
    from builder.pipeline import compute_full_snapshot, snapshots_path
    from builder.snapshot import write_snapshot

    now = build_time(_parse_day("--date", day), datetime.now(UTC))
    folder = snapshots_path(cfg, base, snapshots_dir)
    from builder.util.lock import project_lock

    with project_lock(base, cfg.fetch.lock_timeout):  # the store is read and a snapshot written
        snapshot = compute_full_snapshot(cfg, base, now, folder)
        path, action = write_snapshot(snapshot, folder)
    if action == "empty":
        raise CheckFailed(f"no rows on any board (every rating source failed?): {path.name} was not saved")
    ranked = sum(len(b.rows) for b in snapshot.boards)
    ok = sum(1 for s in snapshot.sources if s.status == "ok")
    click.echo(f"snapshot {path} ({action}): {len(snapshot.boards)} boards, {ranked} ranked rows, "
               f"{ok}/{len(snapshot.sources)} sources ok, as of {snapshot.as_of}"
               + (", stale (Arena failed)" if snapshot.stale else ""))
    for b in snapshot.boards:
        if b.warning:
            click.echo(f"warning: {b.id}: {b.warning}", err=True)


@click.command("explain")
@click.argument("model")
@click.option("--board", "board_id", default="orchestrator", show_default=True, help="Board id.")
@click.option("--snapshot", "snapshot_file", type=click.Path(dir_okay=False), default=None,
              help="Snapshot file [default: the newest in snapshots_dir of site.yml].")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True,
              help="Output format.")
@pass_ctx
def explain(obj: Context, model: str, board_id: str, snapshot_file: str | None, fmt: str) -> None:
    """Print the arithmetic behind MODEL's score: calibration, family means, R, rank, labels."""
    from builder.evidence.explain import explain_model, format_explain
    from builder.snapshot import list_snapshots, load_snapshot

    if snapshot_file:
        path = Path(snapshot_file)
    else:
        cfg, base = obj.load()
        from builder.pipeline import snapshots_path

        folder = snapshots_path(cfg, base)
        found = list_snapshots(folder)
        if not found:
            raise UserError(f"{folder}: no snapshots (run `modelboards score` first, or pass --snapshot)")
        path = found[-1]
    d = explain_model(load_snapshot(path), model, board_id)
    click.echo(json.dumps(d, indent=2) if fmt == "json" else format_explain(d))


DEFAULT_COUNT = 10
"Without --start, the history reaches back this many steps of --every before --end."


@click.command("backfill")
@click.option("--demo", is_flag=True, default=None,
              help="Replay the bundled demo payloads (required: archived live payloads are not kept).")
@click.option("--start", default=None, metavar="D",
              help=f"First date (UTC, YYYY-MM-DD) [default: {DEFAULT_COUNT} x --every days before --end].")
@click.option("--end", default=None, metavar="D", help="Last possible date, inclusive [default: yesterday, UTC].")
@click.option("--every", type=int, default=7, show_default=True, help="Days between snapshots.")
@snapshots_dir_option()
@click.option("--force", is_flag=True, default=None, help="Replace snapshots that already exist for these dates.")
@pass_ctx
def backfill(obj: Context, demo: bool | None, start: str | None, end: str | None, every: int,
             snapshots_dir: Path | None, force: bool | None) -> None:
    """Write a dated history of snapshots from dated variants of the bundled demo payloads.

    For each date D from --start to --end, every --every days, the bundled payloads are cut
    to what existed on D (later rows, releases and models dropped; LMArena ratings drift
    towards their final values, invented for the demo) and scored by the same method as a
    real build at D 12:45 UTC, with movement against the previous date. Every snapshot says
    "demo": true. Existing snapshots for these dates are refused unless --force.

    The committed history is made with:
    modelboards backfill --demo --start 2026-09-20 --end 2026-11-29 --every 7 --force
    """
    if not demo:
        raise UserError("backfill: pass --demo (only the bundled demo payloads can be replayed; "
                        "archived live payloads are not kept)")
    cfg, base = obj.load()
    from builder.history.backfill import compute_backfill_dates, write_demo_history
    from builder.pipeline import snapshots_path

    last = _parse_day("--end", end) or (datetime.now(UTC).date() - timedelta(days=1))
    first = _parse_day("--start", start) or last - timedelta(days=DEFAULT_COUNT * max(every, 1))
    days = compute_backfill_dates(first, last, every)
    folder = snapshots_path(cfg, base, snapshots_dir)
    written = write_demo_history(cfg, base, days, folder, force=bool(force))
    for path, action in written:
        click.echo(f"snapshot {path} ({action})")
    click.echo(f"{len(written)} demo snapshots from {days[0].isoformat()} to {days[-1].isoformat()} in {folder}")
