"""The aggregator: a three-model suite known by hand, ties, categories, pairs, weights."""

from __future__ import annotations

import json

import numpy as np
import pytest

from builder.evals.aggregate import (
    compute_eval_report,
    compute_eval_reports,
    compute_win_rates,
)
from builder.evals.records import EvalRun, LeaderboardRow
from builder.evals.report import render_markdown, render_pairwise_markdown

# Tasks t1, t2 are "math", t3, t4 "code". Model C has no t3 and a constant score.
SUITE = {
    "model-a": {"t1": 1.0, "t2": 0.5, "t3": 1.0, "t4": 0.25},
    "model-b": {"t1": 1.0, "t2": 0.25, "t3": 0.5, "t4": 0.25},
    "model-c": {"t1": 0.25, "t2": 0.25, "t4": 0.25},
}
CATEGORY = {"t1": "math", "t2": "math", "t3": "code", "t4": "code"}


def suite_runs(suite=SUITE, metric="acc", weights=None) -> list[EvalRun]:
    return [
        EvalRun(m, t, metric, s, CATEGORY.get(t), None if weights is None else weights[t], origin=f"mem: {m}/{t}")
        for m, tasks in suite.items()
        for t, s in tasks.items()
    ]


def test_three_model_suite_means_win_rates_tasks_and_categories():
    rep = compute_eval_report(suite_runs(), "acc", b=200, seed=3)
    assert [r.model_id for r in rep.rows] == ["model-a", "model-b", "model-c"]
    a, b, c = rep.rows
    assert a.mean_score == pytest.approx(2.75 / 4, abs=1e-12)
    assert b.mean_score == pytest.approx(2.0 / 4, abs=1e-12)
    assert c.mean_score == 0.25
    # t1: a and b tie (1/2 each); t2: a alone; t3: a alone (c lacks it); t4: three-way tie (1/3 each).
    assert a.win_rate == pytest.approx((0.5 + 1 + 1 + 1 / 3) / 4, abs=1e-12)
    assert b.win_rate == pytest.approx((0.5 + 1 / 3) / 4, abs=1e-12)
    assert c.win_rate == pytest.approx((1 / 3) / 3, abs=1e-12)  # divided by the 3 tasks c has
    assert [r.tasks_completed for r in rep.rows] == [4, 4, 3]
    assert a.categories == {"code": 0.625, "math": 0.75}
    assert b.categories == {"code": 0.375, "math": 0.625}
    assert c.categories == {"code": 0.25, "math": 0.25}
    assert rep.n_tasks == 4 and rep.categories == ("code", "math")
    # A constant score has a zero-width interval; the others bracket their means.
    assert (c.mean_ci_lo, c.mean_ci_hi) == (0.25, 0.25)
    for r in (a, b):
        assert 0.0 <= r.mean_ci_lo <= r.mean_score <= r.mean_ci_hi <= 1.0 and r.mean_ci_lo < r.mean_ci_hi


def test_three_model_markdown_table():
    rep = compute_eval_report(suite_runs(), "acc", b=200, seed=3)
    a, b, _ = rep.rows
    expected = (
        "| Rank | Model | Mean | 95% CI | Win rate | Tasks |\n"
        "|------|-------|------|--------|----------|-------|\n"
        f"| 1 | model-a | 0.69 | {a.mean_ci_lo:.2f}-{a.mean_ci_hi:.2f} | 0.71 | 4 |\n"
        f"| 2 | model-b | 0.50 | {b.mean_ci_lo:.2f}-{b.mean_ci_hi:.2f} | 0.21 | 4 |\n"
        "| 3 | model-c | 0.25 | 0.25-0.25 | 0.11 | 3 |\n"
    )
    assert render_markdown(rep.rows, rep.alpha) == expected


