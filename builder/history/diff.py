"""What changed between two snapshots, and why: ``modelboards diff``, ``changes/<DATE>/`` and ``feed.xml``.

    compute_diff(old, new, threshold=10.0)   -> SnapshotDiff
    compute_change_log(snapshots, threshold) -> [diff document, ...]  (each snapshot against the one before)
    diff_document(diff)                      -> the JSON document (``--format json``, the page's download)
    render_diff_text(diff)                   -> the plain-text report (``--format text``)

What counts as a change (OLD -> NEW, both typed snapshots):

- a new model is an identity in NEW's ``models`` that OLD's ``models`` lacks; a removed model
  the reverse;
- per board (matched by id): a rank move is a model ranked on both days at different ranks;
  an entry or an exit is a model ranked on one day only (a new model's entry is listed under
  new models, not again here); a score move is a model ranked on both days whose unrounded R
  moved by at least ``threshold`` Arena points;
- a source failure is a source whose status went from ``ok`` to ``failed`` (or ``missing``),
  a recovery the reverse;
- a price change is a model whose chosen token price (USD per million tokens, blended) or
  build price (USD per build) differs, or that gained or lost one;
- a method change is a different ``method_id``, with the role weights, family feeds and
  sources that differ.

Every board move carries its reasons, each with a code: ``method`` (the method changed: no
other reason is looked for), ``source_value`` (a selected value of the model on a feed of the
board's families is new, gone or different), ``calibration`` (the same raw value calibrated
differently: the z-fit of that feed was refitted), ``new_model_above`` (a model not ranked
on the board before is now above it), ``left_above`` (a model above it before is no longer
ranked on the board), ``price_filter`` (an entry or exit of a board whose rule uses prices,
with the model's price changed), ``rating_strip`` (the model moved between the ranked rows
and the "new, not enough ratings yet" strip), ``others_moved`` (none of the above: models
around it moved, named). Two values are "the same" when they differ by at most 1e-9
relative, so a rewrite of the same numbers is no change.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from builder.snapshot.models import Board, BoardRow, Snapshot

DEFAULT_THRESHOLD = 10.0
"Score moves smaller than this many Arena points (unrounded R) are not listed."
PRICE_BOARD_KINDS = ("mid_tier", "rote", "build_prices")
"Board kinds whose qualification rule reads prices."
DIFF_FORMAT = "modelboards-diff-v1"
"``format`` of the JSON document."

MoveKind = Literal["rank", "entered", "left", "score"]
ReasonCode = Literal[
    "method", "source_value", "calibration", "new_model_above", "left_above", "price_filter", "rating_strip",
    "others_moved",
]


@dataclass(frozen=True)
class Reason:
    """One cause of a move: ``code`` (see the module docstring) and a sentence for readers."""

    code: ReasonCode
    text: str


@dataclass(frozen=True)
class BoardMove:
    """One model's move on one board. ``before``/``after`` are ranks (rank, entered, left: null
    when not ranked that day) or displayed scores (score); ``r_before``/``r_after`` the unrounded R."""

    board: str
    kind: MoveKind
    identity: str
    name: str
    before: int | None
    after: int | None
    r_before: float | None
    r_after: float | None
    reasons: tuple[Reason, ...]


@dataclass(frozen=True)
class ModelChange:
    """A model that appeared or disappeared; ``boards``: the boards that rank it (on the day it exists)."""

    identity: str
    name: str
    boards: tuple[str, ...]


@dataclass(frozen=True)
class SourceChange:
    """A source that failed or recovered: statuses before and after, and the error of the failed day."""

    source: str
    kind: Literal["failed", "recovered"]
    before: str | None
    after: str
    error: str | None


@dataclass(frozen=True)
class PriceChange:
    """A changed price: ``price`` is ``token`` (USD per million tokens, blended) or ``build`` (USD per build)."""

    identity: str
    name: str
    price: Literal["token", "build"]
    before: float | None
    after: float | None
    via_before: str | None  # token: "source key" of the chosen entry
    via_after: str | None


@dataclass(frozen=True)
class MethodChange:
    """A change of method id, with what differs in the scoring configuration the snapshots echo."""

    before: str
    after: str
    details: tuple[str, ...]


@dataclass(frozen=True)
class SnapshotDiff:
    """Everything that changed from ``old_date`` to ``new_date`` (see the module docstring)."""

    old_date: str
    new_date: str
    threshold: float
    new_models: tuple[ModelChange, ...]
    removed_models: tuple[ModelChange, ...]
    moves: tuple[BoardMove, ...]
    sources: tuple[SourceChange, ...]
    prices: tuple[PriceChange, ...]
    method: MethodChange | None
    boards: Mapping[str, str] = field(default_factory=dict)  # board id -> title (NEW's, else OLD's)

    @property
    def empty(self) -> bool:
        return not (self.new_models or self.removed_models or self.moves or self.sources or self.prices
                    or self.method)

    def count(self) -> int:
        return (len(self.new_models) + len(self.removed_models) + len(self.moves) + len(self.sources)
                + len(self.prices) + (1 if self.method else 0))


# --------------------------------------------------------------------------- helpers


def same(a: float | None, b: float | None) -> bool:
    """Equal within 1e-9 relative (both None counts as equal)."""
    if a is None or b is None:
        return a is None and b is None
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)


def _name(snap: Snapshot, identity: str) -> str:
    facts = snap.models.get(identity)
    return facts.name if facts is not None else identity


def _ranked_boards(snap: Snapshot, identity: str) -> tuple[str, ...]:
    return tuple(b.id for b in snap.boards if any(r.identity == identity for r in b.rows))


def _fmt(x: float | None, digits: int = 2) -> str:
    return "none" if x is None else f"{x:.{digits}f}"


def _board_feeds(snap: Snapshot, board: Board) -> set[str]:
    feeds: set[str] = set()
    for fam, weight in board.weights.items():
        family = snap.families.get(fam)
        if family is not None and weight > 0:
            feeds.update(family.feeds)
    return feeds


def _values(snap: Snapshot, feeds: set[str]) -> dict[str, dict[str, tuple[float | None, float | None]]]:
    """Identity -> feed -> (raw, calibrated) of the selected rows on ``feeds``."""
    out: dict[str, dict[str, tuple[float | None, float | None]]] = {}
    for o in snap.observations:
        if o.selected and o.identity and o.feed in feeds:
            out.setdefault(o.identity, {})[o.feed] = (o.raw, o.calibrated)
    return out


def _value_reasons(old: Mapping[str, tuple[float | None, float | None]],
                   new: Mapping[str, tuple[float | None, float | None]]) -> list[Reason]:
    """Reasons from one model's own selected values (feed order)."""
    reasons: list[Reason] = []
    for feed in sorted(set(old) | set(new)):
        before, after = old.get(feed), new.get(feed)
        if before is None and after is not None:
            reasons.append(Reason("source_value", f"a new source value: {feed} {_fmt(after[0])}"))
        elif after is None and before is not None:
            reasons.append(Reason("source_value", f"a source value dropped: {feed} (was {_fmt(before[0])})"))
        elif before is not None and after is not None:
            if not same(before[0], after[0]):
                reasons.append(Reason("source_value",
                                      f"a new source value: {feed} {_fmt(before[0])} -> {_fmt(after[0])}"))
            elif not same(before[1], after[1]):
                reasons.append(Reason("calibration", f"a calibration refit of {feed}: the same raw value "
                                      f"{_fmt(after[0])} now calibrates to {_fmt(after[1])} "
                                      f"(was {_fmt(before[1])})"))
    return reasons


