"""A full disk while writing the site or a snapshot ends in one line naming the path (exit 1),
never a traceback, and what was saved before stays (the battles dump's own case is in
tests/test_fetch_battles.py: it fails the Arena source, not the build)."""

from __future__ import annotations

import errno
import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner
from conftest import LIGHT_ARENA
from fixtures.make_snapshot import make_snapshot

from builder.cli import main

ROOT = Path(__file__).resolve().parents[1]
CONFIG = ROOT / "tests" / "fixtures" / "site.yml"


def tree(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.fixture
def snapshot_file(tmp_path: Path) -> Path:
    path = tmp_path / "snaps" / "2026-11-29.json"
    path.parent.mkdir()
    path.write_text(json.dumps(make_snapshot(12, seed=1, day="2026-11-29")), encoding="utf-8")
    return path


def render(snapshot: Path, out: Path):
    return CliRunner().invoke(main, ["--config", str(CONFIG), "render", "--snapshot", str(snapshot),
                                     "--out", str(out)])


def test_a_full_disk_while_writing_the_site_is_one_line(tmp_path: Path, snapshot_file: Path, monkeypatch):
    out = tmp_path / "site"
    assert render(snapshot_file, out).exit_code == 0
    before = tree(out)
    real_open = open
    calls = {"n": 0}

    def full_open(file, mode="r", *args, **kwargs):
        if "w" in mode:
            calls["n"] += 1
            if calls["n"] > 20:  # the disk fills up part way through the site
                raise OSError(errno.ENOSPC, "No space left on device")
        return real_open(file, mode, *args, **kwargs)

    monkeypatch.setattr("builder.render.writer.open", full_open, raising=False)
    res = render(snapshot_file, out)
    assert res.exit_code == 1, res.output
    lines = res.output.strip().splitlines()
    assert len(lines) == 1 and "No space left on device" in lines[0] and str(tmp_path) in lines[0], res.output
    assert tree(out) == before  # the previous site stays
    assert not list(tmp_path.glob(".site.new-*"))


def test_a_full_disk_while_writing_the_snapshot_is_one_line(tmp_path: Path, monkeypatch):
    cfg = tmp_path / "site.yml"
    data = yaml.safe_load((ROOT / "site.yml").read_text(encoding="utf-8"))
    data.update(fetch={"store": str(tmp_path / "store")}, snapshots_dir=str(tmp_path / "snapshots"))
    data["arena"].update(LIGHT_ARENA)
    cfg.write_text(yaml.safe_dump(data), encoding="utf-8")
    shutil.copytree(ROOT / "content", tmp_path / "content")

    def no_space(fd: int) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr("builder.util.io.os.fsync", no_space)  # the snapshot is the one durable write
    res = CliRunner().invoke(main, ["--config", str(cfg), "build", "--now", "2026-11-30T12:00:00+00:00",
                                    "--out", str(tmp_path / "site")])
    assert res.exit_code == 1, res.output
    assert "Traceback" not in res.output
    last = res.stderr.strip().splitlines()[-1]
    assert "2026-11-30.json" in last and "No space left on device" in last
    assert not list((tmp_path / "snapshots").glob("*.json")) and not (tmp_path / "site").exists()
    assert not list((tmp_path / "snapshots").glob(".*.tmp"))


@pytest.mark.skipif(os.geteuid() != 0, reason="mounting a tmpfs needs root")
def test_a_real_full_disk_renders_one_line(tmp_path: Path, snapshot_file: Path):
    """The same on a real 1 MB tmpfs: the site does not fit."""
    disk = tmp_path / "disk"
    disk.mkdir()
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", str(disk)]).returncode != 0:
        pytest.skip("cannot mount a tmpfs here")
    try:
        res = render(snapshot_file, disk / "site")
        assert res.exit_code == 1, res.output
        lines = res.output.strip().splitlines()
        assert len(lines) == 1 and "No space left on device" in lines[0] and str(disk) in lines[0], res.output
        assert not (disk / "site").exists() and not list(disk.glob(".site.new-*"))
    finally:
        subprocess.run(["umount", str(disk)], check=False)
