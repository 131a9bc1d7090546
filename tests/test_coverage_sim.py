"""The coverage simulator draws what it says: on a large draw the published z-fit, the
measured noise and the measured shared share come back to the generating values, and a
run scores its intervals against the documented truth (true R = q, true rank of q)."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest

from builder.pairwise.coverage import run_arena_once
from builder.scoring.simulate_coverage import (
    CoverageShape,
    FeedShape,
    ModelShape,
    Scenario,
    draw_sources,
    measure_shape,
    run_board_once,
    shared_share_from_corr,
    simulate_board,
)
from builder.snapshot import models as snap

Q_MEAN, Q_SD = 1300.0, 100.0
NOISE = {"bench-a/score": 40.0, "bench-b/score": 70.0}
WEIGHTS = {"preference": 0.3, "reasoning": 0.7}
FAMILIES = {"preference": ("arena/text",), "reasoning": ("bench-a/score", "bench-b/score")}


def big_shape(n: int = 4000, seed: int = 3) -> CoverageShape:
    rng = np.random.default_rng(seed)
    q = rng.normal(Q_MEAN, Q_SD, n)
    feeds = (FeedShape("arena/text", "arena", "arena", True),
             FeedShape("bench-a/score", "bench-a", "bench-a", False, NOISE["bench-a/score"], 60.0, 12.0, Q_MEAN, 120.0),
             FeedShape("bench-b/score", "bench-b", "bench-b", False, NOISE["bench-b/score"], 0.4, 0.1, Q_MEAN, 120.0))
    models = tuple(ModelShape(f"m{i:05d}", float(q[i]), ("arena/text", "bench-a/score", "bench-b/score"),
                              (("arena/text", 3.0),)) for i in range(n))
    return CoverageShape("board", WEIGHTS, FAMILIES, "arena/text", feeds, models)


def as_observations(values: list[tuple[str, str, float, float | None]], shape: CoverageShape) -> list[snap.Observation]:
    feed_of = {f.feed: f for f in shape.feeds}
    out = []
    for ident, feed, raw, sd in values:
        details = {"rating_q025": raw - 1.96 * sd, "rating_q975": raw + 1.96 * sd} if sd is not None else {}
        out.append(snap.Observation(source=feed_of[feed].source, feed=feed, evaluator=feed_of[feed].evaluator,
                                    model=ident, identity=ident, raw=raw, calibrated=raw, date=None, url=None,
                                    release="", selected=True, reason="", excluded=None, details=details))
    return out


@pytest.fixture(scope="module")
def draw():
    shape = big_shape()
    k = 0.4
    sim = simulate_board(shape, Scenario("test", k, 0.0), seed=11)
    return shape, k, sim


def test_the_published_fit_recovers_the_generating_calibration(draw):
    shape, _, sim = draw
    q = np.array([m.quality for m in shape.models])
    qv = float(q.var())
    for c in sim.calibrations:
        f = next(x for x in shape.feeds if x.feed == c.feed)
        e = f.noise_sd**2
        assert c.used and c.n == len(shape.models)
        # alpha: mean Arena rating; beta: cov(z, Arena) = Q / sqrt(Q + E); raw mean and sd by construction
        assert c.alpha == pytest.approx(q.mean(), abs=1.0)
        assert c.beta == pytest.approx(qv / math.sqrt(qv + e), rel=0.04)
        assert c.mu == pytest.approx(f.mu + f.sigma * (q.mean() - f.centre) / f.spread, abs=0.05 * f.sigma)
        assert c.sigma == pytest.approx(f.sigma * math.sqrt(qv + e) / f.spread, rel=0.04)


def test_measuring_the_draw_recovers_noise_and_shared_share(draw):
    shape, k, sim = draw
    values = draw_sources(shape, Scenario("test", k, 0.0), np.random.default_rng(11))
    obs = as_observations(values, shape)
    measured = measure_shape(obs, sim.calibrations, "board", WEIGHTS, FAMILIES, {"arena/text"}, "arena/text")
    for f in measured.feeds:
        if not f.arena:
            assert f.noise_sd == pytest.approx(NOISE[f.feed], rel=0.08), f.feed
    assert measured.shared_share == pytest.approx(k, abs=0.08)
    text = {ident: raw for ident, feed, raw, _ in values if feed == "arena/text"}
    assert all(m.quality == text[m.identity] for m in measured.models)  # q = the (drawn) Arena text rating
    assert measured.models[0].arena_sd == (("arena/text", pytest.approx(3.0)),)


def test_shared_share_inverts_its_own_formula():
    q, e1, e2, k = 100.0**2, 40.0**2, 70.0**2, 0.3
    b1, b2 = q / (q + e1), q / (q + e2)
    cov = (1 - b1) * (1 - b2) * q + b1 * b2 * k * math.sqrt(e1 * e2)
    corr = cov / math.sqrt(((1 - b1) ** 2 * q + b1**2 * e1) * ((1 - b2) ** 2 * q + b2**2 * e2))
    assert shared_share_from_corr(corr, q, e1, e2) == pytest.approx(k)


def test_a_run_scores_against_the_documented_truth():
    shape = big_shape(n=60, seed=5)
    sim = simulate_board(shape, Scenario("independent", 0.0, 0.0), seed=2)
    best = max(sim.rows.ranked, key=lambda i: sim.truth[i])
    assert sim.true_rank[best] == 1 and sim.truth == {m.identity: m.quality for m in shape.models}
    run = run_board_once(shape, Scenario("independent", 0.0, 0.0), seed=2, rounds=200)
    assert run.ranked == 60 and len(run.r_hits) == 60 and len(run.top_hits) == 10
    assert 0.8 <= sum(run.r_hits) / 60 <= 1.0


def test_a_run_scores_each_tie_group_separation_against_the_truth():
    # A board whose models stand far apart: every group is one model, every claim that a
    # leader trails the one before is checked against the true qualities, and holds.
    spread = tuple(ModelShape(f"m{i:02d}", 2000.0 - 250.0 * i, ("arena/text", "bench-a/score", "bench-b/score"),
                              (("arena/text", 3.0),)) for i in range(12))
    shape = dataclasses.replace(big_shape(n=1), models=spread)
    run = run_board_once(shape, Scenario("independent", 0.0, 0.0), seed=4, rounds=200)
    assert run.largest_tie_group == 1 and len(run.separations) == 11 and all(run.separations)
    # Models of one quality: any separation the rule claims is wrong by the truth (a tie is not an order).
    same = tuple(dataclasses.replace(m, quality=1300.0) for m in big_shape(n=40, seed=6).models)
    flat = run_board_once(dataclasses.replace(big_shape(n=1), models=same), Scenario("independent", 0.0, 0.0),
                          seed=4, rounds=200)
    assert flat.ranked == 40 and not any(flat.separations)


def test_the_arena_study_scores_rated_models():
    run = run_arena_once(12, 4000, seed=1, rounds=50)
    assert len(run.bootstrap_hits) == len(run.sandwich_hits) == 12
    assert sum(run.sandwich_hits) >= 9 and sum(run.bootstrap_hits) >= 9


def test_the_method_changelog_records_the_change_of_residual_draws():
    from pathlib import Path

    from builder.render.pages.archive import method_changelog
    from builder.snapshot.load import load_snapshot

    old = load_snapshot(sorted((Path(__file__).resolve().parents[1] / "snapshots").glob("*.json"))[0])
    assert old.uncertainty is not None and old.uncertainty.rounds
    before = old.model_copy(update={"uncertainty": old.uncertainty.model_copy(
        update={"residual_draws": None, "residual_share": None})})
    after = old.model_copy(update={"date": "2026-12-09", "uncertainty": old.uncertainty.model_copy(
        update={"residual_draws": "model", "residual_share": 0.85})})
    changes = [c for e in method_changelog([before, after]) for c in e["changes"]]
    line = next(c for c in changes if c.startswith("2026-12-09: board intervals"))
    assert "one residual quantile per model" in line and "was one residual per calibrated score" in line
    assert not [c for e in method_changelog([after, after]) for c in e["changes"] if "board intervals" in c]
    # and from one level of sharing to two (by model and by source)
    two = old.model_copy(update={"date": "2026-12-16", "uncertainty": old.uncertainty.model_copy(
        update={"residual_draws": "source", "residual_share": 0.74, "residual_share_source": 0.44})})
    changes = [c for e in method_changelog([after, two]) for c in e["changes"]]
    line = next(c for c in changes if c.startswith("2026-12-16: board intervals"))
    assert "by one publisher's scores" in line and "(was one residual quantile per model and round" in line


def test_the_bootstrap_measures_the_agreement_of_residuals(draw):
    """c, the share of rounds in which a model's scores share one residual quantile, is the
    correlation of the two fits' residuals over their common overlap (one pair here)."""
    from builder.scoring.uncertainty import compute_bootstrap_problem

    shape, _, sim = draw
    problem = compute_bootstrap_problem(list(sim.observations), list(sim.calibrations), {"arena/text"},
                                        {"arena/text"}, shape.families, [sim.rows])
    a, b = problem.fits
    assert a.overlap == b.overlap
    assert problem.residual_share == pytest.approx(float(np.corrcoef(a.residuals, b.residuals)[0, 1]), abs=1e-9)
    assert 0.3 < problem.residual_share < 0.95
    # two uniforms per model, two per (model, source) and one per score on top of the resamples
    # and the Arena draws
    assert problem.draws_per_round == (len(problem.arena) + sum(len(f.overlap) + len(f.scored_slots)
                                                                for f in problem.fits)
                                       + 2 * len(problem.models) + 2 * len(problem.sources))
    assert problem.sources == tuple(sorted({(i, f.source) for f in problem.fits for i in problem.models
                                            if problem.models.index(i) in f.scored_models}))


