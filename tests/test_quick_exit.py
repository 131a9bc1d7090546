"""The console script's quick exit (``builder.cli.run``, ``builder.util.gc``): after a command
that kept what it built, the process ends with the command's status, its output written and
the exit handlers run, without freeing what was kept; elsewhere nothing is kept."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from builder.util import gc as gcmod

ROOT = Path(__file__).resolve().parents[1]

# A stand-in command for ``builder.cli.main``: keeps a large structure, writes without a final
# newline (buffered), registers an exit handler, then ends as told by argv[1].
_COMMAND = """
import atexit, sys
import builder.cli
from builder.util.gc import keep_until_exit

class Freed:
    def __del__(self):
        sys.stderr.write("freed")

def command():
    keep_until_exit([[k] * 10 for k in range(100_000)], Freed())
    atexit.register(lambda: open(sys.argv[2], "w").write("handlers ran"))
    sys.stdout.write("written")
    how = sys.argv[1]
    if how == "ok":
        raise SystemExit(None)
    if how == "status":
        raise SystemExit(3)
    raise SystemExit("refused: a message")

builder.cli.main = command
builder.cli.run()
"""


def _run(how: str, tmp_path: Path) -> tuple[subprocess.CompletedProcess[str], Path]:
    marker = tmp_path / f"atexit-{how}.txt"
    proc = subprocess.run([sys.executable, "-c", _COMMAND, how, str(marker)], cwd=ROOT, capture_output=True,
                          text=True, timeout=60, check=False)
    return proc, marker


@pytest.mark.parametrize(("how", "status"), [("ok", 0), ("status", 3)])
def test_quick_exit_keeps_status_output_and_exit_handlers(tmp_path: Path, how: str, status: int) -> None:
    proc, marker = _run(how, tmp_path)
    assert proc.returncode == status, proc.stderr
    assert proc.stdout == "written"
    assert marker.read_text() == "handlers ran"
    assert "freed" not in proc.stderr  # what the command kept was never freed: no teardown


def test_a_message_takes_the_normal_exit(tmp_path: Path) -> None:
    proc, marker = _run("message", tmp_path)
    assert proc.returncode == 1
    assert proc.stdout == "written"
    assert proc.stderr.splitlines()[0] == "refused: a message"
    assert "freed" in proc.stderr  # the normal exit: the interpreter's teardown freed what was kept
    assert marker.read_text() == "handlers ran"


def test_nothing_is_kept_unless_the_command_line_allows_it() -> None:
    # the tests' own process never called allow_quick_exit: a command run in process keeps nothing
    assert not gcmod._QUICK_EXIT["allowed"]
    gcmod.keep_until_exit(object())
    assert gcmod._KEPT == []
    assert gcmod.quick_exit_code(0) is None


def test_quick_exit_code_reads_the_status_as_sys_exit_does(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(gcmod, "_KEPT", [object()])
    assert gcmod.quick_exit_code(None) == 0
    assert gcmod.quick_exit_code(2) == 2
    assert gcmod.quick_exit_code("message") is None
    assert gcmod.quick_exit_code(True) is None


def test_the_collector_stays_paused_once_a_command_keeps_for_the_exit(monkeypatch: pytest.MonkeyPatch) -> None:
    import gc

    assert gc.isenabled()
    ran = gcmod.gc_paused(lambda: gc.isenabled())
    assert ran() is False and gc.isenabled()  # paused while it ran, back on after
    monkeypatch.setattr(gcmod, "_KEPT", [object()])
    try:
        assert ran() is False
        assert not gc.isenabled()  # the process leaves without collecting
    finally:
        gc.enable()


def test_only_the_one_shot_render_keeps_what_it_loaded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import gc

    from click.testing import CliRunner
    from conftest import render_cli

    from builder.cli.render import render_from_snapshot
    from builder.config import load_config

    snapshot = ROOT / "tests" / "fixtures" / "golden_snapshot.json"
    monkeypatch.setitem(gcmod._QUICK_EXIT, "allowed", True)  # as the console script allows it
    monkeypatch.setattr(gcmod, "_KEPT", [])
    try:
        # serve renders again and again in one process: it keeps nothing, and the collector stays on
        cfg, base = load_config(ROOT / "tests" / "fixtures" / "site.yml")
        render_from_snapshot(cfg, base, snapshot, tmp_path / "preview")
        assert gcmod._KEPT == [] and gc.isenabled()
        args = ["render", "--snapshot", str(snapshot), "--out", str(tmp_path / "site")]
        result = CliRunner().invoke(render_cli(), args)
        assert result.exit_code == 0, result.output
        assert len(gcmod._KEPT) == 2  # the snapshot and its history, left for the quick exit
    finally:
        gc.enable()
