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

The counts are feature columns of the battles reader's one scan of the file
(``builder.pairwise.scan``: ``style_feature_specs`` asks for the two sides of each feature,
``style_columns`` turns the columns into features). A battle's kind for the styled fit is
the worst over the features in use and both sides, in the order of ``STYLE_ROW_KINDS``:
``no_metadata`` (no ``conv_metadata`` object on the row), ``incomplete_metadata`` (a count
absent or null), ``negative_count``, ``non_numeric_count`` (text, a boolean, a list or a
nested object where a number belongs). Only ``ok`` battles enter the style-controlled fit;
the others are counted by kind (and still count in the plain fit), and the first malformed
one (negative or non-numeric) is named by file and line.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from builder.errors import UserError
from builder.pairwise.battles import BattleFilters, Battles
from builder.pairwise.scan import (
    FEATURE_MALFORMED,
    FEATURE_MISSING,
    FEATURE_NEGATIVE,
    FEATURE_NO_OBJECT,
    FEATURE_NON_NUMERIC,
    FEATURE_OK,
    FEATURE_QUALITIES,
    BattleScan,
    FeatureColumn,
    FeatureSpec,
    ReaderSettings,
    StreamedBattles,
    stream_battles,
)

META_COLUMN = "conv_metadata"

STYLE_FEATURES: tuple[str, ...] = ("tokens", "headers", "bold", "lists")
"The four style features, in the order of the feature columns."

META_KEYS: Mapping[str, tuple[str, str]] = {
    "tokens": ("sum_assistant_a_tokens", "sum_assistant_b_tokens"),
    "headers": ("header_count_a", "header_count_b"),
    "bold": ("bold_count_a", "bold_count_b"),
    "lists": ("list_count_a", "list_count_b"),
}
"Feature -> the ``conv_metadata`` keys of side A and side B."

STYLE_ROW_KINDS: tuple[str, ...] = ("ok", "no_metadata", "incomplete_metadata", "negative_count", "non_numeric_count")
"Kinds of a battle for the styled fit (index = status code; a higher code wins within a row)."
UNUSABLE_KINDS = ("no_metadata", "incomplete_metadata")
"Rows without usable metadata: counted and left out of the styled fit."
MALFORMED_KINDS = ("negative_count", "non_numeric_count")
"Malformed metadata: counted, and the first one's file and line reported."

_KIND_OF_QUALITY = np.zeros(len(FEATURE_QUALITIES), dtype=np.int8)
_KIND_OF_QUALITY[[FEATURE_OK, FEATURE_NO_OBJECT, FEATURE_MISSING, FEATURE_NEGATIVE, FEATURE_NON_NUMERIC]] = range(5)
"The scan's quality code of one count -> the battle kind it makes (index into STYLE_ROW_KINDS)."


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


def style_feature_specs(features: Sequence[str]) -> list[FeatureSpec]:
    """The scan's feature columns for these style features: ``{feature}_a`` and ``{feature}_b``."""
    return [FeatureSpec(f"{f}_{side}", (META_COLUMN, key))
            for f in features for side, key in zip("ab", META_KEYS[f], strict=True)]


def relative_differences(x_a: np.ndarray, x_b: np.ndarray) -> np.ndarray:
    """``(x_a - x_b) / (x_a + x_b)`` elementwise (a zero denominator replaced by 1), float64."""
    x_a = np.asarray(x_a, dtype=np.float64)
    x_b = np.asarray(x_b, dtype=np.float64)
    den = x_a + x_b
    den[den == 0] = 1.0
    out: np.ndarray = (x_a - x_b) / den
    return out


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


