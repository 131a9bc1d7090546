"""Bootstrap confidence intervals for Bradley-Terry ratings, and ranks with uncertainty.

Resampling N battles with replacement and re-counting them gives pair-outcome counts that
are Multinomial(N, c / N), where c are the observed counts of every (pair, outcome) cell.
We draw those counts directly (``Generator.multinomial``), which is statistically the same
bootstrap as FastChat's ``battles.sample(frac=1, replace=True)`` at a cost independent of N.
Each round is refitted from the point estimate by chord iterations (Newton steps that reuse
the point fit's Hessian factor: a resample moves the Hessian by a few percent), handing over
to full Newton if they stall; both stop within ~1e-8 rating points of the round's maximum.
Rounds run in parallel processes (one BLAS thread each), every round with its own child of
``SeedSequence(seed)``, so results do not depend on the number of workers.

Intervals are percentile intervals: ``lower``/``upper`` are the (1 - ci)/2 and (1 + ci)/2
quantiles of the round ratings (default 95%), ``median`` the 0.5 quantile.

A resample can lose every battle that tied a weak model to the rest. Such a round has no
finite maximum for that group: it gets +inf or -inf ("above"/"below" the main group) or NaN
(no battles, or "between"), the rest is fitted without it and centred on the same mean as
the point fit over the same models. Quantiles therefore stay honest: an interval is infinite
only if more than 2.5% of the rounds put the model at infinity.

Rank with uncertainty (the Arena's "rank (UB)"): ``rank_ub[i] = 1 + #{k : lower[k] > upper[i]}``,
counted within the model's connected component.
"""

from __future__ import annotations

import concurrent.futures as cf
import contextlib
import math
import multiprocessing as mp
import os
from dataclasses import dataclass
from typing import Any

import numpy as np
import scipy.linalg
import scipy.sparse
from scipy.sparse.csgraph import connected_components

from builder.pairwise.bt import BTFit, PairCounts, analyse_graph, newton_bt, one_blas_thread

_INF_SENTINEL = 1e12  # stands in for +-inf while interpolating quantiles
# Newton step tolerance per round (log10-odds units). Newton converges quadratically, so
# once a step this small has been applied the remaining error is of order 1e-10.
_ROUND_TOL = 1e-5
# Chord iterations converge linearly: stop at a smaller step (error ~ step x rate).
_CHORD_TOL = 1e-9
_CHORD_MAX = 40


@dataclass(frozen=True, eq=False, slots=True)
class BTBootstrap:
    """Bootstrap distribution of ratings. ``samples`` shape (rounds, n_models), Arena scale."""

    models: tuple[str, ...]
    samples: np.ndarray
    median: np.ndarray  # (n_models,)
    lower: np.ndarray  # (n_models,)
    upper: np.ndarray  # (n_models,)
    rounds: int
    seed: int
    ci: float
    degenerate_rounds: int  # rounds where some group had no finite maximum


def bootstrap_bt(
    counts: PairCounts,
    point: BTFit,
    rounds: int,
    seed: int,
    *,
    ci: float = 0.95,
    workers: int | None = None,
) -> BTBootstrap:
    """Multinomial bootstrap of ``counts``; intervals around ``point`` (same gauge).

    ``workers``: processes to use (None: all cores when the job is big enough to pay for
    them, 1: in this process).
    """
    if rounds < 1:
        raise ValueError("rounds must be >= 1")
    children = np.random.SeedSequence(seed).spawn(rounds)
    cells = np.stack([counts.wins_i, counts.wins_j, counts.ties], axis=1).ravel()
    job = _Job(
        n=counts.n_models,
        i=counts.i,
        j=counts.j,
        cells=cells,
        point=point.ratings,
        component=point.component,
        scale=point.scale,
        base=point.base,
    )
    work = rounds * (cells.size + counts.n_models**2)
    if workers is None:
        workers = (os.cpu_count() or 1) if work > 3_000_000 else 1
    workers = max(1, min(workers, rounds))
    if workers == 1:
        samples, degenerate = _run_rounds(job, children)  # BLAS pinned inside
    else:
        per = math.ceil(rounds / (workers * 4))
        chunks = [children[k : k + per] for k in range(0, rounds, per)]
        with cf.ProcessPoolExecutor(max_workers=workers, mp_context=_mp_context()) as pool:
            parts = list(pool.map(_run_rounds, [job] * len(chunks), chunks))
        samples = np.concatenate([p[0] for p in parts])
        degenerate = sum(p[1] for p in parts)
    alpha = (1.0 - ci) / 2.0
    lower, median, upper = quantiles(samples, [alpha, 0.5, 1.0 - alpha])
    return BTBootstrap(counts.models, samples, median, lower, upper, rounds, seed, ci, degenerate)


def _mp_context() -> mp.context.BaseContext | None:
    # fork shares the imported modules; elsewhere the default start method still works.
    return mp.get_context("fork") if "fork" in mp.get_all_start_methods() else None


