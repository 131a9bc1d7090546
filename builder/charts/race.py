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
                         "movement"?, "lower"?, "upper"?}, ...]}   # by rank, then name

Colour: each identity gets one colour of Paul Tol's colour-blind-safe "muted" palette, from
the first 8 hex digits of SHA-256(identity) modulo the palette size, so a model keeps its
colour across frames, boards, builds and machines (never Python's salted ``hash``).
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Iterable, Mapping, Sequence
from datetime import date
from pathlib import Path
from typing import Any

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


def _finite(x: Any) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)


def _iso_day(x: Any) -> str | None:
    if not isinstance(x, str) or len(x) != 10:
        return None
    try:
        return date.fromisoformat(x).isoformat()
    except ValueError:
        return None


def order_snapshots(snapshots: Iterable[Mapping[str, Any] | None]) -> list[Mapping[str, Any]]:
    """Snapshots with a valid ISO date, oldest first, one per date (the first given wins)."""
    seen: dict[str, Mapping[str, Any]] = {}
    for s in snapshots:
        if not isinstance(s, Mapping):
            continue
        day = _iso_day(s.get("date"))
        if day is not None and day not in seen:
            seen[day] = s
    return [seen[d] for d in sorted(seen)]


def _board(snapshot: Mapping[str, Any], board_id: str) -> Mapping[str, Any] | None:
    for b in snapshot.get("boards") or []:
        if isinstance(b, Mapping) and b.get("id") == board_id:
            return b
    return None


