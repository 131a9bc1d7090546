"""Style features of a battle: how the two answers look, from their ``conv_metadata`` counts.

LMArena's vote dumps (the ``arena-human-preference-100k`` / ``-140k`` layout) carry per
battle, for each side s in {a, b}::

    sum_assistant_s_tokens   number                  answer length in tokens
    header_count_s           {h1, ..., h6}           markdown headers by level
    bold_count_s             {"**", "__"}            bold spans by marker
    list_count_s             {ordered, unordered}    list items by kind

A dict-valued count is the sum of its values. Per battle and feature (tokens, headers,
bold, lists), with x_a and x_b the two sides' counts::

    f = (x_a - x_b) / (x_a + x_b)        (a zero denominator is replaced by 1, so f = 0)

so f lies in [-1, 1] and is positive when A's answer has more of it. Before fitting, each
feature column is standardised over the fitted battles: ``(f - mean) / std`` with the
population standard deviation, a zero std replaced by 1.

Row status, per feature and side (the reader writes the raw count, or a negative code):
a count >= 0 is usable; ``MISSING`` (the key absent or null),
``NEGATIVE`` (a negative count), ``NON_NUMERIC`` (a string, boolean, list or nested object
where a number belongs) and ``NO_METADATA`` (no ``conv_metadata`` object on the row) are
not. A battle's kind is the worst code over the features in use, in the order of
``STYLE_ROW_KINDS``; only ``ok`` battles enter the style-controlled fit, the others are
counted by kind (and still count in the plain fit).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from builder.errors import UserError

STYLE_FEATURES: tuple[str, ...] = ("tokens", "headers", "bold", "lists")
"The four style features, in the order of the feature columns."

META_KEYS: Mapping[str, tuple[str, str]] = {
    "tokens": ("sum_assistant_a_tokens", "sum_assistant_b_tokens"),
    "headers": ("header_count_a", "header_count_b"),
    "bold": ("bold_count_a", "bold_count_b"),
    "lists": ("list_count_a", "list_count_b"),
}
"Feature -> the ``conv_metadata`` keys of side A and side B."

# Codes a reader writes in place of a raw count (any value >= 0 is a usable count).
MISSING = np.nan
NEGATIVE = -1.0
NON_NUMERIC = -2.0
NO_METADATA = -3.0

STYLE_ROW_KINDS: tuple[str, ...] = ("ok", "no_metadata", "incomplete_metadata", "negative_count", "non_numeric_count")
"Kinds of a battle for the styled fit (index = status code; a higher code wins within a row)."
UNUSABLE_KINDS = ("no_metadata", "incomplete_metadata")
"Rows without usable metadata: counted and left out of the styled fit."
MALFORMED_KINDS = ("negative_count", "non_numeric_count")
"Malformed metadata: counted, and the first one's file and line reported."


def parse_style_features(value: str | Sequence[str] | None) -> tuple[str, ...]:
    """``tokens,headers,bold,lists`` (any subset, any order, no repeats) -> features in canonical order."""
    if value is None:
        return STYLE_FEATURES
    names = [v.strip() for v in (value.split(",") if isinstance(value, str) else value) if v.strip()]
    unknown = [n for n in names if n not in STYLE_FEATURES]
    if unknown:
        raise UserError(f"--style-features: unknown feature {unknown[0]!r} (choose from {', '.join(STYLE_FEATURES)})")
    if not names:
        raise UserError("--style-features: name at least one of " + ", ".join(STYLE_FEATURES))
    if len(set(names)) != len(names):
        raise UserError(f"--style-features {','.join(names)}: a feature is named twice")
    return tuple(f for f in STYLE_FEATURES if f in names)


def _status_of(raw: np.ndarray) -> np.ndarray:
    """Status code per value of a raw-count array (0 usable; see ``STYLE_ROW_KINDS``)."""
    code = np.zeros(raw.shape, dtype=np.int8)
    code[np.isnan(raw)] = 2
    code[raw == NEGATIVE] = 3
    code[raw == NON_NUMERIC] = 4
    code[raw == NO_METADATA] = 1
    return code


def compute_style_features(raw_a: np.ndarray, raw_b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Raw features and each battle's status code.

    ``raw_a``/``raw_b``: shape (n, k) float, the two sides' counts per feature column, or
    the reader's codes (see the module docstring). Returns ``(f, status)``: ``f`` shape
    (n, k) float64, ``(x_a - x_b) / (x_a + x_b)`` (denominator 0 -> 1), 0 where the battle is
    not usable; ``status`` int8 shape (n,), the worst code of the row (0 = usable).
    """
    raw_a = np.asarray(raw_a, dtype=np.float64)
    raw_b = np.asarray(raw_b, dtype=np.float64)
    if raw_a.shape != raw_b.shape or raw_a.ndim != 2:
        raise ValueError("raw_a and raw_b must both have shape (n, k)")
    status = np.maximum(_status_of(raw_a), _status_of(raw_b)).max(axis=1, initial=0).astype(np.int8)
    good = status == 0
    xa = np.where(good[:, None], raw_a, 0.0)
    xb = np.where(good[:, None], raw_b, 0.0)
    den = xa + xb
    den[den == 0] = 1.0
    return (xa - xb) / den, status


def standardise(features: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(z, mean, std)``: columns of ``features`` (n, k) centred and divided by their
    population standard deviation (a zero std replaced by 1)."""
    mean = features.mean(axis=0)
    std = features.std(axis=0)
    std = np.where(std == 0, 1.0, std)
    return (features - mean) / std, mean, std


@dataclass(frozen=True, slots=True)
class StyleReport:
    """What reading the style metadata found: battles by kind, and where the first malformed one is."""

    features: tuple[str, ...]
    rows: Mapping[str, int]  # kind (STYLE_ROW_KINDS) -> battles
    first_malformed: str | None  # "FILE: line N (kind)" of the first negative or non-numeric count

    @property
    def usable(self) -> int:
        return int(self.rows.get("ok", 0))

    def to_json(self) -> dict[str, object]:
        return {
            "features": list(self.features),
            "usable": self.usable,
            "without_metadata": {k: int(self.rows.get(k, 0)) for k in UNUSABLE_KINDS},
            "malformed": {k: int(self.rows.get(k, 0)) for k in MALFORMED_KINDS},
            "first_malformed": self.first_malformed,
        }


def count_status(status: np.ndarray) -> dict[str, int]:
    """Battles per kind, every kind present (zeros included)."""
    counts = np.bincount(status.astype(np.int64), minlength=len(STYLE_ROW_KINDS))
    return {k: int(c) for k, c in zip(STYLE_ROW_KINDS, counts, strict=True)}


__all__ = [
    "MALFORMED_KINDS",
    "META_KEYS",
    "MISSING",
    "NEGATIVE",
    "NON_NUMERIC",
    "NO_METADATA",
    "STYLE_FEATURES",
    "STYLE_ROW_KINDS",
    "UNUSABLE_KINDS",
    "StyleReport",
    "compute_style_features",
    "count_status",
    "parse_style_features",
    "standardise",
]
