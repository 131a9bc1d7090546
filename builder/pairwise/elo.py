"""Online Elo over battles in time order (the Arena's original leaderboard method).

For each battle (A, B) in chronological order, with ratings r (Arena scale):

    e_A = 1 / (1 + base ** ((r_B - r_A) / scale)),   e_B = 1 - e_A
        (computed as 1 / (1 + exp(c (r_B - r_A))) with c = ln(base) / scale: exp is
        about twice as fast as pow in a loop whose every step waits on the previous one)
    r_A += k * (S_A - e_A),   r_B += k * (S_B - e_B)

where S is 1 for a win, 0 for a loss and 0.5 for either kind of tie. Defaults: k = 4,
scale = 400, base = 10, every model starts at 1000. Unlike Bradley-Terry the result
depends on the order of the battles, which is why the Arena moved to the MLE.

The loop is compiled by numba over integer arrays (model codes, outcome codes);
``online_elo_python`` is the same loop in plain Python over strings, kept as the reference
the compiled one must reproduce exactly and as the benchmark's baseline.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numba import njit

from builder.pairwise.battles import OUTCOMES, TIE, TIE_BOTHBAD, WIN_A, WIN_B, Battles

K = 4.0
INIT = 1000.0


@dataclass(frozen=True, eq=False, slots=True)
class EloResult:
    """Final online-Elo state, arrays shape (n_models,); ``snapshots`` (n_marks, n_models)."""

    models: tuple[str, ...]
    ratings: np.ndarray
    matches: np.ndarray  # battles played
    wins: np.ndarray  # battles won (ties excluded)
    ties: np.ndarray  # ties of either kind
    snapshots: np.ndarray  # ratings after the first marks[k] battles (in processing order)


@njit(cache=True)
def _elo_loop(a, b, outcome, n_models, k, init, c, marks):  # pragma: no cover - compiled
    ratings = np.full(n_models, init)
    matches = np.zeros(n_models, dtype=np.int64)
    wins = np.zeros(n_models, dtype=np.int64)
    ties = np.zeros(n_models, dtype=np.int64)
    snaps = np.empty((marks.shape[0], n_models))
    # Score of side A per outcome code; branch-free because outcomes are unpredictable.
    score = np.array([1.0, 0.0, 0.5, 0.5])
    m = 0
    n = a.shape[0]
    for t in range(n + 1):
        while m < marks.shape[0] and marks[m] == t:
            snaps[m, :] = ratings
            m += 1
        if t == n:
            break
        i = a[t]
        j = b[t]
        o = outcome[t]
        ra = ratings[i]
        rb = ratings[j]
        ea = 1.0 / (1.0 + math.exp(c * (rb - ra)))
        eb = 1.0 - ea
        sa = score[o]
        sb = 1.0 - sa
        wins[i] += o == 0
        wins[j] += o == 1
        tie = o >= 2
        ties[i] += tie
        ties[j] += tie
        ratings[i] = ra + k * (sa - ea)
        ratings[j] = rb + k * (sb - eb)
        matches[i] += 1
        matches[j] += 1
    return ratings, matches, wins, ties, snaps


def fit_online_elo(
    battles: Battles,
    *,
    k: float = K,
    init: float = INIT,
    scale: float = 400.0,
    base: float = 10.0,
    chronological: bool = True,
    marks: np.ndarray | None = None,
) -> EloResult:
    """Online Elo over ``battles`` (sorted by timestamp first when ``chronological``).

    ``marks``: increasing battle counts (in processing order) after which to record the
    ratings, e.g. the ends of history slices.
    """
    a, b, o = battles.model_a, battles.model_b, battles.outcome
    if chronological and not battles.in_time_order():  # dumps usually are: no copies then
        order = battles.chronological()
        a, b, o = a[order], b[order], o[order]
    return run_elo_codes(
        battles.models,
        a,
        b,
        o,
        k=k,
        init=init,
        scale=scale,
        base=base,
        marks=marks,
    )


def run_elo_codes(
    models: tuple[str, ...],
    a: np.ndarray,
    b: np.ndarray,
    outcome: np.ndarray,
    *,
    k: float = K,
    init: float = INIT,
    scale: float = 400.0,
    base: float = 10.0,
    marks: np.ndarray | None = None,
) -> EloResult:
    """Online Elo over code arrays already in processing order, shape (n_battles,)."""
    mk = np.zeros(0, dtype=np.int64) if marks is None else np.asarray(marks, dtype=np.int64)
    # int32 codes and int8 outcomes as loaded: no int64 copies of millions of battles.
    r, m, w, t, snaps = _elo_loop(
        np.ascontiguousarray(a, dtype=np.int32),
        np.ascontiguousarray(b, dtype=np.int32),
        np.ascontiguousarray(outcome, dtype=np.int8),
        len(models),
        float(k),
        float(init),
        math.log(base) / scale,
        mk,
    )
    return EloResult(models, r, m, w, t, snaps)


def online_elo_python(
    model_a: list[str],
    model_b: list[str],
    winner: list[str],
    *,
    k: float = K,
    init: float = INIT,
    scale: float = 400.0,
    base: float = 10.0,
) -> dict[str, tuple[float, int, int, int]]:
    """The same update in plain Python: model -> (rating, matches, wins, ties)."""
    ratings: dict[str, float] = {}
    matches: dict[str, int] = {}
    wins: dict[str, int] = {}
    ties: dict[str, int] = {}
    c = math.log(base) / scale
    for ma, mb, w in zip(model_a, model_b, winner):
        for m in (ma, mb):
            if m not in ratings:
                ratings[m] = init
                matches[m] = wins[m] = ties[m] = 0
        ra, rb = ratings[ma], ratings[mb]
        ea = 1.0 / (1.0 + math.exp(c * (rb - ra)))
        eb = 1.0 - ea
        if w == "model_a":
            sa, sb = 1.0, 0.0
            wins[ma] += 1
        elif w == "model_b":
            sa, sb = 0.0, 1.0
            wins[mb] += 1
        else:
            sa = sb = 0.5
            ties[ma] += 1
            ties[mb] += 1
        ratings[ma] = ra + k * (sa - ea)
        ratings[mb] = rb + k * (sb - eb)
        matches[ma] += 1
        matches[mb] += 1
    return {m: (ratings[m], matches[m], wins[m], ties[m]) for m in ratings}


def bootstrap_elo(
    battles: Battles,
    rounds: int,
    seed: int,
    *,
    k: float = K,
    init: float = INIT,
    scale: float = 400.0,
    base: float = 10.0,
) -> np.ndarray:
    """Online Elo on ``rounds`` resamples of the battles (with replacement, kept in time
    order); shape (rounds, n_models). A model absent from a resample keeps ``init``."""
    order = battles.chronological()
    a, b, o = battles.model_a[order], battles.model_b[order], battles.outcome[order]
    n = a.size
    out = np.empty((rounds, len(battles.models)))
    for r, ss in enumerate(np.random.SeedSequence(seed).spawn(rounds)):
        rows = np.sort(np.random.default_rng(ss).integers(0, n, n))
        out[r] = run_elo_codes(battles.models, a[rows], b[rows], o[rows], k=k, init=init, scale=scale, base=base).ratings
    return out


# The outcome codes the compiled loop assumes.
assert (WIN_A, WIN_B, TIE, TIE_BOTHBAD) == (0, 1, 2, 3) and OUTCOMES[0] == "model_a"

__all__ = ["INIT", "EloResult", "K", "bootstrap_elo", "fit_online_elo", "online_elo_python", "run_elo_codes"]
