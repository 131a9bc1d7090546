"""The Capability Index page, the Evidence page and the evidence downloads.

Both render only from the snapshot (and, for the estimate accuracy, the earlier snapshots).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from builder.evidence.export import compute_evidence_files
from builder.evidence.flips import BATTLES_PREFIX
from builder.render.writer import SiteWriter, Snap, current
from builder.snapshot.models import CapabilityIndex, IndexSettings
from builder.util.formats import INDEX_LICENCE


def index_families(settings: IndexSettings) -> tuple[list[str], list[str]]:
    """(every index family in the order the settings list its boards, the specialists).

    The specialists are the families with a fusion weight (``family_weights``); the other
    family is the base (general) score they adjust.
    """
    families: list[str] = []
    for b in settings.boards:
        if b.family not in families:
            families.append(b.family)
    weights = settings.family_weights
    for f in weights:
        if f not in families:
            families.append(f)
    return families, [f for f in families if f in weights]


def _clamp(x: float, lo: float, hi: float) -> float:
    return lo if x < lo else hi if x > hi else x


BOARD_TEXT = {
    "current": ("Current versions", "The newest version of each model line.", "index-current.csv", "current"),
    "all_versions": ("All versions", "Every scored model, older versions included.", "index-all-versions.csv",
                     "allversions"),
}
"Index board -> (title, description, CSV download, page anchor id)."


def compute_estimate_accuracy(snapshots: Sequence[Snap]) -> dict[str, Any]:
    """For every model whose index basis moved from estimated/inherited to measured across
    the snapshots (oldest first): its last estimate beside its first measurement, and the MAE."""
    last_estimate: dict[str, tuple[str, float, str]] = {}
    pairs: list[dict[str, Any]] = []
    done: set[str] = set()
    for snap in sorted(snapshots, key=lambda s: s.date):
        for m in snap.index.models if snap.index else ():
            ident = m.identity
            if ident in done:
                continue
            if m.basis in ("estimated", "inherited"):
                last_estimate[ident] = (snap.date, m.score, m.basis)
            elif m.basis == "measured" and ident in last_estimate:
                d, est, basis = last_estimate[ident]
                pairs.append({"identity": ident, "estimate": est, "basis": basis, "estimate_date": d,
                              "measured": m.score, "measured_date": snap.date, "error": est - m.score})
                done.add(ident)
    mae = sum(abs(p["error"]) for p in pairs) / len(pairs) if pairs else None
    return {"pairs": pairs, "mae": mae}


def compute_index_worked(index: CapabilityIndex) -> dict[str, Any] | None:
    """The arithmetic behind the #1 of the current index board, from its published rows."""
    current_board = index.boards.current
    if not current_board:
        return None
    by_id = {m.identity: m for m in index.models}
    top = by_id[current_board[0]]
    settings = index.settings
    families, specialists = index_families(settings)
    fams: list[dict[str, Any]] = []
    for fam in families:
        rows = [{**o.model_dump(), "w": o.share * o.confidence / 100} for o in top.observations if o.family == fam]
        rows = [o for o in rows if o["w"] > 0]
        if rows:
            fams.append({"family": fam, "rows": rows, "wsum": sum(o["w"] for o in rows), "score": top.families[fam]})
    out: dict[str, Any] = {"name": top.name, "identity": top.identity, "score": top.score, "basis": top.basis,
                           "families": fams}
    if top.basis == "measured":
        g = top.families["general"]
        bound = settings.delta_bound
        deltas: list[dict[str, Any]] = []
        for f in specialists:
            if f in top.families:
                wgt = settings.family_weights.get(f, 0.0)
                deltas.append({"family": f, "score": top.families[f], "weight": wgt,
                               "contribution": wgt / 100 * _clamp(top.families[f] - g, -bound, bound)})
        out.update(general=g, bound=bound, deltas=deltas,
                   raw_score=_clamp(g + sum(d["contribution"] for d in deltas), 0.0, 100.0))
    return out


