"""When ``recompute.py`` crashes inside ``verify``, the error says why (the exception line),
and no local absolute path reaches the published site (a failed source's error included)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner
from conftest import LIGHT_ARENA
from fixtures.make_snapshot import make_snapshot

from builder.cli import main
from builder.errors import CheckFailed
from builder.pipeline import verify_or_fail
from builder.util.text import public_message

ROOT = Path(__file__).resolve().parents[1]
CONFIG = ROOT / "tests" / "fixtures" / "site.yml"


def test_a_recompute_crash_says_why(tmp_path: Path):
    snap = tmp_path / "snaps" / "2026-11-29.json"
    snap.parent.mkdir()
    snap.write_text(json.dumps(make_snapshot(12, seed=1, day="2026-11-29")), encoding="utf-8")
    site = tmp_path / "site"
    res = CliRunner().invoke(main, ["--config", str(CONFIG), "render", "--snapshot", str(snap), "--out", str(site)])
    assert res.exit_code == 0, res.output
    script = site / "data" / "recompute.py"
    code = script.read_text(encoding="utf-8")
    head = "def main(argv: list[str]) -> int:\n"
    script.write_text(code.replace(head, head + '    raise RuntimeError("the boards file is broken")\n'))
    with pytest.raises(CheckFailed) as err:
        verify_or_fail(site)
    message = str(err.value)
    assert "RuntimeError: the boards file is broken" in message, message
    assert str(tmp_path) not in message
    res = CliRunner().invoke(main, ["verify", str(site)])
    assert res.exit_code == 1 and "RuntimeError: the boards file is broken" in res.output


def test_public_message_keeps_no_local_folder():
    assert public_message("cannot store the payload: /srv/proj/store/aider: Not a directory", "/srv/proj") == (
        "cannot store the payload: store/aider: Not a directory")
    assert public_message("recorded payload not found: /home/me/x/leaderboard.json", "/srv/proj") == (
        "recorded payload not found: …/leaderboard.json")
    url = "HTTP 500 from https://example.org/a/b.json (gave up after 3 attempts)"
    assert public_message(url, "/srv") == url


def test_a_failed_local_source_publishes_no_local_path(tmp_path: Path):
    cfg = yaml.safe_load((ROOT / "site.yml").read_text())
    missing = tmp_path / "private" / "folder" / "leaderboard-text.json"
    for s in cfg["sources"]:
        if s["name"] == "aider":
            s["recorded"] = str(missing)
    cfg["fetch"] = {"store": str(tmp_path / "store")}
    cfg["snapshots_dir"] = str(tmp_path / "snapshots")
    cfg["arena"].update(LIGHT_ARENA)
    (tmp_path / "site.yml").write_text(yaml.safe_dump(cfg))
    shutil.copytree(ROOT / "content", tmp_path / "content")
    res = CliRunner().invoke(main, ["--config", str(tmp_path / "site.yml"), "build", "--now",
                                    "2026-11-30T12:00:00+00:00", "--out", str(tmp_path / "site")])
    assert res.exit_code == 0, res.output
    assert "source aider failed" in res.stderr
    leaks = [p.relative_to(tmp_path).as_posix() for p in [*(tmp_path / "site").rglob("*"),
                                                           *(tmp_path / "snapshots").rglob("*.json")]
             if p.is_file() and str(tmp_path).encode() in p.read_bytes()]
    assert leaks == []
    sources = (tmp_path / "site" / "sources" / "index.html")
    if sources.is_file():
        assert "leaderboard-text.json" in sources.read_text(encoding="utf-8")


def test_a_recompute_syntax_error_says_why(tmp_path: Path):
    site = tmp_path / "site" / "data"
    site.mkdir(parents=True)
    (site / "recompute.py").write_text("def broken(:\n")
    with pytest.raises(CheckFailed, match="SyntaxError"):
        verify_or_fail(tmp_path / "site")
