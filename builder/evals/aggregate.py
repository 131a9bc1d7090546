"""The leaderboard aggregator: per-task EvalRun records -> one board per metric.

For one metric, pivot the records into scores S (models x tasks) with a mask of the tasks
each model has. Per model m with task set T_m and task weights w_t (1 unless weighted):

    mean_m      = sum_{t in T_m} w_t s_mt / sum_{t in T_m} w_t
    CI_m        = percentile bootstrap of mean_m, resampling T_m with replacement
    win_rate_m  = sum_{t in T_m} w_t * [m is among the k_t top scorers of t] / k_t
                  / sum_{t in T_m} w_t              (ties split: each of k_t gets 1/k_t)
    tasks_m     = |T_m|
    category c  = mean_m restricted to the tasks of c

Pairwise, for models a and b with common tasks T_ab, d_t = s_at - s_bt:

    diff_ab = weighted mean of d over T_ab, CI by a paired bootstrap over T_ab,
    significant when the CI excludes 0 (otherwise the pair counts as tied).

Models with the same task set share one resample (so a full suite draws once and every
pairwise difference is the difference of the two models' bootstrap means: a paired
bootstrap); each further task set draws its own. All randomness comes from one
``numpy.random.default_rng(seed)``, consumed in a fixed order (task sets in the order of
their first model id), so a seed reproduces a report exactly.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from builder.evals.bootstrap import bootstrap_means, percentile_ci, weighted_means
from builder.evals.io import check_eval_runs
from builder.evals.records import EvalReport, EvalRun, LeaderboardRow, PairwiseRow

AGGREGATE_ROUNDS = 500  # the aggregator's default: 500 bootstrap rounds, so demos and tests run fast
AGGREGATE_ALPHA = 0.05


@dataclass(frozen=True, slots=True)
class ScoreMatrix:
    """One metric pivoted: ``scores``/``mask`` shape (n_models, n_tasks), zeros where masked.

    ``weights`` shape (n_tasks,) (1.0 where a task has none); ``categories`` shape
    (n_tasks,) of str ("" for a task without a category). Models and tasks are sorted.
    """

    models: tuple[str, ...]
    tasks: tuple[str, ...]
    scores: np.ndarray
    mask: np.ndarray
    weights: np.ndarray
    categories: np.ndarray


def metric_names(runs: Iterable[EvalRun]) -> list[str]:
    """Metric names in order of first appearance."""
    return list(dict.fromkeys(r.metric_name for r in runs))


def pivot_scores(runs: Iterable[EvalRun], metric: str) -> ScoreMatrix:
    """Pivot the records of ``metric`` into a ScoreMatrix (assumes ``check_eval_runs`` passed)."""
    sel = [r for r in runs if r.metric_name == metric]
    models = tuple(sorted({r.model_id for r in sel}))
    tasks = tuple(sorted({r.task_id for r in sel}))
    mi = {m: i for i, m in enumerate(models)}
    ti = {t: i for i, t in enumerate(tasks)}
    scores = np.zeros((len(models), len(tasks)))
    mask = np.zeros((len(models), len(tasks)), dtype=bool)
    weights = np.ones(len(tasks))
    cats = np.full(len(tasks), "", dtype=object)
    for r in sel:
        i, j = mi[r.model_id], ti[r.task_id]
        scores[i, j] = r.score
        mask[i, j] = True
        if r.weight is not None:
            weights[j] = r.weight
        if r.category is not None:
            cats[j] = r.category
    return ScoreMatrix(models, tasks, scores, mask, weights, cats.astype(str))


def compute_win_rates(scores: np.ndarray, mask: np.ndarray, weights: np.ndarray | None = None) -> np.ndarray:
    """Win rate per model, shape (n_models,), in [0, 1].

    Per task the top score among the models that have it wins; k tied top models get 1/k
    each; a model's wins are divided by (the weight of) the tasks it has. 0 for a model
    without tasks.
    """
    w = np.ones(scores.shape[1]) if weights is None else np.asarray(weights, dtype=np.float64)
    present = np.where(mask, scores, -np.inf)
    top = present.max(axis=0)  # (n_tasks,)
    winners = mask & (scores == top[None, :])
    k = winners.sum(axis=0)
    share = np.divide(winners, k[None, :], out=np.zeros(scores.shape), where=k[None, :] > 0)
    total = mask.astype(np.float64) @ w
    return np.divide(share @ w, total, out=np.zeros(len(total)), where=total > 0)


def compute_eval_reports(
    runs: Sequence[EvalRun],
    *,
    b: int = AGGREGATE_ROUNDS,
    alpha: float = AGGREGATE_ALPHA,
    seed: int = 0,
    weighted: bool = False,
    stratified: bool = False,
) -> tuple[EvalReport, ...]:
    """One EvalReport per metric, in order of the metric's first appearance."""
    check_eval_runs(runs)
    return tuple(
        compute_eval_report(runs, m, b=b, alpha=alpha, seed=seed, weighted=weighted, stratified=stratified,
                            checked=True)
        for m in metric_names(runs)
    )


