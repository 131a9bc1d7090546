"""Third-party source kinds: a small plugin package (``tests/plugins/mb_plugin_demo``) is
pip-installed into a folder of the test's own, found through its ``modelboards.sources``
entry points, listed by ``modelboards sources``, and used by a build. Its second entry point
fails to import: one warning line naming it, and everything goes on without it."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
PLUGIN = ROOT / "tests" / "plugins" / "mb_plugin_demo"
CLI = str(Path(sys.executable).parent / "modelboards")


@pytest.fixture(scope="module")
def plugin_site(tmp_path_factory) -> Path:
    """The plugin installed (pip, no network, no build isolation) into a folder of its own."""
    src = tmp_path_factory.mktemp("plugin-src") / "mb_plugin_demo"
    shutil.copytree(PLUGIN, src)  # the build writes egg-info and build/ beside the sources
    target = tmp_path_factory.mktemp("plugin-site")
    run = subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--no-build-isolation",
                          "--no-index", "--target", str(target), str(src)], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    assert (target / "mb_plugin_demo-0.1.0.dist-info" / "entry_points.txt").is_file()
    return target


def _env(plugin_site: Path) -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), str(plugin_site)])}


def _broken_lines(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if "'broken'" in line]


def test_sources_lists_builtin_and_plugin_kinds(plugin_site):
    run = subprocess.run([CLI, "sources"], env=_env(plugin_site), capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    lines = {line.split()[0]: line.split() for line in run.stdout.splitlines()[1:]}
    assert lines["scoresheet"][1] == "mb-plugin-demo" and lines["table"][1] == "builtin"
    assert lines["lmarena"][1] == "builtin" and "broken" not in lines
    broken = _broken_lines(run.stderr)
    assert len(broken) == 1 and "mb_plugin_demo.broken" in broken[0] and "ImportError" in broken[0]


def test_without_the_plugin_its_kind_is_unknown(tmp_path):
    (tmp_path / "site.yml").write_text(yaml.safe_dump(_config(tmp_path, tmp_path / "sheet.json")))
    run = subprocess.run([CLI, "--config", str(tmp_path / "site.yml"), "fetch"], cwd=tmp_path,
                         env={**os.environ, "PYTHONPATH": str(ROOT)}, capture_output=True, text=True, timeout=120)
    assert run.returncode == 2 and "Traceback" not in run.stderr
    assert "sources.1.kind" in run.stderr and "unknown kind 'scoresheet'" in run.stderr


def _config(tmp_path: Path, sheet: Path) -> dict:
    from conftest import require_shared_data

    arena_file = require_shared_data() / "arena" / "lmarena" / "leaderboard-text.json"
    return {
        "demo": False,
        "sources": [
            {"name": "arena", "kind": "lmarena", "recorded": str(arena_file),
             "date": "2025-12-11", "evaluator": "lmarena"},
            {"name": "sheet", "kind": "scoresheet", "recorded": str(sheet), "evaluator": "sheet-lab"},
            {"name": "wreck", "kind": "broken", "recorded": str(sheet)},
        ],
        "families": {"human_preference": {"title": "Human preference", "feeds": ["arena/text"]},
                     "sheet": {"title": "Score sheet", "feeds": ["sheet/score"]}},
        "roles": {"all": {"title": "All-round", "weights": {"human_preference": 0.5, "sheet": 0.5}}},
        "boards": [{"id": "all", "title": "Best all-round", "kind": "orchestrator", "role": "all"}],
        "arena": {"enabled": False}, "index": {"enabled": False}, "uncertainty": {"rounds": 0},
    }


def test_a_build_uses_the_plugin_kind(tmp_path, plugin_site, shared_data):
    """One offline build (~20-40 s on two busy cores) with the real LMArena file as the Arena
    scale and the plugin's kind as a family of a role; the broken plugin's kind fails alone."""
    ratings = json.loads((shared_data / "arena" / "lmarena" / "leaderboard-text.json").read_text())["full"]
    top = sorted(ratings.items(), key=lambda kv: -kv[1]["rating"])[:60:3]
    # a published 0-100 score that follows the Arena rating (so the z-fit has a positive slope)
    scores = {m: round(min(100.0, max(0.0, 20 + (r["rating"] - 1300) / 4 + (i % 3))), 1)
              for i, (m, r) in enumerate(top)}
    sheet = tmp_path / "sheet.json"
    sheet.write_text(json.dumps({"published": "2025-12-01", "scores": scores}))
    (tmp_path / "site.yml").write_text(yaml.safe_dump(_config(tmp_path, sheet), sort_keys=False))
    run = subprocess.run([CLI, "--config", str(tmp_path / "site.yml"), "build"], cwd=tmp_path,
                         env=_env(plugin_site), capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr
    assert "Traceback" not in run.stderr and len(_broken_lines(run.stderr)) >= 1
    snap = json.loads(next((tmp_path / "snapshots").glob("*.json")).read_text())
    status = {s["name"]: s for s in snap["sources"]}
    assert status["sheet"]["status"] == "ok" and status["sheet"]["kind"] == "scoresheet"
    assert status["wreck"]["status"] == "failed" and "not loaded" in status["wreck"]["error"]
    fit = next(c for c in snap["calibration"] if c["feed"] == "sheet/score")
    assert fit["used"] and fit["n"] >= 10
    rows = [r for r in snap["boards"][0]["rows"] if "sheet" in (r["families"] or {})]
    assert len(rows) >= 10
    assert "family_sheet" in (tmp_path / "site" / "data" / "boards" / "all.csv").read_text().splitlines()[0]
