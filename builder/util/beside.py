"""Work done beside this process, by a forked copy of it, while this one goes on.

    job = Beside(fill)     fill() runs in a child forked now (where a fork is not safe: no child)
    job.join()             waits for the child: True when fill() returned, False otherwise
    job.cancel()           stops the child (and reaps it) when its work is no longer wanted

Only for work whose result lands where the caller looks for it and would otherwise produce
itself: a memo (``builder.util.memo``, written whole or not at all), or a folder of the
child's own that the caller moves in after a successful join (``builder.render.site``'s
``Page.beside`` pages). A child that fails, is killed or was never started then changes the
time taken, never the result, so nothing here reports why a child failed.

The child is a fork: it starts with everything this process has loaded (the snapshots, the
imported modules) at no cost, which a fresh interpreter would pay for again. It forks only on
Linux, only while this process runs a single thread (a fork copies one thread, and a lock
another held stays locked in the child) and only while the memory available exceeds this
process's resident size (a page either process writes is copied: at worst, every page). It
ends by ``os._exit``: no exit handler runs and no buffer the parent also holds is written
twice.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
from collections.abc import Callable


def can_fork() -> bool:
    """A fork is safe here: Linux, one thread, room for a copy, and ``MODELBOARDS_NO_FORK`` unset
    (a switch for measuring)."""
    return (sys.platform == "linux" and threading.active_count() == 1
            and not os.environ.get("MODELBOARDS_NO_FORK") and room_for_a_copy())


def room_for_a_copy() -> bool:
    """The memory available (``MemAvailable``) exceeds this process's resident size; True when
    either cannot be read."""
    try:
        with open("/proc/self/statm", encoding="ascii") as fh:
            resident = int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
        with open("/proc/meminfo", encoding="ascii") as fh:
            available = next(int(line.split()[1]) * 1024 for line in fh if line.startswith("MemAvailable:"))
    except (OSError, ValueError, IndexError, StopIteration):
        return True
    return resident < available


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
