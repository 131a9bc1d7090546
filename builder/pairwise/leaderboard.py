"""The printed leaderboard: read a ratings file, render it as a table, markdown or CSV.

``read_leaderboard(path)`` accepts what the ``arena`` commands write:

- a ratings file from ``arena fit --output`` (``.json``: an array of rows; ``.csv``: a header
  with ``model`` and ``rating``), shown as written;
- a history file from ``arena history --output`` (``.json``: an array of slices
  ``{date, n_battles, models}``; ``.csv``: long rows with a ``date`` column), shown at its
  newest slice;
- anything else is a battles file, returned as ``None`` so the caller fits it.

Every table ends with one footer line::

    46 models · ratings 880.6-1114.2 · mean 95% interval width 38.5

counting every model (not only the ``--top-n`` shown), the lowest and highest rating, and
the mean of ``upper - lower`` over the models with a finite interval. The interval part is
left out when no model has an interval wider than zero (a fit without bootstrap rounds).
"""

from __future__ import annotations

import csv
import io
import json
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Literal

from builder.errors import UserError

Format = Literal["table", "markdown", "csv"]
FORMATS: tuple[str, ...] = ("table", "markdown", "csv")
_PEEK_CHARS = 1 << 16


@dataclass(frozen=True, slots=True)
class LeaderboardRow:
    """One model on the printed board; ratings on the Arena scale, None where unknown."""

    model: str
    rating: float
    lower: float | None = None
    upper: float | None = None
    rank: int | None = None
    rank_ub: int | None = None
    battles: int | None = None
    win_rate: float | None = None  # (wins + ties / 2) / battles
    elo: float | None = None  # online Elo after the last battle
    truth: float | None = None  # the latent skill a simulation drew from
    component: int = 0


@dataclass(frozen=True, slots=True)
class Leaderboard:
    """Rows best first (within each connected component), what they came from, the CI level."""

    rows: tuple[LeaderboardRow, ...]
    source: str
    ci: float = 0.95


# --------------------------------------------------------------------------- reading


def _number(value: Any, where: str, name: str, *, required: bool = False) -> float | None:
    if value is None or value == "":
        if required:
            raise UserError(f"{where}: no {name}")
        return None
    if isinstance(value, bool):
        raise UserError(f"{where}: {name} {value!r} is not a number")
    try:
        x = float(value)
    except (TypeError, ValueError):
        raise UserError(f"{where}: {name} {value!r} is not a number") from None
    if not math.isfinite(x):
        if required:
            raise UserError(f"{where}: {name} {value!r} is not finite")
        return None  # an unbounded interval side
    return x


def _int(value: Any, where: str, name: str) -> int | None:
    x = _number(value, where, name)
    if x is None:
        return None
    if x != int(x):
        raise UserError(f"{where}: {name} {value!r} is not a whole number")
    return int(x)


def row_from_mapping(rec: Mapping[str, Any], where: str) -> LeaderboardRow:
    """A row from one record of a ratings or history file (``where`` names it in errors)."""
    model = rec.get("model")
    if not isinstance(model, str) or not model.strip():
        raise UserError(f"{where}: no model name")
    return LeaderboardRow(
        model=model,
        rating=_number(rec.get("rating"), where, "rating", required=True) or 0.0,
        lower=_number(rec.get("lower"), where, "lower"),
        upper=_number(rec.get("upper"), where, "upper"),
        rank=_int(rec.get("rank"), where, "rank"),
        rank_ub=_int(rec.get("rank_ub"), where, "rank_ub"),
        battles=_int(rec.get("battles"), where, "battles"),
        win_rate=_number(rec.get("win_rate"), where, "win_rate"),
        elo=_number(rec.get("elo"), where, "elo"),
        truth=_number(rec.get("truth"), where, "truth"),
        component=_int(rec.get("component"), where, "component") or 0,
    )


def order_rows(rows: Iterable[LeaderboardRow]) -> tuple[LeaderboardRow, ...]:
    """Best first within each component: by rating (descending), then model name."""
    return tuple(sorted(rows, key=lambda r: (r.component, -r.rating, r.model)))