def _token_prices(snap: Snapshot) -> dict[str, tuple[float, str]]:
    """Identity -> (blended USD per million tokens, "source key") of the chosen token price."""
    return {p.identity: (p.blended, f"{p.source} {p.key}") for p in snap.prices.token if p.used}


def _build_prices(snap: Snapshot) -> dict[str, float | None]:
    return {b.identity: b.price for b in snap.prices.build}


# --------------------------------------------------------------------------- the diff


def compute_diff(old: Snapshot, new: Snapshot, threshold: float = DEFAULT_THRESHOLD) -> SnapshotDiff:
    """Everything that changed from ``old`` to ``new``, each board move with its reasons."""
    if not threshold > 0:
        raise ValueError(f"threshold must be positive, got {threshold!r}")
    added = sorted(set(new.models) - set(old.models))
    gone = sorted(set(old.models) - set(new.models))
    new_models = tuple(ModelChange(i, _name(new, i), _ranked_boards(new, i)) for i in added)
    removed = tuple(ModelChange(i, _name(old, i), _ranked_boards(old, i)) for i in gone)
    method = compute_method_change(old, new)
    moves: list[BoardMove] = []
    old_boards = {b.id: b for b in old.boards}
    for board in new.boards:
        before = old_boards.get(board.id)
        if before is not None:
            moves.extend(compute_board_moves(old, new, before, board, threshold, method is not None, set(added)))
    titles = {b.id: b.title for b in old.boards} | {b.id: b.title for b in new.boards}
    return SnapshotDiff(
        old_date=old.date, new_date=new.date, threshold=threshold, new_models=new_models, removed_models=removed,
        moves=tuple(moves), sources=tuple(compute_source_changes(old, new)),
        prices=tuple(compute_price_changes(old, new)), method=method, boards=titles,
    )


