"""Render the static site from a snapshot (and the earlier snapshots), never refitting.

    render_site(snapshot, history, cfg, base, out, now=..., pages=PAGES) -> warnings
    write_site_atomically(target, build)                                -> build's result

Every page is a jinja2 template (autoescape on) fed plain values from the snapshot. Links
are relative (``root`` is each page's way back to the site root: ``""``, ``"../"``,
``"../../"``), so the site works under any base path, e.g. GitHub project pages at
``https://user.github.io/modelboards/``; only ``404.html``, which the host serves at any
depth, uses the base URL's path. The output depends only on its inputs (snapshot, history,
config, content, templates and ``now``): rendering the same inputs twice is byte-identical.

The pages are the explicit list ``builder.render.pages.PAGES``: each entry renders when its
``available`` says so for this snapshot, and its menu entry appears only then. The first
downloads (``Page.first``) are written before the earlier snapshots are loaded; the entries
that only write files (``Page.beside``) are rendered by a forked copy of the process into a
folder of its own and moved in at their turn, or rendered here when the copy cannot be made
or fails: the output is the same either way.
"""

from __future__ import annotations

import functools
import os
import shutil
import tempfile
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any, ParamSpec, TypeVar
from urllib.parse import urlsplit

from builder.config import SiteConfig
from builder.render.exports import board_attribution
from builder.render.legacy import MOVEMENT_NOTE, apply_single_source_rule
from builder.render.markdown import ContentPage, read_content_dir
from builder.render.og import PENDING_CARDS, draw_pending_cards
from builder.render.pages import PAGES
from builder.render.pages.content import SPECIAL_CONTENT
from builder.render.writer import Page, SiteWriter, Snap, copy_static, make_env
from builder.snapshot import check_guards, validate_snapshot
from builder.snapshot.attempt import RefreshAttempt, apply_attempt
from builder.util.beside import Beside
from builder.util.dirs import layered_dirs
from builder.util.formats import RATING_LICENCE
from builder.util.gc import gc_paused
from builder.util.text import CSP, safe_url

T = TypeVar("T")
P = ParamSpec("P")
ChangeLog = Callable[[Sequence[Snap]], Sequence[Mapping[str, Any]]]
"Snapshots (oldest first) -> one change document per date."