def leaderboard_from_records(records: Sequence[Mapping[str, Any]], source: str) -> Leaderboard:
    """A leaderboard from ratings rows (the ``arena fit`` shape)."""
    rows = [row_from_mapping(rec, f"{source}: row {k + 1}") for k, rec in enumerate(records)]
    if not rows:
        raise UserError(f"{source}: no ratings")
    return Leaderboard(order_rows(rows), source)


def _peek_json(path: Path) -> Any:
    """The first element of a JSON array (or the first object of a JSON Lines file), read
    from the file's head only, so a large battles dump is never loaded to be recognised."""
    with path.open(encoding="utf-8-sig", errors="replace") as f:
        head = f.read(_PEEK_CHARS)
    text = head.lstrip()
    if text.startswith("["):
        text = text[1:].lstrip()
    try:
        first, _ = json.JSONDecoder().raw_decode(text)
    except json.JSONDecodeError:
        return None
    return first


def _load_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8-sig"))
    except json.JSONDecodeError as exc:
        raise UserError(f"{path}: line {exc.lineno}: invalid JSON: {exc.msg}") from None
    except UnicodeDecodeError as exc:
        raise UserError(f"{path}: not UTF-8 text at byte {exc.start}") from None


def _newest_slice(slices: Sequence[Any], path: Path) -> Leaderboard:
    for k, s in enumerate(slices):
        if not isinstance(s, Mapping) or not isinstance(s.get("date"), str) or not isinstance(s.get("models"), list):
            raise UserError(f"{path}: slice {k + 1}: expected {{date, n_battles, models}}")
    newest = max(slices, key=lambda s: s["date"])
    board = leaderboard_from_records(newest["models"], f"{path}: slice {newest['date']}")
    return replace(board, source=f"{path.name}, newest history slice {newest['date']}")


def read_leaderboard(path: str | Path) -> Leaderboard | None:
    """The ratings in ``path`` as a leaderboard, or None when it holds battles instead."""
    path = Path(path)
    if not path.is_file():
        raise UserError(f"{path}: file not found")
    suffix = path.suffix.lower()
    if suffix == ".json":
        first = _peek_json(path)
        if isinstance(first, Mapping) and "rating" in first and "model" in first:
            data = _load_json(path)
            if not isinstance(data, list):
                raise UserError(f"{path}: expected a JSON array of ratings")
            return replace(leaderboard_from_records(data, str(path)), source=f"{path.name} (ratings)")
        if isinstance(first, Mapping) and "models" in first and "date" in first:
            data = _load_json(path)
            if not isinstance(data, list) or not data:
                raise UserError(f"{path}: expected a JSON array of history slices")
            return _newest_slice(data, path)
        return None
    if suffix == ".csv":
        try:
            with path.open(encoding="utf-8-sig", newline="") as f:
                reader = csv.DictReader(f)
                header = reader.fieldnames or []
                if not {"model", "rating"} <= set(header):
                    return None
                records = list(reader)
        except UnicodeDecodeError as exc:
            raise UserError(f"{path}: not UTF-8 text at byte {exc.start}") from None
        if "date" in header:
            if not records:
                raise UserError(f"{path}: no ratings")
            newest = max(r["date"] for r in records)
            board = leaderboard_from_records([r for r in records if r["date"] == newest], str(path))
            return replace(board, source=f"{path.name}, newest history slice {newest}")
        return replace(leaderboard_from_records(records, str(path)), source=f"{path.name} (ratings)")
    return None


# --------------------------------------------------------------------------- rendering


def footer_line(board: Leaderboard) -> str:
    """``N models · ratings LO-HI`` and, when there are intervals, ``· mean 95% interval width W``."""
    rows = board.rows
    if not rows:
        return "0 models"
    ratings = [r.rating for r in rows]
    line = f"{len(rows)} models · ratings {min(ratings):.1f}-{max(ratings):.1f}"
    widths = [r.upper - r.lower for r in rows if r.lower is not None and r.upper is not None]
    if widths and max(widths) > 0:
        line += f" · mean {round(board.ci * 100):d}% interval width {sum(widths) / len(widths):.1f}"
        unbounded = len(rows) - len(widths)
        if unbounded:
            line += f" ({unbounded} unbounded left out)"
    return line


def _has(rows: Sequence[LeaderboardRow], name: str) -> bool:
    return any(getattr(r, name) is not None for r in rows)


