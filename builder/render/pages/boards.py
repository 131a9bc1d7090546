"""The Boards index, one page per role board, and each board's CSV and JSON downloads."""

from __future__ import annotations

import json
from typing import Any

from builder.charts.data import compute_price_quality
from builder.render import exports
from builder.render.intervals import (
    anchored_ties,
    compute_interval_view,
    compute_tie_groups,
    compute_tie_marks,
    weak_feeds,
)
from builder.render.og import og_card
from builder.render.pages.models import model_index
from builder.render.writer import SiteWriter, current
from builder.snapshot.models import board_row_columns

KNOWN_KINDS = ("orchestrator", "open_weight", "mid_tier", "rote", "build_prices")


def board_downloads(w: SiteWriter) -> dict[str, dict[str, Any]]:
    """Board id -> the document of ``data/boards/<id>.json`` (once per render; the API reuses its rows)."""
    snap = current(w)
    return w.cached("board_downloads",
                    lambda: {b.id: exports.board_download(b, snap, w.attribution) for b in snap.boards})


def render_boards(w: SiteWriter) -> None:
    snap = current(w)
    idx = model_index(w)
    boards = snap.boards
    downloads = board_downloads(w)
    for b in boards:
        w.file(f"data/boards/{b.id}.csv", exports.render_board_csv(b))
        w.file(f"data/boards/{b.id}.json", exports.dump_json(downloads[b.id]))
        pairwise = exports.render_pairwise_csv(b)
        if pairwise is not None:
            w.file(f"data/boards/{b.id}-pairwise.csv", pairwise)
    w.page("boards/index.html", "boards.html", title="Boards", section="boards",
           description="Every role board with its top models and downloads.", boards=boards)
    frontier = {doc["id"]: set(doc["frontier"]) for doc in compute_price_quality(snap)["boards"]}
    for b in boards:
        kind = b.kind
        rows = [*b.rows, *b.new]
        known = kind in KNOWN_KINDS
        # price columns where the board's rule uses prices; an unknown kind shows what it has
        # prices on every board (sortable, with a max-price filter); the build check where the rule uses it
        cols = {
            "token_price": True,
            "build_price": True,
            "build_passed": kind in ("mid_tier", "rote", "build_prices")
            or (not known and any(r.build_passed is not None for r in rows)),
        }
        top5 = [f"{r.rank}. {r.model} — {r.score}" for r in b.rows[:5]]
        og = og_card(w, f"og/boards/{b.id}.png", b.title or b.id, f"{len(b.rows)} ranked models", top5,
                     b.description or f"{b.title}: ranked models")
        w.page(f"boards/{b.id}/index.html", "board.html", og=og, title=b.title or b.id, section="boards",
               description=b.description, board=b, families=snap.families, cols=cols,
               open_weight=idx.open_weight, sources=snap.sources, frontier=frontier.get(b.id, set()),
               top=b.rows[0].identity if b.rows else None,
               weights_json=json.dumps([[f, wt] for f, wt in b.weights.items()]),
               intervals=compute_interval_view(b), tie_groups=compute_tie_groups(b.rows, anchored_ties(snap)),
               ties=compute_tie_marks(b.rows, anchored_ties(snap)), weak_feeds=weak_feeds(snap, b),
               above={r.identity: b.rows[k - 1].model for k, r in enumerate(b.rows) if k},
               uncertainty=snap.uncertainty, pairwise=exports.board_pairwise(b),
               tips={c.name: c.description for c in board_row_columns(exports.board_row_model(b))})
