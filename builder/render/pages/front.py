"""The front page (``index.html``): the live boards, or the fallback page when the guards refuse them."""

from __future__ import annotations

from builder.render.intervals import (
    TieGroup,
    TieMarks,
    anchored_ties,
    compute_tie_groups,
    compute_tie_marks,
    groups_within,
    weak_feeds,
)
from builder.render.writer import SiteWriter, md
from builder.snapshot.models import Snapshot

CARD_ROWS = 5
"Rows on a front-page card."


def card_tie_groups(snap: Snapshot) -> dict[str, list[TieGroup]]:
    """Board id -> the tie groups that reach into the card's top ``CARD_ROWS`` rows."""
    anchored = anchored_ties(snap)
    return {b.id: groups_within(compute_tie_groups(b.rows, anchored), [r.identity for r in b.rows[:CARD_ROWS]])
            for b in snap.boards}


def card_tie_marks(snap: Snapshot) -> dict[str, TieMarks]:
    """Board id -> its rows' tie marks."""
    anchored = anchored_ties(snap)
    return {b.id: compute_tie_marks(b.rows, anchored) for b in snap.boards}


def render_front(w: SiteWriter) -> None:
    """The boards and stacks of a snapshot the guards accept; else ``content/index.md``."""
    snap, cfg = w.snap, w.cfg
    if snap and not w.common["guards"]:
        w.page("index.html", "front.html", title=cfg.site.title, section="home",
               description=cfg.site.description, boards=snap.boards, stacks=snap.stacks,
               tie_groups=card_tie_groups(snap), tie_marks=card_tie_marks(snap),
               weak_feeds={b.id: weak_feeds(snap, b) for b in snap.boards})
    else:
        page = w.content.get("index")
        w.page("index.html", "page.html", title=page.title if page else cfg.site.title, section="home",
               description=cfg.site.description, body=md(page, ""))
