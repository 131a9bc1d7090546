"""Score, label and rank the models of one role (from the weighted family means R).

    displayed score = round(R)                      (Python: exact halves go to the even integer)
    rank = 1 + number of ranked rows with a strictly greater unrounded R   (1, 2, 2, 4)
    coverage        = sum(w_f, present f) / sum(w_f, all role families)
    available share = sum(w_f, present f) / sum(w_f, families available in the snapshot)

A model with exactly one contributing independent evaluator is "new" (no rank); a model with
no usable family has no row. Otherwise fewer than two families, fewer than two evaluators or
an available share below 50% make the row partial; partial rows stay ranked.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, TypeVar

from builder.scoring.families import (
    Contribution,
    compute_evaluators,
    compute_family_means,
    compute_r,
)

PARTIAL_SHARE = 0.5
"Rows with less than this share of the available family weight are partial; boards warn below it."

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class ScoredModel:
    """One model under one role. ``r`` is the unrounded Arena-scale score."""

    identity: str
    model: str  # display spelling (ties are shown in ascending order of it)
    r: float
    families: dict[str, float]  # family -> mean, Arena scale
    evaluators: tuple[str, ...]
    coverage: float  # share of all preset weight present, 0..1
    available_share: float  # share of the available weight present, 0..1
    partial_reasons: tuple[str, ...]
    new: bool  # exactly one independent evaluator: shown in the "new" strip, unranked

    @property
    def partial(self) -> bool:
        return bool(self.partial_reasons)

    @property
    def score(self) -> int:
        return display_score(self.r)


def display_score(r: float) -> int:
    """Python's round: nearest integer, exact halves to the even one (1500.5 -> 1500)."""
    return round(r)


def compute_partial_reasons(n_families: int, n_evaluators: int, available_share: float) -> tuple[str, ...]:
    """Why a row is partial (empty: it is not)."""
    reasons = []
    if n_families < 2:
        reasons.append("fewer than two rating families")
    if n_evaluators < 2:
        reasons.append("fewer than two independent evaluators")
    if available_share < PARTIAL_SHARE:
        reasons.append("less than 50% of the available family weight")
    return tuple(reasons)


def score_model(
    identity: str,
    model: str,
    contributions: Sequence[Contribution],
    weights: Mapping[str, float],
    available: set[str],
) -> ScoredModel | None:
    """Score one model under role ``weights``; None when no weighted family is usable."""
    means = compute_family_means(contributions, weights)
    r = compute_r(means, weights)
    if r is None:
        return None
    evaluators = compute_evaluators(contributions, weights)
    present = sum(weights[f] for f in means)
    total = sum(weights.values())
    available_weight = sum(w for f, w in weights.items() if f in available)
    coverage = present / total
    share = present / available_weight if available_weight > 0 else 0.0
    ordered = {f: means[f] for f in weights if f in means}
    return ScoredModel(
        identity=identity,
        model=model,
        r=r,
        families=ordered,
        evaluators=tuple(evaluators),
        coverage=coverage,
        available_share=share,
        partial_reasons=compute_partial_reasons(len(means), len(evaluators), share),
        new=len(evaluators) == 1,
    )


def competition_ranks(values: Sequence[float]) -> list[int]:
    """Rank per value: 1 + number of strictly greater values (ties share: 1, 2, 2, 4)."""
    ordered = sorted(values, reverse=True)
    first: dict[float, int] = {}
    for i, v in enumerate(ordered):
        first.setdefault(v, i + 1)
    return [first[v] for v in values]


def rank_rows(rows: Iterable[T], r: Callable[[T], float], spelling: Callable[[T], str]) -> list[tuple[int, T]]:
    """(rank, row) sorted by descending unrounded R, ties in ascending spelling."""
    ordered = sorted(rows, key=lambda x: (-r(x), spelling(x)))
    ranks = competition_ranks([r(x) for x in ordered])
    return list(zip(ranks, ordered, strict=True))


def rank_by_key(rows: Sequence[T], key: Callable[[T], tuple[Any, ...]]) -> list[int]:
    """Competition ranks of rows already sorted by ``key`` (smaller key = better)."""
    ranks: list[int] = []
    for i, row in enumerate(rows):
        if i and key(row) == key(rows[i - 1]):
            ranks.append(ranks[-1])
        else:
            ranks.append(i + 1)
    return ranks


def compute_movement(
    identity: str, rank: int | None, previous_ranks: Mapping[str, int] | None
) -> int | Literal["new"] | None:
    """Places moved since the previous snapshot (positive = up), "new", or None.

    ``previous_ranks`` is None on the first snapshot or after a change of method.
    """
    if previous_ranks is None or rank is None:
        return None
    before = previous_ranks.get(identity)
    if before is None:
        return "new"
    return before - rank
