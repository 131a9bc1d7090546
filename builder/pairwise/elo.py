"""Online Elo over battles in time order (the Arena's original leaderboard method).

For each battle (A, B) in chronological order, with ratings r (Arena scale):

    E_A = 1 / (1 + base ** ((r_B - r_A) / scale))     expected score of A
    r_A += k * (S_A - E_A),   r_B -= k * (S_A - E_A)  (zero-sum: S_B = 1 - S_A, E_B = 1 - E_A)

where S_A is 1 for a win of A, 0 for a loss and 0.5 for either kind of tie. Defaults:
k = 4, scale = 400, base = 10, every model starts at 1000. Unlike Bradley-Terry the result
depends on the order of the battles, which is why the Arena moved to the MLE.

Both loops below compute it in one floating-point form, so they agree bit for bit:

    d = k / (1 + 2 ** (c * (r_B - r_A)))   with c = log2(base) / scale   (d = k E_A)
    s = k * S_A
    r_A = (r_A + s) - d,   r_B = (r_B - s) + d

Each battle waits on the previous update of either of its models, so the compiled loop
is bound by the latency of that chain (subtract, multiply, exp2, add, divide, subtract):
exp2 rather than pow or exp (the shortest of the three in glibc), and nothing after the
division but one subtraction. The counters (matches, wins, ties) need no ratings, so
large inputs count them on a second thread while the chain runs; and when the battles
are to be put in time order, the chain starts on the file order while that thread checks
it (dumps usually are in order), and runs again sorted only when they were not.

``online_elo_python`` is the same loop in plain Python over model names: the reference
the compiled one must reproduce exactly, and the benchmark's baseline.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass
from typing import Any, TypeVar

import numpy as np
from numba import njit

from builder.pairwise.battles import OUTCOMES, TIE, TIE_BOTHBAD, WIN_A, WIN_B, Battles

T = TypeVar("T")
Three = tuple[np.ndarray, np.ndarray, np.ndarray]

K = 4.0
INIT = 1000.0

# Below this many battles a second thread costs more than it saves.
_THREAD_MIN = 200_000


@dataclass(frozen=True, eq=False, slots=True)
class EloResult:
    """Final online-Elo state, arrays shape (n_models,); ``snapshots`` (n_marks, n_models)."""

    models: tuple[str, ...]
    ratings: np.ndarray
    matches: np.ndarray  # battles played
    wins: np.ndarray  # battles won (ties excluded)
    ties: np.ndarray  # ties of either kind
    snapshots: np.ndarray  # ratings after the first marks[k] battles (in processing order)


@njit(cache=True, nogil=True, error_model="numpy")
def _elo_updates(a: np.ndarray, b: np.ndarray, outcome: np.ndarray, ratings: np.ndarray, gain: np.ndarray,
                 k: float, c: float, start: int, stop: int) -> None:  # pragma: no cover - compiled
    """Apply battles ``start`` to ``stop - 1`` to ``ratings`` in place.

    ``a``, ``b``: uint32 model codes; ``outcome``: uint8 codes; ``gain[o]`` = k * S_A.
    Unsigned codes spare every lookup numba's fix-up for negative indices; the numpy error
    model spares the division its zero check (1 + 2 ** x > 0).
    """
    for t in range(start, stop):
        i = a[t]
        j = b[t]
        ra = ratings[i]
        rb = ratings[j]
        d = k / (1.0 + np.exp2(c * (rb - ra)))  # libm exp2, as math.exp2 calls
        s = gain[outcome[t]]
        ratings[i] = (ra + s) - d
        ratings[j] = (rb - s) + d


@njit(cache=True, nogil=True)
def _elo_tally(a: np.ndarray, b: np.ndarray, outcome: np.ndarray, n_models: int) -> np.ndarray:  # pragma: no cover
    """Battles per model, side and outcome: ``tally[m, o]`` as side A, ``tally[m, 4 + o]``
    as side B; shape (n_models, 8). Two increments a battle, not six counters."""
    tally = np.zeros((n_models, 2 * len(OUTCOMES)), dtype=np.int64)
    for t in range(a.shape[0]):
        o = outcome[t]
        tally[a[t], o] += 1
        tally[b[t], 4 + o] += 1
    return tally


def _elo_counts(a: np.ndarray, b: np.ndarray, outcome: np.ndarray, n_models: int) -> Three:
    """Battles played, won (ties excluded) and tied per model, shape (n_models,) each."""
    tally = _elo_tally(a, b, outcome, n_models)
    matches = tally.sum(axis=1)
    wins = tally[:, WIN_A] + tally[:, 4 + WIN_B]
    ties = tally[:, [TIE, TIE_BOTHBAD, 4 + TIE, 4 + TIE_BOTHBAD]].sum(axis=1)
    return matches, wins, ties


def _codes(n_models: int, a: np.ndarray, b: np.ndarray, outcome: np.ndarray) -> Three:
    """Contiguous unsigned views of the codes, checked: the compiled loops index unchecked."""
    a = np.ascontiguousarray(a, dtype=np.int32).view(np.uint32)
    b = np.ascontiguousarray(b, dtype=np.int32).view(np.uint32)
    o = np.ascontiguousarray(outcome, dtype=np.int8).view(np.uint8)
    if not a.shape == b.shape == o.shape or a.ndim != 1:
        raise ValueError(f"battle code arrays differ in shape: {a.shape}, {b.shape}, {o.shape}")
    if a.size and (int(a.max()) >= n_models or int(b.max()) >= n_models or int(o.max()) >= len(OUTCOMES)):
        raise ValueError(f"battle codes out of range for {n_models} models and {len(OUTCOMES)} outcomes")
    return a, b, o


def _marks(marks: np.ndarray | None, n: int) -> np.ndarray:
    mk = np.zeros(0, dtype=np.int64) if marks is None else np.asarray(marks, dtype=np.int64).ravel()
    if mk.size and (mk[0] < 0 or mk[-1] > n or np.any(np.diff(mk) < 0)):
        raise ValueError(f"marks must be non-decreasing battle counts between 0 and {n}")
    return mk


def _ratings(a: np.ndarray, b: np.ndarray, o: np.ndarray, n_models: int, marks: np.ndarray, k: float, init: float,
             c: float) -> tuple[np.ndarray, np.ndarray]:
    """Ratings after every battle, and after the first ``marks[m]`` of them."""
    ratings = np.full(n_models, init)
    gain = np.array([k * 1.0, k * 0.0, k * 0.5, k * 0.5])  # k * S_A per outcome code
    snaps = np.empty((marks.size, n_models))
    done = 0
    for m, end in enumerate(marks.tolist()):
        _elo_updates(a, b, o, ratings, gain, k, c, done, end)
        snaps[m] = ratings
        done = end
    _elo_updates(a, b, o, ratings, gain, k, c, done, a.shape[0])
    return ratings, snaps


SideWork = tuple[bool, Three | None]


def _side_work(battles: Battles | None, a: np.ndarray, b: np.ndarray, o: np.ndarray, n_models: int,
               counts: bool) -> SideWork:
    """What needs no ratings: whether ``battles`` are in time order (True when not asked),
    and the counters (None when not asked)."""
    in_order = battles.in_time_order() if battles is not None else True
    return in_order, (_elo_counts(a, b, o, n_models) if counts else None)


def _on_thread(fn: Callable[..., T], *args: Any) -> Future[T]:
    """``fn(*args)`` on a thread of its own (the compiled loops release the GIL)."""
    future: Future[T] = Future()

    def run() -> None:
        try:
            future.set_result(fn(*args))
        except BaseException as exc:  # noqa: BLE001 - handed on whole to whoever waits for the result
            future.set_exception(exc)

    threading.Thread(target=run, name="elo-side", daemon=True).start()
    return future


def _now(fn: Callable[..., T], *args: Any) -> Future[T]:
    """``fn(*args)`` on this thread, as a finished Future."""
    future: Future[T] = Future()
    future.set_result(fn(*args))
    return future


def _run(
    models: tuple[str, ...],
    a: np.ndarray,
    b: np.ndarray,
    outcome: np.ndarray,
    *,
    k: float,
    init: float,
    scale: float,
    base: float,
    marks: np.ndarray | None,
    counts: bool,
    battles: Battles | None = None,
) -> EloResult:
    """The chain on this thread; for large inputs the side work (counting, and the time
    order of ``battles`` when given) on a second one."""
    n_models = len(models)
    a, b, o = _codes(n_models, a, b, outcome)
    mk = _marks(marks, a.size)
    k, init, c = float(k), float(init), math.log2(base) / scale
    threaded = a.size >= _THREAD_MIN and (counts or battles is not None)
    side = (_on_thread if threaded else _now)(_side_work, battles, a, b, o, n_models, counts)
    # Dumps are usually in time order: start on the file order unless the check has
    # already said otherwise (small inputs check first, on this thread).
    if not side.done() or side.result()[0]:
        ratings, snaps = _ratings(a, b, o, n_models, mk, k, init, c)
    in_order, counted = side.result()
    if not in_order and battles is not None:
        order = battles.chronological()
        ratings, snaps = _ratings(a[order], b[order], o[order], n_models, mk, k, init, c)
    empty = np.zeros(0, dtype=np.int64)
    matches, wins, ties = counted if counted is not None else (empty, empty, empty)  # the same in any order
    return EloResult(models, ratings, matches, wins, ties, snaps)


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
    """Online Elo over ``battles`` (in timestamp order when ``chronological``).

    ``marks``: non-decreasing battle counts (in processing order) after which to record
    the ratings, e.g. the ends of history slices.
    """
    check = battles if chronological and battles.tstamp is not None else None
    return _run(battles.models, battles.model_a, battles.model_b, battles.outcome, k=k, init=init,
                scale=scale, base=base, marks=marks, counts=True, battles=check)


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
    counts: bool = True,
) -> EloResult:
    """Online Elo over code arrays already in processing order, shape (n_battles,).

    ``counts=False`` skips the counters (``matches``, ``wins``, ``ties`` come back empty).
    """
    return _run(models, a, b, outcome, k=k, init=init, scale=scale, base=base, marks=marks, counts=counts)


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
    c = math.log2(base) / scale
    for ma, mb, w in zip(model_a, model_b, winner, strict=True):
        for m in (ma, mb):
            if m not in ratings:
                ratings[m] = init
                matches[m] = wins[m] = ties[m] = 0
        ra, rb = ratings[ma], ratings[mb]
        d = k / (1.0 + math.exp2(c * (rb - ra)))  # k * E_A
        if w == "model_a":
            s = k * 1.0
            wins[ma] += 1
        elif w == "model_b":
            s = k * 0.0
            wins[mb] += 1
        else:
            s = k * 0.5
            ties[ma] += 1
            ties[mb] += 1
        ratings[ma] = (ra + s) - d
        ratings[mb] = (rb - s) + d
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
        out[r] = run_elo_codes(battles.models, a[rows], b[rows], o[rows], k=k, init=init, scale=scale, base=base,
                               counts=False).ratings
    return out


# The outcome codes the compiled loop assumes.
assert (WIN_A, WIN_B, TIE, TIE_BOTHBAD) == (0, 1, 2, 3) and OUTCOMES[0] == "model_a"

__all__ = ["INIT", "EloResult", "K", "bootstrap_elo", "fit_online_elo", "online_elo_python", "run_elo_codes"]