@gc_paused
def render_site(
    snapshot: Snap | None,
    history: Sequence[Snap] | Callable[[], Sequence[Snap]],
    cfg: SiteConfig,
    base: Path,
    out: Path,
    *,
    now: datetime,
    base_url: str | None = None,
    banner_warnings: bool = False,
    pages: Sequence[Page] = PAGES,
    attempt: RefreshAttempt | None = None,
    change_log: ChangeLog | None = None,
    after: Callable[[str], None] | None = None,
) -> list[str]:
    """Write the whole site into ``out`` (an empty folder); return the warnings.

    ``history`` holds earlier snapshots (only those dated before ``snapshot`` are used, so a
    past day re-renders exactly as it was), or is a function that loads them: it is called
    once the ``first`` downloads, which read the current snapshot alone, are written. ``now``
    decides the guards. ``banner_warnings`` (``serve``) shows every warning in a banner on
    every page. ``pages`` is the page list,
    rendered in order (each entry when it is available for these snapshots). ``attempt`` is
    the record of the latest refresh attempt (``builder.snapshot.attempt``): the pages show
    each source's status as of that attempt, and stale boards when its Arena source failed;
    the snapshot download stays the saved one. ``change_log`` turns the snapshots shown
    (earlier ones and the current, oldest first) into the "what changed" documents
    (``builder.history.diff.compute_change_log``, which render may not import, so the command
    passes it in); without it the change pages list no change. ``after`` is called once the
    pages' ``first`` downloads are written (with ``"first"``), then after each page (with its
    key): the build starts its verify from it as soon as the verify's inputs are there.
    """
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    base_url = _normalise_base_url(base_url or cfg.site.url)
    # Per file: the site's templates/, static/ and content/ files first, the package's for the rest.
    templates = layered_dirs(base, "templates")
    content: dict[str, ContentPage] = {}
    for folder in reversed(layered_dirs(base, "content")):
        content.update(read_content_dir(folder))
    # A snapshot from before the single-source rule is shown under it (builder.render.legacy),
    # then with each source's status as of the latest attempt; its download stays as saved.
    snap = snapshot
    movement_hidden: dict[str, str] = {}
    if snapshot is not None and (snapshot.method is None or not snapshot.method.single_source_rule):
        shown, rule = apply_single_source_rule(snapshot.model_dump(mode="json"))
        snap = validate_snapshot(shown, snapshot.date)
        movement_hidden = {f"{kind}:{i}": MOVEMENT_NOTE for kind, ids in (("board", rule.boards),
                                                                          ("machine", rule.machines)) for i in ids}
    snap = apply_attempt(snap, attempt) if snap is not None else None
    guards = check_guards(snap, now)
    warnings = _input_warnings(snap, guards, "index" in content)
    w = SiteWriter(out, make_env(templates), {"base_url": base_url}, urlsplit(base_url).path or "/", cfg, base,
                   snap=snap, saved=snapshot, history=[], content=content, warnings=warnings,
                   attribution=board_attribution(cfg.site.title, base_url))
    # the first downloads read the current snapshot alone: written (and the work beside the
    # render that reads them started, by ``after``) before the earlier snapshots are loaded
    for page in pages:
        if page.first is not None and page.available(snap, ()):
            page.first(w)
    if after is not None:
        after("first")
    earlier = w.history = _earlier(history() if callable(history) else history, snap.date if snap else None)
    if change_log is not None:
        w.changes = change_log([*earlier, *([snap] if snap is not None else [])])
    chosen = [p for p in pages if p.available(snap, earlier)]
    w.common.update({
        "site": cfg.site,
        "site_title": cfg.site.title,
        "base_url": base_url,
        "csp": CSP,
        "nav": [{"key": p.key, "title": p.menu_title(w), "href": p.href} for p in chosen if p.menu is not None],
        "demo": snap.demo if snap else cfg.demo,
        "snap": snap,
        "guards": guards,
        "banner": warnings if banner_warnings else [],
        "stale": bool(snap and snap.stale),
        "footer_pages": [p for k, p in sorted(content.items(), key=lambda kv: (kv[1].order, kv[0]))
                         if k not in SPECIAL_CONTENT],
        "licence": RATING_LICENCE,
        "repository": safe_url(cfg.site.repository),
        "section": "",
        "citation": _citation(cfg, snap, base_url),
        "history": earlier,
        "movement_hidden": movement_hidden,
        "has_feed": any(p.key == "changes" for p in chosen),
    })
    # the pages that only write files (Page.beside), rendered by a forked copy of this process
    # into a folder of its own while the others are written here; at the first one's turn the
    # copy's files are moved in (a folder only it wrote moves whole: one rename), or, when it
    # failed, the pages are rendered here
    aside = _Aside.start(w, [p for p in chosen if p.beside])
    try:
        warnings += copy_static([t / "static" for t in templates], out / "static")
        for page in chosen:
            if not (page.beside and aside is not None and aside.finish(out)):
                page.render(w)
            if after is not None:
                after(page.key)
    finally:
        if aside is not None:
            aside.cancel()
    draw_pending_cards(w)  # the share images no cache held, drawn together (in parallel when many)
    day = snap.date if snap else None
    w.file("sitemap.xml", w.env.get_template("sitemap.xml").render(
        {"urls": [base_url + p for p in sorted(set(w.pages))], "lastmod": day}))
    w.file("robots.txt", f"User-agent: *\nAllow: /\nSitemap: {base_url}sitemap.xml\n")
    return warnings


class _Aside:
    """The forked copy of the render that renders the ``Page.beside`` pages into a folder of its own."""

    def __init__(self, job: Beside, folder: Path) -> None:
        self.job, self.folder = job, folder
        self.done: bool | None = None  # None: not waited for yet; True: its files are in the site

    @classmethod
    def start(cls, w: SiteWriter, pages: Sequence[Page]) -> _Aside | None:
        """Fork the copy that renders ``pages`` (a folder beside ``w.out``); None when it cannot."""
        if not pages:
            return None
        try:
            folder = Path(tempfile.mkdtemp(prefix=f"{w.out.name}.aside-", dir=w.out.parent))
        except OSError:
            return None
        job = Beside(functools.partial(_render_aside, w, pages, folder))
        if not job.started:
            shutil.rmtree(folder, ignore_errors=True)
            return None
        return cls(job, folder)

    def finish(self, out: Path) -> bool:
        """Wait for the copy (the first time) and move its files into ``out``; False when it
        failed (its pages are then rendered in this process). Its folder is gone either way."""
        if self.done is None:
            ok = self.job.join()
            try:
                if ok:
                    _move_into(self.folder, out)
            except OSError:
                ok = False  # whatever moved is written again by the pages rendered here
            finally:
                shutil.rmtree(self.folder, ignore_errors=True)
            self.done = ok
        return self.done

    def cancel(self) -> None:
        self.job.cancel()
        shutil.rmtree(self.folder, ignore_errors=True)


def _render_aside(w: SiteWriter, pages: Sequence[Page], folder: Path) -> None:
    """In the forked copy: render ``pages`` into ``folder``; fail if one did more than write
    files (the copy's pages, warnings and queued share cards are lost with it)."""
    before = _shared(w)
    w.out = folder
    w._folders = set()
    for page in pages:
        page.render(w)
    if _shared(w) != before:
        raise RuntimeError("a Page.beside page wrote a page, a warning or a share card")


def _shared(w: SiteWriter) -> tuple[int, int, int]:
    pending = w.cache.get(PENDING_CARDS, {})
    return len(w.pages), len(w.warnings), sum(len(places) for _, places in pending.values())


