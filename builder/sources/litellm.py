"""LiteLLM ``model_prices_and_context_window.json`` -> token ``Price`` records.

Formula (what qualifies a model for the priced boards): token prices use LiteLLM chat entries
without a colon in the name; input and output prices must be finite, numeric, positive and
not booleans; the blended price, in USD per million tokens, is

    blended = 1_000_000 * (0.75 * input_cost_per_token + 0.25 * output_cost_per_token)

Payload shape: one JSON object keyed by model name (``{"gpt-4o": {"litellm_provider":
"openai", "mode": "chat", "input_cost_per_token": 2.5e-06, ...}, ...}``) plus non-model keys:
``sample_spec`` (the field documentation) and, in the re-serialised copy the sync bots
publish, ``last_updated`` (an ISO timestamp, used as the publication date).

What becomes a record:
- ``mode == "chat"`` entries: one ``Price`` each. Names with ':' (Bedrock revision ids such as
  ``ai21.jamba-1-5-large-v1:0``, fine-tune ids) are kept but excluded by rule; entries whose
  prices break a rule are kept with the first broken rule as ``excluded``.
- entries without ``mode`` (Fireworks size tiers, ``fallback_generalizations``): kept as
  excluded prices so ``select`` can show why they never count.
- other modes (embedding, image_generation, ...): not prices of a chat model; skipped.
- chat entries without ':' that give a positive integer ``max_input_tokens`` also yield a
  ``ModelInfo`` with that context window (tokens).
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from datetime import UTC, date, datetime
from typing import Any

from builder.config import SourceConfig
from builder.records import ModelInfo, ParseResult, Payload, Price

NON_MODEL_KEYS = frozenset({"sample_spec", "last_updated"})
"""Top-level keys that document the file rather than price a model."""

INPUT_WEIGHT = 0.75
OUTPUT_WEIGHT = 0.25
PER_MILLION = 1_000_000


def blended_price(input_per_token: float, output_per_token: float) -> float:
    """USD per million tokens: ``1e6 * (0.75 * input + 0.25 * output)`` (both USD per token)."""
    return PER_MILLION * (INPUT_WEIGHT * input_per_token + OUTPUT_WEIGHT * output_per_token)


def check_price(value: Any, name: str, *, strings: bool = False) -> tuple[float | None, str | None]:
    """Validate one per-token (or per-build) price in USD.

    Returns ``(price, None)`` when the value is a finite, positive number that is not a
    boolean, else ``(number_or_None, reason)``. ``strings=True`` accepts decimal strings
    (OpenRouter publishes its prices as strings); LiteLLM prices must be JSON numbers.
    """
    if value is None:
        return None, f"{name} is missing"
    if isinstance(value, bool):
        return None, f"{name} is a boolean ({value!r})"
    if isinstance(value, str):
        if not strings:
            return None, f"{name} is a string, not a number ({value!r})"
        try:
            x = float(value.strip())
        except ValueError:
            return None, f"{name} is not a number ({value!r})"
    elif isinstance(value, (int, float)):
        x = float(value)
    else:
        return None, f"{name} is not a number ({value!r})"
    if not math.isfinite(x):
        return None, f"{name} is not finite ({value!r})"
    if x <= 0:
        return x, f"{name} is not positive ({value!r})"
    return x, None


def single_file(payload: Payload, expected: str) -> tuple[str, bytes]:
    """The one file of a single-file payload (by the expected name when there are several)."""
    from builder.sources.base import PayloadError

    if not payload.files:
        raise PayloadError(f"{payload.origin}: payload is empty")
    if expected in payload.files:
        return expected, payload.files[expected]
    if len(payload.files) == 1:
        return next(iter(payload.files.items()))
    names = ", ".join(sorted(payload.files))
    raise PayloadError(f"{payload.origin}: expected one file named {expected}, found {names}")


def load_json(payload: Payload, expected: str) -> tuple[str, Any]:
    """Decode the payload's JSON file; ``PayloadError`` names the file, line and column."""
    from builder.sources.base import PayloadError

    name, raw = single_file(payload, expected)
    try:
        return name, json.loads(raw.decode("utf-8-sig"))
    except UnicodeDecodeError as exc:
        raise PayloadError(f"{name}: not UTF-8 text (byte {exc.start})") from None
    except json.JSONDecodeError as exc:
        raise PayloadError(f"{name}: line {exc.lineno}, column {exc.colno}: invalid JSON: {exc.msg}") from None


def _published(value: Any) -> date | None:
    """``last_updated`` ("2026-07-24T18:23:43.215560+00:00") -> its UTC date; None if unusable."""
    if not isinstance(value, str):
        return None
    try:
        stamp = datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
    except ValueError:
        try:
            return date.fromisoformat(value.strip()[:10])
        except ValueError:
            return None
    if stamp.tzinfo is not None:
        stamp = stamp.astimezone(UTC)
    return stamp.date()


def _context_window(entry: Mapping[str, Any]) -> int | None:
    value = entry.get("max_input_tokens")
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        return None
    return value


def parse(payload: Payload, source: SourceConfig) -> ParseResult:
    """LiteLLM price file -> ``ParseResult(prices=..., models=..., published=...)``.

    Prices are USD per token; ``Price.blended`` is USD per million tokens. ``Price.key`` and
    ``Price.model`` are the key as published (provider prefixes such as ``openrouter/`` or
    ``bedrock/`` stay; identity folding strips the ones it knows).
    """
    from builder.sources.base import PayloadError

    name, data = load_json(payload, "model_prices_and_context_window.json")
    if not isinstance(data, dict):
        raise PayloadError(f"{name}: expected a JSON object keyed by model name, got {type(data).__name__}")

    published = _published(data.get("last_updated"))
    as_of = published or source.date or payload.fetched_at.astimezone(UTC).date()

    prices: list[Price] = []
    models: list[ModelInfo] = []
    for key, entry in data.items():
        if key in NON_MODEL_KEYS:
            continue
        if not isinstance(entry, dict):
            prices.append(_excluded(source, key, as_of, f"entry is not an object ({type(entry).__name__})"))
            continue
        mode = entry.get("mode")
        if mode is None:
            prices.append(_excluded(source, key, as_of, "no mode given: not a chat price entry"))
            continue
        if mode != "chat":
            continue  # embeddings, images, audio...: not the price of a chat model
        if ":" in key:
            prices.append(
                _excluded(source, key, as_of, "name contains ':' (revision or variant id; excluded by rule)")
            )
            continue
        window = _context_window(entry)
        if window is not None:
            models.append(ModelInfo(source=source.name, model=key, context_window=window))
        inp, bad_in = check_price(entry.get("input_cost_per_token"), "input_cost_per_token")
        out, bad_out = check_price(entry.get("output_cost_per_token"), "output_cost_per_token")
        reason = bad_in or bad_out
        prices.append(
            Price(
                source=source.name,
                key=key,
                model=key,
                input_per_token=inp,
                output_per_token=out,
                blended=None if reason else blended_price(inp, out),  # type: ignore[arg-type]
                date=as_of,
                excluded=reason,
            )
        )
    return ParseResult(prices=tuple(prices), models=tuple(models), published=published)


def _excluded(source: SourceConfig, key: str, as_of: date, reason: str) -> Price:
    return Price(
        source=source.name,
        key=key,
        model=key,
        input_per_token=None,
        output_per_token=None,
        blended=None,
        date=as_of,
        excluded=reason,
    )