def quantiles(samples: np.ndarray, qs: list[float]) -> list[np.ndarray]:
    """Column quantiles of (rounds, n) ``samples`` ignoring NaN; +-inf allowed."""
    x = np.clip(samples, -_INF_SENTINEL, _INF_SENTINEL)
    out = []
    with np.errstate(all="ignore"):
        import warnings

        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN columns (unrated models)
            qv = np.nanquantile(x, qs, axis=0)
    for q in qv:
        q = np.where(q >= _INF_SENTINEL / 10, np.inf, q)
        q = np.where(q <= -_INF_SENTINEL / 10, -np.inf, q)
        out.append(q)
    return out


@dataclass(frozen=True, eq=False, slots=True)
class _Job:
    n: int
    i: np.ndarray
    j: np.ndarray
    cells: np.ndarray  # (n_pairs * 3,) counts: wins_i, wins_j, ties per pair
    point: np.ndarray  # point ratings (NaN where unrated)
    component: np.ndarray
    scale: float
    base: float


def _one_blas_thread() -> contextlib.AbstractContextManager[Any]:
    """One BLAS thread in each worker: several thread pools spin against each other."""
    limits: contextlib.AbstractContextManager[Any] = one_blas_thread()
    return limits


def _run_rounds(job: _Job, seeds: list[np.random.SeedSequence]) -> tuple[np.ndarray, int]:
    with _one_blas_thread():
        return _run_rounds_inner(job, seeds)


@dataclass(frozen=True, eq=False, slots=True)
class _Group:
    """One strongly connected group of the point fit, prepared for fast refits."""

    members: np.ndarray  # model codes, shape (m,)
    pairs: np.ndarray  # indices of the pairs inside the group
    li: np.ndarray  # local codes of those pairs' two sides
    lj: np.ndarray
    start: np.ndarray  # point estimate, log-base-odds units, gauge start[-1] = 0
    factor: tuple[np.ndarray, bool] | None  # Cholesky factor of the point fit's Hessian (last coordinate fixed)


def _prepare_group(job: _Job, members: np.ndarray, c: float) -> _Group:
    m = members.size
    local = np.full(job.n, -1, dtype=np.int64)
    local[members] = np.arange(m)
    li, lj = local[job.i], local[job.j]
    pairs = np.flatnonzero((li >= 0) & (lj >= 0))
    li, lj = li[pairs], lj[pairs]
    start = job.point[members] / job.scale
    start = start - start[-1]
    factor = None
    if m > 1:
        tot = (job.cells[0::3] + job.cells[1::3] + job.cells[2::3])[pairs]
        x = c * (start[li] - start[lj])
        p = 0.5 * (1.0 + np.tanh(0.5 * x))
        w = c * c * tot * p * (1.0 - p)
        h = np.zeros((m, m))
        np.add.at(h, (li, lj), -w)
        np.add.at(h, (lj, li), -w)
        h[np.diag_indices(m)] = np.bincount(li, w, m) + np.bincount(lj, w, m)
        try:
            factor = scipy.linalg.cho_factor(h[:-1, :-1], check_finite=False)
        except np.linalg.LinAlgError:  # pragma: no cover - a strongly connected group is PD
            factor = None
    return _Group(members, pairs, li, lj, start, factor)


def _run_rounds_inner(job: _Job, seeds: list[np.random.SeedSequence]) -> tuple[np.ndarray, int]:
    total = round(float(job.cells.sum()))
    nonzero = np.flatnonzero(job.cells)  # empty cells stay empty: draw only the others
    pvals = job.cells[nonzero] / job.cells.sum()
    c = math.log(job.base)
    rated = np.isfinite(job.point)
    start = np.where(rated, job.point, 0.0) / job.scale
    # The point fit's groups: models of one component that have a finite rating.
    groups = [np.flatnonzero(rated & (job.component == k)) for k in np.unique(job.component[rated])]
    prepared = [_prepare_group(job, g, c) for g in groups]
    base_fwd = (job.cells[0::3] + job.cells[2::3]) > 0
    base_bwd = (job.cells[1::3] + job.cells[2::3]) > 0
    # Only battles among rated models are resampled into the refits.
    inside = rated[job.i] & rated[job.j]
    out = np.empty((len(seeds), job.n))
    degenerate = 0
    for r, ss in enumerate(seeds):
        rng = np.random.default_rng(ss)
        draw = np.zeros(job.cells.size)
        draw[nonzero] = rng.multinomial(total, pvals)
        wi, wj, t = draw[0::3], draw[1::3], draw[2::3]
        ratings = np.full(job.n, np.nan)
        same = np.array_equal((wi + t) > 0, base_fwd) and np.array_equal((wj + t) > 0, base_bwd)
        if not same:
            # Lost edges matter only if a point-fit group is no longer strongly connected.
            same = _groups_still_strong(job, groups, wi * inside, wj * inside, t * inside)
        if same:
            for g in prepared:
                _refit_prepared(job, g, wi, wj, t, c, ratings)
        else:
            degenerate += _fit_changed(job, wi * inside, wj * inside, t * inside, start, c, ratings)
        out[r] = ratings
    return out, degenerate


