"""The Excluded page: every observation that did not count and every model on no board, with the reason."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from builder.render.pages.models import model_index
from builder.render.writer import SiteWriter, current


def not_counted_reason(o: Mapping[str, Any], fits: Mapping[tuple[Any, ...], Mapping[str, Any]],
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


def render_excluded(w: SiteWriter) -> None:
    snap = current(w)
    idx = model_index(w)
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