@dataclass(frozen=True, eq=False, slots=True)
class StyleColumns:
    """Style features of a ``Battles`` object's battles (same order), shape (n,) unless stated."""

    features: tuple[str, ...]
    raw: np.ndarray  # (n, k) float64 (float32 from contextual_battles): (x_a - x_b) / (x_a + x_b), 0 where not usable
    status: np.ndarray  # int8 codes of STYLE_ROW_KINDS (0 = usable)
    report: StyleReport

    @property
    def usable(self) -> np.ndarray:
        ok: np.ndarray = self.status == 0
        return ok

    def take(self, rows: np.ndarray) -> StyleColumns:
        """The columns of the battles at ``rows`` (``Battles.take``), recounted; the first
        malformed battle named stays the file's while any malformed battle is left."""
        status = self.status[rows]
        rows_by_kind = count_status(status)
        first = self.report.first_malformed if any(rows_by_kind[k] for k in MALFORMED_KINDS) else None
        return StyleColumns(self.features, self.raw[rows], status, StyleReport(self.features, rows_by_kind, first))


def style_columns_from(columns: Mapping[str, FeatureColumn], features: Sequence[str], source: str,
                       locate: Callable[[int], str] | None = None) -> StyleColumns:
    """Style columns from the scan's feature columns (``style_feature_specs``).

    ``locate``: a callable turning the 1-based record of the first malformed battle into
    ``line N`` / ``row N`` (``BattleScan.locate``); without it the record is named.
    """
    features = tuple(features)
    first = columns[f"{features[0]}_a"]
    n = first.values.shape[0]
    raw = np.zeros((n, len(features)))
    status = np.zeros(n, dtype=np.int8)
    record: int | None = None
    for j, feature in enumerate(features):
        a, b = columns[f"{feature}_a"], columns[f"{feature}_b"]
        np.maximum(status, np.maximum(_KIND_OF_QUALITY[a.quality], _KIND_OF_QUALITY[b.quality]), out=status)
        raw[:, j] = relative_differences(a.values, b.values)
        for col in (a, b):
            if col.first_malformed is not None and (record is None or col.first_malformed < record):
                record = col.first_malformed
    raw[status != 0] = 0.0
    where: str | None = None
    if record is not None:
        k = int(np.flatnonzero(status >= STYLE_ROW_KINDS.index(MALFORMED_KINDS[0]))[0])
        place = locate(record) if locate is not None else f"record {record}"
        where = f"{source}: {place} ({STYLE_ROW_KINDS[status[k]].replace('_', ' ')})"
    return StyleColumns(features, raw, status, StyleReport(features, count_status(status), where))


def contextual_columns(scan: BattleScan, features: Sequence[str], covariates: Sequence[str]) -> StyleColumns:
    """The contextual fit's columns: the style ``features`` (relative differences, as
    ``style_columns``) then each covariate's value as it is (a scan opened with
    ``style_feature_specs(features)`` and the covariates' ``scan.covariate_spec``s). A battle
    without a covariate value counts as incomplete, a non-numeric one as malformed; the fit
    standardises every column alike.

    The scan's feature batches are folded straight into the (battles, columns) matrix, so
    memory holds that matrix and one batch, not a float64 column per side and feature."""
    return _fold_columns(scan, features, covariates, None)


def contextual_battles(scan: BattleScan, features: Sequence[str],
                       covariates: Sequence[str]) -> tuple[Battles, StyleColumns]:
    """``scan.battles()`` without times and ``contextual_columns``, from one pass over the scan.

    The columns are float32 here (half the memory of the largest per-battle array): a
    relative difference or covariate keeps 24 significant bits; the fit standardises and
    sums them in float64 (``builder.pairwise.styled``)."""
    n = scan.report.rows_kept
    codes = (np.empty(n, dtype=np.int32), np.empty(n, dtype=np.int32), np.empty(n, dtype=np.int8))
    styles = _fold_columns(scan, features, covariates, codes, np.float32)
    return Battles(scan.models, codes[0], codes[1], codes[2], None, scan.report), styles


