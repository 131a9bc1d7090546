"""The methodology's worked example, recomputed from a snapshot's saved numbers (no refit).

For one model and one board, with the parameters saved in ``snapshot["calibration"]``:

    calibrated = alpha + beta * (raw - mu) / sigma        (Arena text and coding: raw, unchanged)
    family_mean[f] = mean(usable calibrated scores in family f)
    R = sum(w[f] * family_mean[f] for present f) / sum(w[f] for present f)
    displayed score = round(R)                            (half to even)

A usable observation is selected, not excluded, has a calibrated value, and feeds a family
with a positive weight on the board. The recomputed R is checked against the board row's
saved R; a disagreement is reported, never hidden. The per-model numbers are read from the
snapshot's observations and calibration records (``local_explain``); nothing is refitted.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

TOLERANCE = 1e-9


@dataclass(frozen=True)
class SourceStep:
    """One usable observation: its feed, raw value and how it became Arena-scale."""

    source: str
    feed: str
    family: str
    model: str
    raw: float
    calibrated: float
    date: str | None
    fit: Mapping[str, Any] | None  # the calibration record (mu, sigma, alpha, beta, n), None for Arena
    recomputed: float  # calibrated value recomputed from ``fit`` (== raw for Arena); set by _verify


@dataclass(frozen=True)
class FamilyStep:
    family: str
    title: str
    weight: float
    values: tuple[float, ...]
    mean: float


@dataclass(frozen=True)
class WorkedExample:
    """Everything the methodology page prints for the example; numbers unrounded."""

    board_id: str
    board_title: str
    identity: str
    model: str
    sources: tuple[SourceStep, ...]
    families: tuple[FamilyStep, ...]
    r: float
    score: int
    saved_r: float
    rank: int | None
    partial: bool
    partial_reasons: tuple[str, ...]
    evaluators: tuple[str, ...]
    agrees: bool

    @property
    def weight_sum(self) -> float:
        return sum(f.weight for f in self.families)


def compute_worked_example(snapshot: Mapping[str, Any], board_id: str | None = None) -> WorkedExample | None:
    """The example for the #1 row of ``board_id`` (default: the first orchestrator-kind board).

    The numbers come from the snapshot (``local_explain``); every step is recomputed here
    and ``agrees`` says whether it reproduces the saved values. Returns None when there is
    no such board or it has no ranked row.
    """
    board = _find_board(snapshot, board_id)
    if board is None or not board.get("rows"):
        return None
    row = board["rows"][0]
    steps, fams = local_explain(snapshot, board, row)
    return _verify(board, row, steps, fams)


def _find_board(snapshot: Mapping[str, Any], board_id: str | None) -> Mapping[str, Any] | None:
    for b in snapshot.get("boards") or []:
        if (board_id is not None and b.get("id") == board_id) or (board_id is None and b.get("kind") == "orchestrator"):
            return b
    return None


def local_explain(snapshot: Mapping[str, Any], board: Mapping[str, Any], row: Mapping[str, Any]):
    """(source steps, family tuples) for ``row`` from the snapshot's observations and fits."""
    ident = row.get("identity")
    weights = {f: float(w) for f, w in (board.get("weights") or {}).items() if float(w) > 0}
    fam_spec = snapshot.get("families") or {}
    feed_family = {feed: fam for fam in weights for feed in (fam_spec.get(fam) or {}).get("feeds", [])}
    fits = {(c.get("source"), c.get("feed"), c.get("release")): c for c in snapshot.get("calibration") or []}
    steps: list[SourceStep] = []
    for o in snapshot.get("observations") or []:
        if o.get("identity") != ident or not o.get("selected") or o.get("excluded"):
            continue
        fam = feed_family.get(o.get("feed"))
        if o.get("calibrated") is None or fam is None or o.get("raw") is None:
            continue
        fit = fits.get((o.get("source"), o.get("feed"), o.get("release")))
        fit = fit if fit is not None and fit.get("used") else None
        steps.append(SourceStep(o.get("source", ""), o.get("feed", ""), fam, o.get("model", ""), float(o["raw"]),
                                float(o["calibrated"]), o.get("date"), fit, 0.0))
    fams = []
    for fam in weights:
        values = tuple(s.calibrated for s in steps if s.family == fam)
        if values:
            fams.append((fam, (fam_spec.get(fam) or {}).get("title", fam), weights[fam], values,
                         sum(values) / len(values)))
    return steps, fams


def _close(a: float, b: float) -> bool:
    return abs(a - b) <= TOLERANCE * max(1.0, abs(b))


def _verify(board, row, steps: list[SourceStep], fams: list[tuple]) -> WorkedExample | None:
    """Recompute every step from the saved numbers and build the example."""
    checked: list[SourceStep] = []
    ok = True
    for s in steps:
        fit = s.fit
        if fit and fit.get("sigma"):
            again = fit["alpha"] + fit["beta"] * (s.raw - fit["mu"]) / fit["sigma"]
        else:
            again = s.raw  # Arena text and coding are used unchanged
        ok = ok and _close(again, s.calibrated)
        checked.append(SourceStep(s.source, s.feed, s.family, s.model, s.raw, s.calibrated, s.date, fit, again))
    families = []
    for fam, title, weight, values, mean in sorted(fams, key=lambda f: (-f[2], f[0])):
        if values:
            ok = ok and _close(sum(values) / len(values), mean)
        families.append(FamilyStep(fam, title, weight, values, mean))
    if not families:
        return None
    r = sum(f.weight * f.mean for f in families) / sum(f.weight for f in families)
    saved = float(row.get("r"))
    ok = ok and _close(r, saved) and round(r) == row.get("score")
    order = {f: i for i, f in enumerate(f.family for f in families)}
    checked.sort(key=lambda s: (order.get(s.family, len(order)), s.feed))
    return WorkedExample(
        board_id=board.get("id", ""), board_title=board.get("title", ""), identity=row.get("identity", ""),
        model=row.get("model", ""), sources=tuple(checked), families=tuple(families), r=r, score=round(r),
        saved_r=saved, rank=row.get("rank"), partial=bool(row.get("partial")),
        partial_reasons=tuple(row.get("partial_reasons") or ()), evaluators=tuple(row.get("evaluators") or ()),
        agrees=ok,
    )
