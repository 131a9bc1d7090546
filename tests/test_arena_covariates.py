"""Any covariate in the contextual fit: the four style features (a preset) plus covariates read
from the battles' columns or derived by a DuckDB expression, read through the battles reader
and fitted, equal LMArena's ``arena-rank`` ``ContextualBradleyTerry`` on the same features:
ratings and coefficients within 1e-6, sandwich intervals within 1e-6.

arena-rank runs in a spawned child process (jax starts threads; see test_pairwise_styled_exact)."""

from __future__ import annotations

import json
import multiprocessing as mp
from concurrent.futures import ProcessPoolExecutor
from typing import Any

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from builder.cli.arena import arena
from builder.config import ArenaConfig, ArenaCovariateConfig
from builder.pairwise.arena import compute_arena_section
from builder.pairwise.battles import BattleFilters
from builder.pairwise.scan import covariate_spec, scan_battles
from builder.pairwise.style import STYLE_FEATURES, contextual_columns, style_feature_specs
from builder.pairwise.styled import build_style_dataset, fit_styled_bt, sandwich_styled

pytestmark = pytest.mark.oracle

TOL = 1e-6
WINNERS = np.array(["model_a", "model_b", "tie", "tie (bothbad)"])
ORG = {0: "north", 1: "north", 2: "south", 3: "south", 4: "east", 5: "east", 6: "west", 7: "west"}


def generated(seed: int = 3, n_models: int = 8, n: int = 6000):
    """Battles with conv_metadata counts, an is_direct flag and organisations; the truth has a
    style effect, a position effect for direct battles and a same-organisation effect."""
    rng = np.random.default_rng(seed)
    skill = rng.normal(0, 0.7, n_models)
    a = rng.integers(0, n_models, n)
    b = rng.integers(0, n_models, n)
    keep = a != b
    a, b = a[keep], b[keep]
    m = a.size
    counts = rng.integers(0, 40, (m, 8))  # tokens, headers, bold, lists for side a then b
    counts[:, [0, 4]] = rng.integers(50, 1500, (m, 2))
    direct = rng.random(m) < 0.3
    same = np.array([ORG[x] == ORG[y] for x, y in zip(a, b, strict=True)])
    rel = (counts[:, :4] - counts[:, 4:]) / np.maximum(counts[:, :4] + counts[:, 4:], 1)
    z = skill[a] - skill[b] + rel @ np.array([0.7, 0.2, 0.1, 0.05]) + 0.3 * direct - 0.2 * same * (skill[a] > skill[b])
    u = rng.random(m)
    out = np.where(u < 0.1, 2, np.where(rng.random(m) < 1 / (1 + np.exp(-z)), 0, 1))
    out[(out == 2) & (rng.random(m) < 0.3)] = 3
    rows = []
    for k in range(m):
        c = [int(x) for x in counts[k]]
        rows.append({
            "model_a": f"model-{a[k]}", "model_b": f"model-{b[k]}", "winner": str(WINNERS[out[k]]),
            "anony": True, "tstamp": 1.76e9 + 60 * k, "is_direct": bool(direct[k]),
            "org_a": ORG[int(a[k])], "org_b": ORG[int(b[k])],
            "conv_metadata": {"sum_assistant_a_tokens": c[0], "header_count_a": {"h1": c[1], "h2": 0},
                              "bold_count_a": {"**": c[2]}, "list_count_a": {"ordered": c[3]},
                              "sum_assistant_b_tokens": c[4], "header_count_b": {"h1": c[5]},
                              "bold_count_b": {"**": c[6], "__": 0}, "list_count_b": {"unordered": c[7]}},
        })
    feats = np.column_stack([rel, direct.astype(float), same.astype(float)])
    return rows, feats


COVARIATES = [ArenaCovariateConfig(name="is_direct", column="is_direct"),
              ArenaCovariateConfig(name="same_org", sql="CASE WHEN org_a = org_b THEN 1 ELSE 0 END")]


@pytest.fixture(scope="module")
def arena_rank():
    with ProcessPoolExecutor(max_workers=1, mp_context=mp.get_context("spawn")) as pool:
        yield lambda fn, *args: pool.submit(fn, *args).result()


def _reference(df: pd.DataFrame, cols: list[str]) -> dict[str, Any]:
    """arena-rank's ContextualBradleyTerry: ratings, sandwich bounds, coefficients and their
    half-widths from its own sandwich matrices at its fit."""
    from arena_rank.models.contextual_bradley_terry import ContextualBradleyTerry
    from arena_rank.utils.data_utils import ContextualPairDataset

    ds = ContextualPairDataset.from_pandas(df, cols, reweighted=False)
    ref = ContextualBradleyTerry(n_competitors=len(ds.competitors), n_features=len(cols), max_iter=50_000,
                                 ftol=0.0, gtol=1e-14)
    res = ref.compute_ratings_and_cis(ds)
    comp = list(res["competitors"])
    n_obs = ds.pairs.shape[0]
    hess, gcov = ContextualBradleyTerry.compute_hessian_and_covariance(
        ref.params["ratings"], ref.params["coeffs"], ds.pairs, ds.features, ds.outcomes, ds.weights, ref.reg,
        ref.hessian_reg, len(comp), len(cols), n_obs)
    hinv = np.linalg.inv(np.asarray(hess))
    var = np.diag(hinv @ np.asarray(gcov) @ hinv) / n_obs
    return {"competitors": comp, "ratings": np.asarray(res["ratings"]), "lower": np.asarray(res["rating_lower"]),
            "upper": np.asarray(res["rating_upper"]), "coeffs": np.asarray(res["coeffs"]),
            "beta_half": 1.959963984540054 * np.sqrt(var[len(comp):])}


