"""The Boards index, one page per role board, and each board's CSV and JSON downloads."""

from __future__ import annotations

from builder.render import exports
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
    for b in boards:
        kind = b.kind
        rows = [*b.rows, *b.new]
        known = kind in KNOWN_KINDS
        # price columns where the board's rule uses prices; an unknown kind shows what it has
        cols = {
            "token_price": kind in ("mid_tier", "rote")
            or (not known and any(r.token_price is not None for r in rows)),
            "build_price": kind in ("mid_tier", "rote", "build_prices")
            or (not known and any(r.build_price is not None for r in rows)),
            "build_passed": kind in ("mid_tier", "rote", "build_prices")
            or (not known and any(r.build_passed is not None for r in rows)),
        }
        w.page(f"boards/{b.id}/index.html", "board.html", title=b.title or b.id, section="boards",
               description=b.description, board=b, families=snap.families, cols=cols,
               open_weight=idx.open_weight, sources=snap.sources)
