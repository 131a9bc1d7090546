"""Vote flip budgets: how few votes would have to go for two adjacent models to swap places.

For a pair (A above B, rating gap d = r_A - r_B > 0) of a fitted board, the budget is the
smallest number of votes whose removal puts B above A. It is found in two steps.

1. Influence (the infinitesimal jackknife, one Newton step with the fit's own Hessian).
   Removing one vote v changes the log-likelihood's gradient at the fitted ratings by
   -grad l_v, so the ratings move by about ``delta = H^-1 (-grad l_v)`` (H the negative
   Hessian of the fit's objective, one rating per component held fixed) and the gap by

       delta_d(v) = (e_A - e_B)^T H^-1 (-grad l_v) = -u . grad l_v,   u = H^-1 (e_A - e_B).

   Plain Bradley-Terry (natural log-odds theta, p = sigmoid(theta_i - theta_j)): every vote
   of the pair-outcome cell (i, j, y), y = 1 (i won), 0 (j won) or 1/2 (a tie of either kind),
   has grad l_v = w_p (y - p) (e_i - e_j), so all votes of a cell share one influence
   ``-w_p (y - p) (u_i - u_j)``. With LMArena's weights w_p = 1 / max(n_p, 50) the removal
   also raises the pair's weight to 1 / max(n_p - 1, 50), which adds
   ``(w_p' - w_p) (s_p - n_p p) (u_i - u_j)`` (s_p the pair's score of i). Style-controlled
   fit (mean loss over n battles plus (lambda/2)|beta|^2): battle b with x_b = (e_a - e_b, f_b)
   moves the gap by ``w_b (p_b - y_b) (u . x_b) / n`` (H the Hessian of the mean loss).
   The greedy list takes the cells with the most negative influence per vote first, as many
   votes from each as it holds, until the predicted gap d + sum delta_d falls below zero:
   its length is the approximate count (None when all helpful votes together are predicted
   not to reverse the pair).

2. Verification by refitting with the same fit function and settings, without the votes of
   the list. If the order does not reverse, the influences are recomputed at that refit on the
   votes left and the list is extended the same way (at most ``MAX_ROUNDS`` times, at most
   ``MAX_SHARE`` of all votes). Once a list of K votes reverses the pair, the list with one
   vote fewer (its last) is refitted; if that also reverses, a downward search finds the
   K' where K' votes reverse the order and K' - 1 do not. The published count is that K'
   (``minimal`` true), or the shortest reversing list found when the refit budget ran out
   (``upper_bound`` true). A pair the extended list never reverses is published as not
   flipped, with the number of votes whose removal was refitted and still kept the order.

Which votes: a list entry is (model_a, model_b, outcome, count) with model_a < model_b in
the fit's model order and outcome "model_a", "model_b" or "tie" (either kind of tie). For
the plain fit any ``count`` votes of the cell are equivalent. For the style-controlled fit,
whose battles differ by their style covariates, the votes removed from a cell are its first
``count`` battles in file order (among the battles the styled fit uses), so the list
identifies them exactly; cells are ranked by the mean influence of their battles.

A refit that leaves A or B without a finite rating, or in different components, does not
count as a reversal. Everything here is pure: arrays in, records out.
"""

from __future__ import annotations

import base64
import gzip
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from builder.pairwise.bt import BTFit, PairCounts, fit_bt, pair_cells
from builder.pairwise.sandwich import MIN_PAIR, pair_weights, weighted_counts

if TYPE_CHECKING:  # the styled fit (numba, scipy) loads only when a styled board is computed
    from builder.pairwise.styled import StyleDataset, StyledFit

TOP = 10
"Adjacent pairs are taken among the top this many models of the main component."
MAX_ROUNDS = 8
"Most refits that extend the greedy list of a pair before it is declared not flipped."
MAX_SHARE = 0.5
"Most votes, as a share of all the board's votes, one list may remove."
MAX_SEARCH = 24
"Most refits of the downward search for the shortest reversing list."

CELL_OUTCOMES = ("model_a", "model_b", "tie")
"Outcome of a cell: the pair's first model won, the second won, or a tie of either kind."


@dataclass(frozen=True, slots=True)
class Segment:
    """``count`` votes of one pair-outcome cell, in removal order. ``cell`` is the cell's
    index in the board's cell table."""

    cell: int
    count: int


