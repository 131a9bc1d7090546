"""The snapshot's ``"evals"`` section: every suite configured in ``site.yml``, aggregated.

``compute_evals_section(suites, base)`` reads each suite's files (the only I/O here: no
network, nothing written) and returns a JSON-able dict:

    {"suites": [
        {"id", "title", "kind" ("aggregate" | "clarify"), "description",
         "metric":      the metric shown (suite.metric, else the first one found),
         "metrics":     every metric found, in order of first appearance,
         "n_tasks", "n_models", "categories" (sorted category names; may be empty),
         "bootstrap", "alpha", "seed", "inputs" (paths as configured),
         "rows":     [{model_id, mean_score, mean_ci_lo, mean_ci_hi, win_rate,
                       tasks_completed, categories: {category: mean}}], best mean first,
         "pairwise": [{model_a, model_b, diff, ci_lo, ci_hi, n_tasks, significant}],
                     every pair, the higher-ranked model first (numbers None without
                     common tasks),
         "markdown": seed 003's table of "rows",
         "boards":   {metric: {"n_tasks", "rows", "pairwise", "markdown"}} for every metric
                     ("rows"/"pairwise"/"markdown" above are boards[metric]),
         "clarify":  clarify suites only: {"overall": {...}, "models": {model: {...}}},
                     seed 002's num_tasks, num_files, TKQR, ORA, avg_turns, avg_diff}
     ]}

Scores and CIs are on the metric's [0, 1] scale; win rates are shares in [0, 1]. The
bootstrap uses the suite's ``bootstrap`` rounds and ``seed`` with alpha 0.05, so a
snapshot is reproducible from its inputs.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from builder.config import PACKAGE_DATA, EvalSuiteConfig
from builder.errors import UserError
from builder.evals.aggregate import AGGREGATE_ALPHA, compute_eval_reports
from builder.evals.clarify import (
    clarify_eval_runs,
    compute_clarify_summaries,
    compute_clarify_summary,
    read_clarify_scores,
)
from builder.evals.io import FORMATS, read_eval_runs
from builder.evals.report import render_markdown

SUITE_ALPHA = AGGREGATE_ALPHA


def resolve_suite_path(path: str, base: Path | None) -> Path:
    """Like ``SourceConfig.recorded_path``: absolute as is, else under ``base`` when it exists
    there, else under the package's ``data/`` folder."""
    p = Path(path)
    if p.is_absolute():
        return p
    if base is not None and (base / p).exists():
        return base / p
    return PACKAGE_DATA / p


def find_eval_files(paths: Sequence[Path]) -> list[Path]:
    """Files as given; folders searched recursively (sorted) for .jsonl / .csv / .json files."""
    out: list[Path] = []
    for p in paths:
        if p.is_dir():
            out.extend(sorted(f for f in p.rglob("*") if f.is_file() and f.suffix.lower() in FORMATS))
        elif p.exists():
            out.append(p)
        else:
            raise UserError(f"{p}: no such eval file or folder")
    return out


def compute_evals_section(suites: Sequence[EvalSuiteConfig], base: Path | None) -> dict[str, Any]:
    """Aggregate every suite (in config order) into the snapshot's ``"evals"`` dict."""
    return {"suites": [compute_suite_section(s, base) for s in suites]}


def read_suite_files(suite: EvalSuiteConfig, base: Path | None) -> tuple[tuple[Any, ...], tuple[Any, ...] | None]:
    """Read and check every file of one suite: ``(EvalRun records, clarify scores or None)``.

    Raises UserError naming the file, line and value. The build calls it for every suite
    before fetching, so a bad operator file stops the run before anything is written.
    """
    paths = [resolve_suite_path(p, base) for p in suite.paths]
    if suite.kind == "clarify":
        scores = read_clarify_scores(paths)
        return tuple(clarify_eval_runs(scores)), tuple(scores)
    files = find_eval_files(paths)
    if not files:
        raise UserError(f"evals suite {suite.id!r}: no eval files under {', '.join(map(str, paths))}")
    return tuple(read_eval_runs(files)), None


def compute_suite_section(suite: EvalSuiteConfig, base: Path | None) -> dict[str, Any]:
    """One suite's dict (see the module docstring). Raises UserError for bad files or metric."""
    paths = [resolve_suite_path(p, base) for p in suite.paths]
    clarify: dict[str, Any] | None = None
    runs, scores = read_suite_files(suite, base)
    if scores is not None:
        clarify = {
            "overall": compute_clarify_summary(scores).to_json(),
            "models": {m: s.to_json() for m, s in compute_clarify_summaries(scores).items()},
        }
    if not runs:
        raise UserError(f"evals suite {suite.id!r}: no eval records in {', '.join(map(str, paths))}")
    if suite.bootstrap < 1:
        raise UserError(f"evals suite {suite.id!r}: bootstrap must be >= 1 ({suite.bootstrap})")
    reports = compute_eval_reports(runs, b=suite.bootstrap, alpha=SUITE_ALPHA, seed=suite.seed)
    metrics = [r.metric for r in reports]
    metric = suite.metric or metrics[0]
    if metric not in metrics:
        raise UserError(f"evals suite {suite.id!r}: metric {metric!r} not found (have {', '.join(metrics)})")
    boards = {
        r.metric: {
            "n_tasks": r.n_tasks,
            "categories": list(r.categories),
            "rows": [row.to_json() for row in r.rows],
            "pairwise": [p.to_json() for p in r.pairwise],
            "markdown": render_markdown(r.rows, r.alpha),
        }
        for r in reports
    }
    shown = next(r for r in reports if r.metric == metric)
    out: dict[str, Any] = {
        "id": suite.id,
        "title": suite.title,
        "kind": suite.kind,
        "description": suite.description,
        "metric": metric,
        "metrics": metrics,
        "n_tasks": shown.n_tasks,
        "n_models": len(shown.rows),
        "categories": list(shown.categories),
        "bootstrap": suite.bootstrap,
        "alpha": SUITE_ALPHA,
        "seed": suite.seed,
        "inputs": list(suite.paths),
        "rows": boards[metric]["rows"],
        "pairwise": boards[metric]["pairwise"],
        "markdown": boards[metric]["markdown"],
        "boards": boards,
    }
    if clarify is not None:
        out["clarify"] = clarify
    return out
