"""Measured coverage of the Arena's intervals: battles from known strengths, the plain fit, both intervals.

One run draws ``n_battles`` battles among ``n_models`` models with strengths ~ N(1000, spread^2)
(``simulate.random_skills``, ``simulate.simulate_battles``: Zipf popularity, 10% ties), fits
the plain Bradley-Terry model (``bt.fit_bt``) and computes the seeded bootstrap
(``bootstrap.bootstrap_bt``) and sandwich (``sandwich.sandwich_bt``) 95% intervals. The truth
of a rated model of the main component is its strength shifted like the fit (mean over the
rated models equal to the fit's): an interval covers when it contains it. The role boards'
study is ``builder.scoring.simulate_coverage``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from builder.pairwise.bootstrap import bootstrap_bt
from builder.pairwise.bt import count_pairs, fit_bt
from builder.pairwise.sandwich import sandwich_bt
from builder.pairwise.simulate import random_skills, simulate_battles


@dataclass(frozen=True, slots=True)
class ArenaRun:
    bootstrap_hits: tuple[bool, ...]
    sandwich_hits: tuple[bool, ...]


def run_arena_once(n_models: int, n_battles: int, seed: int, rounds: int, *, spread: float = 120.0) -> ArenaRun:
    """Battles from known strengths (``simulate_battles``), the plain fit, both intervals, scored."""
    skills = random_skills(n_models, seed, spread=spread)
    sim = simulate_battles(skills, n_battles, seed=seed)
    counts = count_pairs(sim.to_battles())
    fit = fit_bt(counts, on_unidentifiable="drop")
    boot = bootstrap_bt(counts, fit, rounds, seed, workers=1)
    sand = sandwich_bt(counts, fit)
    rated = np.isfinite(fit.ratings) & (fit.component == 0)
    true = np.array([skills[m] for m in counts.models])
    true = true - true[rated].mean() + fit.ratings[rated].mean()
    b = (boot.lower <= true) & (true <= boot.upper)
    s = (sand.lower <= true) & (true <= sand.upper)
    return ArenaRun(tuple(bool(x) for x in b[rated]), tuple(bool(x) for x in s[rated]))


__all__ = ["ArenaRun", "run_arena_once"]
