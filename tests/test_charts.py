"""Charts without a browser: the Pareto frontier on hand-built cases, the chart data against
the snapshots it came from, the build-time SVG (one mark per data point), and hostile names.
"""

from __future__ import annotations

import csv
import io
import json
import math
import re
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

import pytest
from fixtures.make_snapshot import arena_only_model, full_arena, make_snapshot

from builder.charts.data import (
    DEFAULT_LINES,
    RANK_TOP,
    compute_chart_data,
    compute_dot_stacks,
    compute_price_quality,
    nice_bin_width,
    render_chart_csv,
)
from builder.charts.pareto import PricePoint, compute_pareto_frontier
from builder.charts.svg import linear_ticks, log_ticks, spread_labels
from builder.config import load_config
from builder.render.site import render_site
from builder.snapshot import validate_snapshot
from builder.util.text import model_slug

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "tests" / "fixtures"
NOW = datetime(2026, 11, 30, 12, tzinfo=UTC)


# --------------------------------------------------------------------------- Pareto


def _front(points):
    return compute_pareto_frontier([PricePoint(k, p, s) for k, p, s in points])


def test_distribution_quartiles_whiskers_and_bins():
    import numpy as np

    from builder.charts.distribution import (
        compute_box_summary,
        compute_histogram,
        compute_rating_distribution,
        nice_width,
        quantile,
    )

    values = [1000.0, 1010.0, 1012.0, 1020.0, 1030.0, 1031.0, 1040.0, 1200.0]
    for p in (0.0, 0.25, 0.5, 0.75, 1.0):
        assert quantile(values, p) == pytest.approx(float(np.quantile(values, p)))
    named = [(f"m{k}", v) for k, v in enumerate(values)]
    box = compute_box_summary(named)
    # q1 = 1010 + 0.75 * 2 = 1011.5; q3 = 1031 + 0.25 * 9 = 1033.25; IQR 21.75, fences 978.875 and 1065.875
    assert (box.q1, box.median, box.q3) == pytest.approx((1011.5, 1025.0, 1033.25))
    assert (box.whisker_lo, box.whisker_hi) == (1000.0, 1040.0)
    assert [(o.name, o.rating) for o in box.outliers] == [("m7", 1200.0)]
    assert box.mean == pytest.approx(sum(values) / 8) and box.n == 8
    assert nice_width(1000, 1200) == 20.0 and nice_width(5, 5) == 1.0
    bins = compute_histogram(named, 20.0)
    assert (bins[0].lo, bins[-1].hi, len(bins)) == (1000.0, 1220.0, 11)
    assert [b.count for b in bins] == [3, 3, 1, 0, 0, 0, 0, 0, 0, 0, 1]
    assert bins[1].models == ("m5", "m4", "m3")  # best first
    assert sum(b.count for b in bins) == 8
    doc = compute_rating_distribution([{"name": n, "rating": v} for n, v in named], title="T", unit="U")
    assert doc["n"] == 8 and doc["box"]["outliers"] == [{"name": "m7", "rating": 1200.0}]
    assert compute_rating_distribution([], title="T", unit="U") is None


def test_pareto_frontier_hand_built_case():
    res = _front([
        ("a", 1.0, 1300),     # cheapest: on
        ("b", 2.0, 1350),     # better, dearer: on
        ("b-twin", 2.0, 1350),  # same price and score as b: on too (neither dominates)
        ("c", 2.0, 1340),     # same price as b, worse: off
        ("d", 3.0, 1350),     # same score as b, dearer: off
        ("e", 4.0, 1400),     # on
        ("f", None, 1500),    # no price: left out, listed
        ("g", 5.0, 1390),     # dearer and worse than e: off
        ("h", float("nan"), 1200),  # not a price: left out
        ("i", 0.5, 1250),     # cheapest of all: on
        ("j", -1.0, 1600),    # negative: left out
        ("k", 4.0, 1400),     # ties e exactly: on
    ])
    assert res.frontier == ("i", "a", "b", "b-twin", "e", "k")
    assert res.missing == ("f", "h", "j")


