"""The Arena page (``/arena/``) and its downloads, drawn from the snapshot's ``"arena"`` section.

Nothing is refitted here: every number comes from the snapshot's ``arena`` section (computed
by ``builder.pairwise.arena``). The charts are server-rendered SVG (no script, no inline style;
colours come from CSS classes in ``static/arena.css`` so both themes work), and every number
a chart shows is also in a table.

Chart geometry (SVG user units, one axis shared by every bar of a chart):

    x(v) = x0 + (v - lo) / (hi - lo) * (x1 - x0)

where ``[lo, hi]`` is the range of the lower and upper 95% bounds of the models drawn,
widened by 4% on each side (and by 10 points when all bounds coincide), and ``[x0, x1]`` the
plot area. Ticks step by 1, 2, 2.5 or 5 times a power of ten, at most 6 per axis.

Heatmap shading: cell (i, j) holds P(row i beats column j) from the ratings,
``P = 1 / (1 + base ** ((r_j - r_i) / scale))``, printed in percent; its CSS class is
``heat-k`` with ``k = min(9, floor(10 P))`` (ten buckets of 0.1), so colour repeats what the
printed number says and never carries meaning alone.

Downloads written into the site::

    data/arena/ratings.csv   header + one row per rated model, columns RATING_COLUMNS
    data/arena/ratings.json  [{column: value}, ...] in the same order (the ``arena fit`` shape + elo)
    data/arena/winrate.json  {"models", "predicted", "empirical", "battles", "mae", "pairs_used",
                              "min_pair_battles", "scale", "base"}
    data/arena/flips.json, flips.csv   the vote flip budgets (``builder.render.arena_flips``)
"""

from __future__ import annotations

import csv
import io
import json
import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from builder.render import arena_flips, arena_style
from builder.render.writer import SiteWriter, Snap, current
from builder.snapshot.models import Arena, ArenaModel, ArenaWinrate, ModelFacts
from builder.util.formats import ARENA_TABLE_COLUMNS
from builder.util.text import csv_cell

RATING_COLUMNS: tuple[str, ...] = (*ARENA_TABLE_COLUMNS, "elo")
"Columns of ``data/arena/ratings.csv`` / ``.json`` (the ``arena fit`` table plus online Elo)."

RATINGS_CSV = "data/arena/ratings.csv"
RATINGS_JSON = "data/arena/ratings.json"
WINRATE_JSON = "data/arena/winrate.json"
HEAT_BUCKETS = 10

# Row CI bar inside the ratings table.
BAR_W, BAR_H, BAR_PAD = 120, 16, 4
# Rank-spread and battles charts: label column, plot area, row height.
CHART_W, LABEL_X, PLOT_X0, PLOT_X1, ROW_H, TOP = 760, 262, 272, 744, 16, 22
BATTLES_X1 = 680
LABEL_CHARS = 40


# --------------------------------------------------------------------------- helpers


def _finite(x: Any) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)


def _r(x: float) -> float:
    """SVG coordinates to 0.1 unit (keeps the HTML small and stable)."""
    return round(x, 1)


def _label(text: str, limit: int = LABEL_CHARS) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def spelling_identities(models: Mapping[str, ModelFacts]) -> dict[str, str]:
    """Spelling -> identity from the snapshot's ``models``: each identity and its ``spellings``,
    exact and case-folded (the first identity listing a spelling wins)."""
    index: dict[str, str] = {}
    for ident, info in models.items():
        for s in [ident, *info.spellings]:
            index.setdefault(s, ident)
            index.setdefault(s.casefold(), ident)
    return index


def identity_for(spelling: str, index: Mapping[str, str]) -> str | None:
    """The model identity a spelling maps to (exact, then case-folded), else None."""
    return index.get(spelling) or index.get(spelling.casefold())


def nice_ticks(lo: float, hi: float, max_ticks: int = 6) -> list[float]:
    """Round tick values inside ``[lo, hi]``: multiples of 1, 2, 2.5 or 5 x 10^k, at most ``max_ticks``."""
    span = hi - lo
    if not (span > 0 and math.isfinite(span)):
        return []
    mag = 10.0 ** math.floor(math.log10(span / max_ticks))
    for m in (1, 2, 2.5, 5, 10, 20):
        step = m * mag
        first, last = math.ceil(lo / step - 1e-9), math.floor(hi / step + 1e-9)
        if last - first + 1 <= max_ticks:
            break
    return [round(k * step, 10) for k in range(first, last + 1)]


