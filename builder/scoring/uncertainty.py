"""Uncertainty of the role boards: a seeded bootstrap of the board arithmetic.

The boards' method is untouched: R, the displayed score, competition ranks, labels,
qualification and order come from ``boards`` and ``rank`` alone. This module measures how
far each R and each rank could move. Each of ``B`` rounds

1. draws every usable Arena rating (text and coding) from its published interval::

       value = rating + sd * z,    sd = (q975 - q025) / 3.92,    z = Phi^-1(p)

   (a rating published without an interval keeps its value: sd = 0);
2. refits every z-fit the snapshot uses for a family feed on a resample with replacement of
   its ``n`` overlap keys (``n`` draws), against the round's Arena text ratings, with the
   calibration formulas (mu, sigma, alpha, beta). A refit that fails the method's conditions
   (fewer than 10 draws, all resampled raw scores equal so sigma is zero, beta <= 0) drops
   that feed for the round; fits the snapshot does not use stay out of every round;
3. adds to each calibrated value of the feed a residual drawn from its fit's overlap::

       residual_k = arena_k - (alpha + beta * (raw_k - mu) / sigma)      (the snapshot's fit)
       value      = alpha_b + beta_b * (raw - mu_b) / sigma_b + residual  (the round's refit)

   by model and source (``residual_draws`` "source"): each round draws per model a quantile
   u and a uniform v, per (model, source) a quantile u' and a uniform v', and per calibrated
   value its own quantile w; the value takes the residual at position floor(x * n) of its
   fit's residuals sorted ascending, x = u (shared by all the model's values) when v < c,
   else x = u' (shared by the model's values from that source) when v' < s, else x = w. So a
   model's errors agree across publishers, and across one publisher's categories, as much
   as the data say they do::

       corr(a, b) = correlation of the residuals of fits a and b over their common overlap
                    keys, for pairs of used fits with >= MIN_OVERLAP of them
       c = median corr over pairs of different sources (over all pairs without one;
           1 without any pair), clamped to [0, 1]
       m = median corr over pairs of one source;  s = (m - c) / (1 - c), clamped to [0, 1]
           (0 without such a pair or when c is 1): two values of one source then share a
           quantile with probability c + (1 - c) s = m

   (on the real files a model one benchmark flatters the others flatter too, and calibration
   shrinks every source's value of a strong model alike; LiveBench's categories agree more
   than different publishers). Drawing one residual per value independently
   (``residual_draws`` "score", the method before 2026-12) averages such errors away and
   under-covers (89-92% measured for a nominal 95% on the real-shaped mid-tier and rote
   boards); one level with one c for every pair (``residual_draws`` "model", 2026-12-01)
   over-covered where a model's sources come from different publishers (97.0-97.1% on the
   mid-tier shape): see ``builder.scoring.simulate_coverage``;

4. recomputes R of every row of every role board, on the same rows (qualification and the
   New strip do not change), by the published formula over the families present that round::

       family_mean[f] = mean(the row's values in f that round)
       R_b = sum(w_f * family_mean[f]) / sum(w_f)

Per row, over the ``rounds_scored`` rounds in which it has an R (a round can drop every
feed of a row)::

    r_lo, r_hi        2.5 and 97.5 percentiles of R_b, linear interpolation on the sorted
                      values s: h = p (n - 1), k = floor(h), v = s[k] + (h - k) (s[k+1] - s[k])
    rank_lo, rank_hi  2.5 percentile (lower: s[floor(h)]) and 97.5 percentile (higher:
                      s[ceil(h)]) of the row's competition rank among the board's ranked rows
                      (1 + number of rows with a strictly greater R_b that round)
    p_first           share of all B rounds in which the row ranks 1
    rank_ub           1 + number of ranked rows whose r_lo is above this row's r_hi (LMArena)
    p_above           share of all B rounds in which the row directly above has a greater R_b
    tied_above        p_above < 0.95 ("tied with the row above"; null on the first row)
    tie_leader        the leader of the row's tie group (null for a leader): the first row
                      leads; a next row joins the current leader's group while P(R_leader >
                      R_row) < 0.95 over all B rounds (``p_leader``), else leads a new group

and per board the matrix P(R_a > R_b) over all B rounds for its top 20 ranked rows. Rows
of the New strip get r_lo, r_hi and rounds_scored; their rank fields are null.

Draws. One ``random.Random(seed)`` stream, read only through ``random()`` (53-bit uniforms u
in [0, 1)). Every round reads the same number of uniforms, in this order:

1. one per usable Arena observation, in ascending (feed, identity, release, model):
   p = u (a u of exactly 0 is read as 2**-53), z = Phi^-1(p) by Wichura's algorithm AS241;
2. for each used family-feed fit, in ascending (source, feed, release): ``n`` uniforms, each
   picking overlap position floor(u * n) (overlap keys ascending);
3. ("source") two uniforms (v, u) per identity with a calibrated observation of a used
   family-feed fit, in ascending identity; then two uniforms (v', u') per (identity, source)
   with such an observation, in ascending (identity, source); then one uniform w per
   calibrated observation, fits in the order of step 2, observations in ascending
   (identity, model); each takes the residual at position floor(x * n) of its fit's
   residuals sorted ascending, x = u when v < c, else u' when v' < s, else w (step 3 of the
   rounds). ("model", snapshots of 2026-12-01: no (v', u'); x = u when v < c, else w, c the
   median over all pairs.) ("score", older snapshots:
   in step 2, right after each fit's ``n`` uniforms, one uniform per calibrated observation
   of that feed and release, in ascending (identity, model), picking the residual at overlap
   position floor(u * n).)

Arithmetic. Every sum runs left to right from 0.0 in a fixed order: a refit's sums in draw
order; a family's values in ascending (feed, release, model); families in ascending id. The
Arena text rating of a key is its text-feed rating (the highest, with several text feeds).
A standard-library re-derivation (``builder/evidence/recompute.py``, shipped with the site)
repeats these operations one by one and reproduces every value bit for bit. This module
draws the same stream at once (numpy's MT19937 started from ``random.Random(seed)``'s own
state) and runs the same IEEE operations in compiled kernels (numba without fast-math: no
reordering, no fused multiply-add, the C library's ``log`` as in CPython).
"""

