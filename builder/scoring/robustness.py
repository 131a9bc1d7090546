"""Robustness of the role boards: to their independent evaluators and to their weights.

The unit is the *independent evaluator* (``SourceConfig.evaluator``, the publisher: LMArena,
Epoch, Aider, LiveBench, Terminal-Bench, an eval suite), the same unit that decides the New
strip and the partial label; one evaluator may publish several sources and feeds, and
leaving it out removes all of them. Nothing here changes a board: R, ranks, labels and order
come from ``boards`` and ``rank`` alone.

Leaving evaluators out (per board, for every evaluator with a weighted score on it; a set
``S`` of them at a time)::

    R_S     = the published R over the families present without S's scores:
              sum(w_f * mean of the row's remaining scores in f) / sum(w_f, f still present)
    ranked  = at least two evaluators left and a weighted family present (else the New strip
              or no row: the row loses its rank, its ``loo_ranks`` entry is null)
    rank_S  = 1 + number of rows still ranked with a strictly greater R_S

over the board's qualified rows (ranked rows and the New strip: qualification by price,
licence or flagship name does not depend on scores). This is the published method run again
without S: the observations (identities and selection) are reused, and refitting the
calibrations without S gives every remaining feed its published fit, because each z-fit
reads only its own feed and the Arena text anchor. The evaluator of the Arena text ratings
is that *anchor*: without it no feed could be calibrated at all, so it is left out as
evidence only (its ratings leave every family, the calibrations keep their scale). The
tests check these ranks against full rebuilds with the evaluator's sources disabled.

    depends_on      evaluators e whose leaving out moves the row by more places than its
                    bootstrap rank range is wide: |rank_e - base_e| > rank_hi - rank_lo, where
                    base_e = 1 + the number of rows still ranked without e whose published R
                    is greater (the row's rank had only the rows that lose theirs gone: a
                    row does not "move" because rows above it left the ranking); rank_e
                    null does not count (that is a loss of rank, shown as such)
    depends_on_one  depends_on is not empty (null without a rank range)
    leader_set      the first set, by size (1, 2, ... max_set) then ascending names, whose
                    leaving out puts another row first: the published #1 unranked or behind
                    a row with a strictly greater R (a set that leaves no row ranked does
                    not count); leader_after is the row then ranked first

Weights. ``draws`` vectors from Dirichlet(concentration * w / sum(w)) over the role's
families with a positive weight (families in ascending id), one ``random.Random(seed)``
stream, per draw one ``gammavariate(a_f, 1.0)`` per family and the vector divided by their
sum (left to right). Under each draw every ranked row's R is recomputed from its published
family means, the families' terms summed left to right in ascending id::

    R_b = sum(w_bf * mean_f, present f) / sum(w_bf, present f)

    hold_share   share of draws in which no row has a strictly greater R_b than the published #1
    contender    per ranked row 2..5: share of draws in which it leads (no row greater), and the
                 draw nearest the published weights (Euclidean distance, normalised weights,
                 earliest draw on a tie) among those; when it leads in none, the nearest point
                 of a coarse grid (every family a positive multiple of 0.1, in lexicographic
                 order) where it leads; 'none found' when it leads nowhere on that grid either

The standard-library ``builder/evidence/recompute.py`` repeats both with the same operations.
"""

from __future__ import annotations

import itertools
import math
import random
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from builder.config import RobustnessConfig
from builder.records import Observation
from builder.scoring.calibrate import usable_observation
from builder.scoring.families import Contribution
from builder.snapshot import models as snap

CONTENDERS = 4
"Ranked rows after #1 whose leading weights are searched (rows 2 to 5)."
GRID_STEPS = 10
"The fallback grid of weights: every family a positive multiple of 1/10."

Contributions = Mapping[str, Sequence[Contribution]]
Floats = npt.NDArray[np.float64]


@dataclass(frozen=True, slots=True)
class EvaluatorArrays:
    """A board's qualified rows (ranked in board order, then the New strip) as arrays over their
    weighted families (ascending id) and evaluators (ascending).

    ``sums[n, f, e]``/``counts[n, f, e]``: sum and number of row n's calibrated scores (Arena
    scale) in family f from evaluator e; ``weights[f]``: the role's weight.
    """

    identities: tuple[str, ...]
    models: tuple[str, ...]
    families: tuple[str, ...]
    evaluators: tuple[str, ...]
    sums: Floats
    counts: Floats
    weights: Floats


def compute_anchor_evaluators(observations: Iterable[Observation], text_feeds: set[str]) -> set[str]:
    """Evaluators of the usable Arena text ratings (the calibration anchor)."""
    return {o.evaluator for o in observations if o.feed in text_feeds and usable_observation(o)}


