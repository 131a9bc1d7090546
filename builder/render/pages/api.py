"""The static API (``api/v1/``: index, boards, models, schemas, methodology) and the "API and MCP" page.

The schemas depend on the code and the site's URL alone: they are kept in a memo
(``builder.util.memo``, ``.modelboards/api-schemas/``), generated again when either changes.
"""

from __future__ import annotations

from collections.abc import Callable

from builder.api.build import api_settings, compute_api, render_api_files, render_schema_files
from builder.api.page import compute_api_page
from builder.render.pages.boards import board_downloads
from builder.render.writer import SiteWriter, fill_slots, md
from builder.util.formats import RATING_LICENCE
from builder.util.memo import Memo, memo_key
from builder.util.text import model_slug

SCHEMA_MEMO = "api-schemas"
"The memo of ``render_schema_files`` by site URL."

API_PARTS = ("endpoints", "tools", "resources", "curl", "clients")
"The ``[[api-*]]`` slots of content/api.md, each filled from one part of ``_api.html``."


def warm_api(w: SiteWriter) -> Callable[[], None] | None:
    """The work that computes the API's JSON Schemas for the site's URL into the memo when it
    lacks them (``Page.warm``)."""
    base_url = w.common["base_url"]
    memo, key = Memo(w.base, SCHEMA_MEMO), memo_key(SCHEMA_MEMO, base_url)
    if w.snap is None or memo.holds(key):
        return None
    return lambda: memo.put_texts(key, render_schema_files(base_url))


def render_api(w: SiteWriter) -> None:
    """``api/v1/*`` from the snapshot (none without one) and ``api/`` from content/api.md."""
    base_url = w.common["base_url"]
    index = None
    if w.snap is not None:
        settings = api_settings(w.cfg, base_url, RATING_LICENCE, w.attribution, w.content.get("methodology"))
        docs = compute_api(w.snap, w.history, downloads=board_downloads(w), slug=model_slug, settings=settings)
        memo = Memo(w.base, SCHEMA_MEMO)
        schemas = memo.get_texts(memo_key(SCHEMA_MEMO, base_url))  # the index's site URL
        if schemas is None:
            schemas = render_schema_files(base_url)
            memo.put_texts(memo_key(SCHEMA_MEMO, base_url), schemas)
        memo.prune()
        for rel, text in render_api_files(docs, schemas).items():
            w.file(rel, text)
        index = docs.index
    page = w.content.get("api")
    part = w.env.get_template("_api.html")
    ctx = {**w.common, "root": "../", "api": compute_api_page(base_url, index)}
    slots = {f"api-{p}": part.render({**ctx, "part": p}) for p in API_PARTS}
    w.page("api/index.html", "page.html", title=page.title if page else "API and MCP server", section="api",
           description=(page.meta.get("description") if page else None) or "The JSON API and the MCP server.",
           body=fill_slots(md(page, "../"), slots, append_missing=True))
