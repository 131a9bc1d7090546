"""The bootstrap's refits in blocks of rounds, and the pieces that keep scipy and numpy.ma out
of a fit: every round equals a from-scratch Newton fit of its own multinomial draw, results
do not depend on workers or on how many rounds follow, the strong-connectivity check and the
whole-graph shortcut of ``analyse_graph`` agree with scipy, and ``nan_quantiles`` is
``np.nanquantile`` value for value."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
import scipy.sparse
from scipy.sparse.csgraph import connected_components

from builder.pairwise import bt
from builder.pairwise.bootstrap import block_rounds, bootstrap_bt, nan_quantiles
from builder.pairwise.bt import PairCounts, count_pairs, fit_bt
from builder.pairwise.graph import DENSE_NODES, strongly_connected
from builder.pairwise.sandwich import pair_weights, weighted_counts
from builder.pairwise.simulate import random_skills, simulate_battles


def _counts(n_models=20, n_battles=20_000, seed=4) -> PairCounts:
    sim = simulate_battles(random_skills(n_models, seed=seed), n_battles, seed=seed, tie_prob=0.1)
    return count_pairs(sim.to_battles())


def _draw(counts: PairCounts, ss: np.random.SeedSequence) -> PairCounts:
    """A round's multinomial draw of the pair-outcome cells, as the bootstrap makes it."""
    cells = np.stack([counts.wins_i, counts.wins_j, counts.ties], axis=1).ravel()
    nonzero = np.flatnonzero(cells)
    draw = np.zeros(cells.size)
    draw[nonzero] = np.random.default_rng(ss).multinomial(round(float(cells.sum())), cells[nonzero] / cells.sum())
    return PairCounts(counts.models, counts.i, counts.j, draw[0::3], draw[1::3], draw[2::3])


def _reference_round(counts: PairCounts, point: np.ndarray, ss: np.random.SeedSequence) -> np.ndarray:
    """One round the slow way: the same draw, a full Newton fit, centred on the point's mean."""
    ratings = fit_bt(_draw(counts, ss)).ratings
    return ratings - ratings.mean() + point.mean()


def _lost_an_edge(counts: PairCounts, drawn: PairCounts) -> bool:
    before = np.concatenate([counts.wins_i + counts.ties, counts.wins_j + counts.ties]) > 0
    after = np.concatenate([drawn.wins_i + drawn.ties, drawn.wins_j + drawn.ties]) > 0
    return bool((before & ~after).any())


def test_every_round_is_the_maximum_of_its_own_draw():
    counts = _counts()
    fit = fit_bt(counts)
    rounds = 70  # three blocks
    assert block_rounds(counts.i.size) < rounds
    bs = bootstrap_bt(counts, fit, rounds, seed=5, workers=1)
    children = np.random.SeedSequence(5).spawn(rounds)
    assert bs.degenerate_rounds == 0
    for r in (0, 1, 31, 32, 33, 69):
        assert np.max(np.abs(bs.samples[r] - _reference_round(counts, fit.ratings, children[r]))) < 1e-6


def test_a_reweighted_round_is_the_maximum_of_its_own_weighted_draw():
    """With pair weights, a round resamples the battles and then weights each pair's drawn
    counts by the point fit's weight: the full Newton fit of that weighted draw."""
    counts = _counts(n_models=15, n_battles=8_000, seed=9)
    weights = pair_weights(counts)
    assert np.ptp(weights) > 0  # pairs differ in size, so the weights matter
    fit = fit_bt(weighted_counts(counts, weights))
    rounds = 40
    bs = bootstrap_bt(counts, fit, rounds, seed=6, workers=1, pair_weights=weights)
    plain = bootstrap_bt(counts, fit, rounds, seed=6, workers=1)
    assert not np.allclose(bs.samples, plain.samples)
    children = np.random.SeedSequence(6).spawn(rounds)
    assert bs.degenerate_rounds == 0
    for r in (0, 1, 32, 39):
        ratings = fit_bt(weighted_counts(_draw(counts, children[r]), weights)).ratings
        expected = ratings - ratings.mean() + fit.ratings.mean()
        assert np.max(np.abs(bs.samples[r] - expected)) < 1e-6


def test_blocks_are_fixed_by_the_round_index_whatever_the_workers():
    counts = _counts(n_models=12, n_battles=6_000, seed=7)
    fit = fit_bt(counts)
    one = bootstrap_bt(counts, fit, 70, seed=3, workers=1)
    for workers in (2, 3):
        assert np.array_equal(one.samples, bootstrap_bt(counts, fit, 70, seed=3, workers=workers).samples)
    # the first rounds do not depend on how many follow
    size = block_rounds(counts.i.size)
    assert np.array_equal(one.samples[:size], bootstrap_bt(counts, fit, size, seed=3, workers=1).samples)


