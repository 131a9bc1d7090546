"""Names with bidi controls on the pages a script draws (the race, the chart pages), in a real
browser (Playwright + Chromium), the site served on 127.0.0.1.

One model of a five-snapshot history is named ``claude-\\u202eoidua-\\u202c5`` (a right-to-left
override that would make it read ``claude-5-audio``) on every board, on the Arena and in
every frame, and is partial on the newest day, so the race draws a dagger right after its
name. On the race and on the chart pages every element that shows the name holds it as one
bidi isolate (FSI, the name without controls, PDI), no U+202E reaches the document, and the
glyphs of the drawn label run left to right: the override never takes effect and never
reaches the text drawn after the name. A reader still finds the model by typing its name.
"""

from __future__ import annotations

import json

import pytest
from conftest import PageWatch, serve_directory
from test_bidi import spoofed_history
from test_charts import FIXTURES, NOW, ROOT

from builder.config import load_config
from builder.render.site import render_site
from builder.snapshot import validate_snapshot
from builder.util.text import BIDI_CONTROLS

pytestmark = pytest.mark.browser

SHOWN = "claude-oidua-5"
ISOLATED = "\u2068" + SHOWN + "\u2069"
OTHER_CONTROLS = "".join(c for c in BIDI_CONTROLS if c not in "\u2068\u2069")

# The characters of an SVG text element with their drawn x (format characters draw nothing
# and are left out), read through SVGTextContentElement.
GLYPHS = """el => Array.from({length: el.getNumberOfChars()}, (_, i) => [el.textContent[i],
  el.getStartPositionOfChar(i).x]).filter(g => !'\u2066\u2067\u2068\u2069'.includes(g[0]))"""
# Every bidi control in the live document (text, attributes, form values), as code points.
CONTROLS_IN_DOM = """chars => {
  const found = new Set();
  const scan = s => {
    for (const c of s || '') { if (chars.includes(c)) { found.add(c.codePointAt(0).toString(16)); } }
  };
  scan(document.documentElement.outerHTML);
  document.querySelectorAll('input, option').forEach(e => scan(e.value));
  return Array.from(found);
}"""


@pytest.fixture(scope="module")
def spoofed_site(tmp_path_factory):
    """(origin, site folder, victim identity) of a chart and race site with one spoofed name."""
    www = tmp_path_factory.mktemp("bidi-www")
    cfg, _ = load_config(FIXTURES / "site.yml")
    snaps, victim = spoofed_history(5)
    snaps[-1]["boards"][0]["rows"][0]["partial"] = True
    with serve_directory(www) as origin:
        typed = [validate_snapshot(s) for s in snaps]
        render_site(typed[-1], typed[:-1], cfg, ROOT, www / "s", now=NOW, base_url=f"{origin}/s/")
        yield origin, www / "s", victim


@pytest.fixture
def new_page(browser, spoofed_site):
    origin = spoofed_site[0]
    opened = []

    def _open(path: str, reduced: bool = False):
        context = browser.new_context(viewport={"width": 1100, "height": 900})
        page = context.new_page()
        if reduced:
            page.emulate_media(reduced_motion="reduce")
        watch = PageWatch(page, origin)
        opened.append((context, watch))
        page.goto(f"{origin}/s/{path}")
        return page

    yield _open
    for context, watch in opened:
        context.close()
        assert watch.errors == []


def _left_to_right(glyphs: list) -> bool:
    xs = [x for _, x in glyphs]
    return all(a < b for a, b in zip(xs, xs[1:], strict=False))


def test_the_race_draws_the_name_as_an_isolate(new_page, spoofed_site):
    _, out, victim = spoofed_site
    doc = json.loads((out / "data" / "race" / "boards.json").read_text(encoding="utf-8"))
    newest = doc["boards"][0]["frames"][-1]["models"]
    assert newest[0]["identity"] == victim and newest[0]["name"] == ISOLATED
    page = new_page("race/", reduced=True)  # paused on the newest date, the table shown
    page.wait_for_function("() => document.getElementById('race').dataset.state === 'paused'")
    label = page.locator(f'#race-chart g.bar[data-id="{victim}"] text.name')
    assert label.text_content() == ISOLATED + " \u2020"
    glyphs = label.evaluate(GLYPHS)
    assert "".join(c for c, _ in glyphs) == SHOWN + " \u2020"
    assert _left_to_right(glyphs), glyphs  # no override in effect: the dagger is drawn after the name
    cells = page.eval_on_selector_all("#race-table tbody tr", "rs => rs.map(r => r.cells[1].textContent)")
    assert cells[0] == ISOLATED
    assert ISOLATED in page.get_attribute("#race-chart", "aria-label")
    page.select_option("#race-board", "arena")
    page.wait_for_function("() => document.getElementById('race-board-title').textContent.startsWith('Arena')")
    arena_label = page.locator(f'#race-chart g.bar[data-id="{victim}"] text.name')
    assert arena_label.text_content() == ISOLATED
    assert page.evaluate(CONTROLS_IN_DOM, OTHER_CONTROLS) == []


def test_the_chart_pages_draw_the_name_as_an_isolate(new_page, spoofed_site):
    _, out, victim = spoofed_site
    # spread: the Arena's interval rows ("rank. name"), their tooltip and link label
    page = new_page("charts/spread/#chart-arena")
    page.wait_for_function("() => document.getElementById('charts').dataset.state === 'ready'")
    row = page.locator("#chart-arena svg[data-static='0'] text.row-label", has_text=SHOWN)
    assert row.count() == 1
    assert row.text_content() == "1. " + ISOLATED
    glyphs = row.evaluate(GLYPHS)
    assert "".join(c for c, _ in glyphs) == "1. " + SHOWN and _left_to_right(glyphs), glyphs
    link = row.locator("xpath=..")
    assert link.get_attribute("aria-label").startswith(ISOLATED + ", Rating ")
    link.hover()
    tip = page.locator("#chart-tooltip")
    assert tip.is_visible() and tip.locator("strong").text_content() == ISOLATED
    assert page.evaluate(CONTROLS_IN_DOM, OTHER_CONTROLS) == []

    # history: the end label, the search list, the chips; a reader types the plain name
    page = new_page("charts/history/")
    page.wait_for_function("() => document.getElementById('charts').dataset.state === 'ready'")
    panel = ".chart-panel:not([hidden])"
    ends = page.eval_on_selector_all(f"{panel} svg[data-static='0'] text.end-label", "es => es.map(e => e.textContent)")
    assert ISOLATED in ends
    options = page.eval_on_selector_all(f"{panel} datalist option", "os => os.map(o => o.value)")
    assert ISOLATED in options
    chip = page.locator(f"{panel} .picker-chips .chip-name", has_text=SHOWN)
    assert chip.text_content() == ISOLATED
    page.click(f"{panel} button.picker-remove[data-key='{victim}']")
    assert page.locator(f"{panel} .picker-chips .chip-name", has_text=SHOWN).count() == 0
    page.fill(f"{panel} .picker-input", SHOWN)  # typed, without the marks
    page.keyboard.press("Enter")
    assert page.locator(f"{panel} .picker-status").text_content() == "Added " + ISOLATED + "."
    assert page.locator(f"{panel} .picker-chips .chip-name", has_text=SHOWN).count() == 1
    assert page.evaluate(CONTROLS_IN_DOM, OTHER_CONTROLS) == []
