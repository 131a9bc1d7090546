"""The static API (``api/v1/``: index, boards, models, schemas, methodology) and the "API and MCP" page."""

from __future__ import annotations

from builder.api.build import api_settings, compute_api, render_api_files
from builder.api.page import compute_api_page
from builder.render.pages.boards import board_downloads
from builder.render.writer import SiteWriter, fill_slots, md
from builder.util.formats import RATING_LICENCE
from builder.util.text import model_slug

API_PARTS = ("endpoints", "tools", "resources", "curl", "clients")
"The ``[[api-*]]`` slots of content/api.md, each filled from one part of ``_api.html``."


def render_api(w: SiteWriter) -> None:
    """``api/v1/*`` from the snapshot (none without one) and ``api/`` from content/api.md."""
    base_url = w.common["base_url"]
    index = None
    if w.snap is not None:
        settings = api_settings(w.cfg, base_url, RATING_LICENCE, w.attribution, w.content.get("methodology"))
        docs = compute_api(w.snap, w.history, downloads=board_downloads(w), slug=model_slug, settings=settings)
        for rel, text in render_api_files(docs).items():
            w.file(rel, text)
        index = docs.index
    page = w.content.get("api")
    part = w.env.get_template("_api.html")
    ctx = {**w.common, "root": "../", "api": compute_api_page(base_url, index)}
    slots = {f"api-{p}": part.render({**ctx, "part": p}) for p in API_PARTS}
    w.page("api/index.html", "page.html", title=page.title if page else "API and MCP server", section="api",
           description=(page.meta.get("description") if page else None) or "The JSON API and the MCP server.",
           body=fill_slots(md(page, "../"), slots, append_missing=True))
