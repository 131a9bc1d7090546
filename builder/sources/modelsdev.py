"""The models.dev catalog (anomalyco/models.dev, MIT) -> ``ModelInfo`` records: the maintained
facts about real models (display name, organisation, open weights, release date, total
parameters, context window).

The kind is declared in ``builder.sources.registry`` (yields metadata; its payload carries no
date; plausibility counts models).

Two payload formats, told apart by their bytes (gzip magic or JSON):

* the repository tarball: every ``<top>/models/<lab>/<model>.toml`` (provider-independent
  facts, one file per model; ``<model>`` is its id) is a model. The organisation is the
  ``name`` of ``<top>/providers/<lab>/provider.toml`` (the lab's own API) when there is one,
  else the lab folder's name. TOML fields read: ``name``, ``release_date``, ``open_weights``,
  ``license``, ``[limit] context``, ``[parameters] total`` (when present: a count of
  parameters, or billions when under 1e5), ``[[weights]] url`` (the first). Other members
  (``providers/*/models``, ``models.json``: per-provider copies and OpenRouter's list) are
  skipped: reseller entries are not facts about the model.
* ``api.json``: ``{provider: {id, name, models: {id: {...the same fields}}}}``; a model id
  is taken from the first provider (in provider order) that lists it under a plain id (no
  ``/``: ``org/model`` ids are reseller routes).

Dates: ``YYYY-MM-DD``; a month-only ``YYYY-MM`` is not a day and is left out (a date is
never invented). A file that is not TOML, or a field of the wrong type, leaves that model or
that field out (logged), never the payload.
"""

from __future__ import annotations

import io
import json
import logging
import math
import tarfile
import tomllib
import zlib
from collections.abc import Mapping
from datetime import date
from pathlib import PurePosixPath
from typing import Any

from builder.config import SourceConfig
from builder.records import ModelInfo, ParseResult, Payload

log = logging.getLogger(__name__)

MAX_TOML_BYTES = 1_000_000
"A model or provider file larger than this is not a catalog entry (skipped)."


def _text(value: object) -> str | None:
    return value.strip() if isinstance(value, str) and value.strip() else None


def _day(value: object) -> date | None:
    """``YYYY-MM-DD`` -> date; anything else (a month, a bad day) -> None."""
    if isinstance(value, date):
        return value
    text = _text(value)
    if text is None or len(text) != 10:
        return None
    try:
        return date.fromisoformat(text)
    except ValueError:
        return None


def _params_b(value: object) -> float | None:
    """``[parameters] total`` in billions: a count (>= 1e5) is divided by 1e9."""
    if isinstance(value, Mapping):
        value = value.get("total")
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value <= 0:
        return None
    return float(value) / 1e9 if value >= 1e5 else float(value)


def _context(limit: object) -> int | None:
    v = limit.get("context") if isinstance(limit, Mapping) else None
    return v if isinstance(v, int) and not isinstance(v, bool) and v > 0 else None


def model_info(model_id: str, entry: Mapping[str, Any], maker: str | None, source: str) -> ModelInfo:
    """One catalog entry as a ``ModelInfo`` (fields: module docstring)."""
    weights = entry.get("weights")
    url = None
    if isinstance(weights, list):
        url = next((_text(w.get("url")) for w in weights if isinstance(w, Mapping) and _text(w.get("url"))), None)
    ow = entry.get("open_weights")
    return ModelInfo(
        source=source,
        model=model_id,
        name=_text(entry.get("name")),
        maker=maker,
        licence=_text(entry.get("license")),
        open_weight=ow if isinstance(ow, bool) else None,
        params_b=_params_b(entry.get("parameters")),
        context_window=_context(entry.get("limit")),
        release_date=_day(entry.get("release_date")),
        url=url,
    )


def _read_tarball(blob: bytes, where: str) -> tuple[dict[str, dict[str, Any]], dict[str, str]]:
    """``({lab/model: toml}, {lab: provider name})`` of a repository tarball."""
    from builder.sources.base import PayloadError

    models: dict[str, dict[str, Any]] = {}
    labs: dict[str, str] = {}
    try:
        with tarfile.open(fileobj=io.BytesIO(blob), mode="r:*") as tar:
            for member in tar:
                parts = PurePosixPath(member.name).parts[1:]  # below the top folder
                wanted = (len(parts) == 3 and parts[0] == "models" and parts[2].endswith(".toml")) or (
                    len(parts) == 3 and parts[0] == "providers" and parts[2] == "provider.toml")
                if not wanted or not member.isfile() or member.size > MAX_TOML_BYTES:
                    continue
                fh = tar.extractfile(member)
                if fh is None:
                    continue
                try:
                    data = tomllib.loads(fh.read().decode("utf-8"))
                except (UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
                    log.warning("%s: %s is not TOML, skipped: %s", where, member.name, exc)
                    continue
                if parts[0] == "models":
                    models[f"{parts[1]}/{parts[2].removesuffix('.toml')}"] = data
                elif _text(data.get("name")):
                    labs[parts[1]] = str(data["name"]).strip()
    except (tarfile.TarError, EOFError, zlib.error, OSError) as exc:
        raise PayloadError(f"{where}: unreadable tarball: {type(exc).__name__}: {exc}") from None
    if not models:
        raise PayloadError(f"{where}: no models/<lab>/<model>.toml in the tarball (not the models.dev repository)")
    return models, labs


def _from_api(data: Any, where: str, source: str) -> list[ModelInfo]:
    from builder.sources.base import PayloadError

    if not isinstance(data, dict) or not all(isinstance(p, dict) for p in data.values()):
        raise PayloadError(f"{where}: expected models.dev's api.json, an object of providers")
    out: dict[str, ModelInfo] = {}
    for provider in data.values():
        models = provider.get("models")
        if not isinstance(models, dict):
            continue
        for model_id, entry in models.items():
            if isinstance(entry, dict) and isinstance(model_id, str) and "/" not in model_id and model_id not in out:
                out[model_id] = model_info(model_id, entry, _text(provider.get("name")), source)
    if not out:
        raise PayloadError(f"{where}: no provider lists a model")
    return list(out.values())


def parse(payload: Payload, source: SourceConfig) -> ParseResult:
    """A models.dev tarball or api.json -> ``ParseResult(models=...)``, one per catalog model."""
    from builder.sources.base import PayloadError

    if len(payload.files) != 1:
        raise PayloadError(f"{payload.origin}: expected one file (the tarball or api.json), got {len(payload.files)}")
    (name, blob), = payload.files.items()
    if blob[:2] == b"\x1f\x8b":
        models, labs = _read_tarball(blob, name)
        infos = [model_info(key.split("/", 1)[1], entry, labs.get(key.split("/", 1)[0], key.split("/", 1)[0]),
                            source.name) for key, entry in sorted(models.items())]
        return ParseResult(models=tuple(infos))
    try:
        data = json.loads(blob.decode("utf-8-sig"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise PayloadError(f"{name}: neither a gzip tarball nor JSON ({exc})") from None
    return ParseResult(models=tuple(_from_api(data, name, source.name)))
