"""The one place a snapshot is put together from its computed parts.

``score``, ``build`` and ``backfill`` all end here: the scoring stage computes the boards
part (``ScoredBoards``: sources, families, roles, observations, calibration, model facts,
prices, boards, picks, stacks and the worked example), the Arena, eval-suite and Capability
Index stages compute theirs, and ``assemble_snapshot`` joins them into one validated,
frozen ``Snapshot``. Nothing changes a snapshot after this; a part that disagrees with
another (a model the index names that ``models`` lacks) fails here, before anything is written.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from builder.snapshot.models import (
    SCHEMA_VERSION,
    Arena,
    Backfill,
    Board,
    Calibration,
    CapabilityIndex,
    Evals,
    Family,
    Machine,
    ModelFacts,
    Observation,
    Prices,
    Role,
    SiteInfo,
    Snapshot,
    SnapshotMethod,
    Source,
    Stacks,
    UncertaintySettings,
    WorkedExample,
)


@dataclass(frozen=True)
class ScoredBoards:
    """What the scoring stage computes for one day (see ``builder.scoring.boards``).

    ``date`` is the UTC day, ``created_at`` the build time (ISO, UTC); ``previous_date`` the
    earlier snapshot the movement compares with (None: no movement). Every other field is
    the snapshot field of the same name.
    """

    date: str
    created_at: str
    method_id: str
    as_of: str | None
    stale: bool
    previous_date: str | None
    site: SiteInfo
    sources: tuple[Source, ...]
    families: Mapping[str, Family]
    roles: Mapping[str, Role]
    observations: tuple[Observation, ...]
    calibration: tuple[Calibration, ...]
    models: Mapping[str, ModelFacts]
    prices: Prices
    boards: tuple[Board, ...]
    machines: tuple[Machine, ...]
    stacks: Stacks
    uncertainty: UncertaintySettings
    worked_example: WorkedExample | None


def assemble_snapshot(
    scored: ScoredBoards,
    *,
    demo: bool,
    arena: Arena | None,
    evals: Evals | None,
    index: CapabilityIndex | None,
    backfill: Backfill | None = None,
) -> Snapshot:
    """The complete snapshot of the current schema from its parts. Pure: no I/O.

    Raises ``pydantic.ValidationError`` when the parts do not agree (a programming error
    in a stage, never a user's).
    """
    return Snapshot(
        schema_version=SCHEMA_VERSION,
        date=scored.date,
        created_at=scored.created_at,
        method_id=scored.method_id,
        method=SnapshotMethod(single_source_rule=True),
        demo=demo,
        as_of=scored.as_of,
        stale=scored.stale,
        previous_date=scored.previous_date,
        site=scored.site,
        sources=scored.sources,
        families=dict(scored.families),
        roles=dict(scored.roles),
        observations=scored.observations,
        calibration=scored.calibration,
        models=dict(scored.models),
        prices=scored.prices,
        boards=scored.boards,
        machines=scored.machines,
        stacks=scored.stacks,
        uncertainty=scored.uncertainty,
        worked_example=scored.worked_example,
        arena=arena,
        evals=evals,
        index=index,
        backfill=backfill,
    )