from __future__ import annotations

import dataclasses
import math
import random
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
import numpy.typing as npt
from numba import njit

from builder.records import Observation
from builder.scoring.calibrate import MIN_OVERLAP, Calibration
from builder.scoring.families import feed_families
from builder.snapshot import models as snap
from builder.util.gc import gc_paused

INTERVAL = (0.025, 0.975)
"Lower and upper percentile (as fractions) of the interval of R and of the rank range."
TIE_THRESHOLD = 0.95
"A row is tied with the row above when P(R_above > R_row) over the rounds is below this."
PAIRWISE_TOP = 20
"Ranked rows per board in the downloadable matrix P(R_a > R_b)."
ARENA_SD_DIVISOR = 3.92
"sd = (q975 - q025) / 3.92: the width of a normal 95% interval is 2 * 1.96 sd."
BLOCK_VALUES = 2**20
"Uniforms (and value slots) per block of rounds: 8 MB of doubles, far below malloc's 32 MiB mmap threshold."
SMALLEST_P = 2.0**-53
"A uniform of exactly 0 is read as this before the normal quantile (Phi^-1(0) is infinite)."
RESIDUAL_DRAWS = "source"
"""How residuals are drawn: ``source``, one quantile per model and round shared by its
calibrated scores with the agreement measured across publishers, and one per model, source
and round shared by one publisher's scores with the agreement measured within publishers;
``model`` (2026-12-01), one shared quantile per model with one agreement for all pairs;
``score`` (before 2026-12), one overlap position per calibrated score, independently (see the
module docstring). Each fit's residuals are read ascending in the first two."""

Floats = npt.NDArray[np.float64]
Ints = npt.NDArray[np.int64]


# --------------------------------------------------------------------------- inputs


@dataclass(frozen=True, slots=True)
class BootstrapObservation:
    """One usable observation: selected, not excluded, with a calibrated value (Arena scale).

    ``q025``/``q975`` are an Arena rating's published interval (None elsewhere or unknown).
    """

    identity: str
    model: str
    source: str
    feed: str
    release: str
    raw: float
    calibrated: float
    q025: float | None = None
    q975: float | None = None


@dataclass(frozen=True, slots=True)
class BoardRows:
    """A board's rows as scored: ``ranked`` in published order, then the New strip."""

    id: str
    weights: Mapping[str, float]
    ranked: tuple[str, ...]
    new: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class ArenaInput:
    """One drawn Arena rating: N(rating, sd), Arena scale."""

    feed: str
    identity: str
    rating: float
    sd: float


@dataclass(frozen=True, slots=True)
class FitInput:
    """One used z-fit: its snapshot parameters, overlap and the observations it calibrates.

    ``raws``, ``anchors`` (value slot of each key's Arena text rating) and ``residuals`` are
    aligned with ``overlap`` (ascending keys); ``scored_slots``/``scored_raws`` with the
    calibrated observations of the feed and release (ascending identity).
    """

    source: str
    feed: str
    release: str
    mu: float
    sigma: float
    alpha: float
    beta: float
    overlap: tuple[str, ...]
    raws: tuple[float, ...]
    anchors: tuple[int, ...]
    residuals: tuple[float, ...]
    scored_slots: tuple[int, ...]
    scored_raws: tuple[float, ...]
    scored_models: tuple[int, ...] = ()
    "Per calibrated observation, its identity's position in ``BootstrapProblem.models`` (per-model draws)."
    scored_sources: tuple[int, ...] = ()
    "Per calibrated observation, its (identity, source) position in ``BootstrapProblem.sources``."


@dataclass(frozen=True, slots=True)
class RowInput:
    """A board row: per weighted family (ascending id) the value slots it averages."""

    identity: str
    families: tuple[tuple[str, tuple[int, ...]], ...]


@dataclass(frozen=True, slots=True)
class BoardInput:
    id: str
    weights: Mapping[str, float]
    ranked: tuple[RowInput, ...]
    new: tuple[RowInput, ...]


@dataclass(frozen=True, slots=True)
class BootstrapProblem:
    """Everything a round reads. Value slots: the Arena ratings first (in ``arena`` order),
    then each fit's calibrated observations (in ``fits`` order)."""

    arena: tuple[ArenaInput, ...]
    fits: tuple[FitInput, ...]
    boards: tuple[BoardInput, ...]
    models: tuple[str, ...] = ()
    "Identities with a calibrated observation of a used fit, ascending: one residual quantile each per round."
    residual_draws: str = RESIDUAL_DRAWS
    residual_share: float = 1.0
    "c: the share of rounds in which a model's scores take its one quantile (``model``/``source`` draws)."
    sources: tuple[tuple[str, str], ...] = ()
    "(identity, source) pairs with a calibrated observation of a used fit, ascending (``source`` draws)."
    source_share: float = 0.0
    "s: of the other rounds, the share in which one source's scores of a model take their one quantile."

    @property
    def slots(self) -> int:
        return len(self.arena) + sum(len(f.scored_slots) for f in self.fits)

    @property
    def draws_per_round(self) -> int:
        base = len(self.arena) + sum(len(f.overlap) + len(f.scored_slots) for f in self.fits)
        if self.residual_draws == "source":
            return base + 2 * len(self.models) + 2 * len(self.sources)
        if self.residual_draws == "model":
            return base + 2 * len(self.models)
        return base


# --------------------------------------------------------------------------- outputs


@dataclass(frozen=True, slots=True)
class RowUncertainty:
    """One row's bootstrap summary (see the module docstring); None where it does not apply."""

    r_lo: float | None
    r_hi: float | None
    rank_lo: int | None
    rank_hi: int | None
    rank_ub: int | None
    p_first: float | None
    p_above: float | None
    tied_above: bool | None
    rounds_scored: int
    tie_leader: str | None = None
    p_leader: float | None = None

    def to_model(self) -> snap.RowUncertainty:
        return snap.RowUncertainty(r_lo=self.r_lo, r_hi=self.r_hi, rank_lo=self.rank_lo, rank_hi=self.rank_hi,
                                   rank_ub=self.rank_ub, p_first=self.p_first, p_above=self.p_above,
                                   tied_above=self.tied_above, rounds_scored=self.rounds_scored,
                                   tie_leader=self.tie_leader, p_leader=self.p_leader)


