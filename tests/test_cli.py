"""The command line: every command has help; user errors are one line and exit 2."""

from __future__ import annotations

from pathlib import Path

import click
from click.testing import CliRunner

from builder.cli import main

ROOT = Path(__file__).resolve().parents[1]


def _all_commands(group: click.Group, prefix=()):
    for name, cmd in group.commands.items():
        yield (*prefix, name), cmd
        if isinstance(cmd, click.Group):
            yield from _all_commands(cmd, (*prefix, name))


def test_every_command_has_help():
    runner = CliRunner()
    commands = list(_all_commands(main))
    assert {"fetch", "select", "build"} <= {c[0][0] for c in commands}
    for path, cmd in commands:
        assert cmd.help, f"{' '.join(path)} has no help text"
        result = runner.invoke(main, [*path, "--help"])
        assert result.exit_code == 0, (path, result.output)
        assert "Usage:" in result.output


def test_bad_config_is_one_line_exit_2(tmp_path):
    bad = tmp_path / "site.yml"
    bad.write_text("sources: 3\n")
    result = CliRunner().invoke(main, ["--config", str(bad), "fetch"])
    assert result.exit_code == 2
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: ")
    assert "Traceback" not in result.output


def test_missing_config_exit_2(tmp_path):
    result = CliRunner().invoke(main, ["--config", str(tmp_path / "none.yml"), "select"])
    assert result.exit_code == 2
    assert "not found" in result.stderr


def test_bad_option_exit_2():
    result = CliRunner().invoke(main, ["select", "--format", "xml"])
    assert result.exit_code == 2