def test_pareto_frontier_edge_cases():
    assert _front([]).frontier == ()
    assert _front([("x", None, 1)]).missing == ("x",)
    # all at one price: only the best survive, in input order
    assert _front([("p", 1, 5), ("q", 1, 7), ("r", 1, 7)]).frontier == ("q", "r")
    # all at one score: only the cheapest survive
    assert _front([("p", 3, 5), ("q", 1, 5), ("r", 2, 5)]).frontier == ("q",)
    # a free model counts as a price (0) and dominates everything no better
    assert _front([("free", 0.0, 10), ("paid", 1.0, 10), ("best", 9.0, 11)]).frontier == ("free", "best")


def test_pareto_frontier_matches_the_definition_on_random_points():
    import numpy as np

    rng = np.random.default_rng(7)
    for _ in range(50):
        n = int(rng.integers(1, 25))
        pts = [PricePoint(str(k), float(rng.integers(1, 6)) if rng.random() > 0.1 else None, float(rng.integers(0, 6)))
               for k in range(n)]
        got = set(compute_pareto_frontier(pts).frontier)
        priced = [p for p in pts if p.price is not None]
        want = {p.key for p in priced if not any(
            q.price <= p.price and q.score >= p.score and (q.price < p.price or q.score > p.score) for q in priced)}
        assert got == want


# --------------------------------------------------------------------------- small pieces


def test_dot_stacks_and_bins():
    assert nice_bin_width(1300, 1460, 16) == 10
    assert nice_bin_width(5, 5) == 1.0
    assert compute_dot_stacks([1301, 1309, 1310, 1302], 10) == [(130, 0), (130, 1), (131, 0), (130, 2)]


def test_ticks_and_labels():
    assert linear_ticks(1400, 1520, 5) == [1400, 1420, 1440, 1460, 1480, 1500, 1520]
    assert log_ticks(0.04, 20) == [0.1, 1.0, 10.0]
    assert log_ticks(0.3, 4) == [0.5, 1.0, 2.0]
    ys = spread_labels([10, 11, 12, 100], 13, 0, 200)
    assert all(abs(a - b) >= 13 - 1e-9 for i, a in enumerate(ys) for b in ys[i + 1:])


# --------------------------------------------------------------------------- site


def _history(n: int, models: int = 18) -> list[dict]:
    snaps, prev = [], None
    last = NOW.date()
    for k in range(n):
        day = (last - timedelta(days=7 * (n - 1 - k))).isoformat()
        prev = make_snapshot(models, seed=300 + k, day=day, previous=prev)
        snaps.append(prev)
    return snaps


def _arena(snap: dict, n_slices: int = 4) -> dict:
    """A hand-made Arena section over the snapshot's first models (spelled as their identities)
    and one model only the Arena rates, with intervals on every slice except the first."""
    arena_only_model(snap, "only-in-the-arena")
    idents = list(snap["models"])[:8] + ["only-in-the-arena"]
    models, history = [], []
    for k, m in enumerate(idents):
        r = 1100.0 - 15 * k
        models.append({"model": m, "rating": r, "lower": r - 20 - k, "upper": r + 20 + k, "rank": k + 1,
                       "rank_ub": 1, "component": 0})
    start = date(2026, 10, 1)
    for s in range(n_slices):
        sl = {"date": (start + timedelta(days=30 * s)).isoformat(), "n_battles": 100 * (s + 1), "models": []}
        for k, m in enumerate(idents[: 5 + s]):
            r = 1000.0 + 10 * s - 12 * k + (k % 3)
            row = {"model": m, "rating": r, "rank": k + 1}
            if s:
                row["lower"], row["upper"] = r - 30, r + 30
            sl["models"].append(row)
        history.append(sl)
    return full_arena(models, history, n_battles=999)


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    cfg, _ = load_config(FIXTURES / "site.yml")
    snaps = _history(5)
    snaps[-1]["arena"] = _arena(snaps[-1])
    # one row without a price and one partial row, so both cases are drawn
    board = snaps[-1]["boards"][0]
    board["rows"][2]["token_price"] = None
    board["rows"][3]["partial"] = True
    out = tmp_path_factory.mktemp("charts-site")
    render_site(validate_snapshot(snaps[-1]), [validate_snapshot(s) for s in snaps[:-1]], cfg, ROOT, out, now=NOW,
                base_url="https://example.org/mb/")
    return out, snaps


