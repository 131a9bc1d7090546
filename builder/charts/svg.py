"""Build-time SVG for every chart, so each chart page says the same thing without JavaScript.

    render_price_quality_svg(board, root)    scatter, log x, Pareto step line, one <a> per point
    render_history_svg(series, keys)          one line per key, CI band where intervals exist
    render_ranks_svg(series)                  ranks over time, rank 1 at the top
    render_intervals_svg(arena, root)         Arena 95% intervals as bars with the point estimate
    render_dotplot_svg(board, root)           a board's displayed scores as a stacked dot plot

Each returns ``markupsafe.Markup`` (every string from a snapshot goes through ``escape``).
Coordinates are in a fixed viewBox of ``WIDTH`` units that the stylesheet scales to the
page width. Every drawn data point is one element with class ``mark`` (what the tests
count) carrying a ``<title>`` (the browser's own tooltip when scripts are off). No inline
style: colours are classes (``s0``..``s8`` = the race palette index, ``ow``/``pw``/``uw`` =
open weight / proprietary / unknown) that set ``color``, and the marks paint with
``currentColor``, so the stylesheet swaps the palette for dark mode.

Scales: linear ``x = r0 + (v - d0) / (d1 - d0) * (r1 - r0)``; the price axis applies it
to ``log10(price)``; dates map by their ordinal day.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from datetime import date
from itertools import pairwise
from typing import Any

from markupsafe import Markup

from builder.util.text import escape_html as escape

WIDTH = 760
LABEL_CHARS = 26


# --------------------------------------------------------------------------- helpers


def _f(x: float) -> str:
    """A coordinate with two decimals, trailing zeros dropped (stable, compact output)."""
    s = f"{x:.2f}".rstrip("0").rstrip(".")
    return "0" if s in ("-0", "") else s


def _scale(d0: float, d1: float, r0: float, r1: float) -> Callable[[float], float]:
    span = (d1 - d0) or 1.0
    return lambda v: r0 + (v - d0) / span * (r1 - r0)


def short(name: str, n: int = LABEL_CHARS) -> str:
    """A label of at most ``n`` characters (an ellipsis marks a cut)."""
    return name if len(name) <= n else name[: n - 1] + "\u2026"


def nice_step(span: float, n: int) -> float:
    """1, 2 or 5 times a power of ten near ``span / n`` (D3's rule: x10 from sqrt 50, x5 from
    sqrt 10, x2 from sqrt 2 times the power of ten)."""
    if span <= 0 or not math.isfinite(span):
        return 1.0
    raw = span / n
    p = 10 ** math.floor(math.log10(raw))
    err = raw / p
    return p * (10 if err >= math.sqrt(50) else 5 if err >= math.sqrt(10) else 2 if err >= math.sqrt(2) else 1)


def linear_ticks(lo: float, hi: float, n: int = 5) -> list[float]:
    """Round tick values inside [lo, hi], about ``n`` of them."""
    step = nice_step(hi - lo, n)
    start = math.ceil(lo / step - 1e-9)
    out, k = [], start
    while k * step <= hi + 1e-9:
        out.append(round(k * step, 10))
        k += 1
    return out


def log_ticks(lo: float, hi: float) -> list[float]:
    """Powers of ten inside [lo, hi] (lo > 0); with fewer than three, 2x and 5x as well."""
    a, b = math.floor(math.log10(lo)), math.ceil(math.log10(hi))
    decades = [10.0 ** k for k in range(a, b + 1) if lo <= 10.0 ** k <= hi]
    if len(decades) >= 3:
        return decades
    return [m * 10.0 ** k for k in range(a, b + 1) for m in (1, 2, 5) if lo <= m * 10.0 ** k <= hi]


def usd_label(v: float) -> str:
    """``$0.05``, ``$0.2``, ``$1``, ``$1,000``: just enough decimals for a tick value."""
    decimals = max(0, -math.floor(math.log10(v) + 1e-9)) if v > 0 else 0
    return f"${v:,.{decimals}f}"


def num_label(v: float) -> str:
    return f"{v:,.0f}" if abs(v - round(v)) < 1e-9 else f"{v:,.1f}"


def spread_labels(ys: Sequence[float], gap: float, lo: float, hi: float) -> list[float]:
    """Label positions near ``ys`` (input order), at least ``gap`` apart, kept inside [lo, hi]
    when there is room: a downward pass pushes overlaps apart, an upward pass pulls back."""
    order = sorted(range(len(ys)), key=lambda k: ys[k])
    pos = [float(ys[k]) for k in order]
    for k in range(len(pos)):
        pos[k] = max(pos[k], lo if k == 0 else pos[k - 1] + gap)
    for k in range(len(pos) - 1, -1, -1):
        limit = hi if k == len(pos) - 1 else pos[k + 1] - gap
        pos[k] = min(pos[k], limit)
    out = [0.0] * len(ys)
    for k, i in enumerate(order):
        out[i] = pos[k]
    return out


def _svg(height: float, label: str, body: list[str], *, role: str = "img", kind: str) -> Markup:
    head = (f'<svg class="chart-svg chart-{kind}" viewBox="0 0 {WIDTH} {_f(height)}" width="{WIDTH}" '
            f'height="{_f(height)}" role="{role}" aria-label="{escape(label)}" data-static="1">')
    return Markup(head + "".join(body) + "</svg>")


def _x_axis(ticks: Sequence[tuple[float, str]], y: float, x0: float, x1: float, label: str) -> list[str]:
    out = [(f'<g class="axis axis-x" aria-hidden="true"><line class="domain" x1="{_f(x0)}" x2="{_f(x1)}" '
            f'y1="{_f(y)}" y2="{_f(y)}" stroke="currentColor"/>')]
    for x, text in ticks:
        out.append(f'<line class="tick" x1="{_f(x)}" x2="{_f(x)}" y1="{_f(y)}" y2="{_f(y + 5)}" stroke="currentColor"/>'
                   f'<text class="tick-label" x="{_f(x)}" y="{_f(y + 18)}" text-anchor="middle">{escape(text)}</text>')
    out.append(f'<text class="axis-label" x="{_f((x0 + x1) / 2)}" y="{_f(y + 40)}" text-anchor="middle">'
               f'{escape(label)}</text></g>')
    return out


def _y_axis(ticks: Sequence[tuple[float, str]], x: float, x_end: float, y0: float, y1: float, label: str) -> list[str]:
    """Ticks with grid lines across the plot; the label is turned along the axis."""
    out = [(f'<g class="axis axis-y" aria-hidden="true"><line class="domain" x1="{_f(x)}" x2="{_f(x)}" '
            f'y1="{_f(y0)}" y2="{_f(y1)}" stroke="currentColor"/>')]
    for y, text in ticks:
        out.append(f'<line class="grid" x1="{_f(x)}" x2="{_f(x_end)}" y1="{_f(y)}" y2="{_f(y)}" stroke="currentColor"/>'
                   f'<text class="tick-label" x="{_f(x - 6)}" y="{_f(y + 4)}" text-anchor="end">{escape(text)}</text>')
    mid = (y0 + y1) / 2
    out.append(f'<text class="axis-label" x="{_f(x - 48)}" y="{_f(mid)}" text-anchor="middle" '
               f'transform="rotate(-90 {_f(x - 48)} {_f(mid)})">{escape(label)}</text></g>')
    return out


def _ordinal(day: str) -> int:
    return date.fromisoformat(day).toordinal()


def date_ticks(dates: Sequence[str], x: Callable[[str], float], gap: float = 78) -> list[str]:
    """Dates to label, at least ``gap`` units apart along ``x``, the first and last kept."""
    if not dates:
        return []
    last, out = dates[-1], list[str]()
    for d in dates:
        if (not out or x(d) - x(out[-1]) >= gap) and (d == last or x(last) - x(d) >= gap):
            out.append(d)
    if out[-1] != last:
        out.append(last)
    return out


def _capital(s: str) -> str:
    return s[:1].upper() + s[1:]


# --------------------------------------------------------------------------- shapes


def symbol_path(kind: str, x: float, y: float, size: float = 6.0) -> str:
    """Path data of a mark: ``triangle`` (open weight), ``square`` (unknown), else a circle."""
    if kind == "triangle":
        h = size * 1.2
        return f"M{_f(x)},{_f(y - h)}L{_f(x + h)},{_f(y + h * 0.8)}L{_f(x - h)},{_f(y + h * 0.8)}Z"
    if kind == "square":
        return f"M{_f(x - size)},{_f(y - size)}h{_f(2 * size)}v{_f(2 * size)}h{_f(-2 * size)}Z"
    return (f"M{_f(x - size)},{_f(y)}a{_f(size)},{_f(size)} 0 1,0 {_f(2 * size)},0"
            f"a{_f(size)},{_f(size)} 0 1,0 {_f(-2 * size)},0Z")


def weight_class(open_weight: bool | None) -> tuple[str, str, str]:
    """(css class, shape, words) for a model's weights: open, proprietary, or unknown."""
    if open_weight is True:
        return "ow", "triangle", "open weights"
    if open_weight is False:
        return "pw", "circle", "proprietary"
    return "uw", "square", "weights unknown"


