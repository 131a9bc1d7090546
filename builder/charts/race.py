"""The bar-chart race's data: dated snapshots -> race frames (downloadable JSON).

The page that animates them is ``builder.render.pages.race``.

Two histories, each a list of dated frames:

- role boards: one frame per saved snapshot (oldest first, one per UTC date), per board;
- Arena: one frame per cumulative history slice of the current snapshot's ``arena`` section.

A frame holds EVERY ranked model of that board on that date, not only the top N, so the page
can move a bar in from (or out to) its true position below the visible cut. Values are
unrounded: ``value`` is the board's R (Arena scale) or the Bradley-Terry rating; ``score`` is
the displayed integer (the snapshot's own ``score`` for boards, Python's half-even ``round``
of the rating for the Arena). The page interpolates values between frames and re-sorts by
the interpolated value, so a rank swap is a smooth crossing of two bars.

Downloads written into the site::

    data/race/boards.json  {"kind": "boards", "colours": {identity: "#rrggbb"},
                            "boards": [{"id", "title", "unit", "frames": [FRAME, ...]}]}
    data/race/arena.json   {"kind": "arena", "id": "arena", "title", "unit",
                            "frames": [FRAME, ...], "colours": {key: "#rrggbb"}}

    FRAME = {"date": "YYYY-MM-DD", "method_id"?, "n_battles"?,
             "models": [{"identity", "name", "value", "rank", "score", "partial",
                         "movement"?, "lower"?, "upper"?, "matches"?}, ...]}   # by rank, then name
                                                            # matches: Arena battles so far

Each ``name`` is written as a bidi isolate (FSI ... PDI, ``builder.charts.script_json``).

Colour: each identity gets one colour of Paul Tol's colour-blind-safe "muted" palette, from
the first 8 hex digits of SHA-256(identity) modulo the palette size, so a model keeps its
colour across frames, boards, builds and machines (never Python's salted ``hash``).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from builder.charts.script_json import dump_script_json
from builder.snapshot.models import Arena, ModelFacts, Snapshot

PALETTE = (
    "#CC6677", "#332288", "#DDCC77", "#117733", "#88CCEE", "#882255", "#44AA99", "#999933", "#AA4499",
)
"Paul Tol's 'muted' qualitative scheme (colour-blind safe)."

BOARDS_JSON = "data/race/boards.json"
ARENA_JSON = "data/race/arena.json"
BOARD_UNIT = "R (Arena scale)"
ARENA_UNIT = "Bradley-Terry rating (Arena scale)"
ARENA_TITLE = "Arena (Bradley-Terry)"


# --------------------------------------------------------------------------- frames


def colour_of(identity: str) -> str:
    """The identity's colour: ``PALETTE[int(sha256(identity)[:8], 16) % len(PALETTE)]``."""
    digest = hashlib.sha256(identity.encode("utf-8")).hexdigest()
    return PALETTE[int(digest[:8], 16) % len(PALETTE)]


def order_snapshots(snapshots: Iterable[Snapshot | None]) -> list[Snapshot]:
    """The snapshots, oldest first, one per date (the first given wins); None entries skipped."""
    seen: dict[str, Snapshot] = {}
    for s in snapshots:
        if s is not None and s.date not in seen:
            seen[s.date] = s
    return [seen[d] for d in sorted(seen)]


