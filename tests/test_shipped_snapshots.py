"""Every snapshot committed in snapshots/ loads under the current schema, belongs to the
current method, and renders a site whose numbers rebuild (regenerate with `make snapshots`)."""

from __future__ import annotations

import json
import subprocess
from datetime import UTC, datetime
from pathlib import Path

import pytest

from builder.config import load_config
from builder.evidence.verify import verify_site
from builder.render.site import render_site
from builder.snapshot import SCHEMA_VERSION, check_guards, dump_snapshot, list_snapshots, load_snapshot

ROOT = Path(__file__).resolve().parents[1]


def _committed(paths: list[Path]) -> list[Path]:
    """The snapshots git tracks (a local `make site` adds today's beside them); all of them
    outside a git checkout."""
    try:
        out = subprocess.run(["git", "ls-files", "-z", "--", "snapshots"], cwd=ROOT, capture_output=True, check=True)
    except (OSError, subprocess.CalledProcessError):
        return paths
    tracked = {ROOT / p for p in out.stdout.decode().split("\0") if p}
    return [p for p in paths if p in tracked]


SHIPPED = _committed(list_snapshots(ROOT / "snapshots"))


def test_there_is_a_demo_history():
    assert len(SHIPPED) >= 8


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: p.stem)
def test_snapshot_loads_and_matches_the_current_method(path):
    cfg, _ = load_config(ROOT / "site.yml")
    snap = load_snapshot(path)
    assert json.loads(path.read_text(encoding="utf-8"))["schema_version"] == SCHEMA_VERSION, (
        "schema changed: run `make snapshots` and review the diff")
    assert snap.date == path.stem
    assert snap.method_id == cfg.method_id(), "method changed: run `make snapshots` and review the diff"
    assert snap.demo is True and snap.backfill is not None
    assert snap.worked_example is not None and snap.worked_example.agrees
    created = datetime.fromisoformat(snap.created_at)
    assert check_guards(snap, created) == []
    assert dump_snapshot(snap) == path.read_text(encoding="utf-8"), "not as `make snapshots` writes it"


def test_oldest_and_newest_render_and_rebuild(tmp_path):
    cfg, base = load_config(ROOT / "site.yml")
    for path in (SHIPPED[0], SHIPPED[-1]):
        snap = load_snapshot(path)
        out = tmp_path / path.stem
        render_site(snap, [], cfg, base, out, now=datetime.fromisoformat(snap.created_at).astimezone(UTC))
        result = verify_site(out)
        assert result.ok, result.output
