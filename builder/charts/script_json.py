"""The JSON a page's script draws from: every display name as a bidi isolate.

    isolate_names(doc)    -> a copy of ``doc`` with its names isolated
    dump_script_json(doc) -> that copy as compact JSON (one line, a trailing newline)

The race (``data/race/*.json``) and the chart pages (``data/charts/*.json``) draw upstream
model names with D3: SVG labels, legends, tooltips, axis and row labels, the history
search list and its chips. The rule for all of them is applied here, once, when the JSON
is written (and nowhere in the scripts): every ``name`` string, and every string of a
``models`` list of names (a histogram bin's members), is written as
``builder.util.text.isolate_bidi(name)`` -- FSI, the name without bidi controls, PDI. So a
U+202E in a name never reaches a page, and a right-to-left name never reorders the rank,
score or punctuation a script puts next to it. Keys and identities stay as they are: they
are what the scripts match on, and identity keys are ASCII (``builder.identity``).

The documents handed to the build-time SVG and the page tables are the plain ones; the
templates and ``escape_html`` strip the controls there, and the marks are not needed in
cells and links of their own.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from builder.util.io import compact_json
from builder.util.text import isolate_bidi

NAME_KEY = "name"
"A string under this key, anywhere in a document, is a display name."
NAME_LIST_KEY = "models"
"A list of strings under this key is a list of display names (lists of objects are walked)."


_SCALARS = frozenset({str, int, float, bool, type(None)})
"Types that hold no name to isolate (checked before the slower ``Mapping`` test)."


def isolate_names(doc: Any) -> Any:
    """``doc`` (JSON-shaped: dicts, lists, scalars) with every display name isolated; a new object."""
    if type(doc) in _SCALARS:
        return doc
    if isinstance(doc, Mapping):
        out: dict[str, Any] = {}
        for k, v in doc.items():
            if k == NAME_KEY and isinstance(v, str):
                out[k] = isolate_bidi(v)
            elif k == NAME_LIST_KEY and isinstance(v, list) and all(isinstance(x, str) for x in v):
                out[k] = [isolate_bidi(x) for x in v]
            else:
                out[k] = isolate_names(v)
        return out
    if isinstance(doc, (list, tuple)):
        return [isolate_names(x) for x in doc]
    return doc


def dump_script_json(doc: Any) -> str:
    """``doc`` as the site writes it for a script: names isolated, compact JSON, one newline."""
    return compact_json(isolate_names(doc))


__all__ = ["NAME_KEY", "NAME_LIST_KEY", "dump_script_json", "isolate_names"]
