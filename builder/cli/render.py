"""``modelboards render``: the site from saved snapshots only (``serve`` is in ``builder.cli.serve``).

    render --snapshot FILE [--out DIR] [--now ISO] [--base-url URL]
        no network, no refit; "now" defaults to the snapshot's own created_at, so an old
        snapshot re-renders that day's pages byte for byte.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

import click

from builder.cli.context import Context, pass_ctx
from builder.cli.options import base_url_option, now_option, out_option, strict_option
from builder.errors import CheckFailed, UserError
from builder.util.gc import freeze_at_exit, gc_paused, keep_until_exit
from builder.util.io import parse_utc

if TYPE_CHECKING:
    from builder.config import SiteConfig
    from builder.render.site import ChangeLog
    from builder.snapshot import Snapshot


def _load_snapshot(path: Path) -> Snapshot:
    from builder.snapshot import load_snapshot

    return load_snapshot(path)


def _snapshot_files(folder: Path) -> list[Path]:
    from builder.snapshot import list_snapshots

    return list_snapshots(folder)


def load_history(folders: list[Path], before: str | None, exclude: Path | None = None) -> list[Snapshot]:
    """Readable snapshots dated strictly before ``before`` from ``folders`` (first folder wins a date)."""
    seen: dict[str, Snapshot] = {}
    for folder in folders:
        for p in _snapshot_files(folder):
            if exclude is not None and p.resolve() == exclude.resolve():
                continue
            day = p.name[:10]
            if day in seen or (before is not None and day >= before):
                continue
            try:
                seen[day] = _load_snapshot(p)
            except UserError:
                continue  # an unreadable old snapshot never stops a render; it is left out of the archive
    return [seen[d] for d in sorted(seen)]


def snapshot_now(snapshot: Snapshot, override: str | None) -> datetime:
    """``--now`` when given (ISO date or time, UTC if naive), else the snapshot's ``created_at``."""
    value = override if override is not None else snapshot.created_at
    return parse_utc(value, "--now" if override is not None else "snapshot created_at")


def change_log(cfg: SiteConfig) -> ChangeLog:
    """The "what changed" documents of a render, at site.yml's score-move threshold."""
    from builder.history.diff import compute_change_log

    return functools.partial(compute_change_log, threshold=cfg.changes.score_threshold)


@gc_paused
def render_from_snapshot(cfg, base: Path, snapshot_path: Path, out: Path, *, now: str | None = None,
                         base_url: str | None = None, banner_warnings: bool = False,
                         strict: bool = False, keep_for_exit: bool = False) -> list[str]:
    """Load ``snapshot_path`` and its earlier snapshots, render into ``out`` atomically.

    With ``strict``, any warning raises ``CheckFailed`` before the swap (the old site stays).
    ``keep_for_exit``: the caller is a one-shot command, and the process may end without
    freeing the snapshots (``builder.util.gc.keep_until_exit``); never for a process that
    renders again (``serve``).
    """
    from builder.pipeline import render_verified
    from builder.render.site import render_site, write_site_atomically

    snapshot = _load_snapshot(snapshot_path)
    when = snapshot_now(snapshot, now)
    snaps_dir = Path(cfg.snapshots_dir)
    snaps_dir = snaps_dir if snaps_dir.is_absolute() else base / snaps_dir
    if keep_for_exit:
        keep_until_exit(snapshot)

    def history() -> list[Snapshot]:  # loaded once the render has started the verify on the current snapshot
        earlier = load_history([snapshot_path.parent, snaps_dir], snapshot.date, exclude=snapshot_path)
        if keep_for_exit:
            keep_until_exit(earlier)
        return earlier

    from builder.snapshot.attempt import find_attempt

    # the latest refresh attempt made since this snapshot and not after "now"
    attempt = find_attempt([snapshot_path.parent, snaps_dir], datetime.fromisoformat(snapshot.created_at), when)
    if base_url is not None:
        from builder.util.text import safe_url

        if safe_url(base_url) is None:
            raise UserError(f"--base-url: must be an http(s) URL, got {base_url!r}")

    def pages(tmp: Path, after_page: Callable[[str], None]) -> list[str]:
        warnings = render_site(snapshot, history, cfg, base, tmp, now=when, base_url=base_url,
                               banner_warnings=banner_warnings, attempt=attempt, change_log=change_log(cfg),
                               after=after_page)
        if strict and warnings:
            raise CheckFailed(f"{len(warnings)} warning(s) with --strict: " + "; ".join(warnings))
        return warnings

    # a site whose numbers do not rebuild is never swapped in; the verify runs beside the pages
    return write_site_atomically(out, lambda tmp: render_verified(tmp, functools.partial(pages, tmp), base))


@click.command("render")
@click.option("--snapshot", "snapshot_path", required=True, type=click.Path(dir_okay=False, path_type=Path),
              help="The snapshot JSON to render (e.g. snapshots/2026-10-10.json).")
@out_option()
@now_option("Judge freshness at this ISO date/time (UTC) [default: the snapshot's created_at].")
@base_url_option()
@strict_option()
@pass_ctx
def render_cmd(obj: Context, snapshot_path: Path, out: Path | None, now: str | None, base_url: str | None,
               strict: bool | None) -> None:
    """Render the site from one saved snapshot: no network, no refit.

    Earlier snapshots in the same folder (and in snapshots_dir) fill the archive and the
    method changelog. The output folder is swapped in whole.
    """
    _render(obj, snapshot_path, out, now, base_url, strict)


@gc_paused  # the imports, the snapshots' models and the pages live until the end: nothing to collect
def _render(obj: Context, snapshot_path: Path, out: Path | None, now: str | None, base_url: str | None,
            strict: bool | None) -> None:
    from builder.pipeline import check_out
    from builder.util.lock import project_lock

    freeze_at_exit()
    cfg, base = obj.load()
    out = out or base / "site"
    check_out(cfg, base, out)  # before the lock: a refused folder is one line, nothing touched
    with project_lock(base, cfg.fetch.lock_timeout):
        warnings = render_from_snapshot(cfg, base, snapshot_path, out, now=now, base_url=base_url, strict=bool(strict),
                                        keep_for_exit=True)
    click.echo(f"site written to {out}")
    for w in warnings:
        click.echo(f"warning: {w}", err=True)