def price_point_label(p: Mapping[str, Any]) -> str:
    """The words a point's tooltip and accessible name say."""
    bits = [f"{p['name']}", f"score {p['score']}"]
    if p.get("r_lo") is not None and p.get("r_hi") is not None:
        bits.append(f"95% interval {p['r_lo']:.0f} to {p['r_hi']:.0f}")
    bits += [f"{usd_label_exact(p['price'])} per M tokens", f"rank {p['rank']}", weight_class(p.get("open_weight"))[2]]
    if p.get("partial"):
        bits.append("partial")
    if p.get("frontier"):
        bits.append("on the Pareto frontier")
    return ", ".join(bits)


def usd_label_exact(v: float) -> str:
    """A price as the board tables print it: four decimals under $0.10, else two."""
    return f"${v:.4f}" if v != 0 and abs(v) < 0.1 else f"${v:,.2f}"


# --------------------------------------------------------------------------- price-quality


PQ = {"top": 16, "right": 24, "bottom": 58, "left": 72, "height": 440}


def price_quality_layout(points: Sequence[Mapping[str, Any]]):
    """(x of a price, y of a score, price domain, score domain) of a board's scatter."""
    prices = [p["price"] for p in points] or [1.0]
    # the score axis also covers every error bar (the 95% interval of R)
    scores = [v for p in points for v in (p["score"], p.get("r_lo"), p.get("r_hi")) if v is not None] or [0.0]
    lo, hi = min(prices) / 1.6, max(prices) * 1.6
    pad = max(5.0, (max(scores) - min(scores)) * 0.06)
    s0, s1 = min(scores) - pad, max(scores) + pad
    lx = _scale(math.log10(lo), math.log10(hi), PQ["left"], WIDTH - PQ["right"])
    ys = _scale(s0, s1, PQ["height"] - PQ["bottom"], PQ["top"])
    return (lambda v: lx(math.log10(v))), ys, (lo, hi), (s0, s1)


