"""Measured coverage of the published intervals (a benchmark, not a test).

Simulates role boards shaped like the real-data build (builder.scoring.simulate_coverage:
the real models, overlaps, missingness and noise levels, a known true quality) and Arena
battles from known strengths (builder.pairwise.coverage), runs the published method many
times and prints, per method, the nominal level, the measured coverage (with its standard
error over runs), the runs and the target (93-97%).

    python tests/bench/bench_coverage.py                       # the real-data snapshot of `make real-site`
    python tests/bench/bench_coverage.py --snapshot S.json --runs 100
    python tests/bench/bench_coverage.py --write-methodology   # put the table on the methodology page

The shape is measured from ``--snapshot`` (default: the newest snapshot under
site-real.work/snapshots, built with tests/realsite.py when there is none). The board
bootstrap runs with its published residual draws (``source``) and, for comparison, the
earlier ones (``model``, ``score``). Default run: about 2 minutes on 2 cores.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from builder.pairwise.coverage import run_arena_once  # noqa: E402
from builder.scoring.simulate_coverage import Tally, measure_snapshot_shape, run_board_once, scenarios  # noqa: E402
from builder.scoring.uncertainty import RESIDUAL_DRAWS  # noqa: E402
from builder.snapshot.load import load_snapshot  # noqa: E402

BOARDS = ("orchestrator", "mid-tier", "rote")
SCHEMES = {"source": "model and source", "model": "model (2026-12-01)", "score": "score (before 2026-12)"}
"The published residual draws first, then the earlier ones for comparison (R intervals only)."
TARGET = (0.93, 0.97)
LEAD = "The table is the benchmark's own output"
"The methodology page's line that the table follows (the table: the lines starting with '|' after it)."


def real_snapshot() -> Path:
    folder = ROOT / "site-real.work" / "snapshots"
    found = sorted(folder.glob("*.json")) if folder.is_dir() else []
    if not found:
        subprocess.run([sys.executable, str(ROOT / "tests" / "realsite.py")], check=True, cwd=ROOT)
        found = sorted(folder.glob("*.json"))
    return found[-1]


def row(method: str, t: Tally, runs: int) -> tuple[str, str, str, str, str, str]:
    ok = TARGET[0] <= t.coverage <= TARGET[1]
    return (method, "95%", f"{100 * t.coverage:.1f}%", f"±{100 * t.se:.1f}", str(runs),
            "93-97% " + ("met" if ok else "over" if t.coverage > TARGET[1] else "under"))


def one_sided_row(method: str, t: Tally, runs: int) -> tuple[str, str, str, str, str, str]:
    """A claim made at 95% (one leader ahead of another): right at least that often, within noise."""
    ok = t.coverage >= TARGET[0]
    return (method, "95%", f"{100 * t.coverage:.1f}%", f"±{100 * t.se:.1f}", str(runs),
            f">= {100 * TARGET[0]:.0f}% " + ("met" if ok else "under"))


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--snapshot", type=Path, default=None)
    ap.add_argument("--runs", type=int, default=60, help="simulated boards per board and scenario")
    ap.add_argument("--rounds", type=int, default=1000, help="bootstrap rounds per board (the site's default)")
    ap.add_argument("--arena-runs", type=int, default=40)
    ap.add_argument("--arena-rounds", type=int, default=200)
    ap.add_argument("--write-methodology", action="store_true",
                    help="replace the measured-coverage table in content/methodology.md with this run's")
    args = ap.parse_args(argv)
    path = args.snapshot or real_snapshot()
    snap = load_snapshot(path)
    t0 = time.perf_counter()
    rows: list[tuple[str, ...]] = []
    for board in BOARDS:
        shape = measure_snapshot_shape(snap, board)
        for sc in scenarios(shape):
            for scheme in SCHEMES:
                r, rank, top, sep = Tally(), Tally(), Tally(), Tally()
                share = []
                for run in range(args.runs):
                    out = run_board_once(shape, sc, 10_000 + run, args.rounds, residual_draws=scheme)
                    r.add(out.r_hits)
                    rank.add(out.rank_hits)
                    top.add(out.top_hits)
                    sep.add(out.separations)
                    share.append(out.largest_tie_group / max(out.ranked, 1))
                label = f"{board}, {sc.name} (k={sc.shared_share:.2f}), residuals by {SCHEMES[scheme]}"
                rows.append(row(f"R interval: {label}", r, args.runs))
                rows.append(row(f"R interval, top 10: {label}", top, args.runs))
                if scheme == RESIDUAL_DRAWS:
                    rows.append(row(f"rank range: {label}", rank, args.runs))
                    rows.append(one_sided_row(f"tie groups, each leader behind the one before: {label}", sep,
                                              args.runs))
                print(f"# {label}: largest tie group {100 * sum(share) / len(share):.0f}% of the ranked rows",
                      file=sys.stderr, flush=True)
    boot, sand = Tally(), Tally()
    for run in range(args.arena_runs):
        a = run_arena_once(50, 20_000, 20_000 + run, args.arena_rounds)
        boot.add(a.bootstrap_hits)
        sand.add(a.sandwich_hits)
    rows.append(row("Arena bootstrap interval (50 models, 20,000 battles)", boot, args.arena_runs))
    rows.append(row("Arena sandwich interval (50 models, 20,000 battles)", sand, args.arena_runs))
    header = ("method", "nominal", "measured", "s.e.", "runs", "target")
    table = "\n".join(["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
                      + ["| " + " | ".join(r) + " |" for r in rows])
    print(table)
    print(f"\nshape from {path.name}; {time.perf_counter() - t0:.0f} s", file=sys.stderr)
    if args.write_methodology:
        page = ROOT / "content" / "methodology.md"
        lines = page.read_text(encoding="utf-8").split("\n")
        at = next((k for k, line in enumerate(lines) if line.startswith(LEAD)), None)
        if at is None:
            print(f"{page}: no line starting {LEAD!r}", file=sys.stderr)
            return 2
        start = at + 1
        while start < len(lines) and not lines[start].strip():
            start += 1
        end = start
        while end < len(lines) and lines[end].startswith("|"):
            end += 1
        lines[start:end] = table.split("\n")
        page.write_text("\n".join(lines), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
