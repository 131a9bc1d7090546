"""Golden files: one board page, one model page and the board CSV/JSON downloads.

The input is the committed fixture ``tests/fixtures/golden_snapshot.json`` rendered with
``tests/fixtures/site.yml`` at a fixed time and base URL. After an intended change to the
templates, content or exports, regenerate the goldens with ONE command and review the diff:

    MODELBOARDS_REGEN_GOLDEN=1 python -m pytest tests/test_render_golden.py
"""

from __future__ import annotations

import json
import os
from datetime import datetime, timezone
from pathlib import Path

import pytest

from builder.config import load_config
from builder.render.site import render_site

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "tests" / "fixtures"
GOLDEN = ROOT / "tests" / "golden"
REGEN = os.environ.get("MODELBOARDS_REGEN_GOLDEN") == "1"

# (path in the built site, golden file name)
FILES = [
    ("boards/orchestrator/index.html", "board-orchestrator.html"),
    ("models/helix-sol-24/index.html", "model-helix-sol-24.html"),
    ("data/boards/orchestrator.csv", "orchestrator.csv"),
    ("data/boards/orchestrator.json", "orchestrator.json"),
    ("data/boards/mid-tier.csv", "mid-tier.csv"),
]


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Path:
    cfg, _ = load_config(FIXTURES / "site.yml")
    snapshot = json.loads((FIXTURES / "golden_snapshot.json").read_text(encoding="utf-8"))
    out = tmp_path_factory.mktemp("golden-site")
    render_site(snapshot, [], cfg, ROOT, out, now=datetime(2026, 11, 30, 12, tzinfo=timezone.utc),
                base_url="https://user.github.io/modelboards/")
    return out


@pytest.mark.parametrize("site_path,golden_name", FILES)
def test_output_matches_golden(built, site_path, golden_name):
    got = (built / site_path).read_bytes()
    golden = GOLDEN / golden_name
    if REGEN:
        GOLDEN.mkdir(parents=True, exist_ok=True)
        golden.write_bytes(got)
        return
    assert golden.is_file(), f"missing {golden}; run MODELBOARDS_REGEN_GOLDEN=1 python -m pytest {__file__}"
    assert got == golden.read_bytes(), (
        f"{site_path} differs from {golden}; if the change is intended, regenerate with "
        "MODELBOARDS_REGEN_GOLDEN=1 python -m pytest tests/test_render_golden.py and review the diff"
    )