def test_markdown_rounding_truncation_and_alpha():
    rows = [
        LeaderboardRow("a-very-long-model-identifier-x", 0.784, 0.7412, 0.8249, 0.625, 50),
        LeaderboardRow("pipe|model", 0.1, 0.07, 0.13, 0.04, 12),
    ]
    assert render_markdown(rows, alpha=0.1) == (
        "| Rank | Model | Mean | 90% CI | Win rate | Tasks |\n"
        "|------|-------|------|--------|----------|-------|\n"
        "| 1 | a-very-long-model-id | 0.78 | 0.74-0.82 | 0.62 | 50 |\n"
        "| 2 | pipe\\|model | 0.10 | 0.07-0.13 | 0.04 | 12 |\n"
    )


def test_pairwise_rows():
    rep = compute_eval_report(suite_runs(), "acc", b=300, seed=5)
    pairs = {(p.model_a, p.model_b): p for p in rep.pairwise}
    assert list(pairs) == [("model-a", "model-b"), ("model-a", "model-c"), ("model-b", "model-c")]
    ab = pairs[("model-a", "model-b")]
    assert ab.n_tasks == 4 and ab.diff == pytest.approx(0.75 / 4, abs=1e-12)
    # Differences are 0, .25, .5, 0: the interval stays within [0, 0.5] and includes 0 only if
    # a resample drew no positive difference.
    assert 0.0 <= ab.ci_lo <= ab.diff <= ab.ci_hi <= 0.5
    ac = pairs[("model-a", "model-c")]
    assert ac.n_tasks == 3 and ac.diff == pytest.approx((0.75 + 0.25 + 0) / 3, abs=1e-12)
    bc = pairs[("model-b", "model-c")]
    assert bc.n_tasks == 3 and bc.diff == pytest.approx(0.75 / 3, abs=1e-12)
    md = render_pairwise_markdown(rep.pairwise)
    assert md.splitlines()[2].startswith("| model-a | model-b | +0.19 |")


def test_pairwise_constant_difference_is_significant_and_identical_models_tie():
    suite = {
        "up": {f"t{i}": 0.2 + 0.05 * (i % 5) + 0.1 for i in range(20)},
        "base": {f"t{i}": 0.2 + 0.05 * (i % 5) for i in range(20)},
        "twin": {f"t{i}": 0.2 + 0.05 * (i % 5) for i in range(20)},
    }
    rep = compute_eval_report(suite_runs(suite), "acc", b=200, seed=0)
    pairs = {(p.model_a, p.model_b): p for p in rep.pairwise}
    up_base = pairs[("up", "base")]
    assert up_base.diff == pytest.approx(0.1, abs=1e-12)
    assert up_base.ci_lo == pytest.approx(0.1, abs=1e-12) and up_base.ci_hi == pytest.approx(0.1, abs=1e-12)
    assert up_base.significant
    twins = pairs[("base", "twin")]
    assert (twins.diff, twins.ci_lo, twins.ci_hi, twins.significant) == (0.0, 0.0, 0.0, False)


def test_pairwise_without_common_tasks():
    suite = {"x": {"t1": 0.5, "t2": 0.7}, "y": {"t3": 0.1}}
    rep = compute_eval_report(suite_runs(suite), "acc", b=50)
    (p,) = rep.pairwise
    got = (p.model_a, p.model_b, p.diff, p.ci_lo, p.ci_hi, p.n_tasks, p.significant)
    assert got == ("x", "y", None, None, None, 0, False)
    assert rep.rows[1].win_rate == 1.0  # y wins its only task, no rival there


def test_pairwise_partial_overlap_uses_common_tasks_only():
    suite = {"x": {"t1": 0.9, "t2": 0.8, "t3": 0.0}, "y": {"t1": 0.4, "t2": 0.3}}
    rep = compute_eval_report(suite_runs(suite), "acc", b=100, seed=2)
    (p,) = rep.pairwise
    assert p.n_tasks == 2 and p.diff == pytest.approx(0.5) and p.ci_lo == pytest.approx(0.5)
    assert p.ci_hi == pytest.approx(0.5) and p.significant


