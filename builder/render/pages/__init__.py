"""Every page of the site, in one explicit list: ``PAGES`` (menu order = render order).

``builder.render.site.render_site`` renders exactly the entries of the list it is given
(``PAGES`` by default) whose ``available(snapshot, earlier_snapshots)`` is true; the menu
shows those that have a menu title. To add a page: write a module here with a
``render_*(w: SiteWriter)`` function and add one ``Page`` entry below. An entry whose render
writes files and nothing else (no HTML page, warning or share card) can say ``beside=True``:
a forked copy of the render writes it while the pages are written (``Page``).
"""

from __future__ import annotations

from builder.render.pages import (
    api,
    archive,
    arena,
    boards,
    changes,
    charts,
    compare,
    content,
    data,
    evals,
    evidence,
    excluded,
    front,
    methodology,
    models,
    race,
    stacks,
)
from builder.render.writer import Page, has_any_snapshot, has_snapshot

PAGES: tuple[Page, ...] = (
    Page("home", front.render_front),
    Page("boards", boards.render_boards, "Boards", "boards/", has_snapshot),
    Page("stacks", stacks.render_stacks, "Stacks", "stacks/", has_snapshot),
    Page("picks", stacks.render_picks, "Home computers", "picks/", has_snapshot),
    Page("models", models.render_models, "Models", "models/", has_snapshot),
    Page("compare", compare.render_compare, "Compare", "compare/", has_snapshot),
    Page("excluded", excluded.render_excluded, "Excluded", "excluded/", has_snapshot),
    Page("arena", arena.render_arena, "Arena", "arena/", arena.arena_available),
    Page("arenas", arena.render_more_arenas, None, "arenas/", arena.more_arenas_available),
    Page("evals", evals.render_evals, "Evals", "evals/", evals.evals_available),
    Page("index", evidence.render_index, "Index", "capability-index/", evidence.index_available),
    Page("evidence", evidence.render_evidence, "Evidence", "evidence/", evidence.evidence_available,
         first=evidence.write_evidence_files),
    Page("race", race.render_race, "Race", "race/", has_any_snapshot),
    Page("charts", charts.render_charts, "Charts", "charts/", has_snapshot),
    Page("archive", archive.render_archive, "Archive", "archive/", has_any_snapshot),
    Page("changes", changes.render_changes, None, "changes/", changes.changes_available),
    Page("data", data.render_data, "Data", "data/"),
    Page("methodology", methodology.render_methodology, "Methodology", "methodology/"),
    Page("about", content.render_about, content.about_title, "about/"),
    Page("api", api.render_api),
    Page("content", content.render_content_pages),
    Page("404", content.render_not_found),
    # files only, written by a forked copy of the render while the pages above are (Page.beside),
    # last: the render waits for the copy at the first of them
    Page("compare-data", compare.render_compare_data, available=has_snapshot, beside=True),
    Page("archive-downloads", archive.render_archived_downloads, beside=True),
    Page("snapshot-schema", data.render_snapshot_schema, beside=True),
    Page("api-schemas", api.render_api_schemas, available=has_snapshot, beside=True),
    Page("api-documents", api.render_api_documents, available=has_snapshot, beside=True),
)

__all__ = ["PAGES"]
