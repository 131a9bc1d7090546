"""``modelboards backfill``: the demo history of dated snapshots, from the command line.

Register it on the CLI group with ``main.add_command(backfill)``.
"""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

import click

from builder.context import Context, pass_ctx
from builder.errors import UserError

DEFAULT_COUNT = 10
"Without --start, the history reaches back this many steps of --every before --end."


def _parse_day(option: str, value: str | None) -> date | None:
    if value is None:
        return None
    try:
        return date.fromisoformat(value)
    except ValueError:
        raise UserError(f"{option}: not an ISO date (YYYY-MM-DD): {value!r}") from None


@click.command("backfill")
@click.option("--demo", is_flag=True, default=None,
              help="Replay the bundled demo payloads (required: archived live payloads are not kept).")
@click.option("--start", default=None, metavar="D",
              help=f"First date (UTC, YYYY-MM-DD) [default: {DEFAULT_COUNT} x --every days before --end].")
@click.option("--end", default=None, metavar="D", help="Last possible date, inclusive [default: yesterday, UTC].")
@click.option("--every", type=int, default=7, show_default=True, help="Days between snapshots.")
@click.option("--snapshots-dir", type=click.Path(file_okay=False), default=None,
              help="Where dated snapshots live [default: snapshots_dir of site.yml].")
@click.option("--force", is_flag=True, default=None, help="Replace snapshots that already exist for these dates.")
@pass_ctx
def backfill(obj: Context, demo: bool | None, start: str | None, end: str | None, every: int,
             snapshots_dir: str | None, force: bool | None) -> None:
    """Write a dated history of snapshots from dated variants of the bundled demo payloads.

    For each date D from --start to --end, every --every days, the bundled payloads are cut
    to what existed on D (later rows, releases and models dropped; LMArena ratings drift
    towards their final values, invented for the demo) and scored by the same method as a
    real build at D 12:45 UTC, with movement against the previous date. Every snapshot says
    "demo": true. Existing snapshots for these dates are refused unless --force.

    The committed history is made with:
    modelboards backfill --demo --start 2026-09-20 --end 2026-11-29 --every 7 --force
    """
    if not demo:
        raise UserError("backfill: pass --demo (only the bundled demo payloads can be replayed; "
                        "archived live payloads are not kept)")
    cfg, base = obj.load()
    from builder.history.backfill import compute_backfill_dates, write_demo_history
    from builder.pipeline import snapshots_path

    last = _parse_day("--end", end) or (datetime.now(UTC).date() - timedelta(days=1))
    first = _parse_day("--start", start) or last - timedelta(days=DEFAULT_COUNT * max(every, 1))
    days = compute_backfill_dates(first, last, every)
    folder = snapshots_path(cfg, base, snapshots_dir)
    written = write_demo_history(cfg, base, days, folder, force=bool(force))
    for path, action in written:
        click.echo(f"snapshot {path} ({action})")
    click.echo(f"{len(written)} demo snapshots from {days[0].isoformat()} to {days[-1].isoformat()} in {folder}")
