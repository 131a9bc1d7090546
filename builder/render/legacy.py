"""Rendering a snapshot saved before the single-source rule (seed 004, "Combine families").

The rule: a model with exactly one contributing independent evaluator is shown in the board's
"New, not enough ratings yet" strip, without a rank, and likewise in each home-computer
machine's New strip rather than among its ranked picks. A snapshot
records that it was scored under the rule in ``snapshot["method"]["single_source_rule"]``
(``true``); a snapshot without that field (or with ``false``) is from before the rule.

Rendering such a snapshot applies the rule to what it saved:

- on every board, ranked rows whose ``evaluators`` list has exactly one entry move to the
  "new" strip (rank null); the rows left are ranked again with competition ranks on their
  unrounded R (``rank = 1 + number of rows with a strictly greater r``), ties in ascending
  model spelling;
- on every home-computer machine such rows move to the machine's "new" strip (rank null)
  and the rest are ranked again by (partial last, R descending), ties sharing a rank;
- on each board or machine where that filtering changed the ranking, the saved movement
  labels compare against a ranking that no longer exists, so they are all suppressed
  (``movement`` null) and the page says why (``MOVEMENT_NOTE``, for the boards and machines
  that ``LegacyRuleResult`` names). Boards the filtering
  leaves unchanged keep their labels.

Rows without an ``evaluators`` list cannot be judged and stay where they are. The saved
snapshot itself is never modified: the rule works on a copy.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

METHOD_FIELD = "method"
RULE_FIELD = "single_source_rule"
MOVEMENT_NOTE = ("This snapshot was saved before the single-source rule: models with one independent evaluator "
                 "now sit under New, not enough ratings yet, so the ranking changed and its saved movement labels "
                 "are not shown.")


@dataclass(frozen=True, slots=True)
class LegacyRuleResult:
    """What applying the rule changed: boards and machines (ids) whose ranking changed, and
    the identities moved off each."""

    pre_rule: bool
    boards: tuple[str, ...] = ()
    machines: tuple[str, ...] = ()
    moved: tuple[tuple[str, tuple[str, ...]], ...] = ()

    def warning(self) -> str | None:
        if not (self.boards or self.machines):
            return None
        where = ", ".join([*self.boards, *self.machines])
        n = sum(len(ids) for _, ids in self.moved)
        return (f"snapshot predates the single-source rule: {n} single-evaluator placement(s) moved off the "
                f"ranking of {where}; movement labels hidden there")


def single_source_rule_applied(snapshot: Mapping[str, Any]) -> bool:
    """True when the snapshot says it was scored under the single-source rule."""
    method = snapshot.get(METHOD_FIELD)
    return isinstance(method, Mapping) and method.get(RULE_FIELD) is True


def _single_source(row: Mapping[str, Any]) -> bool:
    ev = row.get("evaluators")
    return isinstance(ev, list) and len(ev) == 1


def _r(row: Mapping[str, Any]) -> float:
    r = row.get("r")
    return float(r) if isinstance(r, (int, float)) and not isinstance(r, bool) else float("-inf")


def competition_ranks(keys: Sequence[tuple[Any, ...]]) -> list[int]:
    """Ranks of rows already sorted by ``keys`` (smaller = better): equal keys share a rank."""
    ranks: list[int] = []
    for i, k in enumerate(keys):
        ranks.append(ranks[-1] if i and k == keys[i - 1] else i + 1)
    return ranks


def _rerank_board(board: dict[str, Any]) -> tuple[bool, tuple[str, ...]]:
    rows = list(board.get("rows") or [])
    moved = [r for r in rows if _single_source(r)]
    if not moved:
        return False, ()
    kept = sorted((r for r in rows if not _single_source(r)), key=lambda r: (-_r(r), str(r.get("model") or "")))
    for row, rank in zip(kept, competition_ranks([(-_r(r),) for r in kept]), strict=True):
        row["rank"] = rank
        row["movement"] = None
    for row in moved:
        row["rank"] = None
        row["movement"] = None
    strip = list(board.get("new") or []) + moved
    strip.sort(key=lambda r: (-_r(r), str(r.get("model") or "")))
    board["rows"], board["new"] = kept, strip
    return True, tuple(str(r.get("identity")) for r in moved)


def _rerank_machine(machine: dict[str, Any]) -> tuple[bool, tuple[str, ...]]:
    rows = list(machine.get("rows") or [])
    moved = [r for r in rows if _single_source(r)]
    if not moved:
        return False, ()
    def key(r: Mapping[str, Any]) -> tuple[Any, ...]:
        return (bool(r.get("partial")), -_r(r))
    kept = sorted((r for r in rows if not _single_source(r)), key=lambda r: (*key(r), str(r.get("model") or "")))
    for row, rank in zip(kept, competition_ranks([key(r) for r in kept]), strict=True):
        row["rank"] = rank
        row["movement"] = None
    for row in moved:
        row["rank"] = None
        row["movement"] = None
    strip = list(machine.get("new") or []) + moved
    strip.sort(key=lambda r: (*key(r), str(r.get("model") or "")))
    machine["rows"], machine["new"] = kept, strip
    return True, tuple(str(r.get("identity")) for r in moved)


def apply_single_source_rule(snapshot: Mapping[str, Any]) -> tuple[dict[str, Any], LegacyRuleResult]:
    """The snapshot as rendered: unchanged (a shallow copy) when it was scored under the rule,
    else a deep copy with the rule applied to its boards and machines."""
    if single_source_rule_applied(snapshot):
        return dict(snapshot), LegacyRuleResult(pre_rule=False)
    snap = copy.deepcopy(dict(snapshot))
    boards, machines, moved = [], [], []
    for b in snap.get("boards") or []:
        if isinstance(b, dict):
            changed, ids = _rerank_board(b)
            if changed:
                boards.append(str(b.get("id")))
                moved.append((str(b.get("id")), ids))
    for m in snap.get("machines") or []:
        if isinstance(m, dict):
            changed, ids = _rerank_machine(m)
            if changed:
                machines.append(str(m.get("id")))
                moved.append((str(m.get("id")), ids))
    return snap, LegacyRuleResult(True, tuple(boards), tuple(machines), tuple(moved))


__all__ = [
    "METHOD_FIELD",
    "MOVEMENT_NOTE",
    "RULE_FIELD",
    "LegacyRuleResult",
    "apply_single_source_rule",
    "competition_ranks",
    "single_source_rule_applied",
]
