"""Pages per second against a peer (not a timed test): ``modelboards render --snapshot`` of the
demo against ``mkdocs build`` of a site with the same pages and the same table rows.

The demo is rendered once first (which also warms the share-image cache, as on any day after
the first); every HTML page it writes becomes one mkdocs page, in the same folder layout, with
the page's title as its heading and every table of the page as a Markdown table of the same
rows and cells. Then, interleaved, ``--repeat`` times each: the whole ``modelboards render
--snapshot`` process and the whole ``mkdocs build`` process (``python -m mkdocs``, default
theme, search plugin on as shipped). Prints pages, seconds and pages per second of both and
the ratio ours / mkdocs beside its target (at least 1). Wall time and CPU time (the process
and its children) are both measured; on a shared, loaded machine wall time mostly measures
the wait for a core, so the verdict uses CPU time.

mkdocs is a bench-only dependency: ``pip install -e '.[bench]'``.

    python tests/bench/bench_pages.py [--snapshot snapshots/2026-11-29.json] [--repeat 3]
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from html.parser import HTMLParser
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TARGET = 1.0
"Smallest allowed ratio of our pages per second to mkdocs' pages per second."


class PageText(HTMLParser):
    """The title (first h1, else <title>) and every table's rows (cell texts) of one page."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.title = ""
        self.h1 = ""
        self.tables: list[list[list[str]]] = []
        self._where: list[str] = []
        self._cell: list[str] | None = None
        self._row: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._where.append(tag)
        if tag == "table":
            self.tables.append([])
        elif tag == "tr" and self.tables:
            self._row = []
        elif tag in ("td", "th") and self._row is not None:
            self._cell = []

    def handle_endtag(self, tag: str) -> None:
        if self._where and self._where[-1] == tag:
            self._where.pop()
        if tag in ("td", "th") and self._cell is not None and self._row is not None:
            self._row.append(" ".join("".join(self._cell).split()))
            self._cell = None
        elif tag == "tr" and self._row is not None:
            if self._row:
                self.tables[-1].append(self._row)
            self._row = None

    def handle_data(self, data: str) -> None:
        if self._cell is not None:
            self._cell.append(data)
        elif self._where and self._where[-1] == "h1" and not self.h1:
            self.h1 = " ".join(data.split())
        elif self._where and self._where[-1] == "title" and not self.title:
            self.title = " ".join(data.split())


def markdown_page(html: str) -> tuple[str, int]:
    """(the Markdown page with the same heading and tables, the number of table rows)."""
    page = PageText()
    page.feed(html)
    lines = [f"# {page.h1 or page.title or 'Page'}", ""]
    rows = 0
    for table in page.tables:
        if not table:
            continue
        width = max(len(r) for r in table)
        cells = [[c.replace("|", "\\|") for c in r] + [""] * (width - len(r)) for r in table]
        lines.append("| " + " | ".join(cells[0]) + " |")
        lines.append("|" + "---|" * width)
        lines += ["| " + " | ".join(r) + " |" for r in cells[1:]]
        lines.append("")
        rows += len(table)
    return "\n".join(lines) + "\n", rows


def write_mkdocs_site(rendered: Path, folder: Path) -> tuple[int, int]:
    """An mkdocs project in ``folder`` with one page per HTML page of ``rendered``; (pages, rows)."""
    docs = folder / "docs"
    pages = rows = 0
    for html in sorted(rendered.rglob("*.html")):
        rel = html.relative_to(rendered)
        md_rel = rel.with_suffix(".md") if rel.name != "index.html" else rel.parent / "index.md"
        text, n = markdown_page(html.read_text(encoding="utf-8"))
        out = docs / md_rel
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(text, encoding="utf-8")
        pages += 1
        rows += n
    (folder / "mkdocs.yml").write_text("site_name: ModelBoards peer\nuse_directory_urls: true\n", encoding="utf-8")
    return pages, rows


def timed(cmd: list[str], cwd: Path, env: dict[str, str]) -> tuple[float, float]:
    """(wall seconds, CPU seconds of the process and its children) of one run of ``cmd``."""
    before = os.times()
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - t0
    after = os.times()
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} exited {proc.returncode}:\n{proc.stdout[-2000:]}{proc.stderr[-2000:]}")
    cpu = (after.children_user - before.children_user) + (after.children_system - before.children_system)
    return wall, cpu


def count_pages(folder: Path, exclude: tuple[str, ...] = ()) -> int:
    return sum(1 for p in folder.rglob("*.html") if p.name not in exclude)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--snapshot", type=Path, default=ROOT / "snapshots" / "2026-11-29.json")
    ap.add_argument("--repeat", type=int, default=3, help="runs of each, interleaved; the best is reported")
    a = ap.parse_args()
    try:
        import mkdocs  # noqa: F401
    except ImportError:
        print("skipped: mkdocs is not installed (pip install -e '.[bench]')")
        return 0
    env = {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    ours_cmd = [str(Path(sys.executable).parent / "modelboards"), "render", "--snapshot", str(a.snapshot.resolve())]
    print(f"load average (1 min) at start: {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
    with tempfile.TemporaryDirectory(prefix="bench-pages-") as tmp:
        work = Path(tmp)
        site, peer, peer_out = work / "site", work / "peer", work / "peer-site"
        timed([*ours_cmd, "--out", str(site)], ROOT, env)  # first render: warms the share-image cache
        ours_pages = count_pages(site)
        peer.mkdir()
        md_pages, rows = write_mkdocs_site(site, peer)
        print(f"demo: {ours_pages} HTML pages; the peer: {md_pages} Markdown pages, {rows} table rows in all")
        best = {"ours": (float("inf"), float("inf")), "mkdocs": (float("inf"), float("inf"))}
        for _ in range(a.repeat):
            w, c = timed([*ours_cmd, "--out", str(site)], ROOT, env)
            best["ours"] = (min(best["ours"][0], w), min(best["ours"][1], c))
            shutil.rmtree(peer_out, ignore_errors=True)
            w, c = timed([sys.executable, "-m", "mkdocs", "build", "-q", "-f", str(peer / "mkdocs.yml"),
                          "-d", str(peer_out)], peer, env)
            best["mkdocs"] = (min(best["mkdocs"][0], w), min(best["mkdocs"][1], c))
        peer_pages = count_pages(peer_out, exclude=("404.html",))
        print(f"{'':<22} {'pages':>6} {'wall s':>8} {'cpu s':>8} {'pages/s wall':>13} {'pages/s cpu':>12}")
        rates = {}
        for name, pages in (("modelboards render", ours_pages), ("mkdocs build", peer_pages)):
            w, c = best["ours" if name.startswith("modelboards") else "mkdocs"]
            rates[name] = (pages / w, pages / c)
            print(f"{name:<22} {pages:>6} {w:>8.2f} {c:>8.2f} {pages / w:>13.1f} {pages / c:>12.1f}")
    wall_ratio = rates["modelboards render"][0] / rates["mkdocs build"][0]
    cpu_ratio = rates["modelboards render"][1] / rates["mkdocs build"][1]
    verdict = "ok" if cpu_ratio >= TARGET else "TOO SLOW"
    print(f"ours / mkdocs, pages per second: {cpu_ratio:.2f}x by CPU time (target >= {TARGET:.1f}x) {verdict}; "
          f"{wall_ratio:.2f}x by wall time")
    print(f"load average (1 min) at end: {os.getloadavg()[0]:.2f}")
    return 0 if cpu_ratio >= TARGET else 1


if __name__ == "__main__":
    sys.exit(main())
