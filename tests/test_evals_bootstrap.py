"""The task bootstrap: zero width, repeatability, coverage, the loop reference, strata."""

from __future__ import annotations

import numpy as np
import pytest

from builder.evals.aggregate import compute_eval_report
from builder.evals.bootstrap import (
    bootstrap_mean_ci,
    bootstrap_mean_cis,
    bootstrap_means,
    bootstrap_means_loop,
    bootstrap_pairwise_diff,
    draw_counts,
    percentile_ci,
)
from builder.evals.records import EvalRun


@pytest.mark.parametrize("value", [0.0, 0.3, 0.7, 1.0])
def test_constant_scores_give_zero_width(value):
    lo, hi = bootstrap_mean_ci(np.full(37, value), seed=9)
    assert lo == hi == value
    diff, dlo, dhi = bootstrap_pairwise_diff(np.full(10, value), np.full(10, value))
    assert diff == dlo == dhi == 0.0


def test_two_task_interval_is_known():
    # Means of 2 draws from {0, 1} are 0, 1/2, 1 with probabilities 1/4, 1/2, 1/4: with 1,000
    # rounds both tails hold far more than 2.5% of the rounds.
    assert bootstrap_mean_ci(np.array([0.0, 1.0]), seed=1) == (0.0, 1.0)


def test_fixed_seed_repeats_and_seed_matters():
    rng = np.random.default_rng(0)
    x = rng.random(60)
    assert bootstrap_mean_ci(x, seed=4) == bootstrap_mean_ci(x, seed=4)
    assert bootstrap_mean_ci(x, seed=4) != bootstrap_mean_ci(x, seed=5)
    runs = [EvalRun(m, f"t{i}", "acc", float(s)) for m in "abc" for i, s in enumerate(rng.random(30))]
    assert compute_eval_report(runs, "acc", seed=11) == compute_eval_report(runs, "acc", seed=11)
    assert compute_eval_report(runs, "acc", seed=11) != compute_eval_report(runs, "acc", seed=12)


def test_default_rounds_low_level_1000_aggregator_500():
    assert bootstrap_mean_ci.__kwdefaults__["b"] == 1000
    assert bootstrap_pairwise_diff.__kwdefaults__["b"] == 1000
    assert compute_eval_report.__kwdefaults__["b"] == 500
    assert compute_eval_report([EvalRun("m", "t", "acc", 0.5)], "acc").bootstrap == 500


def test_vectorised_matches_python_loop_reference():
    rng = np.random.default_rng(3)
    scores = rng.random((7, 45))
    weights = rng.uniform(0.5, 2.0, 45)
    fast = bootstrap_means(scores, b=120, rng=np.random.default_rng(8), weights=weights)
    slow = bootstrap_means_loop(scores, b=120, rng=np.random.default_rng(8), weights=weights)
    np.testing.assert_allclose(fast, slow, rtol=0, atol=1e-12)


def test_counts_and_strata():
    rng = np.random.default_rng(0)
    c = draw_counts(rng, 12, 50)
    assert c.shape == (50, 12) and (c.sum(axis=1) == 12).all()
    strata = np.array(["a"] * 3 + ["b"] * 9)
    c = draw_counts(rng, 12, 50, strata)
    assert (c[:, :3].sum(axis=1) == 3).all() and (c[:, 3:].sum(axis=1) == 9).all()


def test_interval_matches_quantiles_of_means():
    x = np.linspace(0, 1, 25)
    lo, hi = bootstrap_mean_ci(x, b=400, alpha=0.1, seed=2)
    means = bootstrap_means(x[None, :], b=400, rng=np.random.default_rng(2))[:, 0]
    assert (lo, hi) == (np.quantile(means, 0.05), np.quantile(means, 0.95))
    with pytest.raises(ValueError):
        percentile_ci(means, 0.0)


def test_coverage_of_a_large_synthetic_suite():
    # 400 independent suites of 300 tasks with Beta(2, 3) scores (true mean 0.4): the 95%
    # percentile intervals should cover 0.4 in about 95% of suites (binomial sd ~1.1%).
    rng = np.random.default_rng(2026)
    scores = rng.beta(2.0, 3.0, size=(400, 300))
    lo, hi = bootstrap_mean_cis(scores, b=1000, alpha=0.05, seed=7)
    coverage = float(((lo <= 0.4) & (0.4 <= hi)).mean())
    assert 0.92 <= coverage <= 0.98, coverage
    # The width matches the normal-theory width 2 * 1.96 * sd / sqrt(n).
    expected = 2 * 1.96 * np.sqrt(0.04) / np.sqrt(300)  # Beta(2, 3) variance = 6 / 150 = 0.04
    assert float(np.mean(hi - lo)) == pytest.approx(expected, rel=0.05)


def test_coverage_through_the_aggregator():
    # The same property end to end: 150 models x 200 binary tasks with pass rate 0.3.
    rng = np.random.default_rng(99)
    wins = rng.random((150, 200)) < 0.3
    runs = [EvalRun(f"m{i:03d}", f"t{j:03d}", "pass", float(wins[i, j])) for i in range(150) for j in range(200)]
    rep = compute_eval_report(runs, "pass", b=500, seed=1)
    covered = np.mean([r.mean_ci_lo <= 0.3 <= r.mean_ci_hi for r in rep.rows])
    assert 0.90 <= covered <= 0.99, covered