def _has_intervals(rows: Sequence[LeaderboardRow]) -> bool:
    return any(r.lower != r.rating or r.upper != r.rating for r in rows if r.lower is not None or r.upper is not None)


def _columns(rows: Sequence[LeaderboardRow]) -> list[str]:
    cols = ["rank"]
    if _has(rows, "rank_ub"):
        cols.append("rank_ub")
    cols += ["model", "rating"]
    if _has_intervals(rows):
        cols += ["lower", "upper"]
    cols += [c for c in ("elo", "truth", "battles", "win_rate") if _has(rows, c)]
    return cols


_TITLES = {"rank": "rank", "rank_ub": "ub", "model": "model", "rating": "rating", "lower": "lower",
           "upper": "upper", "elo": "elo", "truth": "truth", "battles": "battles", "win_rate": "win_rate"}
_MD_TITLES = {"rank": "Rank", "rank_ub": "Rank (UB)", "model": "Model", "rating": "Rating", "lower": "Lower",
              "upper": "Upper", "elo": "Online Elo", "truth": "True skill", "battles": "Battles",
              "win_rate": "Win rate"}


def _ranked(board: Leaderboard) -> list[tuple[int, LeaderboardRow]]:
    """(rank, row): the row's own rank, else its position within its component."""
    out, pos, comp = [], 0, None
    for r in board.rows:
        pos = pos + 1 if r.component == comp else 1
        comp = r.component
        out.append((r.rank if r.rank is not None else pos, r))
    return out


def _cell(row: LeaderboardRow, col: str, rank: int) -> str:
    if col == "rank":
        return str(rank)
    if col == "model":
        return row.model
    v = getattr(row, col)
    if v is None:
        return {"lower": "-inf", "upper": "inf"}.get(col, "-")
    if col in ("rank_ub", "battles"):
        return str(v)
    if col == "win_rate":
        return f"{v:.3f}"
    return f"{v:.1f}"


def render_leaderboard(board: Leaderboard, *, top_n: int | None = None, fmt: Format = "table") -> str:
    """The board's first ``top_n`` rows (all when None) as text; table and markdown end with
    the footer line (over every row), CSV is data only. Ends with a newline."""
    if fmt not in FORMATS:
        raise UserError(f"unknown format {fmt!r} (use table, markdown or csv)")
    ranked = _ranked(board)
    shown = ranked[:top_n] if top_n is not None else ranked
    cols = _columns([r for _, r in ranked])
    if fmt == "csv":
        buf = io.StringIO()
        w = csv.writer(buf, lineterminator="\n")
        w.writerow(cols)
        for rank, r in shown:
            w.writerow(["" if (c not in ("rank", "model") and getattr(r, c) is None) else
                        (rank if c == "rank" else r.model if c == "model" else getattr(r, c)) for c in cols])
        return buf.getvalue()
    cells = [[_cell(r, c, rank) for c in cols] for rank, r in shown]
    if fmt == "markdown":
        lines = ["| " + " | ".join(_MD_TITLES[c] for c in cols) + " |",
                 "|" + "|".join("---" if c == "model" else "---:" for c in cols) + "|"]
        for row in cells:
            lines.append("| " + " | ".join(v.replace("|", "\\|") for v in row) + " |")
        more = f"\nShowing {len(shown)} of {len(ranked)}." if len(shown) < len(ranked) else ""
        return "\n".join(lines) + "\n\n" + footer_line(board) + more + "\n"
    widths = [max([len(_TITLES[c])] + [len(row[k]) for row in cells]) for k, c in enumerate(cols)]
    def line(values: Sequence[str]) -> str:
        return "  ".join(v.ljust(widths[k]) if cols[k] == "model" else v.rjust(widths[k])
                         for k, v in enumerate(values)).rstrip()
    out = [line([_TITLES[c] for c in cols])]
    out += [line(row) for row in cells]
    if len(shown) < len(ranked):
        out.append(f"... {len(ranked) - len(shown)} more (--top-n {len(ranked)} shows every model)")
    out.append(footer_line(board))
    return "\n".join(out) + "\n"


__all__ = [
    "FORMATS",
    "Format",
    "Leaderboard",
    "LeaderboardRow",
    "footer_line",
    "leaderboard_from_records",
    "order_rows",
    "read_leaderboard",
    "render_leaderboard",
    "row_from_mapping",
]
