"""Work done beside this process, by a forked copy of it, while this one goes on.

    job = Beside(fill)     fill() runs in a child forked now (where a fork is not safe: no child)
    job.join()             waits for the child: True when fill() returned, False otherwise
    job.cancel()           stops the child (and reaps it) when its work is no longer wanted

Only for work whose result lands where the caller looks anyway and would otherwise compute it
itself: a memo (``builder.util.memo``), written whole or not at all. A child that fails, is
killed or was never started then changes the time taken, never the result, so nothing here
reports why a child failed. The caller joins before it reads what the child fills.

The child is a fork: it starts with everything this process has loaded (the snapshots, the
imported modules) at no cost, which a fresh interpreter would pay for again. It forks only on
Linux and only while this process runs a single thread (a fork copies one thread, and a lock
another held stays locked in the child). It ends by ``os._exit``: no exit handler runs and no
buffer the parent also holds is written twice.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
from collections.abc import Callable


def can_fork() -> bool:
    """A fork is safe here: Linux, one thread, and ``MODELBOARDS_NO_FORK`` unset (a switch for measuring)."""
    return (sys.platform == "linux" and threading.active_count() == 1
            and not os.environ.get("MODELBOARDS_NO_FORK"))


class Beside:
    """``fill()`` in a forked child (see the module's text); ``started`` says whether there is one."""

    def __init__(self, fill: Callable[[], object]) -> None:
        self._pid: int | None = None
        if not can_fork():
            return
        for stream in (sys.stdout, sys.stderr):  # what is buffered is written once, by the parent
            try:
                stream.flush()
            except (OSError, ValueError, AttributeError):
                pass
        pid = os.fork()
        if pid == 0:  # the child: fill, then end without touching anything the parent owns
            code = 1
            try:
                fill()
                code = 0
            except BaseException:  # noqa: BLE001 - a failed child only leaves the work to the parent
                pass
            os._exit(code)
        self._pid = pid

    @property
    def started(self) -> bool:
        return self._pid is not None

    def join(self) -> bool:
        """Wait for the child; True when ``fill()`` returned in it (False: no child, or it failed)."""
        if self._pid is None:
            return False
        pid, self._pid = self._pid, None
        try:
            _, status = os.waitpid(pid, 0)
        except ChildProcessError:  # reaped elsewhere: its work may or may not be there
            return False
        return os.waitstatus_to_exitcode(status) == 0

    def cancel(self) -> None:
        """Stop the child if it still runs, and reap it."""
        if self._pid is None:
            return
        try:
            os.kill(self._pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.join()
