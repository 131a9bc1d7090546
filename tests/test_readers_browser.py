"""What readers ask for, in a real browser (Playwright + Chromium): price columns and the max-price
filter, the reader's own weights (the published weights give the published R to 1e-9 on every
row), compare (URL round trip, picker, download), the What changed page and the Atom feed.

One site is rendered from the shipped snapshots (2026-11-29 and its history) with the shipped
site.yml and the change log the commands pass in, served on 127.0.0.1 under /s/. Every page
checked logs no console error, asks no other origin, and axe-core finds no WCAG 2.1 A/AA issue.
"""

from __future__ import annotations

import csv
import functools
import io
import json
from datetime import UTC, datetime
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import feedparser
import pytest
from conftest import PageWatch, axe_violations, serve_directory

from builder.config import load_config
from builder.history.diff import compute_change_log
from builder.render.intervals import anchored_ties, compute_tie_marks
from builder.render.site import render_site
from builder.snapshot import list_snapshots, load_snapshot

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[1]
NOW = datetime(2026, 11, 29, 13, tzinfo=UTC)


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """(origin, site folder, current snapshot)."""
    www = tmp_path_factory.mktemp("readers-www")
    cfg, base = load_config(ROOT / "site.yml")
    snaps = [load_snapshot(p) for p in list_snapshots(ROOT / "snapshots")]
    current = snaps[-1]
    with serve_directory(www) as origin:
        render_site(current, snaps[:-1], cfg, base, www / "s", now=NOW, base_url=f"{origin}/s/",
                    change_log=functools.partial(compute_change_log, threshold=cfg.changes.score_threshold))
        yield origin, www / "s", current


@pytest.fixture
def open_page(browser, site):
    origin = site[0]
    contexts, watches = [], []

    def _open(path: str, **opts):
        context = browser.new_context(bypass_csp=True, accept_downloads=True, **opts)
        contexts.append(context)
        page = context.new_page()
        watch = PageWatch(page, origin)
        watches.append(watch)
        page.goto(f"{origin}/s/{path}")
        return page

    yield _open
    for w in watches:
        assert w.errors == []
    for c in contexts:
        c.close()


def _visible_identities(page) -> list[str]:
    return page.eval_on_selector_all("#board-table tbody tr:not([hidden])", "rs => rs.map(r => r.dataset.identity)")


