"""The Data page (every download with its schema and licence) and ``data/LICENCE.txt``."""

from __future__ import annotations

from builder.render import exports
from builder.render.pages.archive import all_snapshots
from builder.render.writer import SiteWriter
from builder.snapshot.schema import SCHEMA_FILE, render_json_schema


def render_data(w: SiteWriter) -> None:
    w.file("data/LICENCE.txt", exports.render_licence_text(w.snap, w.cfg.site.title, w.common["base_url"]))
    w.file(f"data/{SCHEMA_FILE}", render_json_schema())
    w.page("data/index.html", "data.html", title="Downloads and schemas", section="data",
           description="Every download with its schema and licence.",
           boards=w.snap.boards if w.snap else (), snapshots=all_snapshots(w), schema_file=SCHEMA_FILE,
           csv_columns=exports.BOARD_CSV_COLUMNS, family_column=exports.FAMILY_COLUMN,
           json_fields=exports.BOARD_JSON_FIELDS, snapshot_fields=exports.SNAPSHOT_FIELDS,
           board_families=exports.board_families)
