"""``modelboards score`` and ``modelboards explain``: the scoring stage from the command line.

Register them on the CLI group with ``main.add_command(score)`` and ``main.add_command(explain)``.
"""

from __future__ import annotations

import json
from datetime import date, datetime, timezone
from pathlib import Path

import click

from builder.context import Context, pass_ctx
from builder.errors import CheckFailed
from builder.errors import UserError


def _parse_date(value: str | None) -> date | None:
    if value is None:
        return None
    try:
        return date.fromisoformat(value)
    except ValueError:
        raise UserError(f"--date: not an ISO date (YYYY-MM-DD): {value!r}") from None


def build_time(day: date | None, now: datetime) -> datetime:
    """The build time: ``now`` (UTC), moved to ``day`` when one is given (time of day kept)."""
    now = now.astimezone(timezone.utc)
    return now if day is None else now.replace(year=day.year, month=day.month, day=day.day)


@click.command("score")
@click.option("--date", "day", default=None, metavar="D",
              help="Snapshot date (UTC, YYYY-MM-DD) [default: today].")
@click.option("--snapshots-dir", type=click.Path(file_okay=False), default=None,
              help="Where dated snapshots live [default: snapshots_dir of site.yml].")
@pass_ctx
def score(obj: Context, day: str | None, snapshots_dir: str | None) -> None:
    """Turn the stored payloads into the day's snapshot (calibrate, combine, rank, qualify).

    The first snapshot saved for a UTC day stays; a same-day rebuild replaces it only with
    strictly more sources ok. Reads the payload store (run `modelboards fetch` first).
    """
    cfg, base = obj.load()
    from builder.pipeline import compute_full_snapshot, snapshots_path
    from builder.snapshot import write_snapshot

    from builder.lock import project_lock

    now = build_time(_parse_date(day), datetime.now(timezone.utc))
    folder = snapshots_path(cfg, base, snapshots_dir)
    with project_lock(base, cfg.fetch.lock_timeout):  # the store is read and a snapshot written
        snapshot = compute_full_snapshot(cfg, base, now, folder)
        path, action = write_snapshot(snapshot, folder)
    if action == "empty":
        raise CheckFailed(f"no rows on any board (every rating source failed?): {path.name} was not saved")
    ranked = sum(len(b["rows"]) for b in snapshot["boards"])
    ok = sum(1 for s in snapshot["sources"] if s["status"] == "ok")
    click.echo(f"snapshot {path} ({action}): {len(snapshot['boards'])} boards, {ranked} ranked rows, "
               f"{ok}/{len(snapshot['sources'])} sources ok, as of {snapshot['as_of']}"
               + (", stale (Arena failed)" if snapshot["stale"] else ""))
    for b in snapshot["boards"]:
        if b["warning"]:
            click.echo(f"warning: {b['id']}: {b['warning']}", err=True)


@click.command("explain")
@click.argument("model")
@click.option("--board", "board_id", default="orchestrator", show_default=True, help="Board id.")
@click.option("--snapshot", "snapshot_file", type=click.Path(dir_okay=False), default=None,
              help="Snapshot file [default: the newest in snapshots_dir of site.yml].")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True,
              help="Output format.")
@pass_ctx
def explain(obj: Context, model: str, board_id: str, snapshot_file: str | None, fmt: str) -> None:
    """Print the arithmetic behind MODEL's score: calibration, family means, R, rank, labels."""
    from builder.scoring.explain import explain_model, format_explain
    from builder.snapshot import list_snapshots, load_snapshot

    if snapshot_file:
        path = Path(snapshot_file)
    else:
        cfg, base = obj.load()
        from builder.pipeline import snapshots_path

        folder = snapshots_path(cfg, base)
        found = list_snapshots(folder)
        if not found:
            raise UserError(f"{folder}: no snapshots (run `modelboards score` first, or pass --snapshot)")
        path = found[-1]
    d = explain_model(load_snapshot(path), model, board_id)
    click.echo(json.dumps(d, indent=2) if fmt == "json" else format_explain(d))
