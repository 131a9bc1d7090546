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


CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]


@pytest.fixture(scope="session")
def browser():
    """One Chromium for the whole session (Playwright's sync API allows one loop per process).

    Debian's /usr/bin/chromium where it exists, else Playwright's own build
    (`python -m playwright install chromium`).
    """
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        kwargs = {"executable_path": str(CHROMIUM)} if CHROMIUM.exists() else {}
        b = pw.chromium.launch(args=CHROMIUM_ARGS, **kwargs)
        yield b
        b.close()
