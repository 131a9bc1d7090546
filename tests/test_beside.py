"""Work beside the process (``builder.util.beside``): a forked child does work whose result the
parent reads where it would look anyway; a failed, killed or unstarted child changes nothing
for the parent, and nothing the parent had buffered is written twice."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from builder.util import beside
from builder.util.beside import Beside


@pytest.fixture
def one_thread(monkeypatch):
    """Whatever threads the test runner keeps, the code under test sees this process as one thread."""
    monkeypatch.setattr(beside.threading, "active_count", lambda: 1)
    monkeypatch.delenv("MODELBOARDS_NO_FORK", raising=False)


def test_the_child_does_the_work_in_its_own_memory(tmp_path: Path, one_thread):
    out, seen = tmp_path / "out", []
    job = Beside(lambda: (seen.append("child"), out.write_text(str(os.getpid()))))
    assert job.started
    assert job.join() is True
    assert int(out.read_text()) != os.getpid()  # another process did it ...
    assert seen == []  # ... in a copy of this one's memory
    assert job.join() is False  # joined once


def test_a_child_that_fails_joins_false(one_thread):
    job = Beside(lambda: 1 / 0)
    assert job.started
    assert job.join() is False


def test_cancel_kills_the_child_and_reaps_it(tmp_path: Path, one_thread):
    pid_file = tmp_path / "pid"

    def work() -> None:
        (tmp_path / "pid.tmp").write_text(str(os.getpid()))
        os.replace(tmp_path / "pid.tmp", pid_file)
        time.sleep(60)

    job = Beside(work)
    end = time.monotonic() + 30
    while not pid_file.is_file():
        assert time.monotonic() < end, "the child never started"
        time.sleep(0.01)
    job.cancel()
    with pytest.raises(ProcessLookupError):  # killed and reaped: not even a zombie
        os.kill(int(pid_file.read_text()), 0)
    job.cancel()  # once more: nothing left to stop


def test_no_child_where_a_fork_is_not_safe(monkeypatch):
    ran: list[int] = []
    monkeypatch.setenv("MODELBOARDS_NO_FORK", "1")
    job = Beside(lambda: ran.append(1))
    assert not job.started and job.join() is False
    monkeypatch.delenv("MODELBOARDS_NO_FORK")
    monkeypatch.setattr(beside.threading, "active_count", lambda: 2)  # another thread runs
    job = Beside(lambda: ran.append(1))
    assert not job.started and job.join() is False
    monkeypatch.setattr(beside.threading, "active_count", lambda: 1)
    monkeypatch.setattr(beside, "room_for_a_copy", lambda: False)  # a copy might not fit in memory
    job = Beside(lambda: ran.append(1))
    assert not job.started and job.join() is False
    assert ran == []  # the work is left to the caller, which computes what it does not find


def test_room_for_a_copy_reads_this_process_and_the_machine():
    assert beside.room_for_a_copy() is True  # a test process is far smaller than the memory left


def test_a_real_second_thread_prevents_the_fork(monkeypatch):
    monkeypatch.delenv("MODELBOARDS_NO_FORK", raising=False)
    release = threading.Event()
    other = threading.Thread(target=release.wait)
    other.start()
    try:
        assert not Beside(lambda: None).started
    finally:
        release.set()
        other.join()


def test_nothing_the_parent_buffered_is_written_twice():
    code = ("import sys\nfrom builder.util.beside import Beside\nsys.stdout.write('before ')\n"
            "job = Beside(lambda: None)\nassert job.started and job.join()\nprint('after')\n")
    env = {k: v for k, v in os.environ.items() if k not in ("MODELBOARDS_NO_FORK", "PYTHONUNBUFFERED")}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env).stdout
    assert out == "before after\n"  # a child that flushed its copy of the buffer on the way out would add "before "
