"""Running a test HTTP server on 127.0.0.1, with the standard library alone (the real-data
build script ``tests/realsite.py`` runs without the test tools installed)."""

from __future__ import annotations

import contextlib
import http.server
import threading
from collections.abc import Iterator


@contextlib.contextmanager
def running(server: http.server.HTTPServer) -> Iterator[str]:
    """Run ``server`` (bound to 127.0.0.1) in a daemon thread for the duration of the block;
    yields its origin ``http://127.0.0.1:PORT`` and stops and closes it afterwards."""
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
