"""Curated model metadata (``builder/data/models.yml``) -> ``ModelInfo`` records, and the
licence rule every source that reads a licence uses.

The YAML is a list of entries, one per model::

    - model: deepseek-v4          # spelling (folded into an identity like any other)
      maker: DeepSeek
      licence: MIT                # weight licence; "Proprietary" when weights are closed
      params_b: 685               # total checkpoint parameters, billions, all experts
      context_window: 163840      # tokens
      release_date: 2026-04-22
      lineage: deepseek           # family line, e.g. "claude-opus", "gpt"
      url: https://...

Only ``model`` is required. The file is the operator's own, so a bad value is a
``UserError`` naming the file, line and value (exit code 2), not an excluded row.

Licence rule of the open-weight board: a model is open-weight when its licence is
present and not marked proprietary. ``is_proprietary`` recognises the spellings sources use
for closed weights, including LMArena's misspelling "Propretary".
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from datetime import date, datetime
from typing import Any

import yaml

from builder.config import SourceConfig
from builder.errors import UserError
from builder.records import ModelInfo, ParseResult, Payload
from builder.sources.licence import is_proprietary, open_weight  # noqa: F401  (the licence rule, also importable here)

_FIELDS = ("model", "maker", "licence", "params_b", "context_window", "release_date", "lineage", "url")


def parse(payload: Payload, source: SourceConfig) -> ParseResult:
    """Curated YAML -> ``ParseResult(models=...)`` (one ``ModelInfo`` per entry).

    ``params_b`` is billions of total parameters; ``context_window`` is tokens.
    """
    where, data, node = _read_yaml(payload)
    if data is None:
        return ParseResult()
    if not isinstance(data, list) or not isinstance(node, yaml.SequenceNode):
        raise UserError(f"{where}: expected a list of model entries, got {type(data).__name__}")
    models: list[ModelInfo] = []
    seen: dict[str, int] = {}
    for entry, entry_node in zip(data, node.value, strict=True):
        info = _model_info(entry, entry_node, where, source, seen)
        seen[info.model] = entry_node.start_mark.line + 1
        models.append(info)
    return ParseResult(models=tuple(models))


def _read_yaml(payload: Payload) -> tuple[str, Any, yaml.Node | None]:
    """(where, the parsed YAML, its node tree) of the payload's one file (or ``models.yml``)."""
    if not payload.files:
        raise UserError(f"{payload.origin}: metadata file is empty")
    name, raw = next(iter(payload.files.items())) if len(payload.files) == 1 else (
        "models.yml", payload.files.get("models.yml", b"")
    )
    where = payload.origin or name
    try:
        text = raw.decode("utf-8-sig")
        return where, yaml.safe_load(text), yaml.compose(text, Loader=yaml.SafeLoader)
    except UnicodeDecodeError as exc:
        raise UserError(f"{where}: not UTF-8 text (byte {exc.start})") from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = f"line {mark.line + 1}: " if mark else ""
        raise UserError(f"{where}: {line}invalid YAML: {getattr(exc, 'problem', None) or exc}") from None


def _model_info(entry: Any, entry_node: yaml.Node, where: str, source: SourceConfig,
                seen: Mapping[str, int]) -> ModelInfo:
    """One checked entry; a bad field is one ``UserError`` naming its line."""
    line = entry_node.start_mark.line + 1
    if not isinstance(entry, dict) or not isinstance(entry_node, yaml.MappingNode):
        raise UserError(f"{where}: line {line}: expected a mapping with 'model', got {entry!r}")
    lines = {k.value: v.start_mark.line + 1 for k, v in entry_node.value}
    unknown = sorted(set(entry) - set(_FIELDS))
    if unknown:
        raise UserError(f"{where}: line {lines.get(unknown[0], line)}: unknown field {unknown[0]!r}")

    def bad(field: str, why: str) -> UserError:
        return UserError(f"{where}: line {lines.get(field, line)}: {field} {why} ({entry.get(field)!r})")

    model = entry.get("model")
    if not isinstance(model, str) or not model.strip():
        raise bad("model", "must be a non-empty string")
    if model.strip() in seen:
        raise bad("model", f"is listed twice (first on line {seen[model.strip()]})")
    text_fields = {}
    for f in ("maker", "licence", "lineage", "url"):
        v = entry.get(f)
        if v is not None and not isinstance(v, str):
            raise bad(f, "must be a string")
        text_fields[f] = v.strip() if isinstance(v, str) and v.strip() else None
    params = entry.get("params_b")
    if params is not None and (
        isinstance(params, bool) or not isinstance(params, (int, float))
        or not math.isfinite(params) or params <= 0
    ):
        raise bad("params_b", "must be a positive number of billions")
    window = entry.get("context_window")
    if window is not None and (isinstance(window, bool) or not isinstance(window, int) or window <= 0):
        raise bad("context_window", "must be a positive whole number of tokens")
    released = entry.get("release_date")
    if isinstance(released, datetime):
        released = released.date()
    elif isinstance(released, str):
        try:
            released = date.fromisoformat(released.strip())
        except ValueError:
            raise bad("release_date", "must be a date YYYY-MM-DD") from None
    elif released is not None and not isinstance(released, date):
        raise bad("release_date", "must be a date YYYY-MM-DD")
    return ModelInfo(
        source=source.name,
        model=model.strip(),
        maker=text_fields["maker"],
        licence=text_fields["licence"],
        open_weight=open_weight(text_fields["licence"]),
        params_b=float(params) if params is not None else None,
        context_window=window,
        release_date=released,
        lineage=text_fields["lineage"],
        url=text_fields["url"],
    )
