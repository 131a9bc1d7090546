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
    start_recompute(site_dir, Memo(base, VERDICT_MEMO))
        a render's run: when this very script already rebuilt everything from inputs of the
        same bytes (every file under ``data/`` as the run starts, the script among them, under
        this code and Python), its report is read back instead of running it again; only a
        run that rebuilt everything is remembered. Else the script runs compiled, once per
        text (``compiled_script``, ``.modelboards/recompute-code/``)
"""

from __future__ import annotations

import hashlib
import os
import py_compile
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from builder.errors import UserError
from builder.snapshot import list_snapshots, load_snapshot
from builder.snapshot.load import validated_here
from builder.util.memo import Memo, memo_key

TIMEOUT = 600
"Seconds ``recompute.py`` may run before the verify gives up on it (a failure)."
SNAPSHOT_CHECK_MEMO = "snapshot-loads"
"The memo of published snapshot texts that loaded (an empty entry per text)."
VERDICT_MEMO = "recompute-verdicts"
"The memo of ``recompute.py`` runs that rebuilt everything (their report, by every input's bytes)."
CODE_MEMO = "recompute-code"
"Beside the verdicts: ``recompute.py`` compiled, by its text (``compiled_script``)."


@dataclass(frozen=True)
class VerifyResult:
    ok: bool
    output: str
    reason: str = ""  # when recompute.py crashed: its last error line (the exception), paths relative to the site


class RecomputeRun:
    """A running ``recompute.py`` over ``site_dir/data``; its output goes to unnamed temporary
    files (never a pipe nobody reads while the render goes on, which could fill and stall it)."""

    def __init__(self, site_dir: Path, remember: tuple[Memo, str] | None = None) -> None:
        self.site_dir = Path(site_dir)
        data = self.site_dir / "data"
        script = data / "recompute.py"
        if not script.is_file():
            raise UserError(f"{script}: no recompute script (is {site_dir} a built ModelBoards site?)")
        self._remember = remember  # (memo, key): where a run that rebuilt everything keeps its report
        # a render's run (it remembers verdicts) reads the script compiled once per text
        run = compiled_script(script, remember[0].folder.parent / CODE_MEMO) if remember is not None else script
        self._out: IO[bytes] = tempfile.TemporaryFile()
        self._err: IO[bytes] = tempfile.TemporaryFile()
        self._proc = subprocess.Popen([sys.executable, "-I", "-S", str(run), str(data)],
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
        if self._remember is not None and code == 0:
            memo, key = self._remember
            memo.put(key, texts[0])
            memo.prune()
        return code, texts[0], texts[1]

    def cancel(self) -> None:
        """Stop the script (the render failed, its result is not wanted) and reap it."""
        if self._proc.poll() is None:
            self._proc.kill()
        self._proc.wait()
        self._out.close()
        self._err.close()


def compiled_script(script: Path, folder: Path, keep: int = 4) -> Path:
    """``script`` compiled by this Python, kept in ``folder``: Python runs a compiled file as it
    runs the script, without compiling its 2,000 lines first (about 0.025 s of every run).

    The file is named by the key of the script's bytes (``memo_key``: with the code and the
    Python) and the SHA-256 of the compiled file itself, checked before it is used, so a
    damaged file is compiled again. The ``keep`` most recently used stay. The script itself is
    run when the folder cannot be written.
    """
    try:
        source = script.read_bytes()
        key = memo_key(CODE_MEMO, source)
        for cached in folder.glob(f"{key}-*.pyc"):
            if cached.name == f"{key}-{hashlib.sha256(cached.read_bytes()).hexdigest()}.pyc":
                os.utime(cached)
                return cached
        folder.mkdir(parents=True, exist_ok=True)
        tmp = folder / f".{key[:16]}.{os.getpid()}.tmp"
        py_compile.compile(str(script), cfile=str(tmp), dfile=script.name, doraise=True,
                           invalidation_mode=py_compile.PycInvalidationMode.UNCHECKED_HASH)
        if script.read_bytes() != source:  # changed while it was compiled: not the text keyed
            tmp.unlink()
            return script
        path = folder / f"{key}-{hashlib.sha256(tmp.read_bytes()).hexdigest()}.pyc"
        tmp.replace(path)
    except (OSError, py_compile.PyCompileError):
        return script
    try:
        entries = sorted(folder.glob("*.pyc"), key=lambda p: p.stat().st_mtime, reverse=True)
        for old in entries[keep:]:
            old.unlink()
    except OSError:
        pass
    return path


class RememberedRun:
    """The report of a run of the same script over inputs of the same bytes that rebuilt everything."""

    def __init__(self, stdout: str) -> None:
        self._stdout = stdout

    def wait(self) -> tuple[int, str, str]:
        return 0, self._stdout, ""

    def cancel(self) -> None:
        pass


def verdict_key(site_dir: Path) -> str | None:
    """The memo key of a run of ``data/recompute.py`` over ``data/`` as it is now: the path and
    bytes of every file under ``data/`` (the script and everything it can read), with the code
    and Python (``memo_key``); None when a file cannot be read."""
    data = Path(site_dir) / "data"
    parts: list[str | bytes] = [VERDICT_MEMO]
    try:
        for path in sorted(p for p in data.rglob("*") if p.is_file()):
            parts += [path.relative_to(data).as_posix(), path.read_bytes()]
    except OSError:
        return None
    return memo_key(*parts)


def start_recompute(site_dir: Path, verdicts: Memo | None = None) -> RecomputeRun | RememberedRun:
    """Start ``site_dir/data/recompute.py`` on the downloads beside it (all of them must be written).

    With ``verdicts`` (``VERDICT_MEMO``), a run of the same script that rebuilt everything from
    inputs of the same bytes is read back instead, and a new run that rebuilds everything is kept.
    """
    key = verdict_key(site_dir) if verdicts is not None else None
    if verdicts is None or key is None:
        return RecomputeRun(site_dir)
    report = verdicts.get(key)
    if report is not None:
        verdicts.prune()
        return RememberedRun(report)
    return RecomputeRun(site_dir, (verdicts, key))


def check_published_snapshots(site_dir: Path, memo: Memo | None = None) -> None:
    """Every ``data/snapshots/<date>.json`` of the site loads under the snapshot schema (else
    ``UserError``). A text that validated in this process (a saved file published as it is:
    ``builder.snapshot.load.validated_here``) is not loaded again; with ``memo``, neither is
    one that loaded before under this code."""
    for path in list_snapshots(Path(site_dir) / "data" / "snapshots"):
        try:
            data: bytes | None = path.read_bytes()
        except OSError:
            data = None  # load_snapshot says what is wrong with the file
        if data is not None and validated_here(hashlib.sha256(data).hexdigest()):
            continue
        key = memo_key(SNAPSHOT_CHECK_MEMO, data) if memo is not None and data is not None else None
        if memo is not None and key is not None and memo.get(key) is not None:
            continue
        load_snapshot(path)
        if memo is not None and key is not None:
            memo.put(key, "")
    if memo is not None:
        memo.prune()


def verify_site(site_dir: Path, run: RecomputeRun | RememberedRun | None = None, memo: Memo | None = None,
                verdicts: Memo | None = None) -> VerifyResult:
    """Rebuild every published number from ``site_dir/data``; ok when nothing was missed.

    ``run`` is the script already started on this site (``start_recompute``); without it, it
    is started here (with ``verdicts``, see ``start_recompute``). A published snapshot that
    does not load stops the script and raises; ``memo`` (``SNAPSHOT_CHECK_MEMO``) holds the
    texts that loaded before.
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
    code, stdout, stderr = (run or start_recompute(site_dir, verdicts)).wait()
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
    render fails. ``verdicts``: see ``start_recompute``.
    """

    def __init__(self, site_dir: Path, verdicts: Memo | None = None) -> None:
        self.site_dir = Path(site_dir)
        self.verdicts = verdicts
        self.run: RecomputeRun | RememberedRun | None = None

    def after_page(self, key: str) -> None:
        if self.run is None and (self.site_dir / "data" / "recompute.py").is_file():
            self.run = start_recompute(self.site_dir, self.verdicts)

    def cancel(self) -> None:
        if self.run is not None:
            self.run.cancel()