def frontier_path(points: Sequence[Mapping[str, Any]], x: Callable[[float], float], y: Callable[[float], float]) -> str:
    """The frontier as a staircase: from each frontier point right to the next one's price,
    then up to its score (what a model at that price can at best buy)."""
    front = sorted((p for p in points if p.get("frontier")), key=lambda p: (p["price"], p["score"]))
    if not front:
        return ""
    d = [f"M{_f(x(front[0]['price']))},{_f(y(front[0]['score']))}"]
    for _, b in pairwise(front):
        d.append(f"H{_f(x(b['price']))}V{_f(y(b['score']))}")
    return "".join(d)


def render_price_quality_svg(board: Mapping[str, Any], root: str) -> Markup:
    """The scatter of one ``compute_price_quality`` board; ``root`` prefixes model links."""
    pts = board["points"]
    x, y, (lo, hi), (s0, s1) = price_quality_layout(pts)
    bottom = PQ["height"] - PQ["bottom"]
    body = _y_axis([(y(t), num_label(t)) for t in linear_ticks(s0, s1)], PQ["left"], WIDTH - PQ["right"],
                   bottom, PQ["top"], "Score (Arena scale)")
    body += _x_axis([(x(t), usd_label(t)) for t in log_ticks(lo, hi)], bottom, PQ["left"], WIDTH - PQ["right"],
                    "Blended token price, USD per million tokens (log scale)")
    d = frontier_path(pts, x, y)
    if d:
        body.append(f'<path class="frontier" d="{d}" fill="none" stroke="currentColor" aria-hidden="true"/>')
    bars = [p for p in pts if p.get("r_lo") is not None and p.get("r_hi") is not None]
    if bars:
        body.append('<g class="error-bars" aria-hidden="true">')
        for p in sorted(bars, key=lambda p: (p["price"], -p["score"], p["rank"])):
            cx, y0, y1 = _f(x(p["price"])), _f(y(p["r_lo"])), _f(y(p["r_hi"]))
            body.append(f'<path class="error-bar" d="M{cx},{y0}V{y1}M{_f(x(p["price"]) - 4)},{y0}h8'
                        f'M{_f(x(p["price"]) - 4)},{y1}h8" fill="none" stroke="currentColor"/>')
        body.append("</g>")
    body.append('<g class="marks">')
    # left to right (cheapest first), so Tab walks the points in the order the eye reads them
    for p in sorted(pts, key=lambda p: (p["price"], -p["score"], p["rank"])):
        cls, shape, _ = weight_class(p.get("open_weight"))
        label = price_point_label(p)
        fill = 'fill="none"' if p.get("partial") else 'fill="currentColor" fill-opacity="0.85"'
        extra = " partial" if p.get("partial") else ""
        extra += " on-frontier" if p.get("frontier") else ""
        mark = (f'<path class="mark {cls}{extra}" d="{symbol_path(shape, x(p["price"]), y(p["score"]))}" {fill} '
                f'stroke="currentColor" stroke-width="2"><title>{escape(label)}</title></path>')
        if p.get("href"):
            body.append(f'<a class="point-link" href="{escape(root + p["href"])}" '
                        f'aria-label="{escape(label)}">{mark}</a>')
        else:
            body.append(mark)
    body.append("</g>")
    title = f"{board['title']}: score against blended token price, {len(pts)} models"
    return _svg(PQ["height"], title, body, role="group", kind="price-quality")


