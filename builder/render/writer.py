"""What every page module uses: the ``Page`` entry, the ``SiteWriter`` and the small helpers.

A page module exposes one or more ``render_*(w: SiteWriter)`` functions; the list of pages
(``builder.render.pages.PAGES``) names each with its menu entry and when it is built.
Nothing here imports a page module, so the pages import this module one way only.
"""

from __future__ import annotations

import functools
import hashlib
import json
import shutil
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any, TypeVar

import jinja2
import jinja2.bccache

from builder.config import SiteConfig
from builder.render.formatting import FILTERS
from builder.render.markdown import SLOT, ContentPage, render_markdown
from builder.snapshot.models import Board, Snapshot
from builder.util.dirs import find_dir as find_dir  # re-exported: the renderer's callers find folders here
from builder.util.io import with_path
from builder.util.text import finalize_value, model_slug, safe_url

T = TypeVar("T")

Snap = Snapshot
"A snapshot as the renderer reads it: the typed, validated ``builder.snapshot.Snapshot``."


def _always(snap: Snap | None, history: Sequence[Snap]) -> bool:
    return True


@dataclass(frozen=True)
class Page:
    """One entry of the site's page list: what to render, its menu entry, when to build it.

    ``render(writer)`` writes the page (and its downloads) through the ``SiteWriter``;
    ``available(snapshot, earlier_snapshots)`` says whether to build it (and show its menu
    entry) for these inputs. ``menu`` is the menu title (``None``: not in the menu), or a
    function of the writer when the title comes from the content (the About page).
    ``first(writer)``, when given, writes downloads before any page is rendered: those that
    work beside the render reads (the evidence the build's verify recomputes meanwhile). It
    reads the current snapshot alone, and runs before the earlier ones are loaded: the page's
    ``available`` must not depend on them (it is asked with none).
    ``beside``: ``render`` writes files and nothing else (no HTML page for the sitemap, no
    warning, no share card): ``render_site`` runs it in a forked copy of the process
    (``builder.util.beside``) while the other pages are written, waits for it at its place
    in the list, and renders it itself when the copy failed or could not start.
    """

    key: str
    render: Callable[[SiteWriter], None]
    menu: str | Callable[[SiteWriter], str] | None = None
    href: str = ""  # relative to the site root, e.g. "arena/"
    available: Callable[[Snap | None, Sequence[Snap]], bool] = _always
    first: Callable[[SiteWriter], object] | None = None
    beside: bool = False

    def menu_title(self, w: SiteWriter) -> str | None:
        return self.menu(w) if callable(self.menu) else self.menu


@dataclass
class SiteWriter:
    """Writes pages and files into ``out`` and remembers the HTML pages for the sitemap.

    It also carries the render's inputs, so a page function needs nothing else: ``snap``
    (the current snapshot as shown, or None), ``saved`` (the same snapshot as saved: it
    differs from ``snap`` for a snapshot from before the single-source rule, and when a
    later refresh attempt changed the sources' statuses), ``history`` (the earlier
    snapshots, oldest first),
    ``cfg``, ``base`` (site.yml's folder), ``content`` (the markdown pages), ``warnings``
    (a page may add its own), ``common`` (the context every template receives) and
    ``changes`` (one "what changed" document per snapshot date, ``builder.history.diff``'s
    JSON format, computed by the caller; empty when it computed none).
    """

    out: Path
    env: jinja2.Environment
    common: dict[str, Any]
    base_path: str
    cfg: SiteConfig
    base: Path
    snap: Snap | None = None
    saved: Snap | None = None  # the snapshot as saved, when ``snap`` shows it otherwise (legacy rule, later attempt)
    history: Sequence[Snap] = ()
    content: Mapping[str, ContentPage] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    attribution: str = ""
    pages: list[str] = field(default_factory=list)
    cache: dict[str, Any] = field(default_factory=dict)
    changes: Sequence[Mapping[str, Any]] = ()
    _folders: set[Path] = field(default_factory=set, init=False, repr=False)

    def file(self, rel: str, text: str | bytes) -> None:
        """Write ``rel``: text as UTF-8 with \\n line ends, bytes as they are."""
        path = self.out / rel
        try:
            if path.parent not in self._folders:  # each folder made (or found) once per render
                path.parent.mkdir(parents=True, exist_ok=True)
                self._folders.add(path.parent)
            if isinstance(text, bytes):
                path.write_bytes(text)
                return
            with open(path, "w", encoding="utf-8", newline="\n") as fh:
                fh.write(text)
        except OSError as exc:  # a full disk names no file: say which one
            raise with_path(exc, path) from exc

    def page(self, rel: str, template: str, *, sitemap: bool = True, absolute: bool = False, **ctx: Any) -> None:
        """Render ``template`` to ``rel`` (``.../index.html``); ``absolute`` links from the base path."""
        root = self.base_path if absolute else "../" * rel.count("/")
        here = rel.removesuffix("index.html")
        context = {**self.common, **ctx, "root": root, "home": root or "./", "here": here}
        context["canonical"] = self.common["base_url"] + here if sitemap else None
        self.file(rel, self.env.get_template(template).render(context))
        if sitemap:
            self.pages.append(here)

    def cached(self, key: str, make: Callable[[], T]) -> T:
        """``make()`` once per render (e.g. an index several pages share)."""
        if key not in self.cache:
            self.cache[key] = make()
        value: T = self.cache[key]
        return value


