"""Benchmark: the vectorised task bootstrap against Python loops over rounds.

    python tests/bench/bench_evals.py [--models 100] [--tasks 5000] [--rounds 1000]

Not a test (pytest does not collect ``bench_*.py``) and not timed in CI. On the same data
and the same random stream it times

1. ``bootstrap_means``: all rounds at once (one integers call, one bincount, one matmul);
2. ``bootstrap_means_loop``: a Python loop over rounds, numpy inside each round;
3. a plain Python loop over rounds, models and tasks (timed on a few rounds and
   extrapolated, since the full run takes minutes);
4. the whole aggregator (``compute_eval_report``: means, CIs, win rates and all pairwise
   paired bootstraps) for reference;

then prints the times, the ratios and the largest difference between 1 and 2.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from builder.evals.aggregate import compute_eval_report
from builder.evals.bootstrap import bootstrap_means, bootstrap_means_loop, percentile_ci
from builder.evals.records import EvalRun


def pure_python_rounds(scores: list[list[float]], rounds: int, seed: int) -> list[list[float]]:
    """Per round: draw n task ids, then per model sum its drawn scores in Python."""
    rng = np.random.default_rng(seed)
    n = len(scores[0])
    out = []
    for _ in range(rounds):
        idx = rng.integers(0, n, size=n).tolist()
        out.append([sum(row[i] for i in idx) / n for row in scores])
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--models", type=int, default=100)
    ap.add_argument("--tasks", type=int, default=5000)
    ap.add_argument("--rounds", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--pure-rounds", type=int, default=3, help="rounds of the pure-Python loop to time")
    args = ap.parse_args()
    m, n, b = args.models, args.tasks, args.rounds

    data_rng = np.random.default_rng(12345)
    skill = data_rng.uniform(0.2, 0.9, size=(m, 1))
    scores = (data_rng.random((m, n)) < skill).astype(np.float64)  # pass/fail tasks
    print(f"data: {m} models x {n} tasks, B = {b} rounds, numpy {np.__version__}")

    t0 = time.perf_counter()
    fast = bootstrap_means(scores, b=b, rng=np.random.default_rng(args.seed))
    lo, hi = percentile_ci(fast, 0.05)
    t_vec = time.perf_counter() - t0
    print(f"vectorised (all rounds at once):           {t_vec:9.3f} s")

    t0 = time.perf_counter()
    slow = bootstrap_means_loop(scores, b=b, rng=np.random.default_rng(args.seed))
    slo, shi = percentile_ci(slow, 0.05)
    t_loop = time.perf_counter() - t0
    print(f"Python loop over rounds (numpy per round): {t_loop:9.3f} s   ratio {t_loop / t_vec:7.1f}x")
    print(f"  same stream, max |difference| of the {b}x{m} means: {np.abs(fast - slow).max():.2e}; "
          f"of the CI bounds: {max(np.abs(lo - slo).max(), np.abs(hi - shi).max()):.2e}")

    rows = scores.tolist()
    k = max(1, min(args.pure_rounds, b))
    t0 = time.perf_counter()
    pure = pure_python_rounds(rows, k, args.seed)
    t_pure_k = time.perf_counter() - t0
    t_pure = t_pure_k * b / k
    print(f"plain Python loop (rounds x models x tasks): {t_pure:7.1f} s   ratio {t_pure / t_vec:7.0f}x"
          f"   (timed {k} rounds: {t_pure_k:.2f} s, extrapolated to {b})")
    print(f"  its first {k} rounds agree with the vectorised ones to {np.abs(np.array(pure) - fast[:k]).max():.2e}")

    t0 = time.perf_counter()
    models = [f"m{i:03d}" for i in range(m)]
    tasks = [f"t{j:05d}" for j in range(n)]
    runs = [EvalRun(models[i], tasks[j], "pass", s) for i, row in enumerate(rows) for j, s in enumerate(row)]
    t_build = time.perf_counter() - t0
    t0 = time.perf_counter()
    rep = compute_eval_report(runs, "pass", b=b, seed=args.seed, checked=False)
    t_agg = time.perf_counter() - t0
    print(f"aggregator (checks, pivot, means, CIs, win rates, {len(rep.pairwise)} paired bootstraps): "
          f"{t_agg:.2f} s  (building {len(runs)} EvalRun records: {t_build:.2f} s)")


if __name__ == "__main__":
    main()