@dataclass(frozen=True, slots=True)
class BoardUncertainty:
    """Per identity its row summary; the top ranked rows' matrix ``p_greater[a][b] = P(R_a > R_b)``."""

    id: str
    rows: Mapping[str, RowUncertainty]
    pairwise: tuple[str, ...]
    p_greater: tuple[tuple[float, ...], ...]

    def to_model(self) -> snap.BoardUncertainty:
        return snap.BoardUncertainty(pairwise=snap.BoardPairwise(identities=self.pairwise, p_greater=self.p_greater))


def compute_settings(rounds: int, seed: int, problem: BootstrapProblem | None) -> snap.UncertaintySettings:
    """The snapshot's ``uncertainty`` settings (``rounds`` 0: the feature was off)."""
    draws: Literal["model", "source"] | None = None
    share = source_share = None
    if rounds and problem is not None and problem.residual_draws in ("model", "source"):
        draws = "source" if problem.residual_draws == "source" else "model"
        share = problem.residual_share
        source_share = problem.source_share if draws == "source" else None
    return snap.UncertaintySettings(
        residual_draws=draws,
        residual_share=share,
        residual_share_source=source_share,
        rounds=rounds,
        seed=seed,
        interval=INTERVAL,
        tie_threshold=TIE_THRESHOLD,
        pairwise_top=PAIRWISE_TOP,
        arena_sd_divisor=ARENA_SD_DIVISOR,
        draws_per_round=problem.draws_per_round if problem is not None and rounds else None,
        tie_groups="leader" if rounds else None,
    )


# --------------------------------------------------------------------------- the problem


def arena_sd(q025: float | None, q975: float | None) -> float:
    """sd of a drawn Arena rating: (q975 - q025) / 3.92; 0 without a usable interval."""
    if q025 is None or q975 is None or not (math.isfinite(q025) and math.isfinite(q975)) or q975 < q025:
        return 0.0
    return (q975 - q025) / ARENA_SD_DIVISOR


def fit_residual(arena: float, raw: float, mu: float, sigma: float, alpha: float, beta: float) -> float:
    """Arena text rating minus the calibrated value of ``raw`` under a fit (Arena scale)."""
    return arena - (alpha + beta * (raw - mu) / sigma)


def compute_bootstrap_problem(
    observations: Sequence[BootstrapObservation],
    calibrations: Sequence[Calibration],
    arena_feeds: set[str],
    text_feeds: set[str],
    families: Mapping[str, Sequence[str]],
    boards: Sequence[BoardRows],
    residual_draws: str = RESIDUAL_DRAWS,
) -> BootstrapProblem:
    """The draws' inputs in their documented order (see the module docstring).

    ``observations``: every usable observation; ``families``: family id -> feeds.
    """
    by_feed = feed_families(families)
    arena_obs = sorted((o for o in observations if o.feed in arena_feeds),
                       key=lambda o: (o.feed, o.identity, o.release, o.model))
    arena = tuple(ArenaInput(o.feed, o.identity, o.raw, arena_sd(o.q025, o.q975)) for o in arena_obs)
    slot_of: dict[int, int] = {id(o): i for i, o in enumerate(arena_obs)}
    anchor_slot: dict[str, int] = {}
    for i, o in enumerate(arena_obs):
        if o.feed in text_feeds:
            best = anchor_slot.get(o.identity)
            if best is None or o.raw > arena[best].rating:
                anchor_slot[o.identity] = i

    groups: dict[tuple[str, str, str], list[BootstrapObservation]] = {}
    for o in observations:
        if o.feed not in arena_feeds:
            groups.setdefault((o.source, o.feed, o.release), []).append(o)
    fits: list[FitInput] = []
    fit_models: list[tuple[str, ...]] = []
    next_slot = len(arena)
    for c in sorted(calibrations, key=lambda c: (c.source, c.feed, c.release)):
        if not c.used or c.feed not in by_feed or c.mu is None or c.sigma is None or c.alpha is None or c.beta is None:
            continue
        rows = sorted(groups.get((c.source, c.feed, c.release), []), key=lambda o: (o.identity, o.model))
        raw_of: dict[str, float] = {}
        for o in rows:
            raw_of[o.identity] = max(raw_of.get(o.identity, o.raw), o.raw)
        keys = tuple(c.overlap)
        raws = tuple(raw_of[k] for k in keys)
        anchors = tuple(anchor_slot[k] for k in keys)
        residuals = tuple(fit_residual(arena[a].rating, x, c.mu, c.sigma, c.alpha, c.beta)
                          for a, x in zip(anchors, raws, strict=True))
        slots = tuple(range(next_slot, next_slot + len(rows)))
        for o, s in zip(rows, slots, strict=True):
            slot_of[id(o)] = s
        next_slot += len(rows)
        fits.append(FitInput(c.source, c.feed, c.release, c.mu, c.sigma, c.alpha, c.beta, keys, raws, anchors,
                             residuals, slots, tuple(o.raw for o in rows)))
        fit_models.append(tuple(o.identity for o in rows))
    models = tuple(sorted({i for idents in fit_models for i in idents}))
    position = {m: k for k, m in enumerate(models)}
    sources = tuple(sorted({(i, f.source) for f, idents in zip(fits, fit_models, strict=True) for i in idents}))
    source_position = {key: k for k, key in enumerate(sources)}
    fits = [dataclasses.replace(f, scored_models=tuple(position[i] for i in idents),
                                scored_sources=tuple(source_position[(i, f.source)] for i in idents))
            for f, idents in zip(fits, fit_models, strict=True)]

    # per identity and family, the value slots in ascending (feed, release, model)
    members: dict[str, dict[str, list[tuple[tuple[str, str, str], int]]]] = {}
    for o in observations:
        slot = slot_of.get(id(o))
        if slot is None:
            continue
        for fam in by_feed.get(o.feed, ()):
            members.setdefault(o.identity, {}).setdefault(fam, []).append(((o.feed, o.release, o.model), slot))
    family_slots = {ident: {fam: tuple(s for _, s in sorted(rows)) for fam, rows in fams.items()}
                    for ident, fams in members.items()}

    def row_input(identity: str, weights: Mapping[str, float]) -> RowInput:
        have = family_slots.get(identity, {})
        return RowInput(identity, tuple((fam, have[fam]) for fam in sorted(f for f, w in weights.items() if w > 0)
                                        if fam in have))

    board_inputs = tuple(
        BoardInput(b.id, dict(b.weights), tuple(row_input(i, b.weights) for i in b.ranked),
                   tuple(row_input(i, b.weights) for i in b.new))
        for b in boards
    )
    if residual_draws == "source":
        share, source_share = compute_residual_shares(fits)
        return BootstrapProblem(arena, tuple(fits), board_inputs, models, residual_draws, share, sources, source_share)
    return BootstrapProblem(arena, tuple(fits), board_inputs, models, residual_draws, compute_residual_share(fits))


