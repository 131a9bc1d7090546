"""Explain one model's score from a saved snapshot, step by step (calibration, family means, R).

Nothing is refitted: the calibration parameters, calibrated values, family means and R are
read from the snapshot, and the formulas are printed with those numbers::

    calibrated = alpha + beta * (raw - mu) / sigma
    family mean = (s_1 + ... + s_k) / k
    R = sum(w_f * mean_f) / sum(w_f)        (present families only)
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from builder.errors import UserError
from builder.snapshot.models import Board, BoardRow, Observation, Snapshot, sources_playing


def _find_board(snapshot: Snapshot, board_id: str) -> Board:
    board = snapshot.board(board_id)
    if board is None:
        ids = ", ".join(b.id for b in snapshot.boards) or "none"
        raise UserError(f"board {board_id!r} is not in the snapshot (boards: {ids})")
    return board


def resolve_identity(snapshot: Snapshot, name: str) -> str | None:
    """Identity for an identity key, display name or any published spelling (case-insensitive)."""
    wanted = name.casefold()
    for ident, meta in snapshot.models.items():
        names = [ident, meta.name, *meta.spellings]
        if any(n.casefold() == wanted for n in names):
            return ident
    for b in snapshot.boards:
        for row in (*b.rows, *b.new):
            if wanted in (row.identity.casefold(), row.model.casefold()):
                return row.identity
    return None


def explain_model(snapshot: Snapshot, identity_or_spelling: str, board_id: str = "orchestrator") -> dict[str, Any]:
    """The numbers behind one row: per-source calibration, family means, R, score, rank, labels.

    Returns a JSON-able dict (``modelboards explain --format json`` prints it as is).
    """
    board = _find_board(snapshot, board_id)
    ident = resolve_identity(snapshot, identity_or_spelling)
    if ident is None:
        raise UserError(f"model {identity_or_spelling!r} is not in the snapshot dated {snapshot.date}")
    row = next((r for r in (*board.rows, *board.new) if r.identity == ident), None)
    if row is None:
        on = [b.id for b in snapshot.boards if any(r.identity == ident for r in (*b.rows, *b.new))]
        raise UserError(f"model {identity_or_spelling!r} is not on board {board_id!r} "
                        f"(on: {', '.join(on) or 'no board'})")
    return explain_row(snapshot, board, row, snapshot.observations)


def explain_row(snapshot: Snapshot, board: Board, row: BoardRow, observations: Iterable[Observation]) -> dict[str, Any]:
    """``explain_model`` for a board row already found. ``observations`` may be only the row's
    identity's (others are skipped anyway), so explaining every row of a snapshot stays linear."""
    ident = row.identity
    weights = dict(board.weights)
    families = snapshot.families
    arena_sources = set(sources_playing(snapshot.sources, "arena"))
    fits = {(c.source, c.feed, c.release): c for c in snapshot.calibration}
    sources: list[dict[str, Any]] = []
    for o in observations:
        if o.identity != ident or o.calibrated is None:
            continue
        for fam, fc in families.items():
            if o.feed in fc.feeds and weights.get(fam, 0) > 0:
                fit = fits.get((o.source, o.feed, o.release))
                sources.append({
                    "source": o.source, "feed": o.feed, "release": o.release, "family": fam,
                    "evaluator": o.evaluator, "model": o.model, "raw": o.raw, "calibrated": o.calibrated,
                    "date": o.date, "arena": o.source in arena_sources or fit is None,
                    "calibration": None if fit is None else
                    {"n": fit.n, "mu": fit.mu, "sigma": fit.sigma, "alpha": fit.alpha, "beta": fit.beta},
                })
    fam_out = {}
    for fam, weight in weights.items():
        scores = [s["calibrated"] for s in sources if s["family"] == fam]
        if fam in row.families:
            fam_out[fam] = {"title": families[fam].title if fam in families else fam, "scores": scores,
                            "mean": row.families[fam], "weight": weight}
    return {
        "model": row.model, "identity": ident, "board": board.id, "board_title": board.title,
        "role": board.role, "weights": weights, "date": snapshot.date,
        "method_id": snapshot.method_id, "sources": sources, "families": fam_out,
        "missing_families": [f for f in weights if f not in row.families],
        "family_titles": {f: families[f].title if f in families else f for f in weights},
        "r": row.r, "score": row.score, "rank": row.rank, "ranked_rows": len(board.rows),
        "new": row.rank is None, "partial": row.partial, "partial_reasons": list(row.partial_reasons),
        "evaluators": list(row.evaluators), "coverage": row.coverage, "available_share": row.available_share,
        "movement": row.movement,
    }


def _w(w: float) -> str:
    return f"{w:.2f}" if float(f"{w:.2f}") == w else repr(w)


def format_explain(d: dict[str, Any]) -> str:
    """Plain-text arithmetic, one formula per line, numbers at full precision."""
    lines = [f"{d['model']} ({d['identity']}) on {d['board_title']} [{d['role']} weights], snapshot {d['date']}",
             f"method {d['method_id']}", "", "Sources:"]
    for s in d["sources"]:
        head = f"  {s['feed']}" + (f" (release {s['release']})" if s["release"] else "") + f", as {s['model']!r}"
        if s["arena"]:
            lines.append(f"{head}: Arena rating {s['calibrated']!r}, used unchanged")
        else:
            c = s["calibration"]
            lines.append(f"{head}: calibrated = {c['alpha']!r} + {c['beta']!r} * ({s['raw']!r} - {c['mu']!r})"
                         f" / {c['sigma']!r} = {s['calibrated']!r}  [fit on {c['n']} models]")
    lines += ["", "Families:"]
    for fam in d["families"].values():
        scores = fam["scores"]
        if len(scores) > 1:
            terms = " + ".join(repr(x) for x in scores)
            lines.append(f"  {fam['title']} = ({terms}) / {len(scores)} = {fam['mean']!r}")
        else:
            lines.append(f"  {fam['title']} = {fam['mean']!r}")
    for f in d["missing_families"]:
        lines.append(f"  {d['family_titles'].get(f, f)}: no usable score (left out of numerator and denominator)")
    fams = d["families"].values()
    num = " + ".join(f"{_w(f['weight'])} * {f['mean']!r}" for f in fams)
    den = " + ".join(_w(f["weight"]) for f in fams)
    lines += ["", f"R = ({num}) / ({den})", f"R = {d['r']!r}; displayed score = {d['score']}"]
    if d["new"]:
        lines.append("New, not enough ratings yet: one independent evaluator, no rank")
    else:
        lines.append(f"Rank {d['rank']} of {d['ranked_rows']} (competition rank on the unrounded R)")
    label = "partial: " + "; ".join(d["partial_reasons"]) if d["partial"] else "not partial"
    lines.append(f"{len(d['evaluators'])} independent evaluators ({', '.join(d['evaluators'])}), "
                 f"{len(d['families'])} families; coverage {d['coverage']:.0%}, "
                 f"available share {d['available_share']:.0%}; {label}")
    if d["movement"] is not None:
        lines.append(f"movement since the previous snapshot: {d['movement']}")
    return "\n".join(lines)
