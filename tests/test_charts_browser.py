"""The chart pages in a real browser (Playwright + Chromium), the site served on 127.0.0.1.

One site is rendered by ``render_site`` from five weekly snapshots with a hand-made Arena
section. Each chart draws one mark per data point (counted against the JSON it loaded) on
every board of its selector, tooltips follow the mouse and the keyboard, the history page
adds and removes lines, dark mode swaps the palette, no page logs a console error or asks
another origin for anything; with JavaScript off the build-time SVG and tables are there;
axe-core finds nothing at WCAG 2 A/AA.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest
from conftest import PageWatch, axe_context, axe_violations, serve_directory
from test_charts import _arena, _history

from builder.config import load_config
from builder.render.site import render_site
from builder.snapshot import validate_snapshot

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "tests" / "fixtures"
NOW = datetime(2026, 11, 30, 12, tzinfo=UTC)
KINDS = ("price-quality", "history", "ranks", "spread")


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """(origin, site folder) of the chart site served under /s/."""
    www = tmp_path_factory.mktemp("charts-www")
    cfg, _ = load_config(FIXTURES / "site.yml")
    snaps = _history(5)
    snaps[-1]["arena"] = _arena(snaps[-1])
    snaps[-1]["boards"][0]["rows"][3]["partial"] = True
    with serve_directory(www) as origin:
        typed = [validate_snapshot(s) for s in snaps]
        render_site(typed[-1], typed[:-1], cfg, ROOT, www / "s", now=NOW, base_url=f"{origin}/s/")
        yield origin, www / "s"


@pytest.fixture
def open_chart(browser, site):
    """open_chart(kind, **context options) -> (page, errors); errors must stay empty."""
    origin, _ = site
    contexts, watched = [], []

    def _open(kind: str, **opts):
        context = browser.new_context(viewport={"width": 1100, "height": 900}, **opts)
        contexts.append(context)
        page = context.new_page()
        errors = PageWatch(page, origin, warnings=True).errors
        watched.append(errors)
        page.goto(f"{origin}/s/charts/{kind}/")
        if opts.get("java_script_enabled", True):
            page.wait_for_function("() => document.getElementById('charts').dataset.state === 'ready'")
        return page, errors

    yield _open
    for c in contexts:
        c.close()
    assert all(e == [] for e in watched), watched


def _expected_marks(kind: str, doc: dict) -> dict[str, int]:
    """Series id -> marks the drawn chart must hold (history: the default lines)."""
    if kind == "price-quality":
        return {b["id"]: len(b["points"]) for b in doc["boards"]}
    if kind == "history":
        return {s["id"]: sum(len(m["points"]) for m in s["models"] if m["key"] in s["default"]) for s in doc["series"]}
    if kind == "ranks":
        return {s["id"]: sum(len(m["points"]) for m in s["models"]) for s in doc["series"]}
    out = {b["id"]: len(b["points"]) for b in doc["boards"]}
    out["arena"] = len(doc["arena"]["models"])
    out["arena-distribution"] = sum(b["count"] > 0 for b in doc["distribution"]["bins"])
    return out


DRAWN = "#charts .chart-panel:not([hidden]) svg[data-static='0'] .mark"


def test_each_chart_draws_one_mark_per_data_point_on_every_board(open_chart, site):
    _, out = site
    for kind in KINDS:
        doc = json.loads((out / "data" / "charts" / f"{kind}.json").read_text(encoding="utf-8"))
        want = _expected_marks(kind, doc)
        page, _ = open_chart(kind)
        assert page.locator(".chart-controls").is_visible() and page.locator(".chart-jump").is_hidden()
        options = page.locator("#chart-board option")
        assert options.count() == len(want)
        for k in range(options.count()):
            value = options.nth(k).get_attribute("value")
            page.select_option("#chart-board", value)
            series = page.locator(f"#{value}").get_attribute("data-series")
            assert page.locator(".chart-panel:not([hidden])").count() == 1
            assert page.locator(DRAWN).count() == want[series] > 0, (kind, series)
            assert page.locator(f"#{value} svg[data-static='1']").count() == 0  # the static picture was replaced
        assert page.url.endswith("#" + value)  # the shown board is in the address


def test_tooltips_follow_hover_and_keyboard_focus(open_chart, site):
    page, _ = open_chart("price-quality")
    tip = page.locator("#chart-tooltip")
    assert tip.is_hidden()
    page.locator(DRAWN).first.hover()
    assert tip.is_visible() and "Score" in tip.inner_text() and "per million tokens" in tip.inner_text()
    page.mouse.move(2, 2)
    assert tip.is_hidden()
    # keyboard: Tab from the board selector reaches the first point link
    page.focus("#chart-board")
    for _ in range(12):
        page.keyboard.press("Tab")
        if page.evaluate("() => !!document.activeElement.closest('svg')"):
            break
    label = page.evaluate("() => document.activeElement.getAttribute('aria-label')")
    assert label and "Score" in label
    board = json.loads((site[1] / "data" / "charts" / "price-quality.json").read_text(encoding="utf-8"))["boards"][0]
    cheapest = min(board["points"], key=lambda p: (p["price"], -p["score"], p["rank"]))
    assert label.startswith(cheapest["name"] + ",")  # Tab order runs left to right
    text = tip.inner_text()
    assert tip.is_visible() and label.split(",")[0] in text and "rank" in text
    assert page.evaluate("() => document.activeElement.getAttribute('href')").startswith("../../models/")
    page.keyboard.press("Escape")
    assert tip.is_hidden()
    for kind in ("history", "ranks", "spread"):
        page, _ = open_chart(kind)
        page.locator(DRAWN).nth(1).hover()
        assert page.locator("#chart-tooltip").is_visible(), kind


def test_history_adds_and_removes_lines(open_chart, site):
    _, out = site
    doc = json.loads((out / "data" / "charts" / "history.json").read_text(encoding="utf-8"))
    s = doc["series"][0]
    extra = next(m for m in s["models"] if m["key"] not in s["default"])
    page, _ = open_chart("history")
    before = page.locator(DRAWN).count()
    assert page.locator(".chart-panel:not([hidden]) .picker-chips li").count() == len(s["default"])
    options = page.eval_on_selector_all(".chart-panel:not([hidden]) datalist option", "os => os.map(o => o.value)")
    assert extra["name"] in options and len(options) == len(s["models"])
    page.fill(".chart-panel:not([hidden]) .picker-input", extra["name"])
    page.keyboard.press("Enter")
    assert page.locator(DRAWN).count() == before + len(extra["points"])
    assert "Added" in page.locator(".chart-panel:not([hidden]) .picker-status").inner_text()
    page.click(f".chart-panel:not([hidden]) button[aria-label='Remove {extra['name']}']")
    assert page.locator(DRAWN).count() == before
    first = next(m for m in s["models"] if m["key"] == s["default"][0])
    page.click(f".chart-panel:not([hidden]) button[aria-label='Remove {first['name']}']")
    assert page.locator(DRAWN).count() == before - len(first["points"])
    page.fill(".chart-panel:not([hidden]) .picker-input", "no such model")
    page.click(".chart-panel:not([hidden]) .picker-add")
    assert "No model called" in page.locator(".chart-panel:not([hidden]) .picker-status").inner_text()
    page.click(".chart-panel:not([hidden]) .picker-reset")
    assert page.locator(DRAWN).count() == before
    # the Arena panel draws its interval bands
    page.select_option("#chart-board", "chart-arena")
    assert page.locator(".chart-panel:not([hidden]) svg[data-static='0'] .band").count() > 0


def _zoom_state(page) -> tuple[float, str, str]:
    svg = page.locator(".chart-panel:not([hidden]) svg[data-static='0']")
    return float(svg.get_attribute("data-zoom")), svg.get_attribute("data-x0"), svg.get_attribute("data-x1")


def _cx(page) -> list[float]:
    return page.eval_on_selector_all(".chart-panel:not([hidden]) svg[data-static='0'] .mark",
                                     "ms => ms.map(m => +m.getAttribute('cx'))")


def test_history_zooms_and_pans_by_keyboard_buttons_and_mouse(open_chart, site):
    _, out = site
    s = json.loads((out / "data" / "charts" / "history.json").read_text(encoding="utf-8"))["series"][0]
    first, last = s["dates"][0], s["dates"][-1]
    page, _ = open_chart("history")
    panel = ".chart-panel:not([hidden])"
    assert page.locator(f"{panel} .zoom-controls").is_visible()
    assert _zoom_state(page) == (1.0, first, last)
    assert page.locator(f"{panel} .zoom-status").inner_text().startswith("Showing every date")
    # keyboard on the focused chart
    frame = page.locator(f"{panel} .chart-frame")
    assert frame.get_attribute("tabindex") == "0" and "arrows pan" in frame.get_attribute("aria-label")
    frame.focus()
    before = _cx(page)
    page.keyboard.press("+")
    page.keyboard.press("+")
    k, x0, x1 = _zoom_state(page)
    assert k == pytest.approx(2.25) and first < x0 < x1 < last  # zoomed on the middle of the time axis
    assert "zoom 2.3" in page.locator(f"{panel} .zoom-status").inner_text()
    spread_before = max(before) - min(before)
    after = _cx(page)
    assert max(after) - min(after) == pytest.approx(spread_before * 2.25, rel=1e-3)  # marks moved with the axis
    assert page.locator(f"{panel} svg[data-static='0'] .plot[clip-path]").count() == 1  # clipped to the plot
    page.keyboard.press("ArrowLeft")
    _, e0, e1 = _zoom_state(page)
    assert e0 < x0 and e1 < x1  # earlier dates in view
    for _ in range(20):
        page.keyboard.press("ArrowLeft")
    assert _zoom_state(page)[1] == first  # panning stops at the first date
    page.keyboard.press("0")
    assert _zoom_state(page) == (1.0, first, last)
    # buttons
    page.click(f"{panel} .zoom-in")
    assert _zoom_state(page)[0] == pytest.approx(1.5)
    mid0 = _zoom_state(page)[1]
    page.click(f"{panel} .pan-later")
    assert _zoom_state(page)[1] > mid0  # later dates in view
    page.click(f"{panel} .zoom-out")
    page.click(f"{panel} .zoom-out")
    assert _zoom_state(page)[0] == 1.0  # never below the whole range
    page.click(f"{panel} .zoom-in")
    # the zoom survives adding a line
    extra = next(m for m in s["models"] if m["key"] not in s["default"])
    page.fill(f"{panel} .picker-input", extra["name"])
    page.keyboard.press("Enter")
    assert _zoom_state(page)[0] == pytest.approx(1.5)
    page.click(f"{panel} .zoom-reset")
    assert _zoom_state(page) == (1.0, first, last)
    # mouse: Ctrl + wheel zooms, a plain wheel scrolls the page, a drag pans
    chart = page.locator(f"{panel} svg[data-static='0']")
    chart.scroll_into_view_if_needed()
    box = chart.bounding_box()
    page.mouse.move(box["x"] + box["width"] * 0.45, box["y"] + box["height"] * 0.4)
    page.mouse.wheel(0, -100)
    assert _zoom_state(page)[0] == 1.0
    chart.scroll_into_view_if_needed()
    box = chart.bounding_box()
    page.mouse.move(box["x"] + box["width"] * 0.45, box["y"] + box["height"] * 0.4)
    page.keyboard.down("Control")
    page.mouse.wheel(0, -100)
    page.keyboard.up("Control")
    k, x0, _ = _zoom_state(page)
    assert k > 1.0 and x0 > first
    page.mouse.down()
    page.mouse.move(box["x"] + box["width"] * 0.65, box["y"] + box["height"] * 0.4, steps=5)
    page.mouse.up()
    assert _zoom_state(page)[0] == k and _zoom_state(page)[1] < x0  # dragged towards earlier dates


def test_spread_draws_the_arena_rating_distribution(open_chart, site):
    _, out = site
    d = json.loads((out / "data" / "charts" / "spread.json").read_text(encoding="utf-8"))["distribution"]
    page, _ = open_chart("spread")
    page.select_option("#chart-board", "chart-arena-distribution")
    panel = ".chart-panel:not([hidden])"
    bars = page.locator(f"{panel} svg[data-static='0'] .mark.bar")
    assert bars.count() == sum(b["count"] > 0 for b in d["bins"])
    heights = bars.evaluate_all("bs => bs.map(b => +b.getAttribute('height'))")
    counts = [b["count"] for b in d["bins"] if b["count"] > 0]
    top = max(counts)
    assert [round(h / max(heights) * top, 6) for h in heights] == pytest.approx(counts)  # height ~ count
    assert page.locator(f"{panel} svg[data-static='0'] .box .median").count() == 1
    assert page.locator(f"{panel} svg[data-static='0'] .box .outlier").count() == len(d["box"]["outliers"])
    bars.first.hover()
    tip = page.locator("#chart-tooltip")
    assert tip.is_visible() and "model" in tip.inner_text()


def test_dark_mode_swaps_the_palette(open_chart):
    colours = {}
    for scheme in ("light", "dark"):
        page, _ = open_chart("ranks", color_scheme=scheme)
        colours[scheme] = page.evaluate(
            "() => [getComputedStyle(document.querySelector('#charts .s1') || document.body).getPropertyValue('--s1'),"
            " getComputedStyle(document.querySelector('.chart-svg .tick-label')).fill]")
    assert colours["light"][0].strip().lower() == "#332288"
    assert colours["dark"][0].strip().lower() == "#77aadd"
    assert colours["light"][1] != colours["dark"][1]  # axis text follows the theme


def test_without_javascript_the_build_time_charts_are_there(open_chart, site):
    _, out = site
    for kind in KINDS:
        doc = json.loads((out / "data" / "charts" / f"{kind}.json").read_text(encoding="utf-8"))
        want = _expected_marks(kind, doc)
        page, _ = open_chart(kind, java_script_enabled=False)
        assert page.locator(".chart-controls").is_hidden() and page.locator(".chart-jump").is_visible()
        panels = page.locator(".chart-panel")
        assert panels.count() == len(want)
        for k in range(panels.count()):
            panel = panels.nth(k)
            assert panel.is_visible()
            assert panel.locator("svg[data-static='1'] .mark").count() == want[panel.get_attribute("data-series")]
            assert panel.locator("figcaption").count() == 1 and panel.locator("table").count() >= 1
        assert page.locator(".series-picker:visible").count() == 0
        assert page.locator("#chart-tooltip").count() == 0


def test_axe_finds_no_violations_on_the_chart_pages(browser, site):
    origin, _ = site
    context = axe_context(browser)
    failures = {}
    try:
        pages = [("", None)] + [(f"{k}/", None) for k in KINDS] + [
            ("history/", "chart-arena"), ("spread/", "chart-arena"), ("spread/", "chart-arena-distribution")]
        page = context.new_page()
        for path, board in pages:
            page.goto(f"{origin}/s/charts/{path}")
            if path:
                page.wait_for_function("() => document.getElementById('charts').dataset.state === 'ready'")
            if board:
                page.select_option("#chart-board", board)
            page.locator("details.chart-table").evaluate_all("ds => ds.forEach(d => d.open = true)")
            result = axe_violations(page)
            if result:
                failures[f"{path}{board or ''}"] = result
    finally:
        context.close()
    assert failures == {}


def test_price_quality_draws_each_interval_as_an_error_bar(open_chart, site):
    """With and without JavaScript, one error bar per point that has a bootstrap interval,
    spanning the interval on the score axis (the mark's own tooltip says the numbers)."""
    _, out = site
    doc = json.loads((out / "data" / "charts" / "price-quality.json").read_text(encoding="utf-8"))
    board = doc["boards"][0]
    with_interval = [p for p in board["points"] if p["r_lo"] is not None]
    assert with_interval and all(p["r_lo"] < p["r_hi"] for p in with_interval)
    page, _ = open_chart("price-quality", java_script_enabled=False)
    panel = page.locator(".chart-panel").first
    assert panel.locator("svg[data-static='1'] .error-bar").count() == len(with_interval)
    assert "95% bootstrap interval" in panel.locator("figcaption").inner_text()
    page, _ = open_chart("price-quality")
    drawn = page.locator("#charts .chart-panel:not([hidden]) svg[data-static='0']")
    assert drawn.locator(".error-bar").count() == len(with_interval)
    # a bar is taller than the mark it belongs to: the interval spans several score points
    heights = drawn.locator(".error-bar").evaluate_all("els => els.map(e => e.getBBox().height)")
    assert min(heights) > 1
    drawn.locator(".mark").first.hover()
    assert "95% interval" in page.locator("#chart-tooltip").inner_text()
