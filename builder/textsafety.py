"""Text from upstream made harmless where it is shown: bidi controls and spreadsheet formulas.

Kept apart from ``builder.render`` so the engines' own outputs (``modelboards select
--format csv``) use the same rules as the site without importing the renderer.

* Bidirectional control characters (``BIDI_CONTROLS``: the embeddings, overrides and
  isolates U+202A-U+202E and U+2066-U+2069, and the marks U+200E, U+200F, U+061C) let a name
  reorder how the text around it reads ("gpt-6" shown for something else). They have no
  place in a model name: ``strip_bidi`` removes them. Right-to-left letters themselves stay.
* A spreadsheet runs a cell that starts with ``=``, ``+``, ``-``, ``@``, a tab or a carriage
  return as a formula ("CSV injection"): ``neutralise_formula`` prefixes such text with an
  apostrophe, which spreadsheets show as text.
"""

from __future__ import annotations

import re

from markupsafe import Markup, escape

BIDI_CONTROLS = (
    "\u202a", "\u202b", "\u202c", "\u202d", "\u202e",  # embeddings, pop, overrides
    "\u2066", "\u2067", "\u2068", "\u2069",  # isolates
    "\u200e", "\u200f", "\u061c",  # LRM, RLM, ALM
)
_BIDI = re.compile("[" + "".join(BIDI_CONTROLS) + "]")

FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def strip_bidi(text: str) -> str:
    """``text`` without bidirectional control characters."""
    return _BIDI.sub("", text) if _BIDI.search(text) else text


def neutralise_formula(text: str) -> str:
    """``text`` as a CSV cell no spreadsheet runs as a formula."""
    return "'" + text if text.startswith(FORMULA_START) else text


def escape_html(value: object) -> Markup:
    """``markupsafe.escape`` of ``value`` with bidi controls removed first: the one escaping
    function for HTML built outside the templates (the charts' SVG)."""
    if isinstance(value, Markup):
        return value
    return escape(strip_bidi(value) if isinstance(value, str) else value)
