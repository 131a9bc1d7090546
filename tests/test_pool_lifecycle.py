"""The Arena bootstrap pool's workers die with the build: SIGKILL or SIGTERM of the parent in
the middle of the rounds leaves no worker running (nor holding the build's stdout)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

SCRIPT = """
import sys
from builder.pairwise.bootstrap import bootstrap_bt
from builder.pairwise.bt import count_pairs, fit_bt
from builder.pairwise.simulate import random_skills, simulate_battles

sim = simulate_battles(random_skills(40, seed=1), 40_000, seed=1, tie_prob=0.1)
counts = count_pairs(sim.to_battles())
fit = fit_bt(counts)
print("pool", flush=True)
bootstrap_bt(counts, fit, 100_000, seed=1, workers=2)  # far longer than the test waits
print("finished", flush=True)
"""


def _children(pid: int) -> set[int]:
    found: set[int] = set()
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            found |= {int(c) for c in (task / "children").read_text().split()}
        except OSError:
            continue
    return found


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGTERM])
def test_workers_die_with_their_parent(sig: int):
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen([sys.executable, "-c", SCRIPT], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                            env=env, cwd=ROOT)
    try:
        assert proc.stdout is not None and proc.stdout.readline() == b"pool\n"
        workers: set[int] = set()
        deadline = time.monotonic() + 60
        while len(workers) < 2 and time.monotonic() < deadline:
            workers = {c for c in _children(proc.pid) if _alive(c)}
            time.sleep(0.05)
        assert len(workers) >= 2, "the pool never started"
        time.sleep(0.3)  # the workers are in their rounds
        proc.send_signal(sig)
        proc.wait(timeout=30)
        deadline = time.monotonic() + 10
        while any(_alive(w) for w in workers) and time.monotonic() < deadline:
            time.sleep(0.05)
        survivors = [w for w in workers if _alive(w)]
        assert not survivors, f"workers {survivors} outlived their parent"
        assert proc.stdout.read() == b""  # the pipe closes: nothing holds the build's stdout
    finally:
        if proc.poll() is None:
            proc.kill()
        for w in _children(proc.pid):
            os.kill(w, signal.SIGKILL)
