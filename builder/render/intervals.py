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
from typing import Any

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
    """Consecutive ranked rows statistically tied with the group's first row, its leader (at
    least two rows). Snapshots from before leader-anchored groups: rows each tied with the row above."""

    first_rank: int | None
    last_rank: int | None
    models: tuple[str, ...]
    identities: tuple[str, ...]


def _joins(row: BoardRow, anchored: bool) -> bool:
    """The row belongs to the group of a row above it."""
    u = row.uncertainty
    if u is None:
        return False
    return u.tie_leader is not None if anchored else u.tied_above is True


def compute_tie_groups(rows: Sequence[BoardRow], anchored: bool = True) -> list[TieGroup]:
    """The board's tie groups in board order. ``anchored`` (snapshots whose bootstrap records
    ``tie_groups: leader``): a row joins the group of its ``tie_leader``; otherwise (older
    snapshots) a row starts a new group unless ``tied_above``."""
    groups: list[list[BoardRow]] = []
    for row in rows:
        if groups and _joins(row, anchored):
            groups[-1].append(row)
        else:
            groups.append([row])
    return [TieGroup(g[0].rank, g[-1].rank, tuple(r.model for r in g), tuple(r.identity for r in g))
            for g in groups if len(g) > 1]


@dataclass(frozen=True)
class TieMarks:
    """What a board's rows print of the groups: per tied row the name of the model it is
    tied with (its group's leader, or the row above in older snapshots), and the leaders of
    groups with members."""

    tied: Mapping[str, str]
    heads: frozenset[str]


def compute_tie_marks(rows: Sequence[BoardRow], anchored: bool = True) -> TieMarks:
    """The marks of ``compute_tie_groups(rows, anchored)``."""
    tied: dict[str, str] = {}
    heads: set[str] = set()
    for g in compute_tie_groups(rows, anchored):
        heads.add(g.identities[0])
        for k, ident in enumerate(g.identities[1:], start=1):
            tied[ident] = g.models[0] if anchored else g.models[k - 1]
    return TieMarks(tied, frozenset(heads))


def anchored_ties(snap: object) -> bool:
    """The snapshot's rows carry leader-anchored tie groups (``uncertainty.tie_groups``)."""
    u = getattr(snap, "uncertainty", None)
    return u is not None and getattr(u, "tie_groups", None) == "leader"


def groups_within(groups: Sequence[TieGroup], identities: Sequence[str]) -> list[TieGroup]:
    """The groups that include at least one of ``identities`` (e.g. a card's top five)."""
    shown = set(identities)
    return [g for g in groups if shown & set(g.identities)]


@dataclass(frozen=True)
class WeakFeed:
    """A feed a board weights that could not be calibrated: too few models in common with the Arena."""

    feed: str
    source: str  # the source's display title
    family: str  # the family's display title
    overlap: int  # models it shares with the Arena text ratings (the largest over its releases)
    needed: int


MIN_OVERLAP = 10
"The calibration's minimum overlap with the Arena text ratings (``builder.scoring.calibrate``)."


def weak_feeds(snap: object, board: Board) -> list[WeakFeed]:
    """The feeds of ``board``'s weighted families that no fit calibrated because their overlap
    with the Arena is under the minimum: the reason a family's weight is missing there."""
    families = getattr(snap, "families", {})
    titles = {s.name: s.title for s in getattr(snap, "sources", ())}
    fits: dict[str, list[Any]] = {}
    for c in getattr(snap, "calibration", ()):
        fits.setdefault(c.feed, []).append(c)
    out = []
    for fam, weight in board.weights.items():
        if weight <= 0 or fam not in families:
            continue
        for feed in families[fam].feeds:
            cs = fits.get(feed, [])
            if cs and not any(c.used for c in cs) and max(c.n for c in cs) < MIN_OVERLAP:
                src = cs[0].source
                out.append(WeakFeed(feed, titles.get(src, src), families[fam].title, max(c.n for c in cs),
                                    MIN_OVERLAP))
    return out
