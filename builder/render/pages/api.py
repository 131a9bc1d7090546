"""The static API (``api/v1/``: index, boards, models, schemas, methodology) and the "API and MCP" page.

The schemas depend on the code and the site's URL alone: they are kept in a memo
(``builder.util.memo``, ``.modelboards/api-schemas/``), generated again when either changes.
The documents and the schemas are files only, written by a forked copy of the render
(``Page.beside``), so ``builder.api.build`` and its pydantic models are imported there (or
when that copy cannot run), never before the render forks: the page itself needs only
``builder.api.page``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from builder.api.page import api_example, compute_api_page
from builder.render.pages.boards import board_downloads
from builder.render.writer import SiteWriter, fill_slots, md
from builder.util.formats import RATING_LICENCE
from builder.util.memo import Memo, memo_key
from builder.util.text import model_slug

if TYPE_CHECKING:
    from builder.api.models import ApiDocuments

SCHEMA_MEMO = "api-schemas"
"The memo of ``render_schema_files`` by site URL."

API_PARTS = ("endpoints", "tools", "resources", "curl", "clients")
"The ``[[api-*]]`` slots of content/api.md, each filled from one part of ``_api.html``."


def render_api_schemas(w: SiteWriter) -> None:
    """``api/v1/schema/*.json`` for the site's URL (the index's), from the memo when it holds
    them: files only (``Page.beside``)."""
    from builder.api import build

    url = w.common["base_url"]
    memo = Memo(w.base, SCHEMA_MEMO)
    schemas = memo.get_texts(memo_key(SCHEMA_MEMO, url))
    if schemas is None:
        schemas = build.render_schema_files(url)
        memo.put_texts(memo_key(SCHEMA_MEMO, url), schemas)
    memo.prune()
    for rel, text in schemas.items():
        w.file(rel, text)


def _api_documents(w: SiteWriter) -> ApiDocuments:
    """Every ``api/v1`` document of the snapshot (once per render)."""
    from builder.api import build

    def compute() -> ApiDocuments:
        assert w.snap is not None
        settings = build.api_settings(w.cfg, w.common["base_url"], RATING_LICENCE, w.attribution,
                                      w.content.get("methodology"))
        return build.compute_api(w.snap, w.history, downloads=board_downloads(w), slug=model_slug,
                                 settings=settings)

    return w.cached("api_documents", compute)


def render_api_documents(w: SiteWriter) -> None:
    """``api/v1/*`` (but the schemas: ``render_api_schemas``) from the snapshot: files only (``Page.beside``)."""
    from builder.api import build

    for rel, text in build.render_api_files(_api_documents(w), schema_files={}).items():
        w.file(rel, text)


def render_api(w: SiteWriter) -> None:
    """``api/`` from content/api.md, its examples naming the board and model the API's index
    starts with (none without a snapshot)."""
    base_url = w.common["base_url"]
    example = api_example(w.snap, board_downloads(w), model_slug) if w.snap is not None else None
    page = w.content.get("api")
    part = w.env.get_template("_api.html")
    ctx = {**w.common, "root": "../", "api": compute_api_page(base_url, example)}
    slots = {f"api-{p}": part.render({**ctx, "part": p}) for p in API_PARTS}
    w.page("api/index.html", "page.html", title=page.title if page else "API and MCP server", section="api",
           description=(page.meta.get("description") if page else None) or "The JSON API and the MCP server.",
           body=fill_slots(md(page, "../"), slots, append_missing=True))
