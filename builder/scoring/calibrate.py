"""Calibration: put every non-Arena feed onto the Arena text scale (a z-fit per feed release).

For one source feed and release, the overlap is the set of identity keys with a selected,
non-excluded score on that feed *and* a selected, non-excluded Arena text rating (duplicate
keys removed). With ``n`` overlap keys, raw scores ``x_i`` and Arena ratings ``a_i``::

    mu    = mean(x_i)
    sigma = population standard deviation(x_i)
    z_i   = (x_i - mu) / sigma
    alpha = mean(a_i)
    beta  = sum(z_i * (a_i - alpha)) / sum(z_i * z_i)
    calibrated(x) = alpha + beta * (x - mu) / sigma

A feed contributes nothing when ``n < 10``, ``sigma == 0`` or ``beta <= 0``. Arena feeds
(text and coding) keep their raw ratings. There is no clipping, floor or age multiplier.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from builder.records import Observation, known

MIN_OVERLAP = 10
"Fewest overlap keys a fit needs before its feed may contribute."

GroupKey = tuple[str, str, str]  # (source, feed, release)


@dataclass(frozen=True, slots=True)
class Calibration:
    """One z-fit. ``mu``/``sigma`` are in the feed's raw unit; ``alpha``/``beta`` on the Arena scale.

    Parameters that cannot be computed (empty overlap, zero sigma) are None. ``used`` is
    True only when the fit may calibrate scores; ``reason`` says why (or why not).
    """

    source: str
    feed: str
    release: str
    n: int
    overlap: tuple[str, ...]
    mu: float | None
    sigma: float | None
    alpha: float | None
    beta: float | None
    used: bool
    reason: str

    def to_json(self) -> dict[str, Any]:
        return {
            "source": self.source,
            "feed": self.feed,
            "release": self.release,
            "n": self.n,
            "overlap": list(self.overlap),
            "mu": self.mu,
            "sigma": self.sigma,
            "alpha": self.alpha,
            "beta": self.beta,
            "used": self.used,
            "reason": self.reason,
        }


def usable_observation(obs: Observation) -> bool:
    """Selected, not excluded, with a number and an identity: the only rows that may count."""
    return obs.selected and obs.excluded is None and obs.raw is not None and bool(obs.identity)


def fit_calibration(
    pairs: Sequence[tuple[str, float, float]],
    *,
    source: str = "",
    feed: str = "",
    release: str = "",
    min_overlap: int = MIN_OVERLAP,
) -> Calibration:
    """Fit one feed release. ``pairs``: (identity key, raw score, Arena text rating), keys unique."""
    keys = tuple(k for k, _, _ in pairs)
    n = len(pairs)
    if n == 0:
        return Calibration(source, feed, release, 0, keys, None, None, None, None, False,
                           f"no overlap with Arena text (needs {min_overlap})")
    xs = [float(x) for _, x, _ in pairs]
    arena = [float(a) for _, _, a in pairs]
    mu = math.fsum(xs) / n
    alpha = math.fsum(arena) / n
    # Identical raw scores: sigma is zero by definition (avoid a rounding-noise sigma).
    sigma = 0.0 if max(xs) == min(xs) else math.sqrt(math.fsum((x - mu) ** 2 for x in xs) / n)
    beta = None
    if sigma > 0:
        z = [(x - mu) / sigma for x in xs]
        beta = math.fsum(zi * (ai - alpha) for zi, ai in zip(z, arena, strict=True)) / math.fsum(zi * zi for zi in z)
    if n < min_overlap:
        reason = f"overlap {n} < {min_overlap}"
    elif sigma == 0:
        reason = "sigma is zero"
    elif beta is None or not beta > 0:
        reason = f"beta {beta!r} is not positive"
    else:
        reason = f"fitted on {n} overlap keys"
    used = reason.startswith("fitted")
    return Calibration(source, feed, release, n, keys, mu, sigma, alpha, beta, used, reason)


def calibrate(raw: float, cal: Calibration) -> float | None:
    """Arena-scale score for ``raw`` under a used fit; None when the fit is not used."""
    if not cal.used or cal.mu is None or cal.sigma is None or cal.alpha is None or cal.beta is None:
        return None
    return cal.alpha + cal.beta * (raw - cal.mu) / cal.sigma


def _preference(obs: Observation) -> tuple[float | None, int, str, str]:
    # Same tie rule as selection: highest raw, latest date, greatest spelling and URL.
    return (obs.raw, obs.date.toordinal() if obs.date else -1, obs.model, obs.url)


def _one_per_key(observations: Iterable[Observation]) -> dict[str, Observation]:
    best: dict[str, Observation] = {}
    for obs in observations:
        cur = best.get(obs.identity)
        if cur is None or _preference(obs) > _preference(cur):
            best[obs.identity] = obs
    return best


def compute_arena_anchor(observations: Iterable[Observation], text_feeds: set[str]) -> dict[str, float]:
    """Identity -> selected Arena text rating (one per key)."""
    rows = [o for o in observations if o.feed in text_feeds and usable_observation(o)]
    return {k: known(o.raw, f"raw of {o.model}") for k, o in _one_per_key(rows).items()}


def fit_calibrations(
    observations: Sequence[Observation],
    text_feeds: set[str],
    arena_feeds: set[str],
    min_overlap: int = MIN_OVERLAP,
) -> list[Calibration]:
    """One fit per (source, feed, release) of every non-Arena feed, sorted by that key.

    ``text_feeds``: the Arena text feeds (the anchor); ``arena_feeds``: every feed kept on its
    own scale (Arena text and coding).
    """
    anchor = compute_arena_anchor(observations, text_feeds)
    groups: dict[GroupKey, list[Observation]] = {}
    for obs in observations:
        if obs.feed in arena_feeds:
            continue
        groups.setdefault((obs.source, obs.feed, obs.release), [])
        if usable_observation(obs) and obs.identity in anchor:
            groups[(obs.source, obs.feed, obs.release)].append(obs)
    fits = []
    for (source, feed, release), rows in sorted(groups.items()):
        chosen = _one_per_key(rows)
        pairs = [(k, known(chosen[k].raw, f"raw of {k}"), anchor[k]) for k in sorted(chosen)]
        fits.append(fit_calibration(pairs, source=source, feed=feed, release=release, min_overlap=min_overlap))
    return fits


def compute_calibrated(
    observations: Sequence[Observation],
    calibrations: Iterable[Calibration],
    arena_feeds: set[str],
) -> list[float | None]:
    """Calibrated Arena-scale value per observation (aligned with ``observations``).

    None for unselected or excluded rows, rows without a number and feeds whose fit is unused.
    """
    by_key: Mapping[GroupKey, Calibration] = {(c.source, c.feed, c.release): c for c in calibrations}
    out: list[float | None] = []
    for obs in observations:
        if not usable_observation(obs):
            out.append(None)
        elif obs.feed in arena_feeds:
            out.append(known(obs.raw, f"raw of {obs.model}"))
        else:
            cal = by_key.get((obs.source, obs.feed, obs.release))
            out.append(calibrate(known(obs.raw, f"raw of {obs.model}"), cal) if cal else None)
    return out
