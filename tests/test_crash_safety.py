"""Real builds (subprocesses) killed with SIGKILL at the worst instants, and two builds at
once: the site, the store and the snapshots always survive, leftovers are removed by the
next build, and a second build waits for the first (or exits 2 with one line).

The builds stop at named pause points (``builder.util.testhooks``, test-only environment
variables) so the kill lands exactly between the two renames of a swap."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml
from conftest import LIGHT_ARENA

from builder.render.site import recover_site, write_site_atomically
from builder.util.outdir import SITE_MARKER
from builder.util.testhooks import PAUSE_AT, PAUSE_FILE, POINTS

ROOT = Path(__file__).resolve().parents[1]
MODELBOARDS = Path(sys.executable).parent / "modelboards"
NOW = "2026-11-30T12:00:00+00:00"


def _project(tmp: Path, **fetch) -> Path:
    """An offline project in ``tmp`` (bundled payloads), cheap to build: few bootstrap rounds
    and a light Arena (``LIGHT_ARENA``)."""
    data = yaml.safe_load((ROOT / "site.yml").read_text())
    data["arena"].update(bootstrap=5, **LIGHT_ARENA)
    data["uncertainty"]["rounds"] = 100
    for suite in data["evals"]:
        suite["bootstrap"] = 20
    data["fetch"] = {"store": ".modelboards/store", **fetch}
    data["snapshots_dir"] = "snapshots"
    path = tmp / "site.yml"
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    return path


def _build(cfg: Path, *extra: str, pause: str | None = None, marker: Path | None = None) -> subprocess.Popen:
    env = {k: v for k, v in os.environ.items() if k not in (PAUSE_AT, PAUSE_FILE)}
    if pause:
        assert pause in POINTS and marker is not None
        env.update({PAUSE_AT: pause, PAUSE_FILE: str(marker)})
    return subprocess.Popen([str(MODELBOARDS), "--config", str(cfg), "build", "--now", NOW, *extra],
                            cwd=cfg.parent, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _wait_for(marker: Path, proc: subprocess.Popen, seconds: float = 120) -> None:
    end = time.monotonic() + seconds
    while not marker.exists():
        if proc.poll() is not None:
            pytest.fail(f"build ended (rc {proc.returncode}) before the pause point: {proc.stderr.read()}")
        if time.monotonic() > end:
            proc.kill()
            pytest.fail("build never reached the pause point")
        time.sleep(0.05)


def _kill_at(cfg: Path, point: str) -> None:
    marker = cfg.parent / f"paused-{point}"
    proc = _build(cfg, pause=point, marker=marker)
    _wait_for(marker, proc)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(30)
    marker.unlink(missing_ok=True)


def _ok(proc: subprocess.Popen) -> str:
    out, err = proc.communicate(timeout=300)
    assert proc.returncode == 0, err
    return err


def _tree(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def _leftovers(folder: Path, name: str) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.startswith(f".{name}."))


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Path:
    """A project after one good build (each test copies it)."""
    tmp = tmp_path_factory.mktemp("crash")
    cfg = _project(tmp)
    _ok(_build(cfg))
    assert (tmp / "site" / "index.html").is_file()
    return tmp


def _copy(built: Path, tmp_path: Path, **fetch) -> Path:
    import shutil

    dest = tmp_path / "p"
    shutil.copytree(built, dest, symlinks=True)
    return _project(dest, **fetch)


def test_kill_between_the_site_renames_then_the_next_build_restores_and_cleans(built, tmp_path):
    cfg = _copy(built, tmp_path)
    base = cfg.parent
    before = _tree(base / "site")
    _kill_at(cfg, "site-between-renames")
    assert not (base / "site").exists()  # the instant the issue describes: no site/ at all
    (old,) = [p for p in base.iterdir() if p.name.startswith(".site.old-")]
    assert _tree(old) == before
    # the next run of anything that writes the site puts the previous one back first
    recover_site(base / "site")
    assert _tree(base / "site") == before and not _leftovers(base, "site")
    _kill_at(cfg, "site-between-renames")
    _ok(_build(cfg))  # and a whole build recovers and then swaps
    assert (base / "site" / "index.html").is_file()
    assert _leftovers(base, "site") == []


def test_kill_before_the_swap_leaves_a_new_folder_the_next_build_removes(built, tmp_path):
    cfg = _copy(built, tmp_path)
    base = cfg.parent
    before = _tree(base / "site")
    _kill_at(cfg, "site-built")
    assert _tree(base / "site") == before  # the old site is untouched
    assert [n for n in _leftovers(base, "site") if n.startswith(".site.new-")]
    _ok(_build(cfg))
    assert _leftovers(base, "site") == []


def test_kill_between_the_store_renames_loses_no_payload(built, tmp_path):
    cfg = _copy(built, tmp_path)
    store = cfg.parent / ".modelboards" / "store"
    _kill_at(cfg, "store-between-renames")
    first = sorted(store.iterdir())
    assert any(p.name.endswith(".old") for p in first)  # the crash left a source renamed away
    _ok(_build(cfg))
    names = sorted(p.name for p in store.iterdir())
    assert not [n for n in names if n.startswith(".")], names  # recovered and cleaned
    assert all((store / n / "payload.json").is_file() for n in names)


def test_a_second_build_waits_for_the_first(built, tmp_path):
    cfg = _copy(built, tmp_path)
    marker = cfg.parent / "paused"
    first = _build(cfg, pause="site-built", marker=marker)
    _wait_for(marker, first)  # the first build holds the lock, paused just before its swap
    second = _build(cfg)
    said = _first_stderr_line(second)
    assert said.startswith("waiting for another modelboards run"), said
    time.sleep(1.0)
    assert second.poll() is None  # waiting, not racing into the store
    marker.unlink()  # let the first one finish
    _ok(first)
    _ok(second)
    assert _leftovers(cfg.parent, "site") == []


def _first_stderr_line(proc: subprocess.Popen) -> str:
    line = proc.stderr.readline()  # the build prints nothing else on stderr before taking the lock
    assert line, f"no output (rc {proc.poll()})"
    return line.strip()


def test_a_second_build_gives_up_with_one_line_after_the_lock_timeout(built, tmp_path):
    cfg = _copy(built, tmp_path, lock_timeout=1)
    marker = cfg.parent / "paused"
    first = _build(cfg, pause="site-built", marker=marker)
    _wait_for(marker, first)
    second = _build(cfg)
    out, err = second.communicate(timeout=120)
    marker.unlink()
    _ok(first)
    assert second.returncode == 2
    lines = [line for line in err.splitlines() if line.strip()]
    assert lines[-1].startswith("error: ") and "holds the lock" in lines[-1] and "Traceback" not in err
    assert len(lines) == 2 and lines[0].startswith("waiting for another modelboards run")


def test_swap_failure_in_process_keeps_the_previous_site(tmp_path):
    site = tmp_path / "site"
    site.mkdir()
    (site / "index.html").write_text("old")
    (site / SITE_MARKER).write_text("")  # a site this tool wrote

    def broken(tmp: Path) -> None:
        (tmp / "index.html").write_text("half")
        raise RuntimeError("render failed")

    with pytest.raises(RuntimeError):
        write_site_atomically(site, broken)
    assert (site / "index.html").read_text() == "old" and _leftovers(tmp_path, "site") == []
