"""Style-controlled Bradley-Terry (LMArena's default view): ratings with covariates for how an answer looks.

Model, per battle i between models a_i and b_i with standardised style features f_i
(shape (k,), see ``builder.pairwise.style``)::

    logit P(a_i beats b_i) = (r_a - r_b) + f_i . beta

with outcome y_i = 1 (A won), 0 (B won) or 0.5 (a tie of either kind). The fit minimises

    loss(r, beta) = -(1/n) sum_i w_i [y_i z_i - softplus(z_i)] + (lambda / 2) |beta|^2,
    z_i = r_a - r_b + f_i . beta,

with lambda = 1 by default and no penalty on the ratings, which are therefore defined up to
a shift within each connected component; each component is centred on a mean r of zero.
Reported ratings are on the Arena scale, ``r * scale / ln(base) + init`` (400 / ln 10, 1000),
or shifted so one anchored model has a given rating. ``w_i`` is 1, or LMArena's
inverse-frequency weight ``1 / max(n_pair, 50)`` normalised to mean 1 over the battles,
``n_pair`` the battles of that unordered pair.

This is the objective of ``arena-rank``'s ``ContextualBradleyTerry``; we reach its
minimiser by Newton's method instead of L-BFGS. The structure makes Newton cheap: the
ratings block of the Hessian is the graph Laplacian weighted by sum_i w_i p_i (1 - p_i) per
pair, the cross block has k columns and the feature block is k x k, so one vectorised pass
over the battles yields the loss, gradient and whole Hessian (size n_models + k), which is
factorised densely with one rating per component held fixed. Iterations stop when the
largest step is below 1e-11 (about 2e-9 rating points): the gradient is then at rounding level.

Sandwich intervals (``arena-rank``'s estimator, reproduced exactly): with p_i at the fit,
per battle h_i = w_i p_i (1 - p_i) / n and g_i = (w_i (y_i - p_i))^2 / n,

    H = sum_i h_i x_i x_i^T + 1e-5 I,           x_i = (e_a - e_b, f_i)
    G = sum_i g_i x_i x_i^T - (lambda^2 / n) (0, beta)(0, beta)^T
    Cov = H^-1 G H^-1 / n,

and the bounds are ``estimate +- z sqrt(diag Cov)`` (z the normal quantile of the level),
for ratings (then scaled) and for beta alike. H carries the 1e-5 ridge, not the penalty.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
from scipy.special import ndtri

from builder.errors import UserError
from builder.pairwise.battles import BAD_KINDS, BattleReport, Battles
from builder.pairwise.bt import (
    BASE,
    INIT,
    SCALE,
    NoFiniteRating,
    PairCounts,
    Unrated,
    analyse_graph,
    count_pairs,
    describe_unrated,
    solve_group,
)
from builder.pairwise.sandwich import HESSIAN_REG, MIN_PAIR

REG = 1.0

_STEP_TOL = 1e-11  # natural-log-odds units
_ROUND_TOL = 1e-8
_MAX_ITER = 100
_INF_AT = 50.0  # a bootstrap rating past this many log-odds from its group is infinite (no finite maximum)


# --------------------------------------------------------------------------- data


@dataclass(frozen=True, eq=False, slots=True)
class StyleDataset:
    """Battles of the style-controlled fit, shape (n,) unless stated.

    ``a``/``b`` int32 codes into ``models``; ``outcome`` int8 codes of ``battles.OUTCOMES``;
    ``features`` (n, k) float64 (float32 when the raw matrix was; the pass computes in
    float64), standardised (``mean``/``std`` shape (k,) are what was removed); ``weights``
    float64, ones (a read-only broadcast of 1.0) or inverse-frequency weights with mean 1.
    """

    models: tuple[str, ...]
    a: np.ndarray
    b: np.ndarray
    outcome: np.ndarray
    features: np.ndarray
    weights: np.ndarray
    feature_names: tuple[str, ...]
    mean: np.ndarray
    std: np.ndarray
    reweighted: bool

    @property
    def n(self) -> int:
        return int(self.a.shape[0])


def pair_battle_counts(a: np.ndarray, b: np.ndarray, n_models: int) -> np.ndarray:
    """Per battle, shape (n,): how many battles its unordered pair has in (a, b)."""
    lo = np.minimum(a, b).astype(np.int64)
    hi = np.maximum(a, b).astype(np.int64)
    key = lo * n_models + hi
    if n_models * n_models <= 1 << 24:
        per = np.bincount(key, minlength=n_models * n_models)
        out: np.ndarray = per[key].astype(np.float64)
        return out
    _, inv, cnt = np.unique(key, return_inverse=True, return_counts=True)
    found: np.ndarray = cnt[inv].astype(np.float64)
    return found


def inverse_frequency_weights(a: np.ndarray, b: np.ndarray, n_models: int, min_pair: int = MIN_PAIR) -> np.ndarray:
    """LMArena's per-battle weights ``1 / max(n_pair, min_pair)``, normalised to mean 1."""
    w: np.ndarray = 1.0 / np.maximum(pair_battle_counts(a, b, n_models), float(min_pair))
    return w / float(w.mean())


