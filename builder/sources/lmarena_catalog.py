"""LMArena arena-catalog ``scatterplot-data.json`` -> ``ModelInfo`` records.

Payload shape: a JSON list of ``{"name": "GPT-4o", "model_api_name":
"chatgpt-4o-latest-20241120", "input_token_price": "2.5", "output_token_price": "10",
"organization": "OpenAI", "license": "Proprietary", "price_source": ..., "model_source":
..., "hidden"?: true}``.

The Arena weight licence is what the open-weight board reads (a model is open-weight when
its Arena weight licence is present and not marked proprietary), so ``open_weight`` comes from
``builder.sources.metadata.open_weight`` (which knows the upstream misspelling
"Propretary"). The catalog's token prices (USD per million, as strings) are not used: token
prices come from LiteLLM and OpenRouter. ``model`` is the Arena spelling
(``model_api_name``, which is what the leaderboard files key on; ``name`` when it is absent).
A row with neither cannot describe a model and is skipped (there is no excluded state for
facts); every other row is kept, hidden ones included.
"""

from __future__ import annotations

import logging

from builder.config import SourceConfig
from builder.records import ModelInfo, ParseResult, Payload
from builder.sources.litellm import load_json
from builder.sources.metadata import open_weight

log = logging.getLogger(__name__)


def _text(value: object) -> str | None:
    return value.strip() if isinstance(value, str) and value.strip() else None


def parse(payload: Payload, source: SourceConfig) -> ParseResult:
    """Catalog list -> ``ParseResult(models=...)``: maker, licence, open_weight, url."""
    from builder.sources.base import PayloadError

    name, rows = load_json(payload, "scatterplot-data.json")
    if not isinstance(rows, list):
        raise PayloadError(f"{name}: expected a JSON list of models, got {type(rows).__name__}")
    models: list[ModelInfo] = []
    for i, row in enumerate(rows):
        model = _text(row.get("model_api_name")) or _text(row.get("name")) if isinstance(row, dict) else None
        if model is None:
            log.warning("%s: row %d has no model_api_name or name; skipped", name, i)
            continue
        licence = _text(row.get("license"))
        models.append(
            ModelInfo(
                source=source.name,
                model=model,
                name=_text(row.get("name")),
                maker=_text(row.get("organization")),
                licence=licence,
                open_weight=open_weight(licence),
                url=_text(row.get("model_source")),
            )
        )
    return ParseResult(models=tuple(models), published=None)