def _pair_correlations(fits: Sequence[FitInput]) -> tuple[list[float], list[float]]:
    """(across sources, within one source): the Pearson correlation of the residuals of each pair
    of fits (in ``fits`` order) with at least ``MIN_OVERLAP`` common overlap keys, over those
    keys (ascending)."""
    across: list[float] = []
    within: list[float] = []
    for i, a in enumerate(fits):
        res_a = dict(zip(a.overlap, a.residuals, strict=True))
        for b in fits[i + 1:]:
            res_b = dict(zip(b.overlap, b.residuals, strict=True))
            common = sorted(set(res_a) & set(res_b))
            if len(common) < MIN_OVERLAP:
                continue
            corr = _pearson([res_a[k] for k in common], [res_b[k] for k in common])
            (within if a.source == b.source else across).append(corr)
    return across, within


def _median(values: list[float]) -> float:
    """The middle value of the sorted values; the mean of the middle two for an even count."""
    xs = sorted(values)
    mid = len(xs) // 2
    return xs[mid] if len(xs) % 2 else (xs[mid - 1] + xs[mid]) / 2.0


def compute_residual_shares(fits: Sequence[FitInput]) -> tuple[float, float]:
    """(c, s) of the ``source`` draws.

    c: how much a model's residuals agree across publishers: the median correlation over pairs
    of fits of different sources, clamped to [0, 1]; without such a pair, the median over all
    pairs; without any pair, 1.0 (every score follows its model). s: how much more one
    publisher's categories agree: with m the median over pairs of fits of one source, two
    scores of one source take one quantile with probability c + (1 - c) s = m, so
    s = (m - c) / (1 - c), clamped to [0, 1]; 0.0 without such a pair or when c is 1.
    """
    across, within = _pair_correlations(fits)
    pairs = across or within
    c = min(max(_median(pairs), 0.0), 1.0) if pairs else 1.0
    if not within or c >= 1.0:
        return c, 0.0
    return c, min(max((_median(within) - c) / (1.0 - c), 0.0), 1.0)


def compute_residual_share(fits: Sequence[FitInput]) -> float:
    """c = the median, over pairs of fits (in ``fits`` order) with at least ``MIN_OVERLAP`` common
    overlap keys, of the Pearson correlation of their residuals over those keys (ascending),
    clamped to [0, 1]; 1.0 when no pair has that many (every score then follows its model).

    Sums run left to right from 0.0 over the common keys; the median of an even count is the
    mean of the middle two.
    """
    across, within = _pair_correlations(fits)
    corrs = across + within
    return min(max(_median(corrs), 0.0), 1.0) if corrs else 1.0


def _pearson(x: Sequence[float], y: Sequence[float]) -> float:
    """sum(dx dy) / sqrt(sum(dx^2) sum(dy^2)), d the gap to the mean; 0 when either does not vary."""
    n = len(x)
    mx = math.fsum(x) / n
    my = math.fsum(y) / n
    sxy = sxx = syy = 0.0
    for a, b in zip(x, y, strict=True):
        sxy += (a - mx) * (b - my)
        sxx += (a - mx) * (a - mx)
        syy += (b - my) * (b - my)
    return sxy / math.sqrt(sxx * syy) if sxx > 0.0 and syy > 0.0 else 0.0


# --------------------------------------------------------------------------- draws


def _mt19937_of(rng: random.Random) -> np.random.Generator:
    """numpy's MT19937 in the very state ``rng`` is in (doubles built the same way: two 32-bit
    outputs, 27 + 26 bits, over 2**53)."""
    state = rng.getstate()[1]
    bits = np.random.MT19937()
    bits.state = {"bit_generator": "MT19937", "state": {"key": np.asarray(state[:624], dtype=np.uint32),
                                                          "pos": int(state[624])}}
    return np.random.Generator(bits)


def draw_uniforms(seed: int, count: int) -> Floats:
    """The first ``count`` values of ``random.Random(seed).random()``, shape (count,).

    numpy's MT19937 runs from the very state ``random.Random(seed)`` starts with and builds
    its doubles the same way (two 32-bit outputs, 27 + 26 bits, over 2**53); the first
    values are checked against ``random`` itself, and if they ever differ the stream comes
    from ``random`` directly (slower, same numbers).
    """
    if count <= 0:
        return np.empty(0)
    return np.concatenate([block.ravel().copy() for block in uniform_blocks(seed, 1, count, 1)])


def uniform_blocks(seed: int, rounds: int, per_round: int, block: int) -> Iterator[Floats]:
    """The rounds' uniforms, ``draw_uniforms(seed, rounds * per_round)`` as rows of
    ``per_round``, in blocks of at most ``block`` rounds: shape (rounds in the block, per_round).

    The stream continues from block to block (doubles take two whole 32-bit outputs each, so
    no output is carried over). Every block is written into one buffer, reused: a block is
    read before the next is asked for.
    """
    rng = random.Random(seed)
    gen: np.random.Generator | None = _mt19937_of(rng)
    buf = np.empty(min(block, rounds) * per_round)
    head = min(rounds * per_round, 256)
    done = 0
    while done < rounds:
        k = min(block, rounds - done)
        out = buf[:k * per_round]
        if gen is not None:
            gen.random(out=out)
            if done == 0 and not np.array_equal(out[:head], np.array([rng.random() for _ in range(head)])):
                gen, rng = None, random.Random(seed)
        if gen is None:
            out[:] = np.fromiter((rng.random() for _ in range(out.shape[0])), dtype=np.float64, count=out.shape[0])
        yield out.reshape(k, per_round)
        done += k