def compute_board_moves(
    old: Snapshot, new: Snapshot, before: Board, after: Board, threshold: float, method_changed: bool,
    new_identities: set[str],
) -> list[BoardMove]:
    """Rank moves, entries, exits and score moves of one board, in NEW's rank order (exits last)."""
    old_rows = {r.identity: r for r in before.rows}
    new_rows = {r.identity: r for r in after.rows}
    old_strip = {r.identity for r in before.new}
    new_strip = {r.identity for r in after.new}
    feeds = _board_feeds(old, before) | _board_feeds(new, after)
    old_values, new_values = _values(old, feeds), _values(new, feeds)
    old_tok, new_tok = _token_prices(old), _token_prices(new)
    old_build, new_build = _build_prices(old), _build_prices(new)

    def reasons_for(ident: str, row_before: BoardRow | None, row_after: BoardRow | None) -> tuple[Reason, ...]:
        if method_changed:
            return (Reason("method", f"a method change ({old.method_id} -> {new.method_id})"),)
        out = _value_reasons(old_values.get(ident, {}), new_values.get(ident, {}))
        if row_before is None or row_after is None:
            if ident in (old_strip if row_before is None else new_strip):
                out.append(Reason("rating_strip", "moved from the \"new, not enough ratings yet\" strip"
                                  if row_before is None else
                                  "moved to the \"new, not enough ratings yet\" strip (one independent evaluator)"))
            if after.kind in PRICE_BOARD_KINDS:
                tb, ta = old_tok.get(ident), new_tok.get(ident)
                bb, ba = old_build.get(ident), new_build.get(ident)
                if not same(tb[0] if tb else None, ta[0] if ta else None):
                    out.append(Reason("price_filter", f"a price filter: token price ${_fmt(tb[0] if tb else None)} "
                                      f"-> ${_fmt(ta[0] if ta else None)} per million tokens"))
                if not same(bb, ba):
                    out.append(Reason("price_filter", f"a price filter: build price ${_fmt(bb)} -> ${_fmt(ba)}"))
        else:
            above_now = [r for r in after.rows if r.r > row_after.r and r.identity != ident]
            fresh = [r.model for r in above_now if r.identity not in old_rows]
            if fresh:
                out.append(Reason("new_model_above", "a new model above: " + ", ".join(fresh)))
            left = [r.model for r in before.rows if r.r > row_before.r and r.identity not in new_rows]
            if left:
                out.append(Reason("left_above", "no longer ranked above it: " + ", ".join(left)))
        if not out:
            out.append(Reason("others_moved", _others_text(ident, row_before, row_after, old_rows, new_rows)))
        return tuple(out)

    moves: list[BoardMove] = []
    for row in after.rows:
        ident = row.identity
        prev = old_rows.get(ident)
        if prev is None:
            if ident in new_identities:
                continue  # listed under new models
            moves.append(BoardMove(after.id, "entered", ident, row.model, None, row.rank, None, row.r,
                                   reasons_for(ident, None, row)))
            continue
        if prev.rank != row.rank:
            moves.append(BoardMove(after.id, "rank", ident, row.model, prev.rank, row.rank, prev.r, row.r,
                                   reasons_for(ident, prev, row)))
        if abs(row.r - prev.r) >= threshold:
            own = reasons_for(ident, prev, row)
            own = tuple(r for r in own if r.code in ("method", "source_value", "calibration")) or (
                Reason("others_moved", "no change of its own values: its family means were recomputed"),)
            moves.append(BoardMove(after.id, "score", ident, row.model, prev.score, row.score, prev.r, row.r, own))
    for row in before.rows:
        if row.identity not in new_rows and row.identity in new.models:
            moves.append(BoardMove(after.id, "left", row.identity, row.model, row.rank, None, row.r, None,
                                   reasons_for(row.identity, row, None)))
    return moves


