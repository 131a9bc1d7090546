"""``render`` and ``serve`` commands: snapshot files in, a swapped-in site out, no network."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import render_cli
from fixtures.make_snapshot import make_snapshot, make_typed

from builder.cli.render import snapshot_now
from builder.cli.serve import watch

ROOT = Path(__file__).resolve().parents[1]
CONFIG = ROOT / "tests" / "fixtures" / "site.yml"


cli = render_cli()


def write(folder: Path, snap: dict) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{snap['date']}.json"
    path.write_text(json.dumps(snap), encoding="utf-8")
    return path


def tree(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def run(*args: str):
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def test_render_takes_now_from_the_snapshot(tmp_path):
    snap = make_snapshot(16, seed=2, day="2025-03-01")  # long ago: fresh only at its own created_at
    path = write(tmp_path / "snaps", snap)
    res = run("render", "--snapshot", str(path), "--out", str(tmp_path / "site"))
    assert res.exit_code == 0, res.output
    assert 'class="cards"' in (tmp_path / "site" / "index.html").read_text(encoding="utf-8")
    res = run("render", "--snapshot", str(path), "--out", str(tmp_path / "site"), "--now", "2025-03-05")
    assert res.exit_code == 0
    front = (tmp_path / "site" / "index.html").read_text(encoding="utf-8")
    assert 'class="cards"' not in front and "too old" in front


def test_old_snapshot_rerenders_byte_for_byte(tmp_path):
    snaps = tmp_path / "snaps"
    first = make_snapshot(16, seed=2, day="2026-11-28")
    second = make_snapshot(16, seed=3, day="2026-11-30", previous=first)
    p1 = write(snaps, first)
    write(snaps, second)
    assert run("render", "--snapshot", str(p1), "--out", str(tmp_path / "a")).exit_code == 0
    # later days are added to the folder; the old day's pages must not change
    write(snaps, make_snapshot(16, seed=4, day="2026-12-02", previous=second))
    assert run("render", "--snapshot", str(p1), "--out", str(tmp_path / "b")).exit_code == 0
    a, b = tree(tmp_path / "a"), tree(tmp_path / "b")
    assert a == b
    assert "data/snapshots/2026-11-30.json" not in a
    # the newer day lists the older one in its archive
    assert run("render", "--snapshot", str(snaps / "2026-11-30.json"), "--out", str(tmp_path / "c")).exit_code == 0
    assert "2026-11-28" in (tmp_path / "c" / "archive" / "index.html").read_text(encoding="utf-8")


def test_bad_inputs_are_one_line_errors(tmp_path):
    bad = tmp_path / "2026-11-30.json"
    bad.write_text('{"schema_version": 1,\n "date": }', encoding="utf-8")
    res = CliRunner().invoke(cli, ["render", "--snapshot", str(bad), "--out", str(tmp_path / "site")])
    assert res.exit_code == 2 and "line 2" in res.output and "Traceback" not in res.output
    assert not (tmp_path / "site").exists()
    good = write(tmp_path / "snaps", make_snapshot(12, seed=1))
    res = CliRunner().invoke(cli, ["render", "--snapshot", str(good), "--base-url", "javascript:alert(1)",
                                   "--out", str(tmp_path / "site")])
    assert res.exit_code == 2 and "--base-url" in res.output
    res = CliRunner().invoke(cli, ["render", "--snapshot", str(good), "--now", "soon", "--out", str(tmp_path / "s")])
    assert res.exit_code == 2 and "--now" in res.output


def test_strict_fails_and_keeps_the_previous_site(tmp_path):
    snap = make_snapshot(16, seed=2, day="2026-11-30")
    path = write(tmp_path / "snaps", snap)
    out = tmp_path / "site"
    assert run("render", "--snapshot", str(path), "--out", str(out)).exit_code == 0
    before = tree(out)
    res = CliRunner().invoke(cli, ["render", "--snapshot", str(path), "--out", str(out), "--now", "2027-01-01",
                                   "--strict"])
    assert res.exit_code == 1 and "too old" in res.output
    assert tree(out) == before


def test_snapshot_now_defaults_to_created_at():
    snap = make_typed(4, seed=1, day="2026-11-30")
    assert snapshot_now(snap, None).isoformat() == "2026-11-30T06:45:12+00:00"
    assert snapshot_now(snap, "2026-12-01").isoformat() == "2026-12-01T00:00:00+00:00"


def test_watch_rebuilds_on_change(tmp_path):
    (tmp_path / "content").mkdir()
    (tmp_path / "content" / "a.md").write_text("x")
    calls: list[float] = []
    stop = threading.Event()
    t = threading.Thread(target=watch, args=([tmp_path / "content"], lambda: calls.append(1), stop, 0.05))
    t.start()
    try:
        time.sleep(0.15)
        assert calls == []
        (tmp_path / "content" / "b.md").write_text("new page")
        deadline = time.time() + 3
        while not calls and time.time() < deadline:
            time.sleep(0.02)
        assert calls
    finally:
        stop.set()
        t.join()


@pytest.mark.parametrize("command", ["render", "serve"])
def test_commands_have_help(command):
    res = run(command, "--help")
    assert res.exit_code == 0 and "127.0.0.1" in res.output if command == "serve" else "--snapshot" in res.output


SERVE_SCRIPT = """
import sys
sys.path[:0] = [{root!r}, {tests!r}]
from test_render_commands import cli
cli(sys.argv[1:])
"""


def test_serve_binds_localhost_shows_warnings_and_rebuilds(tmp_path):
    import subprocess
    import sys
    import urllib.request

    (tmp_path / "site.yml").write_text(CONFIG.read_text(encoding="utf-8"), encoding="utf-8")
    content = tmp_path / "content"
    content.mkdir()
    (content / "index.md").write_text("---\ntitle: Home\n---\n\n# Home\n\nFallback.\n", encoding="utf-8")
    (content / "about.md").write_text("---\ntitle: About\n---\n\n# About\n\nFirst version.\n", encoding="utf-8")
    snap = write(tmp_path / "snapshots", make_snapshot(12, seed=1, day="2024-01-01"))  # too old today
    script = SERVE_SCRIPT.format(root=str(ROOT), tests=str(ROOT / "tests"))
    proc = subprocess.Popen(
        [sys.executable, "-c", script, "--config", str(tmp_path / "site.yml"), "serve", "--port", "0",
         "--out", str(tmp_path / "preview"), "--snapshot", str(snap)],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        url = None
        for line in proc.stdout:
            if line.startswith("serving "):
                url = line.split(" at ", 1)[1].split()[0]
                break
        assert url and url.startswith("http://127.0.0.1:")
        about = urllib.request.urlopen(url + "about/", timeout=5).read().decode()
        assert "First version." in about and "Build warnings" in about and "too old" in about
        (content / "about.md").write_text("---\ntitle: About\n---\n\n# About\n\nSecond version.\n", encoding="utf-8")
        deadline = time.time() + 10
        while time.time() < deadline:
            time.sleep(0.2)
            try:
                about = urllib.request.urlopen(url + "about/", timeout=5).read().decode()
            except OSError:
                continue  # mid-swap
            if "Second version." in about:
                break
        assert "Second version." in about
    finally:
        proc.terminate()
        proc.wait(timeout=10)
