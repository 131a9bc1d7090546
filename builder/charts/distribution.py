"""The distribution of Arena ratings: a histogram with a box summary on the same axis.

Over the n rated models of the largest connected set (Arena scale):

    bins        width w = a round step (1, 2, 2.5 or 5 x 10^k) giving about ``BINS`` bins;
                bin k holds the ratings in [k w, (k + 1) w); every bin from the lowest
                rating's to the highest's is listed, empty ones included
    quartiles   q(p) by linear interpolation between order statistics x_(1) <= ... <= x_(n):
                h = (n - 1) p,  q(p) = x_(floor h + 1) + (h - floor h) (x_(floor h + 2) - x_(floor h + 1))
                (numpy's default), for p = 0.25, 0.5, 0.75
    whiskers    Tukey's: the lowest and highest ratings within [q1 - 1.5 IQR, q3 + 1.5 IQR],
                IQR = q3 - q1; ratings outside are outliers, drawn one by one
    mean        the arithmetic mean

``render_distribution_svg`` draws it at build time: one bar (class ``mark``) per non-empty
bin, then the box (q1 to q3, a line at the median, a diamond at the mean, whiskers and
outliers) below the bars on the same x axis.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from markupsafe import Markup, escape

from builder.charts.svg import WIDTH, _f, _scale, _svg, _x_axis, linear_ticks, num_label

BINS = 12
"About this many histogram bins."
DIST = {"top": 14, "left": 72, "right": 24, "hist": 170, "gap": 18, "box": 34, "bottom": 58}


@dataclass(frozen=True, slots=True)
class Bin:
    lo: float
    hi: float
    count: int
    models: tuple[str, ...]  # names, best first


@dataclass(frozen=True, slots=True)
class Outlier:
    name: str
    rating: float


@dataclass(frozen=True, slots=True)
class BoxSummary:
    n: int
    min: float
    q1: float
    median: float
    q3: float
    max: float
    mean: float
    iqr: float
    whisker_lo: float
    whisker_hi: float
    outliers: tuple[Outlier, ...] = field(default=())


def quantile(sorted_values: Sequence[float], p: float) -> float:
    """Linear interpolation between order statistics (numpy's default method)."""
    n = len(sorted_values)
    if n == 0:
        raise ValueError("quantile of no values")
    h = (n - 1) * p
    lo = math.floor(h)
    hi = min(lo + 1, n - 1)
    return sorted_values[lo] + (h - lo) * (sorted_values[hi] - sorted_values[lo])


def compute_box_summary(named: Sequence[tuple[str, float]]) -> BoxSummary:
    """Quartiles, Tukey whiskers, outliers and mean of ``(name, rating)`` pairs (at least one)."""
    values = sorted(v for _, v in named)
    q1, med, q3 = (quantile(values, p) for p in (0.25, 0.5, 0.75))
    iqr = q3 - q1
    lo_fence, hi_fence = q1 - 1.5 * iqr, q3 + 1.5 * iqr
    inside = [v for v in values if lo_fence <= v <= hi_fence]
    outliers = tuple(Outlier(name, v) for name, v in sorted(named, key=lambda t: (-t[1], t[0]))
                     if not lo_fence <= v <= hi_fence)
    return BoxSummary(len(values), values[0], q1, med, q3, values[-1], sum(values) / len(values), iqr,
                      min(inside), max(inside), outliers)


def nice_width(lo: float, hi: float, bins: int = BINS) -> float:
    """The smallest of 1, 2, 2.5, 5 x 10^k not below ``(hi - lo) / bins`` (1 when hi <= lo)."""
    span = hi - lo
    if not math.isfinite(span) or span <= 0:
        return 1.0
    raw = span / bins
    p = 10 ** math.floor(math.log10(raw))
    return next(m * p for m in (1, 2, 2.5, 5, 10) if raw <= m * p + 1e-12)


def compute_histogram(named: Sequence[tuple[str, float]], width: float) -> list[Bin]:
    """Every bin of ``width`` from the lowest rating's to the highest's, best names first."""
    first = math.floor(min(v for _, v in named) / width)
    last = math.floor(max(v for _, v in named) / width)
    members: dict[int, list[tuple[str, float]]] = {k: [] for k in range(first, last + 1)}
    for name, v in named:
        members[math.floor(v / width)].append((name, v))
    return [Bin(k * width, (k + 1) * width, len(members[k]),
                tuple(n for n, _ in sorted(members[k], key=lambda t: (-t[1], t[0])))) for k in range(first, last + 1)]


def compute_rating_distribution(models: Sequence[Mapping[str, Any]], *, title: str, unit: str) -> dict[str, Any] | None:
    """The chart document from rows with ``name`` and a finite ``rating``; None without any."""
    named = [(str(m["name"]), float(m["rating"])) for m in models
             if isinstance(m.get("rating"), (int, float)) and math.isfinite(m["rating"])]
    if not named:
        return None
    width = nice_width(min(v for _, v in named), max(v for _, v in named))
    box = compute_box_summary(named)
    return {"id": "arena-distribution", "title": title, "unit": unit, "n": len(named), "width": width,
            "bins": [asdict(b) | {"models": list(b.models)} for b in compute_histogram(named, width)],
            "box": asdict(box) | {"outliers": [asdict(o) for o in box.outliers]}}


def distribution_height() -> float:
    return DIST["top"] + DIST["hist"] + DIST["gap"] + DIST["box"] + DIST["bottom"]


def render_distribution_svg(doc: Mapping[str, Any]) -> Markup:
    """Histogram bars (one ``mark`` per non-empty bin) above a box summary, one x axis."""
    bins, box, w = doc["bins"], doc["box"], doc["width"]
    height = distribution_height()
    x0, x1 = DIST["left"], WIDTH - DIST["right"]
    d0, d1 = bins[0]["lo"], bins[-1]["hi"]
    x = _scale(d0, d1, x0, x1)
    base = DIST["top"] + DIST["hist"]
    top_count = max(b["count"] for b in bins)
    y = _scale(0, top_count, base, DIST["top"])
    axis_y = height - DIST["bottom"]
    body = _x_axis([(x(t), num_label(t)) for t in linear_ticks(d0, d1, 8)], axis_y, x0, x1,
                   f"{doc['unit']}; bars: models per bin of {num_label(w)} points; box: quartiles, median, mean")
    body.append('<g class="axis axis-y" aria-hidden="true">')
    for c in sorted({0, *(t for t in linear_ticks(0, top_count, 4) if t == int(t))}):
        body.append(f'<line class="grid" x1="{_f(x0)}" x2="{_f(x1)}" y1="{_f(y(c))}" y2="{_f(y(c))}" '
                    f'stroke="currentColor"/><text class="tick-label" x="{_f(x0 - 6)}" y="{_f(y(c) + 4)}" '
                    f'text-anchor="end">{int(c)}</text>')
    body.append(f'<text class="axis-label" x="{_f(x0 - 10)}" y="{_f(DIST["top"] - 2)}" text-anchor="end">'
                'models</text></g><g class="marks">')
    for b in bins:
        if not b["count"]:
            continue
        names = ", ".join(b["models"][:6]) + (f" and {b['count'] - 6} more" if b["count"] > 6 else "")
        plural = "s" if b["count"] != 1 else ""
        tip = f"{num_label(b['lo'])} to {num_label(b['hi'])}: {b['count']} model{plural} ({names})"
        body.append(f'<rect class="mark bar" x="{_f(x(b["lo"]) + 1)}" y="{_f(y(b["count"]))}" '
                    f'width="{_f(max(1.0, x(b["hi"]) - x(b["lo"]) - 2))}" height="{_f(base - y(b["count"]))}" '
                    f'fill="currentColor" fill-opacity="0.7"><title>{escape(tip)}</title></rect>')
    cy = base + DIST["gap"] + DIST["box"] / 2
    h = DIST["box"] / 2 - 4
    summary = (f"median {box['median']:.1f}, quartiles {box['q1']:.1f} to {box['q3']:.1f}, whiskers "
               f"{box['whisker_lo']:.1f} to {box['whisker_hi']:.1f}, mean {box['mean']:.1f}, "
               f"{len(box['outliers'])} outlier{'s' if len(box['outliers']) != 1 else ''}")
    body.append(f'</g><g class="box"><title>{escape(summary)}</title>'
                f'<line class="whisker" x1="{_f(x(box["whisker_lo"]))}" x2="{_f(x(box["q1"]))}" y1="{_f(cy)}" '
                f'y2="{_f(cy)}" stroke="currentColor"/>'
                f'<line class="whisker" x1="{_f(x(box["q3"]))}" x2="{_f(x(box["whisker_hi"]))}" y1="{_f(cy)}" '
                f'y2="{_f(cy)}" stroke="currentColor"/>')
    for v in (box["whisker_lo"], box["whisker_hi"]):
        body.append(f'<line class="whisker-cap" x1="{_f(x(v))}" x2="{_f(x(v))}" y1="{_f(cy - h / 2)}" '
                    f'y2="{_f(cy + h / 2)}" stroke="currentColor"/>')
    body.append(f'<rect class="iqr" x="{_f(x(box["q1"]))}" y="{_f(cy - h)}" '
                f'width="{_f(max(1.0, x(box["q3"]) - x(box["q1"])))}" height="{_f(2 * h)}" fill="currentColor" '
                f'fill-opacity="0.25" stroke="currentColor"/>'
                f'<line class="median" x1="{_f(x(box["median"]))}" x2="{_f(x(box["median"]))}" y1="{_f(cy - h)}" '
                f'y2="{_f(cy + h)}" stroke="currentColor" stroke-width="3"/>'
                f'<path class="mean" d="M{_f(x(box["mean"]))},{_f(cy - 5)}l5,5l-5,5l-5,-5Z" fill="currentColor"/>')
    for o in box["outliers"]:
        body.append(f'<circle class="outlier" cx="{_f(x(o["rating"]))}" cy="{_f(cy)}" r="3.5" fill="none" '
                    f'stroke="currentColor"><title>{escape(o["name"])}: {o["rating"]:.1f}</title></circle>')
    body.append("</g>")
    title = (f"{doc['title']}: histogram of {doc['n']} ratings in bins of {num_label(w)} points, "
             f"with a box summary ({summary})")
    return _svg(height, title, body, role="group", kind="distribution")


__all__ = [
    "BINS",
    "Bin",
    "BoxSummary",
    "Outlier",
    "compute_box_summary",
    "compute_histogram",
    "compute_rating_distribution",
    "nice_width",
    "quantile",
    "render_distribution_svg",
]