def compute_axis(values: Iterable[Any], *, pad: float = 0.04, min_span: float = 20.0) -> tuple[float, float]:
    """``(lo, hi)`` covering the finite ``values``, widened by ``pad`` of the span each side
    (or to ``min_span`` around them when they all coincide); ``(0, 1)`` when there are none."""
    xs = [float(v) for v in values if _finite(v)]
    if not xs:
        return 0.0, 1.0
    lo, hi = min(xs), max(xs)
    if hi - lo <= 0:
        return lo - min_span / 2, hi + min_span / 2
    d = (hi - lo) * pad
    return lo - d, hi + d


def scale_x(v: float, lo: float, hi: float, x0: float, x1: float) -> float:
    """Position of ``v`` on an axis mapping ``[lo, hi]`` onto ``[x0, x1]``, clamped to it."""
    t = (float(v) - lo) / (hi - lo)
    return x0 + min(1.0, max(0.0, t)) * (x1 - x0)


def heat_class(p: Any) -> str:
    """CSS class of a heatmap cell: ``heat-0`` .. ``heat-9`` by tenths of P, ``heat-na`` when absent."""
    if not _finite(p):
        return "heat-na"
    return f"heat-{min(HEAT_BUCKETS - 1, max(0, math.floor(float(p) * HEAT_BUCKETS)))}"


def fmt_pct_cell(p: Any) -> str:
    """A win probability as the integer percent printed in a heatmap cell ("–" when absent)."""
    return f"{float(p) * 100:.0f}" if _finite(p) else "–"


# --------------------------------------------------------------------------- view


def _interval_bar(row: ArenaModel, lo: float, hi: float, x0: float, x1: float) -> dict[str, Any] | None:
    """Geometry of one model's interval (rect from lower to upper) and point (line at rating)."""
    lower, upper, rating = row.lower, row.upper, row.rating
    if lower is None or upper is None:
        return None
    a, b = scale_x(lower, lo, hi, x0, x1), scale_x(upper, lo, hi, x0, x1)
    return {"x": _r(a), "w": _r(max(b - a, 1.0)), "cx": _r(scale_x(rating, lo, hi, x0, x1))}


def _ticks(lo: float, hi: float, x0: float, x1: float) -> list[dict[str, Any]]:
    return [{"x": _r(scale_x(t, lo, hi, x0, x1)), "label": f"{t:g}"} for t in nice_ticks(lo, hi)]


def _spread_chart(rows: Sequence[ArenaModel], title: str) -> dict[str, Any]:
    """Every model's interval on one axis, sorted by rating (best first)."""
    ordered = sorted(rows, key=lambda r: (-r.rating, r.model))
    lo, hi = compute_axis([v for r in ordered for v in (r.lower, r.upper, r.rating)])
    items = []
    for k, r in enumerate(ordered):
        y = TOP + k * ROW_H
        items.append({"model": r.model, "label": _label(r.model), "y": y, "ty": y + 12,
                      "bar": _interval_bar(r, lo, hi, PLOT_X0, PLOT_X1),
                      "rating": r.rating, "lower": r.lower, "upper": r.upper})
    height = TOP + len(items) * ROW_H + 6
    return {"title": title, "width": CHART_W, "height": height, "items": items,
            "ticks": _ticks(lo, hi, PLOT_X0, PLOT_X1), "label_x": LABEL_X, "grid_y2": height - 4}


def _battles_chart(rows: Sequence[ArenaModel]) -> dict[str, Any]:
    """Horizontal bars of battles per model, most first, on an axis from zero."""
    ordered = sorted(rows, key=lambda r: (-r.battles, r.model))
    top = max((r.battles for r in ordered), default=0) or 1
    items = []
    for k, r in enumerate(ordered):
        y = TOP + k * ROW_H
        w = (r.battles / top) * (BATTLES_X1 - PLOT_X0)
        items.append({"model": r.model, "label": _label(r.model), "y": y, "ty": y + 12,
                      "w": _r(max(w, 1.0)), "battles": r.battles, "nx": _r(PLOT_X0 + w + 6)})
    height = TOP + len(items) * ROW_H + 6
    return {"width": CHART_W, "height": height, "items": items, "label_x": LABEL_X, "x0": PLOT_X0,
            "ticks": _ticks(0.0, float(top), PLOT_X0, BATTLES_X1), "grid_y2": height - 4}


