"""Chart data: snapshots in, the four chart documents out (written as JSON and CSV).

    compute_chart_data(snapshot, history) -> {"price-quality": doc, "history": doc,
                                               "ranks": doc, "spread": doc}
    render_chart_csv(doc)                  -> CSV text (one row per drawn mark, long format)

Every document carries ``chart`` (its kind), ``date`` / ``as_of`` / ``method_id`` of the
current snapshot and ``licence``, then its series. Values are unrounded; ``colour`` is an
index into ``builder.charts.race.PALETTE`` (``colour_of``: SHA-256 of the identity), so a
model keeps its colour on the race and on every chart, and the stylesheet can swap the
whole palette for dark mode. ``href`` is a model page relative to the site root
(``models/<slug>/``), or null when the site has no page for that key.

- price-quality: per board, ranked rows with their displayed ``score`` (integer, Arena
  scale), the 95% bootstrap interval of R (``r_lo``/``r_hi``, error bars) and blended token
  ``price`` (USD per million tokens). Rows without a positive price
  cannot sit on a log axis: they are listed under ``left_out`` with the reason and take no
  part in the frontier (``builder.charts.pareto``).
- history: per board, one point per saved snapshot (``value`` = unrounded R); for the
  Arena, one point per cumulative history slice (``value`` = Bradley-Terry rating, with
  ``lower``/``upper`` where the slice has a bootstrap interval). Frames come from
  ``builder.charts.race``. ``default`` = the keys of the top ``DEFAULT_LINES`` at the latest
  date.
- ranks: the same frames as ranks, only for the keys ever ranked ``<= RANK_TOP``.
- spread: the Arena's 95% intervals (largest connected component, by rating), the
  distribution of those ratings (histogram and box summary, ``builder.charts.distribution``),
  and per board the displayed scores stacked into a dot plot: ``bin = floor(score / width)``,
  ``stack`` = 0, 1, ... within a bin by rank, so every dot is one row.
"""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Mapping, Sequence
from typing import Any

from builder.charts.distribution import compute_rating_distribution
from builder.charts.pareto import PricePoint, compute_pareto_frontier
from builder.charts.race import (
    ARENA_TITLE,
    ARENA_UNIT,
    BOARD_UNIT,
    PALETTE,
    arena_keys,
    board_ids,
    colour_of,
    compute_arena_frames,
    compute_board_frames,
    order_snapshots,
)
from builder.snapshot.models import Snapshot
from builder.util.formats import RATING_LICENCE
from builder.util.text import csv_cell, model_slug

DEFAULT_LINES = 10
"Lines shown by default on a rating-history chart: the top N at the latest date."
RANK_TOP = 15
"A model is on the rank-evolution chart when it was ranked this high or better on any date."
PRICE_UNIT = "USD per million tokens (blended: 0.75 input + 0.25 output)"
SCORE_UNIT = "displayed score (Arena scale)"
KINDS = ("price-quality", "history", "ranks", "spread")
DISTRIBUTION_TITLE = "Arena rating distribution"


def colour_index(key: str) -> int:
    """The key's colour as an index into ``PALETTE`` (same rule as the race's ``colour_of``)."""
    return PALETTE.index(colour_of(key))


def page_identities(snapshot: Snapshot | None) -> set[str]:
    """Identities that have a model page in this build (models, observations, board rows)."""
    if snapshot is None:
        return set()
    ids = set(snapshot.models)
    ids |= {o.identity for o in snapshot.observations if o.identity}
    for b in snapshot.boards:
        ids |= {r.identity for r in (*b.rows, *b.new)}
    return ids


def _href(key: str | None, pages: set[str]) -> str | None:
    return f"models/{model_slug(key)}/" if key and key in pages else None


def _head(kind: str, snapshot: Snapshot | None) -> dict[str, Any]:
    s = snapshot
    return {"chart": kind, "date": s.date if s else None, "as_of": s.as_of if s else None,
            "method_id": s.method_id if s else None, "demo": s.demo if s else False, "licence": RATING_LICENCE}


