"""Bootstrap confidence intervals for Bradley-Terry ratings, and ranks with uncertainty.

Resampling N battles with replacement and re-counting them gives pair-outcome counts that
are Multinomial(N, c / N), where c are the observed counts of every (pair, outcome) cell.
We draw those counts directly (``Generator.multinomial``), which is statistically the same
bootstrap as FastChat's ``battles.sample(frac=1, replace=True)`` at a cost independent of N.
Each round is refitted from the point estimate by chord iterations (Newton steps that reuse
the point fit's inverse Hessian: a resample moves the Hessian by a few percent), handing over
to full Newton if they stall; both stop within ~1e-8 rating points of the round's maximum.
The chord iterations run on a block of rounds at once (arrays of rounds x pairs), so a round
costs its multinomial draw and a few vector operations, not a Python loop of its own. Every
round has its own child of ``SeedSequence(seed)`` and the blocks are fixed by the round
index, so results do not depend on the number of workers (processes, one BLAS thread each).

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

import contextlib
import math
import os
import signal
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from builder.pairwise.bt import BTFit, PairCounts, analyse_graph, newton_bt, one_blas_thread
from builder.pairwise.graph import DENSE_NODES, dense_strongly_connected, strongly_connected

if TYPE_CHECKING:
    import multiprocessing as mp

_INF_SENTINEL = 1e12  # stands in for +-inf while interpolating quantiles
# Newton step tolerance per round (log10-odds units). Newton converges quadratically, so
# once a step this small has been applied the remaining error is of order 1e-10.
_ROUND_TOL = 1e-5
# Chord iterations converge linearly: stop at a smaller step (error ~ step x rate).
_CHORD_TOL = 1e-9
_CHORD_MAX = 40
# Rounds refitted together: up to 25, and at most about a million (round, pair) cells, so a
# block's arrays stay near 8 MB each however many models there are. 25 divides the usual 100
# (and 200, 1000) rounds into blocks of one size, which two or four processes share evenly.
_BLOCK_ROUNDS = 25
_BLOCK_CELLS = 1_000_000
# Below this much work (rounds x (pair-outcome cells + models^2)) one process is quicker
# than starting a pool: about a quarter of a second of rounds on one core (150 models and
# 100 rounds are 5.6 million).
_POOL_WORK = 2_000_000


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
    pair_weights: np.ndarray | None = None,
) -> BTBootstrap:
    """Multinomial bootstrap of ``counts``; intervals around ``point`` (same gauge).

    ``workers``: processes to use (None: all cores when the job is big enough to pay for
    them, 1: in this process). ``pair_weights`` (n_pairs,): a weighted fit's per-pair weights
    (``point`` fitted on the weighted counts); the resampled counts are weighted the same way.
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
        weights=None if pair_weights is None else np.asarray(pair_weights, dtype=np.float64),
    )
    size = block_rounds(counts.i.size)
    blocks = [children[k : k + size] for k in range(0, rounds, size)]
    work = rounds * (cells.size + counts.n_models**2)
    if workers is None:
        workers = (os.cpu_count() or 1) if work > _POOL_WORK else 1
    workers = max(1, min(workers, len(blocks)))
    if workers == 1:
        samples, degenerate = _run_rounds(job, blocks)  # BLAS pinned inside
    else:
        per = math.ceil(len(blocks) / (workers * 2))
        tasks = [blocks[k : k + per] for k in range(0, len(blocks), per)]
        import concurrent.futures as cf  # a pool only for big jobs: most runs never import multiprocessing

        with cf.ProcessPoolExecutor(max_workers=workers, mp_context=_mp_context(), initializer=_worker_init,
                                    initargs=(os.getpid(),)) as pool, _terminate_on_signal(pool):
            parts = list(pool.map(_run_rounds, [job] * len(tasks), tasks))
        samples = np.concatenate([p[0] for p in parts])
        degenerate = sum(p[1] for p in parts)
    alpha = (1.0 - ci) / 2.0
    lower, median, upper = quantiles(samples, [alpha, 0.5, 1.0 - alpha])
    return BTBootstrap(counts.models, samples, median, lower, upper, rounds, seed, ci, degenerate)


