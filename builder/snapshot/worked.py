"""The methodology's worked example, computed from a snapshot's saved numbers (no refit).

For the first ranked row of a board (default: the first orchestrator-kind board), with the
parameters saved in the snapshot's ``calibration``::

    calibrated     = alpha + beta * (raw - mu) / sigma     (Arena feeds: raw, unchanged)
    family_mean[f] = mean(the row's calibrated scores in family f)
    R              = sum(w[f] * family_mean[f]) / sum(w[f])   over the families present
    score          = round(R)                                 (half to even)

An observation counts when it is the row's identity, selected, not excluded, has a
calibrated value and feeds a family with a positive weight on the board. Every step is recomputed and compared with the
saved value (relative tolerance 1e-9); ``agrees`` says whether all of them reproduce, so a
disagreement is shown, never hidden. This is the arithmetic ``modelboards explain`` prints
for one row; scoring stores the result in the snapshot, so rendering never recomputes it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from builder.snapshot.models import (
    Board,
    Calibration,
    Family,
    FitParameters,
    Observation,
    Source,
    WorkedExample,
    WorkedFamily,
    WorkedSource,
    sources_playing,
)

TOLERANCE = 1e-9
"Relative tolerance of a recomputed step against its saved value."


def close(a: float, b: float) -> bool:
    """``a`` reproduces ``b`` within ``TOLERANCE`` (relative, absolute below 1)."""
    return abs(a - b) <= TOLERANCE * max(1.0, abs(b))


def example_board(boards: Sequence[Board], board_id: str | None = None) -> Board | None:
    """The board with ``board_id``, else (no id given) the first orchestrator-kind board."""
    for b in boards:
        if (board_id is not None and b.id == board_id) or (board_id is None and b.kind == "orchestrator"):
            return b
    return None


def _fit_parameters(fit: Calibration | None) -> FitParameters | None:
    if fit is None or None in (fit.mu, fit.sigma, fit.alpha, fit.beta):
        return None
    assert fit.mu is not None and fit.sigma is not None and fit.alpha is not None and fit.beta is not None
    return FitParameters(n=fit.n, mu=fit.mu, sigma=fit.sigma, alpha=fit.alpha, beta=fit.beta)


def _recompute(raw: float, fit: FitParameters | None) -> float:
    if fit is None or not fit.sigma:
        return raw  # Arena feeds are used unchanged
    return fit.alpha + fit.beta * (raw - fit.mu) / fit.sigma


def compute_worked_example(
    boards: Sequence[Board],
    families: Mapping[str, Family],
    observations: Sequence[Observation],
    calibration: Sequence[Calibration],
    sources: Sequence[Source],
    board_id: str | None = None,
) -> WorkedExample | None:
    """The example for the first ranked row of the board (see the module docstring).

    None when there is no such board, it has no ranked row, or the row has no usable score.
    """
    board = example_board(boards, board_id)
    if board is None or not board.rows:
        return None
    row = board.rows[0]
    arena_sources = set(sources_playing(sources, "arena"))  # on the Arena scale already (never calibrated)
    fits = {(c.source, c.feed, c.release): c for c in calibration}
    steps: list[WorkedSource] = []
    ok = True
    for o in observations:
        if o.identity != row.identity or not o.selected or o.excluded or o.calibrated is None or o.raw is None:
            continue
        for fam, spec in families.items():
            if o.feed not in spec.feeds or board.weights.get(fam, 0) <= 0:
                continue
            fit = None if o.source in arena_sources else _fit_parameters(fits.get((o.source, o.feed, o.release)))
            again = _recompute(o.raw, fit)
            ok = ok and close(again, o.calibrated)
            steps.append(WorkedSource(source=o.source, feed=o.feed, family=fam, model=o.model, raw=o.raw,
                                      calibrated=o.calibrated, date=o.date, fit=fit, recomputed=again))
    fams: list[WorkedFamily] = []
    for fam, weight in board.weights.items():
        if fam not in row.families:
            continue
        values = tuple(s.calibrated for s in steps if s.family == fam)
        mean = row.families[fam]
        if values:
            ok = ok and close(sum(values) / len(values), mean)
        title = families[fam].title if fam in families else fam
        fams.append(WorkedFamily(family=fam, title=title, weight=weight, values=values, mean=mean))
    if not fams:
        return None
    fams.sort(key=lambda f: (-f.weight, f.family))
    r = sum(f.weight * f.mean for f in fams) / sum(f.weight for f in fams)
    ok = ok and close(r, row.r) and round(r) == row.score
    order = {f.family: i for i, f in enumerate(fams)}
    steps.sort(key=lambda s: (order.get(s.family, len(order)), s.feed))
    return WorkedExample(board_id=board.id, identity=row.identity, sources=tuple(steps), families=tuple(fams),
                         r=r, score=round(r), agrees=ok)
