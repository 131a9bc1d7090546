"""The source kinds: one parser module per upstream kind, each declared once in
``builder.sources.registry`` (parse, fetch plan, yields, plausibility, selection, roles).

Each kind's parser is::

    parse(payload: Payload, source: SourceConfig) -> ParseResult

A parser never raises on a bad upstream *row* (the row becomes an excluded record with its
reason); it raises ``PayloadError`` when the payload as a whole cannot be read (not JSON,
no table, missing required columns), which marks the source failed.
"""

from __future__ import annotations

import hashlib
from collections import OrderedDict
from datetime import UTC, datetime

from builder.config import LimitsConfig, SourceConfig
from builder.records import ParseResult, Payload
from builder.sources.base import PayloadError, row_url

__all__ = ["PayloadError", "parse_payload", "row_url"]


_PARSED: OrderedDict[tuple[str, ...], ParseResult] = OrderedDict()
_PARSED_MAX = 32


def _parse_key(payload: Payload, source: SourceConfig) -> tuple[str, str, str, str, str]:
    """What a parse result depends on: the source's whole configuration and the payload
    (its files' names and bytes, its time and origin)."""
    digest = hashlib.sha256()
    for name in sorted(payload.files):
        data = payload.files[name]
        digest.update(f"{name}\0{len(data)}\0".encode())
        digest.update(data)
    return (source.model_dump_json(), payload.source, payload.fetched_at.isoformat(), payload.origin,
            digest.hexdigest())


def parse_payload(payload: Payload, source: SourceConfig, limits: LimitsConfig | None = None) -> ParseResult:
    """Dispatch to the parser of the source's kind (``builder.sources.registry``), then clean
    every name and apply ``limits`` (``site.yml`` ``limits``, the defaults when not given:
    ``validate.check_result``); a payload over a cap as a whole raises ``PayloadError`` with
    the reason.

    A build parses each payload twice, when it is fetched (the plausibility check) and
    when the stored payload is scored; the second parse of the same bytes under the same
    configuration returns the first one's result (records are frozen), so a build pays for
    one. Only successes are kept, the last ``_PARSED_MAX`` of them, in this process.
    """
    from builder.sources.validate import check_result

    limits = limits or LimitsConfig()
    today = datetime.now(UTC).date()
    key = (*_parse_key(payload, source), limits.model_dump_json(), today.isoformat())
    hit = _PARSED.get(key)
    if hit is not None:
        _PARSED.move_to_end(key)
        return hit
    from builder.sources.registry import kind_of  # the registry imports every kind module, which import this one

    result: ParseResult = kind_of(source).parse(payload, source)
    result, refused = check_result(result, limits, today)
    if refused is not None:
        raise PayloadError(refused)
    _PARSED[key] = result
    if len(_PARSED) > _PARSED_MAX:
        _PARSED.popitem(last=False)
    return result