def _others_text(ident: str, before: BoardRow | None, after: BoardRow | None,
                 old_rows: Mapping[str, BoardRow], new_rows: Mapping[str, BoardRow]) -> str:
    """Which models crossed this one (both ranked both days), when nothing of its own changed."""
    if before is None or after is None:
        return "its values are unchanged; the board's rule now " + ("admits it" if before is None else "leaves it out")
    passed_by = [r.model for i, r in new_rows.items() if i != ident and i in old_rows
                 and r.r > after.r and old_rows[i].r <= before.r]
    passed = [r.model for i, r in new_rows.items() if i != ident and i in old_rows
              and r.r < after.r and old_rows[i].r >= before.r]
    parts = []
    if passed_by:
        parts.append("overtaken by " + ", ".join(passed_by))
    if passed:
        parts.append("overtook " + ", ".join(passed))
    return ("other models' scores moved: " + "; ".join(parts)) if parts else "other models' scores moved"


def compute_source_changes(old: Snapshot, new: Snapshot) -> list[SourceChange]:
    """Sources that failed (ok -> failed or missing) or recovered (failed or missing -> ok), NEW's order."""
    before = {s.name: s.status for s in old.sources}
    out: list[SourceChange] = []
    for s in new.sources:
        was = before.get(s.name)
        if was == "ok" and s.status != "ok":
            out.append(SourceChange(s.name, "failed", was, s.status, s.error))
        elif was is not None and was != "ok" and s.status == "ok":
            out.append(SourceChange(s.name, "recovered", was, s.status, None))
    return out


def compute_price_changes(old: Snapshot, new: Snapshot) -> list[PriceChange]:
    """Changed chosen token prices and build prices of models in both snapshots, by identity."""
    common = sorted(set(old.models) & set(new.models))
    ot, nt = _token_prices(old), _token_prices(new)
    ob, nb = _build_prices(old), _build_prices(new)
    out: list[PriceChange] = []
    for ident in common:
        a, b = ot.get(ident), nt.get(ident)
        if not same(a[0] if a else None, b[0] if b else None):
            out.append(PriceChange(ident, _name(new, ident), "token", a[0] if a else None, b[0] if b else None,
                                   a[1] if a else None, b[1] if b else None))
        if not same(ob.get(ident), nb.get(ident)):
            out.append(PriceChange(ident, _name(new, ident), "build", ob.get(ident), nb.get(ident), None, None))
    return out


