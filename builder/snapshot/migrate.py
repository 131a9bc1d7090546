"""Snapshot schema migrations: one small step per version, applied on load.

A site's committed history keeps rendering after a schema change: ``migrate`` walks a
snapshot's JSON from its ``schema_version`` up to ``SCHEMA_VERSION``, one step at a time.
Each step takes the JSON object of version N and returns the object of version N + 1; it
never reads files and never refits anything.

Version 1 -> 2:

- snake_case everywhere: the Capability Index's ``allVersions`` becomes ``all_versions``
  (boards and ranks), ``sourceScore`` ``source_score``, a fusion term's ``from``
  ``from_identity``; clarify summaries' ``TKQR``/``ORA`` become ``tkqr``/``ora``;
- keys that were sometimes left out are always written, null when empty: Arena history
  bounds ``lower``/``upper``, a suite's ``clarify``, a fusion term's ``from_identity``,
  ``backfill``; a value that was not finite (written as a string in version 1) is null;
- an eval suite keeps its per-metric ``boards`` only (its top-level ``rows``, ``pairwise``,
  ``markdown``, ``n_tasks``, ``n_models`` and ``categories`` repeated the shown metric's);
- new: ``previous_date`` (null: version 1 did not record it) and ``worked_example``,
  computed from the snapshot's own saved numbers as scoring does.

Version 2 -> 3:

- new: the boards' bootstrap. ``uncertainty`` (the settings) at the top, on every board
  (its pairwise matrix) and on every board row, home-computer picks included: null, since a
  version-2 snapshot was scored without it (rendering never refits anything).
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

from pydantic import Field

from builder.snapshot.models import (
    SCHEMA_VERSION,
    Board,
    Calibration,
    Family,
    Observation,
    SnapshotModel,
    Source,
)
from builder.snapshot.worked import compute_worked_example

Json = dict[str, Any]


class UnknownVersion(ValueError):
    """A ``schema_version`` this code cannot read."""


def _rename(d: Json, old: str, new: str) -> None:
    if old in d:
        d[new] = d.pop(old)


def _number_or_none(value: Any) -> Any:
    """Version 1 wrote a non-finite number as a string ("nan", "inf"); version 2 writes null."""
    return None if isinstance(value, str) else value


class _ExampleParts(SnapshotModel):
    """The parts the worked example reads, validated exactly as in ``Snapshot``."""

    boards: tuple[Board, ...] = Field(description="As Snapshot.boards.")
    families: dict[str, Family] = Field(description="As Snapshot.families.")
    observations: tuple[Observation, ...] = Field(description="As Snapshot.observations.")
    calibration: tuple[Calibration, ...] = Field(description="As Snapshot.calibration.")
    sources: tuple[Source, ...] = Field(description="As Snapshot.sources.")


def v1_to_v2(data: Json) -> Json:
    """Schema 1 -> 2 (see the module docstring). Returns a new object; ``data`` is untouched.

    Raises ``pydantic.ValidationError`` (locations relative to the snapshot) when the parts
    the worked example needs do not have the version-2 shape.
    """
    out = copy.deepcopy(data)
    out["schema_version"] = 2
    out.setdefault("previous_date", None)
    out.setdefault("backfill", None)
    for o in out.get("observations") or []:
        if isinstance(o, dict) and "raw" in o:
            o["raw"] = _number_or_none(o["raw"])
    index = out.get("index")
    if isinstance(index, dict):
        _rename(index.get("boards") or {}, "allVersions", "all_versions")
        for m in index.get("models") or []:
            _rename(m.get("rank") or {}, "allVersions", "all_versions")
            for obs in m.get("observations") or []:
                _rename(obs, "sourceScore", "source_score")
            for term in (m.get("fusion") or {}).get("terms") or []:
                _rename(term, "from", "from_identity")
                term.setdefault("from_identity", None)
    arena = out.get("arena")
    if isinstance(arena, dict):
        for s in arena.get("history") or []:
            for m in s.get("models") or []:
                m.setdefault("lower", None)
                m.setdefault("upper", None)
    evals = out.get("evals")
    if isinstance(evals, dict):
        for suite in evals.get("suites") or []:
            for key in ("rows", "pairwise", "markdown", "n_tasks", "n_models", "categories"):
                suite.pop(key, None)
            suite.setdefault("clarify", None)
            clarify = suite.get("clarify")
            if isinstance(clarify, dict):
                for summary in [clarify.get("overall"), *(clarify.get("models") or {}).values()]:
                    if isinstance(summary, dict):
                        _rename(summary, "TKQR", "tkqr")
                        _rename(summary, "ORA", "ora")
    parts = _ExampleParts.model_validate({k: out.get(k) for k in _ExampleParts.model_fields}, strict=False)
    example = compute_worked_example(parts.boards, parts.families, parts.observations, parts.calibration,
                                     parts.sources)
    out["worked_example"] = example.model_dump(mode="json") if example is not None else None
    return out


def v2_to_v3(data: Json) -> Json:
    """Schema 2 -> 3 (see the module docstring). Returns a new object; ``data`` is untouched."""
    out = copy.deepcopy(data)
    out["schema_version"] = 3
    out.setdefault("uncertainty", None)
    for board in out.get("boards") or []:
        if isinstance(board, dict):
            board.setdefault("uncertainty", None)
            for row in [*(board.get("rows") or []), *(board.get("new") or [])]:
                if isinstance(row, dict):
                    row.setdefault("uncertainty", None)
    for machine in out.get("machines") or []:
        for row in (machine.get("rows") or []) if isinstance(machine, dict) else []:
            if isinstance(row, dict):
                row.setdefault("uncertainty", None)
    return out


STEPS: dict[int, Callable[[Json], Json]] = {1: v1_to_v2, 2: v2_to_v3}
"Version N -> the step that makes version N + 1."


def migrate(data: Json) -> Json:
    """``data`` brought to ``SCHEMA_VERSION`` (the same object when it is current).

    Raises ``UnknownVersion`` for a version with no path to the current one.
    """
    version = data.get("schema_version")
    if not isinstance(version, int) or isinstance(version, bool) or not (
        version == SCHEMA_VERSION or version in STEPS
    ):
        known = ", ".join(str(v) for v in sorted({*STEPS, SCHEMA_VERSION}))
        raise UnknownVersion(f"schema_version {version!r} is not one this ModelBoards reads ({known})")
    while version != SCHEMA_VERSION:
        data = STEPS[version](data)
        version = data["schema_version"]
    return data


__all__ = ["STEPS", "UnknownVersion", "migrate", "v1_to_v2", "v2_to_v3"]
