"""The evidence export under ``site/data/``: everything needed to rebuild every published
number with the standard library alone.

    evidence.json          the Capability Index (CC BY 4.0): models, rows, families, fusion
    boards-evidence.json   the role boards (CC BY-SA 4.0): calibrations, usable observations,
                           family means, R, displayed score, rank and labels per board; the
                           bootstrap's seed, Arena intervals, fit residuals and results
    index-current.csv, index-all-versions.csv   the two index boards
    arena-flips.json       the Arena vote flip budgets and what refitting them needs
    styled-battles-<board>.csv.gz   each style-controlled fit's battles (gzip CSV), for its budgets
    README.md              what each file holds, licences and attribution
    recompute.py           the stdlib-only rebuild (also as recompute.ipynb)

Published index numbers carry one decimal; role-board numbers are unrounded floats (JSON
round-trips them exactly), so the role boards rebuild exactly and the index within
``method.tolerance``.

The two JSON files are published contracts that outside notebooks read: their field names
(camelCase included) and shape stay as they are, whatever the snapshot's own names (the
writers below map from the typed snapshot).
"""

from __future__ import annotations

import csv
import io
import json
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from builder.evidence.flips import FILE as FLIPS_FILE
from builder.evidence.flips import compute_flips_evidence, compute_styled_battles_files
from builder.snapshot.models import (
    Board,
    BoardRow,
    Calibration,
    CapabilityIndex,
    Observation,
    RowUncertainty,
    Snapshot,
    sources_playing,
)
from builder.snapshot.schema import SCHEMA_FILE
from builder.util.formats import INDEX_LICENCE, RATING_LICENCE
from builder.util.text import csv_cell

RECOMPUTE = Path(__file__).with_name("recompute.py")


def _attribution(snapshot: Snapshot) -> str:
    credits = [f"{s.title or s.name} ({s.licence})" for s in snapshot.sources]
    return "Derived from: " + "; ".join(credits) if credits else ""


def compute_citation(snapshot: Snapshot, site_url: str, what: str) -> str:
    date = snapshot.date
    key = re.sub(r"[^a-z0-9]", "", what.lower())[:24]
    return (
        f"@misc{{modelboards-{key}-{date},\n"
        f"  title        = {{ModelBoards {what}, snapshot {date}}},\n"
        f"  author       = {{{{ModelBoards}}}},\n"
        f"  year         = {{{date[:4]}}},\n"
        f"  howpublished = {{\\url{{{site_url}}}}},\n"
        f"  note         = {{Snapshot of {date}; data {INDEX_LICENCE if 'Index' in what else RATING_LICENCE}}}\n"
        f"}}"
    )


def compute_index_evidence(index: CapabilityIndex, snapshot: Snapshot, site_url: str) -> dict[str, Any]:
    """``evidence.json``: the Capability Index with every row behind every score."""
    settings = index.settings
    models = []
    for m in index.models:
        fusion = None
        if m.fusion:
            fusion = {"terms": [{"channel": t.channel, "mean": t.mean, "sigma": t.sigma,
                                 **({"from": t.from_identity} if t.from_identity is not None else {})}
                                for t in m.fusion.terms]}
        models.append({
            "name": m.name,
            "identityKey": m.identity,
            "maker": m.maker,
            "basis": m.basis,
            "score": m.score,
            "confidence": m.confidence,
            "rank": {"current": m.rank.current, "allVersions": m.rank.all_versions},
            "families": dict(m.families),
            "observations": [
                {"family": o.family, "board": o.board, "sourceScore": o.source_score, "share": o.share,
                 "confidence": o.confidence, "url": o.url, "date": o.date}
                for o in m.observations
            ],
            "fusion": fusion,
        })
    return {
        "generatedAt": snapshot.created_at,
        "snapshotDate": snapshot.date,
        "licence": INDEX_LICENCE,
        "attribution": _attribution(snapshot),
        "methodology": {
            "indexMethodId": index.method_id,
            "evidenceAdmissionMethodId": snapshot.method_id,
        },
        "method": {
            "tolerance": settings.tolerance,
            "specialistDeltaBound": settings.delta_bound,
            "familyWeights": dict(settings.family_weights),
            "sigmas": dict(settings.sigmas),
            "confidencePerSigma": settings.confidence_per_sigma,
        },
        "models": models,
        "citation": {"bibtex": compute_citation(snapshot, site_url, "Capability Index")},
    }


def _arena_feeds(snapshot: Snapshot) -> tuple[list[str], str | None]:
    arena = set(sources_playing(snapshot.sources, "arena"))
    feeds = sorted({o.feed for o in snapshot.observations if o.source in arena})
    text = next((f for f in feeds if f.endswith("/text")), None)
    return feeds, text


