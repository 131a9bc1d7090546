"""Rendering eval boards: the seed-003 markdown table, the pairwise table and the JSON report.

The leaderboard table is one a CI comment can paste as it is:

    | Rank | Model | Mean | 95% CI | Win rate | Tasks |

rows sorted by mean (the report's order), numbers to two decimals, the CI as ``lo-hi``,
model ids cut to 20 characters. The CI header follows ``alpha`` (0.05 -> "95% CI").
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from builder.errors import UserError
from builder.evals.records import (
    ClarifySummary,
    EvalReport,
    LeaderboardRow,
    PairwiseRow,
)
from builder.util.formats import EVALS_REPORT_SCHEMA
from builder.util.io import write_text_atomic

MODEL_ID_WIDTH = 20
REPORT_SCHEMA = EVALS_REPORT_SCHEMA


def ci_label(alpha: float) -> str:
    """Column header of the interval: alpha 0.05 -> ``"95% CI"``."""
    return f"{100.0 * (1.0 - alpha):.10g}% CI"


def _cell(text: str) -> str:
    # A pipe inside a cell would split the column.
    return text.replace("|", "\\|")


def _model(model_id: str) -> str:
    return _cell(model_id[:MODEL_ID_WIDTH])


def render_markdown(rows: Sequence[LeaderboardRow], alpha: float = 0.05) -> str:
    """The seed's leaderboard table for rows already in rank order; ends with a newline."""
    lines = [
        f"| Rank | Model | Mean | {ci_label(alpha)} | Win rate | Tasks |",
        "|------|-------|------|--------|----------|-------|",
    ]
    for rank, r in enumerate(rows, start=1):
        lines.append(
            f"| {rank} | {_model(r.model_id)} | {r.mean_score:.2f} | {r.mean_ci_lo:.2f}-{r.mean_ci_hi:.2f} "
            f"| {r.win_rate:.2f} | {r.tasks_completed} |"
        )
    return "\n".join(lines) + "\n"


def render_pairwise_markdown(pairs: Sequence[PairwiseRow], alpha: float = 0.05) -> str:
    """Paired differences as a markdown table (``yes`` when the CI excludes zero)."""
    lines = [
        f"| Model A | Model B | Diff | {ci_label(alpha)} | Tasks | Significant |",
        "|---------|---------|------|--------|-------|-------------|",
    ]
    for p in pairs:
        if p.diff is None:
            nums = "- | -"
        else:
            nums = f"{p.diff:+.2f} | {p.ci_lo:+.2f} to {p.ci_hi:+.2f}"
        lines.append(f"| {_model(p.model_a)} | {_model(p.model_b)} | {nums} | {p.n_tasks} | "
                     f"{'yes' if p.significant else 'no'} |")
    return "\n".join(lines) + "\n"


def render_reports_markdown(reports: Sequence[EvalReport], *, pairwise: bool = False) -> str:
    """Every metric's table; with several metrics each gets a ``### metric`` heading."""
    parts = []
    for rep in reports:
        body = render_markdown(rep.rows, rep.alpha)
        if pairwise and rep.pairwise:
            body += "\n" + render_pairwise_markdown(rep.pairwise, rep.alpha)
        parts.append(f"### {rep.metric}\n\n{body}" if len(reports) > 1 else body)
    return "\n".join(parts)


def render_json_report(reports: Sequence[EvalReport], inputs: Iterable[str | Path]) -> dict[str, Any]:
    """The JSON report of ``evals aggregate``: inputs and one board per metric."""
    return {
        "schema": REPORT_SCHEMA,
        "inputs": [str(p) for p in inputs],
        "reports": [r.to_json() for r in reports],
    }


def render_clarify_json(
    overall: ClarifySummary,
    per_model: dict[str, ClarifySummary],
    reports: Sequence[EvalReport],
    inputs: Iterable[str | Path],
) -> dict[str, Any]:
    """The JSON report of ``evals clarify``: the TKQR / ORA averages overall and per model, plus boards."""
    return {
        "schema": REPORT_SCHEMA,
        "inputs": [str(p) for p in inputs],
        "overall": overall.to_json(),
        "models": {m: s.to_json() for m, s in per_model.items()},
        "reports": [r.to_json() for r in reports],
    }


def render_clarify_markdown(per_model: dict[str, ClarifySummary]) -> str:
    """Seed 002's four averages per model as a markdown table (model order as given)."""
    lines = ["| Model | TKQR | ORA | Avg turns | Avg diff | Tasks | Files |",
             "|-------|------|-----|-----------|----------|-------|-------|"]
    for m, s in per_model.items():
        flag = f" ({s.tkqr_above_one} above 1)" if s.tkqr_above_one else ""
        lines.append(f"| {_model(m)} | {s.tkqr:.3f}{flag} | {s.ora:.3f} | {s.avg_turns:.2f} | {s.avg_diff:+.2f} "
                     f"| {s.num_tasks} | {s.num_files} |")
    return "\n".join(lines) + "\n"


def write_text(path: str | Path, text: str) -> None:
    """Write atomically (temporary file in the same folder, then rename)."""
    path = Path(path)
    try:
        write_text_atomic(path, text)
    except OSError as exc:
        raise UserError(f"{path}: cannot write: {exc.strerror or exc}") from None


def write_json(path: str | Path, doc: Any) -> None:
    """Write ``doc`` as indented JSON (NaN is not allowed: every number must be finite)."""
    write_text(path, json.dumps(doc, indent=2, allow_nan=False) + "\n")
