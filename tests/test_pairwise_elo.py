"""Online Elo: the compiled loop reproduces the plain Python loop exactly."""

from __future__ import annotations

import numpy as np
import pytest

from builder.pairwise import elo
from builder.pairwise.battles import OUTCOMES
from builder.pairwise.elo import (
    bootstrap_elo,
    fit_online_elo,
    online_elo_python,
    run_elo_codes,
)
from builder.pairwise.scan import battles_from_columns
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


@pytest.mark.parametrize("threaded", [False, True], ids=["inline", "side-thread"])
def test_side_work_on_either_thread_gives_the_same_result(monkeypatch, threaded):
    """Large inputs count and check time order on a second thread while the chain runs on
    the file order; out of order, the chain runs again sorted. Both paths, same answer."""

    b = simulate_battles(random_skills(12, seed=5), 5000, seed=6, tie_prob=0.2).to_battles()
    shuffled = b.take(np.random.default_rng(1).permutation(len(b)))
    assert b.in_time_order() and not shuffled.in_time_order()
    want = fit_online_elo(b)
    monkeypatch.setattr(elo, "_THREAD_MIN", 0 if threaded else 10**12)
    for battles in (b, shuffled):
        got = fit_online_elo(battles)
        for field in ("ratings", "matches", "wins", "ties"):
            assert np.array_equal(getattr(got, field), getattr(want, field)), field
    bare = run_elo_codes(b.models, b.model_a, b.model_b, b.outcome, counts=False)
    assert np.array_equal(bare.ratings, want.ratings) and bare.matches.size == 0


def test_side_thread_errors_reach_the_caller(monkeypatch):

    def broken(*args):
        raise RuntimeError("counting failed")

    b = simulate_battles(random_skills(4, seed=1), 200, seed=2).to_battles()
    monkeypatch.setattr(elo, "_THREAD_MIN", 0)
    monkeypatch.setattr(elo, "_elo_counts", broken)
    with pytest.raises(RuntimeError, match="counting failed"):
        fit_online_elo(b)


def test_codes_and_marks_are_checked_before_the_unchecked_loop():
    models = ("a", "b")
    ok_a, ok_b, ok_o = np.array([0, 1], np.int32), np.array([1, 0], np.int32), np.array([0, 2], np.int8)
    with pytest.raises(ValueError, match="out of range"):
        run_elo_codes(models, np.array([0, 2], np.int32), ok_b, ok_o)
    with pytest.raises(ValueError, match="out of range"):
        run_elo_codes(models, ok_a, np.array([-1, 0], np.int32), ok_o)  # negative: huge unsigned
    with pytest.raises(ValueError, match="out of range"):
        run_elo_codes(models, ok_a, ok_b, np.array([0, 4], np.int8))
    with pytest.raises(ValueError, match="differ in shape"):
        run_elo_codes(models, ok_a, ok_b[:1], ok_o)
    for marks in ([3], [-1], [2, 1]):
        with pytest.raises(ValueError, match="marks"):
            run_elo_codes(models, ok_a, ok_b, ok_o, marks=np.array(marks))
    empty = run_elo_codes(models, ok_a[:0], ok_b[:0], ok_o[:0], marks=np.array([0]))
    assert empty.ratings.tolist() == [1000.0, 1000.0] and empty.snapshots.tolist() == [[1000.0, 1000.0]]
