"""The ``modelboards`` command line: the top layer, options -> config -> pipeline stage.

Exit codes: 0 success; 1 a check failed (``--strict``, ``verify``); 2 a user error (bad
config, bad file, bad option). A user error is one line on stderr, never a traceback.

    site     fetch, select, score, build, verify, explain, backfill
    render   render
    serve    serve (the local preview)
    arena    the ``arena`` group (simulate, fit, history, judge)
    evals    the ``evals`` group (aggregate, clarify)
    diff     what changed between two snapshots, and why
    identities  spellings no other source matched, and the operator's registry
    new      start a site folder (site.yml, content/, templates/, workflows) that builds offline
    sources  the source kinds found (built in or from plugins)
    warm     compile the numba kernels and the templates ahead of the first build (make install)
    options  the options several commands share
    context  what every command receives, and the group that turns errors into one line
"""

from __future__ import annotations

import click

from builder.cli.context import Context, Group, LazyCommands

# Each command's module is imported when the command runs (``LazyCommands``): the command
# line starts with click and this table, not with every engine.
COMMANDS = {
    "fetch": "builder.cli.site:fetch",
    "select": "builder.cli.site:select_cmd",
    "build": "builder.cli.site:build",
    "verify": "builder.cli.site:verify",
    "score": "builder.cli.site:score",
    "explain": "builder.cli.site:explain",
    "backfill": "builder.cli.site:backfill",
    "render": "builder.cli.render:render_cmd",
    "serve": "builder.cli.serve:serve_cmd",
    "arena": "builder.cli.arena:arena",
    "evals": "builder.cli.evals:evals",
    "mcp": "builder.cli.mcp:mcp_cmd",
    "diff": "builder.cli.diff:diff_cmd",
    "identities": "builder.cli.identities:identities_cmd",
    "new": "builder.cli.new:new_cmd",
    "sources": "builder.cli.sources:sources_cmd",
    "warm": "builder.cli.warm:warm_cmd",
}


@click.group(cls=Group, commands=LazyCommands(COMMANDS), context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--config", "config", default="site.yml", show_default=True, type=click.Path(dir_okay=False),
              help="The site configuration file.")
@click.option("-v", "--verbose", count=True, help="More log output (repeat for debug).")
@click.version_option(package_name="modelboards")
@click.pass_context
def main(ctx: click.Context, config: str, verbose: int) -> None:
    """ModelBoards: fetch public evaluations, score them by the published method, and
    publish a static leaderboard site with recomputable downloads."""
    import logging

    logging.basicConfig(
        level=logging.WARNING - 10 * min(verbose, 2),
        format="%(levelname)s %(name)s: %(message)s",
    )
    ctx.obj = Context(config, verbose)


def run() -> None:
    """The ``modelboards`` console script: ``main``; after a command that kept what it built to
    the end (``builder.util.gc.keep_until_exit``), the process leaves without freeing it."""
    from builder.util.gc import allow_quick_exit, quick_exit, quick_exit_code

    allow_quick_exit()
    try:
        main()
    except SystemExit as exc:
        status = quick_exit_code(exc.code)
        if status is not None:
            quick_exit(status)
        raise


__all__ = ["COMMANDS", "Context", "Group", "main", "run"]
