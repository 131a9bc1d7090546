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

from builder.snapshot.models import Board, BoardRow, Snapshot
from builder.util.formats import RATING_LICENCE
from builder.util.text import csv_cell

#: (column, type, meaning) of ``data/boards/<id>.csv``; ``family_<id>`` columns follow.
BOARD_CSV_COLUMNS: tuple[tuple[str, str, str], ...] = (
    ("strip", "text", "'ranked' for the board, 'new' for the New, not enough ratings yet strip"),
    ("rank", "integer", "competition rank on unrounded R (1, 2, 2, 4); empty in the new strip"),
    ("model", "text", "model name as displayed"),
    ("identity", "text", "identity key; the model page is models/<identity>/"),
    ("score", "integer", "displayed score: R rounded half to even"),
    ("r", "float", "unrounded weighted mean R over the families present, Arena scale"),
    ("partial", "boolean", "true when the row carries the partial label"),
    ("partial_reasons", "text", "why the row is partial, ';'-separated"),
    ("coverage", "float", "present preset weight / all preset weight, 0..1"),
    ("available_share", "float", "present preset weight / weight of families available in the snapshot, 0..1"),
    ("movement", "text", "rank change since the previous snapshot (positive = up), 'new', or empty"),
    ("evaluators", "text", "independent evaluators contributing, ';'-separated"),
    ("token_price", "float", "blended token price, USD per million tokens (0.75 input + 0.25 output)"),
    ("build_price", "float", "PirateBench median build price, USD per build"),
    ("build_passed", "boolean", "PirateBench build check passed"),
)
FAMILY_COLUMN = ("family_<family>", "float", "family mean of usable calibrated scores, Arena scale; empty when absent")

BOARD_JSON_FIELDS: tuple[tuple[str, str], ...] = (
    ("board", "id, title, kind, role, description, weights {family: weight}, warning, missing_families"),
    ("date / created_at / method_id / as_of", "the snapshot the rows come from (UTC)"),
    ("stale / demo", "Arena failed at the last refresh / built from the bundled demo data"),
    ("licence / attribution", "licence of the rating table and the credit line"),
    ("sources", "every credited source: name, title, licence, attribution, homepage, published, fetched_at, status"),
    ("rows", "ranked rows, each with the CSV columns above and families {family: mean}"),
    ("new", "the New, not enough ratings yet strip (rank null)"),
)

SNAPSHOT_FIELDS: tuple[tuple[str, str], ...] = (
    ("schema_version, date, created_at, method_id", "identity of the snapshot (UTC)"),
    ("method", "dated method rules it was scored under: single_source_rule (true; absent = from before "
               "single-evaluator models left the ranking)"),
    ("demo, stale, as_of, previous_date", "built from demo data; Arena failed; newest credited source date; "
     "the earlier snapshot the movement compares with"),
    ("site, sources", "the site; every stored source with status, licence, attribution, publication and fetch times"),
    ("families, roles", "the families (feeds) and role weights the boards used"),
    ("observations", "every published row: spelling, identity, raw, calibrated, date, url, selected, reason, excluded"),
    ("calibration", "per feed and release: n, overlap, mu, sigma, alpha, beta, used, reason"),
    ("models", "facts per identity: name, maker, licence, open_weight, params_b, context_window, release_date"),
    ("prices", "token price entries (per token, blended per million) and PirateBench build records"),
    ("boards, machines, stacks", "the published rows, home-computer picks, best and value stacks"),
    ("worked_example", "the methodology's worked example, computed when the snapshot was scored"),
    ("arena, evals, index, backfill", "the Arena, eval-suite and Capability Index sections and the demo "
     "history's rules, or null"),
)
"(fields, meaning) of ``data/snapshots/<date>.json``; ``data/snapshot.schema.json`` documents every field."


def board_families(board: Board) -> list[str]:
    """The family columns of a board: its weights' families in weight order (then name)."""
    weights = board.weights
    return sorted(weights, key=lambda f: (-weights[f], f))


def render_board_csv(board: Board) -> str:
    """``data/boards/<id>.csv``: ranked rows then the new strip, one header line, ``\\n`` endings."""
    fams = board_families(board)
    header = [c for c, _, _ in BOARD_CSV_COLUMNS] + [f"family_{f}" for f in fams]
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(header)
    strips: tuple[tuple[str, Sequence[BoardRow]], ...] = (("ranked", board.rows), ("new", board.new))
    for strip, rows in strips:
        for row in rows:
            values = [strip] + [getattr(row, c) for c, _, _ in BOARD_CSV_COLUMNS[1:]]
            values += [row.families.get(f) for f in fams]
            w.writerow([csv_cell(v) for v in values])
    return buf.getvalue()


def _row_json(row: BoardRow) -> dict[str, Any]:
    keys = [c for c, _, _ in BOARD_CSV_COLUMNS[1:]] + ["families"]
    return row.model_dump(mode="json", include=set(keys))


def render_board_json(board: Board, snapshot: Snapshot, attribution: str) -> str:
    """``data/boards/<id>.json``: the board, its rows and strip, and the credits."""
    doc = {
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
    }
    return dump_json(doc)


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
