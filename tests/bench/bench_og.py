"""Share-preview benchmark (not a timed test): what the PNG cards add to a render.

Renders the shipped 2026-11-29 snapshot (with its history and change log) three ways in one
run and prints CPU seconds (process time; wall time is noisy on a shared machine) and the
ratios against the render without cards:

    no cards      og_card replaced by a no-op
    cold cache    every card drawn (Pillow)
    warm cache    every card copied from the cache (an unchanged day)

    python tests/bench/bench_og.py [--repeat 1]
"""

from __future__ import annotations

import argparse
import functools
import shutil
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from builder.config import load_config  # noqa: E402
from builder.history.diff import compute_change_log  # noqa: E402
from builder.render import og  # noqa: E402
from builder.render.pages import boards, models  # noqa: E402
from builder.render.site import render_site  # noqa: E402
from builder.snapshot import list_snapshots, load_snapshot  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=1)
    args = ap.parse_args()
    cfg, base = load_config(ROOT / "site.yml")
    snaps = [load_snapshot(p) for p in list_snapshots(ROOT / "snapshots")]
    log = functools.partial(compute_change_log, threshold=cfg.changes.score_threshold)
    cache = Path(tempfile.mkdtemp(prefix="og-cache-"))
    og.CACHE_DIR = cache  # type: ignore[misc]

    def run(label: str, *, cards: bool, clear: bool) -> float:
        best = float("inf")
        for _ in range(args.repeat):
            if clear:
                shutil.rmtree(cache, ignore_errors=True)
                cache.mkdir()
            saved = (boards.og_card, models.og_card)
            if not cards:
                boards.og_card = models.og_card = lambda *a, **k: None  # type: ignore[assignment]
            out = Path(tempfile.mkdtemp(prefix="bench-og-"))
            try:
                t = time.process_time()
                render_site(snaps[-1], snaps[:-1], cfg, base, out / "s", now=datetime(2026, 11, 29, 13, tzinfo=UTC),
                            change_log=log)
                best = min(best, time.process_time() - t)
            finally:
                boards.og_card, models.og_card = saved
                shutil.rmtree(out, ignore_errors=True)
        print(f"{label:<12} {best:7.2f} s CPU")
        return best

    plain = run("no cards", cards=False, clear=True)
    cold = run("cold cache", cards=True, clear=True)
    warm = run("warm cache", cards=True, clear=False)
    cards = len(snaps[-1].boards) + len(snaps[-1].models)
    print(f"{cards} cards; cold/no-cards {cold / plain:.2f}x, warm/no-cards {warm / plain:.2f}x, "
          f"{(cold - plain) / cards * 1000:.0f} ms CPU per drawn card")
    shutil.rmtree(cache, ignore_errors=True)


if __name__ == "__main__":
    main()
