"""The offline end-to-end Arena demo: simulate battles, fit them two ways, print the board.

``modelboards arena`` (and ``arena pipeline``) runs it with no files, keys or network:

1. latent skills: the default roster (eight models, ``DEFAULT_ROSTER``: offsets from the
   scale's centre), names given with ``--models a,b,c`` (evenly spaced ``NAME_STEP``
   points apart around the centre, first name strongest), or a count (``random_skills``);
2. battles drawn from those skills by ``builder.pairwise.simulate.simulate_battles``, each
   pair drawn uniformly by default (``zipf_exponent`` 0; a positive exponent gives the
   models Zipf popularity, as on a real arena, where rarely seen models are placed less surely);
3. the first few battles walked one by one with each online Elo update (``compute_elo_trace``);
4. Bradley-Terry maximum likelihood with percentile intervals from multinomial bootstrap
   rounds, and online Elo (k = 4) over the same battles in time order (``compute_demo_elo``);
5. the leaderboard by Bradley-Terry rating with the online Elo and the true skill beside
   it, how many positions each method put in the true order, and the win probability of
   every pair under the fitted ratings (``compute_win_probabilities``):

       P(A beats B) = 1 / (1 + base ** ((r_B - r_A) / scale))      (base 10, scale 400)

The skills are on the Arena scale centred on ``init`` (1000); the Bradley-Terry fit is
centred on the same mean, so with the default roster (mean offset 0) fitted ratings and
true skills are directly comparable.
"""

from __future__ import annotations

import math
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


@dataclass(frozen=True, slots=True)
class TraceStep:
    """One battle of the trace and the online Elo ratings of its two models around it."""

    number: int  # 1-based position in the battle sequence
    model_a: str
    model_b: str
    winner: str  # an ``OUTCOMES`` value
    before: tuple[float, float]  # (A, B) ratings before the battle
    after: tuple[float, float]  # (A, B) ratings after it


def compute_elo_trace(sim: SimulatedBattles, n: int, *, k: float = K, init: float = INIT) -> list[TraceStep]:
    """The first ``n`` battles with the online Elo update of each: the same arithmetic as
    ``compute_demo_elo`` (a model not seen yet starts at ``init``)."""
    names, outcomes = sim.models, list(OUTCOMES)
    steps: list[TraceStep] = []
    ratings: dict[str, float] = {}
    a_names = [names[x] for x in sim.model_a[:n].tolist()]
    b_names = [names[x] for x in sim.model_b[:n].tolist()]
    winners = [outcomes[o] for o in sim.outcome[:n].tolist()]
    c = math.log2(10.0) / 400.0
    for q, (ma, mb, w) in enumerate(zip(a_names, b_names, winners, strict=True)):
        ra, rb = ratings.get(ma, init), ratings.get(mb, init)
        # the update of ``online_elo_python``, term for term: R_A + k S_A - k E_A
        d = k / (1.0 + math.exp2(c * (rb - ra)))
        s = k * {"model_a": 1.0, "model_b": 0.0}.get(w, 0.5)
        ratings[ma], ratings[mb] = (ra + s) - d, (rb - s) + d
        steps.append(TraceStep(q + 1, ma, mb, w, (ra, rb), (ratings[ma], ratings[mb])))
    return steps


def render_elo_trace(steps: Sequence[TraceStep]) -> list[str]:
    """Text lines: each battle, then each side's rating before -> after (change)."""
    lines = []
    for st in steps:
        result = {"model_a": f"{st.model_a} wins", "model_b": f"{st.model_b} wins"}.get(st.winner, st.winner)
        lines.append(f"battle {st.number}: {st.model_a} vs {st.model_b} -> {result}")
        for m, b, a in ((st.model_a, st.before[0], st.after[0]), (st.model_b, st.before[1], st.after[1])):
            lines.append(f"  {m}: {b:.1f} -> {a:.1f} ({a - b:+.1f})")
    return lines


def compute_win_probabilities(ratings: Mapping[str, float], *, scale: float = 400.0,
                              base: float = 10.0) -> list[tuple[str, str, float]]:
    """(A, B, P(A beats B)) for every pair, A above B in the given order (strongest first)."""
    names = list(ratings)
    return [(a, b, 1.0 / (1.0 + base ** ((ratings[b] - ratings[a]) / scale)))
            for i, a in enumerate(names) for b in names[i + 1:]]


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
    zipf_exponent: float = 0.0,
) -> PipelineResult:
    """Simulate ``n_battles`` from ``skills`` (pairs uniform, or Zipf popularity with
    ``zipf_exponent`` > 0; a share ``anony_share`` of them anonymous), keep the anonymous ones
    when ``official`` (the published method), fit Bradley-Terry (``bootstrap`` rounds) and
    online Elo, and compare both orders with the truth. ``removed`` counts the battles the
    official filter dropped."""
    drawn = sim = simulate_battles(skills, n_battles, seed=seed, tie_prob=tie_prob, anony_share=anony_share,
                                   zipf_exponent=zipf_exponent)
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
    "TraceStep",
    "battle_rows",
    "compute_elo_trace",
    "compute_win_probabilities",
    "describe_skills",
    "parse_models_option",
    "recovery_line",
    "render_elo_trace",
    "run_arena_pipeline",
    "skills_for",
]
