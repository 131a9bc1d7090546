"""``modelboards render`` and ``modelboards serve``: the site from saved snapshots only.

    render --snapshot FILE [--out DIR] [--now ISO] [--base-url URL]
        no network, no refit; "now" defaults to the snapshot's own created_at, so an old
        snapshot re-renders that day's pages byte for byte.
    serve [--port N] [--out DIR] [--snapshot FILE]
        renders the newest snapshot, serves it on 127.0.0.1, and rebuilds when content/,
        templates/ or site.yml change; every page shows the build's warnings in a banner.
"""

from __future__ import annotations

import errno
import functools
import http.server
import os
import stat
import sys
import threading
import time
import urllib.parse
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from builder.cli.context import Context, pass_ctx
from builder.cli.options import base_url_option, now_option, out_option, strict_option
from builder.errors import CheckFailed, UserError
from builder.util.gc import gc_paused
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
                         strict: bool = False) -> list[str]:
    """Load ``snapshot_path`` and its earlier snapshots, render into ``out`` atomically.

    With ``strict``, any warning raises ``CheckFailed`` before the swap (the old site stays).
    """
    from builder.pipeline import render_verified
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

    def pages(tmp: Path, after_page: Callable[[str], None]) -> list[str]:
        warnings = render_site(snapshot, history, cfg, base, tmp, now=when, base_url=base_url,
                               banner_warnings=banner_warnings, attempt=attempt, change_log=change_log(cfg),
                               after=after_page)
        if strict and warnings:
            raise CheckFailed(f"{len(warnings)} warning(s) with --strict: " + "; ".join(warnings))
        return warnings

    # a site whose numbers do not rebuild is never swapped in; the verify runs beside the later pages
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

    cfg, base = obj.load()
    out = out or base / "site"
    check_out(cfg, base, out)  # before the lock: a refused folder is one line, nothing touched
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


LOCAL_HOSTS = frozenset({"127.0.0.1", "localhost", "[::1]", "::1"})
"Host names a request to the preview may carry (with any port); others are refused (DNS rebinding)."


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    """Serves the preview folder only: a request naming another host is refused (421), a path
    with a NUL or outside the folder (``..``, a symbolic link pointing out) is 400 or 404, and
    only regular files are read (never a FIFO or a device)."""

    allowed_hosts: frozenset[str] = LOCAL_HOSTS

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def _host_ok(self) -> bool:
        host = (self.headers.get("Host") or "").strip().lower()
        if host.startswith("["):
            name = host[: host.find("]") + 1] if "]" in host else host
        else:
            name = host.rsplit(":", 1)[0] if ":" in host else host
        return name in self.allowed_hosts

    def send_head(self):  # noqa: ANN201 (the base class's signature)
        if not self._host_ok():
            self.send_error(421, "Misdirected Request: unknown Host")
            return None
        raw = urllib.parse.unquote(self.path.split("?", 1)[0].split("#", 1)[0])
        if "\x00" in raw or "\\" in raw:
            self.send_error(400, "Bad path")
            return None
        root = os.path.realpath(self.directory)
        path = os.path.realpath(self.translate_path(self.path))
        if path != root and not path.startswith(root + os.sep):  # a link out of the site
            self.send_error(404, "File not found")
            return None
        if os.path.isdir(path) and os.path.lexists(os.path.join(path, "index.html")):
            path = os.path.realpath(os.path.join(path, "index.html"))  # what the folder's URL would read
            if not path.startswith(root + os.sep):
                self.send_error(404, "File not found")
                return None
        if os.path.exists(path) and not os.path.isdir(path) and not stat.S_ISREG(os.stat(path).st_mode):
            self.send_error(404, "File not found")  # a FIFO or a device is never opened
            return None
        return super().send_head()


class _PreviewServer(http.server.ThreadingHTTPServer):
    """The preview's HTTP server: a deep listen queue (a browser opens many connections at
    once) and a client that goes away mid-answer is not an error worth a traceback."""

    request_queue_size = 512
    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        exc = sys.exc_info()[1]
        if isinstance(exc, (ConnectionError, TimeoutError)):
            return
        click.echo(f"serve: request from {client_address[0]} failed: {type(exc).__name__}: {exc}", err=True)


def bind_preview(port: int, handler: Any) -> _PreviewServer:
    """The preview server bound to 127.0.0.1:``port``; a busy port is one ``UserError`` line."""
    try:
        return _PreviewServer(("127.0.0.1", port), handler)
    except OSError as exc:
        if exc.errno == errno.EADDRINUSE:
            raise UserError(f"port {port} on 127.0.0.1 is in use: stop what holds it or pass --port "
                            "(0 picks a free one)") from None
        raise UserError(f"cannot listen on 127.0.0.1:{port}: {exc.strerror or exc}") from None


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
    from builder.pipeline import check_out
    from builder.render.site import render_site, write_site_atomically
    from builder.util.dirs import layered_dirs

    cfg, base = obj.load()
    config_path = Path(obj.config_path).resolve()
    out = check_out(cfg, base, out or base / ".modelboards" / "preview")
    hosts = LOCAL_HOSTS | ({urllib.parse.urlsplit(base_url).hostname or ""} - {""} if base_url else set())
    handler_cls = type("PreviewHandler", (_QuietHandler,), {"allowed_hosts": frozenset(hosts)})
    handler = functools.partial(handler_cls, directory=str(out))
    server = bind_preview(port, handler)  # bind first: --port 0 picks one
    url = base_url or f"http://127.0.0.1:{server.server_address[1]}/"

    def pick_snapshot() -> Path | None:
        if snapshot_path is not None:
            return snapshot_path
        snaps_dir = Path(cfg.snapshots_dir)
        files = _snapshot_files(snaps_dir if snaps_dir.is_absolute() else base / snaps_dir)
        return files[-1] if files else None

    def rebuild() -> None:
        nonlocal cfg, base
        from builder.util.lock import project_lock

        try:
            import builder.sources.registry  # noqa: F401  (installs the check of source kinds)
            from builder.config import load_config

            cfg, base = load_config(config_path)
            with project_lock(base, cfg.fetch.lock_timeout):  # never beside a build writing the same files
                path = pick_snapshot()
                if path is not None:
                    warnings = render_from_snapshot(cfg, base, path, out, now=datetime.now(UTC).isoformat(),
                                                    base_url=url, banner_warnings=True)
                else:
                    warnings = write_site_atomically(out, lambda tmp: render_site(
                        None, [], cfg, base, tmp, now=datetime.now(UTC), base_url=url, banner_warnings=True))
        except (UserError, CheckFailed) as exc:
            click.echo(f"error: {exc} (the previous preview stays)", err=True)
            return
        except OSError as exc:
            from builder.cli.context import os_error_line

            click.echo(f"error: {os_error_line(exc)} (the previous preview stays)", err=True)
            return
        stamp = time.strftime("%H:%M:%S")
        click.echo(f"[{stamp}] rebuilt {out} ({len(warnings)} warning(s))")
        for w in warnings:
            click.echo(f"  warning: {w}", err=True)

    rebuild()
    stop = threading.Event()
    # the site's own folders even before they exist, then the package's (per-file overrides)
    watched = [base / "content", base / "templates", *layered_dirs(None, "content"),
               *layered_dirs(None, "templates"), config_path]
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