def build_style_dataset(
    models: tuple[str, ...],
    a: np.ndarray,
    b: np.ndarray,
    outcome: np.ndarray,
    raw_features: np.ndarray,
    feature_names: tuple[str, ...],
    *,
    reweight: bool = False,
    min_pair: int = MIN_PAIR,
    overwrite: bool = False,
) -> StyleDataset:
    """Standardise ``raw_features`` (n, k) over these battles and attach the weights.

    ``overwrite``: standardise ``raw_features`` in place (a C-contiguous array the caller no
    longer needs), saving one copy of the feature matrix. A float32 matrix stays float32 (its
    moments are summed in float64); any other becomes float64.
    """
    raw_features = np.asarray(raw_features)
    if raw_features.dtype != np.float32:
        raw_features = raw_features.astype(np.float64, copy=False)
    if raw_features.ndim != 2 or raw_features.shape[0] != a.shape[0]:
        raise ValueError("raw_features must have shape (n_battles, k)")
    z = raw_features if overwrite and raw_features.flags.c_contiguous else raw_features.copy()
    mean, std = _column_moments(z)
    std = np.where(std == 0, 1.0, std)
    z -= mean
    z /= std
    n_models = len(models)
    # Unit weights as one value seen n times (a read-only stride-0 view): no array per battle.
    w = inverse_frequency_weights(a, b, n_models, min_pair) if reweight else np.broadcast_to(1.0, a.shape)
    return StyleDataset(
        models=tuple(models),
        a=np.ascontiguousarray(a, dtype=np.int32),
        b=np.ascontiguousarray(b, dtype=np.int32),
        outcome=np.ascontiguousarray(outcome, dtype=np.int8),
        features=np.ascontiguousarray(z),
        weights=w,
        feature_names=tuple(feature_names),
        mean=mean,
        std=std,
        reweighted=reweight,
    )


_MOMENT_ROWS = 1 << 18  # rows per block of _column_moments