def compute_evaluator_arrays(
    rows: Sequence[snap.BoardRow], contributions: Contributions, weights: Mapping[str, float]
) -> EvaluatorArrays:
    """The arrays of ``rows`` from their published contributions (see ``EvaluatorArrays``)."""
    fams = sorted(f for f, w in weights.items() if w > 0)
    fam_at = {f: i for i, f in enumerate(fams)}
    idents = [r.identity for r in rows]
    evaluators = sorted({c.evaluator for k in idents for c in contributions.get(k, ()) if c.family in fam_at})
    ev_at = {e: i for i, e in enumerate(evaluators)}
    sums = np.zeros((len(idents), len(fams), len(evaluators)))
    counts = np.zeros_like(sums)
    for n, k in enumerate(idents):
        for c in contributions.get(k, ()):
            f = fam_at.get(c.family)
            if f is not None:
                sums[n, f, ev_at[c.evaluator]] += c.calibrated
                counts[n, f, ev_at[c.evaluator]] += 1
    return EvaluatorArrays(tuple(idents), tuple(r.model for r in rows), tuple(fams), tuple(evaluators), sums, counts,
                           np.array([float(weights[f]) for f in fams], dtype=np.float64))


def compute_kept_r(arrays: EvaluatorArrays, keep: Floats) -> Floats:
    """R of every row with only the evaluators ``keep[k]`` marks (1 kept, 0 left out), shape (K, n).

    NaN where the row is not ranked then: fewer than two evaluators left (the New strip) or
    no weighted family. ``keep``: shape (K, E).
    """
    kept_sum = np.einsum("nfe,ke->knf", arrays.sums, keep)
    kept_cnt = np.einsum("nfe,ke->knf", arrays.counts, keep)
    present = kept_cnt > 0
    means = np.divide(kept_sum, kept_cnt, out=np.zeros_like(kept_sum), where=present)
    num = (means * arrays.weights).sum(axis=2)
    den = (present * arrays.weights).sum(axis=2)
    rated = (arrays.counts.sum(axis=1) > 0).astype(np.float64)  # (n, E): evaluator e scores row n
    voices = rated @ keep.T  # (n, K)
    ranked = (voices.T >= 2) & (den > 0)
    return np.where(ranked, num / np.where(den > 0, den, 1.0), np.nan)


def competition_ranks_of(r: Floats) -> list[int | None]:
    """Competition rank of each entry of ``r`` (shape (n,)) among its non-NaN entries; None for NaN."""
    valid = np.sort(r[~np.isnan(r)])
    above = len(valid) - np.searchsorted(valid, r, side="right")
    return [None if math.isnan(float(x)) else int(a) + 1 for x, a in zip(r, above, strict=True)]


def removal_sets(evaluators: Sequence[str], max_set: int) -> list[tuple[str, ...]]:
    """Every set of 1 .. max_set evaluators, by size then in ascending order of names."""
    return [c for size in range(1, min(max_set, len(evaluators)) + 1) for c in itertools.combinations(evaluators, size)]


def compute_leader_set(
    arrays: EvaluatorArrays, sets: Sequence[tuple[str, ...]], r: Floats
) -> tuple[tuple[str, ...] | None, str | None]:
    """(the first set whose leaving out puts another row first, that row); (None, None) when none does.

    ``r``: R per set and row (``compute_kept_r``), shape (len(sets), n); the published #1 is row 0.
    """
    for k, combo in enumerate(sets):
        row = r[k]
        if np.isnan(row).all():
            continue  # no row left ranked: an empty board has no #1
        best = float(np.nanmax(row))
        lead = float(row[0])
        if math.isnan(lead) or best > lead:
            # the row then ranked first: highest R, ties in ascending spelling (as the boards order)
            first = min((j for j in range(len(row)) if row[j] == best), key=lambda j: arrays.models[j])
            return combo, arrays.identities[first]
    return None, None


# --------------------------------------------------------------------------- weights


def draw_weights(
    weights: Mapping[str, float], concentration: float, draws: int, seed: int
) -> tuple[list[str], list[list[float]]]:
    """(families with a positive weight, ascending; ``draws`` Dirichlet vectors over them, each summing to 1).

    One ``random.Random(seed)``; per draw one ``gammavariate(concentration * w_f / sum w, 1.0)``
    per family in that order, divided by their sum taken left to right from 0.0.
    """
    fams = sorted(f for f, w in weights.items() if w > 0)
    total = 0.0
    for f in fams:
        total += weights[f]
    shape = [concentration * weights[f] / total for f in fams]
    gamma = random.Random(seed).gammavariate
    out = []
    for _ in range(draws):
        g = [gamma(a, 1.0) for a in shape]
        s = 0.0
        for x in g:
            s += x
        # every gamma underflowing to 0 (tiny shapes): the published weights stand for the draw
        out.append([x / s for x in g] if s > 0 else [weights[f] / total for f in fams])
    return fams, out


