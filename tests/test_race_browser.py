"""The ranking race in a real browser (Playwright + Chromium), sites served on 127.0.0.1.

Three sites are rendered by ``render_site``: six dated snapshots with an Arena history, a
single snapshot (one frame) and two hundred snapshots. Play advances the date and reorders
the bars, pause stops them, the scrubber jumps, reduced motion shows the table without
animation, the board selector and the table toggle work from the keyboard; no page logs a
console error or asks another origin for anything.
"""

from __future__ import annotations

import json
import time
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

import pytest
from conftest import PageWatch, axe_context, axe_violations, serve_directory
from fixtures.make_snapshot import attach_arena, make_snapshot

from builder.config import ArenaConfig, load_config
from builder.pairwise.arena import compute_arena_section
from builder.render.site import render_site
from builder.snapshot import validate_snapshot

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "tests" / "fixtures"
BATTLES = ROOT / "builder" / "data" / "demo" / "battles" / "clean_battle_demo.jsonl"
NOW = datetime(2026, 11, 30, 12, tzinfo=UTC)


def _history(n: int, last: date, models: int = 20) -> list[dict]:
    snaps, prev = [], None
    for k in range(n):
        day = (last - timedelta(days=n - 1 - k)).isoformat()
        prev = make_snapshot(models, seed=100 + k, day=day, previous=prev)
        snaps.append(prev)
    return snaps


@pytest.fixture(scope="session")
def sites(tmp_path_factory):
    """origin of a server holding /multi/ (6 dates + Arena), /one/ (1 date), /many/ (200 dates)."""
    root = tmp_path_factory.mktemp("race-www")
    cfg, _ = load_config(FIXTURES / "site.yml")
    multi = _history(6, NOW.date())
    attach_arena(multi[-1], compute_arena_section(BATTLES, ArenaConfig(bootstrap=10, history="month"))
                 .model_dump(mode="json"))
    many = _history(200, NOW.date())
    with serve_directory(root) as origin:
        for name, snaps in (("multi", multi), ("one", multi[-1:]), ("many", many)):
            typed = [validate_snapshot(s) for s in snaps]
            render_site(typed[-1], typed[:-1], cfg, ROOT, root / name, now=NOW, base_url=f"{origin}/{name}/")
        yield origin, root



@pytest.fixture
def open_race(browser, sites):
    """open_race(site, reduced=False, query="") -> (page, watch); errors are checked after the test."""
    origin, _ = sites
    opened = []

    def _open(site: str, reduced: bool = False, query: str = ""):
        context = browser.new_context(viewport={"width": 1100, "height": 900})
        page = context.new_page()
        if reduced:
            page.emulate_media(reduced_motion="reduce")
        watch = PageWatch(page, origin)
        page.goto(f"{origin}/{site}/race/{query}")
        page.wait_for_function("() => document.getElementById('race').hasAttribute('data-frame')")
        opened.append((context, watch))
        return page, watch

    yield _open
    for context, watch in opened:
        context.close()
        assert watch.errors == []


def _frames(sites, site: str, board: str = "orchestrator") -> list[dict]:
    _, root = sites
    if board == "arena":
        return json.loads((root / site / "data/race/arena.json").read_text(encoding="utf-8"))["frames"]
    doc = json.loads((root / site / "data/race/boards.json").read_text(encoding="utf-8"))
    return next(b for b in doc["boards"] if b["id"] == board)["frames"]


def _state(page) -> str:
    return page.get_attribute("#race", "data-state")


def _date(page) -> str:
    return page.text_content("#race-date").strip()


def _order(page) -> list[str]:
    """Identities of the bars shown, top first."""
    return page.eval_on_selector_all(
        "#race-chart g.bar:not([data-leaving])",
        "els => els.map(e => [e.getAttribute('data-id'), +e.getAttribute('data-rank')])"
        ".sort((a, b) => a[1] - b[1]).map(x => x[0])")


def _transforms(page) -> list[str]:
    return page.eval_on_selector_all("#race-chart g.bar", "els => els.map(e => e.getAttribute('transform'))")


def test_play_advances_the_date_and_reorders_bars(open_race, sites):
    frames = _frames(sites, "multi")
    page, watch = open_race("multi")
    page.wait_for_function("() => document.getElementById('race').dataset.state === 'playing'")  # starts by itself
    page.click("#race-reset")
    assert _state(page) == "paused" and _date(page) == frames[0]["date"]
    first = _order(page)
    assert first == [m["identity"] for m in frames[0]["models"][:12]]
    page.select_option("#race-speed", "8")
    page.click("#race-play")
    assert _state(page) == "playing"
    page.wait_for_function("() => +document.getElementById('race').dataset.frame >= 3", timeout=15000)
    page.click("#race-pause")
    shown = int(page.get_attribute("#race", "data-frame"))
    assert shown >= 3 and _date(page) == frames[shown]["date"] > frames[0]["date"]
    assert _order(page) != first
    # D3 came from this site, not a CDN
    assert any(u.endswith("/multi/static/vendor/d3.min.js") for u in watch.urls)