@pytest.fixture(scope="module")
def battles_file(tmp_path_factory):
    rows, feats = generated()
    path = tmp_path_factory.mktemp("cov") / "battles.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path, rows, feats


def test_covariates_read_through_the_reader_equal_arena_rank(battles_file, arena_rank):
    path, rows, feats = battles_file
    specs = [covariate_spec(c.name, column=c.column, sql=c.sql) for c in COVARIATES]
    with scan_battles(path, BattleFilters(official=True), features=[*style_feature_specs(STYLE_FEATURES), *specs]) \
            as scan:
        battles = scan.battles()
        cols = contextual_columns(scan, STYLE_FEATURES, ["is_direct", "same_org"])
    assert cols.features == (*STYLE_FEATURES, "is_direct", "same_org") and cols.report.usable == len(rows)
    np.testing.assert_allclose(cols.raw, feats, rtol=0, atol=1e-15)  # the reader's columns are the truth's
    ds = build_style_dataset(battles.models, battles.model_a, battles.model_b, battles.outcome, cols.raw,
                             cols.features)
    fit = fit_styled_bt(ds)
    sw = sandwich_styled(ds, fit)

    names = [f"f{j}" for j in range(feats.shape[1])]
    df = pd.DataFrame({"model_a": [r["model_a"] for r in rows], "model_b": [r["model_b"] for r in rows],
                       "winner": [r["winner"] for r in rows]})
    for j, c in enumerate(names):
        df[c] = feats[:, j]
    ref = arena_rank(_reference, df, names)
    pos = {m: k for k, m in enumerate(battles.models)}
    idx = [pos[c] for c in ref["competitors"]]
    np.testing.assert_allclose(fit.ratings[idx], ref["ratings"], atol=TOL, rtol=0)
    np.testing.assert_allclose(fit.beta, ref["coeffs"], atol=TOL, rtol=0)
    np.testing.assert_allclose(sw.lower[idx], ref["lower"], atol=TOL, rtol=0)
    np.testing.assert_allclose(sw.upper[idx], ref["upper"], atol=TOL, rtol=0)
    np.testing.assert_allclose(sw.beta_lower, ref["coeffs"] - ref["beta_half"], atol=TOL, rtol=0)
    np.testing.assert_allclose(sw.beta_upper, ref["coeffs"] + ref["beta_half"], atol=TOL, rtol=0)
    assert fit.beta[4] > 0  # the direct-battle effect drawn into the battles (shrunk by the penalty)


def test_site_arena_reports_every_coefficient(battles_file):
    path, rows, feats = battles_file
    section = compute_arena_section(path, ArenaConfig(bootstrap=0, covariates=COVARIATES, history="month"))
    assert section.style is not None
    coef = {c.feature: c for c in section.style.coefficients}
    assert list(coef) == [*STYLE_FEATURES, "is_direct", "same_org"]
    assert coef["is_direct"].lower < coef["is_direct"].beta < coef["is_direct"].upper
    only = compute_arena_section(path, ArenaConfig(bootstrap=0, covariates=COVARIATES, style_control=False,
                                                   history="month"))
    assert only.style is not None and [c.feature for c in only.style.coefficients] == ["is_direct", "same_org"]


def test_cli_fit_with_covariates(battles_file, tmp_path):
    path, rows, feats = battles_file
    out = tmp_path / "fit.json"
    res = CliRunner().invoke(arena, ["fit", "--input", str(path), "--style-control", "--covariate-column",
                                     "is_direct=is_direct", "--covariate",
                                     "same_org=CASE WHEN org_a = org_b THEN 1 ELSE 0 END", "--output", str(out)])
    assert res.exit_code == 0, res.output
    doc = json.loads(out.read_text())
    # the --covariate expressions come first, then the --covariate-column ones
    assert [c["feature"] for c in doc["style"]] == [*STYLE_FEATURES, "same_org", "is_direct"]
    bad = CliRunner().invoke(arena, ["fit", "--input", str(path), "--covariate", "x=1"])
    assert bad.exit_code == 2 and "need --style-control" in bad.output


def test_same_organisation_from_the_catalog_equals_the_sql_covariate(battles_file):
    """``catalog: same_org`` (organisations from the model catalog) gives the same covariate,
    and so the same fit, as the dump's own organisation columns compared in SQL."""
    path, rows, feats = battles_file
    orgs = {r["model_a"]: r["org_a"] for r in rows} | {r["model_b"]: r["org_b"] for r in rows}
    by_sql = compute_arena_section(path, ArenaConfig(bootstrap=0, covariates=COVARIATES[1:], history="month"))
    by_catalog = compute_arena_section(
        path, ArenaConfig(bootstrap=0, history="month",
                          covariates=[ArenaCovariateConfig(name="same_org", catalog="same_org")]),
        organisation_of=orgs.get)
    assert by_sql.style is not None and by_catalog.style is not None
    assert [(c.feature, c.beta, c.lower, c.upper) for c in by_catalog.style.coefficients] == \
           [(c.feature, c.beta, c.lower, c.upper) for c in by_sql.style.coefficients]
    assert [(m.model, m.rating) for m in by_catalog.style.models] == [(m.model, m.rating) for m in by_sql.style.models]
    unknown = compute_arena_section(
        path, ArenaConfig(bootstrap=0, history="month", style_control=False,
                          covariates=[ArenaCovariateConfig(name="same_org", catalog="same_org")]),
        organisation_of=lambda name: None)
    assert unknown.style is not None and unknown.style.coefficients[0].beta == 0  # no known organisation: a 0 column
