"""Simulated battles from known latent skills, to show the fit recovers the truth.

Generative model, battle by battle (all draws from ``numpy.random.default_rng(seed)``):

1. a time t, uniform over [start, end + 1 day) UTC (rows come out in time order);
2. model A and then model B != A, each with probability proportional to its popularity
   among the models that have debuted by t. Popularity is Zipf-like:
   ``w_k = 1 / rank_k ** zipf_exponent`` over a random ranking of the models;
3. a tie with probability ``tie_prob`` = tau (a share ``bothbad_share`` of them written
   ``tie (bothbad)``), otherwise A wins with probability q = (p - tau/2) / (1 - tau),
   clipped to [0, 1], where p = 1 / (1 + base ** ((s_B - s_A) / scale)) is the
   Bradley-Terry probability of the latent skills s (Arena scale). So A's expected score,
   a tie counting one half, is p: the quantity the Bradley-Terry fit with half-ties
   matches, which makes the skills recoverable (ties drawn independently of p instead
   would pull every fitted gap towards zero);
4. ``anony`` true with probability ``anony_share``.

Style (optional, ``style=StyleSpec(...)``): every answer gets ``conv_metadata`` counts as
LMArena's vote dumps carry them, drawn after everything above from a child stream of the
seed. Model k writes answers of ``round(exp(ln(base_tokens) + v_k + e))`` tokens with
e ~ N(0, 0.5^2), where its verbosity v_k ~ N(0, verbosity_sd^2) unless ``verbose`` names
it; headers, bold spans and list items are Poisson with means 0.8, 1.5 and 3 times
exp(m_k), m_k ~ N(0, markdown_sd^2), each split over its dict keys by a fixed rule. Then
the true style effect enters the Bradley-Terry probability of step 3 in log-odds units::

    logit p = (s_A - s_B) ln(base) / scale + sum_f effect_f * (x_A,f - x_B,f) / (x_A,f + x_B,f)

(a zero denominator replaced by 1), so a verbose model wins more often than its skill s
says: a style-controlled fit should take that back, a plain fit cannot.

Debuts: with ``debut_spread = f`` > 0 every model but the two most popular debuts at a time
uniform over the first fraction f of the range, so models enter the history one by one.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from builder.errors import UserError
from builder.pairwise.battles import (
    BAD_KINDS,
    OUTCOMES,
    TIE,
    TIE_BOTHBAD,
    WIN_A,
    WIN_B,
    BattleReport,
    Battles,
)


@dataclass(frozen=True, slots=True)
class StyleSpec:
    """The true style effect of a simulation (see the module docstring)."""

    effect: Mapping[str, float]  # feature (tokens, headers, bold, lists) -> log-odds per unit of raw f
    verbose: Mapping[str, float] = field(default_factory=dict)  # model -> verbosity v_k (log tokens)
    verbosity_sd: float = 0.2
    markdown_sd: float = 0.3
    base_tokens: float = 450.0


STYLE_COLUMNS: tuple[str, ...] = ("tokens", "headers", "bold", "lists")
"Columns of ``SimulatedBattles.style_a`` / ``style_b``."


@dataclass(frozen=True, eq=False, slots=True)
class SimulatedBattles:
    """Simulated battles with the truth that made them; arrays shape (n_battles,)."""

    models: tuple[str, ...]
    skills: np.ndarray  # (n_models,) latent skills, Arena scale
    popularity: np.ndarray  # (n_models,) sampling weights, sum 1
    debut: np.ndarray  # (n_models,) Unix seconds
    model_a: np.ndarray  # int32
    model_b: np.ndarray  # int32
    outcome: np.ndarray  # int8 codes into OUTCOMES
    tstamp: np.ndarray  # float64 Unix seconds, ascending
    anony: np.ndarray  # bool
    style_a: np.ndarray | None = None  # int64 (n_battles, 4): A's counts per STYLE_COLUMNS
    style_b: np.ndarray | None = None
    style: StyleSpec | None = None

    def to_battles(self) -> Battles:
        n = int(self.model_a.size)
        report = BattleReport("<simulated>", n, dict.fromkeys(BAD_KINDS, 0), {}, n)
        return Battles(self.models, self.model_a, self.model_b, self.outcome, self.tstamp, report)

    def rows(self) -> Iterator[dict[str, Any]]:
        """Battle dicts in the clean_battle schema (tstamp rounded to the second)."""
        names = self.models
        rows = zip(
            self.model_a.tolist(), self.model_b.tolist(), self.outcome.tolist(), self.tstamp.tolist(),
            self.anony.tolist(),
            strict=True,
        )
        if self.style_a is None or self.style_b is None:
            for a, b, o, t, an in rows:
                yield {"model_a": names[a], "model_b": names[b], "winner": OUTCOMES[o], "tstamp": int(t), "anony": an}
            return
        for (a, b, o, t, an), sa, sb in zip(rows, self.style_a.tolist(), self.style_b.tolist(), strict=True):
            yield {"model_a": names[a], "model_b": names[b], "winner": OUTCOMES[o], "tstamp": int(t), "anony": an,
                   "conv_metadata": conv_metadata(sa, sb)}


def conv_metadata(sa: list[int], sb: list[int]) -> dict[str, Any]:
    """LMArena's ``conv_metadata`` object for two sides' (tokens, headers, bold, lists) counts.

    The dict-valued counts are split over their keys by a fixed rule (their sum is the
    count); keys with a zero count are left out, which the sum reads the same and keeps the
    bundled file small.
    """
    out: dict[str, Any] = {}
    for side, (tok, head, bold, lists) in (("a", sa), ("b", sb)):
        h1 = head // 4
        h2 = (head - h1) // 2
        heads = {"h1": h1, "h2": h2, "h3": head - h1 - h2}
        marks = {"ordered": lists // 3, "unordered": lists - lists // 3}
        bolds = {"**": bold - bold // 5, "__": bold // 5}
        out[f"sum_assistant_{side}_tokens"] = tok
        out[f"header_count_{side}"] = {k: v for k, v in heads.items() if v}
        out[f"list_count_{side}"] = {k: v for k, v in marks.items() if v}
        out[f"bold_count_{side}"] = {k: v for k, v in bolds.items() if v}
    return out


def _check_arguments(n_models: int, n_battles: int, tie_prob: float, start: dt.date, end: dt.date,
                     debut_spread: float) -> None:
    """One ``UserError`` line for the first argument of ``simulate_battles`` out of range."""
    if n_models < 2:
        raise UserError("simulate: need at least 2 models")
    if n_battles < 1:
        raise UserError("simulate: need at least 1 battle")
    if not 0.0 <= tie_prob < 1.0:
        raise UserError(f"simulate: tie probability {tie_prob} not in [0, 1)")
    if end < start:
        raise UserError(f"simulate: end {end} is before start {start}")
    if not 0.0 <= debut_spread < 1.0:
        raise UserError(f"simulate: debut spread {debut_spread} not in [0, 1)")


def simulate_battles(
    skills: Mapping[str, float],
    n_battles: int,
    *,
    seed: int,
    tie_prob: float = 0.1,
    bothbad_share: float = 0.3,
    zipf_exponent: float = 1.0,
    start: dt.date = dt.date(2026, 1, 1),
    end: dt.date = dt.date(2026, 3, 31),
    debut_spread: float = 0.0,
    anony_share: float = 1.0,
    scale: float = 400.0,
    base: float = 10.0,
    style: StyleSpec | None = None,
) -> SimulatedBattles:
    """Draw ``n_battles`` battles among ``skills`` (model -> latent skill, Arena scale),
    with style metadata and a true style effect when ``style`` is given."""
    _check_arguments(len(skills), n_battles, tie_prob, start, end, debut_spread)
    rng = np.random.default_rng(seed)
    models = tuple(skills)
    s = np.array([float(skills[m]) for m in models])
    m = len(models)

    ranking = rng.permutation(m)  # ranking[k] = popularity rank (0 = most popular) of model k
    pop = 1.0 / (ranking + 1.0) ** zipf_exponent
    pop /= pop.sum()

    t0 = dt.datetime(start.year, start.month, start.day, tzinfo=dt.UTC).timestamp()
    t1 = dt.datetime(end.year, end.month, end.day, tzinfo=dt.UTC).timestamp() + 86_400.0
    t = np.sort(rng.uniform(t0, t1, n_battles))
    debut = np.full(m, t0)
    if debut_spread > 0:
        late = ranking >= 2  # the two most popular models are there from the start
        debut[late] = t0 + rng.uniform(0.0, debut_spread, late.sum()) * (t1 - t0)

    # Models in debut order; cumulative popularity lets one uniform draw pick among the
    # models available at time t: searchsorted(cum, u * cum[k(t) - 1]).
    order = np.argsort(debut, kind="stable")
    cum = np.cumsum(pop[order])
    avail = np.searchsorted(debut[order], t, side="right")  # models debuted by t (>= 2)
    avail = np.maximum(avail, 2)
    limit = cum[avail - 1]

    def draw(size_mask: np.ndarray) -> np.ndarray:
        u = rng.random(size_mask.sum()) * limit[size_mask]
        k = np.searchsorted(cum, u, side="right")
        drawn: np.ndarray = order[np.minimum(k, avail[size_mask] - 1)]
        return drawn

    everyone = np.ones(n_battles, dtype=bool)
    a = draw(everyone)
    b = draw(everyone)
    clash = a == b
    while clash.any():  # redraw B where it repeated A
        b[clash] = draw(clash)
        clash = a == b

    u = rng.random(n_battles)
    p_a = 1.0 / (1.0 + base ** ((s[b] - s[a]) / scale))
    style_a = style_b = None
    if style is not None:
        style_a, style_b, shift = _draw_style(style, models, a, b, seed)
        logit = (s[a] - s[b]) * np.log(base) / scale + shift
        p_a = 1.0 / (1.0 + np.exp(-logit))
    tie = u < tie_prob
    q = np.clip((p_a - tie_prob / 2.0) / (1.0 - tie_prob), 0.0, 1.0)
    # Given no tie, (u - tau) / (1 - tau) is uniform on [0, 1).
    a_wins = (~tie) & ((u - tie_prob) < (1.0 - tie_prob) * q)
    outcome = np.where(tie, TIE, np.where(a_wins, WIN_A, WIN_B)).astype(np.int8)
    bothbad = tie & (rng.random(n_battles) < bothbad_share)
    outcome[bothbad] = TIE_BOTHBAD
    anony = rng.random(n_battles) < anony_share
    return SimulatedBattles(
        models=models,
        skills=s,
        popularity=pop,
        debut=debut,
        model_a=a.astype(np.int32),
        model_b=b.astype(np.int32),
        outcome=outcome,
        tstamp=t,
        anony=anony,
        style_a=style_a,
        style_b=style_b,
        style=style,
    )


def _draw_style(style: StyleSpec, models: tuple[str, ...], a: np.ndarray, b: np.ndarray,
                seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Both sides' counts, shape (n, 4) int64 each, and the style term of the logit, shape (n,)."""
    unknown = [f for f in style.effect if f not in STYLE_COLUMNS]
    if unknown:
        raise UserError(f"simulate: unknown style feature {unknown[0]!r} (choose from {', '.join(STYLE_COLUMNS)})")
    missing = [m for m in style.verbose if m not in models]
    if missing:
        raise UserError(f"simulate: verbose model {missing[0]!r} is not among the models")
    rng = np.random.default_rng(np.random.SeedSequence(seed).spawn(1)[0])
    m = len(models)
    verb = rng.normal(0.0, style.verbosity_sd, m)
    for name, v in style.verbose.items():
        verb[models.index(name)] = v
    md = np.exp(rng.normal(0.0, style.markdown_sd, m))
    n = a.size

    def side(codes: np.ndarray) -> np.ndarray:
        tokens = np.rint(np.exp(np.log(style.base_tokens) + verb[codes] + rng.normal(0.0, 0.5, n)))
        heads = rng.poisson(0.8 * md[codes])
        bold = rng.poisson(1.5 * md[codes])
        lists = rng.poisson(3.0 * md[codes])
        return np.stack([tokens, heads, bold, lists], axis=1).astype(np.int64)

    xa, xb = side(a), side(b)
    den = (xa + xb).astype(np.float64)
    den[den == 0] = 1.0
    f = (xa - xb) / den
    coef = np.array([float(style.effect.get(c, 0.0)) for c in STYLE_COLUMNS])
    return xa, xb, f @ coef


