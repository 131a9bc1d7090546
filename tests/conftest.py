"""Shared fixtures: paths to the project, its config and the real upstream data."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SHARED_DATA = ROOT.parent / "shared" / "data"


@pytest.fixture(scope="session")
def root() -> Path:
    return ROOT


@pytest.fixture(scope="session")
def shared_data() -> Path:
    if not SHARED_DATA.is_dir():
        if os.environ.get("MODELBOARDS_ALLOW_NO_SHARED_DATA") == "1":
            pytest.skip(f"real upstream test data not present at {SHARED_DATA}")
        pytest.fail(f"real upstream test data not found at {SHARED_DATA}")
    return SHARED_DATA