def stream_contextual_battles(path: str | Path, filters: BattleFilters, settings: ReaderSettings,
                              features: Sequence[str], covariates: Sequence[FeatureSpec] = ()
                              ) -> tuple[StreamedBattles, Battles, StyleColumns] | None:
    """``contextual_battles`` of a JSON or JSON Lines file read in one streamed pass, without a
    scan table (``scan.stream_battles``): the feature batches are folded as they come, into
    arrays that grow with the battles. None where the file needs the table path
    (``scan_battles``); the same battles and columns otherwise."""
    specs = [*style_feature_specs(features), *covariates]
    index = {spec.name: j for j, spec in enumerate(specs)}
    names = [c.name for c in covariates]
    try:  # room for one battle per 128 bytes of file, the most the streamed read takes on (pages are used as written)
        guess = max(1 << 16, Path(path).stat().st_size // 128)
    except OSError:
        guess = 1 << 16
    folds: list[_Fold] = []

    def sink() -> _Fold:
        codes = (np.empty(guess, dtype=np.int32), np.empty(guess, dtype=np.int32), np.empty(guess, dtype=np.int8))
        folds.append(_Fold(features, names, index, guess, np.float32, codes))
        return folds[-1]

    read = stream_battles(path, filters, settings, specs, sink)
    if read is None:
        return None
    fold = folds[-1]
    n = read.report.rows_kept
    if fold.at != n or fold.codes is None:
        raise RuntimeError(f"style columns cover {fold.at} battles, the read kept {n}")
    a, b, o = (c[:n] for c in fold.codes)
    code = read.code_of_name.astype(np.int32)
    for s in range(0, n, 1 << 20):  # clean-name ids -> model codes, in place (block by block)
        a[s:s + (1 << 20)] = code[a[s:s + (1 << 20)]]
        b[s:s + (1 << 20)] = code[b[s:s + (1 << 20)]]
    return read, Battles(read.models, a, b, o, None, read.report), fold.columns(read.source_name, read.locate)


def _fold_columns(scan: BattleScan, features: Sequence[str], covariates: Sequence[str],
                  codes: tuple[np.ndarray, np.ndarray, np.ndarray] | None,
                  dtype: type[np.floating[Any]] = np.float64) -> StyleColumns:
    """``contextual_columns``; with ``codes`` (model a, model b, outcome arrays of the kept
    battles' size) also filled with the battles, in the same pass; the matrix of ``dtype``."""
    index = {spec.name: j for j, spec in enumerate(scan.features_spec)}
    n = scan.report.rows_kept
    fold = _Fold(features, covariates, index, n, dtype, codes)
    batches: Iterator[tuple[np.ndarray, np.ndarray | None, list[tuple[np.ndarray, np.ndarray]]]] = (
        scan.battle_feature_batches() if codes is not None
        else ((pos, None, cols) for pos, cols in scan.feature_batches()))
    for pos, battles, cols in batches:
        fold.add(pos, battles, cols)
    if fold.at != n:
        raise RuntimeError(f"style columns cover {fold.at} battles, the scan kept {n}")
    return fold.columns(scan.source_name, scan.locate)


class _Fold:
    """Feature batches folded into the (battles, columns) matrix as they come: per battle the
    style features' relative differences, then each covariate's value, and the battle's kind
    (``STYLE_ROW_KINDS``); with ``codes`` also the battles' model codes and outcome. The arrays
    hold ``capacity`` battles and grow (doubling) when a batch does not fit."""

    def __init__(self, features: Sequence[str], covariates: Sequence[str], index: Mapping[str, int], capacity: int,
                 dtype: type[np.floating[Any]], codes: tuple[np.ndarray, ...] | None) -> None:
        self.features, self.covariates, self.index = tuple(features), tuple(covariates), index
        self.names = (*self.features, *self.covariates)
        self.matrix = np.zeros((capacity, len(self.names)), dtype=dtype)
        self.status = np.zeros(capacity, dtype=np.int8)
        self.codes = codes
        self.at = 0
        self.style_first: tuple[int, int] | None = None  # (record, kind) of the first battle with a malformed count
        self.cov_first: dict[str, int] = {}  # covariate -> record of its first non-numeric value

    def _grow(self, need: int) -> None:
        size = max(need, 2 * self.matrix.shape[0])
        matrix = np.zeros((size, len(self.names)), dtype=self.matrix.dtype)
        matrix[:self.at] = self.matrix[:self.at]
        status = np.zeros(size, dtype=np.int8)
        status[:self.at] = self.status[:self.at]
        self.matrix, self.status = matrix, status
        if self.codes is not None:
            grown = []
            for old in self.codes:
                new = np.empty(size, dtype=old.dtype)
                new[:self.at] = old[:self.at]
                grown.append(new)
            self.codes = tuple(grown)

    def add(self, pos: np.ndarray, battles: np.ndarray | None, cols: list[tuple[np.ndarray, np.ndarray]]) -> None:
        m = pos.size
        if self.at + m > self.status.shape[0]:
            self._grow(self.at + m)
        rows = slice(self.at, self.at + m)
        if self.codes is not None and battles is not None:
            for target, got in zip(self.codes, battles, strict=True):
                target[rows] = got
        st = self.status[rows]
        index, matrix = self.index, self.matrix
        for j, feature in enumerate(self.features):
            (va, qa), (vb, qb) = cols[index[f"{feature}_a"]], cols[index[f"{feature}_b"]]
            np.maximum(st, np.maximum(_KIND_OF_QUALITY[qa], _KIND_OF_QUALITY[qb]), out=st)
            matrix[rows, j] = relative_differences(va, vb)
        if self.style_first is None:
            bad = np.flatnonzero(st >= _MALFORMED)
            if bad.size:
                self.style_first = int(pos[bad[0]]) + 1, int(st[bad[0]])
        for j, name in enumerate(self.covariates, start=len(self.features)):
            v, q = cols[index[name]]
            np.maximum(st, _KIND_OF_QUALITY[q], out=st)
            matrix[rows, j] = np.where(q == FEATURE_OK, v, 0.0)
            if name not in self.cov_first:
                bad = np.flatnonzero(np.isin(q, FEATURE_MALFORMED))
                if bad.size:
                    self.cov_first[name] = int(pos[bad[0]]) + 1
        matrix[rows][st != 0] = 0.0
        self.at += m

    def columns(self, source: str, locate: Callable[[int], str]) -> StyleColumns:
        """The folded columns (the first ``at`` battles); the first malformed battle named by
        ``locate`` (its 1-based record -> ``line N``)."""
        where: str | None = None
        if self.style_first is not None:
            kind = STYLE_ROW_KINDS[self.style_first[1]].replace("_", " ")
            where = f"{source}: {locate(self.style_first[0])} ({kind})"
        else:
            for name in self.covariates:  # the first covariate (in order) with a non-numeric value
                if name in self.cov_first:
                    where = f"{source}: {locate(self.cov_first[name])} (covariate {name} not a number)"
                    break
        matrix, status = self.matrix[:self.at], self.status[:self.at]
        return StyleColumns(self.names, matrix, status, StyleReport(self.names, count_status(status), where))


_MALFORMED = STYLE_ROW_KINDS.index(MALFORMED_KINDS[0])


def style_columns(scan: BattleScan, features: Sequence[str]) -> StyleColumns:
    """Style columns of the kept battles of a scan opened with ``style_feature_specs(features)``,
    aligned with ``scan.battles()``."""
    return contextual_columns(scan, features, ())


__all__ = [
    "MALFORMED_KINDS",
    "META_COLUMN",
    "META_KEYS",
    "STYLE_FEATURES",
    "STYLE_ROW_KINDS",
    "UNUSABLE_KINDS",
    "contextual_battles",
    "contextual_columns",
    "StyleColumns",
    "StyleReport",
    "count_status",
    "parse_style_features",
    "relative_differences",
    "standardise",
    "stream_contextual_battles",
    "style_columns",
    "style_columns_from",
    "style_feature_specs",
]
