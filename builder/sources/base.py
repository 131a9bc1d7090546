"""What every kind's parser shares, kept apart from the package's ``__init__`` (which
dispatches to the registry, which imports every kind): the parsers import this module, so the
kinds never import the module that imports them."""

from __future__ import annotations

from builder.config import SourceConfig
from builder.records import Payload


class PayloadError(Exception):
    """The payload as a whole is unreadable; the message names the file and what is wrong."""


def row_url(source: SourceConfig, payload: Payload) -> str:
    """The link an observation carries: the source's live URL, else its home page, else
    the payload's origin, whichever is first an http(s) URL ("" when none is)."""
    for candidate in (source.url, source.homepage, payload.origin):
        if candidate and candidate.startswith(("http://", "https://")):
            return candidate
    return ""
