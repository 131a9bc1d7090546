"""The Arena and Evals pages, built by the real pipeline from the bundled demo data.

Every number on the pages is checked against the snapshot the same build wrote; the
downloads must read back to the snapshot's values; hostile strings injected into a copy of
the snapshot's arena and evals sections must come out escaped.
"""

from __future__ import annotations

import copy
import csv
import io
import itertools
import json
import math
import re
import statistics
from datetime import UTC, datetime
from html.parser import HTMLParser
from pathlib import Path

import pytest

from builder.errors import UserError
from builder.render.pages.arena import (
    RATING_COLUMNS,
    heat_class,
    nice_ticks,
    spelling_identities,
)
from builder.render.pages.evals import compute_significance_matrix
from builder.render.site import render_site
from builder.snapshot import validate_snapshot
from builder.snapshot.models import EvalPair
from builder.util.text import model_slug

ROOT = Path(__file__).resolve().parents[1]
NOW = datetime(2026, 11, 30, 12, tzinfo=UTC)
EVIL = "<img src=x onerror=alert(1)>"
EVIL_ESCAPED = "&lt;img src=x onerror=alert(1)&gt;"


# --------------------------------------------------------------------------- a tiny DOM

VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}


class Node:
    def __init__(self, tag: str, attrs: dict[str, str | None], parent: Node | None):
        self.tag, self.attrs, self.parent, self.children = tag, attrs, parent, []

    def find_all(self, tag: str, **attrs: str) -> list[Node]:
        out = []
        for c in self.children:
            if isinstance(c, Node):
                if c.tag == tag and all(c.attrs.get(k.rstrip("_")) == v for k, v in attrs.items()):
                    out.append(c)
                out.extend(c.find_all(tag, **attrs))
        return out

    def find(self, tag: str, **attrs: str) -> Node:
        found = self.find_all(tag, **attrs)
        assert found, f"no <{tag} {attrs}>"
        return found[0]

    def classes(self) -> set[str]:
        return set((self.attrs.get("class") or "").split())

    @property
    def text(self) -> str:
        return "".join(c if isinstance(c, str) else c.text for c in self.children)

    def direct(self, tag: str) -> list[Node]:
        return [c for c in self.children if isinstance(c, Node) and c.tag == tag]