@dataclass(frozen=True, slots=True)
class Cells:
    """The board's pair-outcome cells, shape (n_cells,) each: codes ``i < j`` of the pair,
    ``outcome`` 0 (i won), 1 (j won), 2 (tie), and ``count`` votes."""

    i: np.ndarray
    j: np.ndarray
    outcome: np.ndarray
    count: np.ndarray


@dataclass(frozen=True, slots=True)
class FlipResult:
    """One pair's flip budget (see the module docstring); ratings in Arena points."""

    higher: str
    lower: str
    position: int  # 1-based position of ``higher`` in the main component's order
    gap: float
    approx_votes: int | None
    votes: int | None
    flipped: bool
    checked_votes: int
    minimal: bool
    upper_bound: bool
    n_votes: int
    gap_after: float | None
    refits: int
    removed: list[dict[str, Any]] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        share = None if self.votes is None or self.n_votes == 0 else round(self.votes / self.n_votes, 8)
        return {
            "higher": self.higher, "lower": self.lower, "position": self.position,
            "gap": round(self.gap, 2), "approx_votes": self.approx_votes, "votes": self.votes,
            "flipped": self.flipped, "checked_votes": self.checked_votes, "minimal": self.minimal,
            "upper_bound": self.upper_bound, "n_votes": self.n_votes, "share": share,
            "gap_after": None if self.gap_after is None else round(self.gap_after, 4),
            "refits": self.refits, "removed": self.removed,
        }


# --------------------------------------------------------------------------- the greedy list


def greedy_list(gap: float, order: Sequence[int], per_vote: Callable[[int], np.ndarray]) -> tuple[list[Segment], bool]:
    """The greedy removal list for a positive ``gap`` (log-odds or points, the influences' unit).

    ``order``: candidate cells, most helpful first; ``per_vote(cell)``: the influence of each
    of its votes in removal order, shape (count,). Returns (segments, reaches): the votes
    taken until the predicted gap falls below zero, or every candidate when it never does.
    """
    left = gap
    out: list[Segment] = []
    for c in order:
        infl = per_vote(c)
        cum = left + np.cumsum(infl)
        below = np.flatnonzero(cum < 0)
        if below.size:
            out.append(Segment(c, int(below[0]) + 1))
            return out, True
        out.append(Segment(c, int(infl.size)))
        left = float(cum[-1]) if infl.size else left
    return out, False


def truncate(segments: Sequence[Segment], k: int) -> list[Segment]:
    """The first ``k`` votes of a list."""
    out = []
    for s in segments:
        if k <= 0:
            break
        take = min(s.count, k)
        out.append(Segment(s.cell, take))
        k -= take
    return out


def merged(segments: Sequence[Segment]) -> list[Segment]:
    """Votes per cell, in order of each cell's last appearance, so the last entry holds the
    list's last vote (its "one vote fewer" is that entry's count minus one)."""
    total: dict[int, int] = {}
    for s in segments:
        total[s.cell] = total.pop(s.cell, 0) + s.count
    return [Segment(c, n) for c, n in total.items() if n > 0]


def votes_in(segments: Sequence[Segment]) -> int:
    return sum(s.count for s in segments)


# --------------------------------------------------------------------------- the search


@dataclass
class _Board:
    """What the search needs from one fit kind (plain or styled).

    ``refit(removed)``: removed votes per cell, shape (n_cells,) -> a fit state with
    ``ratings`` (Arena points, NaN where unrated) and ``component``; ``influence(removed,
    state, a, b)``: (candidate cells, most helpful first; per_vote(cell) -> the predicted
    change of r_A - r_B in points of each of its votes left, in removal order)."""

    models: tuple[str, ...]
    cells: Cells
    refit: Callable[[np.ndarray], Any]
    influence: Callable[[np.ndarray, Any, int, int], tuple[Sequence[int], Callable[[int], np.ndarray]]]


def _gap(state: Any, a: int, b: int) -> float | None:
    """r_A - r_B, or None when either is unrated or they are in different components."""
    ra, rb = state.ratings[a], state.ratings[b]
    if not (np.isfinite(ra) and np.isfinite(rb)) or state.component[a] != state.component[b]:
        return None
    return float(ra - rb)


