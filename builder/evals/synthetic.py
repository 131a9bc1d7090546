"""The aggregator demo's suite: three models, twelve tasks, made up on the spot (offline).

``modelboards evals demo`` aggregates it and prints the leaderboard and the paired
differences. Model m has a quality q_m, task t a difficulty d_t ~ Normal(0, 0.8) (all draws
from ``numpy.random.default_rng(seed)``, in a fixed order); the score is

    score(m, t) = clip(1 / (1 + exp(-2.5 (q_m - d_t))) + e,  0, 1),   e ~ Normal(0, 0.05)

rounded to two decimals. The twelve tasks fall into three categories of four, so the
report also has per-category means. The qualities are spread so that the top two are close
(their paired difference may or may not exclude zero) and the third is clearly behind.
"""

from __future__ import annotations

import math

import numpy as np

from builder.evals.records import EvalRun

DEMO_MODELS: dict[str, float] = {"atlas-large": 1.0, "atlas-medium": 0.75, "tiny-baseline": -0.9}
"Model -> quality q_m (log-odds units)."
DEMO_CATEGORIES = ("math", "code", "reasoning")
TASKS_PER_CATEGORY = 4
DEMO_SEED = 3
METRIC = "accuracy"


def make_demo_runs(seed: int = DEMO_SEED) -> list[EvalRun]:
    """``len(DEMO_MODELS) * 12`` EvalRun records, by model then task, scores in [0, 1]."""
    rng = np.random.default_rng(seed)
    tasks = [(f"{cat}-{k + 1:02d}", cat) for cat in DEMO_CATEGORIES for k in range(TASKS_PER_CATEGORY)]
    difficulty = rng.normal(0.0, 0.8, len(tasks))
    runs = []
    for model, quality in DEMO_MODELS.items():
        noise = rng.normal(0.0, 0.05, len(tasks))
        for (task_id, cat), d, e in zip(tasks, difficulty, noise, strict=True):
            p = 1.0 / (1.0 + math.exp(-2.5 * (quality - float(d))))
            score = round(min(1.0, max(0.0, p + float(e))), 2)
            runs.append(EvalRun(model, task_id, METRIC, score, cat, origin=f"demo:{model}:{task_id}"))
    return runs


__all__ = ["DEMO_CATEGORIES", "DEMO_MODELS", "METRIC", "make_demo_runs"]