def weight_grid(families: int) -> list[list[float]]:
    """Every weight vector over ``families`` families with positive multiples of 1/GRID_STEPS
    summing to 1, in lexicographic order of the multiples (the fallback search of a contender)."""
    out: list[list[float]] = []

    def fill(prefix: list[int], left: int, slots: int) -> None:
        if slots == 1:
            out.append([k / GRID_STEPS for k in (*prefix, left)])
            return
        for k in range(1, left - slots + 2):
            fill([*prefix, k], left - k, slots - 1)

    if 0 < families <= GRID_STEPS:
        fill([], GRID_STEPS, families)
    return out


def compute_weighted_r(ranked: Sequence[snap.BoardRow], fams: Sequence[str], w: Floats) -> Floats:
    """R of every ranked row under every weight vector ``w`` (shape (B, F)) from the rows'
    published family means, shape (B, n); the terms summed left to right in ascending family id."""
    means = np.array([[row.families.get(f, 0.0) for f in fams] for row in ranked], dtype=np.float64).reshape(
        len(ranked), len(fams))
    present = np.array([[1.0 if f in row.families else 0.0 for f in fams] for row in ranked],
                       dtype=np.float64).reshape(len(ranked), len(fams))
    num = np.zeros((w.shape[0], len(ranked)))
    den = np.zeros((w.shape[0], len(ranked)))
    for f in range(len(fams)):
        num += w[:, f, None] * (means[:, f] * present[:, f])[None, :]
        den += w[:, f, None] * present[:, f][None, :]
    return np.where(den > 0, num / np.where(den > 0, den, 1.0), -np.inf)


def squared_distance(w: Floats, published: Floats) -> Floats:
    """Squared Euclidean distance of each row of ``w`` (B, F) from ``published`` (F,), summed left to right."""
    sq = np.zeros(w.shape[0])
    for f in range(w.shape[1]):
        d = w[:, f] - published[f]
        sq += d * d
    return sq


def nearest_lead(leads: Floats, sq: Floats, j: int) -> int | None:
    """The vector nearest the published weights among those under which row ``j`` leads (earliest on a tie)."""
    hits = np.flatnonzero(leads[:, j])
    return int(hits[np.argmin(sq[hits])]) if hits.size else None


def compute_weight_robustness(
    ranked: Sequence[snap.BoardRow], weights: Mapping[str, float], cfg: RobustnessConfig,
    drawn: tuple[list[str], list[list[float]]] | None = None,
) -> snap.WeightRobustness | None:
    """Hold share of the published #1 and the top-5 contenders under the weight draws (None: off or no row).

    A contender that leads under no draw is looked for on the coarse grid of ``weight_grid``.
    """
    if not ranked or cfg.draws <= 0:
        return None
    fams, vectors = drawn if drawn is not None else draw_weights(weights, cfg.concentration, cfg.draws, cfg.seed)
    w = np.asarray(vectors, dtype=np.float64).reshape(len(vectors), len(fams))  # (B, F)
    r = compute_weighted_r(ranked, fams, w)
    leads = r >= r.max(axis=1)[:, None]  # (B, n): no row strictly greater
    total = 0.0
    for f in fams:
        total += weights[f]
    published = np.array([weights[f] / total for f in fams], dtype=np.float64)
    sq = squared_distance(w, published)
    grid: tuple[Floats, Floats, Floats] | None = None
    contenders = []
    for j in range(1, min(len(ranked), 1 + CONTENDERS)):
        b = nearest_lead(leads, sq, j)
        share = int(np.count_nonzero(leads[:, j])) / w.shape[0]
        if b is not None:
            contenders.append(snap.WeightContender(
                identity=ranked[j].identity, lead_share=share, draw=b, found_in="draws",
                weights={f: float(w[b, k]) for k, f in enumerate(fams)}, distance=math.sqrt(float(sq[b]))))
            continue
        if grid is None:
            g = np.asarray(weight_grid(len(fams)), dtype=np.float64).reshape(-1, len(fams))
            rg = compute_weighted_r(ranked, fams, g)
            grid = (g, rg >= rg.max(axis=1)[:, None] if len(g) else np.zeros((0, len(ranked)), bool),
                    squared_distance(g, published))
        g, g_leads, g_sq = grid
        k = nearest_lead(g_leads, g_sq, j)
        contenders.append(snap.WeightContender(
            identity=ranked[j].identity, lead_share=share, draw=None, found_in="grid" if k is not None else None,
            weights={f: float(g[k, i]) for i, f in enumerate(fams)} if k is not None else None,
            distance=math.sqrt(float(g_sq[k])) if k is not None else None))
    return snap.WeightRobustness(concentration=cfg.concentration, draws=w.shape[0], seed=cfg.seed,
                                 grid_steps=GRID_STEPS, hold_share=int(np.count_nonzero(leads[:, 0])) / w.shape[0],
                                 contenders=tuple(contenders))


