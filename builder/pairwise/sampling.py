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


def sample_battles(battles: Battles, n: int | None, seed: int) -> tuple[Battles, SampleNote | None]:
    """``n`` battles drawn at random (seeded), in file order; all of them when ``n`` is None
    or at least ``len(battles)``. The note is None when no sample was asked for."""
    if n is None:
        return battles, None
    if n < 1:
        raise UserError(f"--sample {n}: must be at least 1")
    total = len(battles)
    if n >= total:
        return battles, SampleNote(total, total, seed)
    rows = np.sort(np.random.default_rng(seed).choice(total, size=n, replace=False))
    return battles.take(rows), SampleNote(n, total, seed)


__all__ = ["SampleNote", "sample_battles"]
