"""The snapshot contract: typed, validated, migrated, published (``snapshots/YYYY-MM-DD.json``).

    models     the frozen pydantic models (``Snapshot`` and its parts), every field documented
    load       load_snapshot(path) / parse_snapshot(text): JSON -> migrate -> validate; one line on error
    migrate    one small step per schema version (1 -> 2 -> 3)
    store      write_snapshot (same-day rule, atomic), list_snapshots, previous_snapshot, check_guards
    schema     the JSON Schema (draft 2020-12) the site publishes as data/snapshot.schema.json
    assemble   assemble_snapshot: the one function that joins the computed parts
    worked     the methodology's worked example, from a snapshot's saved numbers
"""

from builder.snapshot.load import load_snapshot, parse_snapshot, validate_snapshot
from builder.snapshot.models import SCHEMA_VERSION, Snapshot
from builder.snapshot.store import (
    MAX_AGE_DAYS,
    check_guards,
    dump_snapshot,
    has_rows,
    list_snapshots,
    previous_snapshot,
    sources_ok,
    write_snapshot,
)

__all__ = [
    "MAX_AGE_DAYS",
    "SCHEMA_VERSION",
    "Snapshot",
    "check_guards",
    "dump_snapshot",
    "has_rows",
    "list_snapshots",
    "load_snapshot",
    "parse_snapshot",
    "previous_snapshot",
    "sources_ok",
    "validate_snapshot",
    "write_snapshot",
]
