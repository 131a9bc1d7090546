"""What every command receives, and the group class that turns user errors into one line.

Every command module of ``builder.cli`` imports it; it imports no command.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Iterator, MutableMapping
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
            import builder.sources.registry  # noqa: F401  (installs the check of source kinds)
            from builder.config import load_config

            self._loaded = load_config(self.config_path)
        return self._loaded


pass_ctx = click.make_pass_decorator(Context)


class LazyCommands(MutableMapping[str, click.Command]):
    """A group's subcommands, each imported the first time it is looked up.

    ``{"arena": "builder.cli.arena:arena", ...}``: ``modelboards arena fit`` imports the
    arena commands alone, not every other command's engine (the eval engine, the snapshot
    models, the renderer). Listing the names (``--help``, ``in``) imports nothing; looking a
    command up (running it, or its line in ``--help``) imports its module.
    """

    def __init__(self, targets: dict[str, str]) -> None:
        self._targets = dict(targets)  # name -> "module:attribute"
        self._loaded: dict[str, click.Command] = {}

    def __getitem__(self, name: str) -> click.Command:
        if name not in self._loaded:
            module, _, attr = self._targets[name].partition(":")  # KeyError: no such command
            command = getattr(importlib.import_module(module), attr)
            if not isinstance(command, click.Command):  # pragma: no cover - a wrong table entry
                raise TypeError(f"{self._targets[name]} is not a click command")
            self._loaded[name] = command
        return self._loaded[name]

    def __setitem__(self, name: str, command: click.Command) -> None:
        self._targets.pop(name, None)
        self._loaded[name] = command

    def __delitem__(self, name: str) -> None:
        if name not in self:
            raise KeyError(name)
        self._targets.pop(name, None)
        self._loaded.pop(name, None)

    def __contains__(self, name: object) -> bool:
        return name in self._targets or name in self._loaded

    def __iter__(self) -> Iterator[str]:
        return iter(dict.fromkeys([*self._targets, *self._loaded]))

    def __len__(self) -> int:
        return len(set(self._targets) | set(self._loaded))


class OneLineUsageError(click.UsageError):
    """A usage error (unknown option, bad value, missing argument) shown as one line:
    ``error: <what> (see '<command> --help')``, exit code 2."""

    def show(self, file=None) -> None:
        hint = f" (see '{self.ctx.command_path} --help')" if self.ctx is not None else " (see --help)"
        message = " ".join(self.format_message().split())
        click.echo(f"error: {message}{hint}", file=file, err=file is None)


def _one_line(exc: click.UsageError) -> click.UsageError:
    if isinstance(exc, (OneLineUsageError, click.exceptions.NoArgsIsHelpError)):
        return exc  # already one line, or the help text a bare group prints on purpose
    return OneLineUsageError(exc.format_message(), ctx=exc.ctx)


class Group(click.Group):
    """A click group that turns UserError / CheckFailed into one line and an exit code, and
    click's own usage errors (of this group and every command under it) into one line."""

    def make_context(self, info_name, args, parent=None, **extra):
        try:
            return super().make_context(info_name, args, parent=parent, **extra)
        except click.UsageError as exc:
            raise _one_line(exc) from None

    def invoke(self, ctx: click.Context):
        try:
            return super().invoke(ctx)
        except click.UsageError as exc:
            raise _one_line(exc) from None
        except UserError as exc:
            click.echo(f"error: {exc}", err=True)
            sys.exit(exc.exit_code)
        except CheckFailed as exc:
            click.echo(f"check failed: {exc}", err=True)
            sys.exit(exc.exit_code)
        except OSError as exc:  # a full disk, a read-only or vanished folder: one line naming the path
            click.echo(f"error: {os_error_line(exc)} (what was saved before stays)", err=True)
            sys.exit(1)


def os_error_line(exc: OSError) -> str:
    """``cannot write PATH: No space left on device``: the path and the system's reason."""
    where = exc.filename if exc.filename is not None else None
    reason = exc.strerror or str(exc) or type(exc).__name__
    if where is None:
        return reason
    other = f" -> {exc.filename2}" if exc.filename2 is not None else ""
    return f"{where}{other}: {reason}"


