"""``modelboards evals``: aggregate eval runs into boards, score clarification runs.

Registered on the main group in ``builder/cli/__init__.py``. Errors a
user can cause print one ``error: ...`` line and exit with code 2; everything is computed
before anything is written.
"""

from __future__ import annotations

from pathlib import Path

import click

from builder.cli.context import Group
from builder.errors import UserError
from builder.evals.aggregate import (
    AGGREGATE_ALPHA,
    AGGREGATE_ROUNDS,
    compute_eval_reports,
)
from builder.evals.clarify import (
    clarify_eval_runs,
    compute_clarify_summaries,
    compute_clarify_summary,
    read_clarify_scores,
    tkqr_above_one,
)
from builder.evals.harness import EVAL_FORMATS
from builder.evals.report import (
    render_clarify_json,
    render_clarify_markdown,
    render_json_report,
    render_reports_markdown,
    write_json,
    write_text,
)
from builder.evals.section import read_runs_as


@click.group(cls=Group, context_settings={"help_option_names": ["-h", "--help"]})
def evals() -> None:
    """Aggregate your own eval runs: means with bootstrap CIs, win rates, paired differences,
    and the TKQR / ORA clarification metrics."""


@evals.command("aggregate")
@click.argument("files", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("--bootstrap", "b", type=click.IntRange(min=1), default=AGGREGATE_ROUNDS, show_default=True,
              help="Bootstrap rounds (task resamples).")
@click.option("--alpha", type=click.FloatRange(0, 1, min_open=True, max_open=True), default=AGGREGATE_ALPHA,
              show_default=True, help="CI level: the interval covers 1 - alpha.")
@click.option("--seed", type=int, default=0, show_default=True, help="Random seed of the bootstrap.")
@click.option("--weighted", is_flag=True, help="Weight tasks by their 'weight' field (default: equal weights).")
@click.option("--stratified", is_flag=True, help="Resample tasks within their category.")
@click.option("--format", "fmt", type=click.Choice(EVAL_FORMATS), default="modelboards", show_default=True,
              help="What FILES are: ModelBoards records, lm-evaluation-harness output folders (--log_samples) "
                   "or Inspect AI logs (.eval / .json); a tool's samples become the tasks.")
@click.option("--metric", default=None,
              help="lm-eval-harness: the metric read per task when it has it [default: acc, exact_match, ...].")
@click.option("--json", "json_out", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Write the JSON report here.")
@click.option("--markdown", "md_out", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Write the markdown leaderboard table(s) here.")
def aggregate_cmd(files: tuple[Path, ...], b: int, alpha: float, seed: int, weighted: bool, stratified: bool,
                  fmt: str, metric: str | None, json_out: Path | None, md_out: Path | None) -> None:
    """Aggregate EvalRun records (JSONL, CSV or JSON FILES, or folders of them; or a tool's
    output with --format) into one board per metric. Prints the leaderboard and the paired
    differences."""
    runs = read_runs_as(fmt, list(files), metric)
    if not runs:
        raise UserError(f"{', '.join(map(str, files))}: no eval records")
    reports = compute_eval_reports(runs, b=b, alpha=alpha, seed=seed, weighted=weighted, stratified=stratified)
    doc = render_json_report(reports, files)
    table = render_reports_markdown(reports)
    if json_out is not None:
        write_json(json_out, doc)
    if md_out is not None:
        write_text(md_out, table)
    click.echo(render_reports_markdown(reports, pairwise=True), nl=False)


@evals.command("clarify")
@click.argument("paths", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("--model", default=None, help="Model name for every record (default: the run directory's name).")
@click.option("--bootstrap", "b", type=click.IntRange(min=1), default=AGGREGATE_ROUNDS, show_default=True,
              help="Bootstrap rounds for the per-model TKQR / ORA boards.")
@click.option("--seed", type=int, default=0, show_default=True, help="Random seed of the bootstrap.")
@click.option("--json", "json_out", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Write the JSON report here.")
def clarify_cmd(paths: tuple[Path, ...], model: str | None, b: int, seed: int, json_out: Path | None) -> None:
    """Score clarification run records (.jsonl files, or folders searched recursively) with
    TKQR and ORA; print the averages per model and the TKQR / ORA boards."""
    scores = read_clarify_scores(paths, model=model)
    overall = compute_clarify_summary(scores)
    per_model = compute_clarify_summaries(scores)
    reports = compute_eval_reports(clarify_eval_runs(scores), b=b, alpha=AGGREGATE_ALPHA, seed=seed)
    if json_out is not None:
        write_json(json_out, render_clarify_json(overall, per_model, reports, paths))
    click.echo(render_clarify_markdown(per_model))
    click.echo(f"Overall: {overall.num_tasks} records in {overall.num_files} files, TKQR {overall.tkqr:.4f}, "
               f"ORA {overall.ora:.4f}, avg turns {overall.avg_turns:.2f}, avg diff {overall.avg_diff:+.2f}\n")
    over = tkqr_above_one(scores)
    if over:
        shown = "; ".join(f"{s.origin} (TKQR {s.tkqr:.4f}, K {s.key_questions})" for s in over[:5])
        more = f"; and {len(over) - 5} more" if len(over) > 5 else ""
        click.echo(f"flagged: {len(over)} records with more hits than key questions, TKQR above 1, averaged as "
                   f"computed (capped at 1 on the TKQR board): {shown}{more}\n")
    click.echo(render_reports_markdown(reports), nl=False)


@evals.command("demo")
@click.option("--bootstrap", "b", type=click.IntRange(min=1), default=AGGREGATE_ROUNDS, show_default=True,
              help="Bootstrap rounds (task resamples).")
@click.option("--seed", type=int, default=0, show_default=True, help="Random seed of the bootstrap.")
def demo_cmd(b: int, seed: int) -> None:
    """Offline demo: aggregate a synthetic suite of three models and twelve tasks; print the
    leaderboard and the table of paired differences."""
    from builder.evals.synthetic import DEMO_CATEGORIES, DEMO_MODELS, make_demo_runs

    runs = make_demo_runs()
    reports = compute_eval_reports(runs, b=b, alpha=AGGREGATE_ALPHA, seed=seed)
    n_tasks = len({r.task_id for r in runs})
    click.echo(f"Demo suite (synthetic, offline): {len(DEMO_MODELS)} models, {n_tasks} tasks in "
               f"{len(DEMO_CATEGORIES)} categories ({', '.join(DEMO_CATEGORIES)}), {b} bootstrap rounds, seed {seed}\n")
    click.echo(render_reports_markdown(reports, pairwise=True), nl=False)
    rows = reports[0].rows
    click.echo("\nPer category (mean score):")
    for r in rows:
        cats = ", ".join(f"{c} {r.categories[c]:.2f}" for c in DEMO_CATEGORIES if c in r.categories)
        click.echo(f"  {r.model_id}: {cats}")
