"""When every upstream fails, nothing saved is lost: no empty snapshot is written, the site
keeps showing the newest saved day, and `score` says so with exit code 1."""

from __future__ import annotations

import json
import shutil
import socket
from pathlib import Path

import yaml
from click.testing import CliRunner

from builder.cli import main
from builder.snapshot import validate_snapshot, write_snapshot

ROOT = Path(__file__).resolve().parents[1]
NOW = "2026-11-30T12:00:00+00:00"


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _unreachable_config(tmp: Path) -> Path:
    """The shipped site.yml with every live URL pointing at a closed port on 127.0.0.1."""
    data = yaml.safe_load((ROOT / "site.yml").read_text())
    dead = f"http://127.0.0.1:{_closed_port()}"
    for s in data["sources"]:
        if s.get("url"):
            s["url"] = f"{dead}/{s['name']}.json"
        if "index_url" in s.get("options", {}):
            s["options"]["index_url"] = f"{dead}/index"
    data["arena"]["live_url"] = f"{dead}/battles.json"
    data["fetch"] = {"store": str(tmp / "store"), "retries": 1, "backoff": 0.01}
    data["snapshots_dir"] = str(tmp / "snapshots")
    path = tmp / "site.yml"
    path.write_text(yaml.safe_dump(data))
    return path


def test_empty_snapshot_is_never_saved(tmp_path):
    data = json.loads((ROOT / "snapshots" / "2026-11-29.json").read_text(encoding="utf-8"))
    for b in data["boards"]:
        b["rows"], b["new"] = [], []
    for m in data["machines"]:
        m["rows"] = []
    data["stacks"]["best"], data["worked_example"] = [], None
    path, action = write_snapshot(validate_snapshot(data), tmp_path)
    assert action == "empty" and not path.exists()


def test_live_build_with_every_source_down_keeps_the_last_saved_day(tmp_path):
    cfg = _unreachable_config(tmp_path)
    (tmp_path / "snapshots").mkdir()
    saved = ROOT / "snapshots" / "2026-11-29.json"
    shutil.copy(saved, tmp_path / "snapshots" / saved.name)
    result = CliRunner().invoke(main, ["--config", str(cfg), "build", "--live", "--now", NOW,
                                       "--out", str(tmp_path / "site")])
    assert result.exit_code == 0, result.output
    assert "none saved today" in result.output and "2026-11-29.json" in result.output
    assert sorted(p.name for p in (tmp_path / "snapshots").glob("*.json")) == ["2026-11-29.json"]
    front = (tmp_path / "site" / "index.html").read_text()
    assert "Best orchestrator" in front  # yesterday's boards, within the two-day guard
    assert "source arena failed" in result.stderr


def test_score_with_nothing_to_score_exits_1(tmp_path):
    cfg = _unreachable_config(tmp_path)
    assert CliRunner().invoke(main, ["--config", str(cfg), "fetch", "--live", "--no-progress"]).exit_code == 0
    result = CliRunner().invoke(main, ["--config", str(cfg), "score"])
    assert result.exit_code == 1
    assert "was not saved" in result.stderr
    assert not list(tmp_path.glob("snapshots/*.json"))