# --------------------------------------------------------------------------- price-quality


def compute_price_quality(snapshot: Snapshot | None) -> dict[str, Any]:
    """Per board: ranked rows as (price, score) points, the Pareto frontier, the rows left out.

    ``boards[i] = {"id", "title", "points": [{"identity", "name", "href", "rank", "score",
    "r", "r_lo", "r_hi", "price", "partial", "open_weight", "frontier"}], "frontier": [identity, ...]
    (ascending price), "left_out": [{"identity", "name", "rank", "score", "reason"}]}``.
    ``open_weight`` is the snapshot's model fact (true, false or null = unknown); ``r_lo`` /
    ``r_hi`` the row's 95% bootstrap interval of R (null without one), drawn as error bars.
    """
    pages = page_identities(snapshot)
    boards = []
    for b in snapshot.boards if snapshot else ():
        points: list[dict[str, Any]] = []
        left_out: list[dict[str, Any]] = []
        for row in b.rows:
            if row.rank is None:
                continue
            ident, rank, score = row.identity, row.rank, row.score
            name = row.model or ident
            price = row.token_price
            if price is None or price <= 0:
                reason = ("no blended token price in the snapshot" if price is None
                          else "price 0 cannot be placed on a logarithmic axis")
                left_out.append({"identity": ident, "name": name, "rank": rank, "score": score, "reason": reason})
                continue
            facts = snapshot.models.get(ident) if snapshot else None
            unc = row.uncertainty
            has = unc is not None and unc.r_lo is not None and unc.r_hi is not None
            points.append({"identity": ident, "name": name, "href": _href(ident, pages), "rank": rank,
                           "score": score, "r": row.r, "r_lo": unc.r_lo if has and unc else None,
                           "r_hi": unc.r_hi if has and unc else None, "price": price, "partial": row.partial,
                           "open_weight": facts.open_weight if facts else None})
        front = compute_pareto_frontier(PricePoint(p["identity"], p["price"], p["score"]) for p in points)
        on = set(front.frontier)
        for p in points:
            p["frontier"] = p["identity"] in on
        boards.append({"id": b.id, "title": b.title or b.id, "points": points,
                       "frontier": list(front.frontier), "left_out": left_out})
    return {**_head("price-quality", snapshot),
            "x": {"label": "Blended token price", "unit": PRICE_UNIT, "scale": "log"},
            "y": {"label": "Score", "unit": SCORE_UNIT}, "boards": boards}


# --------------------------------------------------------------------------- history and ranks


def _arena_frames(snapshot: Snapshot | None) -> dict[str, Any]:
    """The race's Arena frames; the last cumulative slice takes the fit's interval when it is
    the same fit (same battle count, same ratings) and has none of its own."""
    doc = compute_arena_frames(snapshot)
    arena = snapshot.arena if snapshot is not None else None
    if not doc["frames"] or snapshot is None or arena is None:
        return doc
    last = doc["frames"][-1]
    newest = max(arena.history, key=lambda sl: sl.date, default=None)
    if newest is None or newest.n_battles != arena.n_battles:
        return doc
    fit = {m.model: m for m in arena.models}
    if {m.model for m in newest.models} != set(fit):
        return doc
    for m in newest.models:
        if m.rating is None or abs(m.rating - fit[m.model].rating) > 1e-6:
            return doc  # not the same fit: leave the slice without intervals
    # the newest cumulative slice holds every spelling of the history, so these keys are the race's
    keys = _arena_keys(snapshot)
    intervals = {keys[sp][0]: (f.lower, f.upper) for sp, f in fit.items()
                 if sp in keys and f.lower is not None and f.upper is not None}
    for e in last["models"]:
        if "lower" not in e and e["identity"] in intervals:
            e["lower"], e["upper"] = intervals[e["identity"]]
    return doc