def _heatmap(winrate: ArenaWinrate, index: Mapping[str, str], key: str) -> list[dict[str, Any]]:
    """Rows of the top-N matrix ``winrate.<key>`` with each cell's printed text and class."""
    models = winrate.models
    matrix: tuple[tuple[float | None, ...], ...] = getattr(winrate, key)
    out = []
    for i, a in enumerate(models):
        cells = []
        for j, b in enumerate(models):
            p = matrix[i][j]
            cells.append({"a": a, "b": b, "p": p, "text": fmt_pct_cell(p),
                          "cls": "heat-diag" if i == j else heat_class(p), "n": winrate.battles[i][j],
                          "diag": i == j})
        out.append({"rank": i + 1, "model": a, "identity": identity_for(a, index), "cells": cells})
    return out


def compute_arena_view(arena: Arena, models: Mapping[str, ModelFacts]) -> dict[str, Any]:
    """Everything the Arena template prints, from the snapshot's ``arena`` and ``models``.

    Returns ``{"rows", "axis", "components", "spreads", "battles", "heatmap", "empirical",
    "winrate", "filters", "bad_rows", "bad_total", "method", "unrated", "n_models", "changes"}``
    (``changes``: the saved rating-change statistics as dicts, each with ``identity``); rows
    are the section's rows (same order, as dicts) with ``identity`` (model page, or None) and
    ``bar`` (the CI bar geometry on the shared axis ``axis``).
    """
    index = spelling_identities(models)
    raw_rows = arena.models
    lo, hi = compute_axis([v for r in raw_rows for v in (r.lower, r.upper, r.rating)])
    rows = []
    for r in raw_rows:
        rows.append({**r.model_dump(), "identity": identity_for(r.model, index),
                     "bar": _interval_bar(r, lo, hi, BAR_PAD, BAR_W - BAR_PAD)})
    components = arena.components
    spreads = []
    for c in range(max(1, len(components))):
        members = [r for r in raw_rows if r.component == c]
        if members:
            title = "All rated models" if len(components) <= 1 else f"Group {c + 1}"
            spreads.append(_spread_chart(members, title))
    changes = [{**c.model_dump(), "identity": identity_for(c.model, index)} for c in arena.changes]
    return {
        "changes": changes,
        "rows": rows,
        "n_models": len(rows),
        "axis": {"lo": lo, "hi": hi, "ticks": _ticks(lo, hi, BAR_PAD, BAR_W - BAR_PAD),
                 "width": BAR_W, "height": BAR_H},
        "components": components,
        "spreads": spreads,
        "battles": _battles_chart(raw_rows),
        "heatmap": _heatmap(arena.winrate, index, "predicted"),
        "empirical": _heatmap(arena.winrate, index, "empirical"),
        "winrate": arena.winrate,
        "filters": dict(arena.filters),
        "bad_rows": dict(arena.bad_rows),
        "bad_total": sum(arena.bad_rows.values()),
        "method": arena.method,
        "unrated": arena.unrated,
    }


# --------------------------------------------------------------------------- downloads


def _rating_rows(arena: Arena) -> list[dict[str, Any]]:
    return [{c: getattr(r, c) for c in RATING_COLUMNS} for r in arena.models]


def render_ratings_csv(arena: Arena) -> str:
    """``data/arena/ratings.csv``: header ``RATING_COLUMNS``, one row per rated model, ``\\n`` endings.

    Floats are written with ``repr`` (they read back exactly); an absent value is empty.
    """
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=list(RATING_COLUMNS), lineterminator="\n")
    w.writeheader()
    for row in _rating_rows(arena):
        w.writerow({k: csv_cell(v) for k, v in row.items()})
    return buf.getvalue()


def render_ratings_json(arena: Arena) -> str:
    """``data/arena/ratings.json``: an array of ``{column: value}`` in ``RATING_COLUMNS`` order."""
    return json.dumps(_rating_rows(arena), indent=1, ensure_ascii=False, allow_nan=False) + "\n"


def render_winrate_json(arena: Arena) -> str:
    """``data/arena/winrate.json``: the top-N predicted and empirical matrices, battles and MAE."""
    wr = arena.winrate
    doc = {
        "models": wr.models,
        "predicted": wr.predicted,
        "empirical": wr.empirical,
        "battles": wr.battles,
        "mae": wr.mae,
        "pairs_used": wr.pairs_used,
        "min_pair_battles": arena.method.min_pair_battles,
        "scale": arena.method.scale,
        "base": arena.method.base,
    }
    return json.dumps(doc, indent=1, ensure_ascii=False, allow_nan=False) + "\n"


