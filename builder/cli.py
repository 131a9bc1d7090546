"""The ``modelboards`` command line. Thin: options -> config -> pipeline stage.

Exit codes: 0 success; 1 a check failed (``--strict``, ``verify``); 2 a user error (bad
config, bad file, bad option). A user error is one line on stderr, never a traceback.
"""

from __future__ import annotations

import logging
import sys
from pathlib import Path

import click

from builder.context import Context, Group, pass_ctx


@click.group(cls=Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--config", "config", default="site.yml", show_default=True, type=click.Path(dir_okay=False),
              help="The site configuration file.")
@click.option("-v", "--verbose", count=True, help="More log output (repeat for debug).")
@click.version_option(package_name="modelboards")
@click.pass_context
def main(ctx: click.Context, config: str, verbose: int) -> None:
    """ModelBoards: fetch public evaluations, score them by the published method, and
    publish a static leaderboard site with recomputable downloads."""
    logging.basicConfig(
        level=logging.WARNING - 10 * min(verbose, 2),
        format="%(levelname)s %(name)s: %(message)s",
    )
    ctx.obj = Context(config, verbose)


@main.command()
@click.option("--live", is_flag=True, default=None, help="Ask the real upstream URLs (default: the bundled recorded payloads).")
@click.option("--progress/--no-progress", default=True, show_default=True, help="Progress display on a terminal.")
@pass_ctx
def fetch(obj: Context, live: bool | None, progress: bool) -> None:
    """Fetch every enabled source into the payload store, with a status per source.

    A failed source never stops the others and never overwrites its last good payload.
    """
    cfg, base = obj.load()
    from builder.fetch import format_status_table
    from builder.pipeline import fetch_everything

    statuses = fetch_everything(cfg, base, live=bool(live), progress=progress)
    click.echo(format_status_table(statuses))


@main.command("select")
@click.option("--format", "fmt", type=click.Choice(["json", "csv"]), default="json", show_default=True,
              help="Output format.")
@click.option("--output", type=click.Path(dir_okay=False, writable=True), default=None,
              help="Write to this file instead of standard output.")
@pass_ctx
def select_cmd(obj: Context, fmt: str, output: str | None) -> None:
    """Print every observation with its identity and whether it was selected, and why not.

    This answers "why is my model missing": every row that did not count says why.
    Reads the payload store (run `modelboards fetch` first).
    """
    cfg, base = obj.load()
    from builder.pipeline import parse_stored
    from builder.scoring.select import select_observations, select_rows, write_select

    parsed = parse_stored(cfg, base)
    rows = select_rows(select_observations(parsed.result.observations, cfg))
    if output:
        with open(output, "w", encoding="utf-8", newline="") as fh:
            write_select(rows, fmt, fh)
    else:
        write_select(rows, fmt, sys.stdout)


@main.command()
@click.option("--live", is_flag=True, default=None, help="Fetch the real upstream URLs instead of the bundled payloads.")
@click.option("--out", type=click.Path(file_okay=False), default=None, help="Output folder [default: site/ beside site.yml].")
@click.option("--base-url", default=None, help="Public base URL (e.g. https://user.github.io/repo/) [default: site.url].")
@click.option("--strict", is_flag=True, default=None, help="Fail (exit 1) on any warning; the previous site stays.")
@click.option("--snapshots-dir", type=click.Path(file_okay=False), default=None,
              help="Where dated snapshots live [default: snapshots_dir of site.yml].")
@click.option("--now", default=None, help="Pretend the build runs at this ISO date/time (UTC).")
@click.option("--timings", is_flag=True, default=None, help="Print how long each stage took.")
@pass_ctx
def build(obj: Context, live, out, base_url, strict, snapshots_dir, now, timings) -> None:
    """Fetch, score, write today's snapshot and render the whole site.

    Output is written to a temporary folder and swapped in whole: a failure leaves the
    previous site untouched.
    """
    cfg, base = obj.load()
    from builder.pipeline import build as run_build
    from builder.pipeline import parse_now

    report = run_build(
        cfg, base,
        live=bool(live),
        out=Path(out) if out else None,
        base_url=base_url,
        strict=bool(strict),
        now=parse_now(now),
        snapshots_dir=Path(snapshots_dir) if snapshots_dir else None,
        progress=True,
    )
    if report.snapshot_action == "empty":
        click.echo("snapshot: none saved today (no rows on any board)"
                   + (f"; the site shows {report.snapshot_path.name}" if report.snapshot_path.exists() else ""))
    else:
        click.echo(f"snapshot {report.snapshot_path} ({report.snapshot_action})")
    click.echo(f"site written to {report.out}")
    for w in report.warnings:
        click.echo(f"warning: {w}", err=True)
    if timings:
        click.echo(report.timings.format())


@main.command()
@click.argument("site_dir", required=False, type=click.Path(file_okay=False), default=None)
def verify(site_dir: str | None) -> None:
    """Rebuild every published number of a built site from its evidence downloads.

    Runs the site's own data/recompute.py (standard library only) and prints what it
    reproduced. Exit code 1 when anything did not rebuild. SITE_DIR defaults to site/.
    """
    from builder.errors import CheckFailed
    from builder.evidence.verify import verify_site

    result = verify_site(Path(site_dir or "site"))
    click.echo(result.output.rstrip())
    if not result.ok:
        raise CheckFailed("some published numbers did not rebuild (see MISS lines)")


def _register_groups() -> None:
    """Sub-command groups that live beside their stage."""
    from builder.evals.commands import evals
    from builder.history.commands import backfill
    from builder.mcp.commands import mcp_cmd
    from builder.pairwise.commands import arena
    from builder.render.commands import render_cmd, serve_cmd
    from builder.scoring.commands import explain, score

    main.add_command(score)
    main.add_command(explain)
    main.add_command(render_cmd)
    main.add_command(serve_cmd)
    main.add_command(arena)
    main.add_command(evals)
    main.add_command(backfill)
    main.add_command(mcp_cmd)


_register_groups()
