"""Names of the published file formats, shared by the code that computes a file and the code
that writes it: the engines' command-line outputs and the site's downloads use one spelling."""

from __future__ import annotations

RATING_LICENCE = "CC BY-SA 4.0"
"Licence of the role boards' rating tables (the site's own normalisation and aggregation)."

INDEX_LICENCE = "CC BY 4.0"
"Licence of the Capability Index tables and evidence."

ARENA_TABLE_COLUMNS: tuple[str, ...] = (
    "model", "rating", "median", "lower", "upper", "rank", "rank_ub", "battles", "wins", "ties", "win_rate",
)
"Columns of the Arena rating table (``arena fit`` output, and the site's ratings download before ``elo``)."

EVALS_REPORT_SCHEMA = "modelboards-evals-v1"
"The ``schema`` tag of an eval report JSON (``evals aggregate --json`` and the site's suite download)."