def test_win_rate_helper_edge_cases():
    scores = np.array([[0.5, 0.0], [0.5, 0.0]])
    mask = np.array([[True, True], [True, False]])
    # Task 0: two-way tie; task 1: model 0 alone (0.0 is still the top score).
    assert compute_win_rates(scores, mask).tolist() == [0.75, 0.5]
    assert compute_win_rates(scores, mask, np.array([3.0, 1.0])).tolist() == [2.5 / 4, 0.5]


def test_weighted_means_and_win_rates():
    w = {"t1": 3.0, "t2": 1.0, "t3": 1.0, "t4": 1.0}
    suite = {"p": {"t1": 1.0, "t2": 0.0}, "q": {"t1": 0.0, "t2": 1.0}}
    plain = compute_eval_report(suite_runs(suite, weights=w), "acc", b=50)
    assert [r.mean_score for r in plain.rows] == [0.5, 0.5]
    rep = compute_eval_report(suite_runs(suite, weights=w), "acc", b=50, weighted=True)
    rows = {r.model_id: r for r in rep.rows}
    assert rows["p"].mean_score == pytest.approx(0.75) and rows["q"].mean_score == pytest.approx(0.25)
    assert rows["p"].win_rate == pytest.approx(0.75) and rows["q"].win_rate == pytest.approx(0.25)
    assert rows["p"].categories == {"math": pytest.approx(0.75)}
    assert rep.rows[0].model_id == "p" and rep.weighted


def test_stratified_bootstrap_keeps_category_mix():
    # Category "hi" always scores 1, "lo" always 0: resampling within categories keeps the
    # mean fixed at the category mix, so the stratified CI has zero width.
    suite = {"m": {f"t{i}": 1.0 if i < 6 else 0.0 for i in range(10)}}
    cats = {f"t{i}": "hi" if i < 6 else "lo" for i in range(10)}
    runs = [EvalRun("m", t, "acc", s, cats[t]) for t, s in suite["m"].items()]
    strat = compute_eval_report(runs, "acc", b=200, seed=1, stratified=True).rows[0]
    assert (strat.mean_ci_lo, strat.mean_score, strat.mean_ci_hi) == (0.6, 0.6, 0.6)
    plain = compute_eval_report(runs, "acc", b=200, seed=1).rows[0]
    assert plain.mean_ci_hi - plain.mean_ci_lo > 0.3


def test_metrics_are_separate_boards_and_json_round_trips():
    runs = suite_runs(metric="acc") + suite_runs(metric="f1")
    reports = compute_eval_reports(runs, b=50, seed=1)
    assert [r.metric for r in reports] == ["acc", "f1"]
    doc = json.loads(json.dumps([r.to_json() for r in reports], allow_nan=False))
    assert doc[0]["rows"][0]["model_id"] == "model-a" and doc[0]["n_models"] == 3
    assert set(doc[0]["rows"][0]) == {"model_id", "mean_score", "mean_ci_lo", "mean_ci_hi", "win_rate",
                                      "tasks_completed", "categories"}
    assert set(doc[0]["pairwise"][0]) == {"model_a", "model_b", "diff", "ci_lo", "ci_hi", "n_tasks", "significant"}


def test_empty_metric_and_bad_parameters():
    rep = compute_eval_report([], "acc")
    assert rep.rows == () and rep.pairwise == () and rep.n_tasks == 0
    assert render_markdown(rep.rows).count("\n") == 2
    with pytest.raises(ValueError):
        compute_eval_report(suite_runs(), "acc", b=0)
    with pytest.raises(ValueError):
        compute_eval_report(suite_runs(), "acc", alpha=1.0)


@pytest.mark.parametrize("score", [1.5, float("nan"), True])
def test_records_built_in_code_are_held_to_the_score_contract(score):
    from builder.errors import UserError

    runs = [EvalRun("m", "t1", "acc", 0.5), EvalRun("m", "t2", "acc", score, origin="made.py: row 2")]
    with pytest.raises(UserError, match=r"made\.py: row 2: score must be a finite number in \[0, 1\]"):
        compute_eval_report(runs, "acc")
