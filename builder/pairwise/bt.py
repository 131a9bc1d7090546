"""Bradley-Terry maximum likelihood on aggregated pair-outcome counts.

Model (Arena scale): for models i and j with ratings r_i, r_j,

    P(i beats j) = 1 / (1 + base ** ((r_j - r_i) / scale)),   scale = 400, base = 10.

Data are the counts per unordered pair {i, j}: w_ij (i won), w_ji (j won), t_ij (ties of
either kind). A tie counts half a win to each side, as in FastChat's win matrix, so the
log-likelihood is

    L(r) = sum_pairs  s_ij log p_ij + (n_ij - s_ij) log(1 - p_ij),
           s_ij = w_ij + t_ij / 2,   n_ij = w_ij + w_ji + t_ij.

This is, up to a constant factor, the objective of FastChat's ``compute_mle_elo``
(unpenalised logistic regression on the pivot-table rows); its maximiser is the same point.
We maximise it by Newton's method with a backtracking line search (the Hessian is the
graph Laplacian weighted by n_ij p_ij (1 - p_ij), a dense linear solve with one model fixed),
to a step below 1e-10 in log10-odds units (4e-8 rating points).

Identifiability. Ratings are defined up to a shift within each connected component of the
battle graph. Each component is centred on a mean rating of ``init`` (1000), which is what
the logistic regression returns from a zero start, because every gradient step is a sum of
differences e_i - e_j. A finite maximum exists only when, within a component, the directed
graph "i beat or tied j" is strongly connected; otherwise some group won (or lost) every
battle it played against the rest and its rating runs off to infinity. ``fit_bt`` then
names those models and why (``NoFiniteRating``), or, with ``on_unidentifiable="drop"``,
fits the largest strongly connected part and lists the models it left out.

``anchor=(model, rating)`` shifts the anchored model's component so that model has that
rating; other components keep their centring.
"""

from __future__ import annotations

import math
import sys
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
from threadpoolctl import ThreadpoolController

from builder.errors import UserError
from builder.pairwise.battles import WIN_A, WIN_B, Battles
from builder.pairwise.graph import strongly_connected

SCALE = 400.0
BASE = 10.0
INIT = 1000.0

_STEP_TOL = 1e-10  # Newton stops when the largest step is below this (log10-odds units)
_MAX_ITER = 200