# --------------------------------------------------------------------------- history and ranks


LINE = {"top": 16, "right": 190, "bottom": 58, "left": 72}


def _date_x(dates: Sequence[str]) -> Callable[[str], float]:
    d0, d1 = _ordinal(dates[0]), _ordinal(dates[-1])
    if d0 == d1:  # one date: put it in the middle
        mid = (LINE["left"] + WIDTH - LINE["right"]) / 2
        return lambda day: mid
    sc = _scale(d0, d1, LINE["left"], WIDTH - LINE["right"])
    return lambda day: sc(_ordinal(day))


def _polyline(pts: Sequence[tuple[float, float]]) -> str:
    return "M" + "L".join(f"{_f(a)},{_f(b)}" for a, b in pts)


def history_domain(models: Sequence[Mapping[str, Any]]) -> tuple[float, float]:
    """The value range of the lines drawn (intervals included), padded by 5%."""
    vals = [v for m in models for p in m["points"]
            for v in (p["value"], p.get("lower"), p.get("upper")) if v is not None]
    if not vals:
        return 0.0, 1.0
    lo, hi = min(vals), max(vals)
    pad = max(2.0, (hi - lo) * 0.05)
    return lo - pad, hi + pad


def _bands(points: Sequence[Mapping[str, Any]], x, y) -> list[str]:
    """Band path data for each run of consecutive points with intervals (a lone one: a bar)."""
    runs, cur = [], []
    for p in points:
        if p.get("lower") is not None:
            cur.append(p)
        elif cur:
            runs.append(cur)
            cur = []
    if cur:
        runs.append(cur)
    out = []
    for run in runs:
        if len(run) == 1:
            p, px = run[0], x(run[0]["date"])
            out.append(f"M{_f(px - 3)},{_f(y(p['upper']))}H{_f(px + 3)}V{_f(y(p['lower']))}H{_f(px - 3)}Z")
        else:
            top = [(x(p["date"]), y(p["upper"])) for p in run]
            bot = [(x(p["date"]), y(p["lower"])) for p in reversed(run)]
            out.append(_polyline(top + bot) + "Z")
    return out


