"""Percentile bootstrap over tasks, vectorised over rounds and models.

For a model with per-task scores s_1..s_n (proportions in [0, 1]) and task weights
w_1..w_n (all 1 unless the suite is weighted), one bootstrap round draws n task ids with
replacement; c_t counts how often task t was drawn, and the round's mean is

    m* = sum_t c_t w_t s_t / sum_t c_t w_t.

After B rounds the (1 - alpha) interval is the alpha/2 and 1 - alpha/2 quantiles of the
B means (numpy's default linear interpolation). A paired difference between two models
resamples their *common* tasks and applies the same formula to d_t = s_a,t - s_b,t.
A stratified bootstrap draws, within each stratum (task category) of size n_c, n_c ids
with replacement from that stratum only, so every round keeps the category mix.

Vectorisation: all B x n draws come from one ``rng.integers`` call; the counts matrix
C (B, n) is built with one ``bincount``; every model's B means are then one matrix
product C_w @ S^T. There is no Python loop over rounds (``bootstrap_means_loop`` is the
slow reference kept for tests and the benchmark; it consumes the same random stream, so
both give the same numbers). Means are computed around a reference score s_ref (the
first task's score) as s_ref + sum c w (s - s_ref) / sum c w, so a constant score gives
a CI of exactly zero width, free of rounding noise.
"""

from __future__ import annotations

import numpy as np

DEFAULT_ROUNDS = 1000  # low-level helpers; the aggregator defaults to 500
DEFAULT_ALPHA = 0.05


def draw_counts(rng: np.random.Generator, n: int, b: int, strata: np.ndarray | None = None) -> np.ndarray:
    """How often each of ``n`` items is drawn in each of ``b`` rounds of n draws with replacement.

    Returns float64, shape (b, n); every row sums to n. ``strata`` (shape (n,), any
    sortable labels) resamples within each stratum, keeping its size, strata visited in
    sorted label order.
    """
    if n <= 0:
        return np.zeros((b, 0))
    if strata is None:
        return _row_bincount(rng.integers(0, n, size=(b, n)), n)
    strata = np.asarray(strata)
    if strata.shape != (n,):
        raise ValueError(f"strata has shape {strata.shape}, expected ({n},)")
    counts = np.zeros((b, n))
    for label in np.unique(strata):
        pos = np.flatnonzero(strata == label)
        counts[:, pos] = _row_bincount(rng.integers(0, pos.size, size=(b, pos.size)), pos.size)
    return counts


def _row_bincount(idx: np.ndarray, k: int) -> np.ndarray:
    """Per-row bincount of ids in [0, k): (b, m) ints -> (b, k) float counts, one bincount call."""
    b = idx.shape[0]
    flat = (idx + (np.arange(b, dtype=np.int64) * k)[:, None]).ravel()
    return np.bincount(flat, minlength=b * k).reshape(b, k).astype(np.float64)


def weighted_means(scores: np.ndarray, weights: np.ndarray | None = None) -> np.ndarray:
    """Point estimate matching the bootstrap formula: (m, n) scores -> (m,) weighted means.

    Computed around each row's first score, so a constant row returns that score exactly.
    """
    s = np.atleast_2d(np.asarray(scores, dtype=np.float64))
    w = np.ones(s.shape[1]) if weights is None else np.asarray(weights, dtype=np.float64)
    ref = s[:, :1]
    return ref[:, 0] + ((s - ref) @ w) / w.sum()


def bootstrap_means(
    scores: np.ndarray,
    *,
    b: int = DEFAULT_ROUNDS,
    rng: np.random.Generator,
    weights: np.ndarray | None = None,
    strata: np.ndarray | None = None,
) -> np.ndarray:
    """Bootstrap means of every row of ``scores`` under shared task resamples.

    ``scores``: shape (m, n), m models (or paired differences) over the same n tasks, no
    missing values. Returns shape (b, m). Consumes ``rng``.
    """
    s = np.atleast_2d(np.asarray(scores, dtype=np.float64))
    n = s.shape[1]
    if n == 0:
        raise ValueError("cannot bootstrap zero tasks")
    cw = draw_counts(rng, n, b, strata)  # (b, n): weight of each task in each round
    if weights is not None and not np.all(np.asarray(weights) == 1.0):
        cw *= np.asarray(weights, dtype=np.float64)  # in place: the counts matrix is large
    ref = s[:, :1]  # (m, 1)
    return ref[:, 0][None, :] + (cw @ (s - ref).T) / cw.sum(axis=1, keepdims=True)


