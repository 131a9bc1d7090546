"""Render the static site from a snapshot (and the earlier snapshots), never refitting.

    render_site(snapshot, history, cfg, base, out, now=...) -> warnings
    write_site_atomically(target, build)                    -> build's result

Every page is a jinja2 template (autoescape on) fed plain values from the snapshot. Links
are relative (``root`` is each page's way back to the site root: ``""``, ``"../"``,
``"../../"``), so the site works under any base path, e.g. GitHub project pages at
``https://user.github.io/modelboards/``; only ``404.html``, which the host serves at any
depth, uses the base URL's path. The output depends only on its inputs (snapshot, history,
config, content, templates and ``now``): rendering the same inputs twice is byte-identical.

Sections that later stages add to the snapshot (``arena``, ``evals``, ``index``) plug in
with ``register_section``; their menu entries appear only when the snapshot has the section.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import date, datetime
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence, TypeVar
from urllib.parse import urlsplit

import jinja2

from builder.api.build import api_settings, compute_api, render_api_files
from builder.api.page import compute_api_page
from builder.config import SiteConfig
from builder.render import exports
from builder.render.formatting import FILTERS
from builder.render.guards import check_guards
from builder.render.markdown import SLOT, ContentPage, read_content_dir, render_markdown
from builder.render.safety import CSP, model_slug, safe_url
from builder.render.worked import compute_worked_example

T = TypeVar("T")

REPO_ROOT = Path(__file__).resolve().parents[2]
SPECIAL_CONTENT = ("index", "methodology", "about", "api")


# --------------------------------------------------------------------------- sections


@dataclass(frozen=True)
class Section:
    """A page family a later stage adds (Arena, Evals, Index, Race).

    ``is_available(snapshot, history)`` says whether to build it; ``render(writer)`` writes its
    pages through the ``SiteWriter`` (which knows the shared page context).
    """

    key: str
    title: str
    href: str  # relative to the site root, e.g. "arena/"
    render: Callable[["SiteWriter"], None]
    available: Callable[[Mapping[str, Any] | None, Sequence[Mapping[str, Any]]], bool] | None = None

    def is_available(self, snap: Mapping[str, Any] | None, history: Sequence[Mapping[str, Any]]) -> bool:
        """``available(snap, history)`` when given, else: the snapshot has a non-empty ``snap[key]``."""
        if self.available is not None:
            return bool(self.available(snap, history))
        return bool(snap and snap.get(self.key))


SECTIONS: list[Section] = []


def register_section(section: Section) -> None:
    """Add (or replace, by key) a section; it renders whenever ``section.available`` says so."""
    SECTIONS[:] = [s for s in SECTIONS if s.key != section.key] + [section]


# --------------------------------------------------------------------------- writer


@dataclass
class SiteWriter:
    """Writes pages and files into ``out`` and remembers the HTML pages for the sitemap."""

    out: Path
    env: jinja2.Environment
    common: dict[str, Any]
    base_path: str
    pages: list[str] = field(default_factory=list)

    def file(self, rel: str, text: str) -> None:
        path = self.out / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(path, "w", encoding="utf-8", newline="\n") as fh:
            fh.write(text)

    def page(self, rel: str, template: str, *, sitemap: bool = True, absolute: bool = False, **ctx: Any) -> None:
        """Render ``template`` to ``rel`` (``.../index.html``); ``absolute`` links from the base path."""
        root = self.base_path if absolute else "../" * rel.count("/")
        here = rel.removesuffix("index.html")
        context = {**self.common, **ctx, "root": root, "home": root or "./", "here": here}
        context["canonical"] = self.common["base_url"] + here if sitemap else None
        self.file(rel, self.env.get_template(template).render(context))
        if sitemap:
            self.pages.append(here)


def make_env(templates: Path) -> jinja2.Environment:
    """The jinja2 environment: autoescape everywhere, undefined names are errors."""
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(templates)),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    env.filters.update(FILTERS)
    env.filters["slug"] = model_slug
    env.globals["safe_url"] = safe_url
    return env


def find_dir(base: Path, name: str) -> Path:
    """``base/name`` when it exists, else the repository's own (templates/, content/), else
    the copy an installed wheel carries (``builder._templates``, ``builder._content``)."""
    p = base / name
    if p.is_dir():
        return p
    if (REPO_ROOT / name).is_dir():
        return REPO_ROOT / name
    return Path(__file__).resolve().parents[1] / f"_{name}"


# --------------------------------------------------------------------------- site


def render_site(
    snapshot: Mapping[str, Any] | None,
    history: Sequence[Mapping[str, Any]],
    cfg: SiteConfig,
    base: Path,
    out: Path,
    *,
    now: datetime,
    base_url: str | None = None,
    banner_warnings: bool = False,
) -> list[str]:
    """Write the whole site into ``out`` (an empty folder); return the warnings.

    ``history`` holds earlier snapshots (only those dated before ``snapshot`` are used, so a
    past day re-renders exactly as it was). ``now`` decides the guards. ``banner_warnings``
    (``serve``) shows every warning in a banner on every page.
    """
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    base_url = _normalise_base_url(base_url or cfg.site.url)
    base_path = urlsplit(base_url).path or "/"
    templates = find_dir(base, "templates")
    content = read_content_dir(find_dir(base, "content"))
    env = make_env(templates)

    snap = dict(snapshot) if snapshot is not None else None
    guards = check_guards(snap, now)
    day = snap.get("date") if snap else None
    earlier = _earlier(history, day)

    warnings: list[str] = [f"live boards refused: {g}" for g in guards]
    if snap and snap.get("stale"):
        warnings.append("boards are stale: the Arena source failed at the last refresh")
    for b in (snap or {}).get("boards") or []:
        if b.get("warning"):
            warnings.append(f"board {b.get('id')}: {b['warning']}")
    if "index" not in content:
        warnings.append("content/index.md is missing: the fallback front page is empty")

    demo = bool(snap.get("demo")) if snap else cfg.demo
    from builder.render.sections import load_sections

    load_sections()
    sections = [s for s in SECTIONS if s.is_available(snap, earlier)]
    has_snap = snap is not None
    nav = _nav(has_snap, bool(earlier) or has_snap, content, sections)
    attribution = exports.board_attribution(cfg.site.title, base_url)
    common: dict[str, Any] = {
        "site": cfg.site,
        "site_title": cfg.site.title,
        "base_url": base_url,
        "csp": CSP,
        "nav": nav,
        "demo": demo,
        "snap": snap,
        "guards": guards,
        "banner": warnings if banner_warnings else [],
        "stale": bool(snap and snap.get("stale")),
        "footer_pages": [p for k, p in sorted(content.items(), key=lambda kv: (kv[1].order, kv[0]))
                         if k not in SPECIAL_CONTENT],
        "licence": exports.RATING_LICENCE,
        "repository": safe_url(cfg.site.repository),
        "section": "",
        "citation": _citation(cfg, snap, base_url),
        "history": earlier,
    }
    w = SiteWriter(out, env, common, base_path)

    _copy_static(templates / "static", out / "static")
    model_index = _index_models(snap) if snap else None

    # front page
    if snap and not guards:
        w.page("index.html", "front.html", title=cfg.site.title, section="home",
               description=cfg.site.description, boards=_boards(snap), stacks=snap.get("stacks") or {})
    else:
        page = content.get("index")
        w.page("index.html", "page.html", title=page.title if page else cfg.site.title, section="home",
               description=cfg.site.description, body=_md(page, ""))

    api_docs = None
    if snap:
        downloads = _render_boards(w, snap, model_index, attribution)
        api_docs = compute_api(snap, earlier, downloads=downloads, slug=model_slug,
                               settings=api_settings(cfg, base_url, exports.RATING_LICENCE, attribution,
                                                     content.get("methodology")))
        for rel, text in render_api_files(api_docs).items():
            w.file(rel, text)
        _render_models(w, snap, model_index)
        _render_excluded(w, snap, model_index)
        w.page("stacks/index.html", "stacks.html", title="Best and value stacks", section="stacks",
               description="The best and the value stack of models, one per role.",
               stacks=snap.get("stacks") or {}, roles=snap.get("roles") or {}, boards_by_id=_boards_by_id(snap))
        w.page("picks/index.html", "picks.html", title="Home-computer picks", section="picks",
               description="The best open-weight models that fit on a home computer.",
               machines=snap.get("machines") or [], models=snap.get("models") or {})
        w.file(f"data/snapshots/{_safe_day(day)}.json", exports.dump_json(snap, compact=True))
    for old in earlier:
        _render_archived_downloads(w, old, attribution)
    w.file("data/LICENCE.txt", exports.render_licence_text(snap, cfg.site.title, base_url))

    snapshots = ([snap] if snap else []) + list(reversed(earlier))
    if snapshots:
        w.page("archive/index.html", "archive.html", title="Archive", section="archive",
               description="Every saved snapshot with its boards and downloads.",
               entries=[_archive_entry(s, s is snap) for s in snapshots])
        w.page("changelog/index.html", "changelog.html", title="Method changelog", section="changelog",
               description="Every scoring method id seen across the snapshots and what changed.",
               methods=_method_changelog(list(reversed(snapshots))))
    w.page("data/index.html", "data.html", title="Downloads and schemas", section="data",
           description="Every download with its schema and licence.",
           boards=(snap or {}).get("boards") or [], snapshots=snapshots,
           csv_columns=exports.BOARD_CSV_COLUMNS, family_column=exports.FAMILY_COLUMN,
           json_fields=exports.BOARD_JSON_FIELDS, snapshot_fields=exports.SNAPSHOT_FIELDS,
           board_families=exports.board_families)

    example = compute_worked_example(snap) if snap else None
    if snap and example is None:
        warnings.append("methodology: no ranked orchestrator row, so no worked example")
    elif example is not None and not example.agrees:
        warnings.append(f"methodology: the worked example for {example.identity} does not reproduce the saved R")
    _render_methodology(w, cfg, content.get("methodology"), example, snap)
    _render_api_page(w, content.get("api"), compute_api_page(base_url, api_docs.index if api_docs else None))
    about = content.get("about")
    w.page("about/index.html", "page.html", title=about.title if about else "About", section="about",
           description=f"About {cfg.site.title}",
           body=fill_slots(_md(about, "../"), {"citation": env.get_template("_citation.html").render(common)}))
    for slug, page in sorted(content.items()):
        if slug not in SPECIAL_CONTENT:
            w.page(f"{slug}/index.html", "page.html", title=page.title, section=slug,
                   description=page.meta.get("description") or page.title, body=_md(page, "../"))
    for s in sections:
        s.render(w)
    w.page("404.html", "404.html", sitemap=False, absolute=True, title="Page not found", section="",
           description="Page not found")
    w.file("sitemap.xml", env.get_template("sitemap.xml").render(
        {"urls": [base_url + p for p in sorted(set(w.pages))], "lastmod": _safe_day(day) if day else None}))
    w.file("robots.txt", f"User-agent: *\nAllow: /\nSitemap: {base_url}sitemap.xml\n")
    return warnings


def write_site_atomically(target: Path, build: Callable[[Path], T]) -> T:
    """Build into a fresh folder beside ``target``, then swap it in whole.

    The old site is renamed away, the new one renamed in, the old one deleted. Any
    exception while building leaves ``target`` exactly as it was (the partial build is
    removed). Both renames are on the same filesystem, so each is atomic.
    """
    target = Path(target).resolve()
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{target.name}.new-", dir=target.parent))
    try:
        result = build(tmp)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    os.chmod(tmp, 0o755)  # mkdtemp makes it 0700; a served site must be readable
    old = None
    if target.exists():
        old = Path(tempfile.mkdtemp(prefix=f".{target.name}.old-", dir=target.parent))
        old.rmdir()
        os.rename(target, old)
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


def _safe_day(day: Any) -> str:
    """A snapshot date as a file name (only an ISO date is ever used as a path)."""
    try:
        return date.fromisoformat(str(day)).isoformat()
    except ValueError:
        return "invalid-date"


def _earlier(history: Sequence[Mapping[str, Any]], day: str | None) -> list[Mapping[str, Any]]:
    """Valid earlier snapshots, oldest first, one per date (the first given wins)."""
    seen: dict[str, Mapping[str, Any]] = {}
    for h in history:
        d = h.get("date") if isinstance(h, Mapping) else None
        if not isinstance(d, str) or _safe_day(d) != d or d in seen:
            continue
        if day is None or d < day:
            seen[d] = h
    return [seen[d] for d in sorted(seen)]


def _nav(has_snap: bool, has_archive: bool, content: Mapping[str, ContentPage], sections) -> list[dict]:
    items = []
    if has_snap:
        items += [
            {"key": "boards", "title": "Boards", "href": "boards/"},
            {"key": "stacks", "title": "Stacks", "href": "stacks/"},
            {"key": "picks", "title": "Home computers", "href": "picks/"},
            {"key": "models", "title": "Models", "href": "models/"},
            {"key": "excluded", "title": "Excluded", "href": "excluded/"},
        ]
    items += [{"key": s.key, "title": s.title, "href": s.href} for s in sections]
    if has_archive:
        items.append({"key": "archive", "title": "Archive", "href": "archive/"})
    items.append({"key": "data", "title": "Data", "href": "data/"})
    items.append({"key": "methodology", "title": "Methodology", "href": "methodology/"})
    items.append({"key": "about", "title": content["about"].title if "about" in content else "About",
                  "href": "about/"})
    return items


def _md(page: ContentPage | None, root: str) -> str:
    return render_markdown(page.body, root) if page else ""


def _copy_static(src: Path, dst: Path) -> None:
    if src.is_dir():
        shutil.copytree(src, dst, ignore=shutil.ignore_patterns(".*", "__pycache__"))


def _boards(snap: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    return [b for b in snap.get("boards") or [] if isinstance(b, Mapping) and b.get("id")]


def _boards_by_id(snap: Mapping[str, Any]) -> dict[str, Mapping[str, Any]]:
    return {b["id"]: b for b in _boards(snap)}


@dataclass
class ModelIndex:
    """Everything about each identity, gathered once so each model page is O(its rows)."""

    identities: list[str]
    observations: dict[str, list[Mapping[str, Any]]]
    placements: dict[str, list[tuple[Mapping[str, Any], Mapping[str, Any], str]]]  # (board, row, ranked|new)
    machines: dict[str, list[tuple[Mapping[str, Any], Mapping[str, Any]]]]
    token_prices: dict[str, list[Mapping[str, Any]]]
    build_prices: dict[str, list[Mapping[str, Any]]]
    open_weight: dict[str, bool | None]
    names: dict[str, str]


def _index_models(snap: Mapping[str, Any]) -> ModelIndex:
    models = snap.get("models") or {}
    obs: dict[str, list] = defaultdict(list)
    for o in snap.get("observations") or []:
        if o.get("identity"):
            obs[o["identity"]].append(o)
    placements: dict[str, list] = defaultdict(list)
    names: dict[str, str] = {}
    for b in _boards(snap):
        for strip in ("rows", "new"):
            for r in b.get(strip) or []:
                if r.get("identity"):
                    placements[r["identity"]].append((b, r, "ranked" if strip == "rows" else "new"))
                    names.setdefault(r["identity"], r.get("model") or r["identity"])
    machines: dict[str, list] = defaultdict(list)
    for m in snap.get("machines") or []:
        for r in m.get("rows") or []:
            if r.get("identity"):
                machines[r["identity"]].append((m, r))
    prices = snap.get("prices") or {}
    token: dict[str, list] = defaultdict(list)
    for p in prices.get("token") or []:
        if p.get("identity"):
            token[p["identity"]].append(p)
    build: dict[str, list] = defaultdict(list)
    for p in prices.get("build") or []:
        if p.get("identity"):
            build[p["identity"]].append(p)
    for ident, m in models.items():
        names[ident] = (m or {}).get("name") or names.get(ident) or ident
    for ident, rows in obs.items():
        names.setdefault(ident, rows[0].get("model") or ident)
    identities = sorted(set(models) | set(obs) | set(placements))
    open_weight = {i: (models.get(i) or {}).get("open_weight") for i in identities}
    return ModelIndex(identities, obs, placements, machines, token, build, open_weight, names)


def _render_boards(w: SiteWriter, snap: Mapping[str, Any], idx: ModelIndex,
                   attribution: str) -> dict[str, dict[str, Any]]:
    """Write the board pages and downloads; return board id -> the download document."""
    boards = _boards(snap)
    families = snap.get("families") or {}
    downloads = {}
    for b in boards:
        bid = b["id"]
        w.file(f"data/boards/{bid}.csv", exports.render_board_csv(b))
        downloads[bid] = exports.board_download(b, snap, attribution)
        w.file(f"data/boards/{bid}.json", exports.dump_json(downloads[bid]))
    w.page("boards/index.html", "boards.html", title="Boards", section="boards",
           description="Every role board with its top models and downloads.", boards=boards)
    for b in boards:
        kind = b.get("kind")
        rows = list(b.get("rows") or []) + list(b.get("new") or [])
        known = kind in ("orchestrator", "open_weight", "mid_tier", "rote", "build_prices")
        # price columns where the board's rule uses prices; an unknown kind shows what it has
        cols = {
            "token_price": kind in ("mid_tier", "rote")
            or (not known and any(r.get("token_price") is not None for r in rows)),
            "build_price": kind in ("mid_tier", "rote", "build_prices")
            or (not known and any(r.get("build_price") is not None for r in rows)),
            "build_passed": kind in ("mid_tier", "rote", "build_prices")
            or (not known and any(r.get("build_passed") is not None for r in rows)),
        }
        w.page(f"boards/{b['id']}/index.html", "board.html", title=b.get("title") or b["id"], section="boards",
               description=b.get("description") or "", board=b, families=families, cols=cols,
               open_weight=idx.open_weight, sources=snap.get("sources") or [])
    return downloads


def _render_api_page(w: SiteWriter, page: ContentPage | None, api: Any) -> None:
    """``api/``: content/api.md with its [[api-*]] slots filled from ``_api.html``."""
    part = w.env.get_template("_api.html")
    ctx = {**w.common, "root": "../", "api": api}
    parts = ("endpoints", "tools", "resources", "curl", "clients")
    slots = {f"api-{p}": part.render({**ctx, "part": p}) for p in parts}
    w.page("api/index.html", "page.html", title=page.title if page else "API and MCP server", section="api",
           description=(page.meta.get("description") if page else None) or "The JSON API and the MCP server.",
           body=fill_slots(_md(page, "../"), slots, append_missing=True))


def _render_models(w: SiteWriter, snap: Mapping[str, Any], idx: ModelIndex) -> None:
    models = snap.get("models") or {}
    families = snap.get("families") or {}
    fits = {(c.get("source"), c.get("feed"), c.get("release")): c for c in snap.get("calibration") or []}
    orch = next((b for b in _boards(snap) if b.get("kind") == "orchestrator"), None)
    orch_rank = {r.get("identity"): r for r in (orch or {}).get("rows") or []}
    w.page("models/index.html", "models.html", title="Models", section="models",
           description="Every model the snapshot knows, with links to its evidence.",
           identities=idx.identities, models=models, names=idx.names, obs=idx.observations,
           orch=orch, orch_rank=orch_rank, placements=idx.placements)
    for ident in idx.identities:
        w.page(f"models/{model_slug(ident)}/index.html", "model.html", title=idx.names[ident], section="models",
               description=f"Evidence and board positions for {idx.names[ident]}",
               identity=ident, facts=models.get(ident) or {}, name=idx.names[ident],
               observations=sorted(idx.observations.get(ident, []),
                                   key=lambda o: (str(o.get("feed")), not o.get("selected"), str(o.get("model")))),
               placements=idx.placements.get(ident, []), machines=idx.machines.get(ident, []),
               token_prices=idx.token_prices.get(ident, []), build_prices=idx.build_prices.get(ident, []),
               families=families, fits=fits)


def not_counted_reason(o: Mapping[str, Any], fits: Mapping[tuple, Mapping[str, Any]],
                       family_feeds: set[str]) -> tuple[str, str] | None:
    """(kind, reason) when an observation did not count towards any score, else None."""
    if o.get("excluded"):
        return "excluded", str(o["excluded"])
    if not o.get("selected"):
        return "not selected", str(o.get("reason") or "another configuration was selected")
    if o.get("feed") not in family_feeds:
        return "no family", f"feed {o.get('feed')} belongs to no rating family"
    if o.get("calibrated") is None:
        fit = fits.get((o.get("source"), o.get("feed"), o.get("release")))
        why = (fit or {}).get("reason") or "no calibration for this feed and release"
        return "not calibrated", f"feed not calibrated: {why}"
    return None


def _render_excluded(w: SiteWriter, snap: Mapping[str, Any], idx: ModelIndex) -> None:
    fits = {(c.get("source"), c.get("feed"), c.get("release")): c for c in snap.get("calibration") or []}
    family_feeds = {f for spec in (snap.get("families") or {}).values() for f in (spec or {}).get("feeds", [])}
    rows = []
    for o in snap.get("observations") or []:
        why = not_counted_reason(o, fits, family_feeds)
        if why:
            rows.append((o, why[0], why[1]))
    unplaced = []
    for ident in idx.identities:
        places = idx.placements.get(ident, [])
        if any(kind == "ranked" for _, _, kind in places):
            continue
        if places:
            reason = "only one independent evaluator: in the New, not enough ratings yet strip of " + ", ".join(
                b.get("title", b.get("id", "")) for b, _, _ in places)
        elif idx.observations.get(ident):
            reason = "no usable calibrated score in any board's families, or filtered out of every board"
        else:
            reason = "no observations in this snapshot"
        unplaced.append((ident, reason))
    w.page("excluded/index.html", "excluded.html", title="Excluded rows", section="excluded",
           description="Every row that did not count, with its reason.",
           rows=rows, unplaced=unplaced, names=idx.names)


def _render_archived_downloads(w: SiteWriter, snap: Mapping[str, Any], attribution: str) -> None:
    day = _safe_day(snap.get("date"))
    w.file(f"data/snapshots/{day}.json", exports.dump_json(snap, compact=True))
    for b in _boards(snap):
        w.file(f"data/archive/{day}/{b['id']}.csv", exports.render_board_csv(b))
        w.file(f"data/archive/{day}/{b['id']}.json", exports.render_board_json(b, snap, attribution))


def _archive_entry(s: Mapping[str, Any], current: bool) -> dict[str, Any]:
    day = _safe_day(s.get("date"))
    boards = []
    for b in _boards(s):
        rows = b.get("rows") or []
        prefix = "data/boards/" if current else f"data/archive/{day}/"
        boards.append({"id": b["id"], "title": b.get("title") or b["id"], "n": len(rows),
                       "top": rows[0].get("model") if rows else None,
                       "top_identity": rows[0].get("identity") if rows else None,
                       "csv": f"{prefix}{b['id']}.csv", "json": f"{prefix}{b['id']}.json"})
    return {"date": day, "created_at": s.get("created_at"), "method_id": s.get("method_id"),
            "as_of": s.get("as_of"), "stale": bool(s.get("stale")), "demo": bool(s.get("demo")),
            "current": current, "boards": boards, "snapshot": f"data/snapshots/{day}.json"}


def _method_changelog(snapshots_oldest_first: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """One entry per method id (in order of first use) with the dates and what changed."""
    entries: list[dict[str, Any]] = []
    by_id: dict[str, dict[str, Any]] = {}
    prev: Mapping[str, Any] | None = None
    for s in snapshots_oldest_first:
        mid = str(s.get("method_id") or "unknown")
        e = by_id.get(mid)
        if e is None:
            e = {"method_id": mid, "first": s.get("date"), "last": s.get("date"), "count": 0,
                 "changes": _method_changes(prev, s) if prev is not None else ["first method on record"]}
            by_id[mid] = e
            entries.append(e)
        e["last"] = s.get("date")
        e["count"] += 1
        prev = s
    return list(reversed(entries))


def _method_changes(a: Mapping[str, Any], b: Mapping[str, Any]) -> list[str]:
    """Human-readable differences in sources, families and role weights between two snapshots."""
    out: list[str] = []
    sa = {s.get("name") for s in a.get("sources") or []}
    sb = {s.get("name") for s in b.get("sources") or []}
    for n in sorted(x for x in sb - sa if x):
        out.append(f"source added: {n}")
    for n in sorted(x for x in sa - sb if x):
        out.append(f"source removed: {n}")
    fa, fb = a.get("families") or {}, b.get("families") or {}
    for f in sorted(set(fa) | set(fb)):
        feeds_a = set((fa.get(f) or {}).get("feeds", []))
        feeds_b = set((fb.get(f) or {}).get("feeds", []))
        if f not in fa:
            out.append(f"family added: {f} ({', '.join(sorted(feeds_b))})")
        elif f not in fb:
            out.append(f"family removed: {f}")
        elif feeds_a != feeds_b:
            added, removed = sorted(feeds_b - feeds_a), sorted(feeds_a - feeds_b)
            parts = ([f"+{', +'.join(added)}"] if added else []) + ([f"-{', -'.join(removed)}"] if removed else [])
            out.append(f"family {f} feeds: {'; '.join(parts)}")
    ra, rb = a.get("roles") or {}, b.get("roles") or {}
    for r in sorted(set(ra) | set(rb)):
        wa = (ra.get(r) or {}).get("weights", {})
        wb = (rb.get(r) or {}).get("weights", {})
        if r not in ra:
            out.append(f"role added: {r}")
        elif r not in rb:
            out.append(f"role removed: {r}")
        else:
            for f in sorted(set(wa) | set(wb)):
                if wa.get(f) != wb.get(f):
                    out.append(f"role {r} weight {f}: {wa.get(f, 0)} -> {wb.get(f, 0)}")
    if not out:
        out.append("configuration outside sources, families and weights (folding, aliases, price rules or flagship rule)")
    return out


def _citation(cfg: SiteConfig, snap: Mapping[str, Any] | None, base_url: str) -> str:
    """BibTeX for the boards of this snapshot (or the site when there is none)."""
    day = _safe_day(snap.get("date")) if snap else None
    year = day[:4] if day and day != "invalid-date" else "n.d."
    key = "modelboards" + (day.replace("-", "") if day and day != "invalid-date" else "")

    def esc(s: str) -> str:  # BibTeX special characters
        return "".join("\\" + c if c in "{}%&$#_" else c for c in s)

    fields = [
        ("title", f"{esc(cfg.site.title)}: AI-model role boards" + (f" ({day})" if day else "")),
        ("author", f"{{{esc(cfg.site.title)} contributors}}"),
        ("year", year),
        ("howpublished", f"\\url{{{base_url}}}"),
        ("note", "Rating table under " + exports.RATING_LICENCE
         + (f"; method {esc(str(snap.get('method_id')))}" if snap else "")),
    ]
    body = ",\n".join(f"  {k} = {{{v}}}" for k, v in fields)
    return f"@misc{{{key},\n{body}\n}}"


def _render_methodology(w: SiteWriter, cfg: SiteConfig, page: ContentPage | None, example, snap) -> None:
    families = {k: v.title for k, v in cfg.families.items()}
    roles = [
        {"id": rid, "title": r.title, "total": sum(r.weights.values()),
         "weights": sorted(r.weights.items(), key=lambda kv: (-kv[1], kv[0])),
         "boards": [b.title for b in cfg.boards if b.role == rid]}
        for rid, r in cfg.roles.items()
    ]
    env = w.env
    slot_ctx = {**w.common, "root": "../", "families": families, "family_feeds": cfg.families, "roles": roles,
                "example": example, "snap": snap}
    slots = {
        "role-weights": env.get_template("_role_weights.html").render(slot_ctx),
        "worked-example": env.get_template("_worked_example.html").render(slot_ctx),
    }
    if snap and snap.get("index"):
        from builder.evidence.pages import compute_estimate_accuracy

        slots["capability-index"] = env.get_template("_index_method.html").render(
            {**slot_ctx, "index": snap["index"], "s": snap["index"]["settings"],
             "accuracy": compute_estimate_accuracy([*w.common.get("history", []), snap])})
    w.page("methodology/index.html", "page.html", title=page.title if page else "Methodology",
           section="methodology", description="How the boards are scored, with a worked example.",
           body=fill_slots(_md(page, "../"), slots, append_missing=True))


def fill_slots(html: str, slots: Mapping[str, str], *, append_missing: bool = False) -> str:
    """Replace ``<p>[[name]]</p>`` paragraphs with generated HTML (unknown names stay as text).

    With ``append_missing``, slots the markdown does not mention are added at the end, so
    generated tables never silently disappear from a page whose prose forgot the marker.
    """
    used: set[str] = set()

    def sub(m) -> str:
        if m.group(1) in slots:
            used.add(m.group(1))
            return slots[m.group(1)]
        return m.group(0)

    html = SLOT.sub(sub, html)
    if append_missing:
        html += "".join(v for k, v in slots.items() if k not in used)
    return html