def compute_method_change(old: Snapshot, new: Snapshot) -> MethodChange | None:
    """None when the method id is the same; else what the snapshots' configuration echoes differ in."""
    if old.method_id == new.method_id:
        return None
    details: list[str] = []
    for role in sorted(set(old.roles) | set(new.roles)):
        a, b = old.roles.get(role), new.roles.get(role)
        wa, wb = (dict(a.weights) if a else {}), (dict(b.weights) if b else {})
        if wa != wb:
            details.append(f"role {role} weights: {_weights(wa)} -> {_weights(wb)}")
    for fam in sorted(set(old.families) | set(new.families)):
        fa, fb = old.families.get(fam), new.families.get(fam)
        if (fa.feeds if fa else ()) != (fb.feeds if fb else ()):
            details.append(f"family {fam} feeds: {', '.join(fa.feeds) if fa else 'none'} -> "
                           f"{', '.join(fb.feeds) if fb else 'none'}")
    sa, sb = {s.name for s in old.sources}, {s.name for s in new.sources}
    if sb - sa:
        details.append("sources added: " + ", ".join(sorted(sb - sa)))
    if sa - sb:
        details.append("sources removed: " + ", ".join(sorted(sa - sb)))
    if not details:
        details.append("a setting outside the echoed weights, families and sources (prices, folding or aliases)")
    return MethodChange(old.method_id, new.method_id, tuple(details))


def _weights(w: Mapping[str, float]) -> str:
    return ", ".join(f"{k} {v:g}" for k, v in sorted(w.items())) or "none"


def compute_change_log(snapshots: Iterable[Snapshot], threshold: float = DEFAULT_THRESHOLD) -> list[dict[str, Any]]:
    """One diff document per snapshot date, oldest first, each against the snapshot dated before it.

    The first date has no predecessor: its document says so (``previous`` null) and lists no change.
    """
    by_date: dict[str, Snapshot] = {}
    for s in snapshots:
        by_date.setdefault(s.date, s)
    ordered = [by_date[d] for d in sorted(by_date)]
    docs: list[dict[str, Any]] = []
    for i, snap in enumerate(ordered):
        if i == 0:
            docs.append(first_document(snap, threshold))
        else:
            docs.append(diff_document(compute_diff(ordered[i - 1], snap, threshold), ordered[i - 1], snap))
    return docs


# --------------------------------------------------------------------------- output


def _head(new: Snapshot | None, threshold: float) -> dict[str, Any]:
    return {"format": DIFF_FORMAT, "threshold": threshold,
            "created_at": new.created_at if new is not None else None,
            "method_id": new.method_id if new is not None else None,
            "demo": new.demo if new is not None else None}


def first_document(snap: Snapshot, threshold: float) -> dict[str, Any]:
    """The document of the oldest snapshot: nothing to compare with."""
    return {**_head(snap, threshold), "previous": None, "date": snap.date, "count": 0, "summary": (
        "the first saved snapshot: nothing to compare with"), "new_models": [], "removed_models": [], "moves": [],
        "sources": [], "prices": [], "method": None, "boards": {b.id: b.title for b in snap.boards}}


def diff_document(diff: SnapshotDiff, old: Snapshot | None = None, new: Snapshot | None = None) -> dict[str, Any]:
    """The diff as JSON-able data (the ``--format json`` output, the page's download)."""
    return {
        **_head(new, diff.threshold),
        "previous": diff.old_date,
        "date": diff.new_date,
        "count": diff.count(),
        "summary": summarise(diff),
        "new_models": [_plain(m) for m in diff.new_models],
        "removed_models": [_plain(m) for m in diff.removed_models],
        "moves": [{**_plain(m), "reasons": [_plain(r) for r in m.reasons]} for m in diff.moves],
        "sources": [_plain(s) for s in diff.sources],
        "prices": [_plain(p) for p in diff.prices],
        "method": None if diff.method is None else {**_plain(diff.method), "details": list(diff.method.details)},
        "boards": dict(diff.boards),
    }


