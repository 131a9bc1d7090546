"""The bundled demo build, as a visitor sees it: every page in its sitemap loads in Chromium
with no console error, no failed request and no request to another origin, and one page of
every section passes axe-core at WCAG 2 A and AA. New sections are covered automatically."""

from __future__ import annotations

import re
import shutil
from datetime import UTC, datetime
from pathlib import Path

import pytest
from conftest import PageWatch, axe_context, axe_violations, serve_directory

from builder.config import load_config
from builder.pipeline import build

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[1]
NOW = datetime(2026, 11, 30, 12, tzinfo=UTC)


@pytest.fixture(scope="module")
def demo_site(tmp_path_factory):
    """(origin, [page paths]) of the bundled build served under /mb/ on 127.0.0.1."""
    www = tmp_path_factory.mktemp("demo-www")
    with serve_directory(www) as origin:
        yield origin, _build_demo(www, origin)


def _build_demo(www, origin: str) -> list[str]:
    """Build the bundled demo under www/mb for ``origin``; return its sitemap's page paths."""
    cfg, base = load_config(ROOT / "site.yml")
    cfg = cfg.model_copy(update={"fetch": cfg.fetch.model_copy(update={"store": str(www.parent / "store")})})
    snaps = www.parent / "snapshots"  # a copy: tests never write to the repository's snapshots
    snaps.mkdir()
    for old in sorted((ROOT / "snapshots").glob("*.json")):
        if old.stem < NOW.date().isoformat():
            shutil.copy(old, snaps / old.name)
    build(cfg, base, out=www / "mb", base_url=f"{origin}/mb/", now=NOW, snapshots_dir=snaps)
    sitemap = (www / "mb" / "sitemap.xml").read_text()
    return sorted({u.removeprefix(f"{origin}/mb/") for u in re.findall(r"<loc>([^<]+)</loc>", sitemap)})


def _sample(pages: list[str]) -> list[str]:
    """Every page, except that only the first two model pages and archived days are kept."""
    keep, seen = [], {}
    for p in pages:
        head = p.split("/", 1)[0]
        if head in ("models", "archive") and p.count("/") > 1:
            seen[head] = seen.get(head, 0) + 1
            if seen[head] > 2:
                continue
        keep.append(p)
    return keep


def test_sections_are_in_the_sitemap(demo_site):
    _, pages = demo_site
    for section in ("", "boards/orchestrator/", "capability-index/", "evidence/", "methodology/", "api/"):
        assert section in pages, section


def test_every_page_loads_cleanly(browser, demo_site):
    origin, pages = demo_site
    context = browser.new_context()
    try:
        p = context.new_page()  # one tab for every page, as a reader browses (a new tab costs about 0.3 s)
        errors = PageWatch(p, origin).errors
        for path in _sample(pages):
            resp = p.goto(f"{origin}/mb/{path}", wait_until="load")
            assert resp is not None and resp.status == 200, path
            p.wait_for_timeout(50)  # let deferred scripts run
            assert p.locator("h1").count() == 1, path
            assert errors == [], (path, errors)
    finally:
        context.close()


def test_no_page_scrolls_sideways_on_a_phone(browser, demo_site):
    """At 360 CSS pixels wide tables scroll inside their own box; the page itself never
    does (a visually hidden label inside a wide table once widened the Arena page to 960)."""
    origin, pages = demo_site
    context = browser.new_context(viewport={"width": 360, "height": 740}, is_mobile=True)
    wide = {}
    try:
        p = context.new_page()
        for path in _sample(pages):
            p.goto(f"{origin}/mb/{path}", wait_until="load")
            p.wait_for_timeout(50)  # deferred scripts draw the charts
            width = p.evaluate("document.documentElement.scrollWidth")
            if width > 360:
                wide[path] = width
    finally:
        context.close()
    assert wide == {}


def test_axe_on_one_page_per_section(browser, demo_site):
    origin, pages = demo_site
    firsts: dict[str, str] = {}
    for p in _sample(pages):
        firsts.setdefault(p.split("/", 1)[0], p)
    context = axe_context(browser)
    failures = {}
    try:
        p = context.new_page()
        for path in firsts.values():
            p.goto(f"{origin}/mb/{path}", wait_until="load")
            result = axe_violations(p)
            if result:
                failures[path] = result
    finally:
        context.close()
    assert failures == {}
