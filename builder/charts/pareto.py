"""The price-quality Pareto frontier: the models no other model beats on both price and score.

Formula. Among the points with a usable price (finite, >= 0), point ``p`` is dominated when
some other point ``q`` has

    q.price <= p.price  and  q.score >= p.score  and  (q.price < p.price or q.score > p.score)

and the frontier is every point that is not dominated. Consequences, stated because they are
the edge cases: two points with the same price and the same score do not dominate each
other, so both are on the frontier; at an equal price only the best score survives; at an
equal score only the cheapest price survives. Points without a usable price (None, NaN,
infinite, negative) take no part and are returned separately, in input order.

The sweep: sort by price, group equal prices; a group's best-scoring points are on the
frontier when their score is strictly above the best score of every cheaper group.
O(n log n).
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from itertools import groupby


@dataclass(frozen=True)
class PricePoint:
    """One model on one board: ``key`` (identity), ``price`` (USD per million tokens, blended)
    and ``score`` (the board's displayed score, higher is better)."""

    key: str
    price: float | None
    score: float


@dataclass(frozen=True)
class ParetoFrontier:
    """``frontier``: keys on the frontier, by ascending price then input order (so scores
    ascend along it); ``missing``: keys left out for want of a usable price, input order."""

    frontier: tuple[str, ...]
    missing: tuple[str, ...]


def usable_price(price: object) -> bool:
    """A price the frontier can use: a finite real number >= 0 (booleans are not numbers)."""
    return (isinstance(price, (int, float)) and not isinstance(price, bool)
            and math.isfinite(price) and price >= 0)


def compute_pareto_frontier(points: Iterable[PricePoint]) -> ParetoFrontier:
    """The frontier of ``points`` (see the module docstring for the rule and its ties)."""
    pts = list(points)
    priced = [(k, p) for k, p in enumerate(pts) if usable_price(p.price)]
    missing = tuple(p.key for p in pts if not usable_price(p.price))
    # stable sort: equal prices keep input order, so the output order is deterministic
    priced.sort(key=lambda kp: float(kp[1].price))  # type: ignore[arg-type]
    frontier: list[str] = []
    best = -math.inf  # best score among strictly cheaper prices
    for _, group in groupby(priced, key=lambda kp: float(kp[1].price)):  # type: ignore[arg-type]
        members = [p for _, p in group]
        top = max(p.score for p in members)
        if top > best:
            frontier.extend(p.key for p in members if p.score == top)
            best = top
    return ParetoFrontier(tuple(frontier), missing)


__all__ = ["ParetoFrontier", "PricePoint", "compute_pareto_frontier", "usable_price"]