def _series(frames: Sequence[Mapping[str, Any]], colours: Mapping[str, str], pages: set[str]) -> list[dict[str, Any]]:
    """Frames -> one entry per key with its points, ordered by latest rank, then best rank, name."""
    by_key: dict[str, dict[str, Any]] = {}
    for f in frames:
        for m in f["models"]:
            s = by_key.setdefault(m["identity"], {"key": m["identity"], "name": m["name"], "points": []})
            s["name"] = m["name"]
            pt = {"date": f["date"], "value": m["value"], "score": m["score"], "rank": m["rank"]}
            if "lower" in m:
                pt["lower"], pt["upper"] = m["lower"], m["upper"]
            s["points"].append(pt)
    latest = {m["identity"]: m["rank"] for m in frames[-1]["models"]} if frames else {}
    out = []
    for key, s in by_key.items():
        hexcol = colours.get(key) or colour_of(key)
        s["colour"] = PALETTE.index(hexcol) if hexcol in PALETTE else colour_index(key)
        s["href"] = _href(key, pages)
        s["latest_rank"] = latest.get(key)
        s["best_rank"] = min(p["rank"] for p in s["points"])
        out.append(s)
    out.sort(key=lambda s: (s["latest_rank"] is None, s["latest_rank"] or 0, s["best_rank"], s["name"].casefold(),
                            s["key"]))
    return out


def _history_sources(
    snapshot: Snapshot | None, history: Sequence[Snapshot]
) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """(series head, race frames doc) for each board, then the Arena when it has slices."""
    pool = order_snapshots([snapshot, *history])
    if snapshot is not None:
        pool = [s for s in pool if s.date <= snapshot.date]
    out = []
    for bid in board_ids(pool):
        doc = compute_board_frames(pool, bid)
        if doc["frames"]:
            out.append(({"id": bid, "title": doc["title"], "kind": "board", "unit": BOARD_UNIT,
                         "x": "snapshot date (UTC)"}, doc))
    arena = _arena_frames(snapshot)
    if arena["frames"]:
        out.append(({"id": "arena", "title": ARENA_TITLE, "kind": "arena", "unit": ARENA_UNIT,
                     "x": "end of cumulative battle slice (UTC)"}, arena))
    return out


def compute_rating_history(snapshot: Snapshot | None, history: Sequence[Snapshot]) -> dict[str, Any]:
    """``series[i] = {"id", "title", "kind", "unit", "x", "dates", "default", "bands",
    "models": [{"key", "name", "colour", "href", "latest_rank", "best_rank",
    "points": [{"date", "value", "score", "rank", "lower"?, "upper"?}]}]}``.

    ``history`` = the earlier snapshots (any order); only those up to the current date count.
    ``bands`` says whether any point has an interval.
    """
    pages = page_identities(snapshot)
    series = []
    for head, doc in _history_sources(snapshot, history):
        frames = doc["frames"]
        models = _series(frames, doc.get("colours") or {}, pages)
        default = [m["identity"] for m in frames[-1]["models"][:DEFAULT_LINES]]
        series.append({**head, "dates": [f["date"] for f in frames], "default": default,
                       "bands": any("lower" in p for m in models for p in m["points"]), "models": models})
    return {**_head("history", snapshot), "default_lines": DEFAULT_LINES, "series": series}


def compute_rank_evolution(snapshot: Snapshot | None, history: Sequence[Snapshot]) -> dict[str, Any]:
    """``series[i] = {"id", "title", "kind", "x", "dates", "max_rank", "models": [{"key",
    "name", "colour", "href", "latest_rank", "best_rank", "points": [{"date", "rank"}]}]}``:
    only keys ranked ``<= RANK_TOP`` on some date; every date of theirs is kept (a model that
    falls below the cut still has its true rank). ``max_rank`` = the lowest rank drawn."""
    pages = page_identities(snapshot)
    series = []
    for head, doc in _history_sources(snapshot, history):
        frames = doc["frames"]
        models = [m for m in _series(frames, doc.get("colours") or {}, pages) if m["best_rank"] <= RANK_TOP]
        for m in models:
            m["points"] = [{"date": p["date"], "rank": p["rank"]} for p in m["points"]]
        max_rank = max((p["rank"] for m in models for p in m["points"]), default=1)
        series.append({"id": head["id"], "title": head["title"], "kind": head["kind"], "x": head["x"],
                       "dates": [f["date"] for f in frames], "max_rank": max_rank, "models": models})
    return {**_head("ranks", snapshot), "top": RANK_TOP, "series": series}