# Wichura's AS241 (PPND16) coefficients, lowest power first.
_A = (3.387132872796366608, 133.14166789178437745, 1971.5909503065514427, 13731.693765509461125,
      45921.953931549871457, 67265.770927008700853, 33430.575583588128105, 2509.0809287301226727)
_B = (1.0, 42.313330701600911252, 687.1870074920579083, 5394.1960214247511077,
      21213.794301586595867, 39307.89580009271061, 28729.085735721942674, 5226.495278852854561)
_C = (1.42343711074968357734, 4.6303378461565452959, 5.7694972214606914055, 3.64784832476320460504,
      1.27045825245236838258, 0.24178072517745061177, 0.0227238449892691845833, 7.7454501427834140764e-4)
_D = (1.0, 2.05319162663775882187, 1.6763848301838038494, 0.68976733498510000455,
      0.14810397642748007459, 0.0151986665636164571966, 5.475938084995344946e-4, 1.05075007164441684324e-9)
_E = (6.6579046435011037772, 5.4637849111641143699, 1.7848265399172913358, 0.29656057182850489123,
      0.026532189526576123093, 0.0012426609473880784386, 2.71155556874348757815e-5, 2.01033439929228813265e-7)
_F = (1.0, 0.599832206555887937690, 0.136929880922735805310, 0.0148753612908506148525,
      7.86869131145613259100e-4, 1.84631831751005468180e-5, 1.42151175831644588870e-7, 2.04426310338993978564e-15)

# The kernels below are compiled (numba, no fast-math: every + - * / and sqrt is one IEEE
# operation in the order written, math.log is the C library's, as in CPython), so they do
# exactly what the standard-library re-derivation does, one round after the other.


@njit(cache=True, nogil=True)
def _poly(c: tuple[float, ...], r: float) -> float:
    """sum(c[i] * r**i) as ((c7 r + c6) r + ...) r + c0."""
    acc = c[7]
    for i in range(6, -1, -1):
        acc = acc * r + c[i]
    return acc


@njit(cache=True, nogil=True)
def _ppnd(p: float) -> float:
    """Phi^-1(p) by AS241 (|error| < 1e-16); p in [0, 1), 0 read as 2**-53."""
    if not p > 0.0:
        p = SMALLEST_P
    q = p - 0.5
    if abs(q) <= 0.425:
        r = 0.180625 - q * q
        return q * _poly(_A, r) / _poly(_B, r)
    r = p if q <= 0.0 else 1.0 - p
    r = math.sqrt(-math.log(r))
    if r <= 5.0:
        r = r - 1.6
        x = _poly(_C, r) / _poly(_D, r)
    else:
        r = r - 5.0
        x = _poly(_E, r) / _poly(_F, r)
    return -x if q < 0.0 else x


@njit(cache=True, nogil=True)
def _normal_quantiles(p: Floats, out: Floats) -> None:
    for i in range(p.shape[0]):
        out[i] = _ppnd(p[i])


def normal_quantiles(p: Floats) -> Floats:
    """Phi^-1(p) elementwise (any shape), the kernel every Arena draw uses."""
    flat = np.ascontiguousarray(p, dtype=np.float64).ravel()
    out = np.empty_like(flat)
    _normal_quantiles(flat, out)
    return out.reshape(np.shape(p))


@njit(cache=True, nogil=True)
def _draw_arena(u: Floats, rating: Floats, sd: Floats, values: Floats) -> None:
    """values[b, i] = rating[i] + sd[i] * Phi^-1(u[b, i]) for the Arena slots."""
    for b in range(u.shape[0]):
        for i in range(rating.shape[0]):
            values[b, i] = rating[i] + sd[i] * _ppnd(u[b, i])


@njit(cache=True, nogil=True)
def _refit(u: Floats, col: int, raws: Floats, anchors: Ints, residuals: Floats, scored_raws: Floats,
           slot0: int, min_overlap: int, arena_values: Floats, values: Floats, res_cols: Ints, mix_cols: Ints,
           own_cols: Ints, share: float, src_res_cols: Ints, src_mix_cols: Ints, src_share: float) -> None:
    """One fit in every round: resample, refit, calibrate + residual; NaN when the refit fails.

    ``u[b, col:col + n]`` pick the resample; observation j takes the residual ``u[b, res_cols[j]]``
    picks when ``u[b, mix_cols[j]] < share``, else the one ``u[b, src_res_cols[j]]`` picks when
    ``u[b, src_mix_cols[j]] < src_share``, else the one ``u[b, own_cols[j]]`` picks;
    ``arena_values[b, i]``: the round's Arena draws; writes ``values[slot0 + j, b]``.
    """
    n, m = raws.shape[0], scored_raws.shape[0]
    for b in range(u.shape[0]):
        xs = np.empty(n)
        arena = np.empty(n)
        for i in range(n):
            k = min(int(u[b, col + i] * n), n - 1)
            xs[i] = raws[k]
            arena[i] = arena_values[b, anchors[k]]
        total = 0.0
        for i in range(n):
            total += xs[i]
        mu = total / n
        total = 0.0
        lo = xs[0]
        hi = xs[0]
        for i in range(n):
            d = xs[i] - mu
            total += d * d
            lo = min(lo, xs[i])
            hi = max(hi, xs[i])
        sigma = math.sqrt(total / n)
        ok = n >= min_overlap and hi != lo and sigma > 0.0
        alpha = 0.0
        beta = 0.0
        if ok:
            total = 0.0
            for i in range(n):
                total += arena[i]
            alpha = total / n
            num = 0.0
            den = 0.0
            for i in range(n):
                z = (xs[i] - mu) / sigma
                num += z * (arena[i] - alpha)
                den += z * z
            beta = num / den
            ok = beta > 0.0
        for j in range(m):
            if u[b, mix_cols[j]] < share:
                pick = u[b, res_cols[j]]
            elif u[b, src_mix_cols[j]] < src_share:
                pick = u[b, src_res_cols[j]]
            else:
                pick = u[b, own_cols[j]]
            k = min(int(pick * n), n - 1)
            values[slot0 + j, b] = alpha + beta * (scored_raws[j] - mu) / sigma + residuals[k] if ok else np.nan


