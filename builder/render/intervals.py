"""What the pages print of a role board's bootstrap: interval bars, Rank (UB), tie groups.

A board row may carry ``uncertainty`` (``RowUncertainty``, written when the snapshot was
scored, see the Methodology page): ``r_lo``/``r_hi`` (the 2.5-97.5% interval of R over the bootstrap rounds,
Arena scale), ``rank_lo``/``rank_hi``, ``rank_ub``, ``p_first``, ``p_above`` and
``tied_above``. A snapshot scored without the bootstrap (or before it existed) has none, and
the pages leave the columns out. Nothing here recomputes a number; it only lays them out.

Bars share one axis per board, covering every row's interval and R::

    x(v) = x0 + (v - lo) / (hi - lo) * (x1 - x0)     (clamped to [x0, x1])
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from builder.snapshot.models import Board, BoardRow

BAR_W = 100
"Width of an interval bar, CSS pixels."
BAR_H = 16
"Height of an interval bar, CSS pixels."
BAR_PAD = 4
"Space left and right of the axis inside a bar."


def interval_of(row: BoardRow) -> tuple[float, float] | None:
    """The row's 95% interval (r_lo, r_hi), or None without one."""
    u = row.uncertainty
    if u is None or u.r_lo is None or u.r_hi is None or not (math.isfinite(u.r_lo) and math.isfinite(u.r_hi)):
        return None
    return u.r_lo, u.r_hi


def board_has_intervals(board: Board) -> bool:
    """True when some row of the board (ranked or new) has an interval."""
    return any(interval_of(r) is not None for r in [*board.rows, *board.new])


def nice_ticks(lo: float, hi: float, max_ticks: int = 4) -> list[float]:
    """Round values (steps of 1, 2, 2.5 or 5 times a power of ten) inside [lo, hi]."""
    span = hi - lo
    if not (span > 0 and math.isfinite(span)):
        return []
    mag = 10.0 ** math.floor(math.log10(span / max_ticks))
    step = mag
    for m in (1, 2, 2.5, 5, 10, 20):
        step = m * mag
        if math.floor(hi / step + 1e-9) - math.ceil(lo / step - 1e-9) + 1 <= max_ticks:
            break
    first, last = math.ceil(lo / step - 1e-9), math.floor(hi / step + 1e-9)
    return [round(k * step, 10) for k in range(first, last + 1)]


@dataclass(frozen=True)
class IntervalView:
    """One board's bars: the shared axis and, per identity, ``{"x", "w", "cx"}`` in pixels."""

    lo: float
    hi: float
    ticks: tuple[float, ...]
    tick_x: tuple[float, ...]
    bars: Mapping[str, Mapping[str, float]]
    width: int = BAR_W
    height: int = BAR_H


def _px(v: float) -> float:
    return round(v, 1)


def compute_interval_view(board: Board) -> IntervalView | None:
    """The bars of every row with an interval (ranked and new), or None when there is none."""
    rows = [(r, iv) for r in [*board.rows, *board.new] if (iv := interval_of(r)) is not None]
    if not rows:
        return None
    values = [v for r, (a, b) in rows for v in (a, b, r.r)]
    lo, hi = min(values), max(values)
    pad = (hi - lo) * 0.04 if hi > lo else 10.0
    lo, hi = lo - pad, hi + pad
    x0, x1 = BAR_PAD, BAR_W - BAR_PAD

    def x(v: float) -> float:
        return x0 + min(1.0, max(0.0, (float(v) - lo) / (hi - lo))) * (x1 - x0)

    bars: dict[str, dict[str, float]] = {}
    for r, (r_lo, r_hi) in rows:
        a, b = x(r_lo), x(r_hi)
        bars[r.identity] = {"x": _px(a), "w": _px(max(b - a, 1.0)), "cx": _px(x(r.r))}
    ticks = tuple(nice_ticks(lo, hi))
    return IntervalView(lo, hi, ticks, tuple(_px(x(t)) for t in ticks), bars)


@dataclass(frozen=True)
class TieGroup:
    """Consecutive ranked rows each tied with the row above it (at least two rows)."""

    first_rank: int | None
    last_rank: int | None
    models: tuple[str, ...]
    identities: tuple[str, ...]


def compute_tie_groups(rows: Sequence[BoardRow]) -> list[TieGroup]:
    """The board's tie groups in board order (a row starts a new group unless ``tied_above``)."""
    groups: list[list[BoardRow]] = []
    for row in rows:
        if groups and row.uncertainty is not None and row.uncertainty.tied_above is True:
            groups[-1].append(row)
        else:
            groups.append([row])
    return [TieGroup(g[0].rank, g[-1].rank, tuple(r.model for r in g), tuple(r.identity for r in g))
            for g in groups if len(g) > 1]


def groups_within(groups: Sequence[TieGroup], identities: Sequence[str]) -> list[TieGroup]:
    """The groups that include at least one of ``identities`` (e.g. a card's top five)."""
    shown = set(identities)
    return [g for g in groups if shown & set(g.identities)]