# --------------------------------------------------------------------------- spread


def nice_bin_width(lo: float, hi: float, bins: int = 16) -> float:
    """A round width (1, 2, 2.5 or 5 times a power of ten) giving about ``bins`` bins on [lo, hi]."""
    span = hi - lo
    if not math.isfinite(span) or span <= 0:
        return 1.0
    raw = span / bins
    p = 10 ** math.floor(math.log10(raw))
    for m in (1, 2, 2.5, 5, 10):
        if raw <= m * p:
            return m * p
    return 10 * p


def compute_dot_stacks(values: Sequence[float], width: float) -> list[tuple[int, int]]:
    """(bin, stack) per value, input order: ``bin = floor(v / width)``, ``stack`` counts the
    earlier values in the same bin (so the caller's order, e.g. by rank, stacks the dots)."""
    seen: dict[int, int] = {}
    out = []
    for v in values:
        b = math.floor(v / width)
        out.append((b, seen.get(b, 0)))
        seen[b] = seen.get(b, 0) + 1
    return out


def _arena_keys(snapshot: Snapshot) -> dict[str, tuple[str, str]]:
    """Arena spelling -> (key, display name), by the race's rule (``builder.charts.race.arena_keys``)
    over the spellings of the fit and of its history."""
    arena = snapshot.arena
    if arena is None:
        return {}
    spellings = {m.model for m in arena.models} | {m.model for sl in arena.history for m in sl.models}
    return arena_keys(snapshot.models, spellings)[0]


def compute_rating_spread(snapshot: Snapshot | None) -> dict[str, Any]:
    """``arena`` = null | {"title", "unit", "ci", "n_battles", "models": [{"key", "name",
    "href", "colour", "rank", "rank_ub", "rating", "lower", "upper"}] (by rating, then name),
    "left_out": [{"name", "reason"}]}; ``boards[i]`` = {"id", "title", "unit", "width",
    "points": [{"identity", "name", "href", "rank", "score", "r", "partial", "bin", "stack"}]}
    (ranked rows by rank; ``width`` = the dot plot's bin width in score points);
    ``distribution`` = null | the histogram and box summary of the Arena ratings above."""
    pages = page_identities(snapshot)
    arena_doc: dict[str, Any] | None = None
    arena = snapshot.arena if snapshot is not None else None
    if snapshot is not None and arena is not None and arena.models:
        keys = _arena_keys(snapshot)
        models: list[dict[str, Any]] = []
        left_out: list[dict[str, Any]] = []
        for m in arena.models:
            key, name = keys.get(m.model, (m.model, m.model))
            if m.component != 0:
                left_out.append({"name": name, "reason": "outside the largest connected set of battles: "
                                 "its rating is on another scale"})
                continue
            if m.lower is None or m.upper is None:
                left_out.append({"name": name, "reason": "no finite rating or interval"})
                continue
            models.append({"key": key, "name": name, "href": _href(key, pages), "colour": colour_index(key),
                           "rank": m.rank, "rank_ub": m.rank_ub, "rating": m.rating,
                           "lower": m.lower, "upper": m.upper})
        models.sort(key=lambda m: (-m["rating"], m["name"].casefold(), m["key"]))
        arena_doc = {"id": "arena", "title": ARENA_TITLE, "unit": ARENA_UNIT,
                     "ci": arena.method.ci, "bootstrap": arena.method.bootstrap,
                     "n_battles": arena.n_battles, "models": models, "left_out": left_out}
    boards = []
    for b in snapshot.boards if snapshot else ():
        pts: list[dict[str, Any]] = []
        for row in b.rows:
            if row.rank is None:
                continue
            pts.append({"identity": row.identity, "name": row.model or row.identity,
                        "href": _href(row.identity, pages), "rank": row.rank, "score": row.score, "r": row.r,
                        "partial": row.partial})
        width = nice_bin_width(min((p["score"] for p in pts), default=0), max((p["score"] for p in pts), default=0))
        for p, (bn, st) in zip(pts, compute_dot_stacks([p["score"] for p in pts], width), strict=True):
            p["bin"], p["stack"] = bn, st
        boards.append({"id": b.id, "title": b.title or b.id, "unit": SCORE_UNIT, "width": width, "points": pts})
    distribution = (compute_rating_distribution(arena_doc["models"], title=DISTRIBUTION_TITLE, unit=ARENA_UNIT)
                    if arena_doc else None)
    return {**_head("spread", snapshot), "arena": arena_doc, "distribution": distribution, "boards": boards}


