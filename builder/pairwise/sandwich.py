"""Sandwich intervals and inverse-frequency weights for the plain (pair-count) Bradley-Terry fit.

Weights (LMArena's reweighting, as ``arena-rank``'s ``PairDataset`` applies it): each
battle of the unordered pair p counts ``w_p = 1 / max(n_p, 50)``, n_p the pair's battles,
not normalised (the fit is on pair sums). The weighted fit maximises
sum_p w_p [s_p log P_p + (n_p - s_p) log(1 - P_p)], which is ``fit_bt`` on counts scaled by
w_p; unweighted, w_p = 1.

Sandwich estimator (``arena-rank``'s ``BradleyTerry``), in log-odds units r with P_p the
fitted probability that i beats j for pair p = {i, j}, wins W_i, W_j and ties T::

    H = L( w_p n_p P_p (1 - P_p) ) + eps I
    G = L( w_p^2 [W_i (1 - P_p)^2 + W_j P_p^2 + T (1/2 - P_p)^2] )
    Cov = H^-1 G H^-1,   bounds = rating +- z sqrt(diag Cov) * scale / ln(base)

where L(c) is the graph Laplacian with edge weights c_p (its ratings block is all there
is: no features), G sums the squared per-battle gradients, and the ridge is
eps = 1e-5 x (total battles) when unweighted, 1e-5 when weighted.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from builder.pairwise.bt import BTFit, PairCounts

HESSIAN_REG = 1e-5
"Ridge on the sandwich's Hessian diagonal (``arena-rank``'s; times the battles for an unweighted plain fit)."
MIN_PAIR = 50
"Floor of the pair count in the inverse-frequency weights 1 / max(n_pair, MIN_PAIR)."


def pair_weights(counts: PairCounts, min_pair: int = MIN_PAIR) -> np.ndarray:
    """Per pair, shape (n_pairs,): ``1 / max(n_p, min_pair)``."""
    w: np.ndarray = 1.0 / np.maximum(counts.totals(), float(min_pair))
    return w


def weighted_counts(counts: PairCounts, weights: np.ndarray) -> PairCounts:
    """``counts`` with every cell multiplied by its pair's weight (the weighted likelihood)."""
    return PairCounts(counts.models, counts.i, counts.j, counts.wins_i * weights, counts.wins_j * weights,
                      counts.ties * weights)


def _laplacian(m: int, i: np.ndarray, j: np.ndarray, c: np.ndarray) -> np.ndarray:
    out = np.zeros((m, m))
    np.add.at(out, (i, j), -c)
    np.add.at(out, (j, i), -c)
    out[np.diag_indices(m)] = np.bincount(i, c, m) + np.bincount(j, c, m)
    return out


@dataclass(frozen=True, eq=False, slots=True)
class Sandwich:
    """Sandwich intervals, shape (n_models,) each, Arena scale (NaN where unrated)."""

    lower: np.ndarray
    upper: np.ndarray
    se: np.ndarray  # standard errors, rating points
    ci: float
    ridge: float


def sandwich_bt(counts: PairCounts, fit: BTFit, *, weights: np.ndarray | None = None, ci: float = 0.95,
                hessian_reg: float = HESSIAN_REG) -> Sandwich:
    """Sandwich intervals of a plain fit on ``counts`` (raw counts; ``weights`` per pair or None).

    Only battles between rated models enter, over the rated models.
    """
    rated = np.flatnonzero(np.isfinite(fit.ratings))
    m = rated.size
    local = np.full(counts.n_models, -1, dtype=np.int64)
    local[rated] = np.arange(m)
    li, lj = local[counts.i], local[counts.j]
    sel = (li >= 0) & (lj >= 0) & (counts.totals() > 0)
    li, lj = li[sel], lj[sel]
    wi, wj, t = counts.wins_i[sel], counts.wins_j[sel], counts.ties[sel]
    n = wi + wj + t
    w = np.ones(n.size) if weights is None else np.asarray(weights, dtype=np.float64)[sel]
    alpha = fit.scale / math.log(fit.base)
    r = fit.ratings[rated] / alpha
    p = 1.0 / (1.0 + np.exp(-(r[li] - r[lj])))
    ridge = hessian_reg * (float(counts.totals().sum()) if weights is None else 1.0)
    hess = _laplacian(m, li, lj, w * n * p * (1.0 - p)) + ridge * np.eye(m)
    gcov = _laplacian(m, li, lj, w * w * (wi * (1.0 - p) ** 2 + wj * p**2 + t * (0.5 - p) ** 2))
    hinv = np.linalg.inv(hess)
    var = np.einsum("ij,jk,ik->i", hinv, gcov, hinv)
    from scipy.special import ndtri  # scipy loads only for a sandwich interval

    z = float(ndtri(0.5 + ci / 2.0))
    se = np.full(counts.n_models, np.nan)
    se[rated] = alpha * np.sqrt(np.maximum(var, 0.0))
    return Sandwich(fit.ratings - z * se, fit.ratings + z * se, se, ci, ridge)


__all__ = ["HESSIAN_REG", "MIN_PAIR", "Sandwich", "pair_weights", "sandwich_bt", "weighted_counts"]
