"""The Evals pages (``/evals/`` and ``/evals/<suite>/``) and their downloads, from the snapshot's ``evals``.

Nothing is re-aggregated here: every number comes from the snapshot's suites (see
``builder.evals.section``). Per suite and metric the page shows the leaderboard (mean with
its CI as numbers and as an SVG bar on the fixed score axis [0, 1], win rate, tasks, one
column per category) and the pairwise significance matrix.

Significance matrix: cell (row i, column j) is the paired difference ``mean_i - mean_j``
over the tasks both models have, from the snapshot's pairwise row of the two models (stored
with the higher-ranked model first as ``model_a``; read the other way round the difference
and its interval change sign: ``(d, lo, hi) -> (-d, -hi, -lo)``). A cell is marked
significant exactly when that row's ``significant`` is true (its CI excludes zero); every
other pair reads "tie"; a pair without common tasks reads "no common tasks".

Downloads written into the site, per suite (``<id>`` is the suite id, or a safe slug of it)::

    data/evals/<id>.json           {"schema", "suite": {id, title, kind, description, metric,
                                    metrics, inputs}, "date", "demo", "reports": [{metric,
                                    n_tasks, n_models, categories, bootstrap, alpha, seed,
                                    rows, pairwise}], "clarify"? {overall, models}} (clarify
                                    summaries keep the report's TKQR / ORA key names)
    data/evals/<id>.csv            EVAL_CSV_COLUMNS + one ``category_<name>`` column per category;
                                   one row per model and metric (the shown metric first)
    data/evals/<id>-pairwise.csv   metric, model_a, model_b, diff, ci_lo, ci_hi, n_tasks, significant
    data/evals/<id>.md             the aggregator's markdown table of the shown metric, as in the snapshot
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Mapping, Sequence
from typing import Any

from builder.render.pages.arena import identity_for, spelling_identities
from builder.render.writer import SiteWriter, Snap, current
from builder.snapshot.models import ClarifySummary, EvalBoard, EvalPair, EvalRow, EvalSuite, ModelFacts
from builder.util.formats import EVALS_REPORT_SCHEMA
from builder.util.text import csv_cell

EVAL_CSV_COLUMNS: tuple[str, ...] = (
    "metric", "rank", "model_id", "mean_score", "mean_ci_lo", "mean_ci_hi", "win_rate", "tasks_completed",
)
PAIRWISE_CSV_COLUMNS: tuple[str, ...] = (
    "metric", "model_a", "model_b", "diff", "ci_lo", "ci_hi", "n_tasks", "significant",
)

# CI bar inside the leaderboard: the score axis [0, 1] onto [PAD, W - PAD].
BAR_W, BAR_H, BAR_PAD = 160, 16, 4


def suite_slug(suite: EvalSuite) -> str:
    """The suite's folder and file name: its id (URL-safe, the snapshot schema requires it)."""
    return suite.id


def _x(v: float) -> float:
    return round(BAR_PAD + min(1.0, max(0.0, float(v))) * (BAR_W - 2 * BAR_PAD), 1)


def compute_score_bar(row: EvalRow) -> dict[str, float]:
    """Geometry of a mean and its CI on the [0, 1] axis: rect ``x``..``x + w``, point at ``cx``."""
    lo, hi = row.mean_ci_lo, row.mean_ci_hi
    return {"x": _x(lo), "w": round(max(_x(hi) - _x(lo), 1.0), 1), "cx": _x(row.mean_score)}


