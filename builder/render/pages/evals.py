"""The Evals pages (``/evals/`` and ``/evals/<suite>/``) and their downloads, from ``snapshot["evals"]``.

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
                                    rows, pairwise}], "clarify"? {overall, models}}
    data/evals/<id>.csv            EVAL_CSV_COLUMNS + one ``category_<name>`` column per category;
                                   one row per model and metric (the shown metric first)
    data/evals/<id>-pairwise.csv   metric, model_a, model_b, diff, ci_lo, ci_hi, n_tasks, significant
    data/evals/<id>.md             seed 003's markdown table of the shown metric, as in the snapshot
"""

from __future__ import annotations

import csv
import io
import json
import math
import re
from collections.abc import Mapping, Sequence
from typing import Any

from builder.render.pages.arena import identity_for, spelling_identities
from builder.render.writer import Snap, SiteWriter, current
from builder.util.formats import EVALS_REPORT_SCHEMA
from builder.util.text import csv_cell, model_slug

EVAL_CSV_COLUMNS: tuple[str, ...] = (
    "metric", "rank", "model_id", "mean_score", "mean_ci_lo", "mean_ci_hi", "win_rate", "tasks_completed",
)
PAIRWISE_CSV_COLUMNS: tuple[str, ...] = (
    "metric", "model_a", "model_b", "diff", "ci_lo", "ci_hi", "n_tasks", "significant",
)
_SUITE_ID = re.compile(r"^[a-z0-9][a-z0-9-]{0,79}$")

# CI bar inside the leaderboard: the score axis [0, 1] onto [PAD, W - PAD].
BAR_W, BAR_H, BAR_PAD = 160, 16, 4


def _finite(x: Any) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)


def suite_slug(suite_id: Any) -> str:
    """The suite's folder and file name: its id when it is URL-safe (as ``site.yml`` requires),
    else a hashed slug (a snapshot passed by path could hold anything)."""
    s = str(suite_id)
    return s if _SUITE_ID.match(s) else model_slug(s)


def _x(v: float) -> float:
    return round(BAR_PAD + min(1.0, max(0.0, float(v))) * (BAR_W - 2 * BAR_PAD), 1)


def compute_score_bar(row: Mapping[str, Any]) -> dict[str, float] | None:
    """Geometry of a mean and its CI on the [0, 1] axis: rect ``x``..``x + w``, point at ``cx``."""
    lo, hi, mean = row.get("mean_ci_lo"), row.get("mean_ci_hi"), row.get("mean_score")
    if not (_finite(lo) and _finite(hi) and _finite(mean)):
        return None
    return {"x": _x(lo), "w": round(max(_x(hi) - _x(lo), 1.0), 1), "cx": _x(mean)}


def compute_significance_matrix(
    models: Sequence[str], pairwise: Sequence[Mapping[str, Any]]
) -> list[list[dict[str, Any]]]:
    """Cells ``[i][j]`` for row model i against column model j (see the module docstring).

    Each cell: ``{"a", "b", "diag", "diff", "ci_lo", "ci_hi", "n_tasks", "significant",
    "state"}`` with ``state`` one of ``"diag"``, ``"better"``/``"worse"`` (significant, row
    minus column above / below zero), ``"tie"``, ``"none"`` (no common tasks or no row).
    """
    by_pair: dict[tuple[str, str], Mapping[str, Any]] = {}
    for p in pairwise:
        if isinstance(p, Mapping):
            by_pair[(str(p.get("model_a")), str(p.get("model_b")))] = p
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
                if p is not None and _finite(p.get("diff")):
                    lo, hi = p.get("ci_lo"), p.get("ci_hi")
                    cell["diff"] = sign * p["diff"]
                    if _finite(lo) and _finite(hi):
                        cell["ci_lo"], cell["ci_hi"] = (lo, hi) if sign > 0 else (-hi, -lo)
                    cell["n_tasks"] = p.get("n_tasks") or 0
                    cell["significant"] = p.get("significant") is True
                    if cell["significant"]:
                        cell["state"] = "better" if cell["diff"] > 0 else "worse"
                    else:
                        cell["state"] = "tie"
            cells.append(cell)
        out.append(cells)
    return out


