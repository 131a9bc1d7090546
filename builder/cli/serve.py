"""``modelboards serve``: a local preview of the site, rebuilt when its sources change.

    serve [--port N] [--out DIR] [--snapshot FILE]
        renders the newest snapshot, serves it on 127.0.0.1, and rebuilds when content/,
        templates/ or site.yml change; every page shows the build's warnings in a banner.

Kept apart from ``render`` so that a render never imports the HTTP server.
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
from typing import Any

import click

from builder.cli.context import Context, pass_ctx
from builder.cli.options import base_url_option, out_option
from builder.cli.render import _snapshot_files, render_from_snapshot
from builder.errors import CheckFailed, UserError


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
