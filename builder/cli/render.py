"""``modelboards render`` and ``modelboards serve``: the site from saved snapshots only.

    render --snapshot FILE [--out DIR] [--now ISO] [--base-url URL]
        no network, no refit; "now" defaults to the snapshot's own created_at, so an old
        snapshot re-renders that day's pages byte for byte.
    serve [--port N] [--out DIR] [--snapshot FILE]
        renders the newest snapshot, serves it on 127.0.0.1, and rebuilds when content/,
        templates/ or site.yml change; every page shows the build's warnings in a banner.
"""

from __future__ import annotations

import functools
import http.server
import threading
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from builder.cli.context import Context, pass_ctx
from builder.cli.options import base_url_option, now_option, out_option, strict_option
from builder.errors import CheckFailed, UserError
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


def render_from_snapshot(cfg, base: Path, snapshot_path: Path, out: Path, *, now: str | None = None,
                         base_url: str | None = None, banner_warnings: bool = False,
                         strict: bool = False) -> list[str]:
    """Load ``snapshot_path`` and its earlier snapshots, render into ``out`` atomically.

    With ``strict``, any warning raises ``CheckFailed`` before the swap (the old site stays).
    """
    from builder.pipeline import verify_or_fail
    from builder.render.site import render_site, write_site_atomically

    snapshot = _load_snapshot(snapshot_path)
    when = snapshot_now(snapshot, now)
    snaps_dir = Path(cfg.snapshots_dir)
    snaps_dir = snaps_dir if snaps_dir.is_absolute() else base / snaps_dir
    history = load_history([snapshot_path.parent, snaps_dir], snapshot.date, exclude=snapshot_path)
    from builder.snapshot.attempt import find_attempt

    # the latest refresh attempt made since this snapshot and not after "now"
    attempt = find_attempt([snapshot_path.parent, snaps_dir], datetime.fromisoformat(snapshot.created_at), when)
    if base_url is not None:
        from builder.util.text import safe_url

        if safe_url(base_url) is None:
            raise UserError(f"--base-url: must be an http(s) URL, got {base_url!r}")

    def build(tmp: Path) -> list[str]:
        warnings = render_site(snapshot, history, cfg, base, tmp, now=when, base_url=base_url,
                               banner_warnings=banner_warnings, attempt=attempt, change_log=change_log(cfg))
        if strict and warnings:
            raise CheckFailed(f"{len(warnings)} warning(s) with --strict: " + "; ".join(warnings))
        verify_or_fail(tmp)  # a site whose numbers do not rebuild is never swapped in
        return warnings

    return write_site_atomically(out, build)


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
    from builder.util.lock import project_lock

    cfg, base = obj.load()
    out = out or base / "site"
    with project_lock(base, cfg.fetch.lock_timeout):
        warnings = render_from_snapshot(cfg, base, snapshot_path, out, now=now, base_url=base_url, strict=bool(strict))
    click.echo(f"site written to {out}")
    for w in warnings:
        click.echo(f"warning: {w}", err=True)


def watched_mtimes(paths: list[Path]) -> dict[str, float]:
    """Modification time of every file under ``paths`` (a folder or a file)."""
    stamps: dict[str, float] = {}
    for p in paths:
        if p.is_file():
            stamps[str(p)] = p.stat().st_mtime
        elif p.is_dir():
            for f in p.rglob("*"):
                if f.is_file():
                    stamps[str(f)] = f.stat().st_mtime
    return stamps


def watch(paths: list[Path], rebuild: Callable[[], None], stop: threading.Event, interval: float = 1.0) -> None:
    """Call ``rebuild`` whenever a file under ``paths`` is added, removed or modified."""
    last = watched_mtimes(paths)
    while not stop.wait(interval):
        now = watched_mtimes(paths)
        if now != last:
            last = now
            rebuild()


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass


@click.command("serve")
@click.option("--port", type=int, default=8000, show_default=True, help="Port on 127.0.0.1 (0: any free port).")
@out_option(".modelboards/preview beside site.yml")
@click.option("--snapshot", "snapshot_path", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Snapshot to render [default: the newest in snapshots_dir].")
@base_url_option("http://127.0.0.1:PORT/")
@pass_ctx
def serve_cmd(obj: Context, port: int, out: Path | None, snapshot_path: Path | None, base_url: str | None) -> None:
    """Render and serve the site on 127.0.0.1, rebuilding when content/, templates/ or site.yml change.

    A banner on every page lists the build's warnings (for example why the live boards
    were refused).
    """
    from builder.render.site import render_site, write_site_atomically
    from builder.render.writer import find_dir

    cfg, base = obj.load()
    config_path = Path(obj.config_path).resolve()
    out = (out or base / ".modelboards" / "preview").resolve()
    handler = functools.partial(_QuietHandler, directory=str(out))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", port), handler)  # bind first: --port 0 picks one
    url = base_url or f"http://127.0.0.1:{server.server_address[1]}/"

    def pick_snapshot() -> Path | None:
        if snapshot_path is not None:
            return snapshot_path
        snaps_dir = Path(cfg.snapshots_dir)
        files = _snapshot_files(snaps_dir if snaps_dir.is_absolute() else base / snaps_dir)
        return files[-1] if files else None

    def rebuild() -> None:
        nonlocal cfg, base
        try:
            import builder.sources.registry  # noqa: F401  (installs the check of source kinds)
            from builder.config import load_config

            cfg, base = load_config(config_path)
            path = pick_snapshot()
            if path is not None:
                warnings = render_from_snapshot(cfg, base, path, out, now=datetime.now(UTC).isoformat(),
                                                base_url=url, banner_warnings=True)
            else:
                warnings = write_site_atomically(out, lambda tmp: render_site(
                    None, [], cfg, base, tmp, now=datetime.now(UTC), base_url=url, banner_warnings=True))
        except UserError as exc:
            click.echo(f"error: {exc} (the previous preview stays)", err=True)
            return
        stamp = time.strftime("%H:%M:%S")
        click.echo(f"[{stamp}] rebuilt {out} ({len(warnings)} warning(s))")
        for w in warnings:
            click.echo(f"  warning: {w}", err=True)

    rebuild()
    stop = threading.Event()
    watched = [find_dir(base, "content"), find_dir(base, "templates"), config_path]
    watcher = threading.Thread(target=watch, args=(watched, rebuild, stop), daemon=True)
    watcher.start()
    click.echo(f"serving {out} at http://127.0.0.1:{server.server_address[1]}/ (Ctrl-C to stop)")
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        stop.set()
        server.server_close()