@dataclass(frozen=True, eq=False, slots=True)
class PairCounts:
    """Battle outcomes aggregated per unordered pair, shape (n_pairs,) each.

    ``i < j`` are codes into ``models``; ``wins_i`` battles i won, ``wins_j`` battles j
    won, ``ties`` ties (``tie`` and ``tie (bothbad)``). Only pairs that met appear.
    """

    models: tuple[str, ...]
    i: np.ndarray  # int64
    j: np.ndarray  # int64
    wins_i: np.ndarray  # float64 (counts; float so bootstrap draws and slices share a type)
    wins_j: np.ndarray
    ties: np.ndarray

    @property
    def n_models(self) -> int:
        return len(self.models)

    @property
    def n_battles(self) -> int:
        return round(float(self.wins_i.sum() + self.wins_j.sum() + self.ties.sum()))

    def totals(self) -> np.ndarray:
        total: np.ndarray = self.wins_i + self.wins_j + self.ties
        return total

    def per_model(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(battles, wins, ties) per model, shape (n_models,) each; wins exclude ties."""
        n = self.n_models
        battles = np.bincount(self.i, self.totals(), n) + np.bincount(self.j, self.totals(), n)
        wins = np.bincount(self.i, self.wins_i, n) + np.bincount(self.j, self.wins_j, n)
        ties = np.bincount(self.i, self.ties, n) + np.bincount(self.j, self.ties, n)
        return battles, wins, ties



_COUNT_CHUNK = 1 << 18  # battles per bincount pass: bounds the int64 temporaries to ~10 MB
_DENSE_CELLS = 1 << 22  # up to this many (pair, outcome) cells (about 1,180 models) count densely


def count_pairs(battles: Battles, rows: np.ndarray | None = None) -> PairCounts:
    """Aggregate battles (optionally only ``rows``) into ``PairCounts`` over ``battles.models``."""
    a, b, o = battles.model_a, battles.model_b, battles.outcome
    if rows is not None:
        a, b, o = a[rows], b[rows], o[rows]
    n = len(battles.models)
    if n * n * 3 <= _DENSE_CELLS:
        flat = np.zeros(n * n * 3)
        for s in range(0, a.shape[0], _COUNT_CHUNK):
            keys, cell = pair_cells(a[s : s + _COUNT_CHUNK], b[s : s + _COUNT_CHUNK], o[s : s + _COUNT_CHUNK], n)
            flat += np.bincount(keys * 3 + cell, minlength=n * n * 3)
        cells = flat.reshape(n * n, 3)
        uniq = np.flatnonzero(cells.sum(axis=1))
        cells = cells[uniq]
    else:
        keys, cell = pair_cells(a, b, o, n)
        uniq, inv = np.unique(keys, return_inverse=True)
        cells = np.bincount(inv * 3 + cell, minlength=uniq.size * 3).astype(np.float64).reshape(uniq.size, 3)
    return PairCounts(battles.models, uniq // n, uniq % n, cells[:, 0].copy(), cells[:, 1].copy(), cells[:, 2].copy())


def pair_cells(a: np.ndarray, b: np.ndarray, o: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Per battle, shape (n_battles,) each: the pair key ``lo * n + hi`` (int64, lo < hi) and
    the outcome cell (0: lo won, 1: hi won, 2: a tie of either kind)."""
    lo = np.minimum(a, b).astype(np.int64)
    hi = np.maximum(a, b).astype(np.int64)
    keys = lo * n + hi
    swapped = a > b
    cell = np.full(a.shape[0], 2, dtype=np.int64)
    win_a = o == WIN_A
    win_b = o == WIN_B
    cell[win_a] = np.where(swapped[win_a], 1, 0)
    cell[win_b] = np.where(swapped[win_b], 0, 1)
    return keys, cell


def one_blas_thread() -> Any:
    """A context that keeps BLAS/LAPACK to one thread. The fit solves systems of a few
    hundred unknowns: a BLAS thread pool buys nothing there, and on a loaded machine its
    spinning threads make run times swing tenfold (measured on 2 cores).

    The libraries are found once per process (``threadpoolctl`` walks every loaded shared
    object for them: about 1 ms, which a build paid hundreds of times, once per fit) and
    again only after a module was imported, since an import may load another BLAS."""
    loaded = len(sys.modules)
    if _blas.get("modules") != loaded:
        _blas.update(modules=loaded, controller=ThreadpoolController())
    return _blas["controller"].limit(limits=1, user_api="blas")


_blas: dict[str, Any] = {}
"The process's ``ThreadpoolController`` and the number of modules imported when it was made."


# --------------------------------------------------------------------------- diagnosis


@dataclass(frozen=True, slots=True)
class Unrated:
    """A group of models without a finite rating, and why."""

    models: tuple[str, ...]
    reason: str

    def to_json(self) -> dict[str, object]:
        return {"models": list(self.models), "reason": self.reason}


class NoFiniteRating(UserError):
    """The battle graph is not strongly connected: some ratings would be infinite."""

    def __init__(self, problems: tuple[Unrated, ...]):
        self.problems = problems
        text = "; ".join(f"{', '.join(p.models)}: {p.reason}" for p in problems)
        super().__init__(f"no finite Bradley-Terry rating exists: {text}")


@dataclass(frozen=True, slots=True)
class Structure:
    """Connected components (most battles first) and, in each, the strongly connected groups."""

    components: tuple[np.ndarray, ...]  # model codes per component
    main: tuple[np.ndarray, ...]  # per component: codes of the largest strongly connected group
    unrated: tuple[tuple[np.ndarray, str], ...]  # (codes, position) with position in above/below/between


def analyse_graph(n: int, i: np.ndarray, j: np.ndarray, wins_i: np.ndarray, wins_j: np.ndarray,
                  ties: np.ndarray) -> Structure:
    """Components of the battle graph (most battles first) and the strongly connected
    structure of each.

    Directed edge u -> v when u beat or tied v at least once. Models without battles are
    left out. Within a component the largest strongly connected group (most models, then
    most battles) is the main group; every other group is "above" it (a chain of wins leads
    from it to the main group but none back), "below" it (the reverse) or "between".
    When every model that played belongs to one strongly connected group (the usual case)
    that is known without scipy (``builder.pairwise.graph``) and scipy is never imported.
    """
    tot = wins_i + wins_j + ties
    met = tot > 0
    ii, jj = i[met], j[met]
    whole = _whole_graph_strongly_connected(n, ii, jj, (wins_i + ties)[met] > 0, (wins_j + ties)[met] > 0)
    if whole is not None:
        return Structure((whole,), (whole,), ())
    import scipy.sparse
    from scipy.sparse.csgraph import breadth_first_order, connected_components

    und = scipy.sparse.coo_matrix((np.ones(ii.size), (ii, jj)), shape=(n, n)).tocsr()
    n_comp, comp = connected_components(und, directed=False)
    # u -> v: u beat v or they tied.
    fwd = (wins_i + ties)[met] > 0  # i -> j
    bwd = (wins_j + ties)[met] > 0  # j -> i
    src = np.concatenate([ii[fwd], jj[bwd]])
    dst = np.concatenate([jj[fwd], ii[bwd]])
    g = scipy.sparse.coo_matrix((np.ones(src.size), (src, dst)), shape=(n, n)).tocsr()
    _, scc = connected_components(g, directed=True, connection="strong")
    played = np.zeros(n, dtype=bool)
    played[ii] = True
    played[jj] = True
    battles = np.bincount(ii, tot[met], n) + np.bincount(jj, tot[met], n)

    components, mains, unrated = [], [], []
    comp_ids = [c for c in range(n_comp) if played[comp == c].any()]
    # Most battles first: the component the page is about (then most models, then code).
    comp_ids.sort(key=lambda c: (-battles[comp == c].sum(), -(comp == c).sum(), np.flatnonzero(comp == c)[0]))
    gt = g.T.tocsr()
    for c in comp_ids:
        members = np.flatnonzero(comp == c)
        components.append(members)
        groups = np.unique(scc[members])
        if groups.size == 1:
            mains.append(members)
            continue
        best = max(groups, key=lambda s: ((scc == s).sum(), battles[scc == s].sum(), -np.flatnonzero(scc == s)[0]))
        main = np.flatnonzero(scc == best)
        mains.append(main)
        down = np.zeros(n, dtype=bool)  # reachable from main: main beat them (directly or not)
        down[breadth_first_order(g, int(main[0]), directed=True, return_predecessors=False)] = True
        up = np.zeros(n, dtype=bool)  # can reach main: they beat the main group
        up[breadth_first_order(gt, int(main[0]), directed=True, return_predecessors=False)] = True
        for s in groups:
            if s == best:
                continue
            codes = np.flatnonzero(scc == s)
            r = codes[0]
            position = "above" if up[r] and not down[r] else "below" if down[r] and not up[r] else "between"
            unrated.append((codes, position))
    return Structure(tuple(components), tuple(mains), tuple(unrated))


def _whole_graph_strongly_connected(n: int, ii: np.ndarray, jj: np.ndarray, fwd: np.ndarray,
                                    bwd: np.ndarray) -> np.ndarray | None:
    """The codes of the models that played, when they form one strongly connected group
    (the usual case, checked without scipy); else None. ``fwd``: i beat or tied j."""
    played = np.zeros(n, dtype=bool)
    played[ii] = True
    played[jj] = True
    nodes = np.flatnonzero(played)
    if nodes.size < 2:
        return None
    local = np.full(n, -1, dtype=np.int64)
    local[nodes] = np.arange(nodes.size)
    src = np.concatenate([local[ii[fwd]], local[jj[bwd]]])
    dst = np.concatenate([local[jj[fwd]], local[ii[bwd]]])
    return nodes if strongly_connected(nodes.size, src, dst) else None


def describe_unrated(counts: PairCounts, codes: np.ndarray) -> str:
    """Why a strongly connected group has no finite rating, in one clause."""
    inside = np.zeros(counts.n_models, dtype=bool)
    inside[codes] = True
    cross = inside[counts.i] != inside[counts.j]
    gi = inside[counts.i][cross]
    won = np.where(gi, counts.wins_i[cross], counts.wins_j[cross]).sum()
    lost = np.where(gi, counts.wins_j[cross], counts.wins_i[cross]).sum()
    tied = counts.ties[cross].sum()
    total = int(won + lost + tied)
    who = "it" if codes.size == 1 else "they"
    if lost == 0 and tied == 0:
        return f"won every battle {who} played against the other models ({total}), so the rating would be +infinity"
    if won == 0 and tied == 0:
        return f"lost every battle {who} played against the other models ({total}), so the rating would be -infinity"
    return (
        f"{who} beat some models without ever losing to them and lost to others without ever beating "
        f"them ({int(won)} won, {int(lost)} lost, {int(tied)} tied), so no finite rating places {who} between them"
    )


# --------------------------------------------------------------------------- fit


@dataclass(frozen=True, eq=False, slots=True)
class BTFit:
    """A Bradley-Terry fit. ``ratings`` shape (n_models,), Arena scale; NaN where unrated."""

    models: tuple[str, ...]
    ratings: np.ndarray
    component: np.ndarray  # int, shape (n_models,): component index (0 = most battles), -1 no battles
    components: tuple[tuple[str, ...], ...]
    unrated: tuple[Unrated, ...]
    scale: float
    base: float
    init: float
    anchor: tuple[str, float] | None
    iterations: int

    def rating_of(self, model: str) -> float:
        return float(self.ratings[self.models.index(model)])


def fit_bt(
    counts: PairCounts,
    *,
    scale: float = SCALE,
    base: float = BASE,
    init: float = INIT,
    anchor: tuple[str, float] | None = None,
    on_unidentifiable: Literal["raise", "drop"] = "raise",
) -> BTFit:
    """Maximum-likelihood Bradley-Terry ratings, per connected component.

    ``on_unidentifiable="raise"`` raises ``NoFiniteRating`` naming every group of models
    that won or lost all its battles against the rest; ``"drop"`` fits the largest strongly
    connected group of each component and reports the others in ``BTFit.unrated`` (their
    ratings are NaN). ``anchor`` must name a rated model. Runs with one BLAS thread.
    """
    with one_blas_thread():
        return _fit_bt(counts, scale=scale, base=base, init=init, anchor=anchor, on_unidentifiable=on_unidentifiable)


def _fit_bt(
    counts: PairCounts,
    *,
    scale: float,
    base: float,
    init: float,
    anchor: tuple[str, float] | None,
    on_unidentifiable: Literal["raise", "drop"],
) -> BTFit:
    n = counts.n_models
    st = analyse_graph(n, counts.i, counts.j, counts.wins_i, counts.wins_j, counts.ties)
    unrated = tuple(Unrated(tuple(counts.models[k] for k in codes), describe_unrated(counts, codes)) for codes,
                    _ in st.unrated)
    if unrated and on_unidentifiable == "raise":
        raise NoFiniteRating(unrated)
    ratings = np.full(n, np.nan)
    component = np.full(n, -1, dtype=np.int64)
    iterations = 0
    for c, (members, main) in enumerate(zip(st.components, st.main, strict=True)):
        component[members] = c
        beta, its = solve_group(counts, main, scale=scale, base=base)
        iterations = max(iterations, its)
        ratings[main] = init + scale * (beta - beta.mean())
    if anchor is not None:
        name, value = anchor
        if name not in counts.models:
            raise UserError(f"anchor model {name!r} is not in the battles")
        k = counts.models.index(name)
        if not np.isfinite(ratings[k]):
            raise UserError(f"anchor model {name!r} has no finite rating")
        same = component == component[k]
        ratings[same] += value - ratings[k]
    return BTFit(
        models=counts.models,
        ratings=ratings,
        component=component,
        components=tuple(tuple(counts.models[k] for k in m) for m in st.components),
        unrated=unrated,
        scale=scale,
        base=base,
        init=init,
        anchor=anchor,
        iterations=iterations,
    )


def solve_group(
    counts: PairCounts,
    members: np.ndarray,
    *,
    scale: float = SCALE,
    base: float = BASE,
    start: np.ndarray | None = None,
) -> tuple[np.ndarray, int]:
    """Newton's method on one strongly connected group, using the battles inside it.

    Returns (beta, iterations): beta shape (len(members),) in log-base-odds units (rating =
    scale * beta + const), in the gauge beta[-1] = 0. ``start`` is a warm start in the same
    units (any gauge).
    """
    m = members.size
    if m == 1:
        return np.zeros(1), 0
    local = np.full(counts.n_models, -1, dtype=np.int64)
    local[members] = np.arange(m)
    li, lj = local[counts.i], local[counts.j]
    keep = (li >= 0) & (lj >= 0)
    tot = counts.totals()[keep]
    keep_idx = np.flatnonzero(keep)[tot > 0]
    li, lj = local[counts.i[keep_idx]], local[counts.j[keep_idx]]
    ntot = counts.totals()[keep_idx]
    score = counts.wins_i[keep_idx] + 0.5 * counts.ties[keep_idx]
    return newton_bt(m, li, lj, score, ntot, math.log(base), start)


def newton_bt(
    m: int,
    i: np.ndarray,
    j: np.ndarray,
    score: np.ndarray,
    total: np.ndarray,
    c: float,
    start: np.ndarray | None = None,
    tol: float = _STEP_TOL,
) -> tuple[np.ndarray, int]:
    """Maximise sum s log p + (n - s) log(1 - p), p = sigmoid(c (b_i - b_j)); b[-1] fixed at 0.

    Shapes: i, j, score, total (n_pairs,). Stops when the largest step is below ``tol``
    (log-base-odds units; rating = scale * b). Assumes the win graph is strongly connected
    (else the maximum is at infinity and the loop stops at ``_MAX_ITER``).
    """
    beta = np.zeros(m) if start is None else np.asarray(start, dtype=np.float64) - start[-1]
    fail = total - score
    diag = np.diag_indices(m)

    def loglik(x: np.ndarray) -> float:
        # log sigmoid(x) = -logaddexp(0, -x) and log sigmoid(-x) = log sigmoid(x) - x: one
        # stable logaddexp per pair.
        ls = np.logaddexp(0.0, -x)
        return float(-(score * ls + fail * (ls + x)).sum())

    x = c * (beta[i] - beta[j])
    ll = loglik(x)
    for it in range(1, _MAX_ITER + 1):
        p = 0.5 * (1.0 + np.tanh(0.5 * x))  # sigmoid without overflow
        resid = c * (score - total * p)
        grad = np.bincount(i, resid, m) - np.bincount(j, resid, m)
        w = c * c * total * p * (1.0 - p)
        h = np.zeros((m, m))
        h[i, j] = -w
        h[j, i] = -w
        h[diag] = np.bincount(i, w, m) + np.bincount(j, w, m)
        # Negative Hessian of L is h (positive semi-definite); fix the last coordinate.
        try:
            step = np.linalg.solve(h[:-1, :-1], grad[:-1])
        except np.linalg.LinAlgError:
            step = np.linalg.lstsq(h[:-1, :-1], grad[:-1], rcond=None)[0]
        full = np.append(step, 0.0)
        dx = c * (full[i] - full[j])
        t = 1.0
        while True:  # backtracking: the likelihood may not fall
            x_new = x + t * dx
            ll_new = loglik(x_new)
            if ll_new >= ll - 1e-12 * abs(ll) or t < 1e-8:
                break
            t *= 0.5
        beta, x, ll = beta + t * full, x_new, ll_new
        if np.max(np.abs(t * full)) < tol:
            return beta, it
    return beta, _MAX_ITER


__all__ = [
    "BASE",
    "INIT",
    "SCALE",
    "BTFit",
    "NoFiniteRating",
    "PairCounts",
    "Structure",
    "Unrated",
    "analyse_graph",
    "count_pairs",
    "describe_unrated",
    "fit_bt",
    "newton_bt",
    "one_blas_thread",
    "pair_cells",
    "solve_group",
]
