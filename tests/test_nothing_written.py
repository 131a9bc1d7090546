"""A bad operator file (an eval run, the battles file) stops the build with one line and exit
code 2 before anything is written: no status record, payload, snapshot, attempt record or site
changes. A corrupt OLD snapshot never blocks today's build: it is skipped with a warning that
names the file and says what to do."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from builder.cli import main
from builder.config import PACKAGE_DATA

ROOT = Path(__file__).resolve().parents[1]
NOW = "2026-11-30T12:00:00+00:00"
LATER = "2026-12-01T06:45:00+00:00"


def _config(tmp: Path) -> Path:
    data = yaml.safe_load((ROOT / "site.yml").read_text())
    # cheap to build: few bootstrap rounds, no flip budgets (tests/test_arena_flip.py covers them)
    data["arena"].update(bootstrap=5, history_bootstrap=0, flip_top=0, battles=str(tmp / "battles.jsonl"))
    own = tmp / "evals"
    shutil.copytree(PACKAGE_DATA / "demo" / "evals", own)
    shutil.copy(PACKAGE_DATA / "demo" / "battles" / "clean_battle_demo.jsonl", tmp / "battles.jsonl")
    data["evals"][0]["paths"] = [str(own / "coding-suite.jsonl")]
    data["evals"][1]["paths"] = [str(own / "clarify")]
    for suite in data["evals"]:
        suite["bootstrap"] = 20
    data["fetch"] = {"store": str(tmp / "store")}
    data["snapshots_dir"] = str(tmp / "snapshots")
    path = tmp / "site.yml"
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    return path


def _state(tmp: Path) -> dict[str, bytes]:
    out = {}
    for folder in ("store", "snapshots", "site"):
        for p in sorted((tmp / folder).rglob("*")):
            if p.is_file():
                out[p.relative_to(tmp).as_posix()] = p.read_bytes()
    return out


def _build(cfg: Path, now: str):
    return CliRunner().invoke(main, ["--config", str(cfg), "build", "--now", now, "--out", str(cfg.parent / "site")])


@pytest.fixture(scope="module")
def first(tmp_path_factory) -> Path:
    tmp = tmp_path_factory.mktemp("nothing")
    result = _build(_config(tmp), NOW)
    assert result.exit_code == 0, result.output
    return tmp


def _copy(first: Path, tmp_path: Path) -> Path:
    dest = tmp_path / "p"
    shutil.copytree(first, dest)
    cfg = dest / "site.yml"
    cfg.write_text(cfg.read_text().replace(str(first), str(dest)))
    return cfg


def _refused(cfg: Path, *needles: str) -> None:
    before = _state(cfg.parent)
    result = _build(cfg, LATER)
    assert result.exit_code == 2, result.output
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: ") and "Traceback" not in result.output, result.stderr
    for needle in needles:
        assert needle in lines[0], lines[0]
    assert _state(cfg.parent) == before  # not one status record, snapshot or page rewritten


def test_bad_eval_file_writes_nothing(first, tmp_path):
    cfg = _copy(first, tmp_path)
    runs = cfg.parent / "evals" / "coding-suite.jsonl"
    lines = runs.read_text().splitlines()
    lines[2] = '{"model_id": "m", "task_id": "t", "metric_name": "acc", "score": 7}'
    runs.write_text("\n".join(lines) + "\n")
    _refused(cfg, "coding-suite.jsonl", "line 3", "score")


def test_bad_clarify_run_writes_nothing(first, tmp_path):
    cfg = _copy(first, tmp_path)
    victim = sorted((cfg.parent / "evals" / "clarify").rglob("*.jsonl"))[0]
    victim.write_text("{broken\n")
    _refused(cfg, victim.name)


def test_bad_battles_file_writes_nothing(first, tmp_path):
    cfg = _copy(first, tmp_path)
    battles = cfg.parent / "battles.jsonl"
    lines = battles.read_text().splitlines()
    lines[4] = '{"model_a": "x", '
    battles.write_text("\n".join(lines) + "\n")
    _refused(cfg, "battles.jsonl", "line 5")


def test_corrupt_old_snapshot_never_blocks_todays_build(first, tmp_path):
    cfg = _copy(first, tmp_path)
    snaps = cfg.parent / "snapshots"
    old = snaps / "2026-11-30.json"
    old.write_text(old.read_text()[:500])  # cut short, as a crash of another tool might leave it
    (snaps / "2026-11-20.json").write_text('{"schema_version": 99}')
    result = _build(cfg, LATER)
    assert result.exit_code == 0, result.output
    assert (snaps / "2026-12-01.json").is_file()
    warnings = [line for line in result.stderr.splitlines() if "snapshot skipped" in line]
    assert len(warnings) == 2, result.stderr
    assert any("2026-11-30.json" in w and "invalid JSON" in w for w in warnings)
    assert all("restore it" in w and "or delete it" in w for w in warnings)
    assert old.read_text() == old.read_text()[:500]  # the bad file is left for the operator to look at
