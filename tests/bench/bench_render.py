"""Render benchmark (not a timed test): synthetic snapshots of 50, 500, 5,000 and 20,000 models.

Prints the render time of each size, without share images (the card drawing replaced by a
no-op: the pages alone) and with them (every card drawn, as on a fresh checkout, since each
size's cards are new), and the growth from each size to the next per tenfold of models,
``(t_big / t_small) ** (1 / log10(big / small))`` (so 5,000 -> 20,000 is put on the same
footing as a tenfold). Every growth must stay below 10.5x: render cost grows linearly with
the number of models (every page and table is built from indexes made in one pass over the
snapshot).

Both wall time and CPU time are measured (CPU: this process and the share images' worker
processes). On a shared, loaded machine wall time mostly measures the wait for a core, so
the verdict uses CPU time; on an idle machine the two agree.

    python tests/bench/bench_render.py [--sizes 50 500 5000 20000] [--images both|off|on] [--repeat 1]
"""

from __future__ import annotations

import argparse
import math
import os
import shutil
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from unittest import mock

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from fixtures.make_snapshot import make_typed  # noqa: E402

from builder.config import load_config  # noqa: E402
from builder.render import og  # noqa: E402
from builder.render.site import render_site  # noqa: E402

LIMIT = 10.5
"Largest allowed growth of the render time per tenfold growth of the number of models."


def _cpu() -> float:
    """CPU seconds of this process and its finished children (the card-drawing workers)."""
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def bench(n: int, repeat: int, images: bool) -> tuple[float, float, int, int]:
    """(best wall seconds, its CPU seconds, pages written, files written) for ``n`` models."""
    cfg, _ = load_config(ROOT / "tests" / "fixtures" / "site.yml")
    snap = make_typed(n, seed=n)
    previous = make_typed(n, seed=n + 1, day="2026-11-29")
    best, cpu = float("inf"), 0.0
    pages = files = 0
    for _ in range(repeat):
        out = Path(tempfile.mkdtemp(prefix=f"bench-{n}-"))
        cache = Path(tempfile.mkdtemp(prefix=f"bench-og-{n}-"))
        patches = [mock.patch.object(og, "CACHE_DIR", cache)]  # a cold card cache every round
        if not images:
            patches.append(mock.patch.object(og, "write_png", lambda w, rel, svg: None))
        try:
            for p in patches:
                p.start()
            t0, c0 = time.perf_counter(), _cpu()
            render_site(snap, [previous], cfg, ROOT, out, now=datetime(2026, 11, 30, 12, tzinfo=UTC),
                        base_url="https://user.github.io/modelboards/")
            wall, used = time.perf_counter() - t0, _cpu() - c0
            if wall < best:
                best, cpu = wall, used
            pages = sum(1 for _ in out.rglob("*.html"))
            files = sum(1 for p in out.rglob("*") if p.is_file())
        finally:
            for p in patches:
                p.stop()
            shutil.rmtree(out, ignore_errors=True)
            shutil.rmtree(cache, ignore_errors=True)
    return best, cpu, pages, files


def per_tenfold(small: int, t_small: float, big: int, t_big: float) -> float:
    """The growth of the time per tenfold growth of the models between two sizes."""
    return (t_big / t_small) ** (1.0 / math.log10(big / small))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[50, 500, 5000, 20000])
    ap.add_argument("--images", choices=["both", "off", "on"], default="both",
                    help="render without share images, with them (a cold card cache), or both")
    ap.add_argument("--repeat", type=int, default=1, help="renders per size; the best time is reported")
    a = ap.parse_args()
    modes = {"both": [False, True], "off": [False], "on": [True]}[a.images]
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"load average (1 min) at start: {load:.2f} on {os.cpu_count()} cores")
    ok = True
    for images in modes:
        print(f"\nshare images {'included (cold cache)' if images else 'excluded'}")
        print(f"{'models':>7} {'wall s':>9} {'cpu s':>9} {'pages':>7} {'files':>7} {'cpu ms/m':>9} "
              f"{'wall/10x':>9} {'cpu/10x':>8} {'limit':>6}")
        walls: dict[int, float] = {}
        cpus: dict[int, float] = {}
        prev: int | None = None
        for n in sorted(a.sizes):
            secs, cpu, pages, files = bench(n, a.repeat, images)
            walls[n], cpus[n] = secs, cpu
            wall_r = cpu_r = verdict = ""
            if prev is not None:
                wall_r = f"{per_tenfold(prev, walls[prev], n, secs):.2f}x"
                r = per_tenfold(prev, cpus[prev], n, cpu)
                cpu_r = f"{r:.2f}x"
                verdict = "ok" if r < LIMIT else "TOO SLOW"
                ok = ok and r < LIMIT
            print(f"{n:>7} {secs:>9.2f} {cpu:>9.2f} {pages:>7} {files:>7} {1000 * cpu / n:>9.2f} {wall_r:>9} "
                  f"{cpu_r:>8} {LIMIT:>5}x {verdict}", flush=True)
            prev = n
    print(f"\nload average (1 min) at end: {os.getloadavg()[0]:.2f}" if hasattr(os, "getloadavg") else "")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
