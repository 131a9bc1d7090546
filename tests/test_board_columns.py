"""A board column is declared once: the snapshot's ``BoardRow``. A field added to it (here in a
separate process, before anything else is imported) shows up in the CSV and JSON downloads,
the API's board documents and their JSON Schema, and the table headers' tooltips, with its
description, without any other edit."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from builder.api.models import BoardRow as ApiBoardRow
from builder.render.exports import board_csv_columns
from builder.snapshot.models import BoardRow, board_row_columns

ROOT = Path(__file__).resolve().parents[1]

SCRIPT = r'''
import sys
from datetime import datetime
from pathlib import Path

from pydantic.fields import FieldInfo

import builder.snapshot.models as m

# the new column: one field on the snapshot's BoardRow, nothing else
m.BoardRow.model_fields["latency_s"] = FieldInfo(
    annotation=float | None, default=None, description="Median seconds to the first token.")
for cls in (m.BoardRow, m.Board, m.Snapshot):
    cls.model_rebuild(force=True)

# a field added in the source changes the code fingerprint that keys the memos (the JSON
# Schemas are kept in one); this edit is made in memory, so the fingerprint changes by hand
import builder.util.memo as memo
memo.code_fingerprint = lambda: "BoardRow with latency_s"

from builder.config import load_config
from builder.render.site import render_site
from builder.snapshot import list_snapshots, load_snapshot

root, out = Path(sys.argv[1]), Path(sys.argv[2])
cfg, base = load_config(root / "site.yml")
snap = load_snapshot(list_snapshots(root / "snapshots")[-1])
boards = tuple(b.model_copy(update={"rows": tuple(r.model_copy(update={"latency_s": 0.25 * (i + 1)})
                                                  for i, r in enumerate(b.rows))}) for b in snap.boards)
snap = snap.model_copy(update={"boards": boards})
render_site(snap, [], cfg, base, out, now=datetime.fromisoformat(snap.created_at))
'''


def test_the_columns_are_the_snapshot_row_fields():
    names = [c.name for c in board_row_columns()]
    assert names[: len(names) - 1] == [c for c, _, _ in board_csv_columns()[1:]] and names[-1] == "families"
    assert list(ApiBoardRow.model_fields) == names
    for c in board_row_columns():
        assert ApiBoardRow.model_fields[c.name].description == c.description
        if c.name in BoardRow.model_fields:
            assert c.description == BoardRow.model_fields[c.name].description


def test_a_field_added_to_board_row_is_a_column_everywhere(tmp_path):
    """One render of the newest shipped snapshot (~15-30 s: the whole site, so every download
    and the API are the real ones) in a process whose BoardRow has one field more."""
    out = tmp_path / "site"
    run = subprocess.run([sys.executable, "-c", SCRIPT, str(ROOT), str(out)], cwd=tmp_path,
                         env={**os.environ, "PYTHONPATH": str(ROOT)}, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr[-3000:]
    lines = (out / "data" / "boards" / "orchestrator.csv").read_text().splitlines()
    header = lines[0].split(",")
    assert "latency_s" in header and header.index("latency_s") == header.index("build_passed") + 1
    assert lines[1].split(",")[header.index("latency_s")] == "0.25"
    download = json.loads((out / "data" / "boards" / "orchestrator.json").read_text())
    assert [r["latency_s"] for r in download["rows"][:2]] == [0.25, 0.5]
    api = json.loads((out / "api" / "v1" / "boards" / "orchestrator.json").read_text())
    assert api["rows"][1]["latency_s"] == 0.5 and api["rows"] == download["rows"]
    schema = (out / "api" / "v1" / "schema" / "board.json").read_text()
    assert "latency_s" in schema and "Median seconds to the first token." in schema
    data_page = (out / "data" / "index.html").read_text(encoding="utf-8")
    assert "<code>latency_s</code>" in data_page and "Median seconds to the first token." in data_page
    board_page = (out / "boards" / "orchestrator" / "index.html").read_text(encoding="utf-8")
    assert 'title="Blended token price, USD per million tokens' in board_page
