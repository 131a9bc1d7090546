"""Typed records of the eval-suite stage.

    read   -> EvalRun            (one score of one model on one task for one metric)
    clarify-> ClarifyScore       (TKQR / ORA / turns / diff of one clarification run record)
    compute-> EvalReport         (LeaderboardRow per model + PairwiseRow per pair, one metric)

``EvalRun`` lives here rather than in ``builder/records.py`` because only this stage and
the snapshot use it; every score is a proportion in [0, 1].
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True, slots=True)
class EvalRun:
    """One score of one model on one task for one metric.

    ``score`` is a proportion in [0, 1] (normalisation happens upstream, in the metric).
    ``category`` groups tasks (``"code"``, ``"math"``); ``weight`` is the task's weight
    (> 0, used only when the aggregator is asked to weight tasks). ``origin`` is
    ``"file:line"`` (or ``"file:row N"``) for error messages and is not part of equality.
    """

    model_id: str
    task_id: str
    metric_name: str
    score: float
    category: str | None = None
    weight: float | None = None
    origin: str = field(default="", compare=False)


@dataclass(frozen=True, slots=True)
class LeaderboardRow:
    """One model's line on a suite board, for one metric.

    ``mean_score`` and the CI bounds are on the metric's [0, 1] scale; ``win_rate`` is the
    share of the model's tasks it won (ties split 1/k), in [0, 1]; ``categories`` maps a
    category to the model's mean score on that category's tasks.
    """

    model_id: str
    mean_score: float
    mean_ci_lo: float
    mean_ci_hi: float
    win_rate: float
    tasks_completed: int
    categories: Mapping[str, float] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {
            "model_id": self.model_id,
            "mean_score": self.mean_score,
            "mean_ci_lo": self.mean_ci_lo,
            "mean_ci_hi": self.mean_ci_hi,
            "win_rate": self.win_rate,
            "tasks_completed": self.tasks_completed,
            "categories": dict(self.categories),
        }


@dataclass(frozen=True, slots=True)
class PairwiseRow:
    """Paired bootstrap of ``score_a - score_b`` over the tasks both models have.

    ``diff`` is the (weighted) mean per-task difference; ``ci_lo``/``ci_hi`` its percentile
    bootstrap interval. ``significant`` is True when the interval excludes zero; otherwise
    the pair counts as tied. With no common task every number is None.
    """

    model_a: str
    model_b: str
    diff: float | None
    ci_lo: float | None
    ci_hi: float | None
    n_tasks: int
    significant: bool

    def to_json(self) -> dict[str, Any]:
        return {
            "model_a": self.model_a,
            "model_b": self.model_b,
            "diff": self.diff,
            "ci_lo": self.ci_lo,
            "ci_hi": self.ci_hi,
            "n_tasks": self.n_tasks,
            "significant": self.significant,
        }


@dataclass(frozen=True, slots=True)
class EvalReport:
    """The board of one metric: rows sorted by mean (best first) and every pair.

    ``n_tasks`` counts the distinct tasks any model has for this metric; ``categories``
    lists the task categories in sorted order (empty when no record has one).
    """

    metric: str
    rows: tuple[LeaderboardRow, ...]
    pairwise: tuple[PairwiseRow, ...]
    n_tasks: int
    categories: tuple[str, ...]
    bootstrap: int
    alpha: float
    seed: int
    weighted: bool
    stratified: bool

    def to_json(self) -> dict[str, Any]:
        return {
            "metric": self.metric,
            "n_tasks": self.n_tasks,
            "n_models": len(self.rows),
            "categories": list(self.categories),
            "bootstrap": self.bootstrap,
            "alpha": self.alpha,
            "seed": self.seed,
            "weighted": self.weighted,
            "stratified": self.stratified,
            "rows": [r.to_json() for r in self.rows],
            "pairwise": [p.to_json() for p in self.pairwise],
        }


@dataclass(frozen=True, slots=True)
class ClarifyScore:
    """Seed 002's per-record scores of one clarification run record.

    ``tkqr`` and ``ora`` are in [0, 1]; ``turns`` is the number of question rounds
    (responses - 1); ``diff`` = turns - K. ``task_id`` is the record's ``task_id`` or
    ``id``, else ``"<file relative to the run directory>:<line>"``; ``model`` is the run
    directory's name or the ``--model`` override; ``origin`` is ``"path: line N"``.
    """

    model: str
    task_id: str
    tkqr: float
    ora: float
    turns: float
    diff: float
    key_questions: int
    responses: int
    file: str
    origin: str
    category: str | None = None


@dataclass(frozen=True, slots=True)
class ClarifySummary:
    """Seed 002's averages over a set of records: counts and four means."""

    num_tasks: int
    num_files: int
    tkqr: float
    ora: float
    avg_turns: float
    avg_diff: float
    tkqr_above_one: int = 0  # records with more hits than key questions (TKQR > 1, averaged as computed)

    def to_json(self) -> dict[str, Any]:
        return {
            "num_tasks": self.num_tasks,
            "num_files": self.num_files,
            "TKQR": self.tkqr,
            "ORA": self.ora,
            "avg_turns": self.avg_turns,
            "avg_diff": self.avg_diff,
            "tkqr_above_one": self.tkqr_above_one,
        }
