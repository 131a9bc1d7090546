"""Families and the role score R: family means first, then their weighted mean.

For one model and one role with positive family weights ``w_f``::

    family_mean[f] = mean(usable calibrated source scores in family f)
    R = sum(w_f * family_mean[f] for present f) / sum(w_f for present f)

A family is present for a model when it has at least one usable calibrated score. Missing
families leave both numerator and denominator; nothing is imputed. All scores are on the
Arena scale.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from builder.records import Observation, known


@dataclass(frozen=True, slots=True)
class Contribution:
    """One usable calibrated score (Arena scale) of one model, filed under its family."""

    identity: str
    family: str
    source: str
    feed: str
    release: str
    evaluator: str
    model: str  # spelling the source published
    raw: float
    calibrated: float


def feed_families(families: Mapping[str, Sequence[str]]) -> dict[str, list[str]]:
    """Feed -> families listing it (a feed may serve more than one family)."""
    out: dict[str, list[str]] = {}
    for fam, feeds in families.items():
        for feed in feeds:
            out.setdefault(feed, []).append(fam)
    return out


def compute_contributions(
    observations: Sequence[Observation],
    calibrated: Sequence[float | None],
    families: Mapping[str, Sequence[str]],
) -> dict[str, list[Contribution]]:
    """Identity -> its usable contributions. ``calibrated`` is aligned with ``observations``.

    ``families`` maps family id -> feed names. Rows with no calibrated value (unselected,
    excluded, unused fit) contribute nothing.
    """
    by_feed = feed_families(families)
    out: dict[str, list[Contribution]] = {}
    for obs, value in zip(observations, calibrated, strict=True):
        if value is None or not obs.identity:
            continue
        for fam in by_feed.get(obs.feed, ()):
            out.setdefault(obs.identity, []).append(
                Contribution(obs.identity, fam, obs.source, obs.feed, obs.release, obs.evaluator,
                             obs.model, known(obs.raw, f"raw of {obs.model}"), float(value))
            )
    return out


def compute_family_means(contributions: Iterable[Contribution], weights: Mapping[str, float]) -> dict[str, float]:
    """Family -> equal mean of its calibrated scores, for families with a positive weight."""
    values: dict[str, list[float]] = {}
    for c in contributions:
        if weights.get(c.family, 0) > 0:
            values.setdefault(c.family, []).append(c.calibrated)
    return {f: math.fsum(v) / len(v) for f, v in values.items()}


def compute_r(family_means: Mapping[str, float], weights: Mapping[str, float]) -> float | None:
    """Weighted mean over the present families only; None when no weighted family is present."""
    present = [f for f in weights if f in family_means and weights[f] > 0]
    denominator = sum(weights[f] for f in present)
    if not present or not denominator > 0:
        return None
    return sum(weights[f] * family_means[f] for f in present) / denominator


def compute_evaluators(contributions: Iterable[Contribution], weights: Mapping[str, float]) -> list[str]:
    """Independent evaluators behind the weighted families (sorted)."""
    return sorted({c.evaluator for c in contributions if weights.get(c.family, 0) > 0})


def available_families(contributions: Mapping[str, Sequence[Contribution]]) -> set[str]:
    """Families with at least one usable score anywhere in the snapshot (before any filter)."""
    return {c.family for rows in contributions.values() for c in rows}
