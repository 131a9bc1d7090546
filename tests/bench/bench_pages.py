"""Pages per second against a peer (not a timed test): ``modelboards render --snapshot`` of the
demo against ``mkdocs build`` of a site with the same pages and the same table rows.

The demo is rendered once first (which also warms the share-image cache, as on any day after
the first); every HTML page it writes becomes one mkdocs page, in the same folder layout,
with the page's title as its heading and every table of the page as a Markdown table of the
same rows and cells. Then, interleaved, ``--repeat`` times each: the whole ``modelboards
render --snapshot`` process three ways, by what its memos (``builder.util.memo``) hold: again
(those this snapshot's own render left: a re-render, as ``serve`` does), next day (those the
render of the snapshot before it left: a daily build, which computes the newest earlier day's
downloads and checks the new snapshot's text afresh) and cold (none: a first render); the
share images stay cached in all three. And the whole ``mkdocs build`` process (``python -m
mkdocs``, default theme, search plugin on as shipped). Each run writes a new output folder.
Prints pages, seconds and pages per second of each and the ratio ours / mkdocs beside its
target (at least 1, for every way), the best of the runs. Wall time and CPU time (the process
and its children) are both measured. The verdict is by wall time: pages per second as whoever
runs the command waits for them, as the two were first measured against each other. Ours
spreads its work over the cores (``recompute.py`` beside the pages; on a first render, the
memos filled by forked processes, ``builder.util.beside``); mkdocs uses one. CPU time, the
work done, is printed beside it with its own ratios: on a shared, loaded machine it is the
steadier figure, and wall time mostly measures the wait for a core, so run this on a quiet
machine (the load average is printed at the start and the end). Both sides run from
compiled bytecode. A last line gives the CPU of the verify alone (``recompute.py`` as a
render runs it, on the demo's downloads), which next day and cold include and again reads
back, and their CPU ratios without it.

mkdocs is a bench-only dependency: ``pip install -e '.[bench]'`` (or an interpreter that has
it, ``--peer-python``).

    python tests/bench/bench_pages.py [--snapshot snapshots/2026-11-29.json] [--repeat 3] [--peer-python PY]
                                      [--before DIR]   # DIR: earlier code (git worktree add DIR COMMIT), a row too
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

from builder.evidence.verify import compiled_script

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


MEMOS = ("archive-downloads", "snapshot-loads", "snapshot-schema", "api-schemas", "recompute-verdicts",
         "recompute-code")
"""The render's memos under .modelboards/ (builder.render.pages.archive.ARCHIVE_MEMO,
builder.evidence.verify.SNAPSHOT_CHECK_MEMO, builder.render.pages.data.SCHEMA_MEMO,
builder.render.pages.api.SCHEMA_MEMO, builder.evidence.verify.VERDICT_MEMO and CODE_MEMO)."""
SHARE_IMAGES = "og-cache"
"The share-image cache under .modelboards/ (builder.render.og): kept warm in every run."
AGAIN, NEXT_DAY, COLD, PEER = ("modelboards render (again)", "modelboards render (next day)",
                               "modelboards render (cold)", "mkdocs build")
BEFORE = "modelboards render (--before)"


def set_memos(state: Path | None) -> None:
    """The render's memos as saved in ``state`` (None: none at all)."""
    for memo in MEMOS:
        shutil.rmtree(ROOT / ".modelboards" / memo, ignore_errors=True)
        if state is not None and (state / memo).is_dir():
            shutil.copytree(state / memo, ROOT / ".modelboards" / memo)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--snapshot", type=Path, default=ROOT / "snapshots" / "2026-11-29.json")
    ap.add_argument("--repeat", type=int, default=3, help="runs of each, interleaved; the best is reported")
    ap.add_argument("--peer-python", default=sys.executable,
                    help="the interpreter that has mkdocs [default: this one]")
    ap.add_argument("--before", type=Path, default=None,
                    help="a source tree of earlier code (git worktree add DIR COMMIT): its render is a row too")
    a = ap.parse_args()
    has_mkdocs = subprocess.run([a.peer_python, "-c", "import mkdocs"], capture_output=True, check=False)
    if has_mkdocs.returncode != 0:
        print(f"skipped: {a.peer_python} has no mkdocs (pip install -e '.[bench]', or pass --peer-python)")
        return 0
    # Both sides run from compiled bytecode, as installed packages do: the first render writes
    # ours (an installed mkdocs has its own from pip), whatever PYTHONDONTWRITEBYTECODE says.
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")
    render = [str(Path(sys.executable).parent / "modelboards"), "render", "--snapshot"]
    # earlier code's own console entry (``builder.cli.run`` where it has one, else ``main``)
    entry = "import sys; from builder import cli; sys.exit(getattr(cli, 'run', cli.main)())"
    before_render = [sys.executable, "-c", entry, "render", "--snapshot"]
    snapshot = a.snapshot.resolve()
    earlier = sorted(p for p in snapshot.parent.glob("*.json") if p.name[:10] < snapshot.name[:10])
    print(f"load average (1 min) at start: {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
    names = (AGAIN, NEXT_DAY, COLD, PEER) if earlier else (AGAIN, COLD, PEER)
    if a.before is not None:
        before = a.before.resolve()
        before_env = {**env, "PYTHONPATH": str(before)}
        names = (BEFORE, *names)
    with tempfile.TemporaryDirectory(prefix="bench-pages-") as tmp:
        work = Path(tmp)
        site, peer, peer_out, next_day = work / "site", work / "peer", work / "peer-site", work / "memos"
        if earlier:  # the memos a daily build finds: those the day before's render left
            set_memos(None)
            timed([*render, str(earlier[-1]), "--out", str(site)], ROOT, env)
            for memo in MEMOS:
                if (ROOT / ".modelboards" / memo).is_dir():
                    shutil.copytree(ROOT / ".modelboards" / memo, next_day / memo)
        shutil.rmtree(site, ignore_errors=True)
        if a.before is not None:  # its share images (and whatever it caches) warm too
            timed([*before_render, str(snapshot), "--out", str(site)], before, before_env)
            shutil.rmtree(site, ignore_errors=True)
        warm_start = time.time()
        timed([*render, str(snapshot), "--out", str(site)], ROOT, env)  # warms the share images and memos
        unknown = sorted(p.name for p in (ROOT / ".modelboards").iterdir()
                         if p.is_dir() and p.name not in (*MEMOS, SHARE_IMAGES)
                         and any(e.stat().st_mtime >= warm_start - 1 for e in p.iterdir()))
        if unknown:  # a memo the runs would not reset: "cold" and "next day" would read it
            raise SystemExit(f"the render keeps memos this bench does not know: {', '.join(unknown)} "
                             "(add them to MEMOS)")
        ours_pages = count_pages(site)
        peer.mkdir()
        md_pages, rows = write_mkdocs_site(site, peer)
        print(f"demo: {ours_pages} HTML pages; the peer: {md_pages} Markdown pages, {rows} table rows in all")
        best = {n: (float("inf"), float("inf")) for n in names}
        verify_cpu = float("inf")
        for _ in range(a.repeat):
            for name in names:
                # every run writes a new output folder (removed before, outside the timing), both sides alike
                shutil.rmtree(site, ignore_errors=True)
                shutil.rmtree(peer_out, ignore_errors=True)
                if name == PEER:
                    w, c = timed([a.peer_python, "-m", "mkdocs", "build", "-q", "-f", str(peer / "mkdocs.yml"),
                                  "-d", str(peer_out)], peer, env)
                elif name == BEFORE:
                    w, c = timed([*before_render, str(snapshot), "--out", str(site)], before, before_env)
                else:
                    # again: the memos this snapshot's own render left; next day: those of the day
                    # before's; cold: none (the share images stay cached in every case)
                    if name != AGAIN:
                        set_memos(next_day if name == NEXT_DAY else None)
                    w, c = timed([*render, str(snapshot), "--out", str(site)], ROOT, env)
                    if name == AGAIN:  # the verify alone, as a render runs it (compiled, on this site)
                        script = compiled_script(site / "data" / "recompute.py", work / "code")
                        verify_cpu = min(verify_cpu, timed([sys.executable, "-I", "-S", str(script),
                                                            str(site / "data")], ROOT, env)[1])
                best[name] = (min(best[name][0], w), min(best[name][1], c))
        peer_pages = count_pages(peer_out, exclude=("404.html",))
    peer_wall, peer_cpu = best[PEER]
    print(f"{'process':<31} {'pages':>5} {'CPU s':>6} {'wall s':>6} {'pages/s CPU':>11} {'pages/s wall':>12} "
          f"{'ratio CPU':>9} {'ratio wall':>10} {'target':>6}")
    ok = True
    ratios = {}
    for name in names:
        w, c = best[name]
        n = ours_pages if name != PEER else peer_pages
        cpu_ratio = (n / c) / (peer_pages / peer_cpu)
        wall_ratio = (n / w) / (peer_pages / peer_wall)
        mine = name not in (PEER, BEFORE)
        if mine:
            ratios[name] = (wall_ratio, cpu_ratio)
            ok = ok and wall_ratio >= TARGET
        print(f"{name:<31} {n:>5} {c:>6.2f} {w:>6.2f} {n / c:>11.1f} {n / w:>12.1f} "
              f"{cpu_ratio:>8.2f}x {wall_ratio:>9.2f}x {'>= 1x' if mine else '':>6}")
    # what the verify costs: an again render reads its verdict back; the others run it beside the pages
    pages_only = {n: best[n][1] - verify_cpu for n in (NEXT_DAY, COLD) if n in names}
    print(f"of which recompute.py (the verify, run beside the pages when the snapshot is new): {verify_cpu:.2f} CPU s; "
          "without it, by CPU: " + ", ".join(f"{n.split('(')[1].rstrip(')')} {c:.2f} s "
                                             f"{(ours_pages / c) / (peer_pages / peer_cpu):.2f}x"
                                             for n, c in pages_only.items()))
    verdict = "ok" if ok else "TOO SLOW"
    def way(n: str) -> str:
        return n.split("(")[1].rstrip(")")

    print("ours / mkdocs, pages per second by wall time: "
          + ", ".join(f"{r[0]:.2f}x {way(n)}" for n, r in ratios.items())
          + f" (target >= {TARGET:.1f}x) {verdict}; by CPU time: "
          + ", ".join(f"{r[1]:.2f}x {way(n)}" for n, r in ratios.items()))
    print(f"load average (1 min) at end: {os.getloadavg()[0]:.2f}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