class _Builder(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.root = Node("#root", {}, None)
        self.cur = self.root

    def handle_starttag(self, tag, attrs):
        node = Node(tag, dict(attrs), self.cur)
        self.cur.children.append(node)
        if tag not in VOID:
            self.cur = node

    def handle_startendtag(self, tag, attrs):
        self.cur.children.append(Node(tag, dict(attrs), self.cur))

    def handle_endtag(self, tag):
        n = self.cur
        while n is not None and n.tag != tag:
            n = n.parent
        if n is not None and n.parent is not None:
            self.cur = n.parent

    def handle_data(self, data):
        self.cur.children.append(data)


def parse(path: Path) -> Node:
    b = _Builder()
    b.feed(path.read_text(encoding="utf-8"))
    return b.root


def fkey(cell: Node, attr: str = "data-sort") -> float | None:
    v = cell.attrs.get(attr)
    return None if v in (None, "") else float(v)


def same(a: float | None, b: float | None) -> bool:
    if a is None or b is None:
        return a is None and b is None
    return math.isclose(a, b, rel_tol=0, abs_tol=1e-12)


# --------------------------------------------------------------------------- fixtures


@pytest.fixture(scope="module")
def built(demo_build) -> tuple[dict, Path, object]:
    """(snapshot, site folder, cfg) of the bundled demo build (the session's ``demo_build``)."""
    assert (demo_build.now, demo_build.base_url) == (NOW, "https://example.org/mb/")
    snap = json.loads(demo_build.snapshot.read_text(encoding="utf-8"))
    assert snap.get("arena") and snap.get("evals"), "the demo build must carry arena and evals sections"
    return snap, demo_build.site, demo_build.config()[0]


@pytest.fixture(scope="module")
def hostile(built, tmp_path_factory) -> tuple[dict, Path]:
    """A copy of the snapshot with hostile strings in the arena and evals sections, rendered."""
    snap, _, cfg = built
    s = copy.deepcopy(snap)
    arena = s["arena"]
    old = arena["models"][0]["model"]
    arena["models"][0]["model"] = EVIL
    arena["source"] = EVIL + ".jsonl"
    arena["winrate"]["models"] = [EVIL if m == old else m for m in arena["winrate"]["models"]]
    arena["filters"] = {"anony": 1234, EVIL: 5}
    arena["bad_rows"] = {"missing_model": 3, "same_model": 2, "unknown_winner": 1}
    arena["components"] = [arena["components"][0], {"models": ["x-1", "x-2"], "n_battles": 77}]
    arena["unrated"] = [{"models": [EVIL], "reason": "lost every battle " + EVIL}]
    # every Arena spelling is a spelling of a known model (the snapshot schema requires it)
    s["models"][next(iter(s["models"]))]["spellings"] += [EVIL, "x-1", "x-2"]
    suite = s["evals"]["suites"][0]
    old_id = suite["boards"][suite["metric"]]["rows"][0]["model_id"]
    suite["title"] = "Suite " + EVIL
    suite["description"] = EVIL
    for board in suite["boards"].values():
        for r in board["rows"]:
            if r["model_id"] == old_id:
                r["model_id"] = EVIL
                r["categories"] = {EVIL if k == next(iter(r["categories"]), None) else k: v
                                   for k, v in r["categories"].items()}
        for p in board["pairwise"]:
            p["model_a"] = EVIL if p["model_a"] == old_id else p["model_a"]
            p["model_b"] = EVIL if p["model_b"] == old_id else p["model_b"]
    clar = next(x for x in s["evals"]["suites"] if x.get("clarify"))
    clar["clarify"]["models"][EVIL] = dict(next(iter(clar["clarify"]["models"].values())))
    clar["clarify"]["models"][EVIL]["tkqr_above_one"] = 2  # records with more hits than key questions
    clar["clarify"]["overall"]["tkqr_above_one"] = 2
    out = tmp_path_factory.mktemp("hostile-site")
    render_site(validate_snapshot(s), [], cfg, ROOT, out, now=NOW, base_url="https://example.org/mb/")
    return s, out


# --------------------------------------------------------------------------- pages and menu


def test_clarify_records_above_one_are_flagged_on_the_suite_page(built, hostile):
    snap, site, _ = built
    clar = next(x for x in snap["evals"]["suites"] if x.get("clarify"))
    page = f"evals/{clar['id']}/index.html"
    assert clar["clarify"]["overall"]["tkqr_above_one"] == 0
    assert 'id="clarify-flag"' not in (site / page).read_text()
    _, out = hostile
    flag = parse(out / page).find("p", id="clarify-flag")
    assert flag is not None and "2 records count more hits than key questions" in flag.text
    assert "TKQR is above 1" in flag.text and ": 2." in flag.text


def test_pages_exist_in_the_sitemap_and_menu(built):
    snap, site, _ = built
    sitemap = (site / "sitemap.xml").read_text()
    assert "https://example.org/mb/arena/" in sitemap
    assert "https://example.org/mb/evals/" in sitemap
    for suite in snap["evals"]["suites"]:
        assert (site / "evals" / suite["id"] / "index.html").is_file()
        assert f"https://example.org/mb/evals/{suite['id']}/" in sitemap
    nav = [a.text for a in parse(site / "arena" / "index.html").find("nav", **{"aria-label": "Main"}).find_all("a")]
    assert nav.index("Arena") + 1 == nav.index("Evals")
    assert nav.index("Evals") < nav.index("Evidence") < nav.index("Race")
    for page in [site / "arena" / "index.html", site / "evals" / "index.html",
                 *[site / "evals" / s["id"] / "index.html" for s in snap["evals"]["suites"]]]:
        html = page.read_text()
        dom = parse(page)
        assert len(dom.find_all("h1")) == 1, page
        assert not re.search(r"\sstyle=", html), page  # CSP: no inline style attributes
        assert all(sc.attrs.get("src") for sc in dom.find_all("script")), page  # no inline script
        for th in dom.find_all("th"):
            assert th.attrs.get("scope") in ("col", "row"), (page, th.text)


# --------------------------------------------------------------------------- arena


def test_every_arena_row_matches_the_snapshot(built):
    snap, site, _ = built
    arena = snap["arena"]
    dom = parse(site / "arena" / "index.html")
    table = dom.find("table", id="arena-table")
    assert "sortable" in table.classes()
    rows = {tr.attrs["data-model"]: tr for tr in table.find("tbody").direct("tr")}
    assert set(rows) == {m["model"] for m in arena["models"]} and len(rows) == len(arena["models"])
    keys = [th.attrs.get("data-key") for th in table.find("thead").find_all("th")]
    index = spelling_identities(validate_snapshot(snap).models)
    for m in arena["models"]:
        cells = rows[m["model"]].direct("td")
        by_key = dict(zip(keys, cells, strict=False))
        for k in ("rank", "rank_ub", "rating", "lower", "battles", "wins", "ties", "win_rate", "elo"):
            assert same(fkey(by_key[k]), m[k]), (m["model"], k)
        assert same(fkey(by_key["lower"], "data-upper"), m["upper"])
        assert by_key["rating"].text.strip() == f"{m['rating']:.1f}"
        assert by_key["lower"].text.strip() == f"{m['lower']:.1f} – {m['upper']:.1f}"
        assert by_key["win_rate"].text.strip() == f"{m['win_rate'] * 100:.1f}%"
        link = by_key["model"].find_all("a")
        ident = index.get(m["model"]) or index.get(m["model"].casefold())
        if ident:
            assert link and link[0].attrs["href"] == f"../models/{model_slug(ident)}/" and link[0].text == m["model"]
        else:
            assert not link
        # the CI bar: a hidden SVG with a title, a rect for the interval and a line for the point
        svg = rows[m["model"]].find("svg")
        assert svg.attrs.get("aria-hidden") == "true" and svg.find("title").text.startswith(m["model"])
        assert svg.find("rect", **{"class": "ci-range"}) and svg.find("line", **{"class": "ci-point"})
    # bars share one axis: the rect's left edge orders like the lower bounds, the point like the ratings
    geo = [(m, rows[m["model"]].find("rect", **{"class": "ci-range"}),
            rows[m["model"]].find("line", **{"class": "ci-point"})) for m in arena["models"]]
    for (m1, r1, p1), (m2, r2, p2) in itertools.pairwise(geo):
        if m1["lower"] < m2["lower"] - 1:
            assert float(r1.attrs["x"]) < float(r2.attrs["x"])
        if m1["rating"] > m2["rating"] + 1:
            assert float(p1.attrs["x1"]) > float(p2.attrs["x1"])


def test_arena_page_shows_the_rating_changes(built):
    snap, site, _ = built
    arena = snap["arena"]
    changes = arena["changes"]
    # the saved statistics are those of the saved history (no refit at render time)
    path, last_matches = {}, {}
    for sl in sorted(arena["history"], key=lambda s: s["date"]):
        for m in sl["models"]:
            path.setdefault(m["model"], []).append(m["rating"])
            last_matches[m["model"]] = m["matches"]
    assert {c["model"] for c in changes} == set(path)
    for c in changes:
        vals = path[c["model"]]
        assert (c["initial"], c["final"], c["highest"], c["lowest"], c["slices"]) == (
            vals[0], vals[-1], max(vals), min(vals), len(vals))
        # volatility: the sample standard deviation of the model's ratings over the slices
        want_vol = statistics.stdev(vals) if len(vals) > 1 else None
        assert (c["volatility"] is None) == (want_vol is None)
        if want_vol is not None:
            assert c["volatility"] == pytest.approx(want_vol, abs=0.006)
        assert c["total_matches"] == last_matches[c["model"]] > 0
    table = parse(site / "arena" / "index.html").find("table", id="changes-table")
    assert "sortable" in table.classes()
    rows = {tr.attrs["data-model"]: tr for tr in table.find("tbody").direct("tr")}
    assert list(rows) == [c["model"] for c in changes]
    keys = [th.attrs.get("data-key") for th in table.find("thead").find_all("th")]
    for c in changes:
        by_key = dict(zip(keys, rows[c["model"]].direct("td"), strict=True))
        for k in ("initial", "final", "change", "highest", "lowest", "volatility", "slices"):
            assert same(fkey(by_key[k]), c[k]), (c["model"], k)
        assert by_key["matches"].text.strip() == str(c["total_matches"])
        assert by_key["change"].text.strip() == f"{c['change']:+.1f}"
        want = "–" if c["volatility"] is None else f"{c['volatility']:.1f}"
        assert by_key["volatility"].text.strip() == want


def test_arena_charts_method_and_links(built):
    snap, site, _ = built
    arena = snap["arena"]
    html = (site / "arena" / "index.html").read_text()
    dom = parse(site / "arena" / "index.html")
    spread = dom.find("svg", **{"class": "spread"})
    assert spread.attrs.get("role") == "img" and spread.attrs.get("aria-label")
    labels = [t.text for t in spread.find_all("text", **{"class": "chart-label"})]
    by_rating = sorted(arena["models"], key=lambda m: -m["rating"])
    assert labels == [m["model"] for m in by_rating]  # sorted by rating, every model
    assert len(spread.find_all("rect", **{"class": "ci-range"})) == len(arena["models"])
    battles = dom.find("svg", **{"class": "battles"})
    values = [int(t.text) for t in battles.find_all("text", **{"class": "chart-value"})]
    assert values == sorted((m["battles"] for m in arena["models"]), reverse=True)
    assert 'href="../race/"' in html
    wr = arena["winrate"]
    assert f"{wr['mae']:.3f}" in html and f"<strong>{wr['pairs_used']}</strong> pairs" in html
    m = arena["method"]
    assert f"from {m['bootstrap']} bootstrap rounds" in html and f"seed {m['seed']}" in html
    assert f"{arena['rows_read']:,} rows read, {arena['n_battles']:,} battles fitted" in html
    assert "Simulated battles." in html  # the demo snapshot says where its battles came from
    for a in ('href="../data/arena/ratings.csv"', 'href="../data/arena/ratings.json"',
              'href="../data/arena/winrate.json"'):
        assert a in html


def test_heatmap_is_top_n_by_top_n_with_printed_numbers(built):
    snap, site, cfg = built
    wr = snap["arena"]["winrate"]
    n = len(wr["models"])
    assert n == min(cfg.arena.top_heatmap, len(snap["arena"]["models"])) and n > 1
    table = parse(site / "arena" / "index.html").find("table", id="heatmap")
    head = [th.text for th in table.find("thead").find_all("th")]
    assert head == wr["models"]
    body = table.find("tbody").direct("tr")
    assert len(body) == n
    for i, tr in enumerate(body):
        assert wr["models"][i] in tr.find("th").text
        cells = tr.direct("td")
        assert len(cells) == n
        for j, td in enumerate(cells):
            if i == j:
                assert "heat-diag" in td.classes()
                continue
            p = wr["predicted"][i][j]
            assert td.text.strip() == f"{p * 100:.0f}"  # the number is printed in every cell
            assert heat_class(p) in td.classes() and heat_class(p) == f"heat-{min(9, int(p * 10))}"
            assert same(fkey(td, "data-p"), p)
    observed = parse(site / "arena" / "index.html").find("table", id="heatmap-observed")
    assert len(observed.find("tbody").direct("tr")) == n


def test_arena_downloads_round_trip(built):
    snap, site, _ = built
    models = snap["arena"]["models"]
    with open(site / "data" / "arena" / "ratings.csv", newline="", encoding="utf-8") as fh:
        reader = csv.DictReader(fh)
        assert tuple(reader.fieldnames) == RATING_COLUMNS
        got = list(reader)
    assert [r["model"] for r in got] == [m["model"] for m in models]
    for r, m in zip(got, models, strict=False):
        for c in RATING_COLUMNS[1:]:
            want = m[c]
            assert (r[c] == "" if want is None else float(r[c]) == want), (m["model"], c)
            if isinstance(want, int):
                assert r[c] == str(want)
    doc = json.loads((site / "data" / "arena" / "ratings.json").read_text(encoding="utf-8"))
    assert doc == [{c: m[c] for c in RATING_COLUMNS} for m in models]
    wr = json.loads((site / "data" / "arena" / "winrate.json").read_text(encoding="utf-8"))
    for k in ("models", "predicted", "empirical", "battles", "mae", "pairs_used"):
        assert wr[k] == snap["arena"]["winrate"][k]
    assert wr["min_pair_battles"] == snap["arena"]["method"]["min_pair_battles"]


# --------------------------------------------------------------------------- evals


def _board_tables(dom: Node) -> dict[str, Node]:
    return {t.attrs["id"]: t for t in dom.find_all("table") if t.attrs.get("id", "").startswith("metric-")}


def test_each_suite_page_lists_every_model_with_its_numbers(built):
    snap, site, _ = built
    index = spelling_identities(validate_snapshot(snap).models)
    for suite in snap["evals"]["suites"]:
        dom = parse(site / "evals" / suite["id"] / "index.html")
        tables = _board_tables(dom)
        order = [suite["metric"]] + [m for m in suite["metrics"] if m != suite["metric"]]
        for k, metric in enumerate(order, 1):
            board = suite["boards"][metric]
            table = tables[f"metric-{k}-table"]
            assert "sortable" in table.classes()
            trs = table.find("tbody").direct("tr")
            assert [tr.attrs["data-model"] for tr in trs] == [r["model_id"] for r in board["rows"]]
            keys = [th.attrs.get("data-key") for th in table.find("thead").find_all("th")]
            assert len(keys) == 7 + len(board["categories"])
            for rank, (tr, r) in enumerate(zip(trs, board["rows"], strict=False), 1):
                cells = dict(zip(keys, tr.direct("td"), strict=False))
                assert fkey(cells["rank"]) == rank
                assert same(fkey(cells["mean"]), r["mean_score"])
                assert same(fkey(cells["ci"]), r["mean_ci_lo"])
                assert same(fkey(cells["ci"], "data-upper"), r["mean_ci_hi"])
                assert cells["ci"].text.strip() == f"{r['mean_ci_lo']:.3f} – {r['mean_ci_hi']:.3f}"
                assert same(fkey(cells["win"]), r["win_rate"])
                assert fkey(cells["tasks"]) == r["tasks_completed"]
                for c_i, cat in enumerate(board["categories"], 1):
                    assert same(fkey(cells[f"cat-{c_i}"]), r["categories"].get(cat))
                svg = tr.find("svg")
                assert svg.find("title") and svg.find("rect", **{"class": "ci-range"})
                ident = index.get(r["model_id"]) or index.get(r["model_id"].casefold())
                if ident:
                    assert tr.find("a").attrs["href"] == f"../../models/{model_slug(ident)}/"
        if suite.get("clarify"):
            ctable = dom.find("table", id="clarify-table")
            names = [tr.attrs["data-model"] for tr in ctable.find("tbody").direct("tr")]
            assert names == list(suite["clarify"]["models"])
            for tr in ctable.find("tbody").direct("tr"):
                summ = suite["clarify"]["models"][tr.attrs["data-model"]]
                cells = tr.direct("td")
                assert same(fkey(cells[1]), summ["tkqr"]) and same(fkey(cells[2]), summ["ora"])
            assert f"{suite['clarify']['overall']['tkqr']:.3f}" in ctable.find("tfoot").text
    listing = parse(site / "evals" / "index.html")
    links = [a.attrs["href"] for a in listing.find("table", id="suites-table").find_all("a")]
    for suite in snap["evals"]["suites"]:
        assert f"{suite['id']}/" in links


def test_significance_matrix_marks_exactly_the_pairs_whose_ci_excludes_zero(built):
    snap, site, _ = built
    checked = 0
    for suite in snap["evals"]["suites"]:
        dom = parse(site / "evals" / suite["id"] / "index.html")
        order = [suite["metric"]] + [m for m in suite["metrics"] if m != suite["metric"]]
        for k, metric in enumerate(order, 1):
            board = suite["boards"][metric]
            n = len(board["rows"])
            table = dom.find("table", id=f"metric-{k}-matrix")
            cells = [td for td in table.find("tbody").find_all("td") if td.attrs.get("data-a") is not None]
            assert len(cells) == n * (n - 1)
            marked = {(td.attrs["data-a"], td.attrs["data-b"]) for td in cells if td.attrs["data-significant"] == "1"}
            want = set()
            for p in board["pairwise"]:
                excludes_zero = p["ci_lo"] is not None and (p["ci_lo"] > 0 or p["ci_hi"] < 0)
                assert excludes_zero == p["significant"]
                if excludes_zero:
                    want |= {(p["model_a"], p["model_b"]), (p["model_b"], p["model_a"])}
            assert marked == want
            pairs = {(p["model_a"], p["model_b"]): p for p in board["pairwise"]}
            for td in cells:
                a, b = td.attrs["data-a"], td.attrs["data-b"]
                p, sign = (pairs[(a, b)], 1) if (a, b) in pairs else (pairs[(b, a)], -1)
                assert td.text.split()[0] == f"{sign * p['diff']:+.3f}"
                if (a, b) in want:
                    assert ("▲" if sign * p["diff"] > 0 else "▼") in td.text and "tie" not in td.text
                else:
                    assert "tie" in td.text
            checked += len(want)
    assert checked > 0, "the demo suites should have at least one real difference"


def test_eval_downloads_round_trip(built):
    snap, site, _ = built
    for suite in snap["evals"]["suites"]:
        sid = suite["id"]
        doc = json.loads((site / "data" / "evals" / f"{sid}.json").read_text(encoding="utf-8"))
        assert doc["suite"]["id"] == sid and doc["reports"][0]["metric"] == suite["metric"]
        for rep in doc["reports"]:
            board = suite["boards"][rep["metric"]]
            assert rep["rows"] == board["rows"] and rep["pairwise"] == board["pairwise"]
        assert {r["metric"] for r in doc["reports"]} == set(suite["metrics"])
        if suite.get("clarify"):
            # the download keeps the aggregate report's names (TKQR, ORA) for the snapshot's tkqr, ora
            def report(summary):
                return {{"tkqr": "TKQR", "ora": "ORA"}.get(k, k): v for k, v in summary.items()}
            assert doc["clarify"] == {"overall": report(suite["clarify"]["overall"]),
                                      "models": {m: report(x) for m, x in suite["clarify"]["models"].items()}}
            assert list(doc["clarify"]["overall"]) == ["num_tasks", "num_files", "TKQR", "ORA", "avg_turns",
                                                       "avg_diff", "tkqr_above_one"]
        shown = suite["boards"][suite["metric"]]
        assert (site / "data" / "evals" / f"{sid}.md").read_text(encoding="utf-8") == shown["markdown"]
        rows = list(csv.DictReader(io.StringIO((site / "data" / "evals" / f"{sid}.csv").read_text(encoding="utf-8"))))
        want = [(metric, r) for metric in [suite["metric"]] + [m for m in suite["metrics"] if m != suite["metric"]]
                for r in suite["boards"][metric]["rows"]]
        assert len(rows) == len(want)
        for got, (metric, r) in zip(rows, want, strict=False):
            assert got["metric"] == metric and got["model_id"] == r["model_id"]
            for c in ("mean_score", "mean_ci_lo", "mean_ci_hi", "win_rate"):
                assert float(got[c]) == r[c]
            assert int(got["tasks_completed"]) == r["tasks_completed"]
            for cat, v in r["categories"].items():
                assert float(got[f"category_{cat}"]) == v
        pw_text = (site / "data" / "evals" / f"{sid}-pairwise.csv").read_text(encoding="utf-8")
        pw = list(csv.DictReader(io.StringIO(pw_text)))
        assert sum(len(suite["boards"][m]["pairwise"]) for m in suite["metrics"]) == len(pw)
        first = suite["boards"][suite["metric"]]["pairwise"]
        for got, p in zip(pw, first, strict=False):
            assert (got["model_a"], got["model_b"]) == (p["model_a"], p["model_b"])
            assert float(got["diff"]) == p["diff"] and got["significant"] == ("true" if p["significant"] else "false")


# --------------------------------------------------------------------------- hostile strings


def test_hostile_strings_render_escaped(hostile):
    s, out = hostile
    pages = [out / "arena" / "index.html", out / "evals" / "index.html"]
    pages += [out / "evals" / x["id"] / "index.html" for x in s["evals"]["suites"]]
    for page in pages:
        html = page.read_text(encoding="utf-8")
        assert "<img" not in html, page
        assert EVIL_ESCAPED in html, page
        assert not re.search(r"\sstyle=", html), page
    arena = (out / "arena" / "index.html").read_text(encoding="utf-8")
    # the disconnected graph, the unrated models, the filters and bad rows are reported
    assert "The battle graph is disconnected." in arena and "77 battles" in arena
    assert "No finite rating for some models" in arena and "lost every battle " + EVIL_ESCAPED in arena
    assert "anony: 1,234 rows removed" in arena and "6 in total" in arena
    # the escaped name is the row's model cell and a heatmap header, never markup
    dom = parse(out / "arena" / "index.html")
    assert EVIL in {tr.attrs["data-model"] for tr in dom.find("table", id="arena-table").find("tbody").direct("tr")}
    assert EVIL in [th.text for th in dom.find("table", id="heatmap").find("thead").find_all("th")]
    # a suite id that is not URL-safe never reaches the pages: the snapshot schema refuses it
    escape = copy.deepcopy(s)
    escape["evals"]["suites"][0]["id"] = "../../escape"
    with pytest.raises(UserError, match=r"evals\.suites\[0\]\.id: String should match pattern"):
        validate_snapshot(escape)
    # downloads keep the string as data
    ratings = json.loads((out / "data" / "arena" / "ratings.json").read_text(encoding="utf-8"))
    assert ratings[0]["model"] == EVIL


# --------------------------------------------------------------------------- units


def test_significance_matrix_orientation():
    pairs = [
        EvalPair(model_a="a", model_b="b", diff=0.2, ci_lo=0.1, ci_hi=0.3, n_tasks=9, significant=True),
        EvalPair(model_a="a", model_b="c", diff=0.05, ci_lo=-0.01, ci_hi=0.1, n_tasks=9, significant=False),
        EvalPair(model_a="b", model_b="c", diff=None, ci_lo=None, ci_hi=None, n_tasks=0, significant=False),
    ]
    m = compute_significance_matrix(["a", "b", "c"], pairs)
    assert [c["state"] for c in m[0]] == ["diag", "better", "tie"]
    assert [c["state"] for c in m[1]] == ["worse", "diag", "none"]
    assert m[1][0]["diff"] == -0.2 and (m[1][0]["ci_lo"], m[1][0]["ci_hi"]) == (-0.3, -0.1)
    assert m[2][0]["diff"] == -0.05 and not m[2][0]["significant"]


def test_heat_buckets_and_ticks():
    assert [heat_class(p) for p in (0.0, 0.0999, 0.1, 0.5, 0.95, 1.0, None, float("nan"))] == [
        "heat-0", "heat-0", "heat-1", "heat-5", "heat-9", "heat-9", "heat-na", "heat-na"]
    assert nice_ticks(851.3, 1168.2) == [900, 950, 1000, 1050, 1100, 1150]
    assert nice_ticks(0, 1) == [0, 0.2, 0.4, 0.6, 0.8, 1.0]
    assert nice_ticks(5, 5) == []
