"""Calibration (z-fit) and a worked example (calibrate, family means, R) checked by hand, to 1e-9."""

from __future__ import annotations

import math
from datetime import date

import numpy as np
import pytest

from builder.records import Observation
from builder.scoring.calibrate import (
    Calibration,
    calibrate,
    compute_calibrated,
    fit_calibration,
    fit_calibrations,
)
from builder.scoring.families import Contribution, compute_family_means, compute_r
from builder.scoring.rank import display_score

TOL = 1e-9
TEXT = {"arena/text"}
ARENA = {"arena/text", "arena/coding"}


def obs(feed: str, ident: str, raw: float | None, *, release: str = "", selected: bool = True,
        excluded: str | None = None, model: str | None = None) -> Observation:
    source = feed.split("/")[0]
    return Observation(source=source, feed=feed, evaluator=source, model=model or ident, raw=raw,
                       date=date(2026, 1, 1), url="https://example.org", release=release,
                       identity=ident, selected=selected, excluded=excluded)


# --------------------------------------------------------------------------- a worked example by hand


def test_worked_example_by_hand():
    epoch = Calibration("epoch", "epoch/eci", "", 100, (), mu=145.4943925233645, sigma=14.841039851819973,
                        alpha=1415.5755747968187, beta=87.85980819204782, used=True, reason="")
    calibrated = calibrate(167.33, epoch)
    assert calibrated == pytest.approx(1544.843625001453, abs=TOL)

    def c(family: str, value: float) -> Contribution:
        return Contribution("claude-opus-5.5", family, "s", "s/f", "", family, "m", value, value)

    weights = {"reasoning": 0.50, "human_preference": 0.30, "terminal_work": 0.20}
    contributions = [c("reasoning", calibrated), c("reasoning", 1493.0178001358406),
                     c("human_preference", 1507.0758687407206), c("terminal_work", 1491.844345901992)]
    means = compute_family_means(contributions, weights)
    assert means["reasoning"] == pytest.approx(1518.9307125686469, abs=TOL)
    r = compute_r(means, weights)
    assert r == pytest.approx(1509.956986086938, abs=TOL)
    assert display_score(r) == 1510


# --------------------------------------------------------------------------- the fit


def numpy_fit(raw: np.ndarray, arena: np.ndarray) -> tuple[float, float, float, float]:
    mu, sigma, alpha = raw.mean(), raw.std(ddof=0), arena.mean()
    z = (raw - mu) / sigma
    return mu, sigma, alpha, float((z * (arena - alpha)).sum() / (z * z).sum())


def test_fit_matches_the_formula():
    rng = np.random.default_rng(7)
    raw = rng.normal(50, 10, 40)
    arena = 1300 + 4 * raw + rng.normal(0, 20, 40)
    fit = fit_calibration([(f"m{i}", x, a) for i, (x, a) in enumerate(zip(raw, arena, strict=True))])
    mu, sigma, alpha, beta = numpy_fit(raw, arena)
    assert fit.used and fit.n == 40 and len(fit.overlap) == 40
    for got, want in [(fit.mu, mu), (fit.sigma, sigma), (fit.alpha, alpha), (fit.beta, beta)]:
        assert got == pytest.approx(want, rel=1e-12)
    assert calibrate(61.0, fit) == pytest.approx(alpha + beta * (61.0 - mu) / sigma, rel=1e-12)


def test_perfectly_linear_feed_lands_on_arena_ratings():
    pairs = [(f"m{i}", 100.0 + i, 1300.0 + 10 * i) for i in range(12)]
    fit = fit_calibration(pairs)
    for _, x, a in pairs:
        assert calibrate(x, fit) == pytest.approx(a, abs=TOL)


def test_overlap_needs_ten_keys():
    pairs = [(f"m{i}", 100.0 + i, 1300.0 + 10 * i) for i in range(10)]
    assert fit_calibration(pairs).used
    nine = fit_calibration(pairs[:9])
    assert not nine.used and "overlap 9 < 10" in nine.reason
    assert calibrate(105.0, nine) is None
    assert nine.beta is not None and nine.beta > 0  # parameters still reported


