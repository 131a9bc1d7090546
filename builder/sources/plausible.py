"""Plausibility of a parsed payload: is it what the source publishes, or a broken upstream job?

A payload that parses can still be useless: ``{}``, ``[]``, ``{"data": []}`` or a CSV with
only its header row are well-formed and empty. Stored, such a payload would replace the
source's last good one and empty every board it feeds. So before a new payload may replace
the stored one it must yield at least ``source.min_records`` *usable* records:

* kinds that publish scores, prices or build checks: the observations, prices and build
  checks the parser did not exclude (a row that breaks a validation rule does not count);
* kinds that publish only facts about models (``lmarena_catalog``, ``metadata``): the models.

The expected top-level shape of each kind (an object keyed by category, a list of runs, a
``data`` list, the required CSV columns) is checked by its parser, which raises
``PayloadError`` for anything else.
"""

from __future__ import annotations

from builder.config import SourceConfig
from builder.records import ParseResult

MODEL_FACT_KINDS = frozenset({"lmarena_catalog", "metadata", "modelsdev"})
"Kinds whose records are facts about models (no scores or prices)."


def count_usable(result: ParseResult, kind: str) -> int:
    """Usable records of one parsed payload (see the module docstring)."""
    if kind in MODEL_FACT_KINDS:
        return len(result.models)
    return (
        sum(o.excluded is None for o in result.observations)
        + sum(p.excluded is None for p in result.prices)
        + sum(b.excluded is None for b in result.build_checks)
    )


def check_plausible(result: ParseResult, source: SourceConfig) -> str | None:
    """Why ``result`` is implausible for ``source`` (None: it is plausible)."""
    n = count_usable(result, source.kind)
    if n < source.min_records:
        what = "models" if source.kind in MODEL_FACT_KINDS else "usable records"
        return (f"{n} {what}, fewer than the minimum of {source.min_records} (min_records in site.yml); "
                "the last good payload stays")
    return None
