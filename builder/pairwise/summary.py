"""What a battles file holds, as the loader reports it: the outcome distribution and the
models that appear most.

Over the kept battles (after bad rows and filters), with n battles in all:

    outcomes[o] = battles with outcome o (model_a, model_b, tie, tie (bothbad)); share = outcomes[o] / n
    appearances[m] = battles in which m is model_a + battles in which m is model_b

so the appearances add up to 2n. The top list orders by appearances, then name.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from builder.pairwise.battles import OUTCOMES


@dataclass(frozen=True, slots=True)
class BattleSummary:
    """Outcome counts (in ``OUTCOMES`` order) and every model's appearances, most first."""

    n_battles: int
    outcomes: tuple[tuple[str, int], ...]
    appearances: tuple[tuple[str, int], ...]


def compute_battle_summary(models: tuple[str, ...], model_a: np.ndarray, model_b: np.ndarray, outcome: np.ndarray,
                           count: np.ndarray | None = None) -> BattleSummary:
    """The summary of battles given as codes, shape (n,) each; ``count``: battles per row
    (grouped rows), 1 each when None."""
    w = np.ones(model_a.shape[0], dtype=np.int64) if count is None else np.asarray(count, dtype=np.int64)
    per_outcome = np.bincount(outcome.astype(np.int64), weights=w, minlength=len(OUTCOMES))
    seen = (np.bincount(model_a.astype(np.int64), weights=w, minlength=len(models))
            + np.bincount(model_b.astype(np.int64), weights=w, minlength=len(models)))
    order = sorted(range(len(models)), key=lambda k: (-seen[k], models[k]))
    return BattleSummary(
        n_battles=int(w.sum()),
        outcomes=tuple((name, int(per_outcome[k])) for k, name in enumerate(OUTCOMES)),
        appearances=tuple((models[k], int(seen[k])) for k in order),
    )


def render_battle_summary(summary: BattleSummary, top: int = 10) -> list[str]:
    """The summary as text lines: one per outcome (count and share), then the ``top`` models."""
    n = max(summary.n_battles, 1)
    width = max(len(name) for name, _ in summary.outcomes)
    lines = [f"outcome distribution ({summary.n_battles} battles):"]
    lines += [f"  {name:<{width}}  {c:>9}  {c / n:6.1%}" for name, c in summary.outcomes]
    shown = summary.appearances[:top]
    lines.append(f"models with the most appearances ({len(shown)} of {len(summary.appearances)}):")
    mw = max((len(m) for m, _ in shown), default=0)
    lines += [f"  {m:<{mw}}  {c:>9}" for m, c in shown]
    return lines


__all__ = ["BattleSummary", "compute_battle_summary", "render_battle_summary"]
