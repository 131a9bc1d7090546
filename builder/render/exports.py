"""Downloads: each board's rows as CSV and JSON, the snapshot JSON, and their schemas.

The schemas below are the single description of every download: the writers use them for
column order and the data page prints them. Numbers are written unrounded (``repr`` of the
float, the shortest string that reads back to the same value), so anyone can recompute the
displayed scores with the standard library. Nothing here copies an upstream payload: every
value is a derived number or a fact already shown on the site, credited to its source.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Sequence
from typing import Any

from builder.snapshot.models import (
    ROW_UNCERTAINTY_FIELDS,
    Board,
    BoardPairwise,
    BoardRow,
    Snapshot,
    board_row_columns,
    board_row_values,
)
from builder.util.formats import RATING_LICENCE
from builder.util.text import csv_cell

STRIP_COLUMN = ("strip", "text", "'ranked' for the board, 'new' for the New, not enough ratings yet strip")
"The CSV's first column: which strip the row is in (the JSON download keeps the strips apart)."


def board_csv_columns(row_model: type[BoardRow] | None = None) -> tuple[tuple[str, str, str], ...]:
    """(column, type, meaning) of ``data/boards/<id>.csv``: the strip, then every column of the
    snapshot's ``BoardRow`` but ``families`` (declared there, with its description); one
    ``family_<id>`` column per family follows."""
    out = [STRIP_COLUMN]
    for c in board_row_columns(row_model):
        if c.name == "families":
            continue  # one column each (FAMILY_COLUMN)
        meaning = c.description + (" ';'-separated." if c.type == "list" else
                                   " 'key=value' pairs, ';'-separated; an empty value is null." if c.type == "map"
                                   else "")
        out.append((c.name, "text" if c.type in ("list", "map") else c.type, meaning))
    return tuple(out)


def csv_pairs(value: Any) -> Any:
    """A map column's CSV cell: ``key=value`` pairs in key order, ';'-separated (null empty); else the value."""
    if isinstance(value, dict):
        return ";".join(f"{k}={'' if v is None else v}" for k, v in sorted(value.items()))
    return value


FAMILY_COLUMN = ("family_<family>", "float", "family mean of usable calibrated scores, Arena scale; empty when absent")

BOARD_JSON_FIELDS: tuple[tuple[str, str], ...] = (
    ("board", "id, title, kind, role, description, weights {family: weight}, warning, missing_families"),
    ("date / created_at / method_id / as_of", "the snapshot the rows come from (UTC)"),
    ("stale / demo", "Arena failed at the last refresh / built from the bundled demo data"),
    ("licence / attribution", "licence of the rating table and the credit line"),
    ("sources", "every credited source: name, title, licence, attribution, homepage, published, fetched_at, status"),
    ("rows", "ranked rows, each with the CSV columns above and families {family: mean}"),
    ("new", "the New, not enough ratings yet strip (rank null)"),
    ("uncertainty", "the bootstrap: rounds, seed, interval, tie_threshold, and pairwise {identities, p_greater}: "
                    "p_greater[a][b] = P(R_a > R_b) over the rounds for the top 20 ranked rows; null when off"),
)

#: (column, meaning) of ``data/boards/<id>-pairwise.csv``.
PAIRWISE_CSV_COLUMNS: tuple[tuple[str, str], ...] = (
    ("identity", "identity key of the row model a (the board's top 20 ranked rows, in board order)"),
    ("<identity b>", "one column per model b, same order: P(R_a > R_b), the share of bootstrap rounds in which "
                     "a has the greater R (0 on the diagonal)"),
)
UNCERTAINTY_COLUMNS = ROW_UNCERTAINTY_FIELDS
"The columns a row takes from its ``uncertainty`` (the bootstrap); empty without one."

SNAPSHOT_FIELDS: tuple[tuple[str, str], ...] = (
    ("schema_version, date, created_at, method_id", "identity of the snapshot (UTC)"),
    ("method", "dated method rules it was scored under: single_source_rule (true; absent = from before "
               "single-evaluator models left the ranking)"),
    ("demo, stale, as_of, previous_date", "built from demo data; Arena failed; newest scored source date; "
     "the earlier snapshot the movement compares with"),
    ("site, sources", "the site; every stored source with status, licence, attribution, publication and fetch times"),
    ("families, roles", "the families (feeds) and role weights the boards used"),
    ("observations", "every published row: spelling, identity, raw, calibrated, date, url, selected, reason, excluded"),
    ("calibration", "per feed and release: n, overlap, mu, sigma, alpha, beta, used, reason"),
    ("models", "facts per identity: name, maker, licence, open_weight, params_b, context_window, release_date"),
    ("prices", "token price entries (per token, blended per million) and PirateBench build records"),
    ("boards, machines, stacks", "the published rows, home-computer picks, best and value stacks"),
    ("uncertainty", "the boards' bootstrap settings (rounds, seed, interval, tie_threshold, pairwise_top, "
                    "draws_per_round); each board row's uncertainty {r_lo, r_hi, rank_lo, rank_hi, rank_ub, p_first, "
                    "p_above, tied_above, rounds_scored, tie_leader, p_leader} and each board's uncertainty.pairwise"),
    ("worked_example", "the methodology's worked example, computed when the snapshot was scored"),
    ("arena, evals, index, backfill", "the Arena, eval-suite and Capability Index sections and the demo "
     "history's rules, or null"),
)
"(fields, meaning) of ``data/snapshots/<date>.json``; ``data/snapshot.schema.json`` documents every field."