def _refit_prepared(job: _Job, g: _Group, wi: np.ndarray, wj: np.ndarray, t: np.ndarray, c: float,
                    ratings: np.ndarray) -> None:
    """Refit a group whose graph is unchanged: chord iterations with the point fit's Hessian.

    A resample moves the Hessian by a few percent, so reusing the point fit's Cholesky
    factor converges linearly at that rate, each step costing one gradient instead of a new
    Hessian and factorisation. Newton takes over if the chord stalls.
    """
    m = g.members.size
    if m == 1:
        ratings[g.members] = job.point[g.members]
        return
    score = (wi + 0.5 * t)[g.pairs]
    tot = (wi + wj + t)[g.pairs]
    beta = g.start.copy()
    converged = False
    if g.factor is not None:
        last = np.inf
        for _ in range(_CHORD_MAX):
            x = c * (beta[g.li] - beta[g.lj])
            p = 0.5 * (1.0 + np.tanh(0.5 * x))
            resid = c * (score - tot * p)
            grad = np.bincount(g.li, resid, m) - np.bincount(g.lj, resid, m)
            step = scipy.linalg.cho_solve(g.factor, grad[:-1], check_finite=False)
            size = float(np.max(np.abs(step)))
            if not size < last * 0.9 and size > _CHORD_TOL:  # not contracting: hand over
                break
            beta[:-1] += step
            last = size
            if size < _CHORD_TOL:
                converged = True
                break
    if not converged:
        sel = tot > 0
        beta, _ = newton_bt(m, g.li[sel], g.lj[sel], score[sel], tot[sel], c, beta, tol=_ROUND_TOL)
    r = job.scale * beta
    ratings[g.members] = r - r.mean() + job.point[g.members].mean()


def _groups_still_strong(job: _Job, groups: list[np.ndarray], wi: np.ndarray, wj: np.ndarray, t: np.ndarray) -> bool:
    fwd = (wi + t) > 0
    bwd = (wj + t) > 0
    src = np.concatenate([job.i[fwd], job.j[bwd]])
    dst = np.concatenate([job.j[fwd], job.i[bwd]])
    g = scipy.sparse.csr_matrix((np.ones(src.size), (src, dst)), shape=(job.n, job.n))
    _, label = connected_components(g, directed=True, connection="strong")
    for members in groups:
        lab = label[members]
        if not np.all(lab == lab[0]):
            return False
    # A group must also not have merged with another one (components never merge: a
    # resample only loses edges), so equal labels within each group suffice.
    return True


def _fit_group(job: _Job, members: np.ndarray, wi: np.ndarray, wj: np.ndarray, t: np.ndarray, start: np.ndarray,
               c: float, ratings: np.ndarray) -> None:
    """Refit one strongly connected group and centre it on the point fit's mean over it."""
    if members.size == 1:
        ratings[members] = job.point[members]
        return
    local = np.full(job.n, -1, dtype=np.int64)
    local[members] = np.arange(members.size)
    li, lj = local[job.i], local[job.j]
    tot = wi + wj + t
    sel = (li >= 0) & (lj >= 0) & (tot > 0)
    beta, _ = newton_bt(members.size, li[sel], lj[sel], (wi + 0.5 * t)[sel], tot[sel], c, start[members],
                        tol=_ROUND_TOL)
    r = job.scale * beta
    ratings[members] = r - r.mean() + job.point[members].mean()


def _fit_changed(job: _Job, wi: np.ndarray, wj: np.ndarray, t: np.ndarray, start: np.ndarray, c: float,
                 ratings: np.ndarray) -> int:
    """A resample whose graph structure differs from the point fit's. Returns 1 if degenerate."""
    st = analyse_graph(job.n, job.i, job.j, wi, wj, t)
    for main in st.main:
        _fit_group(job, main, wi, wj, t, start, c, ratings)
    for codes, position in st.unrated:
        ratings[codes] = np.inf if position == "above" else -np.inf if position == "below" else np.nan
    return 1 if st.unrated else 0


def point_ranks(ratings: np.ndarray, component: np.ndarray) -> np.ndarray:
    """1 + #models of the same component with a strictly higher rating; 0 where unrated."""
    ranks = np.zeros(ratings.size, dtype=np.int64)
    for k in np.unique(component[np.isfinite(ratings)]):
        idx = np.flatnonzero((component == k) & np.isfinite(ratings))
        r = ratings[idx]
        ranks[idx] = 1 + (r[None, :] > r[:, None]).sum(axis=1)
    return ranks


def ranks_with_uncertainty(lower: np.ndarray, upper: np.ndarray, component: np.ndarray,
                           rated: np.ndarray) -> np.ndarray:
    """rank_ub = 1 + #models of the same component whose lower bound exceeds this upper bound."""
    ranks = np.zeros(lower.size, dtype=np.int64)
    for k in np.unique(component[rated]):
        idx = np.flatnonzero((component == k) & rated)
        ranks[idx] = 1 + (lower[idx][None, :] > upper[idx][:, None]).sum(axis=1)
    return ranks


__all__ = ["BTBootstrap", "bootstrap_bt", "point_ranks", "quantiles", "ranks_with_uncertainty"]
