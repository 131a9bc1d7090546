"""Win-rate matrices: predicted from ratings, empirical from battles, and their gap.

Predicted (row i beats column j): P_ij = 1 / (1 + base ** ((r_j - r_i) / scale)).
Empirical: E_ij = (wins of i over j + ties / 2) / battles between i and j; undefined (NaN)
where the pair never met. The fit's error is the mean absolute difference |P_ij - E_ij|
over unordered pairs with at least ``min_battles`` battles (|P_ij - E_ij| = |P_ji - E_ji|,
so each pair counts once). Diagonals are NaN.
"""

from __future__ import annotations

import numpy as np

from builder.pairwise.bt import PairCounts


def compute_predicted_winrates(ratings: np.ndarray, *, scale: float = 400.0, base: float = 10.0) -> np.ndarray:
    """Shape (n, n) for ratings shape (n,); P[i, j] = P(i beats j); NaN diagonal."""
    r = np.asarray(ratings, dtype=np.float64)
    with np.errstate(over="ignore", invalid="ignore"):
        p = 1.0 / (1.0 + np.power(base, (r[None, :] - r[:, None]) / scale))
    np.fill_diagonal(p, np.nan)
    return p


def compute_empirical_winrates(counts: PairCounts, models: list[int] | np.ndarray | None = None) -> tuple[np.ndarray,
                                                                                                          np.ndarray]:
    """(rates, battles), each shape (m, m) over ``models`` (codes; default all).

    ``rates[i, j]`` = (wins of i over j + ties / 2) / battles, NaN where they never met
    and on the diagonal; ``battles[i, j]`` the number of battles between them.
    """
    n = counts.n_models
    sel = np.arange(n) if models is None else np.asarray(models, dtype=np.int64)
    m = sel.size
    pos = np.full(n, -1, dtype=np.int64)
    pos[sel] = np.arange(m)
    pi, pj = pos[counts.i], pos[counts.j]
    keep = (pi >= 0) & (pj >= 0)
    pi, pj = pi[keep], pj[keep]
    tot = counts.totals()[keep]
    score_i = counts.wins_i[keep] + 0.5 * counts.ties[keep]
    battles = np.zeros((m, m))
    battles[pi, pj] = tot
    battles[pj, pi] = tot
    score = np.zeros((m, m))
    score[pi, pj] = score_i
    score[pj, pi] = tot - score_i
    with np.errstate(invalid="ignore", divide="ignore"):
        rates = np.where(battles > 0, score / battles, np.nan)
    np.fill_diagonal(rates, np.nan)
    return rates, battles


def compute_winrate_mae(predicted: np.ndarray, empirical: np.ndarray, battles: np.ndarray,
                        min_battles: int) -> tuple[float | None, int]:
    """(mean |P - E| over unordered pairs with >= min_battles battles, number of such pairs).

    The mean is None when no pair qualifies. Inputs shape (m, m), same model order.
    """
    iu, ju = np.triu_indices(battles.shape[0], k=1)
    ok = (battles[iu, ju] >= min_battles) & np.isfinite(predicted[iu, ju]) & np.isfinite(empirical[iu, ju])
    used = int(ok.sum())
    if used == 0:
        return None, 0
    return float(np.abs(predicted[iu, ju][ok] - empirical[iu, ju][ok]).mean()), used


__all__ = ["compute_empirical_winrates", "compute_predicted_winrates", "compute_winrate_mae"]
