"""The Boards index, one page per role board, and each board's CSV and JSON downloads."""

from __future__ import annotations

import json

from builder.charts.data import compute_price_quality
from builder.render import exports
from builder.render.og import og_card
from builder.render.pages.models import model_index
from builder.render.writer import SiteWriter, current

KNOWN_KINDS = ("orchestrator", "open_weight", "mid_tier", "rote", "build_prices")


def render_boards(w: SiteWriter) -> None:
    snap = current(w)
    idx = model_index(w)
    boards = snap.boards
    for b in boards:
        w.file(f"data/boards/{b.id}.csv", exports.render_board_csv(b))
        w.file(f"data/boards/{b.id}.json", exports.render_board_json(b, snap, w.attribution))
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
               weights_json=json.dumps([[f, wt] for f, wt in b.weights.items()]))
