"""The ``/charts/`` section: an index and one page per chart kind, each with a board selector.

    render_chart_pages(w, snapshot, history, base=None) -> the chart documents
    render_charts(w)                                     -> the same for the writer's snapshots

Pages (all relative to the site root)::

    charts/index.html                  what each chart shows, with links
    charts/price-quality/index.html    per board: score against blended token price
    charts/history/index.html          per board and the Arena: rating over time
    charts/ranks/index.html            per board and the Arena: rank over time
    charts/spread/index.html           Arena intervals and rating distribution; per board the scores
    data/charts/<kind>.json|.csv       the data behind each page (``builder.charts.data``)

Every panel carries its build-time SVG and a table, so the page reads the same without
JavaScript; ``static/charts.js`` (D3 v7 from ``static/vendor/``, the race's copy) redraws
the shown panel with hover and focus tooltips, and on the history page lets a reader add
and remove lines and zoom and pan the time axis (d3-zoom; buttons, keys, drag, Ctrl + wheel).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from builder.charts import svg
from builder.charts.data import (
    DEFAULT_LINES,
    RANK_TOP,
    compute_chart_data,
    render_chart_csv,
)
from builder.charts.distribution import render_distribution_svg
from builder.render.pages.race import D3_DIST, D3_SITE_PATH, copy_d3
from builder.render.writer import SiteWriter, Snap
from builder.util.io import compact_json

log = logging.getLogger(__name__)

ROOT_FROM_KIND = "../../"
DATA_DIR = "data/charts"

KIND_PAGES: dict[str, dict[str, str]] = {
    "price-quality": {
        "title": "Price against quality",
        "lead": "Each board's ranked models by displayed score and blended token price. The staircase is the "
                "Pareto frontier: the models no other model beats on both price and score.",
    },
    "history": {
        "title": "Rating history",
        "lead": "One line per model across the saved snapshots (role boards) or the cumulative battle slices "
                f"(Arena). The top {DEFAULT_LINES} at the latest date are drawn; add or remove any model.",
    },
    "ranks": {
        "title": "Rank evolution",
        "lead": f"Ranks over time for every model that was ever in a board's top {RANK_TOP}, rank 1 at the top.",
    },
    "spread": {
        "title": "Rating spread",
        "lead": "How far apart the ratings are: the Arena's intervals (overlapping bars are statistical ties), "
                "the distribution of its ratings and, for each board, the distribution of displayed scores.",
    },
}


def _anchor(series_id: str) -> str:
    """A panel's element id (board ids are site.yml slugs; anything else is made safe)."""
    safe = "".join(c if c.isalnum() or c in "-_" else "-" for c in series_id)
    return f"chart-{safe}"


def _panels(kind: str, doc: Mapping[str, Any]) -> list[dict[str, Any]]:
    """What each panel of a page shows: id, anchor, heading, the static SVG, the data."""
    root = ROOT_FROM_KIND
    out: list[dict[str, Any]] = []
    if kind == "price-quality":
        for b in doc["boards"]:
            out.append({"id": b["id"], "title": b["title"], "data": b,
                        "svg": svg.render_price_quality_svg(b, root) if b["points"] else None,
                        "frontier": sorted((p for p in b["points"] if p["frontier"]),
                                           key=lambda p: (p["price"], p["score"]))})
    elif kind in ("history", "ranks"):
        for s in doc["series"]:
            if kind == "history":
                drawing = svg.render_history_svg(s, s["default"]) if s["default"] else None
            else:
                drawing = svg.render_ranks_svg(s) if s["models"] else None
            out.append({"id": s["id"], "title": s["title"], "data": s, "svg": drawing,
                        "band_dates": len({q["date"] for m in s["models"] for q in m["points"] if "lower" in q})})
    elif kind == "spread":
        if doc["arena"] and doc["arena"]["models"]:
            a = doc["arena"]
            out.append({"id": "arena", "title": a["title"], "data": a, "svg": svg.render_intervals_svg(a, root)})
        if doc.get("distribution"):
            d = doc["distribution"]
            out.append({"id": d["id"], "title": d["title"], "data": d, "svg": render_distribution_svg(d)})
        for b in doc["boards"]:
            out.append({"id": b["id"], "title": b["title"], "data": b,
                        "svg": svg.render_dotplot_svg(b, root) if b["points"] else None})
    for p in out:
        p["anchor"] = _anchor(p["id"])
    return out


def render_chart_pages(
    w: SiteWriter,
    snapshot: Snap | None,
    history: Sequence[Snap],
    *,
    base: Path | None = None,
) -> dict[str, dict[str, Any]]:
    """Write the chart pages and their data through the site writer; return the documents.

    ``snapshot`` is the current snapshot, ``history`` the earlier ones (oldest first). D3 is
    the race's copy in ``static/vendor/``; it is copied here only when the race did not run.
    """
    docs = compute_chart_data(snapshot, history)
    for kind, doc in docs.items():
        w.file(f"{DATA_DIR}/{kind}.json", compact_json(doc))
        w.file(f"{DATA_DIR}/{kind}.csv", render_chart_csv(doc))
    has_d3 = (w.out / D3_SITE_PATH).is_file() or copy_d3(w.out, base) is not None
    if not has_d3:
        log.warning("charts: %s not found (run `npm ci`); the chart pages show their static SVGs only", D3_DIST)
    facts = {"date": snapshot.date if snapshot else None, "as_of": snapshot.as_of if snapshot else None,
             "demo": snapshot.demo if snapshot else False}
    kinds = []
    for kind, meta in KIND_PAGES.items():
        panels = _panels(kind, docs[kind])
        kinds.append({"kind": kind, **meta, "panels": len(panels)})
        w.page(f"charts/{kind}/index.html", "charts_page.html", title=meta["title"], section="charts",
               description=meta["lead"], kind=kind, lead=meta["lead"], panels=panels, doc=docs[kind], facts=facts,
               data_json=f"{DATA_DIR}/{kind}.json", data_csv=f"{DATA_DIR}/{kind}.csv", has_d3=has_d3,
               d3_path=D3_SITE_PATH, kinds=KIND_PAGES, rank_top=RANK_TOP, default_lines=DEFAULT_LINES)
    w.page("charts/index.html", "charts.html", title="Charts", section="charts",
           description="Price against quality, rating history, rank evolution and rating spread, as charts.",
           kinds=kinds, facts=facts, data_dir=DATA_DIR)
    return docs


def render_charts(w: SiteWriter) -> None:
    """The chart pages of the writer's current and earlier snapshots."""
    render_chart_pages(w, w.snap, w.history)


__all__ = ["KIND_PAGES", "render_chart_pages", "render_charts"]
