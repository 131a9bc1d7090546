"""What every command receives, and the group class that turns user errors into one line.

Every command module of ``builder.cli`` imports it; it imports no command.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

from builder.errors import CheckFailed, UserError

if TYPE_CHECKING:  # loaded when a command asks for it, so --help stays quick
    from builder.config import SiteConfig


class Context:
    """What every command receives: the config path and verbosity."""

    def __init__(self, config: str, verbose: int) -> None:
        self.config_path = Path(config)
        self.verbose = verbose
        self._loaded: tuple[SiteConfig, Path] | None = None

    def load(self) -> tuple[SiteConfig, Path]:
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


