"""The snapshot's ``"evals"`` section: every suite configured in ``site.yml``, aggregated.

``compute_evals_section(suites, base)`` reads each suite's files (the only I/O here: no
network, nothing written) and returns the snapshot's typed ``Evals`` section
(``builder.snapshot.models``): one ``EvalSuite`` per configured suite with

    "id", "title", "kind" ("aggregate" | "clarify"), "description",
    "metric":   the metric shown first (suite.metric, else the first one found),
    "metrics":  every metric found, in order of first appearance,
    "bootstrap", "alpha", "seed", "inputs" (paths as configured),
    "boards":   {metric: {"n_tasks", "categories" (sorted; may be empty),
                          "rows": [{model_id, mean_score, mean_ci_lo, mean_ci_hi, win_rate,
                                    tasks_completed, categories: {category: mean}}], best mean first,
                          "pairwise": [{model_a, model_b, diff, ci_lo, ci_hi, n_tasks, significant}],
                                    every pair, the higher-ranked model first (numbers None
                                    without common tasks),
                          "markdown": the rows as the aggregator's markdown table}},
    "clarify":  clarify suites: {"overall": {...}, "models": {model: {...}}} with num_tasks,
                num_files, tkqr, ora, avg_turns, avg_diff; null for aggregate suites.

(``EvalSuite.rows``, ``.pairwise``, ``.markdown``, ``.n_tasks`` and ``.categories`` read the
shown metric's board.) Scores and CIs are on the metric's [0, 1] scale; win rates are shares
in [0, 1]. The bootstrap uses the suite's ``bootstrap`` rounds and ``seed`` with alpha 0.05,
so a snapshot is reproducible from its inputs. ``include`` (a model id -> bool) leaves the
other models' records out before aggregating, and a suite with no record left out entirely
(the demo history keeps the models released by its day).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from builder.config import EvalSuiteConfig, resolve_data_path
from builder.errors import UserError
from builder.evals.aggregate import AGGREGATE_ALPHA, compute_eval_reports
from builder.evals.clarify import (
    clarify_eval_runs,
    compute_clarify_summaries,
    compute_clarify_summary,
    read_clarify_scores,
)
from builder.evals.harness import EvalFormat, read_inspect_runs, read_lm_eval_runs
from builder.evals.io import FORMATS, check_eval_runs, read_eval_runs
from builder.evals.records import ClarifySummary, EvalRun
from builder.evals.report import render_markdown
from builder.snapshot.models import Evals, EvalSuite

SUITE_ALPHA = AGGREGATE_ALPHA


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


def read_runs_as(fmt: EvalFormat | str, paths: Sequence[Path], metric: str | None = None) -> tuple[EvalRun, ...]:
    """EvalRun records from ``paths`` (files or folders) written in ``fmt``: ``modelboards``
    (JSONL / CSV / JSON records), ``lm-eval-harness`` (output folders) or ``inspect`` (logs);
    ``metric`` is the metric read per lm-eval task when it has it. Raises UserError."""
    if fmt == "modelboards":
        return read_eval_runs(find_eval_files(paths))
    if fmt == "lm-eval-harness":
        runs = read_lm_eval_runs(paths, metric)
    elif fmt == "inspect":
        runs = read_inspect_runs(paths)
    else:
        raise UserError(f"unknown eval format {fmt!r} (expected modelboards, lm-eval-harness or inspect)")
    check_eval_runs(runs)
    return runs


def compute_evals_section(
    suites: Sequence[EvalSuiteConfig], base: Path | None, include: Callable[[str], bool] | None = None
) -> Evals:
    """Aggregate every suite (in config order) into the snapshot's ``"evals"`` section."""
    computed = [compute_suite_section(s, base, include) for s in suites]
    return Evals(suites=tuple(s for s in computed if s is not None))


def read_suite_files(suite: EvalSuiteConfig, base: Path | None) -> None:
    """Read and check every file of one suite; raises UserError naming the file, line and value.

    The build calls it for every suite before fetching, so a bad operator file stops the run
    before anything is written.
    """
    paths = [resolve_data_path(p, base) for p in suite.paths]
    if suite.kind == "clarify":
        read_clarify_scores(paths)
        return
    if suite.format == "modelboards" and not find_eval_files(paths):
        raise UserError(f"evals suite {suite.id!r}: no eval files under {', '.join(map(str, paths))}")
    read_runs_as(suite.format, paths, suite.metric)


def _summary(s: ClarifySummary) -> dict[str, Any]:
    return {"num_tasks": s.num_tasks, "num_files": s.num_files, "tkqr": s.tkqr, "ora": s.ora,
            "avg_turns": s.avg_turns, "avg_diff": s.avg_diff, "tkqr_above_one": s.tkqr_above_one}


def compute_suite_section(
    suite: EvalSuiteConfig, base: Path | None, include: Callable[[str], bool] | None = None
) -> EvalSuite | None:
    """One suite (see the module docstring); None when ``include`` leaves no record.

    Raises UserError for bad files or metric, or a suite without records.
    """
    paths = [resolve_data_path(p, base) for p in suite.paths]
    clarify: dict[str, Any] | None = None
    if suite.kind == "clarify":
        scores = [c for c in read_clarify_scores(paths) if include is None or include(c.model)]
        if not scores and include is not None:
            return None
        runs = clarify_eval_runs(scores)
        clarify = {
            "overall": _summary(compute_clarify_summary(scores)),
            "models": {m: _summary(s) for m, s in compute_clarify_summaries(scores).items()},
        }
    else:
        if suite.format == "modelboards" and not find_eval_files(paths):
            raise UserError(f"evals suite {suite.id!r}: no eval files under {', '.join(map(str, paths))}")
        runs = tuple(r for r in read_runs_as(suite.format, paths, suite.metric)
                     if include is None or include(r.model_id))
        if not runs and include is not None:
            return None
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
    out: dict[str, Any] = {
        "id": suite.id,
        "title": suite.title,
        "kind": suite.kind,
        "description": suite.description,
        "metric": metric,
        "metrics": metrics,
        "bootstrap": suite.bootstrap,
        "alpha": SUITE_ALPHA,
        "seed": suite.seed,
        "inputs": list(suite.paths),
        "boards": boards,
        "clarify": clarify,
    }
    return EvalSuite.model_validate(out, strict=False)
