"""Rating-change statistics over a rating history (cumulative slices, oldest first).

For each model, over the slices in which it has a rating (in date order), with ratings
r_1 .. r_n (Arena scale):

    initial = r_1          final = r_n          change = r_n - r_1
    highest = max r_k      lowest = min r_k
    volatility = sqrt(sum_k (r_k - mean r)^2 / (n - 1))   the sample standard deviation of
                 the model's n ratings over the slices; None with fewer than two slices
    total_matches = the model's cumulative battles in its last rated slice (None when the
                 history does not carry per-model battle counts)

A slice in which a model has no rating (not yet played, or no finite fit yet) is skipped,
so its first change runs from its first rated slice. Models are ordered by final rating,
those rated in the newest slice first.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class RatingChange:
    """One model's rating path through the history; ratings on the Arena scale."""

    model: str
    slices: int  # slices with a rating
    first_date: str  # ISO date of the first rated slice
    last_date: str  # ISO date of the last rated slice
    initial: float
    final: float
    change: float  # final - initial
    highest: float
    lowest: float
    volatility: float | None  # sample std of the ratings over the slices; None with < 2 slices
    total_matches: int | None = None  # battles up to the last rated slice

    def to_json(self) -> dict[str, Any]:
        out = asdict(self)
        for k in ("initial", "final", "change", "highest", "lowest", "volatility"):
            if out[k] is not None:
                out[k] = round(out[k], 2)
        return out


def compute_volatility(values: Sequence[float]) -> float | None:
    """Sample standard deviation (ddof = 1) of ``values`` (a model's ratings over the slices);
    None with fewer than two values."""
    if len(values) < 2:
        return None
    mean = sum(values) / len(values)
    return math.sqrt(sum((v - mean) ** 2 for v in values) / (len(values) - 1))


def compute_rating_changes(
    slices: Iterable[tuple[str, Mapping[str, float]]],
    matches: Mapping[str, Mapping[str, int | None]] | None = None,
) -> list[RatingChange]:
    """Per-model statistics from ``(date, {model: rating})`` slices (any order; sorted by date).

    Non-finite ratings count as "no rating in that slice". ``matches``: date -> model ->
    cumulative battles, for ``total_matches``.
    """
    ordered = sorted(slices, key=lambda s: s[0])
    paths: dict[str, list[tuple[str, float]]] = {}
    for day, ratings in ordered:
        for model, r in ratings.items():
            if isinstance(r, (int, float)) and not isinstance(r, bool) and math.isfinite(r):
                paths.setdefault(model, []).append((day, float(r)))
    newest = ordered[-1][0] if ordered else None
    out = []
    for model, path in paths.items():
        values = [r for _, r in path]
        total = (matches or {}).get(path[-1][0], {}).get(model)
        out.append(RatingChange(
            model=model, slices=len(values), first_date=path[0][0], last_date=path[-1][0],
            initial=values[0], final=values[-1], change=values[-1] - values[0],
            highest=max(values), lowest=min(values), volatility=compute_volatility(values),
            total_matches=None if total is None else int(total),
        ))
    out.sort(key=lambda c: (c.last_date != newest, -c.final, c.model))
    return out


def changes_from_history_section(history: Sequence[Mapping[str, Any]]) -> list[RatingChange]:
    """The statistics of a saved history (``[{date, models: [{model, rating, ...}]}]``)."""
    slices = []
    matches: dict[str, dict[str, int | None]] = {}
    for s in history:
        entries = [m for m in s.get("models") or [] if isinstance(m.get("model"), str)]
        slices.append((str(s["date"]), {m["model"]: m.get("rating") for m in entries}))
        matches[str(s["date"])] = {m["model"]: m.get("matches") for m in entries}
    return compute_rating_changes(slices, matches)


def render_changes_table(changes: Sequence[RatingChange], top_n: int | None = None) -> str:
    """A fixed-width text table of the first ``top_n`` models (all when None)."""
    shown = list(changes[:top_n] if top_n is not None else changes)
    if not shown:
        return "no rated models in the history\n"
    width = max(len("model"), *(len(c.model) for c in shown))
    head = (f"{'model':<{width}}  {'first':>10}  {'initial':>8}  {'final':>8}  {'change':>7}  "
            f"{'highest':>8}  {'lowest':>8}  {'volatility':>10}  {'slices':>6}  {'matches':>8}")
    lines = [head]
    for c in shown:
        vol = "-" if c.volatility is None else f"{c.volatility:.1f}"
        total = "-" if c.total_matches is None else str(c.total_matches)
        lines.append(f"{c.model:<{width}}  {c.first_date:>10}  {c.initial:>8.1f}  {c.final:>8.1f}  {c.change:>+7.1f}  "
                     f"{c.highest:>8.1f}  {c.lowest:>8.1f}  {vol:>10}  {c.slices:>6}  {total:>8}")
    if len(shown) < len(changes):
        lines.append(f"... {len(changes) - len(shown)} more")
    return "\n".join(lines) + "\n"


__all__ = [
    "RatingChange",
    "changes_from_history_section",
    "compute_rating_changes",
    "compute_volatility",
    "render_changes_table",
]
