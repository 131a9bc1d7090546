"""Test-only pause points, so crash tests can ``kill -9`` a real build at an exact instant.

Production code calls ``pause_point("name")`` at a few instants that matter for crash
safety (between the two renames of the site swap, and of a store write). It does nothing
unless BOTH environment variables are set, which only the test suite does:

    MODELBOARDS_TEST_PAUSE_AT=<name>      the point to stop at
    MODELBOARDS_TEST_PAUSE_FILE=<path>    written with the process id on arrival

On arrival the process writes the file and sleeps while the file exists (at most
``MAX_PAUSE`` seconds): the test kills it there, or deletes the file to let it go on.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

PAUSE_AT = "MODELBOARDS_TEST_PAUSE_AT"
PAUSE_FILE = "MODELBOARDS_TEST_PAUSE_FILE"
MAX_PAUSE = 120.0

POINTS = ("site-built", "site-between-renames", "store-between-renames")
"Every pause point the code has (a test naming another one would wait forever)."


def pause_point(name: str) -> None:
    """Stop here while the pause file exists, when the tests asked for this point."""
    if os.environ.get(PAUSE_AT) != name or not os.environ.get(PAUSE_FILE):
        return
    marker = Path(os.environ[PAUSE_FILE])
    marker.write_text(str(os.getpid()), encoding="utf-8")
    end = time.monotonic() + MAX_PAUSE
    while marker.exists() and time.monotonic() < end:
        time.sleep(0.05)
