"""Render benchmark (not a timed test): synthetic snapshots of 50, 500 and 5,000 models.

Prints the render time of each size and the 5000/500 ratio, which must stay below 12x
(render cost grows linearly with the number of models: every page and table is built from
indexes made in one pass over the snapshot).

    python tests/bench/bench_render.py [--sizes 50 500 5000] [--repeat 1]
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from fixtures.make_snapshot import make_typed  # noqa: E402

from builder.config import load_config  # noqa: E402
from builder.render.site import render_site  # noqa: E402

LIMIT = 12.0


def bench(n: int, repeat: int) -> tuple[float, int, int]:
    """(best seconds, pages written, files written) for a snapshot of ``n`` models."""
    cfg, _ = load_config(ROOT / "tests" / "fixtures" / "site.yml")
    snap = make_typed(n, seed=n)
    previous = make_typed(n, seed=n + 1, day="2026-11-29")
    best = float("inf")
    pages = files = 0
    for _ in range(repeat):
        out = Path(tempfile.mkdtemp(prefix=f"bench-{n}-"))
        try:
            t0 = time.perf_counter()
            render_site(snap, [previous], cfg, ROOT, out, now=datetime(2026, 11, 30, 12, tzinfo=UTC),
                        base_url="https://user.github.io/modelboards/")
            best = min(best, time.perf_counter() - t0)
            pages = sum(1 for _ in out.rglob("*.html"))
            files = sum(1 for p in out.rglob("*") if p.is_file())
        finally:
            shutil.rmtree(out, ignore_errors=True)
    return best, pages, files


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[50, 500, 5000])
    ap.add_argument("--repeat", type=int, default=1, help="renders per size; the best time is reported")
    a = ap.parse_args()
    times = {}
    print(f"{'models':>7} {'seconds':>9} {'pages':>7} {'files':>7} {'ms/model':>9}")
    for n in a.sizes:
        secs, pages, files = bench(n, a.repeat)
        times[n] = secs
        print(f"{n:>7} {secs:>9.3f} {pages:>7} {files:>7} {1000 * secs / n:>9.2f}", flush=True)
    if 500 in times and 5000 in times:
        ratio = times[5000] / times[500]
        verdict = "ok" if ratio < LIMIT else "TOO SLOW"
        print(f"5000/500 ratio: {ratio:.2f}x (limit {LIMIT:.0f}x) {verdict}")
        return 0 if ratio < LIMIT else 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