def bootstrap_means_loop(
    scores: np.ndarray,
    *,
    b: int = DEFAULT_ROUNDS,
    rng: np.random.Generator,
    weights: np.ndarray | None = None,
) -> np.ndarray:
    """Slow reference: one Python iteration per round (tests and the benchmark only).

    Draws the same ids as ``bootstrap_means`` (one ``integers(0, n, n)`` call per round
    reads the same stream as one ``(b, n)`` call), so the results agree to rounding.
    Shape (m, n) -> (b, m).
    """
    s = np.atleast_2d(np.asarray(scores, dtype=np.float64))
    n = s.shape[1]
    w = np.ones(n) if weights is None else np.asarray(weights, dtype=np.float64)
    out = np.empty((b, s.shape[0]))
    for r in range(b):
        idx = rng.integers(0, n, size=n)
        out[r] = (s[:, idx] * w[idx]).sum(axis=1) / w[idx].sum()
    return out


def percentile_ci(samples: np.ndarray, alpha: float = DEFAULT_ALPHA) -> tuple[np.ndarray, np.ndarray]:
    """alpha/2 and 1 - alpha/2 quantiles along axis 0: (b, ...) -> two arrays of shape (...)."""
    if not 0.0 < alpha < 1.0:
        raise ValueError(f"alpha must lie in (0, 1), got {alpha!r}")
    lo, hi = np.quantile(samples, [alpha / 2.0, 1.0 - alpha / 2.0], axis=0)
    return lo, hi


def bootstrap_mean_cis(
    scores: np.ndarray,
    *,
    b: int = DEFAULT_ROUNDS,
    alpha: float = DEFAULT_ALPHA,
    seed: int = 0,
    weights: np.ndarray | None = None,
    strata: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Percentile CIs of every row's mean: (m, n) complete scores -> (lo (m,), hi (m,))."""
    means = bootstrap_means(scores, b=b, rng=np.random.default_rng(seed), weights=weights, strata=strata)
    return percentile_ci(means, alpha)


def bootstrap_mean_ci(
    scores: np.ndarray,
    *,
    b: int = DEFAULT_ROUNDS,
    alpha: float = DEFAULT_ALPHA,
    seed: int = 0,
    weights: np.ndarray | None = None,
    strata: np.ndarray | None = None,
) -> tuple[float, float]:
    """Percentile CI of one model's mean: shape (n,) scores -> (lo, hi), same units."""
    lo, hi = bootstrap_mean_cis(np.asarray(scores, dtype=np.float64)[None, :], b=b, alpha=alpha,
                                seed=seed, weights=weights, strata=strata)
    return float(lo[0]), float(hi[0])


def bootstrap_pairwise_diff(
    scores_a: np.ndarray,
    scores_b: np.ndarray,
    *,
    b: int = DEFAULT_ROUNDS,
    alpha: float = DEFAULT_ALPHA,
    seed: int = 0,
    weights: np.ndarray | None = None,
    strata: np.ndarray | None = None,
) -> tuple[float, float, float]:
    """Paired bootstrap of mean(a - b) over aligned common tasks: shapes (n,), (n,) -> (diff, lo, hi)."""
    a = np.asarray(scores_a, dtype=np.float64)
    bb = np.asarray(scores_b, dtype=np.float64)
    if a.shape != bb.shape or a.ndim != 1:
        raise ValueError(f"paired scores need equal 1-D shapes, got {a.shape} and {bb.shape}")
    d = (a - bb)[None, :]
    lo, hi = bootstrap_mean_cis(d, b=b, alpha=alpha, seed=seed, weights=weights, strata=strata)
    return float(weighted_means(d, weights)[0]), float(lo[0]), float(hi[0])
