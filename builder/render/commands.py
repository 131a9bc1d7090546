"""``modelboards render`` and ``modelboards serve``: the site from saved snapshots only.

    render --snapshot FILE [--out DIR] [--now ISO] [--base-url URL]
        no network, no refit; "now" defaults to the snapshot's own created_at, so an old
        snapshot re-renders that day's pages byte for byte.
    serve [--port N] [--out DIR] [--snapshot FILE]
        renders the newest snapshot, serves it on 127.0.0.1, and rebuilds when content/,
        templates/ or site.yml change; every page shows the build's warnings in a banner.

The lead registers them on the ``modelboards`` group (they use ``ctx.obj.load()``).
"""

from __future__ import annotations

import functools
import http.server
import threading
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable

import click

from builder.errors import CheckFailed, UserError


def _load_snapshot(path: Path) -> dict[str, Any]:
    from builder.snapshot import load_snapshot

    return load_snapshot(path)


def _snapshot_files(folder: Path) -> list[Path]:
    from builder.snapshot import list_snapshots

    return list_snapshots(folder)


def load_history(folders: list[Path], before: str | None, exclude: Path | None = None) -> list[dict[str, Any]]:
    """Readable snapshots dated strictly before ``before`` from ``folders`` (first folder wins a date)."""
    seen: dict[str, dict[str, Any]] = {}
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


def snapshot_now(snapshot: dict[str, Any], override: str | None) -> datetime:
    """``--now`` when given (ISO date or time, UTC if naive), else the snapshot's ``created_at``."""
    value = override if override is not None else snapshot.get("created_at")
    if not isinstance(value, str):
        raise UserError("snapshot has no created_at; pass --now")
    try:
        t = datetime.fromisoformat(value)
    except ValueError:
        where = "--now" if override is not None else "snapshot created_at"
        raise UserError(f"{where}: not an ISO date/time: {value!r}") from None
    return t.replace(tzinfo=timezone.utc) if t.tzinfo is None else t


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
    history = load_history([snapshot_path.parent, snaps_dir], snapshot.get("date"), exclude=snapshot_path)
    from builder.attempt import find_attempt

    created = snapshot.get("created_at")
    try:
        since = datetime.fromisoformat(created) if isinstance(created, str) else None
    except ValueError:
        since = None
    attempt = find_attempt([snapshot_path.parent, snaps_dir], since, when)  # the latest refresh since the snapshot
    if base_url is not None:
        from builder.render.safety import safe_url

        if safe_url(base_url) is None:
            raise UserError(f"--base-url: must be an http(s) URL, got {base_url!r}")

    def build(tmp: Path) -> list[str]:
        warnings = render_site(snapshot, history, cfg, base, tmp, now=when, base_url=base_url,
                               banner_warnings=banner_warnings, attempt=attempt)
        if strict and warnings:
            raise CheckFailed(f"{len(warnings)} warning(s) with --strict: " + "; ".join(warnings))
        verify_or_fail(tmp)  # a site whose numbers do not rebuild is never swapped in
        return warnings

    return write_site_atomically(out, build)


@click.command("render")
@click.option("--snapshot", "snapshot_path", required=True, type=click.Path(dir_okay=False, path_type=Path),
              help="The snapshot JSON to render (e.g. snapshots/2026-10-10.json).")
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Output folder [default: site/ beside site.yml].")
@click.option("--now", default=None, help="Judge freshness at this ISO date/time (UTC) [default: the snapshot's created_at].")
@click.option("--base-url", default=None, help="Public base URL, e.g. https://user.github.io/repo/ [default: site.url].")
@click.option("--strict", is_flag=True, default=None, help="Fail (exit 1) on any warning; the previous site stays.")
@click.pass_obj
def render_cmd(obj, snapshot_path: Path, out: Path | None, now: str | None, base_url: str | None,
               strict: bool | None) -> None:
    """Render the site from one saved snapshot: no network, no refit.

    Earlier snapshots in the same folder (and in snapshots_dir) fill the archive and the
    method changelog. The output folder is swapped in whole.
    """
    from builder.lock import project_lock

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
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Output folder [default: .modelboards/preview beside site.yml].")
@click.option("--snapshot", "snapshot_path", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Snapshot to render [default: the newest in snapshots_dir].")
@click.option("--base-url", default=None, help="Base URL for canonical links [default: http://127.0.0.1:PORT/].")
@click.pass_obj
def serve_cmd(obj, port: int, out: Path | None, snapshot_path: Path | None, base_url: str | None) -> None:
    """Render and serve the site on 127.0.0.1, rebuilding when content/, templates/ or site.yml change.

    A banner on every page lists the build's warnings (for example why the live boards
    were refused).
    """
    from builder.render.site import find_dir, render_site, write_site_atomically

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
            from builder.config import load_config

            cfg, base = load_config(config_path)
            path = pick_snapshot()
            if path is not None:
                warnings = render_from_snapshot(cfg, base, path, out, now=datetime.now(timezone.utc).isoformat(),
                                                base_url=url, banner_warnings=True)
            else:
                warnings = write_site_atomically(out, lambda tmp: render_site(
                    None, [], cfg, base, tmp, now=datetime.now(timezone.utc), base_url=url, banner_warnings=True))
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
