"""Chart data: snapshots in, the four chart documents out (written as JSON and CSV).

    compute_chart_data(snapshot, history) -> {"price-quality": doc, "history": doc,
                                               "ranks": doc, "spread": doc}
    render_chart_csv(doc)                  -> CSV text (one row per drawn mark, long format)

Every document carries ``chart`` (its kind), ``date`` / ``as_of`` / ``method_id`` of the
current snapshot and ``licence``, then its series. Values are unrounded; ``colour`` is an
index into ``builder.history.race.PALETTE`` (``colour_of``: SHA-256 of the identity), so a
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
  ``builder.history.race``. ``default`` = the keys of the top ``DEFAULT_LINES`` at the latest
  date.
- ranks: the same frames as ranks, only for the keys ever ranked ``<= RANK_TOP``.
- spread: the Arena's 95% intervals (largest connected component, by rating), and per board
  the displayed scores stacked into a dot plot: ``bin = floor(score / width)``, ``stack`` =
  0, 1, ... within a bin by rank, so every dot is one row.
"""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Mapping, Sequence
from typing import Any

from builder.charts.pareto import PricePoint, compute_pareto_frontier
from builder.history.race import (
    ARENA_TITLE,
    ARENA_UNIT,
    BOARD_UNIT,
    PALETTE,
    board_ids,
    colour_of,
    compute_arena_frames,
    compute_board_frames,
    order_snapshots,
)
from builder.render.exports import RATING_LICENCE
from builder.render.safety import csv_cell, model_slug

DEFAULT_LINES = 10
"Lines shown by default on a rating-history chart: the top N at the latest date."
RANK_TOP = 15
"A model is on the rank-evolution chart when it was ranked this high or better on any date."
PRICE_UNIT = "USD per million tokens (blended: 0.75 input + 0.25 output)"
SCORE_UNIT = "displayed score (Arena scale)"
KINDS = ("price-quality", "history", "ranks", "spread")


def _finite(x: Any) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)


def colour_index(key: str) -> int:
    """The key's colour as an index into ``PALETTE`` (same rule as the race's ``colour_of``)."""
    return PALETTE.index(colour_of(key))


def page_identities(snapshot: Mapping[str, Any] | None) -> set[str]:
    """Identities that have a model page in this build (models, observations, board rows)."""
    snap = snapshot or {}
    ids = {str(k) for k in (snap.get("models") or {})}
    ids |= {str(o["identity"]) for o in snap.get("observations") or [] if o.get("identity")}
    for b in snap.get("boards") or []:
        for strip in ("rows", "new"):
            ids |= {str(r["identity"]) for r in b.get(strip) or [] if r.get("identity")}
    return ids


def _href(key: str | None, pages: set[str]) -> str | None:
    return f"models/{model_slug(key)}/" if key and key in pages else None


def _head(kind: str, snapshot: Mapping[str, Any] | None) -> dict[str, Any]:
    snap = snapshot or {}
    return {"chart": kind, "date": snap.get("date"), "as_of": snap.get("as_of"),
            "method_id": snap.get("method_id"), "demo": bool(snap.get("demo")), "licence": RATING_LICENCE}


def _boards(snapshot: Mapping[str, Any] | None) -> list[Mapping[str, Any]]:
    return [b for b in (snapshot or {}).get("boards") or [] if isinstance(b, Mapping) and isinstance(b.get("id"), str)]


# --------------------------------------------------------------------------- price-quality