@njit(cache=True, nogil=True)
def _round_r(values: Floats, idx: Ints, weights: Floats, out: Floats) -> None:
    """out[b, p] = R of row p in round b: families f ascending, slots idx[p, f, :] (-1 ends).

    ``values[s, b]``: slot s in round b. Per round the operations are those of one row after
    the other; the loop over rounds is innermost only so that it runs over contiguous memory.
    """
    rounds = values.shape[1]
    acc = np.empty(rounds)
    cnt = np.empty(rounds, dtype=np.int64)
    num = np.empty(rounds)
    den = np.empty(rounds)
    for p in range(idx.shape[0]):
        num[:] = 0.0
        den[:] = 0.0
        for f in range(idx.shape[1]):
            acc[:] = 0.0
            cnt[:] = 0
            for k in range(idx.shape[2]):
                s = idx[p, f, k]
                if s < 0:
                    break
                for b in range(rounds):
                    v = values[s, b]
                    if v == v:
                        acc[b] += v
                        cnt[b] += 1
            w = weights[f]
            for b in range(rounds):
                if cnt[b] > 0:
                    num[b] += w * (acc[b] / cnt[b])
                    den[b] += w
        for b in range(rounds):
            out[b, p] = num[b] / den[b] if den[b] > 0.0 else np.nan


@njit(cache=True, nogil=True)
def _ranks_of_round(row: Floats, order: Ints, out: Ints) -> None:
    """out[j] = 1 + number of entries of ``row`` strictly greater than row[j] (0 where it is NaN).

    ``order``: the positions of ``row`` by descending value, NaN last (equal values adjacent).
    """
    start = 0
    for t in range(order.shape[0]):
        v = row[order[t]]
        if not v == v:
            for rest in range(t, order.shape[0]):
                out[order[rest]] = 0
            return
        if t > 0 and v != row[order[t - 1]]:
            start = t
        out[order[t]] = start + 1


def _descending(rt: Floats) -> Ints:
    """Per row of ``rt`` the positions by descending value, NaN last."""
    return np.argsort(-rt, axis=1)


@njit(cache=True, nogil=True)
def _competition_ranks(rt: Floats, order: Ints, out: Ints) -> None:
    for b in range(rt.shape[0]):
        _ranks_of_round(rt[b], order[b], out[b])


def competition_ranks_per_round(r: Floats) -> Ints:
    """Per round, 1 + the number of rows with a strictly greater R; 0 where R is NaN. (B, n) -> (B, n)."""
    rt = np.ascontiguousarray(r, dtype=np.float64)
    out = np.empty(rt.shape, dtype=np.int64)
    if rt.size:
        _competition_ranks(rt, _descending(rt), out)
    return out


@njit(cache=True, nogil=True)
def _percentile(s: Floats, c: int, p: float) -> float:
    """Linear interpolation on ascending s[:c]: h = p (c - 1), s[k] + (h - k) (s[k+1] - s[k])."""
    h = p * (c - 1)
    k = int(math.floor(h))
    k1 = min(k + 1, c - 1)
    return float(s[k] + (h - k) * (s[k1] - s[k]))


@njit(cache=True, nogil=True)
def _rank_at(hist: Ints, position: int) -> int:
    """The value at ``position`` of the sorted ranks whose counts are ``hist`` (hist[v] rounds at rank v)."""
    seen = 0
    for v in range(hist.shape[0]):
        seen += hist[v]
        if seen > position:
            return v
    return int(hist.shape[0] - 1)


@njit(cache=True, nogil=True)
def _summarise(r: Floats, sr: Floats, ranks: Ints, top: int, p_lo: float, p_hi: float, lo: Floats, hi: Floats,
               n_valid: Ints, rank_lo: Ints, rank_hi: Ints, first: Ints, above: Ints, greater: Ints) -> None:
    """Per row (``r``: its R over the rounds, (rows, B); ``sr``: the same sorted, NaN last) its
    interval; per ranked row (``ranks``: its rank in each round, (ranked, B), 0 without an R)
    its rank range, rounds ranked first and rounds the row above is ahead; the top rows' counts."""
    rows, rounds = r.shape
    n_ranked = ranks.shape[0]
    for j in range(rows):
        c = rounds
        while c > 0 and not sr[j, c - 1] == sr[j, c - 1]:
            c -= 1
        n_valid[j] = c
        if c > 0:
            lo[j] = _percentile(sr[j], c, p_lo)
            hi[j] = _percentile(sr[j], c, p_hi)
        else:
            lo[j] = np.nan
            hi[j] = np.nan
        if j < n_ranked:
            hist = np.zeros(n_ranked + 1, dtype=np.int64)
            for b in range(rounds):
                hist[ranks[j, b]] += 1
            first[j] = hist[1]
            hist[0] = 0  # rounds without an R hold no rank
            if c > 0:
                rank_lo[j] = _rank_at(hist, int(math.floor(p_lo * (c - 1))))
                rank_hi[j] = _rank_at(hist, int(math.ceil(p_hi * (c - 1))))
            if j > 0:
                ahead = 0
                for b in range(rounds):
                    if r[j - 1, b] > r[j, b]:
                        ahead += 1
                above[j] = ahead
        if j < top:
            for other in range(top):
                count = 0
                for b in range(rounds):
                    if r[j, b] > r[other, b]:
                        count += 1
                greater[j, other] = count


# --------------------------------------------------------------------------- rounds


