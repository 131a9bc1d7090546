"""Jinja filters: how numbers, prices, times and movement read on the page, and the
machine-readable sort keys (``data-sort``) the table script sorts by.

Display strings are rounded for reading; sort keys are unrounded (``repr`` of the float) so
numbers sort as numbers and a column sorted by score orders by the unrounded R.
"""

from __future__ import annotations

import json
import math
from datetime import date, datetime
from decimal import Decimal
from typing import Any

from builder.util.io import as_utc


def num_key(x: Any) -> str:
    """Sort key for a number: the shortest exact decimal, or "" (sorted last) when absent."""
    if x is None or isinstance(x, bool):
        return ""
    try:
        f = float(x)
    except (TypeError, ValueError):
        return ""
    if f != f or f in (float("inf"), float("-inf")):
        return ""
    return repr(int(f)) if f.is_integer() and abs(f) < 1e15 else repr(f)


def movement_key(m: Any) -> str:
    """Sort key for movement: the signed rank change; "new" and none sort last."""
    return num_key(m) if isinstance(m, int) and not isinstance(m, bool) else ""


def movement_text(m: Any) -> str:
    """``▲ 3`` up, ``▼ 2`` down, ``=`` unchanged, ``new``, or ``–`` (no previous snapshot)."""
    if m == "new":
        return "new"
    if isinstance(m, int) and not isinstance(m, bool):
        if m > 0:
            return f"▲ {m}"
        if m < 0:
            return f"▼ {-m}"
        return "="
    return "–"


def movement_label(m: Any) -> str:
    """Spoken form of the movement cell for screen readers."""
    if m == "new":
        return "new on this board"
    if isinstance(m, int) and not isinstance(m, bool):
        if m > 0:
            return f"up {m}"
        if m < 0:
            return f"down {-m}"
        return "unchanged"
    return "no previous snapshot"


def fmt_num(x: Any, digits: int = 2) -> str:
    if x is None or isinstance(x, bool):
        return "–"
    try:
        return f"{float(x):,.{digits}f}"
    except (TypeError, ValueError):
        return str(x)


def fmt_raw(x: Any) -> str:
    """A raw upstream value as published (up to 6 significant digits)."""
    if x is None or isinstance(x, bool):
        return "–"
    try:
        return f"{float(x):.6g}"
    except (TypeError, ValueError):
        return str(x)


def fmt_exact(x: Any) -> str:
    """Every digit of a float (the worked example shows the exact arithmetic)."""
    return "–" if x is None else repr(float(x))


def fmt_pct(x: Any) -> str:
    if x is None or isinstance(x, bool):
        return "–"
    return f"{float(x) * 100:.0f}%"


def fmt_usd(x: Any) -> str:
    """USD with enough decimals to tell cheap prices apart."""
    if x is None or isinstance(x, bool):
        return "–"
    f = float(x)
    if f != 0 and abs(f) < 0.1:
        return f"${f:.4f}"
    return f"${f:,.2f}"


def fmt_usd_exact(x: Any) -> str:
    """USD with every digit the price has (at least cents), for a price that is compared with
    a cap: a blended $0.29925 is below $0.30, which rounding to cents would hide."""
    if x is None or isinstance(x, bool):
        return "–"
    f = float(x)
    if not math.isfinite(f):
        return fmt_usd(f)
    decimals = len(format(Decimal(repr(f)), "f").partition(".")[2])  # the shortest digits that are f
    return f"${f:,.{max(2, decimals)}f}"


def fmt_int(x: Any) -> str:
    if x is None or isinstance(x, bool):
        return "–"
    try:
        return f"{int(x):,}"
    except (TypeError, ValueError):
        return str(x)


def fmt_utc(ts: Any) -> str:
    """An ISO time as ``YYYY-MM-DD HH:MM UTC``; an unparseable value as itself; none as –."""
    if not ts:
        return "–"
    try:
        t = datetime.fromisoformat(str(ts))
    except ValueError:
        return str(ts)
    return as_utc(t).strftime("%Y-%m-%d %H:%M UTC")


def fmt_date(d: Any) -> str:
    if not d:
        return "–"
    try:
        return date.fromisoformat(str(d)[:10]).isoformat()
    except ValueError:
        return str(d)


def yes_no(b: Any) -> str:
    return "unknown" if b is None else ("yes" if b else "no")


def tojson_attr(x: Any) -> str:
    """JSON text for an HTML attribute (plain text: autoescape then escapes its quotes); floats exact."""
    return json.dumps(x, ensure_ascii=False, allow_nan=False)


FILTERS = {
    "tojson_attr": tojson_attr,
    "num_key": num_key,
    "movement_key": movement_key,
    "movement_text": movement_text,
    "movement_label": movement_label,
    "num": fmt_num,
    "raw": fmt_raw,
    "exact": fmt_exact,
    "pct": fmt_pct,
    "usd": fmt_usd,
    "usd_exact": fmt_usd_exact,
    "int": fmt_int,
    "utc": fmt_utc,
    "isodate": fmt_date,
    "yes_no": yes_no,
}
