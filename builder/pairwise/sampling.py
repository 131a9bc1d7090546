"""A seeded random subsample of battles (``--sample N`` on ``arena fit`` and ``arena history``).

The sample is drawn without replacement, uniformly over the battles that survived bad rows
and filters: ``rows = sort(default_rng(seed).choice(n_battles, N, replace=False))``. The
rows keep their file order, so online Elo and the history slices see the sampled battles
in the same relative order as the full file.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from builder.errors import UserError
from builder.pairwise.battles import Battles


@dataclass(frozen=True, slots=True)
class SampleNote:
    """What sampling did: battles kept out of those available, and the seed."""

    kept: int
    available: int
    seed: int

    def line(self) -> str:
        if self.kept == self.available:
            return f"sample: all {self.available} battles (asked for at least as many as there are)"
        return f"sample: {self.kept} of {self.available} battles, drawn without replacement (seed {self.seed})"


def sample_rows(total: int, n: int | None, seed: int) -> tuple[np.ndarray | None, SampleNote | None]:
    """The sorted rows of ``n`` of ``total`` battles drawn at random (seeded), or None for all
    of them (``n`` None or at least ``total``). The note is None when no sample was asked for."""
    if n is None:
        return None, None
    if n < 1:
        raise UserError(f"--sample {n}: must be at least 1")
    if n >= total:
        return None, SampleNote(total, total, seed)
    rows = np.sort(np.random.default_rng(seed).choice(total, size=n, replace=False))
    return rows, SampleNote(n, total, seed)


def sample_battles(battles: Battles, n: int | None, seed: int) -> tuple[Battles, SampleNote | None]:
    """``n`` battles drawn at random (seeded), in file order; all of them when ``n`` is None
    or at least ``len(battles)``. The note is None when no sample was asked for."""
    rows, note = sample_rows(len(battles), n, seed)
    return (battles if rows is None else battles.take(rows)), note


__all__ = ["SampleNote", "sample_battles", "sample_rows"]
