"""Benchmark (not a test): the spark engine (PySpark, ``local[*]``) against DuckDB on the same
generated Parquet battles, for the reduction + plain fit and for the styled fit.

    PYTHONPATH=. python tests/bench/bench_spark.py                    # 1M and 10M battles
    PYTHONPATH=. python tests/bench/bench_spark.py --sizes 1e6,1e7,3e7

Each (engine, size, task) runs in its own process; wall time is the whole process (a Spark
run includes starting the JVM), peak memory the largest resident set of the process and its
children (the JVM, PySpark's Python workers), sampled every 0.1 s. Battles: 100 models with
Zipf popularity, Bradley-Terry outcomes with ties, ``conv_metadata`` style counts (the four
features) in Parquet structs, written in row groups of 1M (files kept in ``--folder``).
Prints a table and the growth of each time per size step (10x battles: linear growth is 10x).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
CHUNK = 1_000_000


def write_battles(path: Path, n: int, seed: int = 0) -> None:
    """``n`` battles as Parquet (see the module docstring)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    rng = np.random.default_rng(seed)
    m = 100
    names = np.array([f"model-{k:03d}" for k in range(m)], dtype=object)
    skill = rng.normal(0, 1, m)
    pop = 1.0 / np.arange(1, m + 1)
    pop /= pop.sum()
    writer = None
    done = 0
    try:
        while done < n:
            c = min(CHUNK, n - done)
            a = rng.choice(m, c, p=pop)
            b = (a + 1 + rng.integers(0, m - 1, c)) % m
            ta, tb = rng.lognormal(6, 0.5, c).round(), rng.lognormal(6, 0.5, c).round()
            z = skill[a] - skill[b] + 0.3 * (ta - tb) / (ta + tb)
            u = rng.random(c)
            p = 1 / (1 + np.exp(-z))
            winner = np.where(u < 0.1, "tie", np.where(rng.random(c) < p, "model_a", "model_b"))

            def counts(keys: tuple[str, ...], lam: float, c: int = c) -> pa.StructArray:
                return pa.StructArray.from_arrays([pa.array(rng.poisson(lam, c)) for _ in keys], names=list(keys))

            meta = pa.StructArray.from_arrays(
                [pa.array(ta.astype(np.int64)), pa.array(tb.astype(np.int64)),
                 counts(("h1", "h2", "h3"), 0.5), counts(("h1", "h2", "h3"), 0.5),
                 counts(("**", "__"), 1.0), counts(("**", "__"), 1.0),
                 counts(("ordered", "unordered"), 2.0), counts(("ordered", "unordered"), 2.0)],
                names=["sum_assistant_a_tokens", "sum_assistant_b_tokens", "header_count_a", "header_count_b",
                       "bold_count_a", "bold_count_b", "list_count_a", "list_count_b"])
            table = pa.table({"model_a": pa.array(names[a], type=pa.string()),
                              "model_b": pa.array(names[b], type=pa.string()),
                              "winner": pa.array(winner, type=pa.string()),
                              "tstamp": pa.array(1.7e9 + np.arange(done, done + c) * 10.0),
                              "anony": pa.array(rng.random(c) < 0.9),
                              "conv_metadata": meta})
            if writer is None:
                writer = pq.ParquetWriter(path, table.schema)
            writer.write_table(table, row_group_size=CHUNK)
            done += c
    finally:
        if writer is not None:
            writer.close()