# --------------------------------------------------------------------------- section


def arena_available(snap: Snap | None, history: Sequence[Snap]) -> bool:
    """Built when the snapshot has an Arena section with rated models."""
    return bool(snap and snap.arena and snap.arena.models)


def arena_boards(arena: Arena, page: str = "arena/", data: str = "data/arena/") -> list[dict[str, Any]]:
    """The boards of one Arena section, main board first: ``{"id", "title", "section", "page",
    "data", "n_battles", "criterion"}`` (``page``: the page's folder, ``data``: the downloads'
    folder, both relative to the site root; the text arena's are ``arena/`` and
    ``data/arena/``, another arena's ``arenas/<id>/`` and ``data/arenas/<id>/``)."""
    boards = [{"id": "", "title": "All battles", "section": arena, "page": page, "data": data,
               "n_battles": arena.n_battles, "criterion": None}]
    for cat in arena.categories:
        if cat.category is None or not cat.models:
            continue
        cid = cat.category.id
        boards.append({"id": cid, "title": cat.category.title, "section": cat, "page": f"{page}{cid}/",
                       "data": f"{data}{cid}/", "n_battles": cat.n_battles, "criterion": cat.category.criterion})
    return boards


def arenas_nav(snap: Any) -> list[dict[str, Any]]:
    """The site's arenas for the Arena pages' switcher (empty when there is only the text arena)."""
    if not snap.arenas:
        return []
    main = [{"id": "", "title": "Text", "page": "arena/"}] if snap.arena is not None else []
    return main + [{"id": a.arena_id, "title": a.title or a.arena_id, "page": f"arenas/{a.arena_id}/"}
                   for a in snap.arenas if a.arena_id]


def more_arenas_available(snap: Snap | None, history: Sequence[Snap]) -> bool:
    """Built when the snapshot has more arenas than the text arena (site.yml ``arenas``)."""
    return bool(snap and snap.arenas)


def render_more_arenas(w: SiteWriter) -> None:
    """Each further arena: its page and downloads (``arenas/<id>/``, ``data/arenas/<id>/``), its
    category boards, and its API document ``api/v1/arenas/<id>.json``; and the list of
    arenas ``api/v1/arenas/index.json``."""
    snap = current(w)
    nav_arenas = arenas_nav(snap)
    listing = []
    if snap.arena is not None:
        listing.append(_arena_entry(snap.arena, "text", "Text", "arena/", "data/arena/"))
    for a in snap.arenas:
        if not a.arena_id or not a.models:
            continue
        page, data = f"arenas/{a.arena_id}/", f"data/arenas/{a.arena_id}/"
        boards = arena_boards(a, page, data)
        nav = [{k: b[k] for k in ("id", "title", "page", "n_battles")} for b in boards] if len(boards) > 1 else []
        for b in boards:
            _render_board(w, snap, b, nav, arena_title=a.title or a.arena_id, nav_arenas=nav_arenas,
                          current_arena=a.arena_id)
        entry = _arena_entry(a, a.arena_id, a.title or a.arena_id, page, data)
        listing.append(entry)
        doc = {**entry, "filters": dict(a.filters), "bad_rows": dict(a.bad_rows),
               "method": a.method.model_dump(mode="json"),
               "models": _rating_rows(a),
               "style": None if a.style is None else a.style.model_dump(mode="json"),
               "flips": [f.model_dump(mode="json") for f in a.flips]}
        w.file(f"api/v1/arenas/{a.arena_id}.json", json.dumps(doc, indent=1, ensure_ascii=False, allow_nan=False)
               + "\n")
    w.file("api/v1/arenas/index.json", json.dumps({"arenas": listing}, indent=1, ensure_ascii=False) + "\n")


def _arena_entry(a: Arena, arena_id: str, title: str, page: str, data: str) -> dict[str, Any]:
    """One arena in ``api/v1/arenas/index.json`` (paths relative to the site root)."""
    return {"id": arena_id, "title": title, "source": a.source, "n_battles": a.n_battles, "page": page,
            "ratings_csv": data + "ratings.csv", "ratings_json": data + "ratings.json",
            "api": "api/v1/arenas/index.json" if arena_id == "text" else f"api/v1/arenas/{arena_id}.json",
            "categories": [c.category.id for c in a.categories if c.category is not None]}


