"""The style-controlled Arena table: battles with style metadata in, rows, coefficients and method out.

``fit_styled_table`` is what ``arena fit --style-control`` prints; ``compute_style_section``
the snapshot's ``arena["style"]`` sub-object (all numbers JSON, ``null`` where absent)::

    {
      "features": ["tokens", "headers", "bold", "lists"],
      "n_battles": 29400,                       # battles fitted (usable metadata, rated models)
      "metadata": {"usable": 29400,             # battles with usable metadata
                   "without_metadata": {"no_metadata": 600, "incomplete_metadata": 0},
                   "malformed": {"negative_count": 0, "non_numeric_count": 0},
                   "first_malformed": null},    # "FILE: line N (kind)" of the first malformed row
      "method": {"name": "style-controlled-bradley-terry", "reg": 1.0, "reweight": false,
                 "min_pair_battles": 50, "ci_kind": "sandwich", "ci": 0.95, "hessian_reg": 1e-05,
                 "bootstrap": 0, "seed": 42, "degenerate_rounds": 0, "scale": 400, "base": 10,
                 "init": 1000, "centring": "...", "points_per_unit": 173.72},
      "coefficients": [{"feature", "beta", "lower", "upper",   # log-odds per std of the feature
                        "mean", "std",                          # of the raw feature over the fitted battles
                        "points", "points_lower", "points_upper"}],  # beta and bounds in rating points (x 400 / ln 10)
      "models": [{"model", "rating", "median", "lower", "upper", "rank", "rank_ub",
                  "battles", "wins", "ties", "win_rate", "component",
                  "plain_rating", "plain_rank",     # the same model in the plain fit (null if unrated there)
                  "rank_change"}],                  # plain_rank - rank: positive = moves up with style control
      "unrated": [{"models": [...], "reason": "..."}]
    }
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from builder.pairwise.battles import Battles
from builder.pairwise.bootstrap import point_ranks, ranks_with_uncertainty
from builder.pairwise.bt import INIT, count_pairs, one_blas_thread
from builder.pairwise.style import StyleColumns
from builder.pairwise.styled import (
    HESSIAN_REG,
    MIN_PAIR,
    REG,
    StyledFit,
    StyledIntervals,
    bootstrap_styled,
    build_style_dataset,
    fit_styled_bt,
    sandwich_styled,
)

STYLE_COLUMNS = ("feature", "beta", "lower", "upper", "mean", "std")
"Fields of each ``style`` entry of ``arena fit --style-control``."

CiKind = Literal["sandwich", "bootstrap"]


def _num(x: float, digits: int = 2) -> float | None:
    x = float(x)
    return round(x, digits) if np.isfinite(x) else None


@dataclass(frozen=True, eq=False, slots=True)
class StyledTable:
    """A styled fit's table: rows (the ``arena fit`` row fields), coefficients, method facts."""

    rows: list[dict[str, Any]]
    style: list[dict[str, Any]]
    method: dict[str, Any]
    fit: StyledFit
    intervals: StyledIntervals | None


def fit_styled_table(
    battles: Battles,
    styles: StyleColumns,
    *,
    reweight: bool = False,
    ci: CiKind = "sandwich",
    bootstrap: int = 0,
    seed: int = 0,
    anchor: tuple[str, float] | None = None,
    reg: float = REG,
    on_unidentifiable: Literal["raise", "drop"] = "raise",
    init: float = INIT,
    consume: bool = False,
) -> StyledTable:
    """Style-controlled ratings of the battles with usable metadata.

    Intervals: the sandwich (``ci="sandwich"``), or ``bootstrap`` rounds seeded by ``seed``
    (``ci="bootstrap"``; none when 0). ``rank_ub`` uses whichever is shown. ``init``: the
    rating shown for a log-odds rating of 0 (each component's mean). ``consume``: the caller
    no longer needs ``styles.raw``, which may then be standardised in place (no copy of the
    feature matrix when every battle is usable).
    """
    if bool(styles.usable.all()):  # every battle: the arrays as they are, no copy
        a, b, o, raw, overwrite = battles.model_a, battles.model_b, battles.outcome, styles.raw, consume
    else:
        use = np.flatnonzero(styles.usable)
        a, b, o, raw, overwrite = (battles.model_a[use], battles.model_b[use], battles.outcome[use],
                                   styles.raw[use], True)
    ds = build_style_dataset(battles.models, a, b, o, raw, styles.features, reweight=reweight, overwrite=overwrite)
    intervals: StyledIntervals | None = None
    with one_blas_thread():  # systems of models + features unknowns: a BLAS pool only spins
        fit = fit_styled_bt(ds, reg=reg, anchor=anchor, on_unidentifiable=on_unidentifiable, init=init)
        if ci == "sandwich":
            intervals = sandwich_styled(ds, fit)
        elif bootstrap > 0:
            intervals = bootstrap_styled(ds, fit, bootstrap, seed)
    # Per model from the pair counts (chunked over the battles): no per-battle temporaries.
    played, wins, ties = count_pairs(Battles(ds.models, ds.a, ds.b, ds.outcome, None, battles.report)).per_model()
    return styled_table(fit, intervals, played, wins, ties, ds.mean, ds.std, reweight=reweight, ci=ci,
                        bootstrap=bootstrap, seed=seed, anchor=anchor, reg=reg)