def make_env(templates: Path | Sequence[Path]) -> jinja2.Environment:
    """The jinja2 environment: autoescape everywhere, undefined names are errors.

    ``templates`` is one folder or several, looked up per file in order (a site's folder
    first, then the package's: ``builder.util.dirs.layered_dirs``), so a site overrides one
    template and takes every other from the package.

    One per templates folder in a process, so a second render reuses the compiled templates
    (compiling them all takes about 0.7 s), and the compiled code is kept across processes in
    ``_TemplateCache``; jinja2 compiles a template again when its file has changed since
    (``auto_reload``, and the source checksum of each cached template).
    """
    dirs = [templates] if isinstance(templates, (str, Path)) else list(templates)
    return _env_for(tuple(str(Path(d).resolve()) for d in dirs))


_ENV_OPTIONS: dict[str, Any] = {"autoescape": True, "trim_blocks": True, "lstrip_blocks": True,
                                "keep_trailing_newline": True}
"The options that shape the compiled code (with ``finalize``, the filters and the globals)."


class _TemplateCache(jinja2.FileSystemBytecodeCache):
    """Compiled templates kept across processes, in jinja2's own per-user folder of the temp
    directory (created owner-only, refused when anyone else could write to it). jinja2 checks
    each template's source itself; the file names carry a hash of everything else the code
    depends on (jinja2 and Python versions, the options, the filter and global names), so a
    change of any of them never reads code compiled before it. A file that cannot be written
    is skipped: the template is compiled again next time."""

    def dump_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        try:
            super().dump_bytecode(bucket)
        except OSError:
            pass


def _template_cache(env: jinja2.Environment) -> _TemplateCache | None:
    key = json.dumps([jinja2.__version__, sys.version, _ENV_OPTIONS, f"{finalize_value.__module__}."
                      f"{finalize_value.__qualname__}", sorted(env.filters), sorted(env.globals)], sort_keys=True)
    try:
        return _TemplateCache(pattern=f"__modelboards-{hashlib.sha256(key.encode()).hexdigest()[:20]}-%s.cache")
    except (OSError, RuntimeError):  # no usable temp folder (or an unsafe one): compile in memory only
        return None


_DICT_ATTRIBUTES = frozenset(dir(dict))


class _Environment(jinja2.Environment):
    """jinja2's environment with ``x.name`` on a plain dict (most of the pages' data) looked up
    as the key at once. jinja2 tries the attribute first and takes the key only after the
    attribute lookup failed: the same value, after an ``AttributeError`` raised and caught for
    every such lookup (about 55,000 in a render of the demo). A name that is an attribute of
    ``dict`` (``items``, ``get``) and any other object still take jinja2's own way."""

    def getattr(self, obj: Any, attribute: str) -> Any:
        if type(obj) is dict and attribute not in _DICT_ATTRIBUTES:
            try:
                return obj[attribute]
            except KeyError:
                pass  # jinja2's own way: the undefined value
        return super().getattr(obj, attribute)