def block_rounds(n_pairs: int) -> int:
    """Rounds refitted together for ``n_pairs`` pairs (fixed by the data, never by the workers)."""
    return max(1, min(_BLOCK_ROUNDS, _BLOCK_CELLS // max(n_pairs, 1)))


_PR_SET_PDEATHSIG = 1


def _worker_init(parent: int) -> None:
    """In each pool worker: die with the parent. Linux delivers SIGKILL to the worker when the
    process that started it dies, however it dies (SIGKILL included), so no worker outlives a
    killed build holding its stdout; elsewhere the parent's signal handler is the only guard."""
    import ctypes
    import ctypes.util

    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    except (OSError, AttributeError):  # not Linux
        pass
    signal.signal(signal.SIGTERM, signal.SIG_DFL)  # a fork inherits the parent's handler
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C reaches the parent, which ends the pool
    if os.getppid() != parent:  # the parent died before prctl took effect
        os._exit(1)


@contextlib.contextmanager
def _terminate_on_signal(pool: Any) -> Iterator[None]:
    """While the pool works, SIGTERM in the main thread kills its workers first, then ends this
    process as the signal would; any other exit from the block that is not a normal return
    (Ctrl-C, an error) kills the workers rather than waiting for their rounds."""
    def kill_workers() -> None:
        for proc in list(getattr(pool, "_processes", {}).values()):
            with contextlib.suppress(Exception):
                proc.kill()

    previous = None
    if threading.current_thread() is threading.main_thread():
        def on_term(signum: int, frame: Any) -> None:
            kill_workers()
            signal.signal(signum, signal.SIG_DFL)  # then die of the signal, as without this handler
            os.kill(os.getpid(), signum)

        previous = signal.signal(signal.SIGTERM, on_term)
    try:
        yield
    except BaseException:
        kill_workers()
        pool.shutdown(wait=False, cancel_futures=True)
        raise
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)


def _mp_context() -> mp.context.BaseContext | None:
    import multiprocessing as mp

    # fork shares the imported modules; elsewhere the default start method still works.
    return mp.get_context("fork") if "fork" in mp.get_all_start_methods() else None


def quantiles(samples: np.ndarray, qs: list[float]) -> list[np.ndarray]:
    """Column quantiles of (rounds, n) ``samples`` ignoring NaN; +-inf allowed."""
    x = np.clip(samples, -_INF_SENTINEL, _INF_SENTINEL)
    out = []
    for q in nan_quantiles(x, qs):
        q = np.where(q >= _INF_SENTINEL / 10, np.inf, q)
        q = np.where(q <= -_INF_SENTINEL / 10, -np.inf, q)
        out.append(q)
    return out


def nan_quantiles(x: np.ndarray, qs: list[float]) -> list[np.ndarray]:
    """``np.nanquantile(x, qs, axis=0)`` (method "linear"), value for value, for a 2-d ``x``.

    Each column's values other than NaN, sorted; quantile q sits at position (count - 1) q,
    between the two neighbouring values, interpolated as numpy does (from the nearer end
    once past half way); NaN for a column of NaN only. Written out because ``np.quantile``
    calls ``np.unique``, which imports ``numpy.ma`` (a tenth of a second) on every run.
    """
    ordered = np.sort(x, axis=0)  # NaN last
    count = np.count_nonzero(~np.isnan(x), axis=0)
    last = np.maximum(count - 1, 0)
    cols = np.arange(x.shape[1])
    out = []
    for q in qs:
        virtual = (count - 1) * q
        below = np.floor(virtual)
        above = below + 1
        at_end = virtual >= count - 1  # the largest value (numpy: index -1)
        below = np.where(at_end, last, np.maximum(below, 0)).astype(np.intp)
        above = np.where(at_end, last, np.maximum(above, 0)).astype(np.intp)
        gamma = virtual - below
        a, b = ordered[below, cols], ordered[above, cols]
        diff = b - a
        value = np.where(gamma >= 0.5, b - diff * (1 - gamma), a + diff * gamma)
        value[count == 0] = np.nan
        out.append(value)
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
    weights: np.ndarray | None = None  # per pair: the weighted likelihood's weights (None: 1)


def _one_blas_thread() -> contextlib.AbstractContextManager[Any]:
    """One BLAS thread in each worker: several thread pools spin against each other."""
    limits: contextlib.AbstractContextManager[Any] = one_blas_thread()
    return limits


def _run_rounds(job: _Job, blocks: list[list[np.random.SeedSequence]]) -> tuple[np.ndarray, int]:
    with _one_blas_thread():
        return _run_rounds_inner(job, blocks)


@dataclass(frozen=True, eq=False, slots=True)
class _Group:
    """One strongly connected group of the point fit, prepared for fast refits."""

    members: np.ndarray  # model codes, shape (m,)
    pairs: np.ndarray  # indices of the pairs inside the group
    li: np.ndarray  # local codes of those pairs' two sides
    lj: np.ndarray
    start: np.ndarray  # point estimate, log-base-odds units, gauge start[-1] = 0
    inverse: np.ndarray | None  # inverse of the point fit's Hessian (last coordinate fixed)
    side_i: _Segments  # the pairs grouped by li, and by lj, for the gradient's sums
    side_j: _Segments
    start_den: np.ndarray  # 1 + base ** -(start_i - start_j) per pair: the first iteration's denominators
    fwd: np.ndarray  # per pair of the group: i beat or tied j at least once (the point fit's edges)
    bwd: np.ndarray
    adjacency: np.ndarray | None  # those edges as a boolean matrix (None past DENSE_NODES models)


@dataclass(frozen=True, eq=False, slots=True)
class _Segments:
    """Pairs grouped by one side's model: ``order`` sorts them (None: already sorted), the
    models that appear are ``models`` and their runs of pairs start at ``starts``."""

    order: np.ndarray | None
    models: np.ndarray
    starts: np.ndarray

    @classmethod
    def of(cls, side: np.ndarray) -> _Segments:
        order = np.argsort(side, kind="stable")
        if np.array_equal(order, np.arange(side.size)):
            models, starts = np.unique(side, return_index=True)
            return cls(None, models, starts)
        models, starts = np.unique(side[order], return_index=True)
        return cls(order, models, starts)

    def add_to(self, grad: np.ndarray, values: np.ndarray, sign: float) -> None:
        """``grad[r, model] += sign * (sum of values[r, pair] over that model's pairs)``, every row r."""
        sorted_values = values if self.order is None else np.take(values, self.order, axis=1)
        sums = np.add.reduceat(sorted_values, self.starts, axis=1)
        if sign > 0:
            grad[:, self.models] += sums
        else:
            grad[:, self.models] -= sums


def _prepare_group(job: _Job, members: np.ndarray, c: float) -> _Group:
    m = members.size
    local = np.full(job.n, -1, dtype=np.int64)
    local[members] = np.arange(m)
    li, lj = local[job.i], local[job.j]
    pairs = np.flatnonzero((li >= 0) & (lj >= 0))
    li, lj = li[pairs], lj[pairs]
    start = job.point[members] / job.scale
    start = start - start[-1]
    inverse = None
    if m > 1:
        tot = job.cells[0::3] + job.cells[1::3] + job.cells[2::3]
        tot = (tot if job.weights is None else tot * job.weights)[pairs]
        x = c * (start[li] - start[lj])
        p = 0.5 * (1.0 + np.tanh(0.5 * x))
        w = c * c * tot * p * (1.0 - p)
        h = np.zeros((m, m))
        np.add.at(h, (li, lj), -w)
        np.add.at(h, (lj, li), -w)
        h[np.diag_indices(m)] = np.bincount(li, w, m) + np.bincount(lj, w, m)
        try:
            np.linalg.cholesky(h[:-1, :-1])  # positive definite, as a strongly connected group's is
            inv = np.linalg.inv(h[:-1, :-1])
            inverse = 0.5 * (inv + inv.T)
        except np.linalg.LinAlgError:  # pragma: no cover - a strongly connected group is PD
            inverse = None
    den = start[li] - start[lj]  # the chord loop's own operations, so the first step is the same
    den *= -c
    with np.errstate(over="ignore"):
        np.exp(den, out=den)
    den += 1.0
    fwd = ((job.cells[0::3] + job.cells[2::3]) > 0)[pairs]
    bwd = ((job.cells[1::3] + job.cells[2::3]) > 0)[pairs]
    adjacency = None
    if 1 < m <= DENSE_NODES:
        adjacency = np.zeros((m, m), dtype=bool)
        adjacency[li[fwd], lj[fwd]] = True
        adjacency[lj[bwd], li[bwd]] = True
    return _Group(members, pairs, li, lj, start, inverse, _Segments.of(li), _Segments.of(lj), den, fwd, bwd,
                  adjacency)


def _run_rounds_inner(job: _Job, blocks: list[list[np.random.SeedSequence]]) -> tuple[np.ndarray, int]:
    total = round(float(job.cells.sum()))
    nonzero = np.flatnonzero(job.cells)  # empty cells stay empty: draw only the others
    pvals = job.cells[nonzero] / job.cells.sum()
    c = math.log(job.base)
    rated = np.isfinite(job.point)
    start = np.where(rated, job.point, 0.0) / job.scale
    # The point fit's groups: models of one component that have a finite rating.
    groups = [np.flatnonzero(rated & (job.component == k)) for k in _components(job.component[rated])]
    prepared = [_prepare_group(job, g, c) for g in groups]
    base_fwd = (job.cells[0::3] + job.cells[2::3]) > 0
    base_bwd = (job.cells[1::3] + job.cells[2::3]) > 0
    # Only battles among rated models are resampled into the refits.
    inside = rated[job.i] & rated[job.j]
    out = []
    degenerate = 0
    for seeds in blocks:
        draw = np.zeros((len(seeds), job.cells.size))
        for k, ss in enumerate(seeds):
            draw[k, nonzero] = np.random.default_rng(ss).multinomial(total, pvals)
        wi, wj, t = draw[:, 0::3], draw[:, 1::3], draw[:, 2::3]
        if job.weights is not None:  # reweighted fit: each pair's resampled counts times its weight
            wi, wj, t = wi * job.weights, wj * job.weights, t * job.weights
        ratings = np.full((len(seeds), job.n), np.nan)
        same = np.all(((wi + t) > 0) == base_fwd, axis=1) & np.all(((wj + t) > 0) == base_bwd, axis=1)
        for row in np.flatnonzero(~same):
            # Lost edges matter only if a point-fit group is no longer strongly connected.
            same[row] = _groups_still_strong(prepared, wi[row], wj[row], t[row])
        kept = np.flatnonzero(same)
        if kept.size:
            for g in prepared:
                ratings[np.ix_(kept, g.members)] = _refit_block(job, g, wi[kept], wj[kept], t[kept], c)
        for row in np.flatnonzero(~same):
            degenerate += _fit_changed(job, wi[row] * inside, wj[row] * inside, t[row] * inside, start, c,
                                       ratings[row])
        out.append(ratings)
    return np.concatenate(out), degenerate


def _refit_block(job: _Job, g: _Group, wi: np.ndarray, wj: np.ndarray, t: np.ndarray, c: float) -> np.ndarray:
    """Refit a group whose graph is unchanged in k rounds at once (``wi``, ``wj``, ``t`` shape
    (k, n_pairs)); returns the group's ratings, shape (k, m).

    Chord iterations with the point fit's inverse Hessian: a resample moves the Hessian by a
    few percent, so reusing it converges linearly at that rate, each step costing one
    gradient instead of a new Hessian and solve. Each round stops on its own (step below
    ``_CHORD_TOL``), or hands over to Newton if its steps stop shrinking.
    """
    k, m = wi.shape[0], g.members.size
    if m == 1:
        return np.broadcast_to(job.point[g.members], (k, 1))
    score = np.take(wi + 0.5 * t, g.pairs, axis=1)
    tot = np.take(wi + wj + t, g.pairs, axis=1)
    beta = np.tile(g.start, (k, 1))
    converged = np.zeros(k, dtype=bool)
    if g.inverse is not None:
        last = np.full(k, np.inf)
        active = np.arange(k)
        for it in range(_CHORD_MAX):
            if active.size == 0:
                break
            if it == 0:  # every round starts at the point fit
                x = np.divide(tot[active], g.start_den)  # n p
            else:
                b = beta[active]
                x = np.take(b, g.li, axis=1)
                x -= np.take(b, g.lj, axis=1)
                x *= -c
                # p = sigmoid(c (b_i - b_j)); exp overflows to inf (p = 0) far in the tail
                with np.errstate(over="ignore"):
                    np.exp(x, out=x)
                x += 1.0
                np.divide(tot[active], x, out=x)  # n p
            resid = np.subtract(score[active], x, out=x)  # s - n p
            grad = np.zeros((active.size, m))
            g.side_i.add_to(grad, resid, 1.0)
            g.side_j.add_to(grad, resid, -1.0)
            grad *= c
            step = grad[:, :-1] @ g.inverse
            size = np.max(np.abs(step), axis=1)
            # A round whose step is not contracting hands over to Newton without taking it.
            go = (size < last[active] * 0.9) | ~(size > _CHORD_TOL)
            moved = active[go]
            beta[moved, :-1] += step[go]
            last[moved] = size[go]
            done = go & (size < _CHORD_TOL)
            converged[active[done]] = True
            active = active[go & ~done]
    for r in np.flatnonzero(~converged):
        sel = tot[r] > 0
        beta[r], _ = newton_bt(m, g.li[sel], g.lj[sel], score[r][sel], tot[r][sel], c, beta[r], tol=_ROUND_TOL)
    rating = job.scale * beta
    out: np.ndarray = rating - rating.mean(axis=1, keepdims=True) + job.point[g.members].mean()
    return out


def _groups_still_strong(prepared: list[_Group], wi: np.ndarray, wj: np.ndarray, t: np.ndarray) -> bool:
    """Whether every point-fit group is still strongly connected by the battles inside it.

    A resample only loses edges, so groups never merge; and a path between two models of a
    group never leaves it (its component's other models have no finite rating, and their
    battles are not resampled into the refits), so the edges inside the group decide: the
    point fit's edges without the ones this round lost.
    """
    for g in prepared:
        if g.members.size == 1:
            continue
        lost_f = g.fwd & ~((wi + t)[g.pairs] > 0)
        lost_b = g.bwd & ~((wj + t)[g.pairs] > 0)
        if not (lost_f.any() or lost_b.any()):
            continue
        if g.adjacency is None:
            f, b = g.fwd & ~lost_f, g.bwd & ~lost_b
            ok = strongly_connected(g.members.size, np.concatenate([g.li[f], g.lj[b]]),
                                    np.concatenate([g.lj[f], g.li[b]]))
        else:
            adj = g.adjacency.copy()
            adj[g.li[lost_f], g.lj[lost_f]] = False
            adj[g.lj[lost_b], g.li[lost_b]] = False
            ok = dense_strongly_connected(adj)
        if not ok:
            return False
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


def _components(codes: np.ndarray) -> np.ndarray:
    """The distinct component indices (>= 0) among ``codes``, ascending: ``np.unique``
    without its test for masked arrays, which imports ``numpy.ma`` (a tenth of a second)."""
    found: np.ndarray = np.flatnonzero(np.bincount(codes, minlength=1))
    return found


def point_ranks(ratings: np.ndarray, component: np.ndarray) -> np.ndarray:
    """1 + #models of the same component with a strictly higher rating; 0 where unrated."""
    ranks = np.zeros(ratings.size, dtype=np.int64)
    for k in _components(component[np.isfinite(ratings)]):
        idx = np.flatnonzero((component == k) & np.isfinite(ratings))
        r = ratings[idx]
        ranks[idx] = 1 + (r[None, :] > r[:, None]).sum(axis=1)
    return ranks


def ranks_with_uncertainty(lower: np.ndarray, upper: np.ndarray, component: np.ndarray,
                           rated: np.ndarray) -> np.ndarray:
    """rank_ub = 1 + #models of the same component whose lower bound exceeds this upper bound."""
    ranks = np.zeros(lower.size, dtype=np.int64)
    for k in _components(component[rated]):
        idx = np.flatnonzero((component == k) & rated)
        ranks[idx] = 1 + (lower[idx][None, :] > upper[idx][:, None]).sum(axis=1)
    return ranks


__all__ = ["BTBootstrap", "bootstrap_bt", "nan_quantiles", "point_ranks", "quantiles", "ranks_with_uncertainty"]