BOARD_ROW_KEYS = ("identity", "model", "r", "score", "rank", "partial", "partial_reasons", "families", "evaluators",
                  "coverage", "available_share")
CALIBRATION_KEYS = ("source", "feed", "release", "n", "overlap", "mu", "sigma", "alpha", "beta", "used", "reason")
OBSERVATION_KEYS = ("identity", "model", "source", "feed", "evaluator", "release", "raw", "calibrated", "date", "url")


def _pick(model: Any, keys: tuple[str, ...]) -> dict[str, Any]:
    """``{key: value}`` of a snapshot model in the order of ``keys`` (tuples as lists)."""
    out: dict[str, Any] = {}
    for k in keys:
        v = getattr(model, k)
        out[k] = list(v) if isinstance(v, tuple) else v
    return out


ROW_FIELDS = tuple(RowUncertainty.model_fields)
"A row's bootstrap fields (r_lo, r_hi, rank_lo, ...), in the order the snapshot declares them."
DRAW_ORDER = (
    "One random.Random(seed) stream, read only through random(); every round reads the same number of uniforms.",
    "1. One uniform per usable Arena observation, ascending (feed, identity, release, model): "
    "p = u (0 read as 2**-53), value = rating + sd * Phi^-1(p) by AS241, sd = (q975 - q025) / 3.92 (0 without both).",
    "2. Per used fit of a family feed, ascending (source, feed, release): n uniforms, overlap position floor(u * n) "
    "each (overlap keys ascending).",
    "3. With residualDraws 'source': two uniforms (v, u) per identity with a calibrated observation of a used fit, "
    "ascending identity; then two uniforms (v', u') per (identity, source) pair with such an observation, ascending "
    "(identity, source); then one uniform w per calibrated observation, fits in the order of step 2, observations "
    "ascending (identity, model). An observation takes the residual at position floor(x * n) of its fit's residuals "
    "sorted ascending: x = u (its model's quantile, shared by all the model's scores) when v < residualShare, else "
    "x = u' (shared by the model's scores from one source) when v' < residualShareSource, else x = w. "
    "residualShare: the median, over pairs of those fits of different sources with at least 10 common overlap keys, "
    "of the Pearson correlation of their residuals over the common keys (ascending), clamped to [0, 1]; over all "
    "such pairs when none is of different sources; 1 without any. residualShareSource: (m - residualShare) / "
    "(1 - residualShare), m the same median over pairs of fits of one source, clamped to [0, 1]; 0 without such a "
    "pair or when residualShare is 1. With residualDraws 'model' (downloads of 2026-12-01): no (v', u') draws, "
    "x = u when v < residualShare, else w; residualShare the median over all such pairs. Without residualDraws "
    "(older downloads): after each fit's n uniforms, one uniform per calibrated observation of that feed and "
    "release, ascending (identity, model), picking the residual at overlap position floor(u * n).",
    "Sums run left to right from 0.0: a refit's in draw order, a family's values in ascending (feed, release, model), "
    "families in ascending id. A refit with all raw scores equal or beta <= 0 drops its feed for that round.",
)
"The bootstrap's draw order as boards-evidence.json states it (builder.scoring.uncertainty implements it)."


def _residuals(c: Calibration, selected: list[Observation], text_feed: str | None) -> list[float] | None:
    """Arena text rating minus calibrated value per overlap key of a used fit (the bootstrap's pool):
    ``arena_k - (alpha + beta * (raw_k - mu) / sigma)``, the expression the bootstrap uses."""
    if not c.used or c.mu is None or c.sigma is None or c.alpha is None or c.beta is None:
        return None
    arena = {o.identity: o.raw for o in selected if o.feed == text_feed and o.raw is not None}
    raws: dict[str, float] = {}
    for o in selected:
        if (o.source, o.feed, o.release) == (c.source, c.feed, c.release) and o.raw is not None:
            raws[o.identity] = max(raws.get(o.identity, o.raw), o.raw)
    if not all(k in arena and k in raws for k in c.overlap):
        return None
    alpha, beta, mu, sigma = c.alpha, c.beta, c.mu, c.sigma
    return [arena[k] - (alpha + beta * (raws[k] - mu) / sigma) for k in c.overlap]