def _plain(obj: Any) -> dict[str, Any]:
    return {k: (list(v) if isinstance(v, tuple) else v) for k, v in vars(obj).items() if k != "reasons"}


def summarise(diff: SnapshotDiff) -> str:
    """One line: how many of each kind of change."""
    if diff.empty:
        return "no change"
    kinds = {"rank": 0, "entered": 0, "left": 0, "score": 0}
    for m in diff.moves:
        kinds[m.kind] += 1
    parts = [
        (len(diff.new_models), "new model", "new models"),
        (len(diff.removed_models), "removed model", "removed models"),
        (kinds["rank"], "rank move", "rank moves"),
        (kinds["entered"], "board entry", "board entries"),
        (kinds["left"], "board exit", "board exits"),
        (kinds["score"], "score move", "score moves"),
        (sum(1 for s in diff.sources if s.kind == "failed"), "source failure", "source failures"),
        (sum(1 for s in diff.sources if s.kind == "recovered"), "source recovery", "source recoveries"),
        (len(diff.prices), "price change", "price changes"),
        (1 if diff.method else 0, "method change", "method changes"),
    ]
    return ", ".join(f"{n} {one if n == 1 else many}" for n, one, many in parts if n)


def _price(x: float | None, unit: str) -> str:
    return "none" if x is None else f"${x:g}{unit}"


def render_diff_text(diff: SnapshotDiff) -> str:
    """The plain-text report of ``modelboards diff``."""
    lines = [f"changes {diff.old_date} -> {diff.new_date}: {summarise(diff)}"]
    if diff.method:
        lines.append(f"method: {diff.method.before} -> {diff.method.after}")
        lines.extend(f"  {d}" for d in diff.method.details)
    for title, models in (("new models", diff.new_models), ("removed models", diff.removed_models)):
        if models:
            lines.append(f"{title}:")
            lines.extend(f"  {m.name} ({m.identity})" + (f" ranked on {', '.join(m.boards)}" if m.boards else "")
                         for m in models)
    by_board: dict[str, list[BoardMove]] = {}
    for m in diff.moves:
        by_board.setdefault(m.board, []).append(m)
    for board, moves in by_board.items():
        lines.append(f"board {board}:")
        for m in moves:
            lines.append(f"  {move_text(m)}")
            lines.extend(f"    because {r.text}" for r in m.reasons)
    if diff.sources:
        lines.append("sources:")
        lines.extend(f"  {s.source} {s.kind} ({s.before} -> {s.after})" + (f": {s.error}" if s.error else "")
                     for s in diff.sources)
    if diff.prices:
        lines.append("prices:")
        for p in diff.prices:
            unit = "/M tokens" if p.price == "token" else "/build"
            lines.append(f"  {p.name} {p.price} price {_price(p.before, unit)} -> {_price(p.after, unit)}")
    return "\n".join(lines) + "\n"


def move_text(m: BoardMove) -> str:
    """One move as a phrase: ``gpt-6 rank 3 -> 2 (up 1)``."""
    if m.kind == "rank" and m.before is not None and m.after is not None:
        places = m.before - m.after
        return f"{m.name} rank {m.before} -> {m.after} ({'up' if places > 0 else 'down'} {abs(places)})"
    if m.kind == "entered":
        return f"{m.name} entered at rank {m.after}"
    if m.kind == "left":
        return f"{m.name} left (was rank {m.before})"
    delta = (m.r_after or 0.0) - (m.r_before or 0.0)
    return f"{m.name} score {m.before} -> {m.after} (R {delta:+.2f})"


__all__ = [
    "BoardMove", "DEFAULT_THRESHOLD", "MethodChange", "ModelChange", "PriceChange", "Reason", "SnapshotDiff",
    "SourceChange", "compute_change_log", "compute_diff", "diff_document", "render_diff_text", "summarise",
]