def run_one(engine: str, task: str, path: str) -> dict[str, object]:
    """One measured run (in the child process): the reduction + plain fit, or the styled fit."""
    from builder.pairwise.arena import fit_rating_table
    from builder.pairwise.battles import BattleFilters
    from builder.pairwise.style import STYLE_FEATURES, contextual_columns, style_feature_specs

    flt = BattleFilters(official=True)
    specs = style_feature_specs(STYLE_FEATURES)
    if engine == "duckdb":
        from builder.pairwise.arena_style import fit_styled_table
        from builder.pairwise.scan import ReaderSettings, count_battles, scan_battles

        settings = ReaderSettings(memory_limit="2GB")
        if task == "plain":
            counts, _ = count_battles(path, flt, settings)
            rows, _ = fit_rating_table(counts, ci="sandwich")
            return {"models": len(rows), "top": rows[0]["rating"]}
        with scan_battles(path, flt, settings, features=specs) as scan:
            battles, styles = scan.battles(), contextual_columns(scan, STYLE_FEATURES, [])
        table = fit_styled_table(battles, styles, ci="sandwich")
        return {"models": len(table.rows), "top": table.rows[0]["rating"]}
    from builder.pairwise.spark import SparkScan, SparkSettings, fit_styled_spark, spark_session

    spark = spark_session(SparkSettings("local[*]", {"spark.driver.memory": "4g",
                                                     "spark.sql.shuffle.partitions": "4"}))
    if task == "plain":
        scan = SparkScan(spark, path, flt)
        rows, _ = fit_rating_table(scan.pair_counts(), ci="sandwich")
        out: dict[str, object] = {"models": len(rows), "top": rows[0]["rating"]}
    else:
        res = fit_styled_spark(SparkScan(spark, path, flt, specs), STYLE_FEATURES, [])
        out = {"models": int(np.isfinite(res.fit.ratings).sum()), "top": float(np.nanmax(res.fit.ratings)),
               "passes": res.passes}
    spark.stop()
    return out


def measure(engine: str, task: str, path: Path) -> tuple[float, float, dict[str, object]]:
    """(seconds, peak MB of the process tree, result) of one run in a child process."""
    import psutil

    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    t0 = time.perf_counter()
    proc = subprocess.Popen([sys.executable, __file__, "--child", engine, task, str(path)], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    peak = 0
    ps = psutil.Process(proc.pid)
    while proc.poll() is None:
        try:
            tree = [ps, *ps.children(recursive=True)]
            peak = max(peak, sum(p.memory_info().rss for p in tree if p.is_running()))
        except psutil.Error:
            pass
        time.sleep(0.1)
    out = proc.stdout.read() if proc.stdout else ""
    seconds = time.perf_counter() - t0
    if proc.returncode != 0:
        raise SystemExit(f"{engine} {task} {path.name}: exit {proc.returncode}")
    return seconds, peak / 1e6, json.loads(out.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default="1e6,1e7", help="battles per file, comma-separated (e.g. 1e6,1e7,3e7)")
    ap.add_argument("--folder", default="/tmp/modelboards-bench-spark", help="where the Parquet files are written")
    ap.add_argument("--tasks", default="plain,styled")
    ap.add_argument("--child", nargs=3, metavar=("ENGINE", "TASK", "PATH"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        print(json.dumps(run_one(*args.child)))
        return
    folder = Path(args.folder)
    folder.mkdir(parents=True, exist_ok=True)
    sizes = [int(float(s)) for s in args.sizes.split(",")]
    print(f"# {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, {os.cpu_count()} cores, "
          f"load {os.getloadavg()[0]:.1f}")
    print(f"{'battles':>10} {'task':>7} {'engine':>7} {'seconds':>8} {'peak MB':>8}  result")
    times: dict[tuple[str, str], list[float]] = {}
    for n in sizes:
        path = folder / f"battles-{n}.parquet"
        if not path.exists():
            t0 = time.perf_counter()
            write_battles(path, n)
            print(f"# wrote {path} ({path.stat().st_size / 1e6:.0f} MB) in {time.perf_counter() - t0:.0f} s")
        for task in args.tasks.split(","):
            for engine in ("duckdb", "spark"):
                sec, mb, res = measure(engine, task, path)
                times.setdefault((task, engine), []).append(sec)
                print(f"{n:>10} {task:>7} {engine:>7} {sec:>8.1f} {mb:>8.0f}  {res}", flush=True)
    for (task, engine), ts in times.items():
        steps = ", ".join(f"{b / a:.2f}x" for a, b in zip(ts, ts[1:], strict=False))
        print(f"# growth per size step, {task} {engine}: {steps or '-'}")


if __name__ == "__main__":
    main()
