"""Which files of a folder are dated snapshots (``YYYY-MM-DD.json``), with nothing but the standard library.

``builder.snapshot`` re-exports ``list_snapshots``; it lives here so that a caller that only
needs the file names (the MCP server's start, before it knows whether its cached documents
are still valid) does not pay for building the snapshot models.
"""

from __future__ import annotations

import re
from datetime import date
from pathlib import Path

SNAPSHOT_NAME = re.compile(r"^(\d{4}-\d{2}-\d{2})\.json$")
"A snapshot's file name: its UTC date and ``.json``."


def list_snapshots(snapshots_dir: Path) -> list[Path]:
    """``YYYY-MM-DD.json`` files with a valid date in the folder, oldest first."""
    snapshots_dir = Path(snapshots_dir)
    if not snapshots_dir.is_dir():
        return []
    found = []
    for p in snapshots_dir.iterdir():
        m = SNAPSHOT_NAME.match(p.name)
        if not m or not p.is_file():
            continue
        try:
            found.append((date.fromisoformat(m.group(1)), p))
        except ValueError:
            continue
    return [p for _, p in sorted(found)]
