"""Benchmark: Lighthouse scores of the built site, served on 127.0.0.1 with gzip (as GitHub Pages serves it).

    python tests/bench/bench_lighthouse.py [--site DIR] [--preset mobile|desktop] [--min 95]

Without ``--site`` it renders the newest shipped snapshot (as ``modelboards render`` does)
into a temporary folder. The npm package ``lighthouse`` (a devDependency: ``npm ci``) runs
against the front page, the orchestrator board, the Arena page and the first model page,
with the Chromium the browser tests use (``CHROME_PATH``, default /usr/bin/chromium,
``--headless --no-sandbox --disable-gpu``) and Lighthouse's default throttling for the
preset (mobile: a slow 4G network and a 4x slower CPU). Prints one line per page with the
four category scores (performance, accessibility, best practices, SEO, 0-100) and the
largest contentful paint, total blocking time and cumulative layout shift; exits 1 when a
score is under ``--min``.

Not a test (pytest does not collect ``bench_*.py``): one Lighthouse run takes 15-30 s on two
cores. The in-suite checks of page weight and layout shift are in
tests/test_layout_browser.py; the README states this benchmark's figures.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import gzip
import http.server
import io
import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT))

from conftest import QuietServer  # noqa: E402
from serving import running  # noqa: E402

CATEGORIES = ("performance", "accessibility", "best-practices", "seo")
CHROME_FLAGS = "--headless --no-sandbox --disable-gpu --disable-dev-shm-usage --no-first-run --disable-sync"


class GzipFiles(http.server.SimpleHTTPRequestHandler):
    """Static files as GitHub Pages serves them: text compressed with gzip when the browser
    accepts it (Lighthouse counts transferred bytes, so an uncompressed local server would
    measure a host nobody deploys to)."""

    TEXT = (".html", ".css", ".js", ".json", ".svg", ".xml", ".csv", ".txt")

    def log_message(self, *args):
        pass

    def send_head(self):
        path = Path(self.translate_path(self.path))
        if path.is_dir():
            path = path / "index.html"
        if (path.suffix not in self.TEXT or not path.is_file()
                or "gzip" not in self.headers.get("Accept-Encoding", "")):
            return super().send_head()
        body = gzip.compress(path.read_bytes(), 6)
        self.send_response(200)
        self.send_header("Content-Type", self.guess_type(str(path)))
        self.send_header("Content-Encoding", "gzip")
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "max-age=600")
        self.end_headers()
        return io.BytesIO(body)


@contextlib.contextmanager
def serve_gzip(root: Path) -> Iterator[str]:
    with running(QuietServer(("127.0.0.1", 0), functools.partial(GzipFiles, directory=str(root)))) as origin:
        yield origin


def render_demo(out: Path) -> Path:
    """The newest shipped snapshot rendered into ``out`` (history: the earlier ones)."""
    from builder.config import load_config
    from builder.mcp.data import read_history
    from builder.render.site import render_site
    from builder.snapshot import list_snapshots, load_snapshot

    cfg, base = load_config(ROOT / "site.yml")
    newest = list_snapshots(ROOT / "snapshots")[-1]
    snapshot = load_snapshot(newest)
    history = read_history([newest.parent], snapshot.date, newest)
    render_site(snapshot, history, cfg, base, out, now=datetime.fromisoformat(snapshot.created_at))
    return out


def pages(site: Path) -> list[str]:
    model = sorted(p.parent.name for p in (site / "models").glob("*/index.html"))[0]
    return ["", "boards/orchestrator/", "arena/", f"models/{model}/"]


def run_lighthouse(url: str, preset: str, out: Path) -> dict:
    cmd = [str(ROOT / "node_modules" / ".bin" / "lighthouse"), url, "--quiet", "--output=json",
           f"--output-path={out}", f"--only-categories={','.join(CATEGORIES)}", f"--chrome-flags={CHROME_FLAGS}"]
    if preset == "desktop":
        cmd.append("--preset=desktop")
    env = dict(os.environ, CHROME_PATH=os.environ.get("CHROME_PATH", "/usr/bin/chromium"))
    subprocess.run(cmd, check=True, env=env, timeout=300)
    return json.loads(out.read_text())


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--site", type=Path, help="a built site folder (default: render the newest shipped snapshot)")
    ap.add_argument("--preset", choices=("mobile", "desktop"), default="mobile")
    ap.add_argument("--min", type=int, default=95, help="lowest acceptable score per category")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        site = args.site or render_demo(Path(tmp) / "site")
        failed = False
        print(f"{'page':32} {'perf':>5} {'a11y':>5} {'bp':>5} {'seo':>5} {'LCP ms':>7} {'TBT ms':>7} {'CLS':>6}")
        with serve_gzip(site) as origin:
            for i, path in enumerate(pages(site)):
                report = run_lighthouse(f"{origin}/{path}", args.preset, Path(tmp) / f"lh{i}.json")
                scores = [round(100 * (report["categories"][c]["score"] or 0)) for c in CATEGORIES]
                audits = report["audits"]
                lcp = audits["largest-contentful-paint"]["numericValue"]
                tbt = audits["total-blocking-time"]["numericValue"]
                cls = audits["cumulative-layout-shift"]["numericValue"]
                cells = " ".join(f"{x:5}" for x in scores)
                print(f"{'/' + path:32} {cells} {lcp:7.0f} {tbt:7.0f} {cls:6.3f}")
                for c, s in zip(CATEGORIES, scores, strict=True):
                    if s < args.min:
                        failed = True
                        bad = [a["title"] for a in report["audits"].values()
                               if a.get("score") is not None and a["score"] < 0.9
                               and a["id"] in {r["id"] for r in report["categories"][c]["auditRefs"] if r["weight"]}]
                        print(f"  {c} {s} < {args.min}: {'; '.join(bad[:5])}")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
