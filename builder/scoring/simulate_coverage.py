"""Measured coverage: simulated boards and battles with known truth, the published method run on them.

A 95% interval is only as good as its coverage: the share of intervals that contain the
true value when the whole method is repeated on fresh data. This module simulates role
boards shaped like a real snapshot, and Arena battles from known strengths, runs the
published method on each draw and counts how often the intervals contain the truth.

The board simulation (``simulate_board``) keeps everything of a real board but its noise:

* the models and which feeds each has (so every calibration's overlap size and the board's
  missingness are the real ones), the role weights and families, each Arena rating's
  published interval;
* each model's **true quality** ``q`` (Arena scale), held fixed across runs: its real Arena
  text rating, or, without one, its real calibrated mean over the board's feeds;
* each calibrated feed's **noise** in Arena points, from its real z-fit: with rho the
  correlation of raw scores and Arena text ratings over the overlap and Q the variance of
  those ratings, the error variance is ``E = Q (1 / rho^2 - 1)`` (what leaves a
  correlation rho between ``q`` and ``q + error``).

One run draws, per model m and feed f (all from ``numpy.random.default_rng(seed)``)::

    Arena feed:       rating = q_m + sd_mf * z,            published interval rating -+ 1.96 sd_mf
    calibrated feed:  x_mf   = q_m + sqrt(E_f) * (sqrt(k) g_m + sqrt(p) h_m,pub + sqrt(1 - k - p) e_mf)
                      raw_mf = mu_f + sigma_f * (x_mf - centre_f) / sqrt(Q_f + E_f)

with z, g, h, e independent standard normals: ``g_m`` a model's own effect shared by every
calibrated feed (its "style": the benchmarks flatter or undersell it alike), share ``k``;
``h_m,pub`` shared by the feeds of one publisher (LiveBench's categories), share ``p``.
The raw scale (mu, sigma, centre: the real fit's) is cosmetic: the z-fit is invariant to it.

**Truth.** A model's true R is the published formula applied to noise-free source values:
without noise every raw score is an increasing linear function of ``q``, every z-fit
recovers it exactly, every calibrated value, family mean and R equals ``q``. So true R =
``q`` and the true rank is the competition rank of ``q`` among the board's ranked rows
(1 + the number of ranked rows with a greater ``q``).

**The method** run on each draw is the published one: z-fits (``calibrate.fit_calibration``)
on the overlap with the Arena text ratings, calibrated values, family means and R
(``families``), rows with two or more evaluators ranked by R, one evaluator in the New strip,
and the board bootstrap (``uncertainty``) on them. Counted per ranked row: the 95% interval
``[r_lo, r_hi]`` contains ``q``; the rank range ``rank_lo..rank_hi`` contains the true rank.

Scenarios: ``independent`` (k = p = 0), ``real`` (k and p measured from the real residuals,
``measure_shape``), ``style`` (k = 0.5: half of every benchmark's error is the model's own).

The Arena simulation (``builder.pairwise.coverage.run_arena_once``) draws battles from known Bradley-Terry strengths
(``builder.pairwise.simulate``), fits them, and counts how often the bootstrap
(``bootstrap_bt``) and sandwich (``sandwich_bt``) intervals contain the true strength, shifted
like the fit so that each has mean 1000 over the rated models.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from builder.scoring.calibrate import Calibration, calibrate, fit_calibration
from builder.scoring.uncertainty import (
    ARENA_SD_DIVISOR,
    RESIDUAL_DRAWS,
    BoardRows,
    BootstrapObservation,
    compute_bootstrap_problem,
    compute_uncertainty,
)
from builder.snapshot import models as snap

Z95 = 1.959963984540054
"Normal 97.5% quantile: a published interval is rating -+ Z95 sd."


# --------------------------------------------------------------------------- the shape


@dataclass(frozen=True, slots=True)
class FeedShape:
    """One feed of the board. Arena feeds (``arena``) keep their scale; the others are z-fitted.

    ``noise_sd``: sd of a calibrated feed's error around q, Arena points (0 for Arena feeds);
    ``mu``, ``sigma``, ``centre``, ``spread``: the raw scale, raw = mu + sigma (x - centre) / spread.
    """

    feed: str
    source: str
    evaluator: str
    arena: bool
    noise_sd: float = 0.0
    mu: float = 50.0
    sigma: float = 10.0
    centre: float = 1300.0
    spread: float = 100.0


@dataclass(frozen=True, slots=True)
class ModelShape:
    """One model: its true quality (Arena scale), its feeds and, per Arena feed, its rating's sd."""

    identity: str
    quality: float
    feeds: tuple[str, ...]
    arena_sd: tuple[tuple[str, float], ...] = ()