def test_zero_sigma_is_not_used():
    fit = fit_calibration([(f"m{i}", 70.0, 1300.0 + i) for i in range(12)])
    assert not fit.used and fit.sigma == 0 and fit.beta is None and "sigma" in fit.reason


def test_negative_beta_is_not_used():
    fit = fit_calibration([(f"m{i}", 100.0 + i, 1400.0 - 10 * i) for i in range(12)])
    assert fit.beta < 0 and not fit.used and "beta" in fit.reason


def test_zero_beta_is_not_used():
    # Arena ratings constant: sum z (a - alpha) = 0 exactly.
    fit = fit_calibration([(f"m{i}", 100.0 + i, 1350.0) for i in range(12)])
    assert fit.beta == 0 and not fit.used


def test_empty_overlap():
    fit = fit_calibration([])
    assert fit.n == 0 and fit.mu is None and not fit.used


# --------------------------------------------------------------------------- overlap rules


def world(n: int = 12) -> list[Observation]:
    rows = [obs("arena/text", f"m{i:02}", 1300.0 + 10 * i) for i in range(n)]
    rows += [obs("epoch/eci", f"m{i:02}", 100.0 + i) for i in range(n)]
    return rows


def test_overlap_drops_excluded_unselected_and_unrated_keys():
    rows = world(12)
    rows += [
        obs("epoch/eci", "m00", 999.0, excluded="score is not finite"),  # excluded
        obs("epoch/eci", "m01", 999.0, selected=False),  # an unselected configuration
        obs("epoch/eci", "lonely", 120.0),  # no Arena text rating
        obs("arena/text", "m02", 1.0, excluded="bad"),  # an excluded Arena rating is no anchor
    ]
    (fit,) = fit_calibrations(rows, TEXT, ARENA)
    assert fit.n == 12 and "lonely" not in fit.overlap
    assert fit.mu == pytest.approx(105.5) and fit.used


def test_duplicate_keys_count_once():
    rows = world(9) + [obs("epoch/eci", "m08", 108.0, model="m08-high")]
    (fit,) = fit_calibrations(rows, TEXT, ARENA)
    assert fit.n == 9 and fit.overlap == tuple(sorted(set(fit.overlap))) and not fit.used


def test_each_release_fits_separately_and_arena_feeds_stay_unchanged():
    rows = world(12)
    rows += [obs("livebench/global", f"m{i:02}", 40.0 + 2 * i, release="2026-01-08") for i in range(12)]
    rows += [obs("livebench/global", f"m{i:02}", 30.0 + i, release="2025-12-23") for i in range(5)]
    rows += [obs("arena/coding", "m03", 1444.0)]
    fits = fit_calibrations(rows, TEXT, ARENA)
    keys = [(f.feed, f.release, f.used) for f in fits]
    assert keys == [("epoch/eci", "", True), ("livebench/global", "2025-12-23", False),
                    ("livebench/global", "2026-01-08", True)]
    values = compute_calibrated(rows, fits, ARENA)
    by = {(o.feed, o.release, o.identity): v for o, v in zip(rows, values, strict=True)}
    assert by[("arena/coding", "", "m03")] == 1444.0
    assert by[("arena/text", "", "m05")] == 1350.0
    assert by[("livebench/global", "2026-01-08", "m05")] == pytest.approx(1350.0, abs=TOL)
    assert by[("livebench/global", "2025-12-23", "m01")] is None  # its fit has 5 keys


def test_no_clipping_outside_the_overlap_range():
    fits = fit_calibrations(world(12) + [obs("epoch/eci", "future", 200.0)], TEXT, ARENA)
    values = compute_calibrated([obs("epoch/eci", "future", 200.0)], fits, ARENA)
    assert values[0] == pytest.approx(1300.0 + 10 * 100.0, abs=1e-6)
    assert math.isfinite(values[0])
