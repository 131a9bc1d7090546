"""The offline end-to-end Arena demo: simulate battles, fit them two ways, print the board.

``modelboards arena`` (and ``arena pipeline``) runs it with no files, keys or network:

1. latent skills: the default roster (eight models, ``DEFAULT_ROSTER``: offsets from the
   scale's centre), names given with ``--models a,b,c`` (evenly spaced ``NAME_STEP``
   points apart around the centre, first name strongest), or a count (``random_skills``);
2. battles drawn from those skills by ``builder.pairwise.simulate.simulate_battles``;
3. Bradley-Terry maximum likelihood with percentile intervals from multinomial bootstrap
   rounds, and online Elo (k = 4) over the same battles in time order (``compute_demo_elo``);
4. the leaderboard by Bradley-Terry rating with the online Elo and the true skill beside
   it, and how many positions each method put in the true order.

The skills are on the Arena scale centred on ``init`` (1000); the Bradley-Terry fit is
centred on the same mean, so with the default roster (mean offset 0) fitted ratings and
true skills are directly comparable.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace

import numpy as np

from builder.errors import UserError
from builder.pairwise.arena import fit_rating_table
from builder.pairwise.battles import OUTCOMES
from builder.pairwise.elo import INIT, K, online_elo_python
from builder.pairwise.leaderboard import Leaderboard, LeaderboardRow, order_rows
from builder.pairwise.simulate import SimulatedBattles, random_skills, simulate_battles

DEFAULT_ROSTER: dict[str, float] = {
    "claude-opus-5.5": 180.0,
    "gpt-6": 130.0,
    "gemini-3-pro": 75.0,
    "grok-5": 30.0,
    "deepseek-v4": -15.0,
    "qwen4-235b-a22b": -60.0,
    "llama-5-70b": -120.0,
    "gemma-4-12b": -220.0,
}
"Latent skills of the demo's eight models, as offsets from the scale's centre (mean 0)."
NAME_STEP = 60.0
"Points between consecutive named models in ``--models a,b,c`` (the first is strongest)."
DEFAULT_BATTLES = 5000
DEFAULT_BOOTSTRAP = 100


def parse_models_option(value: str | None) -> int | list[str] | None:
    """``--models``: a count (``8``) or comma-separated names (``a,b,c``); None when absent."""
    if value is None:
        return None
    text = value.strip()
    if text.isdigit():
        n = int(text)
        if n < 2:
            raise UserError(f"--models {value}: need at least 2 models")
        return n
    names = [m.strip() for m in text.split(",") if m.strip()]
    if len(names) < 2:
        raise UserError(f"--models {value!r}: give a count or at least two comma-separated names")
    if len(set(names)) != len(names):
        dup = next(m for m in names if names.count(m) > 1)
        raise UserError(f"--models {value!r}: {dup!r} is named twice")
    return names


def skills_for(models: int | list[str] | None, *, centre: float = INIT, seed: int = 0) -> dict[str, float]:
    """Latent skills (Arena scale) for the ``--models`` value, centred on ``centre``."""
    if models is None:
        return {m: centre + off for m, off in DEFAULT_ROSTER.items()}
    if isinstance(models, int):
        return {m: s - INIT + centre for m, s in random_skills(models, seed).items()}
    n = len(models)
    return {m: centre + NAME_STEP * ((n - 1) / 2 - k) for k, m in enumerate(models)}


@dataclass(frozen=True, eq=False, slots=True)
class PipelineResult:
    """The simulation, the board (Bradley-Terry rows with Elo and truth), and the recovery."""

    skills: dict[str, float]
    simulated: SimulatedBattles
    board: Leaderboard
    bootstrap: int
    bt_in_place: int  # models whose Bradley-Terry position equals their true position
    elo_in_place: int  # the same for online Elo
    removed: dict[str, int] = field(default_factory=dict)  # official filter -> simulated battles it dropped


def compute_demo_elo(sim: SimulatedBattles, *, k: float = K, init: float = INIT) -> dict[str, float]:
    """Online Elo over the simulated battles (already in time order), model -> rating.

    The demo's few thousand battles take milliseconds in the plain-Python loop, which gives
    the compiled loop's numbers bit for bit, while starting the compiled one costs a second
    of numba start-up: the bare command should answer fast.
    """
    names = sim.models
    outcomes = list(OUTCOMES)
    result = online_elo_python([names[a] for a in sim.model_a.tolist()], [names[b] for b in sim.model_b.tolist()],
                               [outcomes[o] for o in sim.outcome.tolist()], k=k, init=init)
    return {m: v[0] for m, v in result.items()}


def _positions(values: Mapping[str, float]) -> dict[str, int]:
    ordered = sorted(values, key=lambda m: (-values[m], m))
    return {m: k for k, m in enumerate(ordered)}


def run_arena_pipeline(
    skills: Mapping[str, float],
    *,
    n_battles: int = DEFAULT_BATTLES,
    seed: int = 0,
    tie_prob: float = 0.1,
    bootstrap: int = DEFAULT_BOOTSTRAP,
    init: float = INIT,
    elo_k: float = K,
    anchor: tuple[str, float] | None = None,
    workers: int | None = 1,
    anony_share: float = 1.0,
    official: bool = True,
) -> PipelineResult:
    """Simulate ``n_battles`` from ``skills`` (a share ``anony_share`` of them anonymous), keep
    the anonymous ones when ``official`` (the published method), fit Bradley-Terry
    (``bootstrap`` rounds) and online Elo, and compare both orders with the truth.
    ``removed`` counts the battles the official filter dropped."""
    drawn = sim = simulate_battles(skills, n_battles, seed=seed, tie_prob=tie_prob, anony_share=anony_share)
    removed: dict[str, int] = {}
    if official:
        keep = np.asarray(sim.anony, dtype=bool)
        removed["anony"] = int((~keep).sum())
        if removed["anony"]:
            sim = replace(sim, model_a=sim.model_a[keep], model_b=sim.model_b[keep], outcome=sim.outcome[keep],
                          tstamp=sim.tstamp[keep], anony=sim.anony[keep],
                          style_a=None if sim.style_a is None else sim.style_a[keep],
                          style_b=None if sim.style_b is None else sim.style_b[keep])
    battles = sim.to_battles()
    rows, _ = fit_rating_table(battles, method="bt", bootstrap=bootstrap, seed=seed, anchor=anchor,
                               workers=workers, on_unidentifiable="drop", init=init)
    elo = compute_demo_elo(sim, k=elo_k, init=init)
    board_rows = []
    for r in rows:
        board_rows.append(LeaderboardRow(
            model=r["model"], rating=r["rating"], lower=r["lower"], upper=r["upper"], rank=r["rank"],
            rank_ub=r["rank_ub"], battles=r["battles"], win_rate=r["win_rate"],
            elo=round(elo[r["model"]], 2), truth=float(skills[r["model"]]), component=r["component"],
        ))
    rated = {r.model for r in board_rows}
    truth = _positions({m: float(skills[m]) for m in rated})
    bt = _positions({r.model: r.rating for r in board_rows})
    el = _positions({r.model: float(r.elo) for r in board_rows if r.elo is not None and np.isfinite(r.elo)})
    return PipelineResult(
        skills=dict(skills), simulated=drawn,
        board=Leaderboard(order_rows(board_rows), "simulated battles"), bootstrap=bootstrap, removed=removed,
        bt_in_place=sum(bt[m] == truth[m] for m in rated),
        elo_in_place=sum(el.get(m) == truth[m] for m in rated),
    )


def describe_skills(skills: Mapping[str, float]) -> list[str]:
    """One line per model, strongest first: the true skills the battles were drawn from."""
    width = max(len(m) for m in skills)
    return [f"  {m:<{width}}  {s:8.1f}" for m, s in sorted(skills.items(), key=lambda kv: (-kv[1], kv[0]))]


def recovery_line(result: PipelineResult) -> str:
    n = len(result.board.rows)
    return (f"true order recovered: Bradley-Terry {result.bt_in_place} of {n} positions, "
            f"online Elo {result.elo_in_place} of {n}")


def battle_rows(result: PipelineResult) -> Sequence[dict[str, object]]:
    """The simulated battles in the clean_battle schema (for ``--output``)."""
    return list(result.simulated.rows())


__all__ = [
    "DEFAULT_BATTLES",
    "DEFAULT_BOOTSTRAP",
    "DEFAULT_ROSTER",
    "NAME_STEP",
    "PipelineResult",
    "battle_rows",
    "describe_skills",
    "parse_models_option",
    "recovery_line",
    "run_arena_pipeline",
    "skills_for",
]
