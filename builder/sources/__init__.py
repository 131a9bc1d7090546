"""One parser module per upstream kind.

Each module ``builder.sources.<kind>`` exposes::

    parse(payload: Payload, source: SourceConfig) -> ParseResult

A parser never raises on a bad upstream *row* (the row becomes an excluded record with its
reason); it raises ``PayloadError`` when the payload as a whole cannot be read (not JSON,
no table, missing required columns), which marks the source failed.
"""

from __future__ import annotations

import importlib

from builder.config import SourceConfig
from builder.records import ParseResult, Payload


class PayloadError(Exception):
    """The payload as a whole is unreadable; the message names the file and what is wrong."""


def row_url(source: SourceConfig, payload: Payload) -> str:
    """The link an observation carries: the source's live URL, else its home page, else
    the payload's origin, whichever is first an http(s) URL ("" when none is)."""
    for candidate in (source.url, source.homepage, payload.origin):
        if candidate and candidate.startswith(("http://", "https://")):
            return candidate
    return ""


def parse_payload(payload: Payload, source: SourceConfig) -> ParseResult:
    """Dispatch to ``builder.sources.<kind>.parse``."""
    module = importlib.import_module(f"builder.sources.{source.kind}")
    return module.parse(payload, source)
