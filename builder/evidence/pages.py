"""The Capability Index page, the Evidence page and the evidence downloads, as site sections.

Registered with ``builder.render.site.register_section``; both render only from the
snapshot (and, for the estimate accuracy, the earlier snapshots).
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from builder.evidence.export import INDEX_LICENCE, compute_evidence_files
from builder.render.site import Section, SiteWriter, register_section
from builder.scoring.index import FAMILIES, SPECIALISTS, clamp

BOARD_TEXT = {
    "current": ("Current versions", "The newest version of each model line.", "index-current.csv"),
    "allVersions": ("All versions", "Every scored model, older versions included.", "index-all-versions.csv"),
}


def compute_estimate_accuracy(snapshots: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """For every model whose index basis moved from estimated/inherited to measured across
    the snapshots (oldest first): its last estimate beside its first measurement, and the MAE."""
    last_estimate: dict[str, tuple[str, float, str]] = {}
    pairs = []
    done: set[str] = set()
    for snap in sorted(snapshots, key=lambda s: s.get("date") or ""):
        for m in (snap.get("index") or {}).get("models", []):
            ident = m["identity"]
            if ident in done:
                continue
            if m["basis"] in ("estimated", "inherited"):
                last_estimate[ident] = (snap["date"], m["score"], m["basis"])
            elif m["basis"] == "measured" and ident in last_estimate:
                d, est, basis = last_estimate[ident]
                pairs.append({"identity": ident, "estimate": est, "basis": basis, "estimate_date": d,
                              "measured": m["score"], "measured_date": snap["date"], "error": est - m["score"]})
                done.add(ident)
    mae = sum(abs(p["error"]) for p in pairs) / len(pairs) if pairs else None
    return {"pairs": pairs, "mae": mae}


def compute_index_worked(index: Mapping[str, Any]) -> dict[str, Any] | None:
    """The arithmetic behind the #1 of the current index board, from its published rows."""
    current = index["boards"]["current"]
    if not current:
        return None
    by_id = {m["identity"]: m for m in index["models"]}
    top = by_id[current[0]]
    settings = index["settings"]
    fams = []
    for fam in FAMILIES:
        rows = [{**o, "w": o["share"] * o["confidence"] / 100} for o in top["observations"] if o["family"] == fam]
        rows = [o for o in rows if o["w"] > 0]
        if rows:
            fams.append({"family": fam, "rows": rows, "wsum": sum(o["w"] for o in rows), "score": top["families"][fam]})
    out = {"name": top["name"], "identity": top["identity"], "score": top["score"], "basis": top["basis"], "families": fams}
    if top["basis"] == "measured":
        g = top["families"]["general"]
        bound = settings["delta_bound"]
        deltas = []
        for f in SPECIALISTS:
            if f in top["families"]:
                wgt = settings["family_weights"].get(f, 0.0)
                deltas.append({"family": f, "score": top["families"][f], "weight": wgt,
                               "contribution": wgt / 100 * clamp(top["families"][f] - g, -bound, bound)})
        out.update(general=g, bound=bound, deltas=deltas,
                   raw_score=clamp(g + sum(d["contribution"] for d in deltas), 0.0, 100.0))
    return out


def render_index(w: SiteWriter) -> None:
    snap = w.common["snap"]
    index = snap["index"]
    by_id = {m["identity"]: m for m in index["models"]}
    boards = []
    for key in ("current", "allVersions"):
        title, description, csv_name = BOARD_TEXT[key]
        rows = [{**by_id[i], "rank": n} for n, i in enumerate(index["boards"][key], 1)]
        boards.append({"id": key.lower(), "title": title, "description": description, "csv": csv_name, "rows": rows})
    accuracy = compute_estimate_accuracy([*w.common.get("history", []), snap])
    w.page("capability-index/index.html", "index_board.html", title="Capability Index", section="index",
           description="The Capability Index: a 0-100 ranking with current and all-versions boards.",
           index=index, method=index["settings"], boards=boards, families=list(FAMILIES),
           accuracy=accuracy, index_licence=INDEX_LICENCE)


FILE_TEXT = {
    "evidence.json": ("The Capability Index: every model's rows, family scores, fusion terms, score, confidence and ranks.", INDEX_LICENCE),
    "boards-evidence.json": ("The role boards: calibrations, usable observations, family means, R, displayed scores, ranks and labels; the bootstrap's seed, Arena intervals and fit residuals, and every interval, rank range, Rank (UB), P(rank 1), tie and top-20 matrix.", "CC BY-SA 4.0"),
    "index-current.csv": ("The Capability Index board of current versions.", INDEX_LICENCE),
    "index-all-versions.csv": ("The Capability Index board of all versions.", INDEX_LICENCE),
    "recompute.py": ("The rebuild script (standard library only).", "MIT"),
    "recompute.ipynb": ("The same script as notebook cells.", "MIT"),
    "README.md": ("What each file holds, licences and attribution.", "CC BY 4.0"),
}


def render_evidence(w: SiteWriter) -> None:
    snap = w.common["snap"]
    files = compute_evidence_files(snap, w.common["base_url"])
    for name, text in files.items():
        w.file(f"data/{name}", text)
    worked = compute_index_worked(snap["index"]) if snap.get("index") else None
    w.page("evidence/index.html", "evidence.html", title="Evidence", section="evidence",
           description="Download the evidence and rebuild every published number with the standard library.",
           files=[{"name": n, "what": FILE_TEXT[n][0], "licence": FILE_TEXT[n][1]} for n in files],
           worked=worked)


def register() -> None:
    register_section(Section("index", "Index", "capability-index/", render_index,
                             available=lambda snap, history: bool(snap and snap.get("index"))))
    register_section(Section("evidence", "Evidence", "evidence/", render_evidence,
                             available=lambda snap, history: bool(snap and snap.get("boards"))))
