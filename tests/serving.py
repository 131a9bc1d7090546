"""Running a test HTTP server on 127.0.0.1, with the standard library alone (the real-data
build script ``tests/realsite.py`` runs without the test tools installed)."""

from __future__ import annotations

import contextlib
import http.server
import socketserver
import threading
from collections.abc import Iterator

POLL_INTERVAL = 0.02
"""Seconds between a test server's checks for ``shutdown()``: the standard library's 0.5 s
would add up to half a second of waiting to every test that stops a server."""


def serve_in_background(server: socketserver.BaseServer) -> None:
    """Run ``server``'s loop in a daemon thread (stopped by ``server.shutdown()``)."""
    threading.Thread(target=server.serve_forever, kwargs={"poll_interval": POLL_INTERVAL}, daemon=True).start()


@contextlib.contextmanager
def running(server: http.server.HTTPServer) -> Iterator[str]:
    """Run ``server`` (bound to 127.0.0.1) in a daemon thread for the duration of the block;
    yields its origin ``http://127.0.0.1:PORT`` and stops and closes it afterwards."""
    serve_in_background(server)
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