def _boards(suite: Mapping[str, Any]) -> list[tuple[str, Mapping[str, Any]]]:
    """(metric, board) pairs, the suite's shown metric first, then the others in their order."""
    boards = suite.get("boards") or {}
    metric = suite.get("metric")
    if not boards:
        return [(str(metric), {"rows": suite.get("rows") or [], "pairwise": suite.get("pairwise") or [],
                               "categories": suite.get("categories") or [], "n_tasks": suite.get("n_tasks"),
                               "markdown": suite.get("markdown") or ""})]
    order = ([metric] if metric in boards else []) + [m for m in suite.get("metrics") or boards if m != metric]
    order += [m for m in boards if m not in order]
    return [(str(m), boards[m]) for m in order if isinstance(boards.get(m), Mapping)]


def compute_suite_view(suite: Mapping[str, Any], models: Mapping[str, Any] | None) -> dict[str, Any]:
    """What the suite template prints: per metric its rows (with ``identity``, ``rank`` and
    ``bar``), categories, significance matrix and pairwise rows; and the clarify summary."""
    index = spelling_identities(models)
    boards = []
    for k, (metric, board) in enumerate(_boards(suite)):
        rows = [r for r in board.get("rows") or [] if isinstance(r, Mapping)]
        cats = list(board.get("categories") or suite.get("categories") or [])
        if not cats:
            cats = sorted({c for r in rows for c in (r.get("categories") or {})})
        names = [str(r.get("model_id")) for r in rows]
        view_rows = [{**r, "rank": n, "identity": identity_for(r.get("model_id"), index),
                      "bar": compute_score_bar(r)} for n, r in enumerate(rows, 1)]
        matrix = compute_significance_matrix(names, board.get("pairwise") or [])
        pairs = [p for p in board.get("pairwise") or [] if isinstance(p, Mapping)]
        boards.append({"metric": metric, "anchor": f"metric-{k + 1}", "rows": view_rows, "categories": cats,
                       "n_tasks": board.get("n_tasks"), "matrix": matrix, "names": names,
                       "identities": [identity_for(n, index) for n in names],
                       "pairs": pairs, "n_significant": sum(1 for p in pairs if p.get("significant") is True)})
    clarify = suite.get("clarify") if isinstance(suite.get("clarify"), Mapping) else None
    clarify_rows = []
    if clarify:
        for model, summ in (clarify.get("models") or {}).items():
            if isinstance(summ, Mapping):
                clarify_rows.append({"model": model, "identity": identity_for(model, index), **summ})
    alpha = suite.get("alpha") if _finite(suite.get("alpha")) else 0.05
    return {"boards": boards, "clarify": clarify, "clarify_rows": clarify_rows,
            "ci": f"{100 * (1 - alpha):g}", "slug": suite_slug(suite.get("id")),
            "bar": {"width": BAR_W, "height": BAR_H, "ticks": [{"x": _x(t), "label": f"{t:g}"} for t in (0, 0.25, 0.5, 0.75, 1)]}}


# --------------------------------------------------------------------------- downloads


def render_suite_csv(suite: Mapping[str, Any]) -> str:
    """``data/evals/<id>.csv``: every metric's rows (the shown metric first), ``\\n`` endings;
    floats by ``repr``, absent values empty, ``category_<name>`` columns in sorted order."""
    boards = _boards(suite)
    cats = sorted({c for _, b in boards for r in b.get("rows") or [] for c in (r.get("categories") or {})})
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow([*EVAL_CSV_COLUMNS, *(f"category_{c}" for c in cats)])
    for metric, board in boards:
        for n, r in enumerate(board.get("rows") or [], 1):
            values = [metric, n, *(r.get(c) for c in EVAL_CSV_COLUMNS[2:])]
            values += [(r.get("categories") or {}).get(c) for c in cats]
            w.writerow([csv_cell(v) for v in values])
    return buf.getvalue()