def test_price_columns_sort_and_filter(open_page, site):
    _, _, snap = site
    board = next(b for b in snap.boards if b.id == "orchestrator")
    page = open_page("boards/orchestrator/")
    heads = page.eval_on_selector_all("#board-table thead th", "hs => hs.map(h => h.dataset.key)")
    assert {"token", "build", "frontier"} <= set(heads)
    page.click("#board-table th[data-key=token] button")
    priced = [r for r in board.rows if r.token_price is not None]
    order = _visible_identities(page)
    want = [r.identity for r in sorted(priced, key=lambda r: r.token_price)]
    assert [i for i in order if i in set(want)] == want  # ascending price, equal prices in board order
    assert order[len(want):] == [r.identity for r in board.rows if r.token_price is None]  # no price last
    bound = sorted(r.token_price for r in priced)[len(priced) // 2]
    page.fill("[data-role=maxprice][data-price=token]", str(bound))
    shown = set(_visible_identities(page))
    assert shown == {r.identity for r in priced if r.token_price <= bound}
    assert parse_qs(urlsplit(page.url).query)["maxtoken"] == [str(bound)]
    # the filter comes back from the URL
    page2 = open_page(f"boards/orchestrator/?maxtoken={bound}&sort=token&dir=desc")
    assert set(_visible_identities(page2)) == shown
    assert page2.input_value("[data-role=maxprice][data-price=token]") == str(bound)
    # the frontier marker is the price-quality chart's frontier
    from builder.charts.data import compute_price_quality

    front = next(d for d in compute_price_quality(snap)["boards"] if d["id"] == "orchestrator")["frontier"]
    marked = page.eval_on_selector_all("#board-table tbody tr", "rs => rs.filter(r => r.querySelector('.frontier'))"
                                       ".map(r => r.dataset.identity)")
    assert sorted(marked) == sorted(front) and front
    assert axe_violations(page) == []


@pytest.mark.parametrize("board_id", ["orchestrator", "mid-tier", "rote", "open-weight", "build-prices"])
def test_published_weights_reproduce_published_r(open_page, site, board_id):
    _, _, snap = site
    board = next(b for b in snap.boards if b.id == board_id)
    page = open_page(f"boards/{board_id}/")
    page.wait_for_selector("#board-table[data-weights-ready='1']", state="attached")
    got = dict(page.eval_on_selector_all("#board-table tbody tr", "rs => rs.map(r => [r.dataset.identity, "
                                         "parseFloat(r.dataset.rBrowser)])"))
    assert len(got) == len(board.rows) > 0
    for row in board.rows:
        assert abs(got[row.identity] - row.r) <= 1e-9 * max(1.0, abs(row.r)), row.identity
    assert page.get_attribute("#board-table", "data-custom-weights") == "0"
    # with the published weights the rank cells are as served: tie markers and their hidden words stay
    tied = list(compute_tie_marks(board.rows, anchored_ties(snap)).tied)  # rows marked tied with their group's leader
    shown = dict(page.eval_on_selector_all("#board-table tbody tr", "rs => rs.map(r => [r.dataset.identity, "
                                           "!!r.cells[0].querySelector('.tie') && !!r.cells[0].querySelector('.sr')])"))
    assert [i for i, marked in shown.items() if marked] == tied


def test_own_weights_rescore_and_reorder(open_page, site):
    _, _, snap = site
    board = next(b for b in snap.boards if b.id == "orchestrator")
    page = open_page("boards/orchestrator/")
    page.click("#own-weights summary")
    fams = list(board.weights)
    mine = {f: 0.0 for f in fams}
    mine[fams[-1]] = 1.0  # only the last family counts
    for f, v in mine.items():
        page.fill(f"#own-weights input[data-family={f}]", str(v))
    assert page.is_visible("[data-role=custom-note]")
    q = parse_qs(urlsplit(page.url).query)
    assert q[f"w.{fams[-1]}"] == ["1"] and q[f"w.{fams[0]}"] == ["0"]

    def r_of(row):
        present = [f for f in fams if f in row.families and mine[f] > 0]
        return sum(mine[f] * row.families[f] for f in present) / sum(mine[f] for f in present) if present else None

    scored = [(r_of(r), r.model, r.identity) for r in board.rows]
    want = [i for _, _, i in sorted((s for s in scored if s[0] is not None), key=lambda s: (-s[0], s[1]))]
    assert _visible_identities(page)[:len(want)] == want
    first = page.eval_on_selector("#board-table tbody tr", "r => [r.cells[0].textContent, "
                                  "r.querySelector('.score').textContent]")
    assert first == ["1", str(round(max(s[0] for s in scored if s[0] is not None)))]
    # the bootstrap's columns and the movement belong to the published weights: a dash with the reader's own
    own_cols = ("rs => rs.map(r => [...r.cells].filter((c, i) => ['interval', 'rank_ub', 'move']"
                ".includes(r.closest('table').tHead.rows[0].cells[i].dataset.key)).map(c => c.textContent.trim()))")
    boot = page.eval_on_selector_all("#board-table tbody tr", own_cols)
    assert boot and all(cells == ["\u2013", "\u2013", "\u2013"] for cells in boot)
    # the URL brings the same view back; "Published weights" restores the board
    again = open_page(urlsplit(page.url).path.removeprefix("/s/") + "?" + urlsplit(page.url).query)
    assert _visible_identities(again)[:len(want)] == want
    again.click("#own-weights [data-role=reset]")
    assert _visible_identities(again) == [r.identity for r in board.rows]
    assert again.eval_on_selector("#board-table tbody tr", "r => r.cells[0].innerHTML.trim()") == "1"
    assert again.eval_on_selector_all("#board-table td.interval .ci-text", "cs => cs.length") == sum(
        1 for r in board.rows if r.uncertainty is not None and r.uncertainty.r_lo is not None)
    served = open_page("boards/orchestrator/")
    assert again.eval_on_selector_all("#board-table tbody tr", own_cols) == served.eval_on_selector_all(
        "#board-table tbody tr", own_cols)
    assert "w." not in urlsplit(again.url).query
    assert axe_violations(page) == []


def test_compare_round_trip_picker_and_download(open_page, site):
    _, folder, snap = site
    rows = next(b for b in snap.boards if b.id == "orchestrator").rows
    a, b, c = (r.identity for r in rows[:3])
    page = open_page(f"compare/?m={a},{b},not-a-model")
    page.wait_for_selector(f"#compare[data-ready='{a},{b}']", state="attached")
    assert parse_qs(urlsplit(page.url).query)["m"] == [f"{a},{b}"]  # the unknown slug is dropped
    assert "not-a-model" in page.text_content("[data-role=message]")
    heads = page.eval_on_selector("table.compare-table", "t => [...t.tHead.rows[0].cells].map(c => c.textContent)")
    assert heads[1:] == [snap.models[a].name, snap.models[b].name]
    # the picker adds a third model by name; the URL follows
    page.fill("#compare-search", snap.models[c].name)
    page.click("[data-role=picker] button[type=submit]")
    page.wait_for_selector(f"#compare[data-ready='{a},{b},{c}']", state="attached")
    assert parse_qs(urlsplit(page.url).query)["m"] == [f"{a},{b},{c}"]
    text = page.text_content("[data-role=tables]")
    assert "Arena head-to-head" in text and "Family means" in text
    # board ranks shown are the snapshot's
    with page.expect_download() as dl:
        page.click("[data-role=csv]")
    table = list(csv.reader(io.StringIO(Path(dl.value.path()).read_text())))
    assert table[0] == ["section", "item", snap.models[a].name, snap.models[b].name, snap.models[c].name]
    ranks = next(r for r in table if r[0] == f"board {next(x.title for x in snap.boards if x.id == 'orchestrator')}"
                 and r[1] == "rank")
    assert ranks[2:] == ["1", "2", "3"] == [str(r.rank) for r in rows[:3]]
    with page.expect_download() as dl:
        page.click("[data-role=json]")
    doc = json.loads(Path(dl.value.path()).read_text())
    assert doc["models"] == [a, b, c] and doc["date"] == snap.date
    pair = doc["arena_pairs"][0]
    assert pair["predicted"] is None or 0 < pair["predicted"] < 1
    # removing a model goes back to two
    page.click(f"[data-role=chosen] button[aria-label='Remove {snap.models[c].name}']")
    page.wait_for_selector(f"#compare[data-ready='{a},{b}']", state="attached")
    assert axe_violations(page) == []


def test_compare_predicted_probability_matches_the_ratings(site):
    _, folder, snap = site
    assert snap.arena is not None
    doc = json.loads((folder / "data" / "compare" / "index.json").read_text())
    assert doc["arena"] == {"scale": snap.arena.method.scale, "base": snap.arena.method.base}
    rated = [json.loads(p.read_text()) for p in sorted((folder / "data" / "compare").glob("*.json"))
             if p.name != "index.json"]
    with_records = [m for m in rated if any(a["records"] for a in m["arena"])]
    assert with_records  # the win-rate matrix's models carry their observed records
    m = with_records[0]
    spelling, opp = next((a["model"], k) for a in m["arena"] for k in a["records"])
    i, j = snap.arena.winrate.models.index(spelling), snap.arena.winrate.models.index(opp)
    rec = next(a for a in m["arena"] if a["model"] == spelling)["records"][opp]
    assert rec["battles"] == snap.arena.winrate.battles[i][j] and rec["share"] == snap.arena.winrate.empirical[i][j]


def test_compare_without_javascript_points_to_downloads(open_page):
    page = open_page("compare/?m=a,b", java_script_enabled=False)
    text = page.text_content("main")
    assert "needs JavaScript" in text and "data/compare/" in text
    assert page.get_attribute("noscript a[href$='index.json']", "href") == "../data/compare/index.json"
    assert page.is_hidden("#compare")


def test_model_page_and_rows_link_to_compare(open_page, site):
    _, _, snap = site
    top = next(b for b in snap.boards if b.id == "orchestrator").rows[0].identity
    page = open_page(f"models/{top}/")
    href = page.get_attribute("a[href*='compare/?m=']", "href")
    assert href.endswith(f"compare/?m={top}")
    board = open_page("boards/orchestrator/")
    links = board.eval_on_selector_all("#board-table tbody tr a.compare-link", "as => as.map(a => a.href)")
    assert len(links) == len(next(b for b in snap.boards if b.id == "orchestrator").rows)


def test_what_changed_page_and_feed(open_page, site):
    origin, folder, snap = site
    page = open_page("changes/2026-11-22/")
    assert page.text_content("h1") == "What changed on 2026-11-22"
    rows = page.eval_on_selector_all("table.changes tbody tr",
                                     "rs => rs.filter(r => r.dataset.identity).map(r => [r.dataset.kind, "
                                     "r.dataset.identity, r.cells[1].textContent, r.cells[2].textContent])")
    assert ["rank", "gpt-6", "rank 3", "rank 2"] in rows  # hand-checked in tests/test_diff.py
    reasons = page.text_content("table.changes tbody tr[data-identity='gpt-6']")
    assert "a new source value: arena/text 1503.45 -> 1501.95" in reasons
    assert "claude-opus-4.8" in page.text_content("#removed-models + ul")
    assert axe_violations(page) == []
    # every page's head names the feed; the feed parses as Atom 1.0, one entry per snapshot
    href = page.get_attribute("link[rel=alternate][type='application/atom+xml']", "href")
    assert href == "../../feed.xml"
    feed = feedparser.parse((folder / "feed.xml").read_bytes())
    assert not feed.bozo, feed.get("bozo_exception")
    assert feed.version == "atom10"
    dates = [p.stem for p in list_snapshots(ROOT / "snapshots")]
    assert [e.link for e in feed.entries] == [f"{origin}/s/changes/{d}/" for d in reversed(dates)]
    by_link = {e.link: e for e in feed.entries}
    assert by_link[f"{origin}/s/changes/2026-11-22/"].title.startswith("2026-11-22: 3 removed models")
    index = open_page("changes/")
    assert len(index.eval_on_selector_all(".changes-list li", "ls => ls")) == len(dates)
    assert axe_violations(index) == []
