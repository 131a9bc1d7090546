"""Exactness against LMArena's own ``arena-rank`` (0.1.1): ratings, sandwich bounds and style
coefficients of the plain and the style-controlled fit, with and without reweighting.

``arena-rank`` is a test dependency (it brings jax) and these tests run in the normal suite:
a missing package is a failure, never a skip. Its L-BFGS runs with tolerances tight enough
to converge (ftol 0, gtol 1e-12); with its defaults it can stop short of the maximum.
Tolerances (issue 16): ratings and bounds within 0.01 rating points, beta within 1e-4.

arena-rank runs in a spawned child process (``_reference_*``): jax starts threads, and a
test process that later forks (the bootstrap's workers) must not have them.
"""

from __future__ import annotations

import multiprocessing as mp
from concurrent.futures import ProcessPoolExecutor
from typing import Any

import numpy as np
import pandas as pd
import pytest

from builder.pairwise.bt import count_pairs, fit_bt
from builder.pairwise.sandwich import pair_weights, sandwich_bt, weighted_counts
from builder.pairwise.scan import battles_from_columns
from builder.pairwise.style import STYLE_FEATURES
from builder.pairwise.styled import build_style_dataset, fit_styled_bt, sandwich_styled

pytestmark = pytest.mark.oracle

RATING_TOL = 0.01
BETA_TOL = 1e-4
WINNERS = np.array(["model_a", "model_b", "tie", "both_bad"])


def synthetic(seed: int, n_models: int = 10, n: int = 8000):
    """Battles with Zipf-like popularity (so pairs differ in size and reweighting matters),
    four raw style features in [-1, 1] with a true effect, 10% ties of both kinds."""
    rng = np.random.default_rng(seed)
    skill = rng.normal(0.0, 0.8, n_models)
    pop = 1.0 / np.arange(1, n_models + 1)
    pop /= pop.sum()
    a = rng.choice(n_models, n, p=pop)
    b = rng.choice(n_models, n, p=pop)
    keep = a != b
    a, b = a[keep], b[keep]
    raw = np.tanh(rng.normal(0.0, 0.6, (a.size, 4)) + 0.3 * (skill[a] - skill[b])[:, None])
    z = skill[a] - skill[b] + raw @ np.array([0.8, 0.3, -0.2, 0.0])
    p = 1.0 / (1.0 + np.exp(-z))
    u = rng.random(a.size)
    out = np.where(u < 0.1, 2, np.where(rng.random(a.size) < p, 0, 1))
    out[(out == 2) & (rng.random(a.size) < 0.4)] = 3
    names = np.array([f"model-{k:02d}" for k in range(n_models)])
    return names, a, b, out.astype(np.int8), raw


def by_name(models, values, competitors) -> np.ndarray:
    pos = {m: k for k, m in enumerate(models)}
    return np.asarray(values)[[pos[c] for c in competitors]]


@pytest.fixture(scope="module")
def arena_rank():
    """Run a ``_reference_*`` function in one spawned child process (jax stays out of this one)."""
    with ProcessPoolExecutor(max_workers=1, mp_context=mp.get_context("spawn")) as pool:
        yield lambda fn, *args: pool.submit(fn, *args).result()


def _reference_styled(df: pd.DataFrame, cols: list[str], reweight: bool) -> dict[str, Any]:
    """arena-rank's ContextualBradleyTerry on ``df``: ratings, bounds, coefficients, the dataset's
    weights, and the half-widths of beta's interval from its own sandwich matrices."""
    from arena_rank.models.contextual_bradley_terry import ContextualBradleyTerry
    from arena_rank.utils.data_utils import ContextualPairDataset

    ref_ds = ContextualPairDataset.from_pandas(df, cols, reweighted=reweight)
    ref = ContextualBradleyTerry(n_competitors=len(ref_ds.competitors), n_features=len(cols), max_iter=20_000,
                                 ftol=0.0, gtol=1e-12)
    res = ref.compute_ratings_and_cis(ref_ds)
    comp = list(res["competitors"])
    # beta's interval: arena-rank reports none, so take the beta block of its own sandwich
    # matrices (its compute_hessian_and_covariance at its fit) the way it takes the ratings'.
    n_obs = ref_ds.pairs.shape[0]
    hess, gcov = ContextualBradleyTerry.compute_hessian_and_covariance(
        ref.params["ratings"], ref.params["coeffs"], ref_ds.pairs, ref_ds.features, ref_ds.outcomes,
        ref_ds.weights, ref.reg, ref.hessian_reg, len(comp), len(cols), n_obs)
    hinv = np.linalg.inv(np.asarray(hess))
    var = np.diag(hinv @ np.asarray(gcov) @ hinv) / n_obs
    return {"competitors": comp, "ratings": np.asarray(res["ratings"]), "lower": np.asarray(res["rating_lower"]),
            "upper": np.asarray(res["rating_upper"]), "coeffs": np.asarray(res["coeffs"]),
            "weights": np.asarray(ref_ds.weights), "beta_half": 1.959963984540054 * np.sqrt(var[len(comp):])}