def _uncertainty_settings(snapshot: Snapshot) -> dict[str, Any] | None:
    u = snapshot.uncertainty
    if u is None or not u.rounds:
        return None
    return {"rounds": u.rounds, "seed": u.seed, "interval": list(u.interval), "tieThreshold": u.tie_threshold,
            "pairwiseTop": u.pairwise_top, "arenaSdDivisor": u.arena_sd_divisor,
            "drawsPerRound": u.draws_per_round, "drawOrder": list(DRAW_ORDER), "tieGroups": u.tie_groups,
            "residualDraws": u.residual_draws, "residualShare": u.residual_share,
            "residualShareSource": u.residual_share_source}


def _board_row(row: BoardRow) -> dict[str, Any]:
    unc = row.uncertainty
    return {**_pick(row, BOARD_ROW_KEYS), **{k: getattr(unc, k) if unc is not None else None for k in ROW_FIELDS}}


def _arena_interval(o: Observation, arena: set[str], key: str) -> Any:
    return o.details.get(key) if o.feed in arena else None


def _board_robustness(board: Board) -> dict[str, Any] | None:
    """A board's robustness as ``recompute.py`` checks it: the board part and, per ranked row,
    its leave-one-out ranks and flag (null when the snapshot has none)."""
    if board.robustness is None:
        return None
    return {**board.robustness.model_dump(mode="json"),
            "rows": {r.identity: {"loo_ranks": dict(r.loo_ranks), "depends_on": list(r.depends_on),
                                  "depends_on_one": r.depends_on_one} for r in board.rows}}


def compute_boards_evidence(snapshot: Snapshot, site_url: str) -> dict[str, Any]:
    """``boards-evidence.json``: enough to rebuild every role-board number exactly, the
    bootstrap's intervals, rank ranges and ties included (seed, Arena intervals, residuals)."""
    arena_feeds, text_feed = _arena_feeds(snapshot)
    selected = [o for o in snapshot.observations if o.selected and not o.excluded and o.raw is not None]
    usable = [o for o in selected if o.calibrated is not None]
    boards = []
    for b in snapshot.boards:
        pairwise = b.uncertainty.pairwise if b.uncertainty is not None else None
        boards.append({
            "id": b.id, "title": b.title, "role": b.role, "weights": dict(b.weights),
            "rows": [_board_row(row) for row in b.rows],
            "new": [_board_row(row) for row in b.new],
            "pairwise": {"identities": list(pairwise.identities), "p_greater": [list(r) for r in pairwise.p_greater]}
            if pairwise is not None else None,
            "robustness": _board_robustness(b),
        })
    arena = set(arena_feeds)
    return {
        "generatedAt": snapshot.created_at,
        "snapshotDate": snapshot.date,
        "methodId": snapshot.method_id,
        "licence": RATING_LICENCE,
        "attribution": _attribution(snapshot),
        "arenaFeeds": arena_feeds,
        "arenaTextFeed": text_feed,
        "families": {k: list(v.feeds) for k, v in snapshot.families.items()},
        "calibrations": [{**_pick(c, CALIBRATION_KEYS), "residuals": _residuals(c, selected, text_feed)}
                         for c in snapshot.calibration],
        "selected": [_pick(o, ("identity", "model", "feed", "release", "raw")) for o in selected],
        "observations": [{**_pick(o, OBSERVATION_KEYS), "q025": _arena_interval(o, arena, "rating_q025"),
                          "q975": _arena_interval(o, arena, "rating_q975")} for o in usable],
        "uncertainty": _uncertainty_settings(snapshot),
        "boards": boards,
        "citation": {"bibtex": compute_citation(snapshot, site_url, "role boards")},
    }


INDEX_CSV_COLUMNS = ["rank", "identityKey", "name", "maker", "basis", "score", "confidence",
                     "general", "coding", "agent", "reasoning"]


def render_index_csv(evidence: Mapping[str, Any], board: str) -> str:
    rows = sorted((m for m in evidence["models"] if m["rank"][board] is not None), key=lambda m: m["rank"][board])
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(INDEX_CSV_COLUMNS)
    for m in rows:
        f = m["families"]
        w.writerow([m["rank"][board], csv_cell(m["identityKey"]), csv_cell(m["name"]), csv_cell(m.get("maker")),
                    m["basis"],
                    f"{m['score']:.1f}", f"{m['confidence']:.1f}",
                    *(f"{f[k]:.1f}" if k in f else "" for k in ("general", "coding", "agent", "reasoning"))])
    return buf.getvalue()