def _move_into(src: Path, dst: Path) -> None:
    """Move everything under ``src`` into ``dst``: an entry ``dst`` lacks is renamed whole (a
    folder of any size in one rename), folders both have are merged, a file replaces."""
    for entry in os.scandir(src):
        target = dst / entry.name
        if entry.is_dir(follow_symlinks=False) and target.is_dir():
            _move_into(Path(entry.path), target)
        else:
            os.replace(entry.path, target)


def _input_warnings(snap: Snap | None, guards: Sequence[str], has_index_page: bool) -> list[str]:
    """What the inputs alone say is wrong: refused boards, a stale Arena, board warnings."""
    warnings: list[str] = [f"live boards refused: {g}" for g in guards]
    if snap and snap.stale:
        warnings.append("boards are stale: the Arena source failed at the last refresh")
    for b in snap.boards if snap else ():
        if b.warning:
            warnings.append(f"board {b.id}: {b.warning}")
    if not has_index_page:
        warnings.append("content/index.md is missing: the fallback front page is empty")
    return warnings


def recover_site(target: Path) -> None:
    """Repair what a killed swap left beside ``target`` (call it holding the project lock).

    A crash between the two renames of ``write_site_atomically`` leaves no ``target`` and the
    previous site complete at ``.<name>.old-*``: it is renamed back. Any other ``.<name>.old-*``
    or ``.<name>.new-*`` folder is the leftover of a killed build and is deleted.
    """
    target = Path(target).resolve()
    parent = target.parent
    if not parent.is_dir():
        return
    olds = sorted(parent.glob(f".{target.name}.old-*"), key=lambda p: p.stat().st_mtime)
    if not target.exists() and olds:
        os.rename(olds.pop(), target)  # the newest complete previous site
    for leftover in [*olds, *parent.glob(f".{target.name}.new-*")]:
        shutil.rmtree(leftover, ignore_errors=True)


def write_site_atomically(target: Path, build: Callable[[Path], T]) -> T:
    """Build into a fresh folder beside ``target``, then swap it in whole.

    The old site is renamed away, the new one renamed in, the old one deleted. Any
    exception while building leaves ``target`` exactly as it was (the partial build is
    removed). Both renames are on the same filesystem, so each is atomic; a crash at any
    instant leaves either ``target`` or the previous site at ``.<name>.old-*``, which
    ``recover_site`` (run first here and at the start of every build) puts back.
    """
    from builder.util.outdir import check_out_dir, write_marker
    from builder.util.testhooks import pause_point

    target = check_out_dir(target)  # never swap away a folder this tool did not write
    target.parent.mkdir(parents=True, exist_ok=True)
    recover_site(target)
    tmp = Path(tempfile.mkdtemp(prefix=f".{target.name}.new-", dir=target.parent))
    try:
        result = build(tmp)
        write_marker(tmp)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    os.chmod(tmp, 0o755)  # mkdtemp makes it 0700; a served site must be readable
    pause_point("site-built")
    old = None
    if target.exists():
        old = Path(tempfile.mkdtemp(prefix=f".{target.name}.old-", dir=target.parent))
        old.rmdir()
        os.rename(target, old)
    pause_point("site-between-renames")
    try:
        os.rename(tmp, target)
    except BaseException:
        if old is not None:
            os.rename(old, target)
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)
    return result


# --------------------------------------------------------------------------- helpers


def _normalise_base_url(url: str) -> str:
    if safe_url(url) is None:
        raise ValueError(f"base URL must be an http(s) URL: {url!r}")
    return url if url.endswith("/") else url + "/"


def _earlier(history: Sequence[Snap], day: str | None) -> list[Snap]:
    """Earlier snapshots, oldest first, one per date (the first given wins)."""
    seen: dict[str, Snap] = {}
    for h in history:
        if h.date not in seen and (day is None or h.date < day):
            seen[h.date] = h
    return [seen[d] for d in sorted(seen)]


def _citation(cfg: SiteConfig, snap: Snap | None, base_url: str) -> str:
    """BibTeX for the boards of this snapshot (or the site when there is none)."""
    day = snap.date if snap else None
    year = day[:4] if day else "n.d."
    key = "modelboards" + (day.replace("-", "") if day else "")

    def esc(s: str) -> str:  # BibTeX special characters
        return "".join("\\" + c if c in "{}%&$#_" else c for c in s)

    fields = [
        ("title", f"{esc(cfg.site.title)}: AI-model role boards" + (f" ({day})" if day else "")),
        ("author", f"{{{esc(cfg.site.title)} contributors}}"),
        ("year", year),
        ("howpublished", f"\\url{{{base_url}}}"),
        ("note", "Rating table under " + RATING_LICENCE
         + (f"; method {esc(snap.method_id)}" if snap else "")),
    ]
    body = ",\n".join(f"  {k} = {{{v}}}" for k, v in fields)
    return f"@misc{{{key},\n{body}\n}}"