def compute_price_quality(snapshot: Mapping[str, Any] | None) -> dict[str, Any]:
    """Per board: ranked rows as (price, score) points, the Pareto frontier, the rows left out.

    ``boards[i] = {"id", "title", "points": [{"identity", "name", "href", "rank", "score",
    "r", "r_lo", "r_hi", "price", "partial", "open_weight", "frontier"}], "frontier": [identity, ...]
    (ascending price), "left_out": [{"identity", "name", "rank", "score", "reason"}]}``.
    ``open_weight`` is the snapshot's model fact (true, false or null = unknown); ``r_lo`` /
    ``r_hi`` the row's 95% bootstrap interval of R (null without one), drawn as error bars.
    """
    snap = snapshot or {}
    models = snap.get("models") or {}
    pages = page_identities(snap)
    boards = []
    for b in _boards(snap):
        points, left_out = [], []
        for row in b.get("rows") or []:
            ident, rank, score = row.get("identity"), row.get("rank"), row.get("score")
            if not ident or not isinstance(rank, int) or isinstance(rank, bool) or not _finite(score):
                continue
            ident = str(ident)
            name = str(row.get("model") or ident)
            price = row.get("token_price")
            if not _finite(price) or price <= 0:
                reason = ("no blended token price in the snapshot" if price is None or not _finite(price)
                          else "price 0 cannot be placed on a logarithmic axis")
                left_out.append({"identity": ident, "name": name, "rank": rank, "score": score, "reason": reason})
                continue
            ow = (models.get(ident) or {}).get("open_weight")
            unc = row.get("uncertainty") if isinstance(row.get("uncertainty"), Mapping) else {}
            lo, hi = unc.get("r_lo"), unc.get("r_hi")
            points.append({"identity": ident, "name": name, "href": _href(ident, pages), "rank": rank,
                           "score": score, "r": row.get("r") if _finite(row.get("r")) else None,
                           "r_lo": float(lo) if _finite(lo) and _finite(hi) else None,
                           "r_hi": float(hi) if _finite(lo) and _finite(hi) else None,
                           "price": float(price), "partial": bool(row.get("partial")),
                           "open_weight": ow if isinstance(ow, bool) else None})
        front = compute_pareto_frontier(PricePoint(p["identity"], p["price"], p["score"]) for p in points)
        on = set(front.frontier)
        for p in points:
            p["frontier"] = p["identity"] in on
        boards.append({"id": b["id"], "title": str(b.get("title") or b["id"]), "points": points,
                       "frontier": list(front.frontier), "left_out": left_out})
    return {**_head("price-quality", snap), "x": {"label": "Blended token price", "unit": PRICE_UNIT, "scale": "log"},
            "y": {"label": "Score", "unit": SCORE_UNIT}, "boards": boards}


# --------------------------------------------------------------------------- history and ranks


def _arena_frames(snapshot: Mapping[str, Any] | None) -> dict[str, Any]:
    """The race's Arena frames; the last cumulative slice takes the fit's interval when it is
    the same fit (same battle count, same ratings) and has none of its own."""
    doc = compute_arena_frames(snapshot)
    arena = (snapshot or {}).get("arena")
    if not doc["frames"] or not isinstance(arena, Mapping):
        return doc
    last = doc["frames"][-1]
    hist = [sl for sl in arena.get("history") or [] if isinstance(sl, Mapping)]
    newest = max(hist, key=lambda sl: str(sl.get("date")), default=None)
    if newest is None or newest.get("n_battles") != arena.get("n_battles"):
        return doc
    fit = {m.get("model"): m for m in arena.get("models") or [] if isinstance(m, Mapping)}
    slice_models = [m for m in newest.get("models") or [] if isinstance(m, Mapping)]
    if {m.get("model") for m in slice_models} != set(fit):
        return doc
    for m in slice_models:
        f = fit[m.get("model")]
        if (not _finite(m.get("rating")) or not _finite(f.get("rating"))
                or abs(float(m["rating"]) - float(f["rating"])) > 1e-6):
            return doc  # not the same fit: leave the slice without intervals
    # the newest cumulative slice holds every spelling of the history, so these keys are the race's
    keys = _arena_keys(snapshot or {})
    intervals = {keys[sp][0]: (float(f["lower"]), float(f["upper"])) for sp, f in fit.items()
                 if sp in keys and _finite(f.get("lower")) and _finite(f.get("upper"))}
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
    out.sort(key=lambda s: (s["latest_rank"] is None, s["latest_rank"] or 0, s["best_rank"], s["name"].casefold(), s["key"]))
    return out


def _history_sources(snapshot, history) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """(series head, race frames doc) for each board, then the Arena when it has slices."""
    snap = snapshot or {}
    day = snap.get("date")
    pool = order_snapshots([snapshot, *history])
    if isinstance(day, str):
        pool = [s for s in pool if s["date"] <= day]
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