def render_arena(w: SiteWriter) -> None:
    """Write ``arena/index.html`` and its downloads, and one page with downloads per category
    board (``arena/<id>/``, ``data/arena/<id>/``), through the site writer."""
    snap = current(w)
    arena = snap.arena
    if arena is None:
        raise ValueError("the Arena page needs an arena section")
    boards = arena_boards(arena)
    nav = [{k: b[k] for k in ("id", "title", "page", "n_battles")} for b in boards] if len(boards) > 1 else []
    for b in boards:
        _render_board(w, snap, b, nav, nav_arenas=arenas_nav(snap), current_arena="")


def _render_board(w: SiteWriter, snap: Any, board: Mapping[str, Any], nav: list[dict[str, Any]], *,
                  arena_title: str | None = None, nav_arenas: list[dict[str, Any]] | None = None,
                  current_arena: str = "") -> None:
    arena: Arena = board["section"]
    data = board["data"]

    def at(path: str) -> str:  # a download's path in this board's folder
        return data + path.removeprefix("data/arena/")

    w.file(at(RATINGS_CSV), render_ratings_csv(arena))
    w.file(at(RATINGS_JSON), render_ratings_json(arena))
    w.file(at(WINRATE_JSON), render_winrate_json(arena))
    view = compute_arena_view(arena, snap.models)
    # The Style control view reads the styled sub-object as plain data (builder.render.arena_style).
    styled = {"style": None if arena.style is None else arena.style.model_dump(mode="json"),
              "default_view": arena.default_view}
    style = arena_style.compute_style_view(styled)
    if style is not None:
        index = spelling_identities(snap.models)
        for r in style["rows"]:
            r["identity"] = identity_for(r["model"], index)
        w.file(at(arena_style.STYLE_RATINGS_CSV), arena_style.render_style_ratings_csv(styled))
        w.file(at(arena_style.STYLE_RATINGS_JSON), arena_style.render_style_ratings_json(styled))
        w.file(at(arena_style.STYLE_JSON), arena_style.render_style_json(styled))
    plain_flips = [f.model_dump(mode="json") for f in arena.flips]
    style_flips = None if arena.style is None else [f.model_dump(mode="json") for f in arena.style.flips]
    flips = arena_flips.compute_flip_view(plain_flips)
    style_flip_view = arena_flips.compute_flip_view(style_flips or [])
    if flips is not None or style_flip_view is not None:
        w.file(at(arena_flips.FLIPS_JSON), arena_flips.render_flips_json(plain_flips, style_flips))
        w.file(at(arena_flips.FLIPS_CSV), arena_flips.render_flips_csv(plain_flips, style_flips))
    name = "Arena" if arena_title is None else f"Arena: {arena_title}"
    title = name if not board["id"] else f"{name}: {board['title']}"
    description = ("Bradley-Terry ratings with 95% intervals, online Elo and win rates from pairwise battles."
                   if not board["id"] else
                   f"Arena category board {board['title']}: Bradley-Terry ratings on its {arena.n_battles} battles.")
    w.page(board["page"] + "index.html", "arena.html", title=title, section="arena",
           description=description, board=board, boards_nav=nav, page_title=title,
           arenas_nav=nav_arenas or [], current_arena=current_arena,
           arena=arena, view=view, style=style,
           ratings_csv=at(RATINGS_CSV), ratings_json=at(RATINGS_JSON), winrate_json=at(WINRATE_JSON),
           style_ratings_csv=at(arena_style.STYLE_RATINGS_CSV), style_ratings_json=at(arena_style.STYLE_RATINGS_JSON),
           style_json=at(arena_style.STYLE_JSON), flips=flips, style_flips=style_flip_view,
           flips_json=at(arena_flips.FLIPS_JSON), flips_csv=at(arena_flips.FLIPS_CSV))


__all__ = [
    "RATING_COLUMNS",
    "compute_arena_view",
    "compute_axis",
    "heat_class",
    "identity_for",
    "nice_ticks",
    "arena_available",
    "arena_boards",
    "arenas_nav",
    "more_arenas_available",
    "render_more_arenas",
    "render_arena",
    "render_ratings_csv",
    "render_ratings_json",
    "render_winrate_json",
    "scale_x",
    "spelling_identities",
]