def test_rounds_that_lose_an_edge_are_checked_and_fitted_like_the_others():
    """Sparse pairs (a few battles each) lose edges in most rounds: a round still strongly
    connected is the full Newton fit of its draw; one that is not has some model without a
    finite rating."""
    counts = _counts(n_models=15, n_battles=300, seed=3)
    fit = fit_bt(counts)
    rounds = 40
    bs = bootstrap_bt(counts, fit, rounds, seed=2, workers=1)
    children = np.random.SeedSequence(2).spawn(rounds)
    kinds = {"same graph": 0, "lost an edge, still connected": 0, "degenerate": 0}
    for r in range(rounds):
        drawn = _draw(counts, children[r])
        try:
            ref = _reference_round(counts, fit.ratings, children[r])
        except bt.NoFiniteRating:
            assert not np.isfinite(bs.samples[r]).all()
            kinds["degenerate"] += 1
            continue
        assert np.max(np.abs(bs.samples[r] - ref)) < 1e-6
        kinds["lost an edge, still connected" if _lost_an_edge(counts, drawn) else "same graph"] += 1
    assert kinds["lost an edge, still connected"] > 0 and kinds["degenerate"] > 0, kinds
    assert bs.degenerate_rounds == kinds["degenerate"]


def _scipy_strong(n, src, dst) -> bool:
    g = scipy.sparse.coo_matrix((np.ones(src.size), (src, dst)), shape=(n, n)).tocsr()
    return int(connected_components(g, directed=True, connection="strong")[0]) == 1


@pytest.mark.parametrize("n", [1, 2, 3, 7, 40, 150])
def test_strong_connectivity_agrees_with_scipy(n):
    rng = np.random.default_rng(n)
    for _ in range(200):
        m = int(rng.integers(0, 4 * n + 1))
        src, dst = rng.integers(0, n, m), rng.integers(0, n, m)
        assert strongly_connected(n, src, dst) == _scipy_strong(n, src, dst)


def test_strong_connectivity_past_the_dense_size_uses_scipy():
    n = DENSE_NODES + 1
    ring = np.arange(n)
    assert strongly_connected(n, ring, (ring + 1) % n)
    assert not strongly_connected(n, ring[:-1], ring[1:])


@pytest.mark.parametrize("seed", range(6))
def test_the_whole_graph_shortcut_gives_the_structure_scipy_gives(monkeypatch, seed):
    counts = _counts(n_models=10, n_battles=int(np.random.default_rng(seed).integers(30, 400)), seed=seed)
    args = (counts.n_models, counts.i, counts.j, counts.wins_i, counts.wins_j, counts.ties)
    fast = bt.analyse_graph(*args)
    monkeypatch.setattr(bt, "_whole_graph_strongly_connected", lambda *a: None)
    slow = bt.analyse_graph(*args)
    assert len(fast.components) == len(slow.components) and len(fast.unrated) == len(slow.unrated)
    for a, b in zip(fast.components + fast.main, slow.components + slow.main, strict=True):
        assert np.array_equal(a, b)


def test_nan_quantiles_are_numpys_value_for_value():
    rng = np.random.default_rng(0)
    alpha = (1.0 - 0.95) / 2.0
    for _ in range(500):
        rounds, n = int(rng.integers(1, 80)), int(rng.integers(1, 7))
        x = np.round(rng.normal(1000.0, 30.0, (rounds, n)), int(rng.integers(0, 3)))
        x[rng.random((rounds, n)) < rng.random() * 0.5] = np.nan
        x[rng.random((rounds, n)) < 0.1] = 1e12
        x[rng.random((rounds, n)) < 0.1] = -1e12
        if rng.random() < 0.2:
            x[:, 0] = np.nan
        qs = [alpha, 0.5, 1.0 - alpha, float(rng.random())]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            want = np.nanquantile(x, qs, axis=0)
        for w, got in zip(want, nan_quantiles(x, qs), strict=True):
            assert np.array_equal(w, got, equal_nan=True)


def test_block_size_bounds_the_arrays():
    assert block_rounds(10) == 25 and block_rounds(100_000) == 10 and block_rounds(5_000_000) == 1
    assert math.isclose(block_rounds(11_139) * 11_139, 278_475)
    assert 100 % block_rounds(11_175) == 0  # 150 models: the usual 100 rounds in equal blocks