def _frame_sort(entries: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return sorted(entries, key=lambda e: (e["rank"], e["name"].casefold(), e["identity"]))


def compute_board_frames(snapshots: Sequence[Mapping[str, Any]], board_id: str) -> dict[str, Any]:
    """One board's race: ``{"id", "title", "unit", "frames"}``, one frame per snapshot holding it.

    ``snapshots`` in any order (ordered and de-duplicated by date here). A frame lists every
    ranked row of the board (rank not null, finite R): ``value`` = unrounded R (Arena scale),
    ``rank`` = the snapshot's competition rank, ``score`` = its displayed integer, ``partial``,
    ``movement`` (as saved: int, "new" or null) and the display ``name``. Rows of the "new"
    strip have no rank and are not in the race. A snapshot without the board adds no frame;
    a board with no ranked rows that day adds an empty frame.
    """
    frames: list[dict[str, Any]] = []
    title = board_id
    for snap in order_snapshots(snapshots):
        board = _board(snap, board_id)
        if board is None:
            continue
        title = str(board.get("title") or board_id)
        entries = []
        for row in board.get("rows") or []:
            rank, r, ident = row.get("rank"), row.get("r"), row.get("identity")
            if not isinstance(rank, int) or isinstance(rank, bool) or not _finite(r) or not ident:
                continue
            score = row.get("score")
            entries.append({
                "identity": str(ident),
                "name": str(row.get("model") or ident),
                "value": float(r),
                "rank": rank,
                "score": score if isinstance(score, int) and not isinstance(score, bool) else round(float(r)),
                "partial": bool(row.get("partial")),
                "movement": row.get("movement") if row.get("movement") == "new" or (
                    isinstance(row.get("movement"), int) and not isinstance(row.get("movement"), bool)) else None,
            })
        frames.append({"date": snap["date"], "method_id": snap.get("method_id"), "models": _frame_sort(entries)})
    return {"id": board_id, "title": title, "unit": BOARD_UNIT, "frames": frames}


def _spelling_index(snapshot: Mapping[str, Any]) -> dict[str, tuple[str, str]]:
    """Spelling (exact, then case-folded) -> (identity, display name), from ``snapshot["models"]``."""
    index: dict[str, tuple[str, str]] = {}
    for ident, info in (snapshot.get("models") or {}).items():
        info = info if isinstance(info, Mapping) else {}
        name = str(info.get("name") or ident)
        for s in [ident, *(info.get("spellings") or [])]:
            if isinstance(s, str):
                index.setdefault(s, (ident, name))
                index.setdefault(s.casefold(), (ident, name))
    return index


def compute_arena_frames(snapshot: Mapping[str, Any] | None) -> dict[str, Any]:
    """The Arena race: one frame per ``snapshot["arena"]["history"]`` slice (cumulative).

    ``value`` = Bradley-Terry rating (Arena scale), ``rank`` = the slice's rank, ``score`` =
    ``round(value)`` (half to even), ``lower``/``upper`` when the slice has intervals,
    ``n_battles`` per frame. The Arena rates spellings: a spelling that is the only Arena
    spelling of a board identity (through the snapshot's ``models`` spellings) takes that
    identity and display name, so it keys and colours the same as on the boards; spellings
    that share an identity (effort variants) or match none stay their own key and name, with
    the shared identity's colour. No Arena section or no history: no frames.
    """
    arena = (snapshot or {}).get("arena")
    history = arena.get("history") if isinstance(arena, Mapping) else None
    index = _spelling_index(snapshot or {})
    slices = [sl for sl in history or [] if isinstance(sl, Mapping) and _iso_day(sl.get("date")) is not None]

    def usable(m: Any) -> bool:
        return (isinstance(m, Mapping) and isinstance(m.get("model"), str) and _finite(m.get("rating"))
                and isinstance(m.get("rank"), int) and not isinstance(m.get("rank"), bool))

    spellings = sorted({m["model"] for sl in slices for m in sl.get("models") or [] if usable(m)})
    folded = {sp: index.get(sp) or index.get(sp.casefold()) for sp in spellings}
    per_identity: dict[str, int] = {}
    for hit in folded.values():
        if hit is not None:
            per_identity[hit[0]] = per_identity.get(hit[0], 0) + 1
    key: dict[str, tuple[str, str]] = {}  # spelling -> (race key, display name)
    colours: dict[str, str] = {}
    for sp, hit in folded.items():
        if hit is not None and per_identity[hit[0]] == 1:
            key[sp] = hit
        else:
            key[sp] = (sp, sp)
        colours[key[sp][0]] = colour_of(hit[0] if hit is not None else sp)

    frames: list[dict[str, Any]] = []
    for sl in slices:
        entries = []
        for m in sl.get("models") or []:
            if not usable(m):
                continue
            ident, name = key[m["model"]]
            entry: dict[str, Any] = {"identity": ident, "name": name, "value": float(m["rating"]),
                                     "rank": m["rank"], "score": round(float(m["rating"])), "partial": False}
            if _finite(m.get("lower")) and _finite(m.get("upper")):
                entry["lower"], entry["upper"] = float(m["lower"]), float(m["upper"])
            entries.append(entry)
        frame: dict[str, Any] = {"date": sl["date"], "models": _frame_sort(entries)}
        if isinstance(sl.get("n_battles"), int):
            frame["n_battles"] = sl["n_battles"]
        frames.append(frame)
    frames.sort(key=lambda f: f["date"])
    return {"id": "arena", "title": ARENA_TITLE, "unit": ARENA_UNIT, "frames": frames, "colours": colours}


def board_ids(snapshots: Sequence[Mapping[str, Any]]) -> list[str]:
    """Every board id seen, in the newest snapshot's order, then older boards by first sight."""
    ordered = order_snapshots(snapshots)
    ids: list[str] = []
    for snap in [*reversed(ordered)]:
        for b in snap.get("boards") or []:
            if isinstance(b, Mapping) and isinstance(b.get("id"), str) and b["id"] not in ids:
                ids.append(b["id"])
    return ids


def _colours(*docs: Mapping[str, Any]) -> dict[str, str]:
    idents = sorted({m["identity"] for d in docs for f in d["frames"] for m in f["models"]})
    return {i: colour_of(i) for i in idents}


def compute_race_data(
    snapshots: Sequence[Mapping[str, Any]], current: Mapping[str, Any] | None
) -> tuple[dict[str, Any], dict[str, Any]]:
    """(boards document, arena document) as written to ``data/race/``.

    ``snapshots`` are the earlier snapshots; only those dated up to ``current``'s date are
    used (a past day re-renders as it was). ``current`` may be None (history only).
    """
    day = _iso_day((current or {}).get("date"))
    pool = order_snapshots([current, *snapshots])
    if day is not None:
        pool = [s for s in pool if s["date"] <= day]
    boards = [compute_board_frames(pool, bid) for bid in board_ids(pool)]
    arena = compute_arena_frames(current)
    boards_doc = {"kind": "boards", "colours": _colours(*boards), "boards": boards}
    arena_doc = {"kind": "arena", **arena}
    return boards_doc, arena_doc


def dump_race_doc(doc: Mapping[str, Any]) -> str:
    """A race document as written to the site: compact JSON, one trailing newline."""
    return json.dumps(doc, ensure_ascii=False, allow_nan=False, separators=(",", ":")) + "\n"


def _write(out: Path, rel: str, doc: Mapping[str, Any]) -> Path:
    path = out / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", encoding="utf-8", newline="\n") as fh:
        fh.write(dump_race_doc(doc))
    return path


def write_race_data(
    out_site_dir: Path, snapshots: Sequence[Mapping[str, Any]], current: Mapping[str, Any] | None
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
    "compute_arena_frames",
    "compute_board_frames",
    "compute_race_data",
    "dump_race_doc",
    "order_snapshots",
    "write_race_data",
]