def compute_rating_history(snapshot: Mapping[str, Any] | None, history: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
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


def compute_rank_evolution(snapshot: Mapping[str, Any] | None, history: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
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


def _arena_keys(snapshot: Mapping[str, Any]) -> dict[str, tuple[str, str]]:
    """Arena spelling -> (key, display name), by the race's rule: a spelling that is the only
    Arena spelling of a known identity takes that identity and name; others stay themselves."""
    index: dict[str, tuple[str, str]] = {}
    for ident, info in (snapshot.get("models") or {}).items():
        info = info if isinstance(info, Mapping) else {}
        for s in [ident, *(info.get("spellings") or [])]:
            if isinstance(s, str):
                index.setdefault(s, (ident, str(info.get("name") or ident)))
                index.setdefault(s.casefold(), (ident, str(info.get("name") or ident)))
    arena = snapshot.get("arena") or {}
    spellings = {m.get("model") for m in arena.get("models") or [] if isinstance(m, Mapping)}
    spellings |= {m.get("model") for sl in arena.get("history") or [] if isinstance(sl, Mapping)
                  for m in sl.get("models") or [] if isinstance(m, Mapping)}
    hits = {sp: index.get(sp) or index.get(sp.casefold()) for sp in spellings if isinstance(sp, str)}
    per_ident: dict[str, int] = {}
    for h in hits.values():
        if h is not None:
            per_ident[h[0]] = per_ident.get(h[0], 0) + 1
    return {sp: (h if h is not None and per_ident[h[0]] == 1 else (sp, sp)) for sp, h in hits.items()}


def compute_rating_spread(snapshot: Mapping[str, Any] | None) -> dict[str, Any]:
    """``arena`` = null | {"title", "unit", "ci", "n_battles", "models": [{"key", "name",
    "href", "colour", "rank", "rank_ub", "rating", "lower", "upper"}] (by rating, then name),
    "left_out": [{"name", "reason"}]}; ``boards[i]`` = {"id", "title", "unit", "width",
    "points": [{"identity", "name", "href", "rank", "score", "r", "partial", "bin", "stack"}]}
    (ranked rows by rank; ``width`` = the dot plot's bin width in score points)."""
    snap = snapshot or {}
    pages = page_identities(snap)
    arena_doc = None
    arena = snap.get("arena")
    if isinstance(arena, Mapping) and arena.get("models"):
        keys = _arena_keys(snap)
        models, left_out = [], []
        for m in arena.get("models") or []:
            if not isinstance(m, Mapping) or not isinstance(m.get("model"), str):
                continue
            key, name = keys.get(m["model"], (m["model"], m["model"]))
            if m.get("component", 0) != 0:
                left_out.append({"name": name, "reason": "outside the largest connected set of battles: "
                                 "its rating is on another scale"})
                continue
            if not all(_finite(m.get(k)) for k in ("rating", "lower", "upper")):
                left_out.append({"name": name, "reason": "no finite rating or interval"})
                continue
            models.append({"key": key, "name": name, "href": _href(key, pages), "colour": colour_index(key),
                           "rank": m.get("rank"), "rank_ub": m.get("rank_ub"), "rating": float(m["rating"]),
                           "lower": float(m["lower"]), "upper": float(m["upper"])})
        models.sort(key=lambda m: (-m["rating"], m["name"].casefold(), m["key"]))
        method = arena.get("method") or {}
        arena_doc = {"id": "arena", "title": ARENA_TITLE, "unit": ARENA_UNIT,
                     "ci": method.get("ci", 0.95), "bootstrap": method.get("bootstrap"),
                     "n_battles": arena.get("n_battles"), "models": models, "left_out": left_out}
    boards = []
    for b in _boards(snap):
        pts = []
        for row in b.get("rows") or []:
            ident, rank, score = row.get("identity"), row.get("rank"), row.get("score")
            if not ident or not isinstance(rank, int) or isinstance(rank, bool) or not _finite(score):
                continue
            pts.append({"identity": str(ident), "name": str(row.get("model") or ident), "href": _href(str(ident), pages),
                        "rank": rank, "score": score, "r": row.get("r") if _finite(row.get("r")) else None,
                        "partial": bool(row.get("partial"))})
        width = nice_bin_width(min((p["score"] for p in pts), default=0), max((p["score"] for p in pts), default=0))
        for p, (bn, st) in zip(pts, compute_dot_stacks([p["score"] for p in pts], width)):
            p["bin"], p["stack"] = bn, st
        boards.append({"id": b["id"], "title": str(b.get("title") or b["id"]), "unit": SCORE_UNIT,
                       "width": width, "points": pts})
    return {**_head("spread", snap), "arena": arena_doc, "boards": boards}


# --------------------------------------------------------------------------- all, CSV


def compute_chart_data(snapshot: Mapping[str, Any] | None, history: Sequence[Mapping[str, Any]]) -> dict[str, dict[str, Any]]:
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
                rows.append((b["id"], p["rank"], p["name"], p["identity"], p["score"], p["r"], p.get("r_lo"),
                             p.get("r_hi"), p["price"], p["partial"], p["open_weight"], p["frontier"], None))
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
