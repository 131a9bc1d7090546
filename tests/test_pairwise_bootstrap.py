"""Bootstrap intervals: recovery of known skills, seeding, parallel = serial, the multinomial
shortcut against resampling battles, rank with uncertainty, and infinite bounds."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import spearmanr

from builder.pairwise.bootstrap import (
    bootstrap_bt,
    point_ranks,
    quantiles,
    ranks_with_uncertainty,
)
from builder.pairwise.bt import PairCounts, count_pairs, fit_bt
from builder.pairwise.scan import battles_from_columns
from builder.pairwise.simulate import random_skills, simulate_battles


def test_recovers_known_skills_with_calibrated_intervals():
    """20 models, 20k battles, three independent replicates: the fit ranks the models like
    the truth and the 95% intervals hold the true ratings (pooled over 60 models)."""
    inside = []
    for rep in range(3):
        sim = simulate_battles(random_skills(20, seed=rep), 20_000, seed=100 + rep, tie_prob=0.1)
        counts = count_pairs(sim.to_battles())
        fit = fit_bt(counts)
        truth = sim.skills - sim.skills.mean() + 1000.0  # the fit's gauge: mean 1000
        assert spearmanr(truth, fit.ratings).statistic >= 0.95
        bs = bootstrap_bt(counts, fit, 200, seed=rep)
        assert np.all(bs.lower <= fit.ratings) and np.all(fit.ratings <= bs.upper)
        inside += list((bs.lower <= truth) & (truth <= bs.upper))
    assert np.mean(inside) >= 0.90


def _small_counts(seed=3, n=3000):
    sim = simulate_battles(random_skills(6, seed=seed), n, seed=seed)
    return sim.to_battles(), count_pairs(sim.to_battles())


def test_seeded_and_independent_of_workers():
    _, counts = _small_counts()
    fit = fit_bt(counts)
    one = bootstrap_bt(counts, fit, 24, seed=9, workers=1)
    again = bootstrap_bt(counts, fit, 24, seed=9, workers=1)
    two = bootstrap_bt(counts, fit, 24, seed=9, workers=2)
    other = bootstrap_bt(counts, fit, 24, seed=10, workers=1)
    assert np.array_equal(one.samples, again.samples)
    assert np.array_equal(one.samples, two.samples)
    assert not np.array_equal(one.samples, other.samples)
    # every round keeps the point fit's centring
    assert np.allclose(one.samples.mean(axis=1), 1000.0)


def test_multinomial_counts_match_resampling_battles():
    battles, counts = _small_counts(seed=5, n=4000)
    fit = fit_bt(counts)
    ours = bootstrap_bt(counts, fit, 300, seed=1).samples.std(axis=0)
    rng = np.random.default_rng(2)
    theirs = np.array([fit_bt(count_pairs(battles, rng.integers(0, len(battles), len(battles)))).ratings
                       for _ in range(300)]).std(axis=0)
    assert np.allclose(ours, theirs, rtol=0.25)


def test_rank_with_uncertainty_formula():
    lower = np.array([1100.0, 1090.0, 1000.0, 995.0, 900.0])
    upper = np.array([1150.0, 1120.0, 1095.0, 1010.0, 990.0])
    comp = np.zeros(5, dtype=int)
    # model 2's upper 1095 < lower of model 0 (1100) only; model 4's upper 990 < lowers of 0, 1, 2, 3.
    assert ranks_with_uncertainty(lower, upper, comp, np.ones(5, bool)).tolist() == [1, 1, 2, 3, 5]
    assert point_ranks(np.array([3.0, 5.0, 4.0, np.nan]), np.array([0, 0, 0, -1])).tolist() == [3, 1, 2, 0]
    # ranks are counted within a component
    assert point_ranks(np.array([3.0, 5.0, 4.0, 1.0]), np.array([0, 0, 1, 1])).tolist() == [2, 1, 1, 2]


def test_quantiles_keep_infinite_bounds():
    s = np.zeros((100, 2))
    s[:, 0] = np.arange(100.0)
    s[:, 1] = np.arange(100.0)
    s[:10, 1] = -np.inf  # 10% of rounds put model 1 at -infinity
    lo, med, hi = quantiles(s, [0.025, 0.5, 0.975])
    assert lo[0] == pytest.approx(2.475) and lo[1] == -np.inf
    assert np.isfinite(med).all() and np.isfinite(hi).all()


def test_weak_model_gets_infinite_lower_bound_not_a_number_pulled_from_thin_air():
    rows = [("a", "b", "model_a")] * 30 + [("b", "a", "model_a")] * 25 + [("a", "c", "model_a")] * 30
    rows += [("c", "b", "model_a")] * 20 + [("b", "c", "model_a")] * 25
    rows += [("weak", "a", "model_b")] * 40 + [("weak", "b", "model_a")]  # one lucky win in 41
    a, b, w = zip(*rows, strict=True)
    counts = count_pairs(battles_from_columns(a, b, w))
    fit = fit_bt(counts)
    bs = bootstrap_bt(counts, fit, 200, seed=0)
    k = counts.models.index("weak")
    assert bs.degenerate_rounds > 10  # the single win is missing from ~37% of resamples
    assert bs.lower[k] == -np.inf and np.isfinite(bs.upper[k])
    others = [counts.models.index(m) for m in "abc"]
    assert np.isfinite(bs.lower[others]).all() and np.isfinite(bs.upper[others]).all()


def test_pair_counts_totals_and_per_model():
    counts = PairCounts(("a", "b", "c"), np.array([0, 1]), np.array([1, 2]), np.array([2.0, 1]),
                        np.array([1.0, 0]), np.array([1.0, 3]))
    battles, wins, ties = counts.per_model()
    assert battles.tolist() == [4, 8, 4] and wins.tolist() == [2, 2, 0] and ties.tolist() == [1, 4, 3]
    assert counts.n_battles == 8