def _frame_sort(entries: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return sorted(entries, key=lambda e: (e["rank"], e["name"].casefold(), e["identity"]))


def compute_board_frames(snapshots: Sequence[Snapshot], board_id: str) -> dict[str, Any]:
    """One board's race: ``{"id", "title", "unit", "frames"}``, one frame per snapshot holding it.

    ``snapshots`` in any order (ordered and de-duplicated by date here). A frame lists every
    ranked row of the board: ``value`` = unrounded R (Arena scale), ``rank`` = the snapshot's
    competition rank, ``score`` = its displayed integer, ``partial``, ``movement`` (as saved:
    int, "new" or null) and the display ``name``. Rows of the "new" strip have no rank and
    are not in the race. A snapshot without the board adds no frame; a board with no ranked
    rows that day adds an empty frame.
    """
    frames: list[dict[str, Any]] = []
    title = board_id
    for snap in order_snapshots(snapshots):
        board = snap.board(board_id)
        if board is None:
            continue
        title = board.title or board_id
        entries = []
        for row in board.rows:
            if row.rank is None:
                continue
            entries.append({
                "identity": row.identity,
                "name": row.model or row.identity,
                "value": row.r,
                "rank": row.rank,
                "score": row.score,
                "partial": row.partial,
                "movement": row.movement,
            })
        frames.append({"date": snap.date, "method_id": snap.method_id, "models": _frame_sort(entries)})
    return {"id": board_id, "title": title, "unit": BOARD_UNIT, "frames": frames}


def spelling_index(models: Mapping[str, ModelFacts]) -> dict[str, tuple[str, str]]:
    """Spelling (exact, then case-folded) -> (identity, display name), from a snapshot's ``models``."""
    index: dict[str, tuple[str, str]] = {}
    for ident, info in models.items():
        name = info.name or ident
        for s in [ident, *info.spellings]:
            index.setdefault(s, (ident, name))
            index.setdefault(s.casefold(), (ident, name))
    return index


def arena_keys(models: Mapping[str, ModelFacts], spellings: Iterable[str]) -> tuple[dict[str, tuple[str, str]],
                                                                                 dict[str, str]]:
    """(spelling -> (race key, display name), race key -> colour) for Arena spellings.

    A spelling that is the only one (among ``spellings``) of an identity in ``models`` takes
    that identity and its display name, so it keys and colours the same as on the boards;
    spellings that share an identity (effort variants) or match none stay their own key and
    name, with the shared identity's colour.
    """
    index = spelling_index(models)
    folded = {sp: index.get(sp) or index.get(sp.casefold()) for sp in sorted(set(spellings))}
    per_identity: dict[str, int] = {}
    for hit in folded.values():
        if hit is not None:
            per_identity[hit[0]] = per_identity.get(hit[0], 0) + 1
    key: dict[str, tuple[str, str]] = {}
    colours: dict[str, str] = {}
    for sp, hit in folded.items():
        key[sp] = hit if hit is not None and per_identity[hit[0]] == 1 else (sp, sp)
        colours[key[sp][0]] = colour_of(hit[0] if hit is not None else sp)
    return key, colours


def compute_arena_frames(snapshot: Snapshot | None, section: Arena | None = None) -> dict[str, Any]:
    """The Arena race: one frame per slice of the snapshot's Arena ``history`` (cumulative).

    ``value`` = Bradley-Terry rating (Arena scale), ``rank`` = the slice's rank, ``score`` =
    ``round(value)`` (half to even), ``lower``/``upper`` when the slice has intervals,
    ``matches`` (the model's battles up to the slice) when the history carries it,
    ``n_battles`` per frame. Spellings key as ``arena_keys`` says. No Arena section or no
    history: no frames. ``section``: another Arena section of the snapshot to play (a category
    board: id ``arena-<category>``, its title after the Arena's).
    """
    arena = section if section is not None else snapshot.arena if snapshot is not None else None
    slices = arena.history if arena is not None else ()
    spellings = {m.model for sl in slices for m in sl.models if m.rating is not None}
    key, colours = arena_keys(snapshot.models if snapshot is not None else {}, spellings)
    frames: list[dict[str, Any]] = []
    for sl in slices:
        entries = []
        for m in sl.models:
            if m.rating is None:
                continue
            ident, name = key[m.model]
            entry: dict[str, Any] = {"identity": ident, "name": name, "value": m.rating,
                                     "rank": m.rank, "score": round(m.rating), "partial": False}
            if m.lower is not None and m.upper is not None:
                entry["lower"], entry["upper"] = m.lower, m.upper
            if m.matches is not None:
                entry["matches"] = m.matches
            entries.append(entry)
        frames.append({"date": sl.date, "models": _frame_sort(entries), "n_battles": sl.n_battles})
    frames.sort(key=lambda f: f["date"])
    if section is not None and (section.category is not None or section.arena_id):
        race_id = f"arenas-{section.arena_id}" if section.arena_id else "arena"
        title = f"Arena: {section.title or section.arena_id}" if section.arena_id else "Arena"
        if section.category is not None:
            race_id, title = f"{race_id}-{section.category.id}", f"{title}: {section.category.title}"
        return {"id": race_id, "title": f"{title} (Bradley-Terry)", "unit": ARENA_UNIT, "frames": frames,
                "colours": colours}
    return {"id": "arena", "title": ARENA_TITLE, "unit": ARENA_UNIT, "frames": frames, "colours": colours}


def arena_race_path(race_id: str) -> str:
    """Where the race document of an Arena board is written (``data/race/<id>.json``)."""
    return ARENA_JSON if race_id == "arena" else f"data/race/{race_id}.json"


def compute_arena_board_races(snapshot: Snapshot | None) -> list[dict[str, Any]]:
    """The race documents of the Arena's category boards, then of each further arena and its
    category boards (``kind`` arena), in site.yml order."""
    if snapshot is None:
        return []
    sections: list[Arena] = []
    if snapshot.arena is not None:
        sections += [c for c in snapshot.arena.categories if c.category is not None]
    for a in snapshot.arenas:
        if a.arena_id:
            sections += [a, *[c for c in a.categories if c.category is not None]]
    return [{"kind": "arena", **compute_arena_frames(snapshot, s)} for s in sections]


def board_ids(snapshots: Sequence[Snapshot]) -> list[str]:
    """Every board id seen, in the newest snapshot's order, then older boards by first sight."""
    ids: list[str] = []
    for snap in reversed(order_snapshots(snapshots)):
        for b in snap.boards:
            if b.id not in ids:
                ids.append(b.id)
    return ids


def _colours(*docs: Mapping[str, Any]) -> dict[str, str]:
    idents = sorted({m["identity"] for d in docs for f in d["frames"] for m in f["models"]})
    return {i: colour_of(i) for i in idents}


def compute_race_data(
    snapshots: Sequence[Snapshot], current: Snapshot | None
) -> tuple[dict[str, Any], dict[str, Any]]:
    """(boards document, arena document) as written to ``data/race/``.

    ``snapshots`` are the earlier snapshots; only those dated up to ``current``'s date are
    used (a past day re-renders as it was). ``current`` may be None (history only).
    """
    pool = order_snapshots([current, *snapshots])
    if current is not None:
        pool = [s for s in pool if s.date <= current.date]
    boards = [compute_board_frames(pool, bid) for bid in board_ids(pool)]
    arena = compute_arena_frames(current)
    boards_doc = {"kind": "boards", "colours": _colours(*boards), "boards": boards}
    arena_doc = {"kind": "arena", **arena}
    return boards_doc, arena_doc


def dump_race_doc(doc: Mapping[str, Any]) -> str:
    """A race document as written to the site: compact JSON, one trailing newline, every name
    a bidi isolate (``builder.charts.script_json``)."""
    return dump_script_json(doc)


def _write(out: Path, rel: str, doc: Mapping[str, Any]) -> Path:
    path = out / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", encoding="utf-8", newline="\n") as fh:
        fh.write(dump_race_doc(doc))
    return path


def write_race_data(
    out_site_dir: Path, snapshots: Sequence[Snapshot], current: Snapshot | None
) -> list[Path]:
    """Write ``data/race/boards.json`` and ``data/race/arena.json`` under ``out_site_dir``."""
    boards_doc, arena_doc = compute_race_data(snapshots, current)
    out = Path(out_site_dir)
    return [_write(out, BOARDS_JSON, boards_doc), _write(out, ARENA_JSON, arena_doc)]


__all__ = [
    "ARENA_JSON",
    "BOARDS_JSON",
    "PALETTE",
    "board_ids",
    "colour_of",
    "arena_race_path",
    "compute_arena_board_races",
    "compute_arena_frames",
    "compute_board_frames",
    "compute_race_data",
    "dump_race_doc",
    "order_snapshots",
    "write_race_data",
]
