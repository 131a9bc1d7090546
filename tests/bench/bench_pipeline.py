"""Benchmark: ``modelboards arena`` (the offline pipeline) against its 10-second budget.

    python tests/bench/bench_pipeline.py [--runs 3]

Not a test (pytest does not collect ``bench_*.py``). Each run is a fresh process of the
installed console script, timed from start to exit (wall clock), as a user meets it:

- cold: numba's cache in an empty temporary folder (``NUMBA_CACHE_DIR``), so the compiled
  Elo loops are built first, as on the first run after ``make install``;
- warm: the cache those runs left, as on every later run.

It also times ``python -c "import builder.cli"`` (the import floor every command pays) and
prints each time with its ratio to the 10 s budget and to that floor. The machine's load is
printed beside, since shared machines make wall-clock times noisy.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BUDGET = 10.0


def _script() -> str:
    found = Path(sys.executable).with_name("modelboards")
    return str(found) if found.exists() else shutil.which("modelboards") or "modelboards"


def _time(cmd: list[str], env: dict[str, str]) -> float:
    t = time.perf_counter()
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True, cwd=ROOT)
    took = time.perf_counter() - t
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed ({proc.returncode}): {proc.stderr.strip()[:300]}")
    return took


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()
    cmd = [_script(), "arena"]
    print(f"cores: {os.cpu_count()}, load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    with tempfile.TemporaryDirectory() as cache:
        env = {**os.environ, "NUMBA_CACHE_DIR": cache}
        floor = statistics.median(_time([sys.executable, "-c", "import builder.cli"], env) for _ in range(args.runs))
        cold = []
        for _ in range(args.runs):
            for p in Path(cache).iterdir():
                shutil.rmtree(p) if p.is_dir() else p.unlink()
            cold.append(_time(cmd, env))
        warm = [_time(cmd, env) for _ in range(args.runs)]
    rows = [("import builder.cli (floor)", floor), ("modelboards arena, cold numba cache", statistics.median(cold)),
            ("modelboards arena, warm cache", statistics.median(warm))]
    print(f"{'what':<40} {'median s':>9} {'/ budget':>9} {'/ floor':>8}")
    for name, t in rows:
        print(f"{name:<40} {t:9.2f} {t / BUDGET:9.2f} {t / floor:8.1f}")
    each = "; ".join(f"{name} {', '.join(f'{t:.2f}' for t in ts)}" for name, ts in (("cold", cold), ("warm", warm)))
    print(f"runs: {args.runs} each; {each}")
    worst = max(cold + warm)
    print(f"slowest run {worst:.2f} s: {'within' if worst < BUDGET else 'OVER'} the {BUDGET:.0f} s budget")


if __name__ == "__main__":
    main()