def _reference_plain(df: pd.DataFrame, reweight: bool) -> dict[str, Any]:
    """arena-rank's BradleyTerry on ``df``: ratings and sandwich bounds."""
    from arena_rank.models.bradley_terry import BradleyTerry
    from arena_rank.utils.data_utils import PairDataset

    ref_ds = PairDataset.from_pandas(df, reweighted=reweight)
    ref = BradleyTerry(n_competitors=len(ref_ds.competitors), max_iter=20_000, ftol=0.0, gtol=1e-12)
    res = ref.compute_ratings_and_cis(ref_ds)
    return {"competitors": list(res["competitors"]), "ratings": np.asarray(res["ratings"]),
            "lower": np.asarray(res["rating_lower"]), "upper": np.asarray(res["rating_upper"])}


@pytest.mark.parametrize("reweight", [False, True], ids=["unweighted", "reweighted"])
def test_styled_fit_and_sandwich_equal_arena_rank(reweight, arena_rank):
    names, a, b, out, raw = synthetic(1)
    ds = build_style_dataset(tuple(names), a, b, out, raw, STYLE_FEATURES, reweight=reweight)
    fit = fit_styled_bt(ds)
    sw = sandwich_styled(ds, fit)
    assert fit.max_gradient < 1e-13

    df = pd.DataFrame({"model_a": names[a], "model_b": names[b], "winner": WINNERS[out]})
    cols = [f"f_{f}" for f in STYLE_FEATURES]
    for j, c in enumerate(cols):
        df[c] = raw[:, j]
    res = arena_rank(_reference_styled, df, cols, reweight)
    comp = res["competitors"]

    np.testing.assert_allclose(by_name(names, fit.ratings, comp), res["ratings"], atol=RATING_TOL, rtol=0)
    np.testing.assert_allclose(by_name(names, sw.lower, comp), res["lower"], atol=RATING_TOL, rtol=0)
    np.testing.assert_allclose(by_name(names, sw.upper, comp), res["upper"], atol=RATING_TOL, rtol=0)
    np.testing.assert_allclose(fit.beta, res["coeffs"], atol=BETA_TOL, rtol=0)
    # The weights and standardisation are the dataset class's own.
    np.testing.assert_allclose(ds.weights, res["weights"], rtol=1e-12)
    np.testing.assert_allclose(sw.beta_lower, res["coeffs"] - res["beta_half"], atol=BETA_TOL, rtol=0)
    np.testing.assert_allclose(sw.beta_upper, res["coeffs"] + res["beta_half"], atol=BETA_TOL, rtol=0)


@pytest.mark.parametrize("reweight", [False, True], ids=["unweighted", "reweighted"])
def test_plain_fit_and_sandwich_equal_arena_rank(reweight, arena_rank):
    names, a, b, out, _ = synthetic(2, n_models=12, n=12_000)
    winners = np.array(["model_a", "model_b", "tie", "tie (bothbad)"])[out]
    battles = battles_from_columns(names[a], names[b], winners)
    counts = count_pairs(battles)
    w = pair_weights(counts) if reweight else None
    fit = fit_bt(weighted_counts(counts, w) if w is not None else counts)
    sw = sandwich_bt(counts, fit, weights=w)

    res = arena_rank(_reference_plain, pd.DataFrame({"model_a": names[a], "model_b": names[b], "winner": winners}),
                     reweight)
    comp = res["competitors"]
    np.testing.assert_allclose(by_name(battles.models, fit.ratings, comp), res["ratings"], atol=RATING_TOL, rtol=0)
    np.testing.assert_allclose(by_name(battles.models, sw.lower, comp), res["lower"], atol=RATING_TOL, rtol=0)
    np.testing.assert_allclose(by_name(battles.models, sw.upper, comp), res["upper"], atol=RATING_TOL, rtol=0)
    # the unweighted ridge scales with the battles, the weighted one does not
    assert sw.ridge == pytest.approx(1e-5 * (counts.n_battles if not reweight else 1.0))
