"""The published JSON Schema (draft 2020-12): generated from the models, shipped with the site,
and every committed snapshot validates against it with the ``jsonschema`` package."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from builder.snapshot import SCHEMA_VERSION, list_snapshots, load_snapshot
from builder.snapshot.schema import DIALECT, SCHEMA_FILE, render_json_schema, snapshot_json_schema

ROOT = Path(__file__).resolve().parents[1]
SHIPPED = list_snapshots(ROOT / "snapshots")
FIXTURES = sorted((ROOT / "tests" / "fixtures").glob("*_snapshot.json"))


@pytest.fixture(scope="module")
def validator() -> jsonschema.Draft202012Validator:
    schema = snapshot_json_schema()
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema, format_checker=jsonschema.FormatChecker())


def test_the_schema_is_draft_2020_12_and_documents_every_field():
    schema = snapshot_json_schema()
    assert schema["$schema"] == DIALECT == "https://json-schema.org/draft/2020-12/schema"
    assert schema["properties"]["schema_version"]["const"] == SCHEMA_VERSION
    undocumented = []
    objects = [(name, d) for name, d in [("Snapshot", schema), *schema["$defs"].items()] if "properties" in d]
    assert len(objects) > 40
    for name, d in objects:
        for field, spec in d["properties"].items():
            if not spec.get("description"):
                undocumented.append(f"{name}.{field}")
        assert d.get("additionalProperties") is False, name
    assert undocumented == []


@pytest.mark.parametrize("path", [*SHIPPED, *FIXTURES], ids=lambda p: p.stem)
def test_every_committed_snapshot_validates_against_the_schema(validator, path):
    doc = json.loads(path.read_text(encoding="utf-8"))
    errors = sorted(validator.iter_errors(doc), key=lambda e: list(e.absolute_path))
    assert errors == [], f"{path}: {errors[0].json_path}: {errors[0].message}"
    # and the models agree with the schema: what they load is what the schema accepts
    assert validator.is_valid(load_snapshot(path).model_dump(mode="json"))


def test_the_schema_refuses_what_the_models_refuse(validator):
    doc = json.loads(SHIPPED[-1].read_text(encoding="utf-8"))
    doc["boards"][0]["rows"][0]["rank"] = "1"
    doc["models"][next(iter(doc["models"]))]["colour"] = "red"
    messages = {e.json_path for e in validator.iter_errors(doc)}
    assert "$.boards[0].rows[0].rank" in messages
    assert any(m.startswith("$.models") for m in messages)


def test_the_site_ships_the_schema_and_links_it(tmp_path):
    from datetime import UTC, datetime

    from builder.config import load_config
    from builder.render.site import render_site

    cfg, base = load_config(ROOT / "site.yml")
    snap = load_snapshot(SHIPPED[-1])
    render_site(snap, [], cfg, base, tmp_path, now=datetime(2026, 11, 29, 13, tzinfo=UTC))
    assert (tmp_path / "data" / SCHEMA_FILE).read_text(encoding="utf-8") == render_json_schema()
    assert f'href="../data/{SCHEMA_FILE}"' in (tmp_path / "data" / "index.html").read_text(encoding="utf-8")
    assert f"`{SCHEMA_FILE}`" in (tmp_path / "data" / "README.md").read_text(encoding="utf-8")
