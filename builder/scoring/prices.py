"""Token and build prices: what qualifies a model for the priced boards.

Token price (USD per million tokens), for a per-token list price entry::

    blended = 1_000_000 * (0.75 * input_cost_per_token + 0.25 * output_cost_per_token)

Entries whose key contains ':' are ignored; input and output must be finite, positive
numbers (not booleans). Per identity the cheapest blended price wins, then the
alphabetically first provider key. ``blended`` is rounded to 1e-10 USD so that decimal list
prices compare exactly with the board bounds (3e-7 per token is $0.30, not $0.30000000000000004).

Build price (USD per build): the median of the matching job prices of PirateBench's latest
scored epoch, only when every matching job has a positive numeric price.
"""

from __future__ import annotations

import math
import re
import statistics
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import date
from typing import Any

from builder.records import BuildCheck, Price, known

PRICE_DIGITS = 10
"Decimal places kept in blended prices and other bound comparisons."


def positive_number(value: object) -> bool:
    """A finite, positive int/float that is not a boolean."""
    return (
        isinstance(value, (int, float))
        and not isinstance(value, bool)
        and math.isfinite(value)
        and value > 0
    )


def blended_price(input_per_token: float, output_per_token: float) -> float:
    """USD per million tokens, 75% input and 25% output."""
    return round(1_000_000 * (0.75 * input_per_token + 0.25 * output_per_token), PRICE_DIGITS)


def valid_token_price(price: Price) -> bool:
    """Usable for a board: an identity, no exclusion, no ':' in the key, two positive prices."""
    return (
        bool(price.identity)
        and price.excluded is None
        and ":" not in price.key
        and positive_number(price.input_per_token)
        and positive_number(price.output_per_token)
    )


def select_token_prices(prices: Iterable[Price]) -> dict[str, tuple[Price, float]]:
    """Identity -> (chosen entry, blended USD / M tokens): cheapest, then first key."""
    best: dict[str, tuple[Price, float]] = {}
    for p in prices:
        if not valid_token_price(p):
            continue
        blended = blended_price(known(p.input_per_token, p.key), known(p.output_per_token, p.key))
        cur = best.get(p.identity)
        if cur is None or (blended, p.key) < (cur[1], cur[0].key):
            best[p.identity] = (p, blended)
    return best


@dataclass(frozen=True, slots=True)
class BuildPrice:
    """One identity's build-check summary in the latest scored epoch. ``price`` USD per build."""

    identity: str
    model: str
    epoch: str
    price: float | None  # None unless every matching job has a positive numeric price
    passed: bool  # every matching job passed
    jobs: int

    def to_json(self) -> dict[str, Any]:
        return {"identity": self.identity, "model": self.model, "epoch": self.epoch,
                "price": self.price, "passed": self.passed, "jobs": self.jobs}


def _natural(label: str) -> tuple[int | str, ...]:
    return tuple(int(t) if t.isdigit() else t for t in re.split(r"(\d+)", label))


def latest_scored_epoch(checks: Iterable[BuildCheck]) -> str | None:
    """The scored epoch with the newest job date (then the greatest label, numbers compared as numbers)."""
    newest: dict[str, date] = {}
    for c in checks:
        if c.scored:
            d = c.date or date.min
            newest[c.epoch] = max(newest.get(c.epoch, date.min), d)
    if not newest:
        return None
    return max(newest, key=lambda e: (newest[e], _natural(e)))


def compute_build_prices(checks: Sequence[BuildCheck]) -> dict[str, BuildPrice]:
    """Identity -> build-check summary over the latest scored epoch's matching jobs."""
    epoch = latest_scored_epoch(checks)
    jobs: dict[str, list[BuildCheck]] = {}
    for c in checks:
        if c.scored and c.epoch == epoch and c.identity:
            jobs.setdefault(c.identity, []).append(c)
    out = {}
    for identity, rows in sorted(jobs.items()):
        priced = all(c.excluded is None and positive_number(c.price) for c in rows)
        price = float(statistics.median(known(c.price, c.model) for c in rows)) if priced else None
        out[identity] = BuildPrice(
            identity=identity,
            model=min(c.model for c in rows),
            epoch=epoch or "",
            price=price,
            passed=all(c.passed for c in rows),
            jobs=len(rows),
        )
    return out