def styled_table(fit: StyledFit, intervals: StyledIntervals | None, played: np.ndarray, wins: np.ndarray,
                 ties: np.ndarray, mean: np.ndarray, std: np.ndarray, *, reweight: bool, ci: CiKind, bootstrap: int,
                 seed: int, anchor: tuple[str, float] | None, reg: float = REG) -> StyledTable:
    """The table of a styled fit from its intervals, the fitted battles per model (``played``,
    ``wins`` without ties, ``ties``, shape (n_models,)) and the covariates' ``mean``/``std``."""
    rating = fit.ratings
    if intervals is None:
        lower = upper = median = rating
    else:
        lower, upper, median = intervals.lower, intervals.upper, intervals.median
    rated = np.isfinite(rating)
    rank = point_ranks(rating, fit.component)
    rank_ub = ranks_with_uncertainty(lower, upper, fit.component, rated)
    rows = []
    for k in np.flatnonzero(rated):
        rows.append({
            "model": fit.models[k], "rating": _num(rating[k]), "median": _num(median[k]),
            "lower": _num(lower[k]), "upper": _num(upper[k]), "rank": int(rank[k]), "rank_ub": int(rank_ub[k]),
            "battles": int(played[k]), "wins": int(wins[k]), "ties": int(ties[k]),
            "win_rate": _num((wins[k] + 0.5 * ties[k]) / played[k], 4), "component": int(fit.component[k]),
        })
    rows.sort(key=lambda r: (r["component"], r["rank"], r["model"]))
    style = []
    for j, feature in enumerate(fit.feature_names):
        style.append({
            "feature": feature,
            "beta": round(float(fit.beta[j]), 6),
            "lower": None if intervals is None else _num(intervals.beta_lower[j], 6),
            "upper": None if intervals is None else _num(intervals.beta_upper[j], 6),
            "mean": round(float(mean[j]), 6),
            "std": round(float(std[j]), 6),
        })
    method = {
        "name": "style-controlled-bradley-terry",
        "features": list(fit.feature_names),
        "reg": reg,
        "reweight": reweight,
        "min_pair_battles": MIN_PAIR,
        "ci_kind": ci if intervals is not None else None,
        "ci": 0.95,
        "hessian_reg": HESSIAN_REG if ci == "sandwich" else None,
        "bootstrap": bootstrap if ci == "bootstrap" else 0,
        "seed": seed if ci == "bootstrap" and bootstrap > 0 else None,
        "degenerate_rounds": 0 if intervals is None else intervals.degenerate_rounds,
        "scale": fit.scale,
        "base": fit.base,
        "init": fit.init,
        "anchor": None if anchor is None else {"model": anchor[0], "rating": anchor[1]},
        "centring": "each connected component's ratings have mean r = 0, reported as init",
        "points_per_unit": round(fit.alpha, 4),
        "n_battles": fit.n_battles,
        "iterations": fit.iterations,
    }
    return StyledTable(rows, style, method, fit, intervals)


def compute_style_section(table: StyledTable, styles: StyleColumns,
                          plain_rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """The snapshot's ``arena["style"]`` (see the module docstring) from a styled table and the plain rows."""
    alpha = table.fit.alpha
    plain = {r["model"]: r for r in plain_rows}
    models = []
    for r in table.rows:
        p = plain.get(r["model"])
        plain_rank = None if p is None else p.get("rank")
        models.append({**r, "plain_rating": None if p is None else p.get("rating"), "plain_rank": plain_rank,
                       "rank_change": None if plain_rank is None else int(plain_rank) - int(r["rank"])})
    coefficients = []
    for c in table.style:
        points = c["beta"] * alpha
        coefficients.append({**c, "points": round(points, 2),
                             "points_lower": None if c["lower"] is None else round(c["lower"] * alpha, 2),
                             "points_upper": None if c["upper"] is None else round(c["upper"] * alpha, 2)})
    rep = styles.report.to_json()
    return {
        "features": list(table.fit.feature_names),
        "n_battles": table.fit.n_battles,
        "metadata": {k: rep[k] for k in ("usable", "without_metadata", "malformed", "first_malformed")},
        "method": {k: v for k, v in table.method.items() if k != "anchor"},
        "coefficients": coefficients,
        "models": models,
        "unrated": [u.to_json() for u in table.fit.unrated],
    }


def points(beta: float, scale: float = 400.0, base: float = 10.0) -> float:
    """Log-odds to rating points."""
    return beta * scale / math.log(base)


__all__ = ["STYLE_COLUMNS", "StyledTable", "compute_style_section", "fit_styled_table", "points", "styled_table"]