@functools.cache
def _env_for(templates: str | tuple[str, ...]) -> jinja2.Environment:
    env = _Environment(
        # FileSystemLoader over several folders: the first that has a template wins.
        loader=jinja2.FileSystemLoader([templates] if isinstance(templates, str) else list(templates)),
        auto_reload=True,
        undefined=jinja2.StrictUndefined,
        finalize=finalize_value,  # bidi controls from upstream never reach a page
        **_ENV_OPTIONS,
    )
    env.filters.update(FILTERS)
    env.filters["slug"] = model_slug
    env.globals["safe_url"] = safe_url
    env.bytecode_cache = _template_cache(env)
    return env


def copy_static(src: Path | Sequence[Path], dst: Path) -> list[str]:
    """Copy ``static/`` folders into ``dst``, per file: with several (the site's first, then the
    package's), a file in an earlier folder replaces the same path from a later one. Return a
    warning per entry left out.

    A symbolic link (or anything but a regular file or folder: a FIFO, a device) is never
    followed: its target could be any file on the machine (``/etc/passwd``), and would be
    published. It is left out with a warning naming it.
    """
    srcs = [src] if isinstance(src, (str, Path)) else list(src)
    skipped: list[str] = []
    hidden = shutil.ignore_patterns(".*", "__pycache__")

    def ignore(folder: str, names: list[str]) -> set[str]:
        out = set(hidden(folder, names))
        for name in names:
            if name in out:
                continue
            path = Path(folder) / name
            if path.is_symlink() or not (path.is_file() or path.is_dir()):
                out.add(name)
                skipped.append(f"static file left out: {path} is a symbolic link or a special file")
        return out

    for folder in reversed([Path(f) for f in srcs]):
        if folder.is_symlink():
            skipped.append(f"static folder left out: {folder} is a symbolic link")
        elif folder.is_dir():
            shutil.copytree(folder, dst, ignore=ignore, dirs_exist_ok=True)
    return skipped


def md(page: ContentPage | None, root: str) -> str:
    """A content page's body as HTML (links relative to ``root``); "" without a page."""
    return render_markdown(page.body, root) if page else ""


def fill_slots(html: str, slots: Mapping[str, str], *, append_missing: bool = False) -> str:
    """Replace ``<p>[[name]]</p>`` paragraphs with generated HTML (unknown names stay as text).

    With ``append_missing``, slots the markdown does not mention are added at the end, so
    generated tables never silently disappear from a page whose prose forgot the marker.
    """
    used: set[str] = set()

    def sub(m: Any) -> str:
        if m.group(1) in slots:
            used.add(m.group(1))
            return slots[m.group(1)]
        return str(m.group(0))

    html = SLOT.sub(sub, html)
    if append_missing:
        html += "".join(v for k, v in slots.items() if k not in used)
    return html


def safe_day(day: Any) -> str:
    """A snapshot date as a file name (only an ISO date is ever used as a path)."""
    try:
        return date.fromisoformat(str(day)).isoformat()
    except ValueError:
        return "invalid-date"


def boards_of(snap: Snap) -> tuple[Board, ...]:
    """The snapshot's boards, in site.yml order."""
    return snap.boards


def boards_by_id(snap: Snap) -> dict[str, Board]:
    return {b.id: b for b in snap.boards}


def has_snapshot(snap: Snap | None, history: Sequence[Snap]) -> bool:
    """Pages of the current snapshot: built whenever there is one."""
    return bool(snap)


def has_any_snapshot(snap: Snap | None, history: Sequence[Snap]) -> bool:
    """Pages of the whole history (archive, race): built when any snapshot exists."""
    return bool(snap) or bool(history)


def current(w: SiteWriter) -> Snap:
    """The current snapshot of a page that is only built when there is one."""
    if w.snap is None:
        raise ValueError("this page needs a snapshot")
    return w.snap