def random_skills(n_models: int, seed: int, *, spread: float = 120.0, prefix: str = "model-") -> dict[str, float]:
    """``n_models`` latent skills ~ Normal(1000, spread), names ``model-01``... (sorted by name)."""
    rng = np.random.default_rng(seed)
    width = len(str(n_models))
    return {f"{prefix}{k + 1:0{width}d}": float(1000.0 + spread * z) for k,
            z in enumerate(rng.standard_normal(n_models))}


def skills_from_leaderboard(path: str | Path, category: str | None = None) -> dict[str, float]:
    """Latent skills from an LMArena leaderboard file ``{category: {model: {rating, ...}}}``.

    ``category`` defaults to ``full`` (else ``text``, else the first category).
    """
    path = Path(path)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise UserError(f"{path}: leaderboard file not found") from None
    except json.JSONDecodeError as exc:
        raise UserError(f"{path}: line {exc.lineno}: invalid JSON: {exc.msg}") from None
    if not isinstance(data, dict) or not data:
        raise UserError(f"{path}: expected an object {{category: {{model: {{rating}}}}}}")
    if category is None:
        category = next((c for c in ("full", "text") if c in data), next(iter(data)))
    table = data.get(category)
    if not isinstance(table, dict):
        raise UserError(f"{path}: no category {category!r}")
    out: dict[str, float] = {}
    for model, row in table.items():
        rating = row.get("rating") if isinstance(row, dict) else None
        if isinstance(rating, (int, float)) and not isinstance(rating, bool) and np.isfinite(rating):
            out[model] = float(rating)
    if len(out) < 2:
        raise UserError(f"{path}: category {category!r} has fewer than 2 models with a rating")
    return out


__all__ = ["STYLE_COLUMNS", "SimulatedBattles", "StyleSpec", "conv_metadata", "random_skills", "simulate_battles",
           "skills_from_leaderboard"]
