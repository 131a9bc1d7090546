"""Look-alike spellings folded to the ASCII name they read as (Unicode's confusables data).

A name such as ``gpt‑6`` (U+2011 NON-BREAKING HYPHEN) or ``gрt-6`` (U+0440 CYRILLIC SMALL
LETTER ER) reads exactly like ``gpt-6`` but would be a row of its own. The table is Unicode's
confusables data (UTS #39, ``confusables.txt``) as shipped by the maintained
``confusable-homoglyphs`` package: for each character, the characters it can be mistaken
for. A character is mapped to its ASCII look-alike when it has exactly one printable ASCII
look-alike (its skeleton in ASCII).

The rule is conservative, since a wrong merge puts two models in one row: a name is folded
only when *every* non-ASCII character in it has an ASCII look-alike, that is when the whole
name reads as an ASCII name. A name in another script (``ГигаЧат``, ``通义千问``) keeps its
spelling.
"""

from __future__ import annotations

import functools
import json
from importlib import resources


@functools.cache
def ascii_lookalikes() -> dict[str, str]:
    """Non-ASCII character -> the one printable ASCII character it is confusable with."""
    raw = json.loads(resources.files("confusable_homoglyphs").joinpath("confusables.json").read_text("utf-8"))
    table: dict[str, str] = {}
    for char, glyphs in raw.items():
        if len(char) != 1 or char.isascii():
            continue
        ascii_forms = {g["c"] for g in glyphs if len(g["c"]) == 1 and g["c"].isascii() and g["c"].isprintable()}
        if len(ascii_forms) == 1:
            table[char] = ascii_forms.pop()
    return table


def fold_confusables(name: str) -> str:
    """``name`` as the ASCII name it reads as, when it reads as one; else ``name`` unchanged.

    >>> fold_confusables("g\\u0440t\\u20116")
    'gpt-6'
    >>> fold_confusables("\\u0413\\u0438\\u0433\\u0430")  # Cyrillic "Гига": another script, kept
    'Гига'
    """
    if name.isascii():
        return name
    table = ascii_lookalikes()
    folded = []
    for ch in name:
        if ch.isascii():
            folded.append(ch)
        elif ch in table:
            folded.append(table[ch])
        else:
            return name
    return "".join(folded)
