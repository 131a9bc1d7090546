"""The Arena stage: battles file in, the rating table and the snapshot's ``"arena"`` section out.

``fit_rating_table`` makes the ``arena fit`` table; ``compute_arena_section`` everything
the Arena page draws, from one DuckDB scan of the battles file (``builder.pairwise.scan``):
pair counts from its GROUP BY, the battle sequence for online Elo, per-period counts for
the history, and the style features of the style-controlled view (``conv_metadata`` counts
as the scan's feature columns). Both are pure apart from reading the battles file.

Snapshot ``"arena"`` section (all numbers JSON; ``null`` where a value does not exist)::

    {
      "source": "clean_battle_demo.jsonl",   # battles file name
      "rows_read": 30000,                     # rows in the file
      "n_battles": 25530,                     # battles fitted (after bad rows and filters)
      "filters": {"anony": 4470, ...},        # filter -> rows it removed (filters that ran)
      "bad_rows": {"missing_model": 0, "same_model": 0, "unknown_winner": 0},
      "method": {"name": "bradley-terry-mle", "scale": 400, "base": 10, "init": 1000,
                 "ties": "half a win to each side", "centring": "...", "bootstrap": 200,
                 "bootstrap_kind": "multinomial on pair-outcome counts", "ci": 0.95,
                 "seed": 42, "degenerate_rounds": 0, "elo_k": 4, "history_period": "week",
                 "history_bootstrap": 0, "min_pair_battles": 50, "anony_only": true},
      "models": [                             # by component, then rank
        {"model", "rating",                   # MLE point, Arena scale (1000 = component mean)
         "median", "lower", "upper",          # bootstrap median and 95% percentile bounds
         "rank", "rank_ub",                   # point rank; 1 + #models whose lower > this upper
         "battles", "wins", "ties",           # wins exclude ties
         "win_rate",                          # (wins + ties / 2) / battles
         "elo",                               # online Elo (k = 4) after the last battle
         "component"}                         # index into "components"
      ],
      "components": [{"models": [...], "n_battles": 25530}],   # most battles first
      "unrated": [{"models": [...], "reason": "..."}],        # no finite rating (left out)
      "winrate": {"models": [...top N of component 0 by rating...],
                  "predicted": [[p_ij]],      # row beats column, null diagonal
                  "empirical": [[e_ij]],      # null where the pair never met
                  "battles": [[n_ij]],
                  "mae": 0.021,               # over all rated pairs with >= min_pair_battles
                  "pairs_used": 310},
      "history": [{"date": "2026-05-03", "n_battles": 468,
                   "models": [{"model", "rating", "rank", "elo", "lower", "upper",
                               "matches", "wins", "ties"}]}],   # cumulative battle counts
      "changes": [{"model", "slices", "first_date", "last_date",   # over the history's
                   "initial", "final", "change",                   # Bradley-Terry ratings
                   "highest", "lowest", "volatility",             # (builder.pairwise.changes)
                   "total_matches"}],
      "style": {...} | null,                  # the style-controlled view (builder.pairwise.arena_style),
                                              # null when no battle carries usable conv_metadata
      "default_view": "plain" | "style",      # which view the Arena page opens with
      "flips": [{"higher", "lower", "position",   # vote flip budgets of the adjacent pairs in the top
                 "gap", "approx_votes", "votes",  # ``flip_top`` (builder.pairwise.flips); the style
                 "flipped", "checked_votes",      # view carries its own under "style"
                 "minimal", "upper_bound", "n_votes", "share", "gap_after", "refits",
                 "removed": [{"model_a", "model_b", "outcome", "count"}]}],
      "pair_counts": {"models", "i", "j", "wins_i", "wins_j", "ties"},  # the plain fit's counts (with flips)
      "style_battles": {"models", "features", "n_battles", "csv_gz"}   # the styled fit's battles (with its flips)
    }

The section is returned as the typed ``builder.snapshot.models.Arena`` (bounds null without
history bootstrap; lists as tuples).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import numpy as np

from builder.errors import UserError
from builder.pairwise.battles import BattleFilters, Battles, CategoryRule
from builder.pairwise.bootstrap import (
    bootstrap_bt,
    point_ranks,
    quantiles,
    ranks_with_uncertainty,
)
from builder.pairwise.bt import INIT, BTFit, PairCounts, count_pairs, fit_bt
from builder.pairwise.changes import changes_from_history_section
from builder.pairwise.history import PeriodCounts, compute_history
from builder.pairwise.sandwich import MIN_PAIR, pair_weights, sandwich_bt, weighted_counts
from builder.pairwise.scan import ReaderSettings, covariate_spec, format_of, scan_battles
from builder.pairwise.style import (
    StyleColumns,
    StyleReport,
    contextual_columns,
    count_status,
    parse_style_features,
    style_feature_specs,
)
from builder.pairwise.winrate import (
    compute_empirical_winrates,
    compute_predicted_winrates,
    compute_winrate_mae,
)
from builder.util.formats import ARENA_TABLE_COLUMNS

if TYPE_CHECKING:  # the site configuration and the typed snapshot (pydantic) load with the section only
    from builder.config import ArenaCategoryConfig, ArenaConfig, ArenaReaderConfig
    from builder.snapshot.models import Arena

log = logging.getLogger(__name__)

ELO_K = 4.0
"Online Elo step on the Arena page (``builder.pairwise.elo.K``; the compiled loop loads only when used)."

TABLE_COLUMNS = ARENA_TABLE_COLUMNS


def _num(x: float, digits: int = 2) -> float | None:
    """A finite float rounded for JSON, else None."""
    x = float(x)
    return round(x, digits) if np.isfinite(x) else None


def reader_settings(cfg: ArenaReaderConfig) -> ReaderSettings:
    """The DuckDB reader's settings from ``site.yml``'s ``arena.reader``."""
    return ReaderSettings(
        memory_limit=cfg.memory_limit.strip(),
        temp_directory=Path(cfg.temp_directory) if cfg.temp_directory else None,
        threads=cfg.threads,
    )


def battle_filters(cfg: ArenaConfig, category: ArenaCategoryConfig | None = None) -> BattleFilters:
    """The site's battle filters: the official ones unless ``all_votes``, plus ``anony_only``,
    and for a category board its rule."""
    return BattleFilters(anony_only=cfg.anony_only, official=not cfg.all_votes,
                         category=None if category is None else category_rule(category),
                         voter_daily_cap=cfg.voter_daily_cap, anomaly_fpr=cfg.anomalous_voters_fpr,
                         anomaly_min_votes=cfg.anomalous_voters_min_votes, voter_column=cfg.voter_column,
                         models=cfg.models)


def category_rule(cat: ArenaCategoryConfig) -> CategoryRule:
    """The reader's rule for one configured category board."""
    return CategoryRule(tag=tuple(cat.tag.split("/")) if cat.tag else None, tag_min_true=cat.tag_min_true,
                        language=cat.language, is_code=cat.is_code, min_turn=cat.min_turn,
                        min_user_tokens=cat.min_user_tokens)


