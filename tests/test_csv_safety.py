"""CSV downloads never hand a spreadsheet a formula from upstream text."""

from __future__ import annotations

import csv
import io

import pytest

from builder.render.exports import render_board_csv
from builder.snapshot.models import Board, BoardRow
from builder.util.text import csv_cell


@pytest.mark.parametrize("text", ["=HYPERLINK(\"http://x\")", "+1+1", "-2+3", "@SUM(A1)", "\tx", "\rx"])
def test_formula_text_is_neutralised(text):
    assert csv_cell(text) == "'" + text


def test_ordinary_values_are_unchanged():
    assert csv_cell("claude-opus-5.5") == "claude-opus-5.5"
    assert csv_cell(-1.5) == "-1.5" and csv_cell(-3) == "-3"  # numbers stay numbers
    assert csv_cell(None) == "" and csv_cell(True) == "true" and csv_cell(0.1) == "0.1"
    assert csv_cell(["a", "b"]) == "a;b"


def test_board_csv_neutralises_a_hostile_model_name():
    row = BoardRow(rank=1, model="=cmd|' /C calc'!A0", identity="x", r=1500.25, score=1500, partial=False,
                   partial_reasons=(), families={"reasoning": 1500.25}, evaluators=("e1", "e2"), coverage=1.0,
                   available_share=1.0, movement=None, token_price=None, build_price=None, build_passed=None)
    board = Board(id="b", title="B", kind="orchestrator", role="orchestrator", description="",
                  weights={"reasoning": 1.0}, warning=None, missing_families=(), rows=(row,), new=())
    rows = list(csv.reader(io.StringIO(render_board_csv(board))))
    cells = rows[1]
    assert "'=cmd|' /C calc'!A0" in cells
    assert not any(c.startswith("=") for c in cells)


def test_select_csv_neutralises_a_hostile_model_name():
    """``modelboards select --format csv`` escapes formula cells like the site's downloads."""
    from builder.scoring.select import SELECT_COLUMNS, write_select

    row = dict.fromkeys(SELECT_COLUMNS, None)
    row.update(source="arena", feed="arena/text", evaluator="lmarena", model="=cmd|' /C calc'!A0",
               identity="@evil", raw=-1.5, selected=False, reason="+SUM(1)")
    out = io.StringIO()
    write_select([row], "csv", out)
    header, values = list(csv.reader(io.StringIO(out.getvalue())))
    cells = dict(zip(header, values, strict=True))
    assert cells["model"] == "'=cmd|' /C calc'!A0" and cells["identity"] == "'@evil"
    assert cells["reason"] == "'+SUM(1)" and cells["raw"] == "-1.5" and cells["selected"] == "false"