def _column_moments(z: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(z.mean(axis=0), z.std(axis=0))`` of a C-contiguous (n, k) array, the same numbers,
    without numpy's (n, k) temporary of deviations: numpy sums a C array over axis 0 row
    after row, so blocks of rows summed onto the running total (as its first row) add in
    the same order."""
    n = z.shape[0]
    if n == 0:
        return z.mean(axis=0), z.std(axis=0)
    total = np.zeros(z.shape[1])
    for s in range(0, n, _MOMENT_ROWS):
        total = np.sum(np.vstack([total[None, :], z[s:s + _MOMENT_ROWS]]), axis=0)
    mean = total / n
    squares = np.zeros(z.shape[1])
    for s in range(0, n, _MOMENT_ROWS):
        d = z[s:s + _MOMENT_ROWS] - mean
        np.multiply(d, d, out=d)
        squares = np.sum(np.vstack([squares[None, :], d]), axis=0)
    return mean, np.sqrt(squares / n)


# --------------------------------------------------------------------------- the pass

_PASS_ROWS = 1 << 17  # battles per block of _pass (its temporaries: a few arrays of this many floats)
_Y = np.array([1.0, 0.0, 0.5, 0.5])  # outcome code (battles.OUTCOMES) -> y: A won, B won, tie, tie (both bad)


def _pass(a: np.ndarray, b: np.ndarray, outcome: np.ndarray, w: np.ndarray, f: np.ndarray, local: np.ndarray,
          x: np.ndarray, m: int, mode: int) -> tuple[float, np.ndarray, np.ndarray, np.ndarray]:
    """One pass over the battles at parameters ``x = (r[0..m), beta)``.

    ``local`` maps model codes to positions in r (-1: left out, with its battles).
    Returns (loss_sum, grad_sum, hess_sum, gcov_sum) of the unpenalised, unnormalised
    negative log-likelihood sum_i w_i [softplus(z) - y z]; ``mode`` 0 loss only, 1 with
    gradient and Hessian, 2 also the gradient outer-product sum G (for the sandwich).

    Vectorised over blocks of ``_PASS_ROWS`` battles. Per battle the loss derivative
    ``r = w (p - y)``, the curvature ``h = w p (1 - p)`` and (mode 2) ``g = r^2``; what
    they add to the ratings rows depends only on the battle's ordered pair, so each is
    summed per pair (one ``bincount`` over ``ia * m + ib``, and one per feature for the
    cross block), and the feature block is ``f^T (h f)``.
    """
    n = a.shape[0]
    k = f.shape[1]
    d = m + k
    loss = 0.0
    grad = np.zeros(d)
    hess = np.zeros((d, d)) if mode >= 1 else np.zeros((1, 1))
    gcov = np.zeros((d, d)) if mode == 2 else np.zeros((1, 1))
    r_of, beta = x[:m], x[m:]
    cells = m * m
    for s in range(0, n, _PASS_ROWS):
        e = min(n, s + _PASS_ROWS)
        ia, ib, wi, fi, oi = local[a[s:e]], local[b[s:e]], w[s:e], f[s:e], outcome[s:e]
        keep = (ia >= 0) & (ib >= 0) & (wi != 0.0)
        if not keep.all():
            ia, ib, wi, fi, oi = ia[keep], ib[keep], wi[keep], fi[keep], oi[keep]
        fi = np.asfortranarray(fi)  # one column per feature: the products below run along columns
        z = r_of[ia] - r_of[ib]
        if k:
            z += fi @ beta
        y = _Y[oi]
        ez = np.exp(-np.abs(z))  # softplus(z) = max(z, 0) + log1p(exp(-|z|)), p = sigmoid(z), stably
        sp = np.maximum(z, 0.0) + np.log1p(ez)
        unit = wi.strides == (0,)  # unit weights: a broadcast of 1.0
        sp -= y * z
        loss += float(sp.sum() if unit else wi @ sp)
        if mode == 0:
            continue
        q = 1.0 / (1.0 + ez)
        p = np.where(z > 0.0, q, ez * q)
        r = p - y
        if not unit:
            r *= wi
        h = p * (1.0 - p)
        if not unit:
            h *= wi
        key = ia.astype(np.int64) * m + ib
        _add_pair_terms(grad, hess, key, fi, r, h, m, cells)
        if mode == 2:
            _add_pair_terms(None, gcov, key, fi, None, r * r, m, cells)
    return loss, grad, hess, gcov


def _add_pair_terms(grad: np.ndarray | None, mat: np.ndarray, key: np.ndarray, f: np.ndarray, r: np.ndarray | None,
                    h: np.ndarray, m: int, cells: int) -> None:
    """Add one block of battles to the gradient (``r``, when given) and to a Hessian-shaped
    sum ``mat`` of ``h x x^T`` with ``x = (e_a - e_b, f)``; ``key = a * m + b`` per battle,
    ``f`` the block's features in Fortran order."""
    k = f.shape[1]
    if grad is not None and r is not None:
        per = np.bincount(key, r, cells).reshape(m, m)
        grad[:m] += per.sum(axis=1) - per.sum(axis=0)
        grad[m:] += f.T @ r
    per = np.bincount(key, h, cells).reshape(m, m)
    block = mat[:m, :m]
    block -= per
    block -= per.T
    block[np.diag_indices(m)] += per.sum(axis=1) + per.sum(axis=0)
    if not k:
        return
    hf = np.empty(f.shape, order="F")  # float64 whatever f is
    for j in range(k):
        np.multiply(f[:, j], h, out=hf[:, j])
    for j in range(k):
        per = np.bincount(key, hf[:, j], cells).reshape(m, m)
        col = per.sum(axis=1) - per.sum(axis=0)
        mat[:m, m + j] += col
        mat[m + j, :m] += col
    mat[m:, m:] += f.T @ hf


# --------------------------------------------------------------------------- fit


@dataclass(frozen=True, eq=False, slots=True)
class StyledFit:
    """A style-controlled fit. ``ratings`` shape (n_models,), Arena scale, NaN where unrated;
    ``r`` the same in log-odds units (each component's mean 0); ``beta`` shape (k,), log-odds
    per standard deviation of each feature."""

    models: tuple[str, ...]
    ratings: np.ndarray
    r: np.ndarray
    beta: np.ndarray
    feature_names: tuple[str, ...]
    component: np.ndarray  # int, (n_models,): component index (0 = most battles), -1 no battles
    components: tuple[tuple[str, ...], ...]
    unrated: tuple[Unrated, ...]
    reg: float
    scale: float
    base: float
    init: float
    anchor: tuple[str, float] | None
    iterations: int
    n_battles: int  # battles fitted (both models rated)
    max_gradient: float  # largest |gradient| of the loss at the solution

    @property
    def alpha(self) -> float:
        """Rating points per log-odds unit: scale / ln(base)."""
        return self.scale / math.log(self.base)

    def rating_of(self, model: str) -> float:
        return float(self.ratings[self.models.index(model)])


Sums = Callable[[np.ndarray, np.ndarray, int, int, "np.ndarray | None"], tuple[float, Any, Any, Any]]
"""``sums(local, x, m, mode, w)``: the pass's sums over the battles at ``x`` (``_pass``),
with weights ``w`` (None: the battles' own). In process over a ``StyleDataset``
(``dataset_sums``), or by a cluster over battles it keeps (``builder.pairwise.spark``)."""


def dataset_sums(ds: StyleDataset) -> Sums:
    """The sums of the fit over a dataset in memory."""
    def sums(local: np.ndarray, x: np.ndarray, m: int, mode: int, w: np.ndarray | None = None) -> Any:
        return _pass(ds.a, ds.b, ds.outcome, ds.weights if w is None else w, ds.features, local, x, m, mode)
    return sums


@dataclass(frozen=True, eq=False, slots=True)
class _Problem:
    models: tuple[str, ...]
    n: int  # battles (the loss is their mean)
    k: int  # covariates
    sums: Sums
    local: np.ndarray  # int64 (n_models,): position in r, -1 if not fitted
    members: np.ndarray  # model codes in r order
    groups: tuple[np.ndarray, ...]  # positions in r of each fitted group (component)
    free: np.ndarray  # positions in x that move (one rating per group held at 0)
    reg: float


def _problem(models: tuple[str, ...], n: int, k: int, sums: Sums, groups_codes: list[np.ndarray],
             reg: float) -> _Problem:
    members = np.concatenate(groups_codes) if groups_codes else np.empty(0, np.int64)
    local = np.full(len(models), -1, dtype=np.int64)
    local[members] = np.arange(members.size)
    groups, start = [], 0
    for g in groups_codes:
        groups.append(np.arange(start, start + g.size))
        start += g.size
    m = members.size
    fixed = np.array([g[-1] for g in groups], dtype=np.int64)
    free = np.setdiff1d(np.arange(m + k), fixed)
    return _Problem(models, n, k, sums, local, members, tuple(groups), free, reg)


def _evaluate(pr: _Problem, w: np.ndarray | None, x: np.ndarray, mode: int) -> tuple[float, Any, Any, Any]:
    """Penalised mean loss, its gradient and Hessian (mode >= 1) at x; G sum in mode 2."""
    m = pr.members.size
    loss, grad, hess, gcov = pr.sums(pr.local, x, m, mode, w)
    n = pr.n
    beta = x[m:]
    loss = loss / n + 0.5 * pr.reg * float(beta @ beta)
    if mode >= 1:
        grad = grad / n
        grad[m:] += pr.reg * beta
        hess = hess / n
        hess[np.arange(m, x.size), np.arange(m, x.size)] += pr.reg
    return loss, grad, hess, gcov


def _newton(pr: _Problem, w: np.ndarray | None, x0: np.ndarray, tol: float) -> tuple[np.ndarray, int, float]:
    """Minimise the penalised loss over the free coordinates from x0. Returns (x, iterations, max |grad|)."""
    x = x0.copy()
    free = pr.free
    loss, grad, hess, _ = _evaluate(pr, w, x, 1)
    for it in range(1, _MAX_ITER + 1):
        h = hess[np.ix_(free, free)]
        try:  # Cholesky (h = L L^T; numpy's, so the process needs no scipy.linalg), else least squares
            chol = np.linalg.cholesky(h)
            step = -np.linalg.solve(chol.T, np.linalg.solve(chol, grad[free]))
        except np.linalg.LinAlgError:
            step = -np.linalg.lstsq(h, grad[free], rcond=None)[0]
        size = float(np.max(np.abs(step))) if step.size else 0.0
        t = 1.0
        while True:  # backtracking: the loss may not rise
            cand = x.copy()
            cand[free] += t * step
            c_loss, c_grad, c_hess, _ = _evaluate(pr, w, cand, 1)
            if c_loss <= loss + 1e-13 * abs(loss) or t < 1e-9:
                break
            t *= 0.5
        x, loss, grad, hess = cand, c_loss, c_grad, c_hess
        if size * t < tol:
            return x, it, float(np.max(np.abs(grad[free]))) if free.size else 0.0
    return x, _MAX_ITER, float(np.max(np.abs(grad[free]))) if free.size else 0.0


def _centre(pr: _Problem, x: np.ndarray) -> np.ndarray:
    x = x.copy()
    for g in pr.groups:
        x[g] -= x[g].mean()
    return x


def fit_styled_bt(
    ds: StyleDataset,
    *,
    reg: float = REG,
    scale: float = SCALE,
    base: float = BASE,
    init: float = INIT,
    anchor: tuple[str, float] | None = None,
    on_unidentifiable: Literal["raise", "drop"] = "raise",
) -> StyledFit:
    """Style-controlled ratings and coefficients (see the module docstring).

    Models whose group won or lost every battle against the rest have no finite rating:
    ``"raise"`` raises ``NoFiniteRating``, ``"drop"`` leaves them (and their battles) out
    and lists them in ``unrated``. ``anchor=(model, rating)`` shifts that model's component.
    """
    if ds.n == 0:
        raise UserError("style-controlled fit: no battles with usable style metadata")
    battles = Battles(ds.models, ds.a, ds.b, ds.outcome, None,
                      BattleReport("", ds.n, dict.fromkeys(BAD_KINDS, 0), {}, ds.n))
    return fit_styled_sums(count_pairs(battles), ds.n, ds.feature_names, dataset_sums(ds), reg=reg, scale=scale,
                           base=base, init=init, anchor=anchor, on_unidentifiable=on_unidentifiable)


def fit_styled_sums(
    counts: PairCounts,
    n: int,
    feature_names: tuple[str, ...],
    sums: Sums,
    *,
    reg: float = REG,
    scale: float = SCALE,
    base: float = BASE,
    init: float = INIT,
    anchor: tuple[str, float] | None = None,
    on_unidentifiable: Literal["raise", "drop"] = "raise",
) -> StyledFit:
    """``fit_styled_bt`` from what it needs of the battles: their pair counts (the battle
    graph and the starting point), their number ``n`` and the sums of each Newton pass."""
    models = counts.models
    if n == 0:
        raise UserError("style-controlled fit: no battles with usable style metadata")
    st = analyse_graph(counts.n_models, counts.i, counts.j, counts.wins_i, counts.wins_j, counts.ties)
    unrated = tuple(Unrated(tuple(models[c] for c in codes), describe_unrated(counts, codes))
                    for codes, _ in st.unrated)
    if unrated and on_unidentifiable == "raise":
        raise NoFiniteRating(unrated)
    k = len(feature_names)
    pr = _problem(models, n, k, sums, [np.asarray(g, dtype=np.int64) for g in st.main], reg)
    m = pr.members.size
    # Start from the plain Bradley-Terry ratings of the same battles (Newton on the pair
    # counts, cheap): the style terms move them little, which saves Newton passes here.
    x0 = np.zeros(m + k)
    for g in st.main:
        if g.size > 1:
            beta10, _ = solve_group(counts, np.asarray(g, dtype=np.int64), scale=1.0, base=math.e)
            x0[pr.local[g]] = beta10
    x, iterations, gmax = _newton(pr, None, x0, _STEP_TOL)
    x = _centre(pr, x)
    alpha = scale / math.log(base)
    n_models = len(models)
    r = np.full(n_models, np.nan)
    r[pr.members] = x[:m]
    ratings = init + alpha * r
    component = np.full(n_models, -1, dtype=np.int64)
    for c, members in enumerate(st.components):
        component[members] = c
    if anchor is not None:
        ratings = _apply_anchor(models, ratings, component, anchor)
    both = (pr.local[counts.i] >= 0) & (pr.local[counts.j] >= 0)
    fitted = int(counts.totals()[both].sum())
    return StyledFit(
        models=models,
        ratings=ratings,
        r=r,
        beta=x[m:].copy(),
        feature_names=tuple(feature_names),
        component=component,
        components=tuple(tuple(models[c] for c in comp) for comp in st.components),
        unrated=unrated,
        reg=reg,
        scale=scale,
        base=base,
        init=init,
        anchor=anchor,
        iterations=iterations,
        n_battles=fitted,
        max_gradient=gmax,
    )


def _apply_anchor(models: tuple[str, ...], ratings: np.ndarray, component: np.ndarray,
                  anchor: tuple[str, float]) -> np.ndarray:
    name, value = anchor
    if name not in models:
        raise UserError(f"anchor model {name!r} is not in the battles")
    k = models.index(name)
    if not np.isfinite(ratings[k]):
        raise UserError(f"anchor model {name!r} has no finite rating")
    out = ratings.copy()
    same = component == component[k]
    out[same] += value - ratings[k]
    return out


def _fit_problem(fit: StyledFit, n: int, sums: Sums) -> _Problem:
    rated = np.isfinite(fit.r)
    groups = [np.flatnonzero(rated & (fit.component == c)) for c in np.unique(fit.component[rated])]
    return _problem(fit.models, n, fit.beta.size, sums, groups, fit.reg)


def _point(pr: _Problem, fit: StyledFit) -> np.ndarray:
    return np.concatenate([fit.r[pr.members], fit.beta])


# --------------------------------------------------------------------------- intervals


@dataclass(frozen=True, eq=False, slots=True)
class StyledIntervals:
    """Intervals of a styled fit. Ratings arrays shape (n_models,), Arena scale (NaN where
    unrated); beta arrays shape (k,), log-odds units."""

    kind: Literal["sandwich", "bootstrap"]
    ci: float
    lower: np.ndarray
    upper: np.ndarray
    median: np.ndarray  # the point ratings for the sandwich; the bootstrap median otherwise
    beta_lower: np.ndarray
    beta_upper: np.ndarray
    rating_se: np.ndarray | None  # sandwich standard errors, rating points
    beta_se: np.ndarray | None
    rounds: int = 0
    seed: int | None = None
    degenerate_rounds: int = 0


def sandwich_styled(ds: StyleDataset, fit: StyledFit, *, ci: float = 0.95,
                    hessian_reg: float = HESSIAN_REG) -> StyledIntervals:
    """``arena-rank``'s sandwich estimator over the joint (r, beta) (see the module docstring)."""
    return sandwich_styled_sums(fit, ds.n, dataset_sums(ds), ci=ci, hessian_reg=hessian_reg)


def sandwich_styled_sums(fit: StyledFit, n: int, sums: Sums, *, ci: float = 0.95,
                         hessian_reg: float = HESSIAN_REG) -> StyledIntervals:
    """``sandwich_styled`` from the fit, the number of battles and their sums (one pass)."""
    pr = _fit_problem(fit, n, sums)
    m, k = pr.members.size, fit.beta.size
    x = _point(pr, fit)
    _, _, hess_sum, gcov_sum = sums(pr.local, x, m, 2, None)
    hess = hess_sum / n + hessian_reg * np.eye(m + k)
    gcov = gcov_sum / n
    theta = np.concatenate([np.zeros(m), fit.beta])
    gcov -= (fit.reg**2 / n) * np.outer(theta, theta)
    hinv = np.linalg.inv(hess)
    var = np.einsum("ij,jk,ik->i", hinv, gcov, hinv) / n
    se = np.sqrt(np.maximum(var, 0.0))
    z = float(ndtri(0.5 + ci / 2.0))
    alpha = fit.alpha
    rating_se = np.full(len(fit.models), np.nan)
    rating_se[pr.members] = alpha * se[:m]
    lower = fit.ratings - z * rating_se
    upper = fit.ratings + z * rating_se
    beta_se = se[m:]
    return StyledIntervals("sandwich", ci, lower, upper, fit.ratings.copy(), fit.beta - z * beta_se,
                           fit.beta + z * beta_se, rating_se, beta_se)


def bootstrap_styled(ds: StyleDataset, fit: StyledFit, rounds: int, seed: int, *, ci: float = 0.95) -> StyledIntervals:
    """Percentile intervals from ``rounds`` resamples of the battles (with replacement).

    A resample of n battles is drawn as per-battle multiplicities (``bincount`` of n uniform
    draws; the same distribution as resampling rows), which multiply the weights; features
    and weights keep the point fit's standardisation, as ``arena-rank``'s bootstrap does.
    Every round is refitted by Newton from the point estimate, with its own child of
    ``SeedSequence(seed)``, and centred on the point fit's mean rating of each group. A
    round where some group won or lost every resampled battle against the rest gives it
    +inf or -inf, a model without resampled battles NaN; such rounds count as degenerate.
    """
    if rounds < 1:
        raise ValueError("rounds must be >= 1")
    pr = _fit_problem(fit, ds.n, dataset_sums(ds))
    m, k = pr.members.size, ds.features.shape[1]
    x0 = _point(pr, fit)
    n = ds.n
    children = np.random.SeedSequence(seed).spawn(rounds)
    samples = np.full((rounds, len(ds.models)), np.nan)
    betas = np.full((rounds, k), np.nan)
    degenerate = 0
    alpha = fit.alpha
    for t, child in enumerate(children):
        rng = np.random.default_rng(child)
        mult = np.bincount(rng.integers(0, n, n), minlength=n).astype(np.float64)
        w = ds.weights * mult
        x, _, gmax = _newton(pr, w, x0, _ROUND_TOL)
        for g in pr.groups:
            codes = pr.members[g]
            x[g] += fit.r[codes].mean() - x[g].mean()
        r = x[:m]
        bad = ~np.isfinite(r) | (np.abs(r - x0[:m]) > _INF_AT)
        n_models = len(ds.models)
        played = (np.bincount(ds.a, mult, n_models) + np.bincount(ds.b, mult, n_models))[pr.members]
        if bad.any() or not np.isfinite(gmax) or (played == 0).any():
            degenerate += 1
            r = np.where(bad, np.sign(r - x0[:m]) * np.inf, r)
            r = np.where(played == 0, np.nan, r)  # no resampled battle: no rating this round
        samples[t, pr.members] = fit.ratings[pr.members] + alpha * (r - x0[:m])
        betas[t] = x[m:]
    from builder.pairwise.bootstrap import quantiles

    lo, hi = (1.0 - ci) / 2.0, (1.0 + ci) / 2.0
    lower, median, upper = quantiles(samples, [lo, 0.5, hi])
    b_lower, b_upper = np.quantile(betas, [lo, hi], axis=0)
    return StyledIntervals("bootstrap", ci, lower, upper, median, b_lower, b_upper, None, None,
                           rounds=rounds, seed=seed, degenerate_rounds=degenerate)


__all__ = [
    "HESSIAN_REG",
    "MIN_PAIR",
    "REG",
    "StyleDataset",
    "StyledFit",
    "StyledIntervals",
    "bootstrap_styled",
    "build_style_dataset",
    "dataset_sums",
    "fit_styled_bt",
    "fit_styled_sums",
    "inverse_frequency_weights",
    "pair_battle_counts",
    "sandwich_styled",
    "sandwich_styled_sums",
]
