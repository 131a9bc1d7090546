"""Shared fixtures: paths to the project, its config and the real upstream data."""

from __future__ import annotations

import contextlib
import functools
import http.server
from collections.abc import Iterator
from pathlib import Path

import click
import pytest
from serving import running

import builder.sources.registry  # noqa: F401  (installs the config check of source kinds, as the CLI does)

ROOT = Path(__file__).resolve().parents[1]
SHARED_DATA = ROOT.parent / "shared" / "data"


@pytest.fixture(scope="session")
def root() -> Path:
    return ROOT


def require_shared_data() -> Path:
    """The real upstream files (``tests/realdata.py``): ``../shared/data`` beside the clone, else
    a copy downloaded from the pinned upstream URLs and checked by sha256. Neither: the test
    fails with one line saying how to get them (never a skip)."""
    from realdata import RealDataUnavailable, real_data_dir

    try:
        return real_data_dir()
    except RealDataUnavailable as exc:
        pytest.fail(str(exc), pytrace=False)


@pytest.fixture(scope="session")
def shared_data() -> Path:
    return require_shared_data()


CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]


@pytest.fixture(scope="session")
def browser():
    """One Chromium for the whole session (Playwright's sync API allows one loop per process).

    Debian's /usr/bin/chromium where it exists, else Playwright's own build
    (`python -m playwright install chromium`).
    """
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        kwargs = {"executable_path": str(CHROMIUM)} if CHROMIUM.exists() else {}
        b = pw.chromium.launch(args=CHROMIUM_ARGS, **kwargs)
        yield b
        b.close()


class QuietServer(http.server.ThreadingHTTPServer):
    """A local test server that does not print tracebacks when a browser drops a
    keep-alive connection (ConnectionResetError is how Chromium says goodbye)."""

    daemon_threads = True

    def handle_error(self, request, client_address):
        import sys

        if not isinstance(sys.exc_info()[1], (ConnectionResetError, BrokenPipeError)):
            super().handle_error(request, client_address)


class _QuietFiles(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):  # keep test output clean
        pass


@contextlib.contextmanager
def serve_directory(root: Path) -> Iterator[str]:
    """Serve ``root`` on 127.0.0.1 (any free port) for the duration; yields the origin.

    Files may be written after it starts: each request reads the folder as it is then."""
    with running(QuietServer(("127.0.0.1", 0), functools.partial(_QuietFiles, directory=str(root)))) as origin:
        yield origin


def render_cli() -> click.Group:
    """The ``render`` and ``serve`` commands under a group whose default ``--config`` is the
    test fixture's site.yml (``tests/fixtures/site.yml``)."""
    from builder.cli import Context, Group
    from builder.cli.render import render_cmd, serve_cmd

    @click.group(cls=Group)
    @click.option("--config", default=str(ROOT / "tests" / "fixtures" / "site.yml"))
    @click.pass_context
    def cli(ctx: click.Context, config: str) -> None:
        ctx.obj = Context(config, 0)

    cli.add_command(render_cmd)
    cli.add_command(serve_cmd)
    return cli


class PageWatch:
    """What a visitor's browser would complain about on one page: console errors (and
    warnings when asked), uncaught exceptions, failed requests, HTTP errors, requests to
    any other origin, and dialogs (dismissed). ``urls`` lists every request.

    A request the browser cancels because the test navigated or closed the page
    (``net::ERR_ABORTED``, e.g. a favicon still loading) is not the site's failure and is
    not counted; a missing file still shows as an HTTP error and a blocked one as
    ``ERR_BLOCKED_BY_*``.
    """

    def __init__(self, page, origin: str, *, warnings: bool = False) -> None:
        self.errors: list[str] = []
        self.dialogs: list[str] = []
        self.urls: list[str] = []
        levels = ("error", "warning") if warnings else ("error",)
        page.on("console", lambda m: self.errors.append(f"console {m.type}: {m.text}") if m.type in levels else None)
        page.on("pageerror", lambda e: self.errors.append(f"pageerror: {e}"))
        page.on("requestfailed", self._failed)
        page.on("response", lambda r: self.errors.append(f"HTTP {r.status}: {r.url}") if r.status >= 400 else None)
        page.on("request", lambda r: self._request(r, origin))
        page.on("dialog", self._dialog)

    def _failed(self, request) -> None:
        if request.failure != "net::ERR_ABORTED":
            self.errors.append(f"failed: {request.url} {request.failure}")

    def _request(self, request, origin: str) -> None:
        self.urls.append(request.url)
        if not request.url.startswith(origin + "/"):
            self.errors.append(f"foreign: {request.url}")

    def _dialog(self, dialog) -> None:
        self.dialogs.append(dialog.message)
        dialog.dismiss()


AXE = ROOT / "node_modules" / "axe-core" / "axe.min.js"
WCAG_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]


def axe_violations(page) -> list[str]:
    """WCAG 2.1 A and AA violations axe-core (from npm) finds on ``page``, one line each:
    ``rule: up to three targets``. axe is injected as a script, which the site's CSP
    forbids: open the page in a context made with ``bypass_csp=True``."""
    page.add_script_tag(path=str(AXE))
    return page.evaluate(
        "async (tags) => (await axe.run(document, {runOnly: {type: 'tag', values: tags}})).violations"
        ".map(v => v.id + ': ' + v.nodes.slice(0, 3).map(n => n.target.join(' ')).join(' | '))",
        WCAG_TAGS,
    )


@pytest.fixture(scope="session")
def bundled_site(tmp_path_factory) -> Path:
    """The site of the newest shipped snapshot (with the earlier ones as history), rendered as
    ``modelboards render`` does at its default base URL (site.url). Read-only for tests."""
    from datetime import datetime

    from builder.config import load_config
    from builder.mcp.data import read_history
    from builder.render.site import render_site
    from builder.snapshot import list_snapshots, load_snapshot

    cfg, base = load_config(ROOT / "site.yml")
    newest = list_snapshots(ROOT / "snapshots")[-1]
    snapshot = load_snapshot(newest)
    history = read_history([newest.parent], snapshot.date, newest)
    out = tmp_path_factory.mktemp("bundled") / "site"
    render_site(snapshot, history, cfg, base, out, now=datetime.fromisoformat(snapshot.created_at))
    return out


@pytest.fixture(scope="session")
def real_site(tmp_path_factory, shared_data):
    """ONE live build of the real upstream files per test session (``tests/realsite.py``): the
    files of ``../shared/data`` served from 127.0.0.1 as their hosts publish them, a
    ``demo: false`` site.yml pointed there, ``modelboards build --live`` in a child process.
    Returns a ``RealSite`` (``site`` folder, ``snapshot`` path, ``config``, build ``output``).
    About a minute of building on two cores, shared by every test that reads it; read-only."""
    from realsite import build_real_site

    try:
        return build_real_site(shared_data, tmp_path_factory.mktemp("realsite"))
    except RuntimeError as exc:
        pytest.fail(str(exc), pytrace=False)
