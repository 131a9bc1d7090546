"""Win-rate matrices and cumulative history slices (checked against refitting each prefix)."""

from __future__ import annotations

import datetime as dt

import numpy as np
import pytest

from builder.errors import UserError
from builder.pairwise.bt import PairCounts, count_pairs, fit_bt
from builder.pairwise.elo import run_elo_codes
from builder.pairwise.history import compute_history, period_index, period_last_day
from builder.pairwise.scan import battles_from_columns
from builder.pairwise.simulate import random_skills, simulate_battles
from builder.pairwise.winrate import (
    compute_empirical_winrates,
    compute_predicted_winrates,
    compute_winrate_mae,
)


def test_predicted_winrates():
    p = compute_predicted_winrates(np.array([1400.0, 1000.0, 1000.0]))
    assert p[0, 1] == pytest.approx(10 / 11) and p[1, 0] == pytest.approx(1 / 11)
    assert p[1, 2] == pytest.approx(0.5)
    assert np.isnan(np.diag(p)).all()
    off = ~np.eye(3, dtype=bool)
    assert np.allclose((p + p.T)[off], 1.0)


def test_empirical_winrates_and_mae():
    counts = PairCounts(("a", "b", "c"), np.array([0, 0]), np.array([1, 2]),
                        np.array([30.0, 1]), np.array([10.0, 0]), np.array([20.0, 0]))
    rates, n = compute_empirical_winrates(counts)
    assert rates[0, 1] == pytest.approx(40 / 60) and rates[1, 0] == pytest.approx(20 / 60)
    assert rates[0, 2] == 1.0 and np.isnan(rates[1, 2]) and np.isnan(rates[0, 0])
    assert n[0, 1] == 60 and n[2, 0] == 1 and n[1, 2] == 0
    pred = compute_predicted_winrates(np.array([1100.0, 1000.0, 900.0]))
    mae, used = compute_winrate_mae(pred, rates, n, min_battles=50)
    assert used == 1 and mae == pytest.approx(abs(pred[0, 1] - 40 / 60))
    assert compute_winrate_mae(pred, rates, n, min_battles=100) == (None, 0)
    sub, nsub = compute_empirical_winrates(counts, [2, 0])
    assert sub[1, 0] == 1.0 and nsub[0, 1] == 1


def test_period_boundaries():
    t = np.array([dt.datetime(2026, 5, d, 12, tzinfo=dt.UTC).timestamp() for d in (3, 4, 10, 11)])
    weeks = period_index(t, "week")  # 2026-05-03 is a Sunday, 05-04 a Monday
    assert weeks[0] != weeks[1] and weeks[1] == weeks[2] and weeks[2] != weeks[3]
    assert period_last_day(int(weeks[0]), "week") == dt.date(2026, 5, 3)
    assert period_last_day(int(weeks[1]), "week") == dt.date(2026, 5, 10)
    assert period_last_day(int(period_index(t, "month")[0]), "month") == dt.date(2026, 5, 31)
    assert period_last_day(int(period_index(t, "day")[1]), "day") == dt.date(2026, 5, 4)


@pytest.fixture(scope="module")
def sim():
    return simulate_battles(random_skills(12, seed=5), 6000, seed=6, start=dt.date(2026, 5, 1),
                            end=dt.date(2026, 7, 15), debut_spread=0.5)


@pytest.mark.parametrize("period", ["week", "month"])
def test_cumulative_slices_equal_refitting_each_prefix(sim, period):
    b = sim.to_battles()
    hist = compute_history(b, period, workers=1)
    days = [s.date for s in hist.slices]
    assert days == sorted(days) and days[-1] == dt.date(2026, 7, 15)
    assert hist.slices[-1].n_battles == len(b)
    for s in hist.slices:
        end = dt.datetime(s.date.year, s.date.month, s.date.day, tzinfo=dt.UTC).timestamp() + 86_400
        rows = np.flatnonzero(b.tstamp < end)
        assert rows.size == s.n_battles
        ref = fit_bt(count_pairs(b, rows), on_unidentifiable="drop")
        assert np.allclose(s.ratings, ref.ratings, atol=1e-6, equal_nan=True)
        elo = run_elo_codes(b.models, b.model_a[rows], b.model_b[rows], b.outcome[rows]).ratings
        played = np.isin(np.arange(len(b.models)), np.concatenate([b.model_a[rows], b.model_b[rows]]))
        assert np.array_equal(s.elo[played], elo[played]) and np.isnan(s.elo[~played]).all()
    # models enter the race over time
    rated = [int(np.isfinite(s.ratings).sum()) for s in hist.slices]
    assert rated[0] < rated[-1] == 12


def test_parallel_slices_with_intervals_equal_serial(sim):
    b = sim.to_battles()
    serial = compute_history(b, "week", bootstrap=20, seed=3, workers=1)
    parallel = compute_history(b, "week", bootstrap=20, seed=3, workers=2)
    assert len(serial.slices) == len(parallel.slices) > 5
    for s, p in zip(serial.slices, parallel.slices, strict=True):
        assert s.date == p.date
        for col in ("ratings", "lower", "upper", "ranks"):
            assert np.array_equal(getattr(s, col), getattr(p, col), equal_nan=True)
    last = serial.slices[-1]
    assert np.all(last.lower <= last.ratings) and np.all(last.ratings <= last.upper)


def test_history_needs_timestamps():
    b = battles_from_columns(["a", "b"], ["b", "a"], ["model_a", "model_a"])
    with pytest.raises(UserError, match="history needs timestamps"):
        compute_history(b, "week")