# --------------------------------------------------------------------------- the snapshot


def moved_beyond_range(rank: int | None, base: int, unc: snap.RowUncertainty | None) -> bool | None:
    """Does the leave-one-out ``rank`` differ from ``base`` (the row's place among the rows that
    stay ranked, by published R) by more places than the row's rank range is wide
    (rank_hi - rank_lo)? None without a range; False for a lost rank."""
    if unc is None or unc.rank_lo is None or unc.rank_hi is None:
        return None
    return rank is not None and abs(rank - base) > unc.rank_hi - unc.rank_lo


def survivor_bases(published_r: Sequence[float], loo: Sequence[int | None]) -> list[int]:
    """Per ranked row: 1 + the number of rows still ranked without the evaluator whose published R
    is strictly greater (its rank had only the rows that lose theirs been taken away)."""
    kept = sorted(r for r, k in zip(published_r, loo, strict=True) if k is not None)
    return [1 + len(kept) - int(np.searchsorted(kept, r, side="right")) for r in published_r]


def compute_board_robustness(
    board: snap.Board,
    contributions: Contributions,
    anchor: str | None,
    cfg: RobustnessConfig,
    drawn: tuple[list[str], list[list[float]]] | None,
) -> snap.Board:
    """``board`` with every ranked row's leave-one-out ranks and flag, and the board's robustness."""
    if not board.rows:
        return board
    arrays = compute_evaluator_arrays((*board.rows, *board.new), contributions, board.weights)
    evaluators = arrays.evaluators
    sets = removal_sets(evaluators, cfg.max_set)
    keep = np.ones((len(sets), len(evaluators)))
    at = {e: i for i, e in enumerate(evaluators)}
    for k, combo in enumerate(sets):
        keep[k, [at[e] for e in combo]] = 0.0
    r = compute_kept_r(arrays, keep)  # (sets, rows); the single evaluators come first
    n_ranked = len(board.rows)
    loo = {e: competition_ranks_of(r[k]) for k, e in enumerate(evaluators)}
    published_r = [row.r for row in board.rows]
    bases = {e: survivor_bases(published_r, loo[e][:n_ranked]) for e in evaluators}
    rows = []
    for j, row in enumerate(board.rows):
        loo_ranks = {e: loo[e][j] for e in evaluators}
        checks = {e: moved_beyond_range(rank, bases[e][j], row.uncertainty) for e, rank in loo_ranks.items()}
        depends = tuple(e for e, out in checks.items() if out)
        known = row.uncertainty is not None and row.uncertainty.rank_lo is not None
        rows.append(row.model_copy(update={"loo_ranks": loo_ranks, "depends_on": depends,
                                           "depends_on_one": bool(depends) if known else None}))
    leader_set, after = compute_leader_set(arrays, sets, r)
    robust = snap.BoardRobustness(
        evaluators=evaluators, anchor=anchor if anchor in evaluators else None, max_set=cfg.max_set,
        leader_set=leader_set, leader_after=after,
        weights=compute_weight_robustness(board.rows[:n_ranked], board.weights, cfg, drawn))
    return board.model_copy(update={"rows": tuple(rows), "robustness": robust})


def compute_snapshot_robustness(
    observations: Sequence[Observation],
    contributions: Contributions,
    text_feeds: set[str],
    boards: Sequence[snap.Board],
    cfg: RobustnessConfig,
) -> tuple[snap.Board, ...]:
    """``boards`` with their robustness (unchanged when ``cfg.enabled`` is false).

    ``observations``/``contributions``: those the boards were scored from (identity -> its
    usable calibrated scores). Boards of one role share their weight draws.
    """
    if not cfg.enabled:
        return tuple(boards)
    anchors = compute_anchor_evaluators(observations, text_feeds)
    anchor = min(anchors) if anchors else None
    drawn: dict[tuple[tuple[str, float], ...], tuple[list[str], list[list[float]]]] = {}
    out = []
    for b in boards:
        key = tuple(sorted(b.weights.items()))
        if b.rows and cfg.draws > 0 and key not in drawn:
            drawn[key] = draw_weights(b.weights, cfg.concentration, cfg.draws, cfg.seed)
        out.append(compute_board_robustness(b, contributions, anchor, cfg, drawn.get(key)))
    return tuple(out)
