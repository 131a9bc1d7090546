"""The Arena flip evidence ``data/arena-flips.json``: what ``recompute.py`` needs to refit every
published vote flip budget of a plain Bradley-Terry board with the standard library.

Shape (camelCase like the other evidence files)::

    {"boards": [{
        "id": "arena" | "arena/<category>" | "arenas/<id>" | "arenas/<id>/<category>",
        "title": "...", "page": "arena/",            # the board's page, relative to the site root
        "fit": "plain",                               # the styled budgets are on the page; not refitted here
        "scale": 400, "base": 10, "init": 1000, "reweight": false, "minPair": 50,
        "models": [...],                              # spellings; counts index into them
        "counts": {"i": [...], "j": [...], "winsI": [...], "winsJ": [...], "ties": [...]},
        "ratings": {model: rating},                   # the published plain ratings (a warm start)
        "flips": [{"higher", "lower", "position", "gap", "approxVotes", "votes", "flipped",
                   "checkedVotes", "minimal", "upperBound", "nVotes", "share", "gapAfter",
                   "removed": [{"modelA", "modelB", "outcome", "count"}]}]
    }]}

The boards are the text arena's main board and its category boards, then each further arena's.
"""

from __future__ import annotations

from typing import Any

from builder.snapshot.models import Arena, ArenaFlip, Snapshot

FILE = "arena-flips.json"


def _flip(f: ArenaFlip) -> dict[str, Any]:
    return {"higher": f.higher, "lower": f.lower, "position": f.position, "gap": f.gap,
            "approxVotes": f.approx_votes, "votes": f.votes, "flipped": f.flipped, "checkedVotes": f.checked_votes,
            "minimal": f.minimal, "upperBound": f.upper_bound, "nVotes": f.n_votes, "share": f.share,
            "gapAfter": f.gap_after,
            "removed": [{"modelA": v.model_a, "modelB": v.model_b, "outcome": v.outcome, "count": v.count}
                        for v in f.removed]}


def _board(a: Arena, board_id: str, title: str, page: str) -> dict[str, Any] | None:
    pc = a.pair_counts
    if pc is None or not a.flips:
        return None
    m = a.method
    return {"id": board_id, "title": title, "page": page, "fit": "plain", "scale": m.scale, "base": m.base,
            "init": m.init, "reweight": pc.reweight, "minPair": pc.min_pair,
            "models": list(pc.models),
            "counts": {"i": list(pc.i), "j": list(pc.j), "winsI": list(pc.wins_i), "winsJ": list(pc.wins_j),
                       "ties": list(pc.ties)},
            "ratings": {r.model: r.rating for r in a.models},
            "flips": [_flip(f) for f in a.flips]}


def arena_boards_of(snapshot: Snapshot) -> list[tuple[Arena, str, str, str]]:
    """(section, id, title, page) of every fitted Arena board, text arena first."""
    out: list[tuple[Arena, str, str, str]] = []
    arenas: list[tuple[Arena, str, str, str]] = []
    if snapshot.arena is not None:
        arenas.append((snapshot.arena, "arena", "Arena", "arena/"))
    for a in snapshot.arenas:
        if a.arena_id:
            arenas.append((a, f"arenas/{a.arena_id}", f"Arena: {a.title or a.arena_id}", f"arenas/{a.arena_id}/"))
    for a, aid, title, page in arenas:
        out.append((a, aid, title, page))
        for cat in a.categories:
            if cat.category is not None:
                out.append((cat, f"{aid}/{cat.category.id}", f"{title}: {cat.category.title}",
                            f"{page}{cat.category.id}/"))
    return out


def compute_flips_evidence(snapshot: Snapshot) -> dict[str, Any] | None:
    """``arena-flips.json`` (see the module docstring), or None when no board has flip budgets."""
    boards = [b for b in (_board(*x) for x in arena_boards_of(snapshot)) if b is not None]
    return {"boards": boards} if boards else None


__all__ = ["FILE", "arena_boards_of", "compute_flips_evidence"]
