"""The Arena flip evidence ``data/arena-flips.json``: what ``recompute.py`` needs to refit every
published vote flip budget with the standard library, and the style-controlled fits' battles
(``data/styled-battles-<board>.csv.gz``).

Shape (camelCase like the other evidence files)::

    {"boards": [{
        "id": "arena" | "arena/<category>" | "arenas/<id>" | "arenas/<id>/<category>",
        "title": "...", "page": "arena/",            # the board's page, relative to the site root
        "fit": "plain",
        "scale": 400, "base": 10, "init": 1000, "reweight": false, "minPair": 50,
        "models": [...],                              # spellings; counts index into them
        "counts": {"i": [...], "j": [...], "winsI": [...], "winsJ": [...], "ties": [...]},
        "ratings": {model: rating},                   # the published plain ratings (a warm start)
        "flips": [{"higher", "lower", "position", "gap", "approxVotes", "votes", "flipped",
                   "checkedVotes", "minimal", "upperBound", "nVotes", "share", "gapAfter",
                   "removed": [{"modelA", "modelB", "outcome", "count"}]}]
    }, {
        "id": ..., "title": ..., "page": ..., "fit": "style",   # the same board's styled budgets
        "scale", "base", "init", "reweight", "minPair",
        "reg": 1.0,                                   # lambda of the penalty (lambda / 2) |beta|^2
        "standardisation": "...", "weighting": "...", # the rules, in words
        "features": [...], "models": [...],           # the CSV's feature columns; its model codes
        "battles": "styled-battles-arena.csv.gz", "columns": "...", "nBattles": 25542,
        "ratings": {model: rating},                   # the published styled ratings
        "coefficients": {feature: {"beta", "mean", "std"}},   # published, rounded as on the page
        "flips": [...]                                # as above
    }]}

The boards are the text arena's main board and its category boards, then each further
arena's; a board's styled entry follows its plain one. The CSV (see
``builder.pairwise.flips.styled_battles_csv_gz``) holds every battle the styled fit was given,
in file order: the votes a styled budget removes from a cell are the cell's first battles.
"""

from __future__ import annotations

import base64
from typing import Any

from builder.snapshot.models import Arena, ArenaFlip, Snapshot

FILE = "arena-flips.json"
BATTLES_PREFIX = "styled-battles-"
"Start of the name of each styled board's battles download (``styled-battles-<board>.csv.gz``)."


STANDARDISATION = "(raw - mean) / sd per feature over the battles fitted; population sd, 0 read as 1"
WEIGHTING = "1 / max(battles of the unordered pair, minPair), scaled to mean 1 over the battles fitted"
BATTLE_COLUMNS = ("model_a, model_b: codes into models; outcome: 0 model_a won, 1 model_b won, 2 a tie of either "
                  "kind (half a win each); then each feature's raw value; one row per battle, in file order")


def battles_file(board_id: str) -> str:
    """The battles download of a board's styled fit: ``/`` of the board id as ``-``."""
    return f"{BATTLES_PREFIX}{board_id.replace('/', '-')}.csv.gz"


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


def _styled_board(a: Arena, board_id: str, title: str, page: str) -> dict[str, Any] | None:
    st, sb = a.style, a.style_battles
    if st is None or sb is None or not st.flips:
        return None
    m = st.method
    return {"id": board_id, "title": title, "page": page, "fit": "style", "scale": m.scale, "base": m.base,
            "init": m.init, "reweight": m.reweight, "minPair": m.min_pair_battles, "reg": m.reg,
            "standardisation": STANDARDISATION, "weighting": WEIGHTING if m.reweight else "1 per battle",
            "features": list(sb.features), "models": list(sb.models), "battles": battles_file(board_id),
            "columns": BATTLE_COLUMNS, "nBattles": sb.n_battles,
            "ratings": {r.model: r.rating for r in st.models},
            "coefficients": {c.feature: {"beta": c.beta, "mean": c.mean, "std": c.std} for c in st.coefficients},
            "flips": [_flip(f) for f in st.flips]}


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
    boards = [b for x in arena_boards_of(snapshot) for b in (_board(*x), _styled_board(*x)) if b is not None]
    return {"boards": boards} if boards else None


def compute_styled_battles_files(snapshot: Snapshot) -> dict[str, bytes]:
    """File name -> gzip CSV bytes of each styled board's battles (the boards of
    ``arena-flips.json`` with ``"fit": "style"``)."""
    out: dict[str, bytes] = {}
    for a, board_id, _, _ in arena_boards_of(snapshot):
        if a.style is not None and a.style.flips and a.style_battles is not None:
            out[battles_file(board_id)] = base64.b64decode(a.style_battles.csv_gz)
    return out


__all__ = ["BATTLES_PREFIX", "FILE", "arena_boards_of", "battles_file", "compute_flips_evidence",
           "compute_styled_battles_files"]
