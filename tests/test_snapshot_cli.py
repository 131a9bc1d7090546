"""A hand-edited or broken snapshot: ``render``, ``explain``, ``verify`` and the build's
previous-day read each print one line naming the file and the JSON path, exit 2, and leave
what was there before untouched."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner
from conftest import LIGHT_ARENA

from builder.cli import main
from builder.cli.mcp import CACHE_DIR
from builder.config import load_config
from builder.mcp.cache import DocumentCache
from builder.mcp.data import LocalBackend

ROOT = Path(__file__).resolve().parents[1]
SHIPPED = ROOT / "snapshots" / "2026-11-29.json"


def tree(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def config(tmp_path: Path, snapshots: Path) -> Path:
    """site.yml with its snapshots in ``snapshots`` (and the bundled data for everything else)."""
    cfg = yaml.safe_load((ROOT / "site.yml").read_text(encoding="utf-8"))
    cfg["snapshots_dir"] = str(snapshots)
    cfg["arena"].update(LIGHT_ARENA)
    path = tmp_path / "site.yml"
    path.write_text(yaml.safe_dump(cfg, sort_keys=False), encoding="utf-8")
    return path


def ghost_in_index(snapshot: dict[str, Any]) -> tuple[dict[str, Any], int]:
    """The snapshot with one Capability Index model renamed to an identity ``models`` lacks."""
    index = snapshot["index"]
    k = 0
    old = index["models"][k]["identity"]
    index["models"][k]["identity"] = "ghost-model-9"
    for board in index["boards"].values():
        board[:] = ["ghost-model-9" if i == old else i for i in board]
    return snapshot, k


def one_error_line(output: str) -> str:
    lines = [line for line in output.splitlines() if line.strip()]
    assert len(lines) == 1, output
    assert "Traceback" not in output
    return lines[0]


def run(*args: str):
    return CliRunner().invoke(main, list(args))


@pytest.fixture(scope="module")
def rendered(tmp_path_factory) -> Path:
    """A project whose ``snaps/`` holds the shipped snapshot, rendered by ``modelboards render
    --snapshot`` into ``site/`` (once per module; ``_project`` gives each test its own copy)."""
    base = tmp_path_factory.mktemp("rendered")
    snaps = base / "snaps"
    snaps.mkdir()
    shutil.copy(SHIPPED, snaps / SHIPPED.name)
    cfg = config(base, snaps)
    good = run("--config", str(cfg), "render", "--snapshot", str(snaps / SHIPPED.name), "--out", str(base / "site"))
    assert good.exit_code == 0, good.output
    return base


def _project(rendered: Path, tmp_path: Path) -> tuple[Path, Path, Path]:
    """A copy of ``rendered`` in ``tmp_path``: (its site.yml, its snaps/, its site/)."""
    dest = tmp_path / "p"
    shutil.copytree(rendered, dest, symlinks=True)
    return config(dest, dest / "snaps"), dest / "snaps", dest / "site"


def test_render_of_a_snapshot_naming_a_model_the_models_lack_keeps_the_old_site(rendered, tmp_path):
    cfg, snaps, out = _project(rendered, tmp_path)
    before = tree(out)

    data = json.loads(SHIPPED.read_text(encoding="utf-8"))
    edited, k = ghost_in_index(data)
    bad = snaps / "2026-11-30.json"
    bad.write_text(json.dumps(edited), encoding="utf-8")
    res = run("--config", str(cfg), "render", "--snapshot", str(bad), "--out", str(out))
    assert res.exit_code == 2
    line = one_error_line(res.output)
    assert str(bad) in line
    assert f"index.models[{k}].identity: model 'ghost-model-9' is not in the snapshot's models" in line
    assert tree(out) == before  # the old site stays, byte for byte


def test_explain_with_a_bad_snapshot_is_one_line(tmp_path):
    data = json.loads(SHIPPED.read_text(encoding="utf-8"))
    data["boards"][0]["rows"][0]["rank"] = 0
    bad = tmp_path / "2026-11-29.json"
    bad.write_text(json.dumps(data), encoding="utf-8")
    res = run("explain", "claude-opus-5.5", "--snapshot", str(bad))
    assert res.exit_code == 2
    line = one_error_line(res.output)
    assert str(bad) in line and "boards[0].rows[0].rank: Input should be greater than or equal to 1" in line
    ok = run("explain", "claude-opus-5.5", "--snapshot", str(SHIPPED))
    assert ok.exit_code == 0 and "R = " in ok.output


def test_verify_with_a_bad_snapshot_download_is_one_line(rendered, tmp_path):
    _, _, out = _project(rendered, tmp_path)
    assert run("verify", str(out)).exit_code == 0
    download = out / "data" / "snapshots" / SHIPPED.name
    data = json.loads(download.read_text(encoding="utf-8"))
    data["stacks"]["best"][0]["board"] = "no-such-board"
    download.write_text(json.dumps(data), encoding="utf-8")
    res = run("verify", str(out))
    assert res.exit_code == 2
    line = one_error_line(res.output)
    assert str(download) in line
    assert "stacks.best[0].board: board 'no-such-board' is not in the snapshot's boards" in line


def test_a_broken_previous_day_never_blocks_the_build(tmp_path):
    snaps = tmp_path / "snaps"
    snaps.mkdir()
    data = json.loads(SHIPPED.read_text(encoding="utf-8"))
    data["sources"][0]["status"] = "fine"
    broken = snaps / "2026-11-29.json"
    text = json.dumps(data)
    broken.write_text(text, encoding="utf-8")
    cfg = config(tmp_path, snaps)
    out = tmp_path / "site"
    res = run("--config", str(cfg), "build", "--out", str(out), "--now", "2026-11-30T12:45:00+00:00")
    assert res.exit_code == 0, res.output
    # the operator is told which file, what is wrong with it and what to do; today is built
    said = [line for line in res.stderr.splitlines() if str(broken) in line]
    wrong = "sources[0].status: Input should be 'ok', 'failed', 'missing' or 'not_configured'"
    assert said and all(wrong in line for line in said)
    assert all("restore it" in line and "or delete it" in line for line in said), said
    assert sorted(p.name for p in snaps.glob("*.json")) == ["2026-11-29.json", "2026-11-30.json"]
    assert broken.read_text(encoding="utf-8") == text  # left for the operator to look at
    assert (out / "index.html").is_file()
    # the build prepared the MCP server's documents of today's snapshot (the broken day left out
    # of their history): a server start reads them and computes nothing
    site_cfg, base = load_config(cfg)
    backend = LocalBackend(site_cfg, base, snaps, cache=DocumentCache(base / CACHE_DIR))
    assert backend.load().docs.index.snapshot.date == "2026-11-30" and backend.computed == 0
    assert "MCP" not in res.stderr
