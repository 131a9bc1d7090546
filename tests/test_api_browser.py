"""The "API and MCP" page in a real browser (Playwright + Chromium) on the site of the newest
shipped snapshot: it loads cleanly, passes axe (WCAG 2.1 A/AA, light and dark), fits a phone,
and its endpoint links open the API files, whose board rows equal the board download's."""

from __future__ import annotations

import pytest
from conftest import PageWatch, axe_context, axe_violations, serve_directory

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def origin(bundled_site):
    with serve_directory(bundled_site) as o:
        yield o


def test_api_page_loads_cleanly_and_its_links_open_the_api(browser, origin):
    context = browser.new_context()
    try:
        page = context.new_page()
        watch = PageWatch(page, origin)
        resp = page.goto(f"{origin}/api/", wait_until="load")
        assert resp is not None and resp.status == 200
        assert page.locator("h1").inner_text() == "API and MCP server"
        assert page.locator("h3#tool-get_board").count() == 1
        assert page.locator("footer a", has_text="API and MCP server").get_attribute("href") == "../api/"
        same = page.evaluate("""async () => {
            const canon = v => Array.isArray(v) ? v.map(canon) : (v && typeof v === 'object')
                ? Object.fromEntries(Object.keys(v).sort().map(k => [k, canon(v[k])])) : v;
            const a = await (await fetch('../api/v1/boards/orchestrator.json')).json();
            const d = await (await fetch('../data/boards/orchestrator.json')).json();
            return JSON.stringify(canon(a.rows)) === JSON.stringify(canon(d.rows)) && a.rows.length > 0;
        }""")
        assert same is True
        assert watch.errors == []
        # the link opens the file (a JSON document has no favicon link: the browser's own
        # /favicon.ico request after this navigation is not the page's)
        with page.expect_navigation() as nav:
            page.get_by_role("link", name="api/v1/index.json").click()
        assert nav.value is not None and nav.value.status == 200
        assert page.evaluate("JSON.parse(document.body.innerText).api_version") == "v1"
    finally:
        context.close()


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_api_page_passes_axe(browser, origin, scheme):
    context = axe_context(browser, color_scheme=scheme)
    try:
        page = context.new_page()
        page.goto(f"{origin}/api/", wait_until="load")
        assert axe_violations(page) == []
    finally:
        context.close()


def test_api_page_fits_a_phone(browser, origin):
    context = browser.new_context(viewport={"width": 360, "height": 740}, is_mobile=True)
    try:
        page = context.new_page()
        page.goto(f"{origin}/api/", wait_until="load")
        assert page.evaluate("document.documentElement.scrollWidth") <= 360
    finally:
        context.close()
