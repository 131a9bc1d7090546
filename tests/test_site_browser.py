"""The built site in a real browser (Playwright + Chromium), served on 127.0.0.1 under a sub-path.

Every page type loads with no console error, no failed request and no request to another
origin; sorting, search, filters and the URL state work; a model page opened by URL shows
its rows; hostile upstream strings stay inert; axe-core finds no WCAG 2 A/AA violation.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest
from conftest import PageWatch, axe_context, axe_violations, serve_directory
from fixtures.make_snapshot import XSS_NAME, make_snapshot

from builder.config import load_config
from builder.render.site import render_site
from builder.snapshot import validate_snapshot
from builder.util.text import model_slug

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "tests" / "fixtures"
NOW = datetime(2026, 11, 30, 12, tzinfo=UTC)

PAGE_TYPES = [
    "", "boards/", "boards/orchestrator/", "boards/mid-tier/", "stacks/", "picks/", "models/",
    "models/helix-sol-24/", "excluded/", "archive/", "changelog/", "data/", "methodology/", "about/",
    "piratebench-format/", "api/", "404.html",
]


@pytest.fixture(scope="session")
def served(tmp_path_factory):
    """(origin, snapshot) with the fixture site at /modelboards/ and the XSS site at /xss/."""
    root = tmp_path_factory.mktemp("www")
    cfg, _ = load_config(FIXTURES / "site.yml")
    snapshot = json.loads((FIXTURES / "golden_snapshot.json").read_text(encoding="utf-8"))
    earlier = make_snapshot(20, seed=3, day="2026-11-28")
    xss = json.loads((FIXTURES / "xss_snapshot.json").read_text(encoding="utf-8"))
    with serve_directory(root) as origin:
        render_site(validate_snapshot(snapshot), [validate_snapshot(earlier)], cfg, ROOT, root / "modelboards", now=NOW,
                    base_url=f"{origin}/modelboards/")
        render_site(validate_snapshot(xss), [], cfg, ROOT, root / "xss", now=NOW, base_url=f"{origin}/xss/")
        yield origin, snapshot, xss


@pytest.fixture
def page(browser, served):
    context = browser.new_context()
    p = context.new_page()
    p.watch = PageWatch(p, served[0])
    yield p
    context.close()


def test_every_page_type_loads_cleanly(browser, served):
    origin = served[0]
    context = browser.new_context()
    try:
        p = context.new_page()  # one tab for every page, as a reader browses (a new tab costs about 0.3 s)
        watch = PageWatch(p, origin)
        for path in PAGE_TYPES:
            resp = p.goto(f"{origin}/modelboards/{path}")
            p.wait_for_load_state("load")
            assert resp is not None and resp.status == 200, path
            assert p.locator("h1").count() == 1, path
            assert p.locator('link[rel="stylesheet"]').evaluate("l => !!l.sheet"), path
            assert watch.errors == [], (path, watch.errors)
    finally:
        context.close()


def test_axe_finds_no_wcag_a_or_aa_violations(browser, served):
    origin = served[0]
    results = {}
    for scheme in ("light", "dark"):
        context = axe_context(browser, color_scheme=scheme)
        try:
            paths = PAGE_TYPES if scheme == "light" else ["", "boards/orchestrator/", "models/helix-sol-24/"]
            p = context.new_page()
            for path in paths:
                p.goto(f"{origin}/modelboards/{path}")
                found = axe_violations(p)
                if found:
                    results[f"{scheme} {path or '/'}"] = found
        finally:
            context.close()
    assert results == {}


def _column(page, table: str, index: int) -> list[str]:
    return page.eval_on_selector_all(
        f"#{table} tbody tr:not([hidden])",
        f"rows => rows.map(r => r.cells[{index}].getAttribute('data-sort') ?? r.cells[{index}].textContent.trim())")


def test_sorting_search_filters_and_url_state(page, served):
    origin, snapshot, _ = served
    board = snapshot["boards"][0]
    url = f"{origin}/modelboards/boards/orchestrator/"
    page.goto(url)
    n = len(board["rows"])
    assert page.locator("#board-table tbody tr").count() == n
    assert page.locator(".table-tools").is_visible()

    table = page.locator("#board-table")
    table.get_by_role("button", name="Score").click()  # first click on a score sorts high to low
    scores = [float(x) for x in _column(page, "board-table", 2)]
    assert scores == sorted(scores, reverse=True)
    table.get_by_role("button", name="Score", exact=True).click()
    scores = [float(x) for x in _column(page, "board-table", 2)]
    assert scores == sorted(scores)
    assert page.locator('#board-table th[data-key="score"]').get_attribute("aria-sort") == "ascending"
    q = parse_qs(urlsplit(page.url).query)
    assert q["sort"] == ["score"] and q["dir"] == ["asc"]

    table.get_by_role("button", name="Rank", exact=True).click()  # numbers sort as numbers: 2 before 10
    ranks = [int(x) for x in _column(page, "board-table", 0)]
    assert ranks == sorted(ranks) and ranks[-1] >= 10

    table.get_by_role("button", name="Model", exact=True).click()
    names = [page.locator("#board-table tbody tr").nth(i).locator("td").nth(1).inner_text() for i in range(n)]
    assert names == sorted(names, key=str.lower)

    target = board["rows"][3]["model"]
    page.get_by_label("Search this board").fill(target.split()[-1])
    visible = page.locator("#board-table tbody tr:not([hidden])")
    assert visible.count() >= 1
    assert all(target.split()[-1] in visible.nth(i).inner_text() for i in range(visible.count()))
    assert parse_qs(urlsplit(page.url).query)["q"] == [target.split()[-1]]
    page.get_by_label("Search this board").fill("")

    open_ids = {i for i, m in snapshot["models"].items() if m["open_weight"]}
    page.get_by_label("Open-weight only").check()
    want_open = sum(1 for r in board["rows"] if r["identity"] in open_ids)
    assert 0 < want_open < n
    assert page.locator("#board-table tbody tr:not([hidden])").count() == want_open
    page.get_by_label("Hide partial").check()
    want_both = sum(1 for r in board["rows"] if r["identity"] in open_ids and not r["partial"])
    assert page.locator("#board-table tbody tr:not([hidden])").count() == want_both
    assert "Showing" in page.locator(".count").inner_text()

    shared = page.url  # a shared view restores sort, filters and search
    q = parse_qs(urlsplit(shared).query)
    assert q["open"] == ["1"] and q["nopartial"] == ["1"] and q["sort"] == ["model"]
    page.goto("about:blank")
    page.goto(shared)
    assert page.get_by_label("Open-weight only").is_checked() and page.get_by_label("Hide partial").is_checked()
    assert page.locator("#board-table tbody tr:not([hidden])").count() == want_both
    assert page.locator('#board-table th[data-key="model"]').get_attribute("aria-sort") == "ascending"
    assert page.watch.errors == []


def test_model_page_opened_by_url_shows_its_rows(page, served):
    origin, snapshot, _ = served
    ident = snapshot["boards"][2]["rows"][0]["identity"]
    page.goto(f"{origin}/modelboards/models/{model_slug(ident)}/")
    assert page.locator("h1").inner_text() == snapshot["models"][ident]["name"]
    mine = [o for o in snapshot["observations"] if o["identity"] == ident]
    assert page.locator("#obs-table tbody tr").count() == len(mine)
    page.get_by_label("Search observations").fill("livebench")
    assert page.locator("#obs-table tbody tr:not([hidden])").count() == sum("livebench" in o["feed"] for o in mine)
    assert page.get_by_role("link", name=snapshot["boards"][2]["title"]).count() >= 1
    assert page.watch.errors == []


def test_hostile_strings_render_inert(page, served):
    origin, _, xss = served
    victim = xss["boards"][0]["rows"][0]["identity"]
    for path in ["", "boards/orchestrator/", f"models/{model_slug(victim)}/", "models/", "excluded/",
                 "methodology/", "stacks/", "picks/"]:
        page.goto(f"{origin}/xss/{path}")
        page.wait_for_timeout(50)
        assert page.locator("img").count() == 0, path
        assert page.locator('a[href^="javascript:"], a[href^="data:"], [onerror], [onload]').count() == 0, path
    page.goto(f"{origin}/xss/models/{model_slug(victim)}/")
    assert page.locator("h1").inner_text() == XSS_NAME  # shown as text, exactly
    assert page.get_by_text("<script>alert(2)</script>").count() == 1
    assert page.watch.dialogs == []
    assert page.watch.errors == []


def test_tables_are_readable_without_javascript(browser, served):
    origin, snapshot, _ = served
    context = browser.new_context(java_script_enabled=False)
    try:
        p = context.new_page()
        p.goto(f"{origin}/modelboards/boards/orchestrator/")
        assert p.locator("#board-table tbody tr").count() == len(snapshot["boards"][0]["rows"])
        assert not p.locator(".table-tools").is_visible()  # controls that need the script stay hidden
    finally:
        context.close()


def test_phone_width_has_no_page_level_horizontal_scroll(browser, served):
    origin = served[0]
    context = browser.new_context(viewport={"width": 375, "height": 740}, is_mobile=True)
    try:
        p = context.new_page()
        for path in ["", "boards/mid-tier/", "models/helix-sol-24/", "methodology/"]:
            p.goto(f"{origin}/modelboards/{path}")
            overflow = p.evaluate("() => document.documentElement.scrollWidth - window.innerWidth")
            assert overflow <= 1, (path, overflow)
    finally:
        context.close()


def test_boards_show_intervals_rank_ub_and_tie_markers(page, served):
    """Every role board: a 95% interval (text and bar) and Rank (UB) per ranked row, and the
    tie marker exactly on the rows the snapshot marks tied with the row above."""
    origin, snapshot, _ = served
    for board in snapshot["boards"]:
        rows = board["rows"]
        if not rows:
            continue
        page.goto(f"{origin}/modelboards/boards/{board['id']}/")
        heads = page.locator("#board-table thead th").all_inner_texts()
        assert "Rank (UB)" in heads and "95% interval" in heads, board["id"]
        ub_col, iv_col = heads.index("Rank (UB)"), heads.index("95% interval")
        cells = page.locator("#board-table tbody tr")
        assert cells.count() == len(rows)
        for k, row in enumerate(rows):
            u = row["uncertainty"]
            tr = cells.nth(k)
            assert tr.locator("td").nth(ub_col).inner_text() == str(u["rank_ub"])
            text = tr.locator("td").nth(iv_col).inner_text()
            assert text == f"{u['r_lo']:.0f}–{u['r_hi']:.0f}", (board["id"], row["identity"])
            assert tr.locator("td").nth(iv_col).locator("svg.ci-bar rect.ci-range").count() == 1
            # tie groups are anchored on their leader: a row is marked when the leader of its
            # group is not ahead of it in 95% of the rounds, and the label names that leader
            tied = tr.get_attribute("data-tied") == "1"
            assert tied is bool(u.get("tie_leader")), (board["id"], row["identity"])
            if tied:
                leader = next(r["model"] for r in rows if r["identity"] == u["tie_leader"])
                assert f"statistically tied with {leader}" in tr.locator("td").first.inner_text()
        assert page.locator("#about-intervals").is_visible()
        assert page.get_by_role("link", name="download (CSV)").get_attribute("href").endswith(
            f"data/boards/{board['id']}-pairwise.csv")
    page.goto(f"{origin}/modelboards/boards/orchestrator/")
    page.locator("#board-table").get_by_role("button", name="95% interval").click()  # high to low
    lows = [float(x) for x in _column(page, "board-table", iv_col)]
    assert lows == sorted((r["uncertainty"]["r_lo"] for r in snapshot["boards"][0]["rows"]), reverse=True)
    page.locator("#board-table").get_by_role("button", name="Rank (UB)").click()
    ubs = [int(x) for x in _column(page, "board-table", ub_col)]
    assert ubs == sorted(ubs)
    assert page.watch.errors == []


def test_front_page_cards_name_their_tie_groups(page, served):
    origin, snapshot, _ = served
    page.goto(f"{origin}/modelboards/")
    for board in snapshot["boards"]:
        top = board["rows"][:5]
        card = page.locator(f"section.card:has(#card-{board['id']})")
        tied = [r for r in top if r["uncertainty"].get("tie_leader")]
        assert card.locator("li.tied .tie").count() == len(tied), board["id"]
        if tied:
            text = card.locator("p.ties").inner_text()
            head = next(r for r in board["rows"] if r["identity"] == tied[0]["uncertainty"]["tie_leader"])
            assert text.startswith("Statistically tied") and f"ranks {head['rank']}–" in text, text
        else:
            assert card.locator("p.ties").count() == 0
    assert page.watch.errors == []


def test_model_page_shows_its_interval_on_every_board(page, served):
    origin, snapshot, _ = served
    ident = snapshot["boards"][0]["rows"][1]["identity"]
    page.goto(f"{origin}/modelboards/models/{model_slug(ident)}/")
    table = page.get_by_role("region", name="Board positions").locator("table")
    heads = table.locator("thead th").all_inner_texts()
    for col in ("Rank range", "Rank (UB)", "P(rank 1)", "95% interval"):
        assert col in heads
    placed = [(b, r) for b in snapshot["boards"] for r in b["rows"] if r["identity"] == ident]
    assert table.locator("tbody tr").count() >= len(placed) > 0
    first = table.locator("tbody tr").first.locator("td")
    b, r = placed[0]
    u = r["uncertainty"]
    want = str(u["rank_lo"]) if u["rank_lo"] == u["rank_hi"] else f"{u['rank_lo']}–{u['rank_hi']}"
    assert first.nth(heads.index("Rank range")).inner_text() == want
    assert first.nth(heads.index("95% interval")).inner_text() == f"{u['r_lo']:,.1f} – {u['r_hi']:,.1f}"
    assert page.watch.errors == []


def test_intervals_are_readable_without_javascript(browser, served):
    origin, snapshot, _ = served
    context = browser.new_context(java_script_enabled=False)
    try:
        p = context.new_page()
        p.goto(f"{origin}/modelboards/boards/orchestrator/")
        rows = snapshot["boards"][0]["rows"]
        texts = p.locator("#board-table td.interval .ci-text").all_inner_texts()
        assert texts == [f"{r['uncertainty']['r_lo']:.0f}–{r['uncertainty']['r_hi']:.0f}" for r in rows]
        assert p.locator("#board-table td.interval svg.ci-bar").first.is_visible()
        p.goto(f"{origin}/modelboards/methodology/")
        assert p.locator("#uncertainty").is_visible() and "200 rounds" in p.locator("#uncertainty").inner_text()
    finally:
        context.close()
