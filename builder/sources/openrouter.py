"""OpenRouter ``GET /api/v1/models`` -> token ``Price`` records (the value stack's prices).

Formula: the blended price, in USD per million tokens, is

    blended = 1_000_000 * (0.75 * pricing.prompt + 0.25 * pricing.completion)

with both prices in USD per token. OpenRouter publishes them as decimal strings
(``"0.00000045"``); they must parse to finite, positive numbers.

Payload shape: ``{"data": [{"id": "openai/gpt-5", "name": ..., "created": <unix s>,
"context_length": 400000, "pricing": {"prompt": "...", "completion": "...", "overrides":
[...]?, ...}, ...}], ...}``.

What is excluded (kept as a record with its reason):
- ids with ':' (``:free``, ``:batch``, ``:thinking``): variants of a model, not its list price;
- ``"-1"`` prices: routers whose price varies with the routed model;
- zero, negative, non-numeric or missing prices;
- alias entries (``~anthropic/claude-opus-latest`` with ``alias_target``): the target's own
  entry carries the same price, so counting the alias would list one model twice.
Tiered ``overrides`` (higher prices above a prompt length) are ignored: the base tier is the
list price. Entries with a usable ``context_length`` also yield a ``ModelInfo``.
"""

from __future__ import annotations

from datetime import UTC
from typing import Any

from builder.config import SourceConfig
from builder.records import ModelInfo, ParseResult, Payload, Price
from builder.sources.litellm import blended_price, check_price, load_json

VARIABLE = "-1"
"""OpenRouter's price for routers (the price depends on the model routed to)."""


def _price(value: Any, name: str) -> tuple[float | None, str | None]:
    if isinstance(value, str) and value.strip() == VARIABLE:
        return None, f"{name} is variable ('-1': a router, not one model)"
    return check_price(value, name, strings=True)


def parse(payload: Payload, source: SourceConfig) -> ParseResult:
    """OpenRouter models list -> ``ParseResult(prices=..., models=...)``.

    ``Price.key`` and ``Price.model`` are the published id (``openai/gpt-5``); the date is
    the source's date hint or the fetch date (the listing carries no publication date).
    """
    from builder.sources.base import PayloadError

    name, doc = load_json(payload, "models.json")
    rows = doc.get("data") if isinstance(doc, dict) else None
    if not isinstance(rows, list):
        raise PayloadError(f"{name}: expected an object with a 'data' list of models")
    as_of = source.date or payload.fetched_at.astimezone(UTC).date()

    prices: list[Price] = []
    models: list[ModelInfo] = []
    for i, row in enumerate(rows):
        if not isinstance(row, dict) or not isinstance(row.get("id"), str) or not row["id"].strip():
            key = f"data[{i}]"
            prices.append(Price(source.name, key, key, None, None, None, as_of, excluded="entry has no model id"))
            continue
        key = row["id"]
        pricing = row.get("pricing")
        pricing = pricing if isinstance(pricing, dict) else {}
        inp, bad_in = _price(pricing.get("prompt"), "pricing.prompt")
        out, bad_out = _price(pricing.get("completion"), "pricing.completion")
        reason = bad_in or bad_out
        if ":" in key:
            reason = "id contains ':' (a :free/:batch/... variant; excluded by rule)"
        elif isinstance(row.get("alias_target"), dict):
            target = row["alias_target"].get("slug") or row["alias_target"].get("name") or "another entry"
            reason = f"alias of {target} (that entry carries the price)"
        prices.append(
            Price(
                source=source.name,
                key=key,
                model=key,
                input_per_token=inp if not bad_in else None,
                output_per_token=out if not bad_out else None,
                blended=None if reason else blended_price(inp, out),  # type: ignore[arg-type]
                date=as_of,
                excluded=reason,
            )
        )
        window = row.get("context_length")
        if ":" not in key and isinstance(window, int) and not isinstance(window, bool) and window > 0:
            models.append(ModelInfo(source=source.name, model=key, context_window=window))
    return ParseResult(prices=tuple(prices), models=tuple(models), published=None)