def _doc(out: Path, kind: str) -> dict:
    return json.loads((out / "data" / "charts" / f"{kind}.json").read_text(encoding="utf-8"))


def _panels(html: str) -> dict[str, str]:
    parts = re.split(r'(?=<section class="chart-panel")', html)[1:]
    return {re.search(r'data-series="([^"]+)"', p).group(1): p.split("</section>")[0] for p in parts}


def _marks(panel_html: str) -> int:
    svg = re.search(r"<svg class=\"chart-svg.*?</svg>", panel_html, re.DOTALL)
    return len(re.findall(r'<(?:path|circle|rect|g) class="mark[ "]', svg.group(0))) if svg else 0


def test_pages_and_data_files_exist(built):
    out, _ = built
    for kind in ("price-quality", "history", "ranks", "spread"):
        assert (out / "charts" / kind / "index.html").is_file()
        assert (out / "data" / "charts" / f"{kind}.json").is_file()
        assert (out / "data" / "charts" / f"{kind}.csv").is_file()
    index = (out / "charts" / "index.html").read_text(encoding="utf-8")
    assert 'href="price-quality/"' in index and "data/charts/spread.csv" in index
    board_page = (out / "boards" / "orchestrator" / "index.html").read_text(encoding="utf-8")
    assert '<a href="../../charts/">Charts</a>' in board_page
    sitemap = (out / "sitemap.xml").read_text(encoding="utf-8")
    assert "https://example.org/mb/charts/history/" in sitemap


def test_price_quality_data_matches_the_snapshot(built):
    out, snaps = built
    snap = snaps[-1]
    doc = _doc(out, "price-quality")
    assert doc["date"] == snap["date"] and doc["as_of"] == snap.get("as_of")
    for board, b in zip(snap["boards"], doc["boards"], strict=False):
        assert b["id"] == board["id"]
        rows = [r for r in board["rows"] if r.get("rank") is not None]
        priced = [r for r in rows if r.get("token_price") not in (None, 0)]
        assert [p["identity"] for p in b["points"]] == [r["identity"] for r in priced]
        for p, r in zip(b["points"], priced, strict=False):
            want = (r["rank"], r["score"], r["token_price"], r["partial"])
            assert (p["rank"], p["score"], p["price"], p["partial"]) == want
            assert p["open_weight"] == snap["models"][r["identity"]].get("open_weight")
            assert p["href"] == f"models/{model_slug(r['identity'])}/"
        assert {q["identity"] for q in b["left_out"]} == {r["identity"] for r in rows} - {r["identity"] for r in priced}
        # the frontier is the definition's
        pts = b["points"]
        for p in pts:
            dominated = any(q["price"] <= p["price"] and q["score"] >= p["score"]
                            and (q["price"] < p["price"] or q["score"] > p["score"]) for q in pts)
            assert p["frontier"] is (not dominated)
    first = doc["boards"][0]
    unpriced = [r["identity"] for r in snap["boards"][0]["rows"] if r.get("token_price") is None]
    assert [q["identity"] for q in first["left_out"]] == unpriced
    assert snap["boards"][0]["rows"][2]["identity"] in unpriced
    assert all(q["reason"] == "no blended token price in the snapshot" for q in first["left_out"])
    text = (out / "data" / "charts" / "price-quality.csv").read_text(encoding="utf-8")
    rows = list(csv.DictReader(io.StringIO(text)))
    assert len(rows) == sum(len(b["points"]) + len(b["left_out"]) for b in doc["boards"])
    on = [r for r in rows if r["board"] == first["id"] and r["on_frontier"] == "true"]
    assert sorted(r["identity"] for r in on) == sorted(first["frontier"])
    assert float(rows[0]["token_price"]) == first["points"][0]["price"]  # unrounded


