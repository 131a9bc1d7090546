"""One lock per project for everything a run writes: the payload store, the snapshots and
the site. Two runs at once (a cron refresh overlapping a manual build) would otherwise race
on the same folders (one renaming a store folder the other is writing into).

The lock is ``.modelboards/build.lock`` beside site.yml, an OS file lock (``filelock``:
``flock`` on Unix), so it is released the instant its process dies, even by ``kill -9``. A
second run says it is waiting, waits up to ``fetch.lock_timeout`` seconds, then gives up
with one line and exit code 2. Within one process the lock is re-entrant.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from filelock import FileLock, Timeout

from builder.errors import UserError

LOCK_FILE = Path(".modelboards") / "build.lock"

_LOCKS: dict[str, FileLock] = {}  # one object per lock file: re-entrant within the process


def lock_path(base: Path) -> Path:
    """The project's lock file (``base`` is the folder of site.yml)."""
    return Path(base) / LOCK_FILE


@contextmanager
def project_lock(base: Path, timeout: float) -> Iterator[Path]:
    """Hold the project's lock for the duration; wait (saying so on stderr) up to ``timeout`` s."""
    path = lock_path(base)
    path.parent.mkdir(parents=True, exist_ok=True)
    lock = _LOCKS.setdefault(str(path.resolve()), FileLock(str(path)))
    try:
        lock.acquire(timeout=0)
    except Timeout:
        print(f"waiting for another modelboards run to finish (it holds {path}), up to {timeout:g} s",
              file=sys.stderr, flush=True)
        try:
            lock.acquire(timeout=timeout)
        except Timeout:
            raise UserError(f"{path}: another modelboards run still holds the lock after {timeout:g} s "
                            "(fetch.lock_timeout); try again when it has finished") from None
    try:
        yield path
    finally:
        lock.release()