def compute_significance_matrix(models: Sequence[str], pairwise: Sequence[EvalPair]) -> list[list[dict[str, Any]]]:
    """Cells ``[i][j]`` for row model i against column model j (see the module docstring).

    Each cell: ``{"a", "b", "diag", "diff", "ci_lo", "ci_hi", "n_tasks", "significant",
    "state"}`` with ``state`` one of ``"diag"``, ``"better"``/``"worse"`` (significant, row
    minus column above / below zero), ``"tie"``, ``"none"`` (no common tasks or no row).
    """
    by_pair = {(p.model_a, p.model_b): p for p in pairwise}
    out = []
    for a in models:
        cells = []
        for b in models:
            cell: dict[str, Any] = {"a": a, "b": b, "diag": a == b, "diff": None, "ci_lo": None, "ci_hi": None,
                                    "n_tasks": 0, "significant": False, "state": "diag" if a == b else "none"}
            if a != b:
                p, sign = by_pair.get((a, b)), 1.0
                if p is None:
                    p, sign = by_pair.get((b, a)), -1.0
                if p is not None and p.diff is not None:
                    lo, hi = p.ci_lo, p.ci_hi
                    cell["diff"] = sign * p.diff
                    if lo is not None and hi is not None:
                        cell["ci_lo"], cell["ci_hi"] = (lo, hi) if sign > 0 else (-hi, -lo)
                    cell["n_tasks"] = p.n_tasks
                    cell["significant"] = p.significant
                    if cell["significant"]:
                        cell["state"] = "better" if cell["diff"] > 0 else "worse"
                    else:
                        cell["state"] = "tie"
            cells.append(cell)
        out.append(cells)
    return out


def _boards(suite: EvalSuite) -> list[tuple[str, EvalBoard]]:
    """(metric, board) pairs, the suite's shown metric first, then the others in their order."""
    boards, metric = suite.boards, suite.metric
    order = [metric] + [m for m in suite.metrics if m != metric]
    order += [m for m in boards if m not in order]
    return [(m, boards[m]) for m in order if m in boards]


def compute_suite_view(suite: EvalSuite, models: Mapping[str, ModelFacts]) -> dict[str, Any]:
    """What the suite template prints: per metric its rows (with ``identity``, ``rank`` and
    ``bar``), categories, significance matrix and pairwise rows; and the clarify summary."""
    index = spelling_identities(models)
    boards = []
    for k, (metric, board) in enumerate(_boards(suite)):
        rows = board.rows
        cats = list(board.categories or suite.categories)
        if not cats:
            cats = sorted({c for r in rows for c in r.categories})
        names = [r.model_id for r in rows]
        view_rows = [{**r.model_dump(), "rank": n, "identity": identity_for(r.model_id, index),
                      "bar": compute_score_bar(r)} for n, r in enumerate(rows, 1)]
        matrix = compute_significance_matrix(names, board.pairwise)
        pairs = board.pairwise
        boards.append({"metric": metric, "anchor": f"metric-{k + 1}", "rows": view_rows, "categories": cats,
                       "n_tasks": board.n_tasks, "matrix": matrix, "names": names,
                       "identities": [identity_for(n, index) for n in names],
                       "pairs": pairs, "n_significant": sum(1 for p in pairs if p.significant)})
    clarify = suite.clarify
    clarify_rows = []
    if clarify:
        for model, summ in clarify.models.items():
            clarify_rows.append({"model": model, "identity": identity_for(model, index), **summ.model_dump()})
    return {"boards": boards, "clarify": clarify, "clarify_rows": clarify_rows,
            "ci": f"{100 * (1 - suite.alpha):g}", "slug": suite_slug(suite),
            "bar": {"width": BAR_W, "height": BAR_H,
                    "ticks": [{"x": _x(t), "label": f"{t:g}"} for t in (0, 0.25, 0.5, 0.75, 1)]}}


# --------------------------------------------------------------------------- downloads


def render_suite_csv(suite: EvalSuite) -> str:
    """``data/evals/<id>.csv``: every metric's rows (the shown metric first), ``\\n`` endings;
    floats by ``repr``, absent values empty, ``category_<name>`` columns in sorted order."""
    boards = _boards(suite)
    cats = sorted({c for _, b in boards for r in b.rows for c in r.categories})
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow([*EVAL_CSV_COLUMNS, *(f"category_{c}" for c in cats)])
    for metric, board in boards:
        for n, r in enumerate(board.rows, 1):
            values = [metric, n, *(getattr(r, c) for c in EVAL_CSV_COLUMNS[2:])]
            values += [r.categories.get(c) for c in cats]
            w.writerow([csv_cell(v) for v in values])
    return buf.getvalue()