def test_history_and_ranks_data_match_the_snapshots(built):
    out, snaps = built
    hist, ranks = _doc(out, "history"), _doc(out, "ranks")
    series = {s["id"]: s for s in hist["series"]}
    assert set(series) == {b["id"] for b in snaps[-1]["boards"]} | {"arena"}
    orch = series["orchestrator"]
    assert orch["dates"] == [s["date"] for s in snaps]
    for m in orch["models"]:
        for p in m["points"]:
            snap = next(s for s in snaps if s["date"] == p["date"])
            row = next(r for r in snap["boards"][0]["rows"] if r["identity"] == m["key"])
            assert (p["value"], p["rank"], p["score"]) == (row["r"], row["rank"], row["score"])
    latest = [r["identity"] for r in snaps[-1]["boards"][0]["rows"]][:DEFAULT_LINES]
    assert orch["default"] == latest
    arena = series["arena"]
    assert arena["bands"] and arena["dates"] == [sl["date"] for sl in snaps[-1]["arena"]["history"]]
    assert "lower" not in arena["models"][0]["points"][0] and "lower" in arena["models"][0]["points"][-1]
    for s in ranks["series"]:
        for m in s["models"]:
            assert min(p["rank"] for p in m["points"]) <= RANK_TOP
        ever = {m["key"] for m in series[s["id"]]["models"] if m["best_rank"] <= RANK_TOP}
        assert {m["key"] for m in s["models"]} == ever
    n = sum(len(m["points"]) for s in hist["series"] for m in s["models"])
    assert len(render_chart_csv(hist).splitlines()) == n + 1


def test_spread_data_matches_the_snapshot(built):
    out, snaps = built
    doc = _doc(out, "spread")
    arena = snaps[-1]["arena"]
    ratings = [m["rating"] for m in doc["arena"]["models"]]
    assert ratings == sorted(ratings, reverse=True)
    assert len(ratings) == len(arena["models"])
    by_name = {m["name"]: m for m in doc["arena"]["models"]}
    assert by_name["only-in-the-arena"]["href"] == "models/only-in-the-arena/"  # facts from scoring, a page
    assert doc["arena"]["models"][0]["href"] == f"models/{model_slug(arena['models'][0]['model'])}/"
    for board, b in zip(snaps[-1]["boards"], doc["boards"], strict=False):
        assert [p["score"] for p in b["points"]] == [r["score"] for r in board["rows"] if r.get("rank") is not None]
        for p in b["points"]:
            assert p["bin"] == math.floor(p["score"] / b["width"])


def test_static_svg_has_one_mark_per_data_point(built):
    out, _ = built
    docs = {k: _doc(out, k) for k in ("price-quality", "history", "ranks", "spread")}
    def page(k):
        return _panels((out / "charts" / k / "index.html").read_text(encoding="utf-8"))
    pq = page("price-quality")
    for b in docs["price-quality"]["boards"]:
        assert _marks(pq[b["id"]]) == len(b["points"]) > 0
        assert pq[b["id"]].count('fill="none" stroke="currentColor" stroke-width="2"><title>') == sum(
            p["partial"] for p in b["points"])  # partial rows hollow
        assert pq[b["id"]].count("<path class=\"mark ow") == sum(p["open_weight"] is True for p in b["points"])
    hist = page("history")
    for s in docs["history"]["series"]:
        want = sum(len(m["points"]) for m in s["models"] if m["key"] in s["default"])
        assert _marks(hist[s["id"]]) == want > 0
    arena_hist = hist["arena"]
    assert '<path class="band' in arena_hist
    rk = page("ranks")
    for s in docs["ranks"]["series"]:
        assert _marks(rk[s["id"]]) == sum(len(m["points"]) for m in s["models"]) > 0
    sp = page("spread")
    assert _marks(sp["arena"]) == len(docs["spread"]["arena"]["models"])
    dist = docs["spread"]["distribution"]
    assert _marks(sp["arena-distribution"]) == sum(b["count"] > 0 for b in dist["bins"]) > 0
    assert '<g class="box"><title>median' in sp["arena-distribution"]
    for b in docs["spread"]["boards"]:
        assert _marks(sp[b["id"]]) == len(b["points"])
    # every chart page: a caption, a table and the link to its data
    for k in docs:
        html = (out / "charts" / k / "index.html").read_text(encoding="utf-8")
        assert html.count("<figcaption>") >= 1 and "<table" in html
        assert f'href="../../data/charts/{k}.json"' in html and f'href="../../data/charts/{k}.csv"' in html
        assert " style=" not in html and "<script>" not in html  # the CSP allows neither