def search_pair(board: _Board, state: Any, a: int, b: int, position: int) -> FlipResult:
    """The verified flip budget of A (above, in ``state``, the board's fit) against B
    (see the module docstring)."""
    n_cells = board.cells.count.size
    n_votes = int(board.cells.count.sum())
    cap = int(MAX_SHARE * n_votes)
    gap0 = float(state.ratings[a] - state.ratings[b])

    def per_cell(segments: Sequence[Segment]) -> np.ndarray:
        out = np.zeros(n_cells, dtype=np.int64)
        for s in segments:
            out[s.cell] += s.count
        return out

    refits = 0
    gaps: dict[int, float | None] = {0: gap0}  # list length -> gap after removing that prefix
    segments: list[Segment] = []

    def refit_at(k: int) -> Any:
        nonlocal refits
        refits += 1
        fitted = board.refit(per_cell(truncate(segments, k)))
        gaps[k] = _gap(fitted, a, b)
        return fitted

    def reverses(k: int) -> bool:
        if k not in gaps:
            refit_at(k)
        g = gaps[k]
        return g is not None and g < 0

    order, per_vote = board.influence(np.zeros(n_cells, dtype=np.int64), state, a, b)
    segments, reaches = greedy_list(gap0, order, per_vote)
    approx = votes_in(segments) if reaches else None
    hold = 0  # the longest list length refitted that keeps A above B
    flip_at: int | None = None
    for _ in range(MAX_ROUNDS):
        k = votes_in(segments)
        capped = k > cap
        if capped:  # refit at the cap: the bound published is then the cap itself
            segments, k = truncate(segments, cap), cap
        if k == hold:
            break
        fitted = refit_at(k)
        g = gaps[k]
        if g is not None and g < 0:
            flip_at = k
            break
        hold = k
        if g is None or capped:
            break  # A or B lost its finite rating, or the list reached the cap: it cannot go on
        order, per_vote = board.influence(per_cell(segments), fitted, a, b)
        more, _ = greedy_list(g, order, per_vote)
        segments = segments + more
    if flip_at is None:
        return FlipResult(board.models[a], board.models[b], position, gap0, approx, None, False, hold,
                          False, False, n_votes, _neg(gaps.get(hold)), refits,
                          _describe(board, merged(truncate(segments, hold))))
    # The shortest reversing prefix: one vote fewer first, then a downward gallop and a bisection.
    hi, lo, steps = flip_at, hold, 0
    if hi - 1 > lo:
        if reverses(hi - 1):
            hi -= 1
            step = 2
            while hi - lo > 1 and steps < MAX_SEARCH:
                probe = hi - step
                if probe <= lo:
                    break
                steps += 1
                if reverses(probe):
                    hi, step = probe, step * 2
                else:
                    lo = probe
                    break
            while hi - lo > 1 and steps < MAX_SEARCH:
                mid = (lo + hi) // 2
                steps += 1
                if reverses(mid):
                    hi = mid
                else:
                    lo = mid
        else:
            lo = hi - 1
    minimal = hi - lo == 1
    return FlipResult(board.models[a], board.models[b], position, gap0, approx, hi, True, hi, minimal,
                      not minimal, n_votes, _neg(gaps.get(hi)), refits,
                      _describe(board, merged(truncate(segments, hi))))


def _neg(g: float | None) -> float | None:
    """The gap after removal as B - A (positive once B is above)."""
    return None if g is None else -g


def _describe(board: _Board, segments: Sequence[Segment]) -> list[dict[str, Any]]:
    c = board.cells
    return [{"model_a": board.models[int(c.i[s.cell])], "model_b": board.models[int(c.j[s.cell])],
             "outcome": CELL_OUTCOMES[int(c.outcome[s.cell])], "count": int(s.count)} for s in segments]


def adjacent_pairs(ratings: np.ndarray, component: np.ndarray, top: int = TOP) -> list[tuple[int, int, int]]:
    """(position, A, B) for each adjacent pair among the top ``top`` of component 0, best first."""
    main = np.flatnonzero(np.isfinite(ratings) & (component == 0))
    ordered = main[np.argsort(-ratings[main], kind="stable")][:top]
    return [(k + 1, int(ordered[k]), int(ordered[k + 1])) for k in range(ordered.size - 1)
            if ratings[ordered[k]] > ratings[ordered[k + 1]]]


# --------------------------------------------------------------------------- plain Bradley-Terry


def cells_of(counts: PairCounts) -> Cells:
    """The non-empty pair-outcome cells of pair counts."""
    n = counts.i.size
    i = np.repeat(counts.i, 3)
    j = np.repeat(counts.j, 3)
    outcome = np.tile(np.arange(3), n)
    count = np.column_stack([counts.wins_i, counts.wins_j, counts.ties]).reshape(-1)
    keep = count > 0
    return Cells(i[keep], j[keep], outcome[keep], np.rint(count[keep]).astype(np.int64))


