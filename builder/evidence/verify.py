"""Run the site's own ``recompute.py`` on its export, as a reader would.

The script runs in a fresh interpreter with ``-I -S`` (isolated, no site-packages), which
also proves it needs nothing beyond the standard library. Before it runs, every snapshot the
site publishes (``data/snapshots/<date>.json``) must load under the snapshot schema: a broken
one is one ``UserError`` line naming the file and the JSON path of the problem.
"""

from __future__ import annotations

import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from builder.errors import UserError
from builder.snapshot import list_snapshots, load_snapshot


@dataclass(frozen=True)
class VerifyResult:
    ok: bool
    output: str
    reason: str = ""  # when recompute.py crashed: its last error line (the exception), paths relative to the site


def verify_site(site_dir: Path) -> VerifyResult:
    """Rebuild every published number from ``site_dir/data``; ok when nothing was missed."""
    data = Path(site_dir) / "data"
    script = data / "recompute.py"
    if not script.is_file():
        raise UserError(f"{script}: no recompute script (is {site_dir} a built ModelBoards site?)")
    for path in list_snapshots(data / "snapshots"):
        load_snapshot(path)
    proc = subprocess.run(
        [sys.executable, "-I", "-S", str(script), str(data)],
        capture_output=True, text=True, timeout=600,
    )
    # exit 1 is "some numbers did not rebuild" only with that report; Python dying of an exception also exits 1
    crashed = proc.returncode not in (0, 1) or (proc.returncode == 1 and "did not rebuild" not in proc.stdout)
    output = proc.stdout + (proc.stderr if crashed else "")
    if crashed:
        lines = [line.strip() for line in proc.stderr.splitlines() if line.strip()]
        reason = lines[-1] if lines else f"no error output (exit {proc.returncode})"
        reason = reason.replace(str(Path(site_dir).resolve()) + "/", "").replace(str(site_dir).rstrip("/") + "/", "")
        return VerifyResult(False, f"recompute.py crashed (exit {proc.returncode}): {reason}\n{output}", reason)
    return VerifyResult(proc.returncode == 0, output)
