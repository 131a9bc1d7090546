"""Rating history: Bradley-Terry (and online Elo) on cumulative time slices.

Slice k holds every battle up to the end of period k (UTC day, ISO week ending Sunday, or
calendar month), from the first period with a battle to the last; its ``date`` is the last
day of the period, or the last battle's day for the final, unfinished period.

Counts come from one grouped query over time buckets (``PeriodCounts``: battles per period,
pair and outcome cell, ``BattleScan.period_counts`` in SQL, or ``period_counts_of`` over
in-memory battles); a running sum over the periods gives every slice's cumulative pair
counts in O(periods x cells), instead of refiltering the battles for every slice as the
seed does.
Slices are then fitted independently (in parallel processes when there are many), each with
``fit_bt(..., on_unidentifiable="drop")``: early slices often hold a model that has won or
lost every battle so far, which has no finite rating yet, so it is left out of that slice
(it appears once a result links it to the rest). Optional per-slice bootstrap intervals use
their own seeds (children of ``SeedSequence(seed)``, one per slice).

Online Elo is one chronological pass over all battles that records the ratings at each
slice end; models that have not played yet are NaN.
"""

from __future__ import annotations

import concurrent.futures as cf
import datetime as dt
import os
from dataclasses import dataclass
from typing import Literal

import numpy as np

from builder.errors import UserError
from builder.pairwise.battles import Battles
from builder.pairwise.bootstrap import (
    _mp_context,
    _one_blas_thread,
    bootstrap_bt,
    point_ranks,
)
from builder.pairwise.bt import PairCounts, fit_bt, pair_cells

Period = Literal["day", "week", "month"]
_EPOCH = dt.date(1970, 1, 1)


@dataclass(frozen=True, eq=False, slots=True)
class PeriodCounts:
    """Dated battles counted per time bucket, pair and outcome cell, shape (n_groups,) each.

    ``period``: int64 bucket (``period_index``); ``key``: int64 pair key ``lo * n_models +
    hi`` (codes into ``models``, lo < hi); ``cell``: 0 lo won, 1 hi won, 2 a tie of either
    kind; ``count``: int64 battles. ``last_tstamp``: the latest dated battle (Unix seconds);
    ``undated``: battles without a time (left out of the history).
    """

    models: tuple[str, ...]
    period_kind: Period
    period: np.ndarray
    key: np.ndarray
    cell: np.ndarray
    count: np.ndarray
    last_tstamp: float
    undated: int


def period_counts_of(battles: Battles, period: Period) -> PeriodCounts:
    """``PeriodCounts`` of in-memory battles (what the reader's grouped query returns)."""
    if battles.tstamp is None:
        raise UserError(f"{battles.report.source}: history needs timestamps (no 'tstamp' column)")
    dated = np.flatnonzero(np.isfinite(battles.tstamp))
    if dated.size == 0:
        raise UserError(f"{battles.report.source}: history needs timestamps (every tstamp is empty)")
    n = len(battles.models)
    keys, cell = pair_cells(battles.model_a[dated], battles.model_b[dated], battles.outcome[dated], n)
    per = period_index(battles.tstamp[dated], period)
    uniq, count = np.unique(np.stack([per, keys, cell]), axis=1, return_counts=True)
    return PeriodCounts(battles.models, period, uniq[0].copy(), uniq[1].copy(), uniq[2].copy(),
                        count.astype(np.int64), float(battles.tstamp[dated].max()), len(battles) - dated.size)


@dataclass(frozen=True, eq=False, slots=True)
class HistorySlice:
    """Ratings after one period; arrays shape (n_models,), NaN where a model has no rating yet."""

    date: dt.date
    n_battles: int  # cumulative battles in the slice
    ratings: np.ndarray
    lower: np.ndarray | None
    upper: np.ndarray | None
    ranks: np.ndarray  # 1-based within the component, 0 where unrated
    component: np.ndarray
    elo: np.ndarray
    matches: np.ndarray  # cumulative battles of each model up to the slice's date, int64
    wins: np.ndarray  # cumulative decisive wins (ties excluded), int64
    ties: np.ndarray  # cumulative ties of either kind, int64


@dataclass(frozen=True, eq=False, slots=True)
class History:
    models: tuple[str, ...]
    period: Period
    slices: tuple[HistorySlice, ...]
    undated: int  # battles left out for want of a timestamp


def period_index(tstamp: np.ndarray, period: Period) -> np.ndarray:
    """Integer period of each Unix time (UTC), shape like ``tstamp``."""
    days = np.floor(tstamp / 86_400.0).astype(np.int64)
    if period == "day":
        return days
    if period == "week":
        return (days + 3) // 7  # 1970-01-01 was a Thursday; weeks start on Monday
    if period == "month":
        return days.astype("datetime64[D]").astype("datetime64[M]").astype(np.int64)
    raise UserError(f"unknown history period {period!r} (use day, week or month)")


def period_last_day(p: int, period: Period) -> dt.date:
    """The last calendar day of period ``p``."""
    if period == "day":
        return _EPOCH + dt.timedelta(days=p)
    if period == "week":
        return _EPOCH + dt.timedelta(days=7 * p - 3 + 6)
    first_next: dt.date = np.datetime64(p + 1, "M").astype("datetime64[D]").astype(object)
    return first_next - dt.timedelta(days=1)


