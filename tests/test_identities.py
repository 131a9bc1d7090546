"""The identity map download (data/identities.csv and .json) of a shipped snapshot."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

from builder.render.identities import (
    IDENTITY_COLUMNS,
    compute_identity_rows,
    render_identities_csv,
    render_identities_json,
)
from builder.snapshot import load_snapshot

ROOT = Path(__file__).resolve().parents[1]


def test_identity_rows_cover_every_spelling_and_price_key():
    snap = load_snapshot(ROOT / "snapshots" / "2026-11-29.json")
    rows = compute_identity_rows(snap)
    got = {(r.identity, r.source, r.spelling) for r in rows}
    assert len(got) == len(rows)  # no duplicate row
    for o in snap.observations:
        if o.identity:
            assert (o.identity, o.source, o.model) in got
    for p in snap.prices.token:
        assert (p.identity, p.source, p.key) in got
    chosen = {(p.identity, p.source): p.key for p in snap.prices.token if p.used}
    for r in rows:
        assert r.openrouter_id == chosen.get((r.identity, "openrouter"), r.openrouter_id)
        assert r.litellm_key == chosen.get((r.identity, "litellm"), r.litellm_key)
        assert r.spelling not in r.aliases
        assert set(r.aliases) >= set(snap.models[r.identity].spellings) - {r.spelling}
    assert rows == sorted(rows, key=lambda r: (r.identity, r.source, r.spelling))


def test_csv_and_json_agree():
    snap = load_snapshot(ROOT / "snapshots" / "2026-11-29.json")
    rows = compute_identity_rows(snap)
    table = list(csv.DictReader(io.StringIO(render_identities_csv(rows))))
    doc = json.loads(render_identities_json(rows, snap, "test"))
    assert list(table[0]) == [c[0] for c in IDENTITY_COLUMNS] == [c["name"] for c in doc["columns"]]
    assert len(table) == len(doc["rows"]) == len(rows)
    for line, item in zip(table, doc["rows"], strict=True):
        assert line["identity"] == item["identity"] and line["spelling"].lstrip("'") == item["spelling"]
        assert (line["aliases"].split(";") if line["aliases"] else []) == item["aliases"]
        assert (line["openrouter_id"] or None) == item["openrouter_id"]
