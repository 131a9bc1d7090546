"""The Stacks page (best and value stack, one model per role) and the home-computer Picks page."""

from __future__ import annotations

from builder.render.writer import SiteWriter, boards_by_id, current


def render_stacks(w: SiteWriter) -> None:
    snap = current(w)
    w.page("stacks/index.html", "stacks.html", title="Best and value stacks", section="stacks",
           description="The best and the value stack of models, one per role.",
           stacks=snap.stacks, roles=snap.roles, boards_by_id=boards_by_id(snap))


def render_picks(w: SiteWriter) -> None:
    snap = current(w)
    w.page("picks/index.html", "picks.html", title="Home-computer picks", section="picks",
           description="The best open-weight models that fit on a home computer.",
           machines=snap.machines, models=snap.models)
