"""The front page (``index.html``): the live boards, or the fallback page when the guards refuse them."""

from __future__ import annotations

from builder.render.writer import SiteWriter, md


def render_front(w: SiteWriter) -> None:
    """The boards and stacks of a snapshot the guards accept; else ``content/index.md``."""
    snap, cfg = w.snap, w.cfg
    if snap and not w.common["guards"]:
        w.page("index.html", "front.html", title=cfg.site.title, section="home",
               description=cfg.site.description, boards=snap.boards, stacks=snap.stacks)
    else:
        page = w.content.get("index")
        w.page("index.html", "page.html", title=page.title if page else cfg.site.title, section="home",
               description=cfg.site.description, body=md(page, ""))