def test_hostile_names_are_escaped(tmp_path):
    cfg, _ = load_config(FIXTURES / "site.yml")
    snap = json.loads((FIXTURES / "xss_snapshot.json").read_text(encoding="utf-8"))
    evil = '"><svg onload=alert(9)>'
    board = snap["boards"][0]
    board["title"] = "Best <b>orchestrator</b>"
    row = board["rows"][1]
    old = row["identity"]
    row["identity"] = "../" + evil
    row["token_price"] = 0.5
    arena_only_model(snap, row["identity"])
    snap["models"][row["identity"]].update(name=evil, open_weight=True)
    for e in snap["stacks"]["best"]:
        if e["board"] == board["id"] and e["identity"] == old:
            e["identity"] = row["identity"]
    arena_only_model(snap, "<script>alert(8)</script>")
    snap["arena"] = full_arena(
        [{"model": "<script>alert(8)</script>", "rating": 1000.0, "lower": 990.0, "upper": 1010.0, "rank": 1,
          "component": 0}],
        [{"date": "2026-11-01", "n_battles": 10, "models": [{"model": "<script>alert(8)</script>", "rating": 1000.0,
                                                            "rank": 1}]}],
        n_battles=10, bootstrap=5)
    render_site(validate_snapshot(snap), [], cfg, ROOT, tmp_path, now=NOW, base_url="https://example.org/")
    for page in (tmp_path / "charts").rglob("index.html"):
        html = page.read_text(encoding="utf-8")
        for bad in ("<img src=x", "<script>alert", "<svg onload", "<b>orchestrator", 'href="javascript:'):
            assert bad not in html, (page, bad)
    pq = (tmp_path / "charts" / "price-quality" / "index.html").read_text(encoding="utf-8")
    assert "&lt;img src=x onerror=alert(1)&gt;" in pq
    assert f'href="../../models/{model_slug(row["identity"])}/"' in pq  # a slug, never the raw identity
    doc = json.loads((tmp_path / "data" / "charts" / "price-quality.json").read_text(encoding="utf-8"))
    assert doc["boards"][0]["points"][0]["name"] == "<img src=x onerror=alert(1)>"  # data stays data
    spread = (tmp_path / "charts" / "spread" / "index.html").read_text(encoding="utf-8")
    assert "&lt;script&gt;alert(8)&lt;/script&gt;" in spread


def test_empty_and_unpriced_boards():
    snap = make_snapshot(6, seed=1)
    for b in snap["boards"]:
        for r in b["rows"]:
            r["token_price"] = None
    doc = compute_price_quality(validate_snapshot(snap))
    assert all(not b["points"] and not b["frontier"] for b in doc["boards"])
    for b, s in zip(doc["boards"], snap["boards"], strict=False):
        assert len(b["left_out"]) == sum(r.get("rank") is not None for r in s["rows"])
    docs = compute_chart_data(None, [])
    assert docs["price-quality"]["boards"] == [] and docs["history"]["series"] == [] and docs["spread"]["arena"] is None
