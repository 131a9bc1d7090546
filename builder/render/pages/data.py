"""The Data page (every download with its schema and licence) and ``data/LICENCE.txt``.

The snapshot's JSON Schema depends on the code alone: it is kept in a memo
(``builder.util.memo``, ``.modelboards/snapshot-schema/``), generated again when the code changes.
"""

from __future__ import annotations

from builder.render import exports, identities
from builder.render.pages.archive import all_snapshots
from builder.render.writer import SiteWriter
from builder.snapshot.schema import SCHEMA_FILE, render_json_schema
from builder.util.memo import Memo, memo_key

SCHEMA_MEMO = "snapshot-schema"
"The memo of ``render_json_schema``."


def render_snapshot_schema(w: SiteWriter) -> None:
    """``data/snapshot.schema.json``, from the memo when it holds it: a file only (``Page.beside``)."""
    memo = Memo(w.base, SCHEMA_MEMO)
    w.file(f"data/{SCHEMA_FILE}", memo.text(memo_key(SCHEMA_MEMO), render_json_schema))
    memo.prune()


def render_data(w: SiteWriter) -> None:
    if w.snap is not None:
        rows = identities.compute_identity_rows(w.snap)
        w.file("data/identities.csv", identities.render_identities_csv(rows))
        w.file("data/identities.json", identities.render_identities_json(rows, w.snap, w.attribution))
    w.file("data/LICENCE.txt", exports.render_licence_text(w.snap, w.cfg.site.title, w.common["base_url"]))
    w.page("data/index.html", "data.html", title="Downloads and schemas", section="data",
           description="Every download with its schema and licence.",
           boards=w.snap.boards if w.snap else (), snapshots=all_snapshots(w), schema_file=SCHEMA_FILE,
           csv_columns=exports.board_csv_columns(), family_column=exports.FAMILY_COLUMN,
           json_fields=exports.BOARD_JSON_FIELDS, snapshot_fields=exports.SNAPSHOT_FIELDS,
           board_families=exports.board_families, pairwise_columns=exports.PAIRWISE_CSV_COLUMNS,
           has_pairwise=lambda b: exports.board_pairwise(b) is not None,
           identity_columns=identities.IDENTITY_COLUMNS)