def _end_labels(models: Sequence[Mapping[str, Any]], last: str, ypos: Callable[[Mapping[str, Any]], float],
                top: float, bottom: float) -> list[str]:
    ends = [m for m in models if m["points"] and m["points"][-1]["date"] == last]
    ys = spread_labels([ypos(m) for m in ends], 13, top + 4, bottom)
    x = WIDTH - LINE["right"] + 8
    return [f'<text class="end-label s{m["colour"]}" x="{_f(x)}" y="{_f(yy + 4)}">{escape(short(m["name"]))}</text>'
            for m, yy in zip(ends, ys, strict=True)]


def render_history_svg(series: Mapping[str, Any], keys: Sequence[str]) -> Markup:
    """One ``compute_rating_history`` series with the lines of ``keys`` (in that order)."""
    height = 440
    wanted = {k: n for n, k in enumerate(keys)}
    models = sorted((m for m in series["models"] if m["key"] in wanted), key=lambda m: wanted[m["key"]])
    dates = series["dates"]
    x = _date_x(dates)
    v0, v1 = history_domain(models)
    bottom = height - LINE["bottom"]
    y = _scale(v0, v1, bottom, LINE["top"])
    body = _y_axis([(y(t), num_label(t)) for t in linear_ticks(v0, v1)], LINE["left"], WIDTH - LINE["right"],
                   bottom, LINE["top"], series["unit"])
    body += _x_axis([(x(d), d) for d in date_ticks(dates, x)], bottom, LINE["left"], WIDTH - LINE["right"],
                    _capital(series["x"]))
    body.append('<g class="bands" aria-hidden="true">')
    for m in models:
        for d in _bands(m["points"], x, y):
            body.append(f'<path class="band s{m["colour"]}" d="{d}" fill="currentColor" fill-opacity="0.18"/>')
    body.append('</g><g class="lines" aria-hidden="true">')
    for m in models:
        body.append(f'<path class="line s{m["colour"]}" '
                    f'd="{_polyline([(x(p["date"]), y(p["value"])) for p in m["points"]])}" '
                    f'fill="none" stroke="currentColor" stroke-width="2"/>')
    body.append('</g><g class="marks">')
    for m in models:
        for p in m["points"]:
            tip = f"{m['name']}, {p['date']}: {p['value']:.1f} (rank {p['rank']})"
            if p.get("lower") is not None:
                tip += f", 95% interval {p['lower']:.1f} to {p['upper']:.1f}"
            body.append(f'<circle class="mark s{m["colour"]}" cx="{_f(x(p["date"]))}" cy="{_f(y(p["value"]))}" r="3.5" '
                        f'fill="currentColor"><title>{escape(tip)}</title></circle>')
    body.append("</g>")
    body += _end_labels(models, dates[-1], lambda m: y(m["points"][-1]["value"]), LINE["top"], bottom)
    label = f"{series['title']}: {series['unit']} over time for {len(models)} models, {dates[0]} to {dates[-1]}"
    return _svg(height, label, body, kind="history")


def rank_ticks(max_rank: int) -> list[int]:
    """1, then every 5th rank up to ``max_rank`` (and ``max_rank`` itself when far enough)."""
    step = 5 if max_rank <= 30 else 10
    ticks = [1] + list(range(step, max_rank + 1, step))
    if max_rank - ticks[-1] >= 3:
        ticks.append(max_rank)
    return ticks


def ranks_height(max_rank: int) -> float:
    return LINE["top"] + LINE["bottom"] + max(240, max_rank * 14)


