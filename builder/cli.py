"""The ``modelboards`` command line. Thin: options -> config -> pipeline stage.

Exit codes: 0 success; 1 a check failed (``--strict``, ``verify``); 2 a user error (bad
config, bad file, bad option). A user error is one line on stderr, never a traceback.
"""

from __future__ import annotations

import logging
import sys
from pathlib import Path

import click

from builder.errors import CheckFailed, UserError


class Context:
    """What every command receives: the config path and verbosity."""

    def __init__(self, config: str, verbose: int) -> None:
        self.config_path = Path(config)
        self.verbose = verbose
        self._loaded = None

    def load(self):
        """(SiteConfig, base folder), loaded once."""
        if self._loaded is None:
            from builder.config import load_config

            self._loaded = load_config(self.config_path)
        return self._loaded


pass_ctx = click.make_pass_decorator(Context)


class Group(click.Group):
    """A click group that turns UserError / CheckFailed into one line and an exit code."""

    def invoke(self, ctx: click.Context):
        try:
            return super().invoke(ctx)
        except UserError as exc:
            click.echo(f"error: {exc}", err=True)
            sys.exit(exc.exit_code)
        except CheckFailed as exc:
            click.echo(f"check failed: {exc}", err=True)
            sys.exit(exc.exit_code)


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