def render_pairwise_csv(suite: EvalSuite) -> str:
    """``data/evals/<id>-pairwise.csv``: every metric's pairwise rows; ``significant`` is true/false."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(PAIRWISE_CSV_COLUMNS)
    for metric, board in _boards(suite):
        for p in board.pairwise:
            values = [metric, *(getattr(p, c) for c in PAIRWISE_CSV_COLUMNS[1:-1]), p.significant]
            w.writerow([csv_cell(v) for v in values])
    return buf.getvalue()


def _report_summary(s: ClarifySummary) -> dict[str, Any]:
    """A clarify summary under the report's key names (TKQR, ORA)."""
    return {"num_tasks": s.num_tasks, "num_files": s.num_files, "TKQR": s.tkqr, "ORA": s.ora,
            "avg_turns": s.avg_turns, "avg_diff": s.avg_diff, "tkqr_above_one": s.tkqr_above_one}


def render_suite_json(suite: EvalSuite, snapshot: Snap) -> str:
    """``data/evals/<id>.json``: the suite's reports in the ``evals aggregate --json`` shape."""
    doc: dict[str, Any] = {
        "schema": EVALS_REPORT_SCHEMA,
        "suite": suite.model_dump(mode="json", include={"id", "title", "kind", "description", "metric", "metrics",
                                                         "inputs"}),
        "date": snapshot.date,
        "demo": snapshot.demo,
        "reports": [
            {"metric": metric, "n_tasks": b.n_tasks, "n_models": len(b.rows),
             "categories": list(b.categories), "bootstrap": suite.bootstrap,
             "alpha": suite.alpha, "seed": suite.seed,
             "rows": [r.model_dump(mode="json") for r in b.rows],
             "pairwise": [p.model_dump(mode="json") for p in b.pairwise]}
            for metric, b in _boards(suite)
        ],
    }
    if suite.clarify is not None:
        doc["clarify"] = {"overall": _report_summary(suite.clarify.overall),
                          "models": {m: _report_summary(x) for m, x in suite.clarify.models.items()}}
    return json.dumps(doc, indent=1, ensure_ascii=False, allow_nan=False) + "\n"


# --------------------------------------------------------------------------- section


def _suites(snap: Snap | None) -> tuple[EvalSuite, ...]:
    return snap.evals.suites if snap is not None and snap.evals is not None else ()


def render_evals(w: SiteWriter) -> None:
    """Write ``evals/index.html``, one page per suite and each suite's four downloads."""
    snap = current(w)
    entries = []
    for suite in _suites(snap):
        view = compute_suite_view(suite, snap.models)
        slug = view["slug"]
        files = {"json": f"data/evals/{slug}.json", "csv": f"data/evals/{slug}.csv",
                 "pairwise": f"data/evals/{slug}-pairwise.csv", "md": f"data/evals/{slug}.md"}
        w.file(files["json"], render_suite_json(suite, snap))
        w.file(files["csv"], render_suite_csv(suite))
        w.file(files["pairwise"], render_pairwise_csv(suite))
        w.file(files["md"], suite.markdown)
        title = suite.title or suite.id
        w.page(f"evals/{slug}/index.html", "eval_suite.html", title=title, section="evals",
               description=suite.description or f"Eval suite {title}",
               suite=suite, view=view, files=files)
        top = view["boards"][0]["rows"][0] if view["boards"] and view["boards"][0]["rows"] else None
        entries.append({"suite": suite, "slug": slug, "title": title, "top": top, "files": files,
                        "n_significant": view["boards"][0]["n_significant"] if view["boards"] else 0,
                        "n_pairs": len(view["boards"][0]["pairs"]) if view["boards"] else 0})
    w.page("evals/index.html", "evals.html", title="Eval suites", section="evals",
           description="The operator's own evaluation suites: means with bootstrap intervals, win rates and "
                       "paired significance.",
           entries=entries)


def evals_available(snap: Snap | None, history: Sequence[Snap]) -> bool:
    """Built when the snapshot has at least one eval suite."""
    return bool(_suites(snap))


__all__ = [
    "EVAL_CSV_COLUMNS",
    "PAIRWISE_CSV_COLUMNS",
    "compute_score_bar",
    "compute_significance_matrix",
    "compute_suite_view",
    "evals_available",
    "render_evals",
    "render_pairwise_csv",
    "render_suite_csv",
    "render_suite_json",
    "suite_slug",
]