def render_pairwise_csv(suite: Mapping[str, Any]) -> str:
    """``data/evals/<id>-pairwise.csv``: every metric's pairwise rows; ``significant`` is true/false."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(PAIRWISE_CSV_COLUMNS)
    for metric, board in _boards(suite):
        for p in board.get("pairwise") or []:
            values = [metric, *(p.get(c) for c in PAIRWISE_CSV_COLUMNS[1:-1]), p.get("significant") is True]
            w.writerow([csv_cell(v) for v in values])
    return buf.getvalue()


def render_suite_json(suite: Mapping[str, Any], snapshot: Mapping[str, Any]) -> str:
    """``data/evals/<id>.json``: the suite's reports in the ``evals aggregate --json`` shape."""
    doc: dict[str, Any] = {
        "schema": EVALS_REPORT_SCHEMA,
        "suite": {k: suite.get(k) for k in ("id", "title", "kind", "description", "metric", "metrics", "inputs")},
        "date": snapshot.get("date"),
        "demo": bool(snapshot.get("demo")),
        "reports": [
            {"metric": metric, "n_tasks": b.get("n_tasks"), "n_models": len(b.get("rows") or []),
             "categories": list(b.get("categories") or []), "bootstrap": suite.get("bootstrap"),
             "alpha": suite.get("alpha"), "seed": suite.get("seed"),
             "rows": list(b.get("rows") or []), "pairwise": list(b.get("pairwise") or [])}
            for metric, b in _boards(suite)
        ],
    }
    if isinstance(suite.get("clarify"), Mapping):
        doc["clarify"] = suite["clarify"]
    return json.dumps(doc, indent=1, ensure_ascii=False, allow_nan=False) + "\n"


# --------------------------------------------------------------------------- section


def _suites(snap: Mapping[str, Any] | None) -> list[Mapping[str, Any]]:
    evals = (snap or {}).get("evals")
    suites = evals.get("suites") if isinstance(evals, Mapping) else None
    return [s for s in suites or [] if isinstance(s, Mapping) and s.get("id") is not None]


def render_evals(w: SiteWriter) -> None:
    """Write ``evals/index.html``, one page per suite and each suite's four downloads."""
    snap = current(w)
    entries = []
    for suite in _suites(snap):
        view = compute_suite_view(suite, snap.get("models"))
        slug = view["slug"]
        files = {"json": f"data/evals/{slug}.json", "csv": f"data/evals/{slug}.csv",
                 "pairwise": f"data/evals/{slug}-pairwise.csv", "md": f"data/evals/{slug}.md"}
        w.file(files["json"], render_suite_json(suite, snap))
        w.file(files["csv"], render_suite_csv(suite))
        w.file(files["pairwise"], render_pairwise_csv(suite))
        w.file(files["md"], str(suite.get("markdown") or ""))
        title = str(suite.get("title") or suite.get("id"))
        w.page(f"evals/{slug}/index.html", "eval_suite.html", title=title, section="evals",
               description=str(suite.get("description") or f"Eval suite {title}"),
               suite=suite, view=view, files=files)
        top = view["boards"][0]["rows"][0] if view["boards"] and view["boards"][0]["rows"] else None
        entries.append({"suite": suite, "slug": slug, "title": title, "top": top, "files": files,
                        "n_significant": view["boards"][0]["n_significant"] if view["boards"] else 0,
                        "n_pairs": len(view["boards"][0]["pairs"]) if view["boards"] else 0})
    w.page("evals/index.html", "evals.html", title="Eval suites", section="evals",
           description="The operator's own evaluation suites: means with bootstrap intervals, win rates and paired significance.",
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
