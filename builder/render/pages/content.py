"""Pages written from ``content/``: About (with the citation), every other markdown page, and 404."""

from __future__ import annotations

from builder.render.writer import SiteWriter, fill_slots, md

SPECIAL_CONTENT = ("index", "methodology", "about", "api")
"Content pages with a page of their own (front, methodology, about, API); the rest get ``<slug>/``."


def about_title(w: SiteWriter) -> str:
    about = w.content.get("about")
    return about.title if about else "About"


def render_about(w: SiteWriter) -> None:
    about = w.content.get("about")
    citation = w.env.get_template("_citation.html").render(w.common)
    w.page("about/index.html", "page.html", title=about_title(w), section="about",
           description=f"About {w.cfg.site.title}", body=fill_slots(md(about, "../"), {"citation": citation}))


def render_content_pages(w: SiteWriter) -> None:
    for slug, page in sorted(w.content.items()):
        if slug not in SPECIAL_CONTENT:
            w.page(f"{slug}/index.html", "page.html", title=page.title, section=slug,
                   description=page.meta.get("description") or page.title, body=md(page, "../"))


def render_not_found(w: SiteWriter) -> None:
    w.page("404.html", "404.html", sitemap=False, absolute=True, title="Page not found", section="",
           description="Page not found")
