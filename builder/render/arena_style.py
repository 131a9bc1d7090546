"""The Arena page's Style control view and its downloads, from the snapshot's ``arena["style"]``.

Nothing is refitted: the numbers come from ``snapshot["arena"]["style"]`` (written by the
pairwise engine; see its ``arena_style`` module for the fields). A coefficient in words:
beta is in log-odds per standard deviation of the feature, so ``points = beta x 400 / ln 10``
is the rating gap that moves the win probability as much as an answer one standard deviation
"more" of the feature than its opponent's.

Downloads written beside the plain ratings::

    data/arena/ratings-style.csv   header + one row per model, columns STYLE_RATING_COLUMNS
    data/arena/ratings-style.json  [{column: value}, ...] in the same order
    data/arena/style.json          {"features", "coefficients", "metadata", "method", "n_battles", "unrated"}
"""

from __future__ import annotations

import csv
import io
import json
import math
from collections.abc import Mapping
from typing import Any

from builder.util.text import csv_cell

STYLE_RATING_COLUMNS: tuple[str, ...] = (
    "model", "rating", "lower", "upper", "rank", "rank_ub", "battles", "wins", "ties", "win_rate",
    "plain_rating", "plain_rank", "rank_change",
)
STYLE_RATINGS_CSV = "data/arena/ratings-style.csv"
STYLE_RATINGS_JSON = "data/arena/ratings-style.json"
STYLE_JSON = "data/arena/style.json"

_WHAT = {"tokens": "one standard deviation longer", "headers": "with one standard deviation more headers",
         "bold": "with one standard deviation more bold text", "lists": "with one standard deviation more list items"}
_NAMES = {"tokens": "Length (tokens)", "headers": "Headers", "bold": "Bold text", "lists": "List items"}


def _finite(x: Any) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)


def coefficient_words(feature: str, points: Any, lower: Any = None, upper: Any = None) -> str:
    """One coefficient in words, with its interval when there is one."""
    if not _finite(points):
        return "no estimate"
    what = _WHAT.get(feature, f"with one standard deviation more {feature}")
    verb = "stronger" if points >= 0 else "weaker"
    text = (f"An answer {what} than its opponent's wins as if it were "
            f"{abs(points):.1f} points {verb}")
    if _finite(lower) and _finite(upper):
        text += f" (95% interval {lower:.1f} to {upper:.1f} points)"
    return text + "."


def rank_change_text(change: Any) -> str:
    """``+3`` / ``−2`` / ``0`` for the table; None -> a dash."""
    if not isinstance(change, int) or isinstance(change, bool):
        return "–"
    return f"+{change}" if change > 0 else ("0" if change == 0 else f"−{-change}")


def rank_change_words(change: Any) -> str:
    if not isinstance(change, int) or isinstance(change, bool):
        return "not rated in the default view"
    if change == 0:
        return "same rank in both views"
    return f"{abs(change)} place{'s' if abs(change) != 1 else ''} {'up' if change > 0 else 'down'} with style control"


def compute_style_view(arena: Mapping[str, Any]) -> dict[str, Any] | None:
    """What the Style control partial prints, or None when the snapshot has no styled fit."""
    style = arena.get("style")
    if not isinstance(style, Mapping) or not style.get("models"):
        return None
    coefficients = []
    for c in style.get("coefficients") or []:
        if not isinstance(c, Mapping):
            continue
        f = str(c.get("feature"))
        coefficients.append({**c, "name": _NAMES.get(f, f),
                             "words": coefficient_words(f, c.get("points"), c.get("points_lower"),
                                                        c.get("points_upper"))})
    rows = []
    for r in style.get("models") or []:
        if isinstance(r, Mapping) and isinstance(r.get("model"), str):
            rows.append({**r, "change_text": rank_change_text(r.get("rank_change")),
                         "change_words": rank_change_words(r.get("rank_change"))})
    movers = sorted((r for r in rows if isinstance(r.get("rank_change"), int)),
                    key=lambda r: (-abs(r["rank_change"]), r["model"]))[:3]
    meta = style.get("metadata") or {}
    left_out = {**(meta.get("without_metadata") or {}), **(meta.get("malformed") or {})}
    return {
        "rows": rows,
        "coefficients": coefficients,
        "method": dict(style.get("method") or {}),
        "metadata": meta,
        "left_out": {k: v for k, v in left_out.items() if v},
        "n_battles": style.get("n_battles"),
        "unrated": [u for u in style.get("unrated") or [] if isinstance(u, Mapping)],
        "movers": movers,
        "default_view": arena.get("default_view") if arena.get("default_view") in ("plain", "style") else "plain",
    }


def _rows(arena: Mapping[str, Any]) -> list[dict[str, Any]]:
    style = arena.get("style") or {}
    return [{c: r.get(c) for c in STYLE_RATING_COLUMNS} for r in style.get("models") or [] if isinstance(r, Mapping)]


def render_style_ratings_csv(arena: Mapping[str, Any]) -> str:
    """``data/arena/ratings-style.csv``: header ``STYLE_RATING_COLUMNS``, one row per model."""
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=list(STYLE_RATING_COLUMNS), lineterminator="\n")
    w.writeheader()
    for row in _rows(arena):
        w.writerow({k: csv_cell(v) for k, v in row.items()})
    return buf.getvalue()


def render_style_ratings_json(arena: Mapping[str, Any]) -> str:
    return json.dumps(_rows(arena), indent=1, ensure_ascii=False, allow_nan=False) + "\n"


def render_style_json(arena: Mapping[str, Any]) -> str:
    """``data/arena/style.json``: the coefficients, metadata accounting and method of the styled fit."""
    style = arena.get("style") or {}
    doc = {k: style.get(k) for k in ("features", "coefficients", "metadata", "method", "n_battles", "unrated")}
    return json.dumps(doc, indent=1, ensure_ascii=False, allow_nan=False) + "\n"


__all__ = [
    "STYLE_JSON",
    "STYLE_RATINGS_CSV",
    "STYLE_RATINGS_JSON",
    "STYLE_RATING_COLUMNS",
    "coefficient_words",
    "compute_style_view",
    "rank_change_text",
    "render_style_json",
    "render_style_ratings_csv",
    "render_style_ratings_json",
]
