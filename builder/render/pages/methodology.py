"""The Methodology page: ``content/methodology.md`` with the role weights, the worked example
and (when the snapshot has an index) the Capability Index method filled into its slots."""

from __future__ import annotations

from builder.render.pages.evidence import compute_estimate_accuracy
from builder.render.worked import compute_worked_example
from builder.render.writer import SiteWriter, fill_slots, md


def render_methodology(w: SiteWriter) -> None:
    snap, cfg = w.snap, w.cfg
    example = compute_worked_example(snap) if snap else None
    if snap and example is None:
        w.warnings.append("methodology: no ranked orchestrator row, so no worked example")
    elif example is not None and not example.agrees:
        w.warnings.append(f"methodology: the worked example for {example.identity} does not reproduce the saved R")
    families = {k: v.title for k, v in cfg.families.items()}
    roles = [
        {"id": rid, "title": r.title, "total": sum(r.weights.values()),
         "weights": sorted(r.weights.items(), key=lambda kv: (-kv[1], kv[0])),
         "boards": [b.title for b in cfg.boards if b.role == rid]}
        for rid, r in cfg.roles.items()
    ]
    env = w.env
    slot_ctx = {**w.common, "root": "../", "families": families, "family_feeds": cfg.families, "roles": roles,
                "example": example, "snap": snap}
    slots = {
        "role-weights": env.get_template("_role_weights.html").render(slot_ctx),
        "worked-example": env.get_template("_worked_example.html").render(slot_ctx),
    }
    if snap and snap.get("index"):
        slots["capability-index"] = env.get_template("_index_method.html").render(
            {**slot_ctx, "index": snap["index"], "s": snap["index"]["settings"],
             "accuracy": compute_estimate_accuracy([*w.history, snap])})
    page = w.content.get("methodology")
    w.page("methodology/index.html", "page.html", title=page.title if page else "Methodology",
           section="methodology", description="How the boards are scored, with a worked example.",
           body=fill_slots(md(page, "../"), slots, append_missing=True))