def board_families(board: Board) -> list[str]:
    """The family columns of a board: its weights' families in weight order (then name)."""
    weights = board.weights
    return sorted(weights, key=lambda f: (-weights[f], f))


def row_value(row: BoardRow, column: str) -> Any:
    """A download column of a row: a row field, or one of its bootstrap fields (None without one)."""
    if column in UNCERTAINTY_COLUMNS:
        return getattr(row.uncertainty, column) if row.uncertainty is not None else None
    return getattr(row, column)


def board_row_model(board: Board) -> type[BoardRow]:
    """The class of the board's rows (the snapshot's ``BoardRow``, or a subclass of it)."""
    first = next(iter((*board.rows, *board.new)), None)
    return type(first) if first is not None else BoardRow


def render_board_csv(board: Board) -> str:
    """``data/boards/<id>.csv``: ranked rows then the new strip, one header line, ``\\n`` endings."""
    fams = board_families(board)
    columns = board_csv_columns(board_row_model(board))
    header = [c for c, _, _ in columns] + [f"family_{f}" for f in fams]
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(header)
    strips: tuple[tuple[str, Sequence[BoardRow]], ...] = (("ranked", board.rows), ("new", board.new))
    for strip, rows in strips:
        for row in rows:
            values = [strip] + [csv_pairs(row_value(row, c)) for c, _, _ in columns[1:]]
            values += [row.families.get(f) for f in fams]
            w.writerow([csv_cell(v) for v in values])
    return buf.getvalue()


def _row_json(row: BoardRow) -> dict[str, Any]:
    """A row of ``data/boards/<id>.json``: every column of its ``BoardRow``, in field order."""
    return board_row_values(row)


def board_pairwise(board: Board) -> BoardPairwise | None:
    """The board's top-rows matrix, or None without a bootstrap."""
    return board.uncertainty.pairwise if board.uncertainty is not None and board.uncertainty.pairwise.identities \
        else None


def render_pairwise_csv(board: Board) -> str | None:
    """``data/boards/<id>-pairwise.csv``: P(R_a > R_b), row a, column b; None without a bootstrap."""
    pair = board_pairwise(board)
    if pair is None:
        return None
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow([csv_cell(v) for v in ["identity", *pair.identities]])
    for ident, values in zip(pair.identities, pair.p_greater, strict=True):
        w.writerow([csv_cell(v) for v in [ident, *values]])
    return buf.getvalue()


def _uncertainty_json(board: Board, snapshot: Snapshot) -> dict[str, Any] | None:
    pair = board_pairwise(board)
    u = snapshot.uncertainty
    if u is None or not u.rounds or pair is None:
        return None
    return {"rounds": u.rounds, "seed": u.seed, "interval": list(u.interval), "tie_threshold": u.tie_threshold,
            "pairwise": pair.model_dump(mode="json")}


def board_attribution(site_title: str, base_url: str) -> str:
    """The credit line of every download: the site, its URL and the rating table's licence."""
    return f"{site_title} ({base_url}), rating table under {RATING_LICENCE}"


def render_board_json(board: Board, snapshot: Snapshot, attribution: str) -> str:
    """``data/boards/<id>.json``: the board, its rows and strip, and the credits."""
    return dump_json(board_download(board, snapshot, attribution))


def board_download(board: Board, snapshot: Snapshot, attribution: str) -> dict[str, Any]:
    """The document ``data/boards/<id>.json`` is written from (the API's board rows are its rows)."""
    return {
        "board": board.model_dump(mode="json", include={"id", "title", "kind", "role", "description", "weights",
                                                         "warning", "missing_families"}),
        "date": snapshot.date,
        "created_at": snapshot.created_at,
        "method_id": snapshot.method_id,
        "as_of": snapshot.as_of,
        "stale": snapshot.stale,
        "demo": snapshot.demo,
        "licence": RATING_LICENCE,
        "attribution": attribution,
        "sources": [
            s.model_dump(mode="json", include={"name", "title", "licence", "attribution", "homepage", "published",
                                               "fetched_at", "status"})
            for s in snapshot.sources
        ],
        "rows": [_row_json(r) for r in board.rows],
        "new": [_row_json(r) for r in board.new],
        "uncertainty": _uncertainty_json(board, snapshot),
    }


def dump_json(doc: Any) -> str:
    """Deterministic JSON of a board download: sorted keys, UTF-8 text, one-space indent, newline."""
    return json.dumps(doc, sort_keys=True, indent=1, ensure_ascii=False, allow_nan=False) + "\n"


def render_licence_text(snapshot: Snapshot | None, site_title: str, site_url: str) -> str:
    """``data/LICENCE.txt``: the rating table's licence and every source's own licence."""
    lines = [
        f"{site_title} downloads ({site_url})",
        "",
        f"The rating tables (boards, scores, calibrated values) are {site_title}'s normalisation and",
        f"aggregation, shared under {RATING_LICENCE} (https://creativecommons.org/licenses/by-sa/4.0/).",
        "They are derived from the sources below, each under its own licence and attribution.",
        "No raw upstream payload is redistributed.",
        "",
        "Sources:",
    ]
    for s in snapshot.sources if snapshot else ():
        lines.append(f"- {s.title or s.name}: licence {s.licence or 'unknown'}; "
                     f"attribution: {s.attribution or '-'}")
    return "\n".join(lines) + "\n"
