"""The Methodology page: ``content/methodology.md`` with the role weights, the worked example
and (when the snapshot has an index) the Capability Index method filled into its slots.

The role weights and families are the ones stored in the snapshot being rendered (an old
snapshot re-renders with the weights it was scored with); only a site without a snapshot
shows today's ``site.yml``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from builder.config import SiteConfig
from builder.render.pages.evidence import compute_estimate_accuracy
from builder.render.writer import SiteWriter, Snap, fill_slots, md
from builder.snapshot.models import Family, Role


def role_tables(roles: Mapping[str, Role], boards: Sequence[tuple[str, str, str]]) -> list[dict[str, Any]]:
    """One table per role: its weights (largest first), their total and the boards (id, title,
    role) that use it."""
    out = []
    for rid, r in roles.items():
        out.append({"id": rid, "title": r.title or rid, "total": sum(r.weights.values()),
                    "weights": sorted(r.weights.items(), key=lambda kv: (-kv[1], kv[0])),
                    "boards": [title or bid for bid, title, role in boards if role == rid]})
    return out


def method_settings(
    snap: Snap | None, cfg: SiteConfig
) -> tuple[dict[str, Family], dict[str, Role], list[tuple[str, str, str]]]:
    """(families, roles, boards as (id, title, role)) the page shows: the snapshot's own when
    there is one, else the configuration's."""
    if snap:
        return dict(snap.families), dict(snap.roles), [(b.id, b.title, b.role) for b in snap.boards]
    families = {k: Family(title=v.title, feeds=tuple(v.feeds)) for k, v in cfg.families.items()}
    roles = {k: Role(title=r.title, weights=dict(r.weights)) for k, r in cfg.roles.items()}
    return families, roles, [(b.id, b.title, b.role) for b in cfg.boards]


def render_methodology(w: SiteWriter) -> None:
    snap, cfg = w.snap, w.cfg
    example = snap.worked_example if snap else None
    board = snap.board(example.board_id) if snap and example else None
    if snap and example is None:
        w.warnings.append("methodology: no ranked orchestrator row, so no worked example")
    elif example is not None and not example.agrees:
        w.warnings.append(f"methodology: the worked example for {example.identity} does not reproduce the saved R")
    family_specs, role_specs, boards = method_settings(snap, cfg)
    families = {k: v.title or k for k, v in family_specs.items()}
    env = w.env
    slot_ctx = {**w.common, "root": "../", "families": families, "family_feeds": family_specs,
                "roles": role_tables(role_specs, boards), "weights_from_snapshot": bool(snap),
                "example": example, "example_board": board, "example_row": board.rows[0] if board else None,
                "snap": snap}
    slots = {
        "role-weights": env.get_template("_role_weights.html").render(slot_ctx),
        "worked-example": env.get_template("_worked_example.html").render(slot_ctx),
        "arena-overlap": env.get_template("_arena_overlap.html").render(slot_ctx),
        "uncertainty-settings": env.get_template("_uncertainty_method.html").render(
            {**slot_ctx, "u": snap.uncertainty if snap else None}),
        "robustness-settings": env.get_template("_robustness_method.html").render(
            {**slot_ctx, "rb": next((b.robustness for b in snap.boards if b.robustness), None) if snap else None}),
    }
    if snap and snap.index:
        slots["capability-index"] = env.get_template("_index_method.html").render(
            {**slot_ctx, "index": snap.index, "s": snap.index.settings,
             "accuracy": compute_estimate_accuracy([*w.history, snap])})
    page = w.content.get("methodology")
    w.page("methodology/index.html", "page.html", title=page.title if page else "Methodology",
           section="methodology", description="How the boards are scored, with a worked example.",
           body=fill_slots(md(page, "../"), slots, append_missing=True))