def simulate_values(problem: BootstrapProblem, u: Floats) -> Floats:
    """Every value slot in every round, shape (slots, B); NaN where the round dropped the feed.

    ``u``: the rounds' uniforms, shape (B, draws_per_round), each row in the documented order.
    """
    rounds = u.shape[0]
    values = np.empty((problem.slots, rounds))
    rating = np.array([a.rating for a in problem.arena], dtype=np.float64)
    sd = np.array([a.sd for a in problem.arena], dtype=np.float64)
    arena = np.empty((rounds, len(rating)))  # round-major: a refit looks up its anchors per round
    if len(rating):
        _draw_arena(u, rating, sd, arena)
    values[:len(rating)] = arena.T
    col = len(problem.arena)
    per_model = problem.residual_draws in ("model", "source")
    model_col = col + sum(len(f.overlap) for f in problem.fits)  # (v, u) per model, [per (model, source)], per score
    source_col = model_col + 2 * len(problem.models)
    own_col = source_col + (2 * len(problem.sources) if problem.residual_draws == "source" else 0)
    share = problem.residual_share if per_model else 0.0
    src_share = problem.source_share if problem.residual_draws == "source" else 0.0
    for fit in problem.fits:
        n = len(fit.overlap)
        m = len(fit.scored_slots)
        if per_model:  # the model's quantile or the score's own, on the fit's residuals in ascending order
            models = np.asarray(fit.scored_models, dtype=np.int64)
            mix_cols = model_col + 2 * models
            res_cols = mix_cols + 1
            own_cols = own_col + np.arange(m, dtype=np.int64)
            own_col += m
            if src_share > 0.0:
                src_mix_cols = source_col + 2 * np.asarray(fit.scored_sources, dtype=np.int64)
                src_res_cols = src_mix_cols + 1
            else:
                src_mix_cols = src_res_cols = own_cols
            residuals = np.sort(np.asarray(fit.residuals, dtype=np.float64))
        else:
            own_cols = col + n + np.arange(m, dtype=np.int64)
            res_cols = mix_cols = src_res_cols = src_mix_cols = own_cols
            residuals = np.asarray(fit.residuals, dtype=np.float64)
        if fit.scored_slots:
            _refit(u, col, np.asarray(fit.raws, dtype=np.float64), np.asarray(fit.anchors, dtype=np.int64),
                   residuals, np.asarray(fit.scored_raws, dtype=np.float64),
                   fit.scored_slots[0], MIN_OVERLAP, arena, values, res_cols, mix_cols, own_cols, share,
                   src_res_cols, src_mix_cols, src_share)
        col += n if per_model else n + len(fit.scored_slots)
    return values


def row_slots(rows: Sequence[RowInput], weights: Mapping[str, float]) -> tuple[Ints, Floats]:
    """(slots, weights) as ``_round_r`` reads them: ``slots[p, f, :]`` the value slots of row p
    in family f (families with a positive weight, ascending id; -1 ends), shape
    (rows, families, deepest); ``weights[f]``."""
    fams = sorted(f for f, w in weights.items() if w > 0)
    depth = max((len(slots) for r in rows for _, slots in r.families), default=0)
    idx = np.full((len(rows), len(fams), max(depth, 1)), -1, dtype=np.int64)
    for p, row in enumerate(rows):
        slots_of = dict(row.families)
        for f, fam in enumerate(fams):
            for k, s in enumerate(slots_of.get(fam, ())):
                idx[p, f, k] = s
    return idx, np.array([float(weights[f]) for f in fams], dtype=np.float64)


def compute_round_r(rows: Sequence[RowInput], weights: Mapping[str, float], values: Floats) -> Floats:
    """R of each row in each round, shape (B, len(rows)); NaN where no family is present.

    ``values``: shape (slots, B). Sums run left to right: a family's values in slot order,
    the families in ascending id.
    """
    idx, w = row_slots(rows, weights)
    out = np.empty((values.shape[1], len(rows)))
    if len(rows):
        _round_r(values, idx, w, out)
    return out


def compute_tie_leaders(r: Floats) -> list[tuple[int, float] | None]:
    """Tie groups anchored on their leaders, for ranked rows in board order.

    ``r``: R of the ranked rows in every round, shape (B, rows) (NaN: no R that round). The
    first row leads a group; each next row joins the current leader's group while the
    leader has a strictly greater R in fewer than ``TIE_THRESHOLD`` of all B rounds, and
    otherwise leads a new group. Per row: ``(leader's position, P(R_leader > R_row))``, or
    None for a leader. Comparing with the leader, not the row above, means a group cannot
    chain down a dense board: every member is statistically tied with the one model at the
    top of its group.
    """
    rounds, n = r.shape
    out: list[tuple[int, float] | None] = []
    leader = 0
    for j in range(n):
        if j == 0:
            out.append(None)
            continue
        p = int(np.count_nonzero(r[:, leader] > r[:, j])) / rounds
        if p < TIE_THRESHOLD:
            out.append((leader, p))
        else:
            leader = j
            out.append(None)
    return out


def summarise_board(board: BoardInput, r: Floats) -> BoardUncertainty:
    """Interval, rank range, P(first), Rank (UB), ties and the top rows' matrix of one board.

    ``r``: R of the board's rows (ranked, then new) in every round, shape (B, rows).
    """
    r = np.asarray(r, dtype=np.float64)
    rows = [*board.ranked, *board.new]
    rounds, n_rows = r.shape
    n_ranked = len(board.ranked)
    top = min(PAIRWISE_TOP, n_ranked)
    lo, hi = np.empty(n_rows), np.empty(n_rows)
    n_valid = np.zeros(n_rows, dtype=np.int64)
    rank_lo, rank_hi = np.zeros(n_ranked, dtype=np.int64), np.zeros(n_ranked, dtype=np.int64)
    first, above = np.zeros(n_ranked, dtype=np.int64), np.zeros(n_ranked, dtype=np.int64)
    greater = np.zeros((top, top), dtype=np.int64)
    if n_rows:
        by_row = np.ascontiguousarray(r.T)
        ranks = np.ascontiguousarray(competition_ranks_per_round(r[:, :n_ranked]).T)
        _summarise(by_row, np.sort(by_row, axis=1), ranks, top, INTERVAL[0], INTERVAL[1], lo, hi, n_valid,
                   rank_lo, rank_hi, first, above, greater)
    nv = n_valid[:n_ranked]
    lows = np.sort(lo[:n_ranked][nv > 0])
    # ranked rows whose lower bound is strictly above each row's upper bound
    beaten = len(lows) - np.searchsorted(lows, hi[:n_ranked], side="right")
    leaders = compute_tie_leaders(r[:, :n_ranked])
    out: dict[str, RowUncertainty] = {}
    for j, row in enumerate(rows):
        scored = int(n_valid[j])
        r_lo = float(lo[j]) if scored else None
        r_hi = float(hi[j]) if scored else None
        if j >= n_ranked:
            out[row.identity] = RowUncertainty(r_lo, r_hi, None, None, None, None, None, None, scored)
            continue
        p_above = int(above[j]) / rounds if j > 0 else None
        out[row.identity] = RowUncertainty(
            r_lo=r_lo,
            r_hi=r_hi,
            rank_lo=int(rank_lo[j]) if scored else None,
            rank_hi=int(rank_hi[j]) if scored else None,
            rank_ub=1 + int(beaten[j]) if scored else None,
            p_first=int(first[j]) / rounds,
            p_above=p_above,
            tied_above=None if p_above is None else p_above < TIE_THRESHOLD,
            rounds_scored=scored,
            tie_leader=board.ranked[lead[0]].identity if (lead := leaders[j]) is not None else None,
            p_leader=lead[1] if lead is not None else None,
        )
    matrix = tuple(tuple(int(greater[a, b]) / rounds for b in range(top)) for a in range(top))
    return BoardUncertainty(board.id, out, tuple(row.identity for row in board.ranked[:top]), matrix)