def render_ranks_svg(series: Mapping[str, Any]) -> Markup:
    """One ``compute_rank_evolution`` series: every model's rank by date, rank 1 at the top."""
    height = ranks_height(series["max_rank"])
    dates = series["dates"]
    x = _date_x(dates)
    bottom = height - LINE["bottom"]
    y = _scale(0.5, series["max_rank"] + 0.5, LINE["top"], bottom)
    body = _y_axis([(y(t), str(t)) for t in rank_ticks(series["max_rank"])], LINE["left"], WIDTH - LINE["right"],
                   bottom, LINE["top"], "Rank (1 = best)")
    body += _x_axis([(x(d), d) for d in date_ticks(dates, x)], bottom, LINE["left"], WIDTH - LINE["right"],
                    _capital(series["x"]))
    body.append('<g class="lines" aria-hidden="true">')
    for m in series["models"]:
        body.append(f'<path class="line s{m["colour"]}" '
                    f'd="{_polyline([(x(p["date"]), y(p["rank"])) for p in m["points"]])}" '
                    f'fill="none" stroke="currentColor" stroke-width="2"/>')
    body.append('</g><g class="marks">')
    for m in series["models"]:
        for p in m["points"]:
            body.append(f'<circle class="mark s{m["colour"]}" cx="{_f(x(p["date"]))}" cy="{_f(y(p["rank"]))}" r="3.5" '
                        f'fill="currentColor"><title>{escape(m["name"])}, {p["date"]}: rank '
                        f'{p["rank"]}</title></circle>')
    body.append("</g>")
    body += _end_labels(series["models"], dates[-1], lambda m: y(m["points"][-1]["rank"]), LINE["top"], bottom)
    label = (f"{series['title']}: ranks of the {len(series['models'])} models ever in the top 15, "
             f"{dates[0]} to {dates[-1]}, rank 1 at the top")
    return _svg(height, label, body, kind="ranks")


# --------------------------------------------------------------------------- spread


IV = {"top": 12, "right": 24, "bottom": 58, "left": 200, "row": 16}


def intervals_height(n: int) -> float:
    return IV["top"] + IV["bottom"] + max(1, n) * IV["row"]


def interval_domain(models: Sequence[Mapping[str, Any]]) -> tuple[float, float]:
    lo = min((m["lower"] for m in models), default=0.0)
    hi = max((m["upper"] for m in models), default=1.0)
    pad = max(2.0, (hi - lo) * 0.04)
    return lo - pad, hi + pad


def render_intervals_svg(arena: Mapping[str, Any], root: str) -> Markup:
    """The Arena's intervals, one row per model by rating: a bar from lower to upper bound
    and a dot at the point estimate. Rows whose bars overlap are statistical ties."""
    models = arena["models"]
    height = intervals_height(len(models))
    bottom = height - IV["bottom"]
    v0, v1 = interval_domain(models)
    x = _scale(v0, v1, IV["left"], WIDTH - IV["right"])
    body = _x_axis([(x(t), num_label(t)) for t in linear_ticks(v0, v1, 6)], bottom, IV["left"], WIDTH - IV["right"],
                   f"{arena['unit']}; bars: {round(arena['ci'] * 100)}% bootstrap interval, dot: point estimate")
    body.append('<g class="grid-x" aria-hidden="true">')
    for t in linear_ticks(v0, v1, 6):
        body.append(f'<line class="grid" x1="{_f(x(t))}" x2="{_f(x(t))}" y1="{IV["top"]}" y2="{_f(bottom)}" '
                    f'stroke="currentColor"/>')
    body.append('</g><g class="marks">')
    for k, m in enumerate(models):
        yy = IV["top"] + (k + 0.5) * IV["row"]
        tip = (f"{m['name']}: {m['rating']:.1f}, {round(arena['ci'] * 100)}% interval {m['lower']:.1f} to "
               f"{m['upper']:.1f}, rank {m['rank']}")
        body.append(f'<g class="mark s{m["colour"]}"><title>{escape(tip)}</title>'
                    f'<line class="ci" x1="{_f(x(m["lower"]))}" x2="{_f(x(m["upper"]))}" y1="{_f(yy)}" y2="{_f(yy)}" '
                    f'stroke="currentColor" stroke-width="6" stroke-opacity="0.55"/>'
                    f'<circle class="est" cx="{_f(x(m["rating"]))}" cy="{_f(yy)}" r="4" fill="currentColor" '
                    f'stroke="currentColor"/></g>')
    body.append('</g><g class="row-labels">')
    for k, m in enumerate(models):
        yy = IV["top"] + (k + 0.5) * IV["row"] + 4
        text = f'{m["rank"]}. {short(m["name"])}'
        label = f'<text class="row-label" x="{IV["left"] - 8}" y="{_f(yy)}" text-anchor="end">{escape(text)}</text>'
        body.append(f'<a href="{escape(root + m["href"])}">{label}</a>' if m.get("href") else label)
    body.append("</g>")
    title = (f"{arena['title']}: {round(arena['ci'] * 100)}% intervals of {len(models)} models, "
             "sorted by rating; overlapping bars are statistical ties")
    return _svg(height, title, body, role="group", kind="intervals")