# --------------------------------------------------------------------------- all, CSV


def compute_chart_data(snapshot: Snapshot | None, history: Sequence[Snapshot]) -> dict[str, dict[str, Any]]:
    """Every chart document, keyed by kind (``KINDS``)."""
    return {
        "price-quality": compute_price_quality(snapshot),
        "history": compute_rating_history(snapshot, history),
        "ranks": compute_rank_evolution(snapshot, history),
        "spread": compute_rating_spread(snapshot),
    }


CSV_COLUMNS: dict[str, tuple[str, ...]] = {
    "price-quality": ("board", "rank", "model", "identity", "score", "r", "r_lo", "r_hi", "token_price", "partial",
                      "open_weight", "on_frontier", "left_out_reason"),
    "history": ("series", "date", "key", "model", "value", "score", "rank", "lower", "upper"),
    "ranks": ("series", "date", "key", "model", "rank"),
    "spread": ("series", "key", "model", "rank", "value", "lower", "upper", "partial"),
}


def _csv_rows(doc: Mapping[str, Any]) -> list[tuple[Any, ...]]:
    kind = doc["chart"]
    rows: list[tuple[Any, ...]] = []
    if kind == "price-quality":
        for b in doc["boards"]:
            for p in b["points"]:
                rows.append((b["id"], p["rank"], p["name"], p["identity"], p["score"], p["r"], p["r_lo"], p["r_hi"],
                             p["price"], p["partial"], p["open_weight"], p["frontier"], None))
            for p in b["left_out"]:
                rows.append((b["id"], p["rank"], p["name"], p["identity"], p["score"], None, None, None, None,
                             None, None, None, p["reason"]))
    elif kind == "history":
        for s in doc["series"]:
            for m in s["models"]:
                for p in m["points"]:
                    rows.append((s["id"], p["date"], m["key"], m["name"], p["value"], p["score"], p["rank"],
                                 p.get("lower"), p.get("upper")))
    elif kind == "ranks":
        for s in doc["series"]:
            for m in s["models"]:
                for p in m["points"]:
                    rows.append((s["id"], p["date"], m["key"], m["name"], p["rank"]))
    elif kind == "spread":
        if doc["arena"]:
            for m in doc["arena"]["models"]:
                rows.append(("arena", m["key"], m["name"], m["rank"], m["rating"], m["lower"], m["upper"], None))
        for b in doc["boards"]:
            for p in b["points"]:
                rows.append((b["id"], p["identity"], p["name"], p["rank"], p["score"], None, None, p["partial"]))
    else:
        raise ValueError(f"unknown chart kind {kind!r}")
    return rows


def render_chart_csv(doc: Mapping[str, Any]) -> str:
    """The document as CSV: a header of ``CSV_COLUMNS[doc["chart"]]``, one row per mark."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(CSV_COLUMNS[doc["chart"]])
    for row in _csv_rows(doc):
        w.writerow([csv_cell(v) for v in row])
    return buf.getvalue()


__all__ = [
    "CSV_COLUMNS",
    "DEFAULT_LINES",
    "KINDS",
    "RANK_TOP",
    "colour_index",
    "compute_chart_data",
    "compute_dot_stacks",
    "compute_price_quality",
    "compute_rank_evolution",
    "compute_rating_history",
    "compute_rating_spread",
    "nice_bin_width",
    "page_identities",
    "render_chart_csv",
]