def compute_uncertainty(problem: BootstrapProblem, rounds: int, seed: int) -> dict[str, BoardUncertainty]:
    """Board id -> its bootstrap summary, from ``rounds`` rounds drawn from ``random.Random(seed)``.

    Boards with the same weights (one role) share their rows' rounds: R is computed once per
    role for the union of their rows.
    """
    if rounds <= 0:
        return {}
    by_weights: dict[tuple[tuple[str, float], ...], list[BoardInput]] = {}
    for b in problem.boards:
        by_weights.setdefault(tuple(sorted(b.weights.items())), []).append(b)
    groups = []
    for group in by_weights.values():
        union: dict[str, RowInput] = {}
        for b in group:
            for row in [*b.ranked, *b.new]:
                union.setdefault(row.identity, row)
        idx, w = row_slots(list(union.values()), group[0].weights)
        groups.append((group, {ident: k for k, ident in enumerate(union)}, idx, w, np.empty((rounds, len(union)))))
    # Rounds run in blocks of a few MB of uniforms and values, reused from block to block: the
    # whole draw (rounds x draws per round doubles) once passed 32 MiB at 500 models, above
    # which glibc's malloc maps every new array afresh (the kernel zero-fills each page on
    # first touch, and the free unmaps it again) where smaller ones reuse the warm heap.
    d = problem.draws_per_round
    block = max(1, min(rounds, BLOCK_VALUES // max(d, problem.slots, 1)))
    start = 0
    for u in uniform_blocks(seed, rounds, d, block):
        values = simulate_values(problem, u)
        for _, _, idx, w, r_all in groups:
            if r_all.shape[1]:
                _round_r(values, idx, w, r_all[start:start + u.shape[0]])
        start += u.shape[0]
    out: dict[str, BoardUncertainty] = {}
    for group, position, _, _, r_all in groups:
        for b in group:
            out[b.id] = summarise_board(b, r_all[:, [position[row.identity] for row in [*b.ranked, *b.new]]])
    return {b.id: out[b.id] for b in problem.boards}


# --------------------------------------------------------------------------- the snapshot


def _finite_or_none(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        return None
    return float(value)


def bootstrap_observations(
    observations: Sequence[Observation], calibrated: Sequence[float | None], arena_feeds: set[str]
) -> list[BootstrapObservation]:
    """The usable observations (those with a calibrated value), Arena ones with their interval."""
    out = []
    for o, c in zip(observations, calibrated, strict=True):
        if c is None or not o.identity or o.raw is None:
            continue
        lo = hi = None
        if o.feed in arena_feeds:
            lo, hi = _finite_or_none(o.details.get("rating_q025")), _finite_or_none(o.details.get("rating_q975"))
        out.append(BootstrapObservation(o.identity, o.model, o.source, o.feed, o.release, float(o.raw), c, lo, hi))
    return out


@gc_paused  # the bootstrap makes no cycles; a full collection of the snapshot cost 75 ms of 0.43 s at 500 models
def compute_snapshot_uncertainty(
    observations: Sequence[Observation],
    calibrated: Sequence[float | None],
    calibrations: Sequence[Calibration],
    arena_feeds: set[str],
    text_feeds: set[str],
    families: Mapping[str, Sequence[str]],
    boards: Sequence[snap.Board],
    rounds: int,
    seed: int,
) -> tuple[snap.UncertaintySettings, tuple[snap.Board, ...]]:
    """(the snapshot's ``uncertainty`` settings, ``boards`` with their bootstrap attached).

    With ``rounds`` 0 the boards come back unchanged (``uncertainty`` null everywhere).
    """
    if rounds <= 0:
        return compute_settings(0, seed, None), tuple(boards)
    rows = [BoardRows(b.id, dict(b.weights), tuple(r.identity for r in b.rows), tuple(r.identity for r in b.new))
            for b in boards]
    problem = compute_bootstrap_problem(bootstrap_observations(observations, calibrated, arena_feeds),
                                        calibrations, arena_feeds, text_feeds, families, rows)
    results = compute_uncertainty(problem, rounds, seed)
    return compute_settings(rounds, seed, problem), attach_uncertainty(boards, results)


def attach_uncertainty(boards: Sequence[snap.Board], results: Mapping[str, BoardUncertainty]) -> tuple[snap.Board, ...]:
    """The boards with each one's and each row's bootstrap set (None where there is none)."""
    out = []
    for b in boards:
        res = results.get(b.id)
        if res is None:
            out.append(b)
            continue

        def with_row(row: snap.BoardRow, res: BoardUncertainty = res) -> snap.BoardRow:
            one = res.rows.get(row.identity)
            return row.model_copy(update={"uncertainty": one.to_model() if one is not None else None})

        out.append(b.model_copy(update={"uncertainty": res.to_model(), "rows": tuple(map(with_row, b.rows)),
                                        "new": tuple(map(with_row, b.new))}))
    return tuple(out)
