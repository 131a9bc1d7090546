"""Run the site's own ``recompute.py`` on its export, as a reader would.

The script runs in a fresh interpreter with ``-I -S`` (isolated, no site-packages), which
also proves it needs nothing beyond the standard library. Before its result is accepted,
every snapshot the site publishes (``data/snapshots/<date>.json``) must load under the
snapshot schema: a broken one is one ``UserError`` line naming the file and the JSON path of
the problem.

    verify_site(site_dir)                     -> VerifyResult (the script, then its verdict)
    run = start_recompute(site_dir); ...; verify_site(site_dir, run)
        the script started as soon as its inputs are written (a render goes on writing the
        pages meanwhile); the verdict waits for it
    verify_site(site_dir, memo=Memo(base, SNAPSHOT_CHECK_MEMO))
        a build's verify: a published snapshot whose exact text already loaded under this
        code (``builder.util.memo``: its SHA-256 and the code's) is not loaded again; every
        earlier day's snapshot is published unchanged day after day
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from builder.errors import UserError
from builder.snapshot import list_snapshots, load_snapshot
from builder.util.memo import Memo, memo_key

TIMEOUT = 600
"Seconds ``recompute.py`` may run before the verify gives up on it (a failure)."
SNAPSHOT_CHECK_MEMO = "snapshot-loads"
"The memo of published snapshot texts that loaded (an empty entry per text)."


@dataclass(frozen=True)
class VerifyResult:
    ok: bool
    output: str
    reason: str = ""  # when recompute.py crashed: its last error line (the exception), paths relative to the site


class RecomputeRun:
    """A running ``recompute.py`` over ``site_dir/data``; its output goes to unnamed temporary
    files (never a pipe nobody reads while the render goes on, which could fill and stall it)."""

    def __init__(self, site_dir: Path) -> None:
        self.site_dir = Path(site_dir)
        data = self.site_dir / "data"
        script = data / "recompute.py"
        if not script.is_file():
            raise UserError(f"{script}: no recompute script (is {site_dir} a built ModelBoards site?)")
        self._out: IO[bytes] = tempfile.TemporaryFile()
        self._err: IO[bytes] = tempfile.TemporaryFile()
        self._proc = subprocess.Popen([sys.executable, "-I", "-S", str(script), str(data)],
                                      stdin=subprocess.DEVNULL, stdout=self._out, stderr=self._err)

    def wait(self) -> tuple[int, str, str]:
        """(exit code, stdout, stderr) once the script has ended (``TimeoutExpired`` after ``TIMEOUT``)."""
        try:
            code = self._proc.wait(timeout=TIMEOUT)
        except subprocess.TimeoutExpired:
            self.cancel()
            raise
        texts = []
        for fh in (self._out, self._err):
            fh.seek(0)
            texts.append(fh.read().decode("utf-8", errors="replace"))
            fh.close()
        return code, texts[0], texts[1]

    def cancel(self) -> None:
        """Stop the script (the render failed, its result is not wanted) and reap it."""
        if self._proc.poll() is None:
            self._proc.kill()
        self._proc.wait()
        self._out.close()
        self._err.close()


def start_recompute(site_dir: Path) -> RecomputeRun:
    """Start ``site_dir/data/recompute.py`` on the downloads beside it (all of them must be written)."""
    return RecomputeRun(site_dir)


def check_published_snapshots(site_dir: Path, memo: Memo | None = None) -> None:
    """Every ``data/snapshots/<date>.json`` of the site loads under the snapshot schema (else
    ``UserError``). With ``memo``, a text that loaded before under this code is not loaded again."""
    for path in list_snapshots(Path(site_dir) / "data" / "snapshots"):
        key = None
        if memo is not None:
            try:
                key = memo_key(SNAPSHOT_CHECK_MEMO, path.read_bytes())
            except OSError:
                key = None  # load_snapshot says what is wrong with the file
            if key is not None and memo.get(key) is not None:
                continue
        load_snapshot(path)
        if memo is not None and key is not None:
            memo.put(key, "")
    if memo is not None:
        memo.prune()


def verify_site(site_dir: Path, run: RecomputeRun | None = None, memo: Memo | None = None) -> VerifyResult:
    """Rebuild every published number from ``site_dir/data``; ok when nothing was missed.

    ``run`` is the script already started on this site (``start_recompute``); without it, it
    is started here. A published snapshot that does not load stops the script and raises;
    ``memo`` (``SNAPSHOT_CHECK_MEMO``) holds the texts that loaded before.
    """
    data = Path(site_dir) / "data"
    script = data / "recompute.py"
    if run is None and not script.is_file():
        raise UserError(f"{script}: no recompute script (is {site_dir} a built ModelBoards site?)")
    try:
        check_published_snapshots(site_dir, memo)
    except BaseException:
        if run is not None:
            run.cancel()
        raise
    code, stdout, stderr = (run or start_recompute(site_dir)).wait()
    # exit 1 is "some numbers did not rebuild" only with that report; Python dying of an exception also exits 1
    crashed = code not in (0, 1) or (code == 1 and "did not rebuild" not in stdout)
    output = stdout + (stderr if crashed else "")
    if crashed:
        lines = [line.strip() for line in stderr.splitlines() if line.strip()]
        reason = lines[-1] if lines else f"no error output (exit {code})"
        reason = reason.replace(str(Path(site_dir).resolve()) + "/", "").replace(str(site_dir).rstrip("/") + "/", "")
        return VerifyResult(False, f"recompute.py crashed (exit {code}): {reason}\n{output}", reason)
    return VerifyResult(code == 0, output)


class RecomputeWhenReady:
    """Starts a render's ``recompute.py`` as soon as the step that writes it is done.

    ``after_page`` is ``render_site``'s ``after`` hook, called after each step (the pages'
    first downloads, then each page): the first time ``data/recompute.py`` is in the site, the
    step that wrote it has written the downloads it reads too
    (``builder.render.pages.evidence.write_evidence_files`` writes them together), so the
    script starts and runs while the pages are written. ``run`` is None until then (a
    site without the script, or a render that has not reached it); ``cancel`` stops it when the
    render fails.
    """

    def __init__(self, site_dir: Path) -> None:
        self.site_dir = Path(site_dir)
        self.run: RecomputeRun | None = None

    def after_page(self, key: str) -> None:
        if self.run is None and (self.site_dir / "data" / "recompute.py").is_file():
            self.run = start_recompute(self.site_dir)

    def cancel(self) -> None:
        if self.run is not None:
            self.run.cancel()
