"""Verify benchmark (not a timed test): ``recompute.py`` against the score stage it re-derives.

The synthetic world of ``bench_uncertainty.py`` (the shipped site.yml: families, roles, five
boards, the bootstrap at its configured rounds) at each size: the score stage as a build runs
it (selection, identities, boards with their bootstrap, the Capability Index, the snapshot's
assembly and validation), then the evidence downloads written to a folder and the site's
``recompute.py`` run on them as ``verify`` runs it (a fresh ``python -I -S``), which
re-derives every published number: the index, the calibrations, every board's R, rank and
order, and the whole bootstrap again, draw by draw. Prints both times and the ratio beside
its target (recompute at most 3x the score stage), and the growth per tenfold of models.

    python tests/bench/bench_verify.py [--sizes 500 5000] [--repeat 1] [--profile]
"""

from __future__ import annotations

import argparse
import cProfile
import math
import os
import pstats
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_uncertainty import best_of, make_parsed, score_stage  # noqa: E402

from builder.config import load_config  # noqa: E402
from builder.evidence.export import compute_evidence_files  # noqa: E402

LIMIT = 3.0
TARGET_AT = 5_000
"The limit is set at this many models (smaller sites carry fixed costs: the verdict there is informative)."
"Largest allowed ratio of recompute.py's time to the score stage's."


def recompute_seconds(folder: Path, repeat: int) -> tuple[float, float, str]:
    """(best wall seconds, its CPU seconds, the report's last line) of recompute.py on ``folder``."""
    best, cpu, last = float("inf"), 0.0, ""
    for _ in range(repeat):
        before = os.times()
        t0 = time.perf_counter()
        proc = subprocess.run([sys.executable, "-I", "-S", str(folder / "recompute.py"), str(folder)],
                              capture_output=True, text=True, check=False)
        wall = time.perf_counter() - t0
        after = os.times()
        used = (after.children_user - before.children_user) + (after.children_system - before.children_system)
        lines = proc.stdout.strip().splitlines()
        last = lines[-1] if lines else proc.stderr.strip()[-200:]
        if proc.returncode != 0:
            print(proc.stdout[-3000:], proc.stderr[-3000:])
            raise SystemExit(f"recompute.py exited {proc.returncode}: {last}")
        if wall < best:
            best, cpu = wall, used
    return best, cpu, last


def profile(folder: Path) -> None:
    """recompute.py's main under cProfile, in this process: the 15 costliest functions."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("recompute_bench", folder / "recompute.py")
    assert spec is not None and spec.loader is not None
    rc = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(rc)
    prof = cProfile.Profile()
    prof.runcall(rc.main, ["recompute.py", str(folder)])
    pstats.Stats(prof).sort_stats("cumulative").print_stats(15)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[500, 5000])
    ap.add_argument("--repeat", type=int, default=1, help="runs of each; the best time is reported")
    ap.add_argument("--profile", action="store_true", help="also profile recompute.py at the largest size")
    a = ap.parse_args()
    cfg, _ = load_config(ROOT / "site.yml")
    print(f"load average (1 min) at start: {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores; "
          f"bootstrap rounds {cfg.uncertainty.rounds}")
    print(f"{'models':>7} {'score s':>8} {'cpu s':>7} {'verify s':>9} {'cpu s':>7} {'ratio':>6} {'target':>7} "
          f"{'verify/10x':>11}")
    ok = True
    prev: tuple[int, float] | None = None
    for n in sorted(a.sizes):
        parsed = make_parsed(n)
        score_stage(parsed, cfg)  # warm-up: loads the compiled kernels
        wall, cpu, snap = best_of(lambda parsed=parsed: score_stage(parsed, cfg), a.repeat)
        with tempfile.TemporaryDirectory(prefix=f"bench-verify-{n}-") as tmp:
            folder = Path(tmp)
            for name, text in compute_evidence_files(snap, "https://example.org/").items():
                if isinstance(text, bytes):
                    (folder / name).write_bytes(text)
                else:
                    (folder / name).write_text(text, encoding="utf-8")
            v_wall, v_cpu, last = recompute_seconds(folder, a.repeat)
            if a.profile and n == max(a.sizes):
                profile(folder)
        ratio = v_cpu / cpu
        growth = f"{(v_cpu / prev[1]) ** (1 / math.log10(n / prev[0])):.2f}x" if prev else ""
        if n >= TARGET_AT:
            verdict = "ok" if ratio <= LIMIT else "TOO SLOW"
            ok = ok and ratio <= LIMIT
        else:
            verdict = f"(target set at {TARGET_AT:,} models)"
        print(f"{n:>7} {wall:>8.2f} {cpu:>7.2f} {v_wall:>9.2f} {v_cpu:>7.2f} {ratio:>5.2f}x {LIMIT:>6.1f}x "
              f"{growth:>11} {verdict}  ({last})", flush=True)
        prev = (n, v_cpu)
    print(f"load average (1 min) at end: {os.getloadavg()[0]:.2f}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
