"""``modelboards diff OLD.json NEW.json [--format text|json] [--threshold POINTS]``: what changed, and why.

Exit 0 whatever changed; a file that is missing or not a valid snapshot is one line and exit 2.
The score-move threshold is ``--threshold``, else ``changes.score_threshold`` of site.yml when
that file exists, else the default (``builder.history.diff.DEFAULT_THRESHOLD``).
"""

from __future__ import annotations

import json
from pathlib import Path

import click

from builder.cli.context import Context, pass_ctx
from builder.errors import UserError


def _threshold(obj: Context, given: float | None) -> float:
    from builder.history.diff import DEFAULT_THRESHOLD

    if given is not None:
        if not given > 0:
            raise UserError(f"--threshold: must be positive, got {given!r}")
        return given
    if obj.config_path.is_file():
        cfg, _ = obj.load()
        return float(cfg.changes.score_threshold)
    return DEFAULT_THRESHOLD


@click.command("diff")
@click.argument("old", type=click.Path(dir_okay=False, path_type=Path))
@click.argument("new", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True,
              help="Output format.")
@click.option("--threshold", type=float, default=None,
              help="List score moves of at least this many Arena points [default: changes.score_threshold].")
@pass_ctx
def diff_cmd(obj: Context, old: Path, new: Path, fmt: str, threshold: float | None) -> None:
    """Compare two snapshots: new and removed models, rank and score moves with their reasons,
    source failures and recoveries, price changes and method changes."""
    from builder.history.diff import compute_diff, diff_document, render_diff_text
    from builder.snapshot import load_snapshot

    before, after = load_snapshot(old), load_snapshot(new)
    result = compute_diff(before, after, _threshold(obj, threshold))
    if fmt == "json":
        click.echo(json.dumps(diff_document(result, before, after), indent=2, ensure_ascii=False))
    else:
        click.echo(render_diff_text(result), nl=False)
