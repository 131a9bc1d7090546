"""Shared fixtures: paths to the project, its config and the real upstream data."""

from __future__ import annotations

import contextlib
import functools
import http.server
import json
import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import click
import pytest
from serving import running

import builder.sources.registry  # noqa: F401  (installs the config check of source kinds, as the CLI does)

ROOT = Path(__file__).resolve().parents[1]
SHARED_DATA = ROOT.parent / "shared" / "data"


LIGHT_ARENA = {"history_bootstrap": 0, "style_control": False, "flip_top": 0}
"""site.yml ``arena`` settings for a test build whose subject is not the Arena's fit: no
per-slice history intervals, style-controlled view nor flip budgets (about 2 CPU s of a demo
build; ``tests/test_arena_*`` test them)."""


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
    from builder.cli.render import render_cmd
    from builder.cli.serve import serve_cmd

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


def axe_context(browser, **options):
    """A browser context for axe checks (``options`` as ``new_context`` takes them): the site's
    CSP bypassed, since axe is a script the CSP rightly forbids, and axe-core registered once
    as an init script, so every page the context opens has it without its 500 kB being sent
    and compiled again for each (about 0.15 s a page)."""
    context = browser.new_context(bypass_csp=True, **options)
    context.add_init_script(path=str(AXE))
    return context


def axe_violations(page) -> list[str]:
    """WCAG 2.1 A and AA violations axe-core (from npm) finds on ``page``, one line each:
    ``rule: up to three targets``. axe is a script, which the site's CSP forbids: open the page
    in an ``axe_context`` (or any context made with ``bypass_csp=True``, where axe is injected
    here). axe lists every node only for the violations (``resultTypes``): the passes, which
    nothing reads, it counts by rule; the same rules run on the same nodes."""
    if not page.evaluate("() => typeof window.axe === 'object'"):
        page.add_script_tag(path=str(AXE))
    return page.evaluate(
        "async (tags) => (await axe.run(document, {runOnly: {type: 'tag', values: tags}, resultTypes: ['violations']}))"
        ".violations"
        ".map(v => v.id + ': ' + v.nodes.slice(0, 3).map(n => n.target.join(' ')).join(' | '))",
        WCAG_TAGS,
    )


def once_per_session(tmp_path_factory: pytest.TempPathFactory, name: str, make: Callable[[Path], Any]) -> Any:
    """``make(folder)`` run once per test session, its result (JSON) shared by every xdist worker.

    Each xdist worker is a session of its own (session fixtures run once per worker); the
    workers' temporary folders share the session's folder (``getbasetemp().parent``), where
    the first worker to get here builds under a file lock and the others read what it left.
    A failure is kept too: every worker then fails with the same line, without building again.
    Whatever ``make`` writes into ``folder`` is read-only for tests (they copy it to change it)."""
    from filelock import FileLock

    root = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        root = root.parent
    done = root / f"shared-{name}.json"
    with FileLock(str(root / f"shared-{name}.lock")):
        if not done.is_file():
            folder = root / f"shared-{name}"
            folder.mkdir()
            try:
                result = {"value": make(folder)}
            except Exception as exc:  # reported to every worker below
                result = {"error": f"{name}: {type(exc).__name__}: {exc}"}
            done.write_text(json.dumps(result), encoding="utf-8")
    result = json.loads(done.read_text(encoding="utf-8"))
    if "error" in result:
        pytest.fail(result["error"], pytrace=False)
    return result["value"]


@pytest.fixture(scope="session")
def bundled_site(tmp_path_factory) -> Path:
    """The site of the newest shipped snapshot (with the earlier ones as history), rendered as
    ``modelboards render`` does at its default base URL (site.url). Read-only for tests; one
    render per test session (``once_per_session``)."""

    def make(folder: Path) -> str:
        from builder.config import load_config
        from builder.mcp.data import read_history
        from builder.render.site import render_site
        from builder.snapshot import list_snapshots, load_snapshot

        cfg, base = load_config(ROOT / "site.yml")
        newest = list_snapshots(ROOT / "snapshots")[-1]
        snapshot = load_snapshot(newest)
        history = read_history([newest.parent], snapshot.date, newest)
        render_site(snapshot, history, cfg, base, folder / "site", now=datetime.fromisoformat(snapshot.created_at))
        return str(folder / "site")

    return Path(once_per_session(tmp_path_factory, "bundled-site", make))


DEMO_NOW = datetime(2026, 11, 30, 12, tzinfo=UTC)
DEMO_BASE_URL = "https://example.org/mb/"


@dataclass(frozen=True)
class DemoBuild:
    """The shared build of the bundled demo (``demo_build``): its site, snapshot, store, config."""

    site: Path
    snapshot: Path  # the day's snapshot (no earlier snapshots were there)
    store: Path  # the payload store it fetched into (offline, the bundled payloads)
    now: datetime = DEMO_NOW
    base_url: str = DEMO_BASE_URL

    def config(self) -> tuple[Any, Path]:
        """(cfg, base) of the build: the shipped site.yml with the store moved to ``store``."""
        from builder.config import load_config

        cfg, base = load_config(ROOT / "site.yml")
        return cfg.model_copy(update={"fetch": cfg.fetch.model_copy(update={"store": str(self.store)})}), base


@pytest.fixture(scope="session")
def demo_build(tmp_path_factory) -> DemoBuild:
    """ONE full build of the bundled demo per test session (``builder.pipeline.build`` on the
    shipped site.yml, offline, at ``DEMO_NOW`` for ``DEMO_BASE_URL``, no earlier snapshots),
    shared by every worker (``once_per_session``). Read-only: a test that edits copies."""

    def make(folder: Path) -> dict[str, str]:
        from builder.pipeline import build

        built = DemoBuild(site=folder / "site", snapshot=folder / "snapshots" / f"{DEMO_NOW.date()}.json",
                          store=folder / "store")
        cfg, base = built.config()
        build(cfg, base, out=built.site, now=DEMO_NOW, snapshots_dir=built.snapshot.parent, base_url=DEMO_BASE_URL)
        assert built.snapshot.is_file(), f"the demo build wrote no {built.snapshot.name}"
        return {"site": str(built.site), "snapshot": str(built.snapshot), "store": str(built.store)}

    paths = once_per_session(tmp_path_factory, "demo-build", make)
    return DemoBuild(**{k: Path(v) for k, v in paths.items()})


@pytest.fixture(scope="session")
def real_site(tmp_path_factory, shared_data):
    """ONE live build of the real upstream files per test session (``tests/realsite.py``): the
    files of ``../shared/data`` served from 127.0.0.1 as their hosts publish them, a
    ``demo: false`` site.yml pointed there, ``modelboards build --live`` in a child process,
    shared by every xdist worker (``once_per_session``).
    Returns a ``RealSite`` (``site`` folder, ``snapshot`` path, ``config``, build ``output``).
    About a minute of building on two cores, shared by every test that reads it; read-only."""
    from realsite import RealSite, build_real_site

    def make(folder: Path) -> dict[str, str]:
        built = build_real_site(shared_data, folder)
        return {k: str(v) for k, v in vars(built).items()}

    fields = once_per_session(tmp_path_factory, "real-site", make)  # one build per session, not per worker
    return RealSite(**{k: (v if k == "output" else Path(v)) for k, v in fields.items()})


@pytest.fixture(scope="session")
def real_snapshot(real_site):
    """The real-data build's snapshot, loaded once per worker (read-only)."""
    from builder.snapshot import load_snapshot

    return load_snapshot(real_site.snapshot)