README_FILES: tuple[tuple[str, str, str], ...] = (
    ("evidence.json", "the Capability Index: every model's rows (board, family, sourceScore, share, confidence, "
     "link, date), family scores, fusion terms, score, confidence and ranks", INDEX_LICENCE),
    ("boards-evidence.json", "the role boards: every calibration (feed, release, overlap models, mu, sigma, alpha, "
     "beta, residuals), every usable observation with raw and calibrated values (Arena ones with their published "
     "q025/q975), each board's family means, R, displayed score, rank and labels, and the bootstrap (rounds, seed, "
     "draw order) with each row's r_lo, r_hi, rank_lo, rank_hi, rank_ub, p_first, p_above, tied_above, tie_leader, "
     "p_leader and each board's top-20 pairwise matrix", RATING_LICENCE),
    ("index-current.csv", "the index board of current versions", INDEX_LICENCE),
    ("index-all-versions.csv", "the index board of all versions", INDEX_LICENCE),
    ("arena-flips.json", "each fitted Arena board's pair-outcome vote counts, plain ratings and vote flip "
     "budgets (the votes whose removal reverses an adjacent pair of the top 10), and for the style-controlled "
     "budgets the fit's settings, ratings and coefficients, for refitting", RATING_LICENCE),
    ("styled-battles-<board>.csv.gz", "the battles of a board's style-controlled fit, in file order (gzip CSV: "
     "model codes, outcome, raw style features), for refitting its flip budgets", RATING_LICENCE),
    ("recompute.py, recompute.ipynb", "the rebuild script (the same code in notebook cells)", "MIT"),
)
"(file, what it holds, licence) rows of the README's table."


def render_readme(snapshot: Snapshot, site_url: str) -> str:
    sources = "\n".join(f"- {s.title or s.name}: {s.licence}. {s.attribution or ''}" for s in snapshot.sources)
    table = "\n".join(f"| {name} | {what} | {licence} |" for name, what, licence in README_FILES)
    return f"""# ModelBoards evidence, snapshot {snapshot.date}

Everything here rebuilds with Python's standard library alone:

    python recompute.py            # reads the JSON files beside it
    python recompute.py {site_url.rstrip('/')}/data/

| file | what it holds | licence |
|---|---|---|
{table}

The numbers are ModelBoards' normalisation and aggregation of public evaluations. Each
upstream source keeps its own licence and attribution:

{sources}

Raw upstream payloads are not redistributed here.

These files are derived from the day's snapshot, `snapshots/{snapshot.date}.json` (the
complete input of the site's pages, under `snapshots/` beside this file). Its fields are
documented in the JSON Schema `{SCHEMA_FILE}` beside this file (draft 2020-12).
"""


def render_notebook(script: str) -> str:
    """The recompute script as notebook cells (split at its section rulers)."""
    parts = re.split(r"\n(?=# -{20,})", script)
    cells: list[dict[str, Any]] = [{"cell_type": "markdown", "metadata": {}, "source": [
        "# Rebuild ModelBoards' published numbers\n",
        "Standard library only. Run all cells; the last one prints what was reproduced.\n"]}]
    for part in parts:
        body = part.replace('if __name__ == "__main__":\n    sys.exit(main(sys.argv))', "main(['recompute', '.'])")
        cells.append({"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [],
                      "source": [line + "\n" for line in body.strip("\n").split("\n")]})
    kernel = {"display_name": "Python 3", "language": "python", "name": "python3"}
    nb = {"cells": cells, "metadata": {"kernelspec": kernel, "language_info": {"name": "python"}},
          "nbformat": 4, "nbformat_minor": 5}
    return json.dumps(nb, indent=1) + "\n"


def compute_evidence_files(snapshot: Snapshot, site_url: str) -> dict[str, str | bytes]:
    """File name (under ``data/``) -> text (bytes for the gzip files) of every evidence download."""
    files: dict[str, str | bytes] = {}
    boards = compute_boards_evidence(snapshot, site_url)
    files["boards-evidence.json"] = json.dumps(boards, indent=1, ensure_ascii=False) + "\n"
    if snapshot.index:
        ev = compute_index_evidence(snapshot.index, snapshot, site_url)
        files["evidence.json"] = json.dumps(ev, indent=1, ensure_ascii=False) + "\n"
        files["index-current.csv"] = render_index_csv(ev, "current")
        files["index-all-versions.csv"] = render_index_csv(ev, "allVersions")
    flips = compute_flips_evidence(snapshot)
    if flips is not None:
        files[FLIPS_FILE] = json.dumps(flips, indent=1, ensure_ascii=False) + "\n"
        files.update(compute_styled_battles_files(snapshot))
    script = RECOMPUTE.read_text(encoding="utf-8")
    files["recompute.py"] = script
    files["recompute.ipynb"] = render_notebook(script)
    files["README.md"] = render_readme(snapshot, site_url)
    return files
