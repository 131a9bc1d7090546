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
``available`` says so for this snapshot, and its menu entry appears only then.
"""

from __future__ import annotations

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
from builder.render.og import draw_pending_cards
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
    history: Sequence[Snap],
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
    past day re-renders exactly as it was). ``now`` decides the guards. ``banner_warnings``
    (``serve``) shows every warning in a banner on every page. ``pages`` is the page list,
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
    earlier = _earlier(history, snap.date if snap else None)
    warnings = _input_warnings(snap, guards, "index" in content)
    w = SiteWriter(out, make_env(templates), {}, urlsplit(base_url).path or "/", cfg, base, snap=snap,
                   saved=snapshot, history=earlier, content=content, warnings=warnings,
                   attribution=board_attribution(cfg.site.title, base_url))
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
    # what the memos lack, filled beside the pages (Page.warm); each such page waits for it
    work = [job for p in chosen if p.warm is not None and (job := p.warm(w)) is not None]
    warming = Beside(lambda: [job() for job in work]) if work else None
    try:
        warnings += copy_static([t / "static" for t in templates], out / "static")
        for page in chosen:
            if page.first is not None:
                page.first(w)
        if after is not None:
            after("first")
        for page in chosen:
            if page.warm is not None and warming is not None:
                warming.join()
            page.render(w)
            if after is not None:
                after(page.key)
    finally:
        if warming is not None:
            warming.cancel()
    draw_pending_cards(w)  # the share images no cache held, drawn together (in parallel when many)
    day = snap.date if snap else None
    w.file("sitemap.xml", w.env.get_template("sitemap.xml").render(
        {"urls": [base_url + p for p in sorted(set(w.pages))], "lastmod": day}))
    w.file("robots.txt", f"User-agent: *\nAllow: /\nSitemap: {base_url}sitemap.xml\n")
    return warnings


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