def compute_history(
    battles: Battles,
    period: Period = "week",
    *,
    bootstrap: int = 0,
    seed: int = 0,
    workers: int | None = None,
    scale: float = 400.0,
    base: float = 10.0,
    init: float = 1000.0,
    elo_k: float = 4.0,
    counts: PeriodCounts | None = None,
) -> History:
    """Cumulative Bradley-Terry (and online Elo) ratings at the end of every period.

    ``counts``: the battles' ``PeriodCounts`` for ``period`` from the reader's grouped query
    (computed from ``battles`` when not given); ``battles`` feeds the online Elo, which
    needs the battle sequence.
    """
    if counts is None:
        counts = period_counts_of(battles, period)
    if counts.period_kind != period or counts.models != battles.models:
        raise ValueError("period counts of another period or model table")
    n = len(battles.models)
    uniq = np.unique(counts.key)
    n_cells = uniq.size * 3
    cells = np.searchsorted(uniq, counts.key) * 3 + counts.cell
    pi, pj = uniq // n, uniq % n
    first, last = int(counts.period.min()), int(counts.period.max())
    per_period = np.bincount(counts.period - first, weights=counts.count, minlength=last - first + 1)
    ends = np.cumsum(per_period).astype(np.int64)  # battles up to each period
    last_day = dt.datetime.fromtimestamp(counts.last_tstamp, tz=dt.UTC).date()

    # Online Elo walks the dated battles in time order (file order breaks ties).
    from builder.pairwise.elo import run_elo_codes

    assert battles.tstamp is not None  # period counts exist only for dated battles
    dated = np.flatnonzero(np.isfinite(battles.tstamp))
    order = dated[np.argsort(battles.tstamp[dated], kind="stable")]
    a, b, o = battles.model_a[order], battles.model_b[order], battles.outcome[order]
    elo = run_elo_codes(battles.models, a, b, o, k=elo_k, init=init, scale=scale, base=base, marks=ends)
    seeds = np.random.SeedSequence(seed).spawn(len(ends))

    # Snapshots of cumulative counts; periods without new battles reuse the previous fit.
    tasks: list[tuple[int, np.ndarray]] = []
    running = np.zeros(n_cells)
    by_period = np.argsort(counts.period, kind="stable")
    bounds = np.searchsorted(counts.period[by_period], np.arange(first, last + 2))
    for k in range(last - first + 1):
        rows = by_period[bounds[k] : bounds[k + 1]]
        if rows.size:
            running = running + np.bincount(cells[rows], weights=counts.count[rows], minlength=n_cells)
            tasks.append((k, running))
    undated = counts.undated

    job = _SliceJob(battles.models, pi, pj, scale, base, init, bootstrap)
    if workers is None:
        work = len(tasks) * (n_cells + n * n) * (1 + bootstrap)
        workers = (os.cpu_count() or 1) if work > 2_000_000 and len(tasks) > 2 else 1
    results: dict[int, SliceFit] = {}
    if workers <= 1:
        for k, snap in tasks:
            results[k] = _fit_slice(job, snap, seeds[k])
    else:
        with cf.ProcessPoolExecutor(max_workers=workers, mp_context=_mp_context()) as pool:
            futures = {pool.submit(_fit_slice, job, snap, seeds[k]): k for k, snap in tasks}
            for fut in cf.as_completed(futures):
                results[futures[fut]] = fut.result()

    slices: list[HistorySlice] = []
    current: SliceFit | None = None
    for k, end in enumerate(ends):
        current = results.get(k, current)
        if current is None:
            raise AssertionError(f"history slice {k} has no fit (the first slice always has one)")
        ratings, lower, upper, ranks, component, played, wins, ties = current
        day = min(period_last_day(first + k, period), last_day)
        elo_k_ratings = np.where(played > 0, elo.snapshots[k], np.nan)
        slices.append(HistorySlice(day, int(end), ratings, lower, upper, ranks, component, elo_k_ratings,
                                   played, wins, ties))
    return History(battles.models, period, tuple(slices), undated)


@dataclass(frozen=True, eq=False, slots=True)
class _SliceJob:
    models: tuple[str, ...]
    i: np.ndarray
    j: np.ndarray
    scale: float
    base: float
    init: float
    bootstrap: int


SliceFit = tuple[np.ndarray, np.ndarray | None, np.ndarray | None, np.ndarray, np.ndarray, np.ndarray, np.ndarray,
                 np.ndarray]
"(ratings, lower, upper, ranks, component, matches, wins, ties) of one history slice; counts int64."


def _fit_slice(job: _SliceJob, flat: np.ndarray, seed: np.random.SeedSequence) -> SliceFit:
    with _one_blas_thread():
        return _fit_slice_inner(job, flat, seed)


def _fit_slice_inner(job: _SliceJob, flat: np.ndarray, seed: np.random.SeedSequence) -> SliceFit:
    c = flat.reshape(-1, 3)
    counts = PairCounts(job.models, job.i, job.j, c[:, 0].copy(), c[:, 1].copy(), c[:, 2].copy())
    fit = fit_bt(counts, scale=job.scale, base=job.base, init=job.init, on_unidentifiable="drop")
    matches, wins, ties = (np.rint(x).astype(np.int64) for x in counts.per_model())
    lower = upper = None
    if job.bootstrap > 0:
        boot_seed = int(seed.generate_state(1)[0])
        bs = bootstrap_bt(counts, fit, job.bootstrap, boot_seed, workers=1)
        lower, upper = bs.lower, bs.upper
    ranks = point_ranks(fit.ratings, fit.component)
    return fit.ratings, lower, upper, ranks, fit.component, matches, wins, ties


__all__ = [
    "History",
    "HistorySlice",
    "Period",
    "PeriodCounts",
    "compute_history",
    "period_counts_of",
    "period_index",
    "period_last_day",
]
