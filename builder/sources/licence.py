"""The licence rule of the open-weight board, shared by every source that reads a licence.

A model is open-weight when its licence is present and not marked proprietary.
``is_proprietary`` recognises the spellings sources use for closed weights, including
LMArena's misspelling "Propretary".
"""

from __future__ import annotations

import re

_CLOSED_PHRASES = frozenset(
    {
        "closed",
        "closed source",
        "closed weights",
        "api",
        "api only",
        "api access",
        "hosted access",
        "hosted access no api",
        "no public weights",
        "unreleased",
    }
)


def is_proprietary(licence: str) -> bool:
    """True when a licence string means the weights are not published.

    Recognises "Proprietary" in any case, its misspellings ("Propretary" from LMArena,
    "Proprietory", "Propriatary", "Propietary"), "Closed"/"closed-source", and access
    labels that mean no weights ("API only", "API access", "Unreleased"). Open licences
    ("MIT", "Apache 2.0", "Llama 5 Community", "Modified MIT", "CC-BY-NC-4.0", "Open")
    are not proprietary, however restrictive their terms.
    """
    words = re.findall(r"[a-z]+", licence.lower())
    if any(w.startswith(("propr", "propie")) for w in words):
        return True
    return " ".join(words) in _CLOSED_PHRASES or (bool(words) and words[0] == "closed")


def open_weight(licence: str | None) -> bool | None:
    """``None`` when the licence is missing or blank, ``False`` when proprietary, else ``True``."""
    if licence is None or not str(licence).strip():
        return None
    return not is_proprietary(str(licence))
