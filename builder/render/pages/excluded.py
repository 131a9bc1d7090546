"""The Excluded page: every observation that did not count and every model on no board, with the reason."""

from __future__ import annotations

from collections.abc import Mapping

from builder.render.pages.models import model_index
from builder.render.writer import SiteWriter, current
from builder.snapshot.models import Calibration, Observation

FitKey = tuple[str, str, str]
"(source, feed, release) of a calibration fit."


def not_counted_reason(o: Observation, fits: Mapping[FitKey, Calibration],
                       family_feeds: set[str]) -> tuple[str, str] | None:
    """(kind, reason) when an observation did not count towards any score, else None."""
    if o.excluded:
        return "excluded", o.excluded
    if not o.selected:
        return "not selected", o.reason or "another configuration was selected"
    if o.feed not in family_feeds:
        return "no family", f"feed {o.feed} belongs to no rating family"
    if o.calibrated is None:
        fit = fits.get((o.source, o.feed, o.release))
        why = (fit.reason if fit else None) or "no calibration for this feed and release"
        return "not calibrated", f"feed not calibrated: {why}"
    return None


def render_excluded(w: SiteWriter) -> None:
    snap = current(w)
    idx = model_index(w)
    fits = {(c.source, c.feed, c.release): c for c in snap.calibration}
    family_feeds = {f for spec in snap.families.values() for f in spec.feeds}
    rows = []
    for o in snap.observations:
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
                b.title for b, _, _ in places)
        elif idx.observations.get(ident):
            reason = "no usable calibrated score in any board's families, or filtered out of every board"
        else:
            reason = "no observations in this snapshot"
        unplaced.append((ident, reason))
    w.page("excluded/index.html", "excluded.html", title="Excluded rows", section="excluded",
           description="Every row that did not count, with its reason.",
           rows=rows, unplaced=unplaced, names=idx.names)