DOT = {"top": 12, "right": 24, "bottom": 58, "left": 72, "r": 5.0}


def dotplot_layout(board: Mapping[str, Any]):
    """(x of a bin's centre, y of a stack level, height, bin domain) of a board's dot plot."""
    pts, width = board["points"], board["width"]
    bins = [p["bin"] for p in pts] or [0]
    levels = max((p["stack"] for p in pts), default=0) + 1
    height = DOT["top"] + DOT["bottom"] + max(120.0, levels * DOT["r"] * 2.2 + 12)
    b0, b1 = min(bins) * width - width, (max(bins) + 2) * width
    x = _scale(b0, b1, DOT["left"], WIDTH - DOT["right"])
    bottom = height - DOT["bottom"]
    return (lambda b: x((b + 0.5) * width)), (lambda s: bottom - 6 - (s + 0.5) * DOT["r"] * 2.2), height, (b0, b1), x


def render_dotplot_svg(board: Mapping[str, Any], root: str) -> Markup:
    """A board's displayed scores: one dot per ranked row, stacked in bins of ``width`` points;
    partial rows hollow."""
    bx, sy, height, (b0, b1), x = dotplot_layout(board)
    bottom = height - DOT["bottom"]
    w = board["width"]
    body = _x_axis([(x(t), num_label(t)) for t in linear_ticks(b0, b1, 8)], bottom, DOT["left"], WIDTH - DOT["right"],
                   f"Score (Arena scale), one dot per model, bins of {num_label(w)} points")
    body.append('<g class="marks">')
    for p in board["points"]:
        fill = 'fill="none"' if p["partial"] else 'fill="currentColor" fill-opacity="0.85"'
        tip = f"{p['name']}: score {p['score']}, rank {p['rank']}" + (", partial" if p["partial"] else "")
        circle = (f'<circle class="mark dot{" partial" if p["partial"] else ""}" cx="{_f(bx(p["bin"]))}" '
                  f'cy="{_f(sy(p["stack"]))}" r="{_f(DOT["r"])}" {fill} stroke="currentColor" stroke-width="1.5">'
                  f'<title>{escape(tip)}</title></circle>')
        link = f'<a href="{escape(root + p["href"])}" aria-label="{escape(tip)}">{circle}</a>'
        body.append(link if p.get("href") else circle)
    body.append("</g>")
    body.append(f'<text class="axis-label" x="{DOT["left"] - 10}" y="{_f(DOT["top"] + 10)}" text-anchor="end" '
                f'aria-hidden="true">models</text>')
    title = f"{board['title']}: distribution of the {len(board['points'])} displayed scores"
    return _svg(height, title, body, role="group", kind="dotplot")


__all__ = [
    "date_ticks",
    "linear_ticks",
    "log_ticks",
    "price_point_label",
    "render_dotplot_svg",
    "render_history_svg",
    "render_intervals_svg",
    "render_price_quality_svg",
    "render_ranks_svg",
    "spread_labels",
    "symbol_path",
    "usd_label",
]
