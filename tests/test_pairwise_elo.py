"""Online Elo: the compiled loop reproduces the plain Python loop exactly."""

from __future__ import annotations

import numpy as np
import pytest

from builder.pairwise.battles import OUTCOMES, battles_from_columns
from builder.pairwise.elo import (
    bootstrap_elo,
    fit_online_elo,
    online_elo_python,
    run_elo_codes,
)
from builder.pairwise.simulate import random_skills, simulate_battles


def _names(b):
    return ([b.models[k] for k in b.model_a], [b.models[k] for k in b.model_b], [OUTCOMES[o] for o in b.outcome])


def test_identical_to_plain_python_loop():
    sim = simulate_battles(random_skills(25, seed=2), 20_000, seed=4, tie_prob=0.15, bothbad_share=0.5)
    b = sim.to_battles()
    assert {int(o) for o in b.outcome} == {0, 1, 2, 3}
    ours = fit_online_elo(b, k=4.0)
    ref = online_elo_python(*_names(b), k=4.0)
    assert set(ref) == set(b.models)
    for idx, m in enumerate(b.models):
        rating, matches, wins, ties = ref[m]
        assert ours.ratings[idx] == rating  # bit for bit
        assert (ours.matches[idx], ours.wins[idx], ours.ties[idx]) == (matches, wins, ties)
    assert ours.matches.sum() == 2 * len(b)
    assert ours.wins.sum() + ours.ties.sum() / 2 == len(b)


def test_first_updates_by_hand():
    b = battles_from_columns(["a", "a"], ["b", "b"], ["model_a", "tie"])
    r = fit_online_elo(b, k=4.0)
    # 1000 v 1000: expected 0.5, A wins -> +2 / -2; then a tie at 1002 v 998.
    e = 1 / (1 + 10 ** ((998 - 1002) / 400))
    assert r.ratings[0] == pytest.approx(1002 + 4 * (0.5 - e), abs=1e-12)
    assert r.ratings[1] == pytest.approx(998 - 4 * (0.5 - e), abs=1e-12)
    assert r.wins.tolist() == [1, 0] and r.ties.tolist() == [1, 1] and r.matches.tolist() == [2, 2]


def test_chronological_order_and_snapshots():
    sim = simulate_battles(random_skills(8, seed=1), 3000, seed=2)
    b = sim.to_battles()
    perm = np.random.default_rng(0).permutation(len(b))
    shuffled = b.take(perm)
    assert np.array_equal(fit_online_elo(shuffled).ratings, fit_online_elo(b).ratings)
    assert not np.array_equal(fit_online_elo(shuffled, chronological=False).ratings, fit_online_elo(b).ratings)
    marks = np.array([0, 10, 10, 1500, 3000])
    snaps = run_elo_codes(b.models, b.model_a, b.model_b, b.outcome, marks=marks).snapshots
    assert np.all(snaps[0] == 1000.0)
    for k, m in enumerate(marks):
        prefix = run_elo_codes(b.models, b.model_a[:m], b.model_b[:m], b.outcome[:m]).ratings
        assert np.array_equal(snaps[k], prefix)


def test_bootstrap_elo_is_seeded():
    b = simulate_battles(random_skills(5, seed=1), 500, seed=2).to_battles()
    s1 = bootstrap_elo(b, 5, seed=3)
    assert s1.shape == (5, 5) and np.array_equal(s1, bootstrap_elo(b, 5, seed=3))
    assert not np.array_equal(s1, bootstrap_elo(b, 5, seed=4))