@dataclass(frozen=True, slots=True)
class CoverageShape:
    """A board as the simulation redraws it (see the module docstring)."""

    board: str
    weights: Mapping[str, float]
    families: Mapping[str, tuple[str, ...]]
    text_feed: str
    feeds: tuple[FeedShape, ...]
    models: tuple[ModelShape, ...]
    shared_share: float = 0.0
    "k: share of a calibrated feed's error variance that is the model's own effect, shared by every such feed."
    publisher_share: float = 0.0
    "p: share shared by the feeds of one publisher (on top of k)."
    notes: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {
            "board": self.board, "weights": dict(self.weights),
            "families": {k: list(v) for k, v in self.families.items()}, "text_feed": self.text_feed,
            "feeds": [{"feed": f.feed, "source": f.source, "evaluator": f.evaluator, "arena": f.arena,
                       "noise_sd": f.noise_sd, "mu": f.mu, "sigma": f.sigma, "centre": f.centre, "spread": f.spread}
                      for f in self.feeds],
            "models": [{"identity": m.identity, "quality": m.quality, "feeds": list(m.feeds),
                        "arena_sd": dict(m.arena_sd)} for m in self.models],
            "shared_share": self.shared_share, "publisher_share": self.publisher_share, "notes": list(self.notes),
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> CoverageShape:
        return cls(
            board=data["board"], weights=dict(data["weights"]),
            families={k: tuple(v) for k, v in data["families"].items()}, text_feed=data["text_feed"],
            feeds=tuple(FeedShape(**f) for f in data["feeds"]),
            models=tuple(ModelShape(m["identity"], float(m["quality"]), tuple(m["feeds"]),
                                    tuple(sorted(m["arena_sd"].items()))) for m in data["models"]),
            shared_share=float(data["shared_share"]), publisher_share=float(data["publisher_share"]),
            notes=tuple(data.get("notes", ())),
        )


@dataclass(frozen=True, slots=True)
class Scenario:
    """Which shared error components a run draws (shares of each calibrated feed's error variance)."""

    name: str
    shared_share: float
    publisher_share: float


def scenarios(shape: CoverageShape) -> tuple[Scenario, ...]:
    """The three scenarios of the study: independent errors, the real data's sharing, strong style."""
    return (Scenario("independent", 0.0, 0.0),
            Scenario("real", shape.shared_share, shape.publisher_share),
            Scenario("style", 0.5, min(shape.publisher_share, 0.5)))


def _corr(a: Sequence[float], b: Sequence[float]) -> float:
    x, y = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    if x.size < 3 or x.std() == 0 or y.std() == 0:
        return math.nan
    return float(np.corrcoef(x, y)[0, 1])


def shared_share_from_corr(corr: float, q: float, e1: float, e2: float) -> float:
    """k such that two feeds with error variances ``e1``, ``e2`` around qualities of variance ``q``
    leave residuals (Arena - fitted) with correlation ``corr``, clamped to [0, 0.95].

    With b_i = q / (q + e_i) the fit's shrinkage, the residual of feed i is
    (1 - b_i) q - b_i error_i, so cov = (1 - b1)(1 - b2) q + b1 b2 k sqrt(e1 e2) and
    var_i = (1 - b_i)^2 q + b_i^2 e_i; solved for k.
    """
    b1, b2 = q / (q + e1), q / (q + e2)
    v1, v2 = (1 - b1) ** 2 * q + b1**2 * e1, (1 - b2) ** 2 * q + b2**2 * e2
    k = (corr * math.sqrt(v1 * v2) - (1 - b1) * (1 - b2) * q) / (b1 * b2 * math.sqrt(e1 * e2))
    return min(max(k, 0.0), 0.95)


def _fit_residuals(observations: Sequence[snap.Observation], c: snap.Calibration | Calibration,
                   text: Mapping[str, float]) -> tuple[dict[str, float], float, float]:
    """(overlap key -> Arena - fitted, Q = variance of the overlap's Arena ratings, E = Q (1/rho^2 - 1))."""
    raw = {o.identity: float(o.raw) for o in observations if o.feed == c.feed and o.release == c.release
           and o.selected and o.excluded is None and o.raw is not None and o.identity}
    keys = [k for k in c.overlap if k in raw and k in text]
    xs = [raw[k] for k in keys]
    ys = [text[k] for k in keys]
    assert c.mu is not None and c.sigma is not None and c.alpha is not None and c.beta is not None
    res = {k: y - (c.alpha + c.beta * (x - c.mu) / c.sigma) for k, x, y in zip(keys, xs, ys, strict=True)}
    rho = _corr(xs, ys)
    q = float(np.var(ys))
    return res, q, (q * (1.0 / rho**2 - 1.0) if rho > 0 else q)


def measure_shape(
    observations: Sequence[snap.Observation],
    calibrations: Sequence[snap.Calibration | Calibration],
    board: str,
    weights: Mapping[str, float],
    families: Mapping[str, Sequence[str]],
    arena_feeds: set[str],
    text_feed: str,
    *,
    min_common: int = 20,
) -> CoverageShape:
    """A board's shape from a snapshot's usable observations and fits (see the module docstring).

    k and p: each pair of used fits with at least ``min_common`` common overlap models gives
    a residual correlation, turned into a share by ``shared_share_from_corr``; k is the
    median over pairs of different publishers, p the median over pairs of one publisher minus k.
    """
    weighted = {f for f, w in weights.items() if w > 0}
    feeds_used = {feed for fam in weighted for feed in families.get(fam, ())} | {text_feed}
    usable = [o for o in observations if o.calibrated is not None and o.selected and o.excluded is None
              and o.identity and o.raw is not None and o.feed in feeds_used]
    text: dict[str, float] = {}
    for o in usable:
        if o.feed == text_feed:
            text[o.identity] = max(text.get(o.identity, -math.inf), float(o.raw or 0.0))
    fits = {c.feed: c for c in calibrations if c.used and c.mu is not None and c.sigma is not None
            and c.alpha is not None and c.beta is not None}
    evaluator = {o.feed: o.evaluator for o in usable}
    source = {o.feed: o.source for o in usable}
    feed_shapes: list[FeedShape] = []
    notes = []
    for feed in sorted(feeds_used):
        if feed in arena_feeds:
            if feed in evaluator:
                feed_shapes.append(FeedShape(feed, source[feed], evaluator[feed], True))
            continue
        c = fits.get(feed)
        if c is None:
            if feed in evaluator:
                notes.append(f"{feed}: its fit is not used on the real data, so it is left out")
            continue
        _, q, e = _fit_residuals(observations, c, text)
        assert c.mu is not None and c.sigma is not None and c.alpha is not None
        feed_shapes.append(FeedShape(feed, source[feed], evaluator[feed], False, math.sqrt(e), c.mu, c.sigma,
                                     c.alpha, math.sqrt(q + e)))
    # the sharing of errors is a property of the sources, measured over every used fit
    residuals: dict[str, dict[str, float]] = {}
    error_var: dict[str, float] = {}
    fit_evaluator: dict[str, str] = {}
    for feed, c in sorted(fits.items()):
        residuals[feed], _, error_var[feed] = _fit_residuals(observations, c, text)
        fit_evaluator[feed] = next((o.evaluator for o in observations if o.feed == feed), feed)
    cross: list[float] = []
    within: list[float] = []
    names = sorted(residuals)
    for i, f1 in enumerate(names):
        for f2 in names[i + 1:]:
            common = sorted(set(residuals[f1]) & set(residuals[f2]))
            if len(common) < min_common:
                continue
            r = _corr([residuals[f1][k] for k in common], [residuals[f2][k] for k in common])
            if not math.isfinite(r):
                continue
            qv = float(np.var([text[k] for k in common]))
            share = shared_share_from_corr(r, qv, error_var[f1], error_var[f2])
            (within if fit_evaluator[f1] == fit_evaluator[f2] else cross).append(share)
            notes.append(f"residual correlation {f1} / {f2}: {r:.2f} over {len(common)} models (share {share:.2f})")
    k = float(np.median(cross)) if cross else 0.0
    p = max(float(np.median(within)) - k, 0.0) if within else 0.0
    p = min(p, 0.95 - k)
    models: list[ModelShape] = []
    per_model: dict[str, list[snap.Observation]] = {}
    kept = {f.feed for f in feed_shapes}
    for o in usable:
        if o.feed in kept:
            per_model.setdefault(o.identity, []).append(o)
    for ident in sorted(per_model):
        rows = per_model[ident]
        feeds = tuple(sorted({o.feed for o in rows}))
        if ident in text:
            quality = text[ident]
        else:
            quality = float(np.mean([float(o.calibrated or 0.0) for o in rows]))
        sds = []
        for o in rows:
            if o.feed in arena_feeds:
                lo, hi = o.details.get("rating_q025"), o.details.get("rating_q975")
                sd = (float(hi) - float(lo)) / ARENA_SD_DIVISOR if isinstance(lo, (int, float)) and isinstance(
                    hi, (int, float)) else 0.0
                sds.append((o.feed, sd))
        models.append(ModelShape(ident, quality, feeds, tuple(sorted(dict(sds).items()))))
    fams = {f: tuple(x for x in families.get(f, ()) if x in kept) for f in sorted(weighted)}
    return CoverageShape(board, {f: float(w) for f, w in weights.items() if w > 0},
                         {f: v for f, v in fams.items() if v}, text_feed, tuple(feed_shapes), tuple(models), k, p,
                         tuple(notes))


def measure_snapshot_shape(snapshot: snap.Snapshot, board_id: str = "orchestrator") -> CoverageShape:
    """``measure_shape`` on a saved snapshot's board (Arena feeds: the ``arena/`` ones)."""
    board = snapshot.board(board_id)
    if board is None:
        raise ValueError(f"no board {board_id!r} in the snapshot")
    families = {k: tuple(v.feeds) for k, v in snapshot.families.items()}
    arena_feeds = {o.feed for o in snapshot.observations if o.source == "arena"}
    text_feed = "arena/text"
    return measure_shape(snapshot.observations, snapshot.calibration, board.id, board.weights, families, arena_feeds,
                         text_feed)


# --------------------------------------------------------------------------- one simulated board


@dataclass(frozen=True, slots=True)
class SimulatedBoard:
    """One draw: its usable observations and fits, the board as the method scores it, the truth."""

    observations: tuple[BootstrapObservation, ...]
    calibrations: tuple[Calibration, ...]
    rows: BoardRows
    r: Mapping[str, float]
    truth: Mapping[str, float]
    true_rank: Mapping[str, int]


Value = tuple[str, str, float, float | None]
"(identity, feed, raw, sd of an Arena rating or None)."


def draw_sources(shape: CoverageShape, scenario: Scenario, rng: np.random.Generator) -> list[Value]:
    """One draw of every (identity, feed) value: (identity, feed, raw, sd of an Arena rating or None).

    Draw order: per model (shape order) g_m, then per publisher (ascending) h, then per feed of
    the model (ascending) its own normal.
    """
    feed_of = {f.feed: f for f in shape.feeds}
    publishers = sorted({f.evaluator for f in shape.feeds if not f.arena})
    k, p = scenario.shared_share, scenario.publisher_share
    own = math.sqrt(max(1.0 - k - p, 0.0))
    out: list[Value] = []
    for m in shape.models:
        g = rng.standard_normal()
        h = dict(zip(publishers, rng.standard_normal(len(publishers)), strict=True))
        sd_of = dict(m.arena_sd)
        for feed in m.feeds:
            f = feed_of[feed]
            e = rng.standard_normal()
            if f.arena:
                sd = sd_of.get(feed, 0.0)
                out.append((m.identity, feed, m.quality + sd * e, sd))
            else:
                x = m.quality + f.noise_sd * (math.sqrt(k) * g + math.sqrt(p) * h[f.evaluator] + own * e)
                out.append((m.identity, feed, f.mu + f.sigma * (x - f.centre) / f.spread, None))
    return out


def simulate_board(shape: CoverageShape, scenario: Scenario, seed: int) -> SimulatedBoard:
    """Draw the sources and score the board by the published method (see the module docstring)."""
    rng = np.random.default_rng(seed)
    values = draw_sources(shape, scenario, rng)
    feed_of = {f.feed: f for f in shape.feeds}
    text = {ident: raw for ident, feed, raw, _ in values if feed == shape.text_feed}
    calibrations: list[Calibration] = []
    cal_of: dict[str, Calibration] = {}
    for f in shape.feeds:
        if f.arena:
            continue
        pairs = sorted((ident, raw, text[ident]) for ident, feed, raw, _ in values if feed == f.feed and ident in text)
        c = fit_calibration(pairs, source=f.source, feed=f.feed)
        calibrations.append(c)
        cal_of[f.feed] = c
    observations: list[BootstrapObservation] = []
    for ident, feed, raw, sd in values:
        f = feed_of[feed]
        if f.arena:
            assert sd is not None
            observations.append(BootstrapObservation(ident, ident, f.source, feed, "", raw, raw,
                                                     raw - Z95 * sd, raw + Z95 * sd))
            continue
        value = calibrate(raw, cal_of[feed])
        if value is not None:
            observations.append(BootstrapObservation(ident, ident, f.source, feed, "", raw, value))
    fam_of = {feed: fam for fam, feeds in shape.families.items() for feed in feeds}
    per: dict[str, dict[str, list[float]]] = {}
    evaluators: dict[str, set[str]] = {}
    for o in observations:
        fam = fam_of.get(o.feed)
        if fam is None:
            continue
        per.setdefault(o.identity, {}).setdefault(fam, []).append(o.calibrated)
        evaluators.setdefault(o.identity, set()).add(feed_of[o.feed].evaluator)
    r: dict[str, float] = {}
    for ident, fams in per.items():
        means = {f: math.fsum(v) / len(v) for f, v in fams.items()}
        den = sum(shape.weights[f] for f in means)
        r[ident] = sum(shape.weights[f] * means[f] for f in means) / den
    ranked = sorted((i for i in r if len(evaluators[i]) >= 2), key=lambda i: (-r[i], i))
    new = sorted((i for i in r if len(evaluators[i]) < 2), key=lambda i: (-r[i], i))
    truth = {m.identity: m.quality for m in shape.models}
    qs = sorted((truth[i] for i in ranked), reverse=True)
    true_rank = {i: 1 + sum(1 for x in qs if x > truth[i]) for i in ranked}
    rows = BoardRows(shape.board, dict(shape.weights), tuple(ranked), tuple(new))
    return SimulatedBoard(tuple(observations), tuple(calibrations), rows, r, truth, true_rank)


@dataclass(slots=True)
class Tally:
    """Covered / total, overall and per run (the runs give the standard error)."""

    covered: int = 0
    total: int = 0
    per_run: list[float] = field(default_factory=list)

    def add(self, hits: Iterable[bool]) -> None:
        h = list(hits)
        if h:
            self.covered += sum(h)
            self.total += len(h)
            self.per_run.append(sum(h) / len(h))

    @property
    def coverage(self) -> float:
        return self.covered / self.total if self.total else math.nan

    @property
    def se(self) -> float:
        """Standard error of the coverage over runs (rows of one run are not independent)."""
        n = len(self.per_run)
        return float(np.std(self.per_run, ddof=1) / math.sqrt(n)) if n > 1 else math.nan


@dataclass(frozen=True, slots=True)
class BoardRun:
    """Per ranked row of one run: interval and rank range hit the truth, and the interval's width.

    ``separations``: per tie group after the first, whether its leader's claim to trail the
    previous group's leader (P(R_previous > R_leader) >= 0.95) holds for the true qualities.
    """

    r_hits: tuple[bool, ...]
    rank_hits: tuple[bool, ...]
    top_hits: tuple[bool, ...]
    widths: tuple[float, ...]
    largest_tie_group: int
    ranked: int
    separations: tuple[bool, ...] = ()


def run_board_once(shape: CoverageShape, scenario: Scenario, seed: int, rounds: int, *, top: int = 10,
                   residual_draws: str = RESIDUAL_DRAWS) -> BoardRun:
    """One draw, the published method and its bootstrap (``rounds`` rounds, seed ``seed``), scored.

    ``residual_draws``: the bootstrap's residual scheme (``source`` as published; ``model``, ``score`` as before).
    """
    sim = simulate_board(shape, scenario, seed)
    arena_feeds = {f.feed for f in shape.feeds if f.arena}
    problem = compute_bootstrap_problem(list(sim.observations), list(sim.calibrations), arena_feeds,
                                        {shape.text_feed}, shape.families, [sim.rows], residual_draws)
    res = compute_uncertainty(problem, rounds, seed)[shape.board]
    r_hits, rank_hits, top_hits, widths = [], [], [], []
    groups: dict[str, int] = {}
    separations: list[bool] = []
    leader: str | None = None
    for pos, ident in enumerate(sim.rows.ranked):
        u = res.rows[ident]
        if u.tie_leader is None:
            if leader is not None:
                separations.append(sim.truth[leader] > sim.truth[ident])
            leader = ident
        if u.r_lo is None or u.r_hi is None or u.rank_lo is None or u.rank_hi is None:
            continue
        q = sim.truth[ident]
        hit = u.r_lo <= q <= u.r_hi
        r_hits.append(hit)
        if pos < top:
            top_hits.append(hit)
        rank_hits.append(u.rank_lo <= sim.true_rank[ident] <= u.rank_hi)
        widths.append(u.r_hi - u.r_lo)
        leader = u.tie_leader or ident
        groups[leader] = groups.get(leader, 0) + 1
    return BoardRun(tuple(r_hits), tuple(rank_hits), tuple(top_hits), tuple(widths),
                    max(groups.values(), default=0), len(sim.rows.ranked), tuple(separations))


__all__ = ["BoardRun", "CoverageShape", "FeedShape", "ModelShape", "Scenario", "SimulatedBoard", "Tally",
           "draw_sources", "measure_shape", "measure_snapshot_shape", "run_board_once",
           "scenarios", "shared_share_from_corr", "simulate_board"]
