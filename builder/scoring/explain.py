"""Explain one model's score from a saved snapshot, with the arithmetic of seed 004's example.

Nothing is refitted: the calibration parameters, calibrated values, family means and R are
read from the snapshot, and the formulas are printed with those numbers::

    calibrated = alpha + beta * (raw - mu) / sigma
    family mean = (s_1 + ... + s_k) / k
    R = sum(w_f * mean_f) / sum(w_f)        (present families only)
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from builder.errors import UserError


def _find_board(snapshot: dict[str, Any], board_id: str) -> dict[str, Any]:
    boards = snapshot.get("boards") or []
    for b in boards:
        if b.get("id") == board_id:
            return b
    ids = ", ".join(b.get("id", "?") for b in boards) or "none"
    raise UserError(f"board {board_id!r} is not in the snapshot (boards: {ids})")


def resolve_identity(snapshot: dict[str, Any], name: str) -> str | None:
    """Identity for an identity key, display name or any published spelling (case-insensitive)."""
    wanted = name.casefold()
    models = snapshot.get("models") or {}
    for ident, meta in models.items():
        names = [ident, meta.get("name") or "", *(meta.get("spellings") or [])]
        if any(n.casefold() == wanted for n in names):
            return ident
    for b in snapshot.get("boards") or []:
        for row in [*b.get("rows", []), *b.get("new", [])]:
            if wanted in (row["identity"].casefold(), row["model"].casefold()):
                return row["identity"]
    return None


def explain_model(snapshot: dict[str, Any], identity_or_spelling: str, board_id: str = "orchestrator") -> dict[str, Any]:
    """The numbers behind one row: per-source calibration, family means, R, score, rank, labels."""
    board = _find_board(snapshot, board_id)
    ident = resolve_identity(snapshot, identity_or_spelling)
    if ident is None:
        raise UserError(f"model {identity_or_spelling!r} is not in the snapshot dated {snapshot.get('date')}")
    row = next((r for r in [*board.get("rows", []), *board.get("new", [])] if r["identity"] == ident), None)
    if row is None:
        on = [b["id"] for b in snapshot.get("boards") or []
              if any(r["identity"] == ident for r in [*b.get("rows", []), *b.get("new", [])])]
        raise UserError(f"model {identity_or_spelling!r} is not on board {board_id!r} "
                        f"(on: {', '.join(on) or 'no board'})")
    return explain_row(snapshot, board, row, snapshot.get("observations") or [])


def explain_row(snapshot: Mapping[str, Any], board: Mapping[str, Any], row: Mapping[str, Any],
                observations: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
    """``explain_model`` for a board row already found. ``observations`` may be only the row's
    identity's (others are skipped anyway), so explaining every row of a snapshot stays linear."""
    ident = row["identity"]
    weights: dict[str, float] = board["weights"]
    families = snapshot.get("families") or {}
    arena_sources = {s["name"] for s in snapshot.get("sources") or [] if s.get("kind") == "lmarena"}
    fits = {(c["source"], c["feed"], c["release"]): c for c in snapshot.get("calibration") or []}
    sources = []
    for o in observations:
        if o["identity"] != ident or o.get("calibrated") is None:
            continue
        for fam, fc in families.items():
            if o["feed"] in fc["feeds"] and weights.get(fam, 0) > 0:
                fit = fits.get((o["source"], o["feed"], o["release"]))
                sources.append({
                    "source": o["source"], "feed": o["feed"], "release": o["release"], "family": fam,
                    "evaluator": o["evaluator"], "model": o["model"], "raw": o["raw"], "calibrated": o["calibrated"],
                    "date": o.get("date"), "arena": o["source"] in arena_sources or fit is None,
                    "calibration": None if fit is None else
                    {k: fit[k] for k in ("n", "mu", "sigma", "alpha", "beta")},
                })
    fam_out = {}
    for fam, weight in weights.items():
        scores = [s["calibrated"] for s in sources if s["family"] == fam]
        if fam in row["families"]:
            fam_out[fam] = {"title": families.get(fam, {}).get("title", fam), "scores": scores,
                            "mean": row["families"][fam], "weight": weight}
    return {
        "model": row["model"], "identity": ident, "board": board["id"], "board_title": board["title"],
        "role": board["role"], "weights": weights, "date": snapshot.get("date"),
        "method_id": snapshot.get("method_id"), "sources": sources, "families": fam_out,
        "missing_families": [f for f in weights if f not in row["families"]],
        "family_titles": {f: families.get(f, {}).get("title", f) for f in weights},
        "r": row["r"], "score": row["score"], "rank": row["rank"], "ranked_rows": len(board.get("rows", [])),
        "new": row["rank"] is None, "partial": row["partial"], "partial_reasons": row.get("partial_reasons", []),
        "evaluators": row["evaluators"], "coverage": row["coverage"], "available_share": row["available_share"],
        "movement": row.get("movement"),
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
            lines.append(f"  {fam['title']} = ({' + '.join(repr(x) for x in scores)}) / {len(scores)} = {fam['mean']!r}")
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