def compute_eval_report(
    runs: Sequence[EvalRun],
    metric: str,
    *,
    b: int = AGGREGATE_ROUNDS,
    alpha: float = AGGREGATE_ALPHA,
    seed: int = 0,
    weighted: bool = False,
    stratified: bool = False,
    checked: bool = False,
) -> EvalReport:
    """The board of ``metric``: rows sorted by mean (desc, then model id) and every pair.

    ``b`` bootstrap rounds (>= 1), ``alpha`` in (0, 1); ``weighted`` uses each task's
    ``weight`` (1 when absent) for means, CIs, win rates and category means; ``stratified``
    resamples tasks within their category. An empty metric gives an empty report.
    """
    if b < 1:
        raise ValueError(f"bootstrap rounds must be >= 1, got {b}")
    if not 0.0 < alpha < 1.0:
        raise ValueError(f"alpha must lie in (0, 1), got {alpha!r}")
    if not checked:
        check_eval_runs(runs)
    sm = pivot_scores(runs, metric)
    w = sm.weights if weighted else np.ones(len(sm.tasks))
    strata = sm.categories if stratified else None
    present_cats = tuple(sorted({str(c) for c in sm.categories if c}))
    rng = np.random.default_rng(seed)
    n_models = len(sm.models)
    if n_models == 0:
        return EvalReport(metric, (), (), 0, (), b, alpha, seed, weighted, stratified)

    # Per-model means and bootstrap means; models sharing a task set share one resample.
    means = np.empty(n_models)
    boot = np.empty((b, n_models))
    groups = _task_set_groups(sm.mask)
    for members, cols in groups:
        s = sm.scores[np.ix_(members, cols)]
        means[members] = weighted_means(s, w[cols])
        boot[:, members] = bootstrap_means(s, b=b, rng=rng, weights=w[cols],
                                           strata=None if strata is None else strata[cols])
    lo, hi = percentile_ci(boot, alpha)
    wins = compute_win_rates(sm.scores, sm.mask, w)

    rows = []
    for i, model in enumerate(sm.models):
        cats = {}
        for c in present_cats:
            cols = np.flatnonzero(sm.mask[i] & (sm.categories == c))
            if cols.size:
                cats[c] = float(weighted_means(sm.scores[i, cols][None, :], w[cols])[0])
        rows.append(LeaderboardRow(model, float(means[i]), float(lo[i]), float(hi[i]), float(wins[i]),
                                   int(sm.mask[i].sum()), cats))
    order = sorted(range(n_models), key=lambda i: (-rows[i].mean_score, rows[i].model_id))
    pairwise = _pairwise(sm, order, groups, means, boot, w, strata, alpha, b, rng)
    return EvalReport(metric, tuple(rows[i] for i in order), pairwise, len(sm.tasks), present_cats,
                      b, alpha, seed, weighted, stratified)


def _task_set_groups(mask: np.ndarray) -> list[tuple[np.ndarray, np.ndarray]]:
    """Models grouped by identical task sets: [(model indices, task columns)], by first model."""
    groups: dict[bytes, list[int]] = {}
    for i in range(mask.shape[0]):
        groups.setdefault(mask[i].tobytes(), []).append(i)
    return [(np.array(ms), np.flatnonzero(mask[ms[0]])) for ms in groups.values()]


def _pairwise(
    sm: ScoreMatrix,
    order: list[int],
    groups: list[tuple[np.ndarray, np.ndarray]],
    means: np.ndarray,
    boot: np.ndarray,
    w: np.ndarray,
    strata: np.ndarray | None,
    alpha: float,
    b: int,
    rng: np.random.Generator,
) -> tuple[PairwiseRow, ...]:
    """Every unordered pair, the higher-ranked model first, in rank order."""
    group_of = np.empty(len(sm.models), dtype=int)
    for g, (members, _) in enumerate(groups):
        group_of[members] = g
    pairs = [(order[x], order[y]) for x in range(len(order)) for y in range(x + 1, len(order))]
    result: dict[tuple[int, int], tuple[float | None, float | None, float | None, int]] = {}

    # Same task set: the shared resample already is the paired bootstrap of the differences.
    same = [(a, c) for a, c in pairs if group_of[a] == group_of[c]]
    if same:
        ia = np.array([p[0] for p in same])
        ic = np.array([p[1] for p in same])
        d_lo, d_hi = percentile_ci(boot[:, ia] - boot[:, ic], alpha)
        for k, (a, c) in enumerate(same):
            n_common = int(sm.mask[a].sum())
            result[(a, c)] = (float(means[a] - means[c]), float(d_lo[k]), float(d_hi[k]), n_common)

    # Different task sets: group the pairs by their common task set and draw once per set.
    by_common: dict[bytes, list[tuple[int, int]]] = {}
    for a, c in pairs:
        if (a, c) in result:
            continue
        common = sm.mask[a] & sm.mask[c]
        if not common.any():
            result[(a, c)] = (None, None, None, 0)
            continue
        by_common.setdefault(common.tobytes(), []).append((a, c))
    for plist in by_common.values():
        a0, c0 = plist[0]
        cols = np.flatnonzero(sm.mask[a0] & sm.mask[c0])
        d = np.stack([sm.scores[a, cols] - sm.scores[c, cols] for a, c in plist])
        point = weighted_means(d, w[cols])
        samples = bootstrap_means(d, b=b, rng=rng, weights=w[cols],
                                  strata=None if strata is None else strata[cols])
        d_lo, d_hi = percentile_ci(samples, alpha)
        for k, pair in enumerate(plist):
            result[pair] = (float(point[k]), float(d_lo[k]), float(d_hi[k]), int(cols.size))

    rows = []
    for a, c in pairs:
        diff, lo, hi, n = result[(a, c)]
        significant = lo is not None and hi is not None and (lo > 0.0 or hi < 0.0)
        rows.append(PairwiseRow(sm.models[a], sm.models[c], diff, lo, hi, n, bool(significant)))
    return tuple(rows)
