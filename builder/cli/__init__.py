"""The ``modelboards`` command line: the top layer, options -> config -> pipeline stage.

Exit codes: 0 success; 1 a check failed (``--strict``, ``verify``); 2 a user error (bad
config, bad file, bad option). A user error is one line on stderr, never a traceback.

    site     fetch, select, score, build, verify, explain, backfill
    render   render, serve
    arena    the ``arena`` group (simulate, fit, history, judge)
    evals    the ``evals`` group (aggregate, clarify)
    diff     what changed between two snapshots, and why
    options  the options several commands share
    context  what every command receives, and the group that turns errors into one line
"""

from __future__ import annotations

import logging

import click

from builder.cli.arena import arena
from builder.cli.context import Context, Group
from builder.cli.diff import diff_cmd
from builder.cli.evals import evals
from builder.cli.mcp import mcp_cmd
from builder.cli.render import render_cmd, serve_cmd
from builder.cli.site import backfill, build, explain, fetch, score, select_cmd, verify


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


for _command in (fetch, select_cmd, build, verify, score, explain, render_cmd, serve_cmd, arena, evals, backfill,
                 mcp_cmd, diff_cmd):
    main.add_command(_command)

__all__ = ["main"]