def test_pause_stops_the_race(open_race):
    page, _ = open_race("multi")
    page.select_option("#race-speed", "4")
    page.wait_for_function("() => document.getElementById('race').dataset.state === 'playing'")
    page.wait_for_function("() => +document.getElementById('race').dataset.frame >= 1", timeout=10000)
    page.focus("#race-pause")
    page.keyboard.press("Enter")
    assert _state(page) == "paused"
    date_then, bars_then, frame_then = _date(page), _transforms(page), page.get_attribute("#race", "data-frame")
    time.sleep(1.0)  # sixteen steps at 4x
    now = (_date(page), _transforms(page), page.get_attribute("#race", "data-frame"))
    assert now == (date_then, bars_then, frame_then)
    assert page.is_enabled("#race-play") and not page.is_enabled("#race-pause")


def test_scrubber_jumps_to_any_date(open_race, sites):
    frames = _frames(sites, "multi")
    page, _ = open_race("multi")
    page.focus("#race-scrub")
    page.keyboard.press("End")
    assert _state(page) == "paused" and _date(page) == frames[-1]["date"]
    assert _order(page) == [m["identity"] for m in frames[-1]["models"][:12]]
    page.keyboard.press("Home")
    assert _date(page) == frames[0]["date"]
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    assert _date(page) == frames[2]["date"]
    assert page.get_attribute("#race-scrub", "aria-valuetext").startswith(frames[2]["date"])
    assert _order(page) == [m["identity"] for m in frames[2]["models"][:12]]


def test_reduced_motion_shows_the_table_and_does_not_animate(open_race, sites):
    frames = _frames(sites, "multi")
    page, _ = open_race("multi", reduced=True)
    assert _state(page) == "paused" and _date(page) == frames[-1]["date"]
    assert page.is_visible("#race-table") and page.get_attribute("#race-table-toggle", "aria-pressed") == "true"
    rows = page.eval_on_selector_all("#race-table tbody tr", "rs => rs.map(r => r.cells[1].textContent)")
    assert rows == [m["name"] for m in frames[-1]["models"]]
    bars = _transforms(page)
    time.sleep(1.5)
    assert _date(page) == frames[-1]["date"] and _transforms(page) == bars and _state(page) == "paused"
    assert page.evaluate("document.getAnimations().length") == 0


def test_board_selector_arena_and_table_toggle(open_race, sites):
    arena = _frames(sites, "multi", "arena")
    assert len(arena) >= 3
    page, _ = open_race("multi")
    page.click("#race-pause")
    page.select_option("#race-board", "arena")
    page.wait_for_function("() => document.getElementById('race-board-title').textContent.startsWith('Arena')")
    assert _date(page) in {f["date"] for f in arena}
    assert "board=arena" in page.url
    assert not page.is_visible("#race-table")
    page.focus("#race-table-toggle")
    page.keyboard.press("Enter")
    assert page.is_visible("#race-table") and page.get_attribute("#race-table-toggle", "aria-pressed") == "true"
    shown = next(f for f in arena if f["date"] == _date(page))
    assert page.locator("#race-table tbody tr").count() == len(shown["models"])
    page.select_option("#race-top", "5")
    assert len(_order(page)) == 5
    # each Arena bar's label carries the model's battles so far, as "rating (N matches)"
    assert all("matches" in m for m in shown["models"])
    page.wait_for_function("() => [...document.querySelectorAll('#race-chart g.bar:not([data-leaving]) text.value')]"
                           ".every(t => / \\(\\d+ matches\\)$/.test(t.textContent))")
    labels = page.eval_on_selector_all("#race-chart g.bar:not([data-leaving]) text.value",
                                       "ts => ts.map(t => t.textContent)")
    want = {f"{m['score']} ({m['matches']} matches)" for m in shown["models"]}
    assert labels and set(labels) <= want, labels


def test_one_frame(open_race, sites):
    frames = _frames(sites, "one")
    assert len(frames) == 1
    page, _ = open_race("one")
    time.sleep(0.8)
    assert _state(page) == "paused" and _date(page) == frames[0]["date"]
    assert not page.is_enabled("#race-play") and not page.is_enabled("#race-scrub")
    assert _order(page) == [m["identity"] for m in frames[0]["models"][:12]]
    assert "one date" in page.text_content("#race-note")


def test_two_hundred_frames(open_race, sites):
    frames = _frames(sites, "many")
    assert len(frames) == 200
    page, _ = open_race("many", query="?board=orchestrator")
    page.click("#race-pause")
    assert page.get_attribute("#race-scrub", "max") == "199"
    page.focus("#race-scrub")
    page.keyboard.press("End")
    assert _date(page) == frames[-1]["date"]
    page.keyboard.press("PageDown")  # a larger step back
    back = int(page.get_attribute("#race", "data-frame"))
    assert back < 199 and _date(page) == frames[back]["date"]
    page.click("#race-reset")
    page.select_option("#race-speed", "8")
    page.click("#race-play")
    page.wait_for_function("() => +document.getElementById('race').dataset.frame >= 2", timeout=10000)
    page.click("#race-pause")


def test_axe_finds_no_wcag_a_or_aa_violations(browser, sites):
    origin, _ = sites
    context = axe_context(browser)
    try:
        page = context.new_page()
        page.emulate_media(reduced_motion="reduce")  # table and chart both on screen
        page.goto(f"{origin}/multi/race/")
        page.wait_for_function("() => document.getElementById('race').hasAttribute('data-frame')")
        found = axe_violations(page)
        assert found == []
    finally:
        context.close()
