"""The Arena page's two views in a real browser (Playwright + Chromium, served on 127.0.0.1):
both tables without JavaScript; with it one view at a time, the choice kept in ``?view=``,
the default from ``site.yml``'s ``arena.default_view``; no console error, no other origin,
axe-core finds nothing at WCAG 2.1 A/AA in either view."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest
from conftest import PageWatch, axe_context, axe_violations, serve_directory
from fixtures.make_snapshot import attach_arena
from test_charts import _history

from builder.config import ArenaConfig, load_config
from builder.pairwise.arena import compute_arena_section
from builder.render.site import render_site
from builder.snapshot import validate_snapshot

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[1]
DEMO = ROOT / "builder" / "data" / "demo" / "battles" / "clean_battle_demo.jsonl"
NOW = datetime(2026, 11, 30, 12, tzinfo=UTC)


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    www = tmp_path_factory.mktemp("arena-style-www")
    cfg, _ = load_config(ROOT / "tests" / "fixtures" / "site.yml")
    snaps = _history(2)
    arena = compute_arena_section(DEMO, ArenaConfig(bootstrap=20, history="month", default_view="style"))
    assert arena.style is not None and arena.style.models and arena.default_view == "style"
    attach_arena(snaps[-1], arena.model_dump(mode="json"))
    with serve_directory(www) as origin:
        typed = [validate_snapshot(s) for s in snaps]
        render_site(typed[-1], typed[:-1], cfg, ROOT, www / "s", now=NOW, base_url=f"{origin}/s/")
        yield origin, snaps[-1]["arena"]


def test_two_tables_without_javascript(browser, site):
    origin, arena = site
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    errors = PageWatch(page, origin).errors
    page.goto(f"{origin}/s/arena/")
    assert page.locator("#arena-table tbody tr").count() == len(arena["models"])
    assert page.locator("#style-table tbody tr").count() == len(arena["style"]["models"])
    assert page.locator("#view-plain").is_visible() and page.locator("#view-style").is_visible()
    words = page.locator(".style-words li").all_inner_texts()
    assert len(words) == 4 and "longer than its opponent's wins as if it were" in words[0]
    row = arena["style"]["models"][0]
    cells = page.locator(f'#style-table tr[data-model="{row["model"]}"] td').all_inner_texts()
    assert cells[0] == str(row["rank"]) and f"{row['rating']:.1f}" in cells[3]
    context.close()
    assert errors == []


def test_view_switch_keeps_its_state_in_the_url(browser, site):
    origin, _ = site
    context = axe_context(browser)
    page = context.new_page()
    errors = PageWatch(page, origin).errors
    page.goto(f"{origin}/s/arena/")
    page.wait_for_load_state("load")
    assert page.locator("#view-style").is_visible() and not page.locator("#view-plain").is_visible()  # default: style
    assert axe_violations(page) == []
    page.click('.view-switch a[data-view="plain"]')
    assert "view=plain" in page.url
    assert page.locator("#view-plain").is_visible() and not page.locator("#view-style").is_visible()
    assert axe_violations(page) == []
    page.goto(f"{origin}/s/arena/?view=plain")
    assert page.locator("#view-plain").is_visible() and not page.locator("#view-style").is_visible()
    assert page.locator('.view-switch a[data-view="plain"]').get_attribute("aria-current") == "true"
    context.close()
    assert errors == []