def counts_without(counts: PairCounts, cells: Cells, removed: np.ndarray) -> PairCounts:
    """``counts`` minus ``removed`` votes per cell (shape (n_cells,))."""
    n = counts.n_models
    key = counts.i * n + counts.j
    pos = np.searchsorted(key, cells.i * n + cells.j) if np.all(np.diff(key) > 0) else None
    if pos is None:
        lookup = {int(k): p for p, k in enumerate(key)}
        pos = np.array([lookup[int(k)] for k in cells.i * n + cells.j], dtype=np.int64)
    out = np.column_stack([counts.wins_i, counts.wins_j, counts.ties]).copy()
    np.subtract.at(out, (pos, cells.outcome), removed.astype(np.float64))
    return PairCounts(counts.models, counts.i, counts.j, out[:, 0], out[:, 1], out[:, 2])


def fit_plain(counts: PairCounts, *, reweight: bool) -> BTFit:
    """The Arena page's plain fit of pair counts (``fit_rating_table``'s settings)."""
    weights = pair_weights(counts) if reweight else None
    return fit_bt(counts if weights is None else weighted_counts(counts, weights), on_unidentifiable="drop")


def plain_influence(counts: PairCounts, cells: Cells, ratings: np.ndarray, component: np.ndarray, a: int, b: int,
                    *, reweight: bool, scale: float, base: float) -> np.ndarray:
    """Per cell, shape (n_cells,): the predicted change of r_A - r_B (Arena points) from
    removing one of its votes, by the fit's Hessian (module docstring); 0 for cells outside
    A's group."""
    c = math.log(base) / scale
    theta = ratings * c
    group = np.flatnonzero(np.isfinite(ratings) & (component == component[a]))
    local = np.full(counts.n_models, -1, dtype=np.int64)
    local[group] = np.arange(group.size)
    li, lj = local[counts.i], local[counts.j]
    tot = counts.totals()
    inside = (li >= 0) & (lj >= 0) & (tot > 0)
    w = pair_weights(counts) if reweight else np.ones(tot.size)
    p = np.zeros(tot.size)
    p[inside] = 1.0 / (1.0 + np.exp(-(theta[counts.i[inside]] - theta[counts.j[inside]])))
    m = group.size
    h = np.zeros((m, m))
    hw = (w * tot * p * (1.0 - p))[inside]
    ii, jj = li[inside], lj[inside]
    np.add.at(h, (ii, jj), -hw)
    np.add.at(h, (jj, ii), -hw)
    h[np.diag_indices(m)] += np.bincount(ii, hw, m) + np.bincount(jj, hw, m)
    e = np.zeros(m)
    e[local[a]] += 1.0
    e[local[b]] -= 1.0
    u = np.zeros(m)  # the last member's rating held fixed (the gap is the same in any gauge)
    if m > 1:
        u[:-1] = _solve(h[:-1, :-1], e[:-1])
    # Pair index of each cell.
    n = counts.n_models
    key = counts.i * n + counts.j
    lookup = {int(k): q for q, k in enumerate(key)}
    pair = np.array([lookup[int(k)] for k in cells.i * n + cells.j], dtype=np.int64)
    y = np.array([1.0, 0.0, 0.5])[cells.outcome]
    pp = p[pair]
    du = np.where(inside[pair], u[np.maximum(li[pair], 0)] - u[np.maximum(lj[pair], 0)], 0.0)
    delta = -w[pair] * (y - pp) * du
    if reweight:
        n_p = tot[pair]
        w_after = 1.0 / np.maximum(n_p - 1.0, float(MIN_PAIR))
        s_p = counts.wins_i[pair] + 0.5 * counts.ties[pair]
        delta += (w_after - w[pair]) * (s_p - n_p * pp) * du
    out: np.ndarray = delta / c
    return out


def compute_plain_flips(counts: PairCounts, fit: BTFit, *, reweight: bool, top: int = TOP) -> list[FlipResult]:
    """Flip budgets of the adjacent pairs in the top ``top`` of the plain fit's main component
    (``fit`` is ``fit_plain(counts, reweight=reweight)``)."""
    cells = cells_of(counts)

    def refit(removed: np.ndarray) -> BTFit:
        return fit_plain(counts_without(counts, cells, removed), reweight=reweight)

    def influence(removed: np.ndarray, state: BTFit, a: int,
                  b: int) -> tuple[Sequence[int], Callable[[int], np.ndarray]]:
        left = cells.count - removed
        now = counts_without(counts, cells, removed) if removed.any() else counts
        per = plain_influence(now, cells, state.ratings, state.component, a, b, reweight=reweight, scale=fit.scale,
                              base=fit.base)
        cand = np.flatnonzero((per < 0) & (left > 0))
        order = cand[np.argsort(per[cand], kind="stable")]
        return [int(x) for x in order], lambda cell: np.full(int(left[cell]), per[cell])

    board = _Board(counts.models, cells, refit, influence)
    return [search_pair(board, fit, a, b, pos) for pos, a, b in adjacent_pairs(fit.ratings, fit.component, top)]


