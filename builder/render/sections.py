"""The page sections later stages add to the site, registered in menu order.

Each stage keeps its pages beside its code and exposes ``register()``; this is the one place
that lists them, so the renderer's menu and the build never depend on import side effects.
"""

from __future__ import annotations

_LOADED = False


def load_sections() -> None:
    """Register every section once (Arena, Evals, Index, Evidence, Race, Charts)."""
    global _LOADED
    if _LOADED:
        return
    from builder.charts import pages as chart_pages
    from builder.evals import pages as evals_pages
    from builder.evidence import pages as evidence_pages
    from builder.history import race
    from builder.pairwise import pages as arena_pages

    arena_pages.register()
    evals_pages.register()
    evidence_pages.register()
    race.register()
    chart_pages.register()
    _LOADED = True
