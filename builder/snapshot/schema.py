"""The published JSON Schema of a snapshot (draft 2020-12), generated from the models.

The site ships it as ``data/snapshot.schema.json``; ``tests/test_snapshot_schema.py``
validates every committed snapshot against it with the ``jsonschema`` package. Field
descriptions come from ``builder.snapshot.models`` (one declaration, two readers).
"""

from __future__ import annotations

import json
from typing import Any

from builder.snapshot.models import SCHEMA_VERSION, Snapshot

DIALECT = "https://json-schema.org/draft/2020-12/schema"
SCHEMA_FILE = "snapshot.schema.json"
"File name of the schema among the site's downloads (``data/``)."


def snapshot_json_schema() -> dict[str, Any]:
    """The schema of a current-version snapshot, as a JSON object."""
    schema = Snapshot.model_json_schema(mode="validation")
    return {
        "$schema": DIALECT,
        "title": f"ModelBoards snapshot, schema version {SCHEMA_VERSION}",
        **{k: v for k, v in schema.items() if k != "title"},
    }


def render_json_schema() -> str:
    """The schema as the text of ``data/snapshot.schema.json`` (sorted keys, final newline)."""
    return json.dumps(snapshot_json_schema(), indent=1, sort_keys=True, ensure_ascii=False) + "\n"