# --------------------------------------------------------------------------- style-controlled


@dataclass(frozen=True, eq=False, slots=True)
class _StyledState:
    ratings: np.ndarray
    component: np.ndarray
    fit: StyledFit
    ds: StyleDataset
    kept: np.ndarray  # positions (into the board's battles) of ds's battles


def styled_influence(ds: StyleDataset, fit: StyledFit, a: int, b: int) -> np.ndarray:
    """Per battle of ``ds``, shape (n,): the predicted change of r_A - r_B (Arena points) from
    removing it, by the Hessian of the styled fit's penalised mean loss (module docstring);
    0 for battles of unrated models."""
    rated = np.isfinite(fit.r)
    members = np.flatnonzero(rated)
    local = np.full(len(ds.models), -1, dtype=np.int64)
    local[members] = np.arange(members.size)
    m, k, n = members.size, ds.features.shape[1], ds.n
    la, lb = local[ds.a], local[ds.b]
    use = (la >= 0) & (lb >= 0)
    la, lb = la[use], lb[use]
    f = ds.features[use]
    w = ds.weights[use]
    z = fit.r[ds.a[use]] - fit.r[ds.b[use]] + f @ fit.beta
    p = 1.0 / (1.0 + np.exp(-z))
    o = ds.outcome[use]
    y = np.where(o == 0, 1.0, np.where(o == 1, 0.0, 0.5))
    hw = w * p * (1.0 - p) / n
    h = np.zeros((m + k, m + k))
    np.add.at(h, (la, lb), -hw)
    np.add.at(h, (lb, la), -hw)
    h[np.arange(m), np.arange(m)] += np.bincount(la, hw, m) + np.bincount(lb, hw, m)
    hf = hw[:, None] * f
    cross = np.stack([np.bincount(la, hf[:, q], m) - np.bincount(lb, hf[:, q], m) for q in range(k)], axis=1) \
        if k else np.zeros((m, 0))
    h[:m, m:] = cross
    h[m:, :m] = cross.T
    h[m:, m:] = f.T @ hf + fit.reg * np.eye(k)
    # One rating per component held fixed (the gap is the same in any gauge).
    comp = fit.component[members]
    fixed = np.array([np.flatnonzero(comp == c)[-1] for c in np.unique(comp)], dtype=np.int64)
    free = np.setdiff1d(np.arange(m + k), fixed)
    e = np.zeros(m + k)
    e[local[a]] += 1.0
    e[local[b]] -= 1.0
    u = np.zeros(m + k)
    u[free] = _solve(h[np.ix_(free, free)], e[free])
    delta = np.zeros(ds.n)
    delta[use] = w * (p - y) / n * (u[la] - u[lb] + f @ u[m:])
    out: np.ndarray = delta * fit.alpha
    return out


def _solve(h: np.ndarray, rhs: np.ndarray) -> np.ndarray:
    try:
        out: np.ndarray = np.linalg.solve(h, rhs)
    except np.linalg.LinAlgError:
        out = np.linalg.lstsq(h, rhs, rcond=None)[0]
    return out