def fit_rating_table(
    battles: Battles | PairCounts,
    *,
    method: Literal["bt", "elo"] = "bt",
    bootstrap: int = 0,
    seed: int = 0,
    anchor: tuple[str, float] | None = None,
    elo_k: float = ELO_K,
    workers: int | None = None,
    on_unidentifiable: Literal["raise", "drop"] = "raise",
    init: float = INIT,
    reweight: bool = False,
    ci: Literal["bootstrap", "sandwich"] = "bootstrap",
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """One row per rated model (``TABLE_COLUMNS`` plus ``component``), and fit facts.

    ``battles``: per-battle codes, or for ``method="bt"`` just their pair counts (what the
    reader's GROUP BY returns). ``rating`` is the point estimate (BT maximum likelihood, or
    the final online Elo); ``median``/``lower``/``upper`` come from ``bootstrap`` rounds
    (equal to ``rating`` when there are none), or from the sandwich estimator with
    ``ci="sandwich"`` (bt only; ``median`` is then the rating). ``reweight``: LMArena's
    inverse-frequency pair weights (bt only). Rows are ordered by component, then rank.
    ``init`` is the scale's centre: each BT component's mean rating, and every model's
    starting online Elo.
    """
    if isinstance(battles, PairCounts):
        if method != "bt":
            raise ValueError("online Elo needs the battles in order, not their pair counts")
        counts = battles
    else:
        counts = count_pairs(battles)
    n_played, wins, ties = counts.per_model()
    info: dict[str, Any] = {"method": method, "bootstrap": bootstrap, "seed": seed, "degenerate_rounds": 0,
                            "ci_kind": ci if (ci == "sandwich" or bootstrap > 0) else None, "reweight": reweight}
    if method != "bt" and (reweight or ci == "sandwich"):
        raise UserError("--reweight and --ci sandwich apply to the Bradley-Terry fit (--method bt) only")
    if method == "bt":
        weights = pair_weights(counts) if reweight else None
        fit = fit_bt(counts if weights is None else weighted_counts(counts, weights), anchor=anchor,
                     on_unidentifiable=on_unidentifiable, init=init)
        rating, component = fit.ratings, fit.component
        info.update(components=fit.components, unrated=fit.unrated, fit=fit, counts=counts)
        if ci == "sandwich":
            sw = sandwich_bt(counts, fit, weights=weights)
            median, lower, upper = rating, sw.lower, sw.upper
            info["hessian_reg"] = sw.ridge
        elif bootstrap > 0:
            bs = bootstrap_bt(counts, fit, bootstrap, seed, workers=workers, pair_weights=weights)
            median, lower, upper = bs.median, bs.lower, bs.upper
            info["degenerate_rounds"] = bs.degenerate_rounds
        else:
            median = lower = upper = rating
    elif method == "elo":
        from builder.pairwise.elo import bootstrap_elo, fit_online_elo

        assert isinstance(battles, Battles)
        elo = fit_online_elo(battles, k=elo_k, init=init)
        rating = elo.ratings.copy()
        rating[n_played == 0] = np.nan
        component = np.where(n_played > 0, 0, -1)
        played = tuple(m for m, p in zip(counts.models, n_played, strict=True) if p > 0)
        info.update(components=(played,), unrated=())
        if bootstrap > 0:
            samples = bootstrap_elo(battles, bootstrap, seed, k=elo_k, init=init)
            lower, median, upper = quantiles(samples, [0.025, 0.5, 0.975])
        else:
            median = lower = upper = rating
    else:
        raise ValueError(f"unknown method {method!r}")
    rated = np.isfinite(rating)
    rank = point_ranks(rating, component)
    rank_ub = ranks_with_uncertainty(lower, upper, component, rated)
    rows = []
    for k in np.flatnonzero(rated):
        rows.append(
            {
                "model": counts.models[k],
                "rating": _num(rating[k]),
                "median": _num(median[k]),
                "lower": _num(lower[k]),
                "upper": _num(upper[k]),
                "rank": int(rank[k]),
                "rank_ub": int(rank_ub[k]),
                "battles": int(n_played[k]),
                "wins": int(wins[k]),
                "ties": int(ties[k]),
                "win_rate": _num((wins[k] + 0.5 * ties[k]) / n_played[k], 4),
                "component": int(component[k]),
            }
        )
    rows.sort(key=lambda r: (r["component"], r["rank"], r["model"]))
    return rows, info


def compute_arena_section(
    battles_path: Path,
    cfg: ArenaConfig,
    *,
    history_bootstrap: int = 0,
    workers: int | None = None,
    category: ArenaCategoryConfig | None = None,
    organisation_of: Callable[[str], str | None] | None = None,
) -> Arena:
    """The snapshot's ``"arena"`` section (see the module docstring) for one battles file.

    ``category``: the board of one category (its rule runs after the other filters; the
    section's ``category`` says which); without it, the main board, whose ``categories`` are
    the boards of ``cfg.categories`` (a category no battle of the file meets is left out, with
    a warning: the dump does not carry its tags). ``organisation_of``: battle spelling ->
    organisation (the model catalog), for the ``catalog: same_org`` covariates.

    Ratings: Bradley-Terry MLE with ``cfg.bootstrap`` multinomial bootstrap rounds seeded by
    ``cfg.seed``; models without a finite rating are listed under ``unrated``, not guessed.
    History: cumulative ``cfg.history`` slices, with ``history_bootstrap`` rounds per slice
    (0: no per-slice intervals). Style view (``cfg.style_control``): the style-controlled fit
    of the battles with usable ``conv_metadata`` (not for CSV, which carries none).
    """
    battles_path = Path(battles_path)
    features = parse_style_features(cfg.style_features)
    if not cfg.style_control or format_of(battles_path)[0] == "csv":
        features = ()  # CSV carries no conv_metadata
    covariates = [covariate_spec(c.name, column=c.column, sql=c.sql) for c in cfg.covariates if c.catalog is None]
    from_catalog = [c.name for c in cfg.covariates if c.catalog is not None]
    specs = [*style_feature_specs(features), *covariates]
    # One scan of the file; everything below is read from it, then the connection closes.
    with scan_battles(battles_path, battle_filters(cfg, category), reader_settings(cfg.reader),
                      features=specs) as scan:
        voter_test = scan.voter_test
        voter_column = scan.filters.voter_column
        pair_counts = scan.pair_counts()
        battles = scan.battles()
        periods = None
        if battles.tstamp is not None and np.isfinite(battles.tstamp).any():
            periods = scan.period_counts(cfg.history)
        styles = contextual_columns(scan, features, [c.name for c in covariates]) if specs else None
    if from_catalog:
        styles = with_same_org(styles, battles, from_catalog, organisation_of)
    rows, info = fit_rating_table(
        pair_counts,
        method="bt",
        bootstrap=cfg.bootstrap,
        seed=cfg.seed,
        workers=workers,
        on_unidentifiable="drop",
        reweight=cfg.reweight,
    )
    fit: BTFit = info["fit"]
    counts: PairCounts = info["counts"]
    from builder.pairwise.elo import fit_online_elo

    elo = fit_online_elo(battles, k=ELO_K)
    index = {m: k for k, m in enumerate(battles.models)}
    for row in rows:
        row["elo"] = _num(elo.ratings[index[row["model"]]])

    totals = counts.totals()
    comp_of_pair = fit.component[counts.i]
    components = [
        {"models": list(models), "n_battles": int(totals[comp_of_pair == c].sum())}
        for c, models in enumerate(fit.components)
    ]

    section: dict[str, Any] = {
        "source": battles_path.name,
        "rows_read": battles.report.rows_read,
        "n_battles": len(battles),
        "filters": dict(battles.report.removed),
        "bad_rows": dict(battles.report.bad_rows),
        "method": {
            "name": "bradley-terry-mle",
            "scale": fit.scale,
            "base": fit.base,
            "init": fit.init,
            "ties": "half a win to each side",
            "centring": "each connected component centred on a mean rating of init",
            "bootstrap": cfg.bootstrap,
            "bootstrap_kind": "multinomial on pair-outcome counts",
            "ci": 0.95,
            "seed": cfg.seed,
            "degenerate_rounds": info["degenerate_rounds"],
            "elo_k": ELO_K,
            "history_period": cfg.history,
            "history_bootstrap": history_bootstrap,
            "min_pair_battles": cfg.min_pair_battles,
            "anony_only": cfg.anony_only or "anony" in battles.report.removed,
            "official_filters": not cfg.all_votes,
            "reweight": cfg.reweight,
        },
        "models": rows,
        "components": components,
        "unrated": [u.to_json() for u in fit.unrated],
        "winrate": _winrate_section(fit, counts, cfg),
        "history": _history_section(battles, periods, cfg, history_bootstrap, workers),
    }
    section["changes"] = [c.to_json() for c in changes_from_history_section(section["history"])]
    if cfg.flip_top > 1:
        from builder.pairwise.flips import compute_plain_flips

        section["flips"] = [r.to_json() for r in compute_plain_flips(counts, fit, reweight=cfg.reweight,
                                                                       top=cfg.flip_top)]
        section["pair_counts"] = {"models": list(counts.models), "i": counts.i.tolist(), "j": counts.j.tolist(),
                                  **{k: np.rint(getattr(counts, k)).astype(np.int64).tolist()
                                     for k in ("wins_i", "wins_j", "ties")},
                                  "reweight": cfg.reweight, "min_pair": MIN_PAIR}
    style = compute_style_view(battles, styles, cfg, rows) if styles is not None else None
    section["style"] = style
    if style is not None and style.get("flips") and styles is not None:
        section["style_battles"] = styled_battles_section(battles, styles)
    section["default_view"] = cfg.default_view if style is not None else "plain"
    if voter_column is not None:
        section["voters"] = {
            "column": voter_column,
            "daily_cap": cfg.voter_daily_cap,
            "capped_rows": battles.report.removed.get("voter_cap", 0),
            "fpr": cfg.anomalous_voters_fpr,
            "min_votes": cfg.anomalous_voters_min_votes,
            "voters": None if voter_test is None else voter_test.voters,
            "tested": None if voter_test is None else voter_test.tested,
            "flagged": None if voter_test is None else len(voter_test.flagged),
            "flagged_rows": None if voter_test is None else voter_test.rows_removed,
        }
    arena_id = getattr(cfg, "id", None)  # one more arena (site.yml ``arenas``)
    if arena_id is not None:
        section["arena_id"], section["title"] = arena_id, getattr(cfg, "title", None)
    if category is not None:
        section["category"] = {"id": category.id, "title": category.title,
                               "criterion": category_rule(category).describe()}
    else:
        boards = []
        for cat in cfg.categories:
            try:
                boards.append(compute_arena_section(battles_path, cfg, history_bootstrap=history_bootstrap,
                                                    workers=workers, category=cat, organisation_of=organisation_of))
            except UserError as exc:
                log.warning("arena category %s: no board (%s)", cat.id, exc)
        section["categories"] = boards
    from builder.snapshot.models import Arena

    return Arena.model_validate(section, strict=False)


def with_same_org(styles: StyleColumns | None, battles: Battles, names: list[str],
                  organisation_of: Callable[[str], str | None] | None) -> StyleColumns:
    """``styles`` with one more column per name: 1.0 where both models of the battle have a
    known organisation (``organisation_of``, the catalog) and it is the same, else 0.0."""
    org = [organisation_of(m) if organisation_of is not None else None for m in battles.models]
    codes = {o: k for k, o in enumerate(sorted({o for o in org if o}))}
    code = np.array([codes[o] if o else -1 for o in org] + [-1], dtype=np.int64)
    ca, cb = code[battles.model_a], code[battles.model_b]
    same = ((ca >= 0) & (ca == cb)).astype(np.float64)
    n = len(battles)
    base = styles if styles is not None else StyleColumns((), np.zeros((n, 0)), np.zeros(n, dtype=np.int8),
                                                          StyleReport((), count_status(np.zeros(n, np.int8)), None))
    cols = np.column_stack([base.raw, *([same] * len(names))])
    cols[base.status != 0] = 0.0
    feats = (*base.features, *names)
    return StyleColumns(feats, cols, base.status, StyleReport(feats, base.report.rows, base.report.first_malformed))


def compute_style_view(battles: Battles, styles: StyleColumns, cfg: ArenaConfig,
                       plain_rows: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The styled sub-object (``builder.pairwise.arena_style``) from the battles and their style
    columns (the same scan), or None when no battle carries usable style metadata."""
    from builder.pairwise.arena_style import compute_style_section, fit_styled_table

    if styles.report.usable == 0:
        return None
    table = fit_styled_table(battles, styles, reweight=cfg.reweight, ci=cfg.style_ci,
                             bootstrap=cfg.bootstrap if cfg.style_ci == "bootstrap" else 0, seed=cfg.seed,
                             on_unidentifiable="drop")
    section = compute_style_section(table, styles, plain_rows)
    if cfg.flip_top > 1:
        from builder.pairwise.flips import compute_styled_flips

        use = np.flatnonzero(styles.usable)
        section["flips"] = [r.to_json() for r in compute_styled_flips(
            battles.models, battles.model_a[use], battles.model_b[use], battles.outcome[use], styles.raw[use],
            styles.features, table.fit, reweight=cfg.reweight, top=cfg.flip_top)]
    return section


def styled_battles_section(battles: Battles, styles: StyleColumns) -> dict[str, Any]:
    """The snapshot's ``style_battles``: the battles the style-controlled fit was given (those
    with usable style metadata, in file order), for a refit without a flip budget's votes."""
    from builder.pairwise.flips import styled_battles_csv_gz

    use = np.flatnonzero(styles.usable)
    return {"models": list(battles.models), "features": list(styles.features), "n_battles": int(use.size),
            "csv_gz": styled_battles_csv_gz(battles.model_a[use], battles.model_b[use], battles.outcome[use],
                                            styles.raw[use], styles.features)}


def _winrate_section(fit: BTFit, counts: PairCounts, cfg: ArenaConfig) -> dict[str, Any]:
    rated = np.flatnonzero(np.isfinite(fit.ratings))
    pred_all = compute_predicted_winrates(fit.ratings[rated], scale=fit.scale, base=fit.base)
    emp_all, n_all = compute_empirical_winrates(counts, rated)
    mae, used = compute_winrate_mae(pred_all, emp_all, n_all, cfg.min_pair_battles)
    main = rated[fit.component[rated] == 0]
    top = main[np.argsort(-fit.ratings[main], kind="stable")][: cfg.top_heatmap]
    pos = {int(m): k for k, m in enumerate(rated)}
    sel = [pos[int(m)] for m in top]
    pred = pred_all[np.ix_(sel, sel)]
    emp = emp_all[np.ix_(sel, sel)]
    nb = n_all[np.ix_(sel, sel)]
    return {
        "models": [fit.models[m] for m in top],
        "predicted": [[_num(x, 4) for x in row] for row in pred],
        "empirical": [[_num(x, 4) for x in row] for row in emp],
        "battles": [[int(x) for x in row] for row in nb],
        "mae": None if mae is None else round(mae, 5),
        "pairs_used": used,
    }


def _history_section(battles: Battles, periods: PeriodCounts | None, cfg: ArenaConfig, bootstrap: int,
                     workers: int | None) -> list[dict[str, Any]]:
    if periods is None:
        return []
    hist = compute_history(battles, cfg.history, bootstrap=bootstrap, seed=cfg.seed, workers=workers, counts=periods)
    out = []
    for s in hist.slices:
        rated = np.flatnonzero(np.isfinite(s.ratings))
        rated = rated[np.lexsort((-s.ratings[rated], s.component[rated]))]
        models = []
        for k in rated:
            entry: dict[str, Any] = {
                "model": hist.models[k],
                "rating": _num(s.ratings[k]),
                "rank": int(s.ranks[k]),
                "elo": _num(s.elo[k]),
            }
            bounded = s.lower is not None and s.upper is not None
            entry["lower"] = _num(s.lower[k]) if bounded and s.lower is not None else None
            entry["upper"] = _num(s.upper[k]) if bounded and s.upper is not None else None
            entry["matches"], entry["wins"], entry["ties"] = int(s.matches[k]), int(s.wins[k]), int(s.ties[k])
            models.append(entry)
        out.append({"date": s.date.isoformat(), "n_battles": s.n_battles, "models": models})
    return out


__all__ = ["TABLE_COLUMNS", "battle_filters", "category_rule", "compute_arena_section", "compute_style_view",
           "fit_rating_table",
           "reader_settings", "styled_battles_section"]