def _fit(source: str, feed: str, residuals: list[float]):
    from builder.scoring.uncertainty import FitInput

    keys = tuple(f"m{i:03d}" for i in range(len(residuals)))
    return FitInput(source, feed, "", 0.0, 1.0, 0.0, 1.0, keys, tuple(0.0 for _ in keys), tuple(0 for _ in keys),
                    tuple(residuals), (), ())


def test_residual_agreement_is_measured_across_publishers_and_within_one():
    """c comes from pairs of fits of different sources; s tops it up to the agreement of one
    source's categories: c + (1 - c) s is their median correlation."""
    from builder.scoring.uncertainty import _pearson, compute_residual_shares

    rng = np.random.default_rng(8)
    model, pub, own = rng.normal(size=(3, 3, 200))
    lb_a = list(0.6 * model[0] + 0.6 * pub[0] + 0.5 * own[0])
    lb_b = list(0.6 * model[0] + 0.6 * pub[0] + 0.5 * own[1])
    other = list(0.6 * model[0] + 0.8 * own[2])
    fits = [_fit("aider", "aider/polyglot", other), _fit("livebench", "livebench/a", lb_a),
            _fit("livebench", "livebench/b", lb_b)]
    c, s = compute_residual_shares(fits)
    across = sorted([_pearson(other, lb_a), _pearson(other, lb_b)])
    assert c == pytest.approx((across[0] + across[1]) / 2, abs=1e-12)
    within = _pearson(lb_a, lb_b)
    assert 0.0 < c < within < 1.0
    assert c + (1 - c) * s == pytest.approx(within, abs=1e-12)
    # one source only: c is their agreement and nothing is left to top up; no pair at all: 1.0
    assert compute_residual_shares(fits[1:]) == (pytest.approx(within, abs=1e-12), 0.0)
    assert compute_residual_shares(fits[:1]) == (1.0, 0.0)
