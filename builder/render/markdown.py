"""Markdown pages from ``content/``: YAML front matter (title, order) + CommonMark body.

Raw HTML in markdown is disabled (it renders as text). Links are rewritten so the site works
under any base path: ``/boards/x/`` (site-absolute) becomes ``<root>boards/x/`` where
``root`` is the page's relative way back to the site root; http(s) links stay; any other
scheme is dropped (the link text remains). A paragraph consisting only of ``[[name]]`` is a
slot the page template fills with generated HTML (e.g. the role-weight tables).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml
from markdown_it import MarkdownIt
from mdit_py_plugins.front_matter import front_matter_plugin

from builder.errors import UserError
from builder.util.text import safe_url

SLOT = re.compile(r"<p>\[\[([a-z0-9-]+)\]\]</p>\n?")
_SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")


@dataclass(frozen=True)
class ContentPage:
    """One ``content/<slug>.md`` file: front matter fields and the markdown body."""

    slug: str
    title: str
    order: int
    body: str
    meta: dict[str, Any]


def _parser() -> MarkdownIt:
    md = MarkdownIt("commonmark", {"html": False, "typographer": False}).enable("table")
    md.use(front_matter_plugin)
    # a table scrolls inside its own box, so a wide one never widens the page on a phone
    md.add_render_rule("table_open", lambda *_: '<div class="scroll" role="region" aria-label="Table" '
                                                'tabindex="0">\n<table>\n')
    md.add_render_rule("table_close", lambda *_: "</table>\n</div>\n")
    return md


_MD = _parser()
_FRONT = MarkdownIt("zero").use(front_matter_plugin)
"Finds the front matter only: the same rule as ``_MD``'s, first at line 0, without parsing the markdown."


def read_content_page(path: Path, *, text: str | None = None) -> ContentPage:
    """Parse one content file; a bad front matter is a ``UserError`` naming the file and line.
    ``text``: the file's contents, when the caller has read them already."""
    if text is None:
        text = path.read_text(encoding="utf-8")
    tokens = _FRONT.parse(text)
    meta: dict[str, Any] = {}
    body = text
    if tokens and tokens[0].type == "front_matter":
        try:
            loaded = yaml.safe_load(tokens[0].content) or {}
        except yaml.YAMLError as exc:
            mark = getattr(exc, "problem_mark", None)
            line = f"line {mark.line + 2}: " if mark else ""
            raise UserError(f"{path}: {line}invalid front matter: {getattr(exc, 'problem', exc)}") from None
        if not isinstance(loaded, dict):
            raise UserError(f"{path}: line 2: front matter must be a mapping")
        meta = loaded
        end = tokens[0].map[1] if tokens[0].map else 0
        body = "\n".join(text.splitlines()[end:])
    title = str(meta.get("title") or path.stem.replace("-", " ").capitalize())
    try:
        order = int(meta.get("order", 100))
    except (TypeError, ValueError):
        raise UserError(f"{path}: front matter order must be an integer, got {meta.get('order')!r}") from None
    return ContentPage(slug=path.stem, title=title, order=order, body=body, meta=meta)


def read_content_dir(folder: Path) -> dict[str, ContentPage]:
    """Every ``*.md`` in ``folder`` by slug (empty when the folder does not exist)."""
    if not folder.is_dir():
        return {}
    return {p.stem: read_content_page(p) for p in sorted(folder.glob("*.md"))}


def render_markdown(body: str, root: str) -> str:
    """HTML for a markdown body, links resolved against ``root`` (``""``, ``"../"``, ...)."""
    tokens = _MD.parse(body)
    _rewrite_links(tokens, root)
    return _MD.renderer.render(tokens, _MD.options, {})


def _rewrite_links(tokens, root: str) -> None:
    for tok in tokens:
        if tok.children:
            _rewrite_links(tok.children, root)
            # a link whose href was dropped: remove the open/close pair, keep the text
            kept, depth_drop = [], []
            for child in tok.children:
                if child.type == "link_open" and child.attrGet("href") is None:
                    depth_drop.append(True)
                    continue
                if child.type == "link_open":
                    depth_drop.append(False)
                if child.type == "link_close" and depth_drop and depth_drop.pop():
                    continue
                kept.append(child)
            tok.children = kept
        if tok.type in ("link_open", "image"):
            attr = "href" if tok.type == "link_open" else "src"
            url = tok.attrGet(attr) or ""
            new = resolve_content_link(url, root)
            if new is None:
                tok.attrs.pop(attr, None)
            else:
                tok.attrSet(attr, new)


def resolve_content_link(url: str, root: str) -> str | None:
    """A content link as the page should emit it, or None to drop it."""
    if url.startswith("//"):
        return None
    if url.startswith("/"):
        return (root or "./") + url[1:] if url != "/" else (root or "./")
    if _SCHEME.match(url):
        return safe_url(url)
    return url