def render_index(w: SiteWriter) -> None:
    snap = current(w)
    index = snap.index
    if index is None:
        raise ValueError("the Capability Index page needs an index section")
    by_id = {m.identity: m for m in index.models}
    boards = []
    for key in ("current", "all_versions"):
        title, description, csv_name, anchor = BOARD_TEXT[key]
        rows = [{**by_id[i].model_dump(), "rank": n} for n, i in enumerate(getattr(index.boards, key), 1)]
        boards.append({"id": anchor, "title": title, "description": description, "csv": csv_name, "rows": rows})
    accuracy = compute_estimate_accuracy([*w.history, snap])
    w.page("capability-index/index.html", "index_board.html", title="Capability Index", section="index",
           description="The Capability Index: a 0-100 ranking with current and all-versions boards.",
           index=index, method=index.settings, boards=boards, families=index_families(index.settings)[0],
           accuracy=accuracy, index_licence=INDEX_LICENCE)


FILE_TEXT = {
    "evidence.json": ("The Capability Index: every model's rows, family scores, fusion terms, score, confidence "
                      "and ranks.", INDEX_LICENCE),
    "boards-evidence.json": ("The role boards: calibrations, usable observations, family means, R, displayed "
                             "scores, ranks and labels; the bootstrap's seed, Arena intervals and fit residuals, "
                             "and every interval, rank range, Rank (UB), P(rank 1), tie and top-20 matrix.",
                             "CC BY-SA 4.0"),
    "index-current.csv": ("The Capability Index board of current versions.", INDEX_LICENCE),
    "index-all-versions.csv": ("The Capability Index board of all versions.", INDEX_LICENCE),
    "arena-flips.json": ("Each Arena board's pair-outcome vote counts, plain ratings and vote flip budgets, "
                         "and the style-controlled fits' settings, ratings and budgets, for refitting without "
                         "the removed votes.", "CC BY-SA 4.0"),
    BATTLES_PREFIX: ("The battles of one board's style-controlled fit in file order (gzip CSV: model codes, "
                     "outcome, raw style features), for refitting its flip budgets.", "CC BY-SA 4.0"),
    "recompute.py": ("The rebuild script (standard library only).", "MIT"),
    "recompute.ipynb": ("The same script as notebook cells.", "MIT"),
    "README.md": ("What each file holds, licences and attribution.", "CC BY 4.0"),
}


def file_text(name: str) -> tuple[str, str]:
    """(what it holds, licence) of a download (a styled board's battles by their common prefix)."""
    return FILE_TEXT[BATTLES_PREFIX if name.startswith(BATTLES_PREFIX) else name]


def write_evidence_files(w: SiteWriter) -> list[str]:
    """Write the evidence downloads (``data/``) once per render; their file names, in order.

    The page list runs it before any page (``Page.first``), so the build's verify can start
    ``recompute.py`` on them while the pages are rendered."""
    def write() -> list[str]:
        files = compute_evidence_files(current(w), w.common["base_url"])
        for name, text in files.items():
            w.file(f"data/{name}", text)
        return list(files)

    return w.cached("evidence_files", write)


def render_evidence(w: SiteWriter) -> None:
    snap = current(w)
    files = write_evidence_files(w)
    worked = compute_index_worked(snap.index) if snap.index else None
    w.page("evidence/index.html", "evidence.html", title="Evidence", section="evidence",
           description="Download the evidence and rebuild every published number with the standard library.",
           files=[{"name": n, "what": file_text(n)[0], "licence": file_text(n)[1]} for n in files],
           worked=worked)


def index_available(snap: Snap | None, history: Sequence[Snap]) -> bool:
    """The Capability Index page: built when the snapshot has an index section."""
    return bool(snap and snap.index)


def evidence_available(snap: Snap | None, history: Sequence[Snap]) -> bool:
    """The Evidence page: built when the snapshot has boards."""
    return bool(snap and snap.boards)