def compute_styled_flips(models: tuple[str, ...], model_a: np.ndarray, model_b: np.ndarray, outcome: np.ndarray,
                         raw_features: np.ndarray, feature_names: tuple[str, ...], fit: StyledFit, *,
                         reweight: bool, top: int = TOP) -> list[FlipResult]:
    """Flip budgets of the adjacent pairs in the top ``top`` of the style-controlled fit.

    The battles are the ones the styled fit was given, in file order, shape (n,) each, with
    their raw style features (n, k); ``fit`` is that fit. A refit standardises and weights
    the battles left exactly as the fit did (``build_style_dataset``, ``fit_styled_bt``)."""
    from builder.pairwise.styled import build_style_dataset, fit_styled_bt

    n_models = len(models)
    keys, cell = pair_cells(model_a, model_b, outcome, n_models)
    combo = keys * 3 + cell
    order = np.argsort(combo, kind="stable")  # battles grouped by cell, file order inside
    uniq, start, count = np.unique(combo[order], return_index=True, return_counts=True)
    cells = Cells(uniq // 3 // n_models, uniq // 3 % n_models, uniq % 3, count.astype(np.int64))
    cell_of = np.empty(combo.size, dtype=np.int64)
    cell_of[order] = np.repeat(np.arange(uniq.size), count)

    def dataset(keep: np.ndarray) -> StyleDataset:
        return build_style_dataset(models, model_a[keep], model_b[keep], outcome[keep],
                                   np.array(raw_features[keep], dtype=np.float64), feature_names, reweight=reweight)

    def kept_positions(removed: np.ndarray) -> np.ndarray:
        drop = np.zeros(combo.size, dtype=bool)
        for c in np.flatnonzero(removed):
            drop[order[start[c] : start[c] + removed[c]]] = True
        return np.flatnonzero(~drop)

    def refit(removed: np.ndarray) -> _StyledState:
        kept = kept_positions(removed)
        ds = dataset(kept)
        f = fit_styled_bt(ds, reg=fit.reg, on_unidentifiable="drop", scale=fit.scale, base=fit.base, init=fit.init)
        return _StyledState(f.ratings, f.component, f, ds, kept)

    def influence(removed: np.ndarray, state: _StyledState, a: int,
                  b: int) -> tuple[Sequence[int], Callable[[int], np.ndarray]]:
        per_battle = np.zeros(combo.size)
        per_battle[state.kept] = styled_influence(state.ds, state.fit, a, b)
        left = cells.count - removed
        sums = np.bincount(cell_of, per_battle, uniq.size)  # removed battles carry 0
        mean = np.where(left > 0, sums / np.maximum(left, 1), 0.0)
        cand = np.flatnonzero((mean < 0) & (left > 0))
        ranked = cand[np.argsort(mean[cand], kind="stable")]

        def per_vote(c: int) -> np.ndarray:
            out: np.ndarray = per_battle[order[start[c] + removed[c] : start[c] + cells.count[c]]]
            return out

        return [int(x) for x in ranked], per_vote

    all_rows = np.arange(combo.size)
    first = _StyledState(fit.ratings, fit.component, fit, dataset(all_rows), all_rows)
    board = _Board(models, cells, refit, influence)
    return [search_pair(board, first, a, b, pos) for pos, a, b in adjacent_pairs(fit.ratings, fit.component, top)]


# --------------------------------------------------------------------------- evidence


def styled_battles_csv_gz(model_a: np.ndarray, model_b: np.ndarray, outcome: np.ndarray, raw_features: np.ndarray,
                          feature_names: Sequence[str]) -> str:
    """The battles of a style-controlled fit as a refit needs them, base64 of a gzip CSV.

    Columns ``model_a,model_b,outcome,<feature>...``, one row per battle, in file order (the
    order in which a flip budget's cells give up their first battles): the two models' codes
    into the fit's model order, the outcome 0 (model_a won), 1 (model_b won) or 2 (a tie of
    either kind) and each raw feature value as the fit got it (before standardisation), written
    as the shortest text that reads back to the same float. gzip level 9 with no time stamp,
    so the same battles give the same bytes.
    """
    code = np.where(np.asarray(outcome) >= 2, 2, outcome).astype(np.int64)
    cols = [map(str, np.asarray(model_a).tolist()), map(str, np.asarray(model_b).tolist()), map(str, code.tolist())]
    cols += [map(repr, [float(x) for x in np.asarray(raw_features)[:, q].tolist()])
             for q in range(np.asarray(raw_features).shape[1])]
    header = ",".join(["model_a", "model_b", "outcome", *feature_names])
    text = header + "\n" + "".join(line + "\n" for line in map(",".join, zip(*cols, strict=True)))
    return base64.b64encode(gzip.compress(text.encode("ascii"), compresslevel=9, mtime=0)).decode("ascii")


__all__ = [
    "CELL_OUTCOMES",
    "MAX_ROUNDS",
    "MAX_SEARCH",
    "MAX_SHARE",
    "TOP",
    "Cells",
    "FlipResult",
    "Segment",
    "adjacent_pairs",
    "cells_of",
    "compute_plain_flips",
    "compute_styled_flips",
    "counts_without",
    "fit_plain",
    "greedy_list",
    "merged",
    "plain_influence",
    "styled_battles_csv_gz",
    "styled_influence",
    "truncate",
]
