"""The vote flip budgets of an Arena board, as the page prints them and as downloads.

Reads the snapshot's ``flips`` records (``builder.pairwise.flips`` computed them; the styled
view's arrive as plain dicts from ``arena["style"]``). Nothing is refitted here.

Downloads beside a board's ratings::

    flips.json   {"plain": [flip, ...], "style": [flip, ...] | null}   (the snapshot's records)
    flips.csv    one row per removed (pair, outcome) cell: FLIP_COLUMNS
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Mapping, Sequence
from typing import Any

from builder.util.text import csv_cell

FLIPS_JSON = "data/arena/flips.json"
FLIPS_CSV = "data/arena/flips.csv"
FLIP_COLUMNS: tuple[str, ...] = ("fit", "position", "higher", "lower", "gap", "approx_votes", "votes", "flipped",
                                 "minimal", "upper_bound", "checked_votes", "n_votes", "share", "gap_after",
                                 "model_a", "model_b", "outcome", "count")
"Columns of ``flips.csv``: the pair's budget repeated on each of its removed cells."


def fmt_share(share: float | None) -> str:
    """A share of all votes as a percent with three decimals (``<0.001%`` below that)."""
    if share is None:
        return "–"
    pct = share * 100
    return "<0.001%" if 0 < pct < 0.0005 else f"{pct:.3f}%"


def _votes_word(n: int) -> str:
    return f"{n:,} vote" if n == 1 else f"{n:,} votes"


def describe_votes(v: Mapping[str, Any]) -> str:
    """One removed cell in words: ``3 votes gpt-6 won against gemma`` / ``2 ties of a and b``."""
    n, a, b = int(v["count"]), v["model_a"], v["model_b"]
    if v["outcome"] == "tie":
        return f"{n:,} {'tie' if n == 1 else 'ties'} between {a} and {b}"
    win, lose = (a, b) if v["outcome"] == "model_a" else (b, a)
    return f"{_votes_word(n)} {win} won against {lose}"


def compute_flip_view(flips: Sequence[Mapping[str, Any]]) -> dict[str, Any] | None:
    """``{"lead", "rows"}`` for the page, or None without budgets. ``lead``: the #1/#2 row;
    each row is the record plus ``share_text``, ``status`` (short), ``sentence`` (the
    budget in words) and ``votes_text`` (the removed cells in words)."""
    if not flips:
        return None
    rows = []
    for f in flips:
        n_votes = int(f["n_votes"])
        removed = [describe_votes(v) for v in f.get("removed") or ()]
        if f["flipped"] and f.get("votes") is not None:
            votes = int(f["votes"])
            check = ("verified by refit; one vote fewer keeps the order" if f.get("minimal")
                     else "verified by refit; an upper bound (one vote fewer was not shown to keep the order)")
            sentence = (f"Removing {votes:,} of {n_votes:,} votes ({fmt_share(f.get('share'))}) would put "
                        f"{f['lower']} above {f['higher']}; {check}.")
            status = "verified" if f.get("minimal") else "upper bound"
        else:
            checked = int(f.get("checked_votes") or 0)
            sentence = (f"No reversal found: removing the {checked:,} most influential of {n_votes:,} votes and "
                        f"refitting still keeps {f['higher']} above {f['lower']}, so more than that many "
                        "would have to go along this list.")
            status = f"not flipped (> {checked:,})"
        rows.append({**f, "share_text": fmt_share(f.get("share")), "sentence": sentence, "status": status,
                     "votes_text": removed})
    lead = next((r for r in rows if r["position"] == 1), None)
    return {"lead": lead, "rows": rows}


def render_flips_json(plain: Sequence[Mapping[str, Any]], style: Sequence[Mapping[str, Any]] | None) -> str:
    """``flips.json``: the plain and the style-controlled budgets as the snapshot holds them."""
    doc = {"plain": list(plain), "style": None if style is None else list(style)}
    return json.dumps(doc, indent=1, ensure_ascii=False, allow_nan=False) + "\n"


def render_flips_csv(plain: Sequence[Mapping[str, Any]], style: Sequence[Mapping[str, Any]] | None) -> str:
    """``flips.csv``: header ``FLIP_COLUMNS``, one row per removed cell of each budget (a
    budget with no removed votes gets one row with empty cell columns)."""
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=list(FLIP_COLUMNS), lineterminator="\n")
    w.writeheader()
    for fit, flips in (("plain", plain), ("style", style or ())):
        for f in flips:
            base = {k: f.get(k) for k in FLIP_COLUMNS[1:14]}
            cells = f.get("removed") or [{}]
            for v in cells:
                row = {"fit": fit, **base, **{k: v.get(k) for k in FLIP_COLUMNS[14:]}}
                w.writerow({k: csv_cell(x) for k, x in row.items()})
    return buf.getvalue()


__all__ = ["FLIPS_CSV", "FLIPS_JSON", "FLIP_COLUMNS", "compute_flip_view", "describe_votes", "fmt_share",
           "render_flips_csv", "render_flips_json"]
