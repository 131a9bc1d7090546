"""Battle dumps read by DuckDB (embedded, in process): one scan of the file, then SQL reductions.

Formats: a JSON array, JSON Lines, CSV or Parquet, each optionally compressed (``.gz``,
``.zst``); the format comes from the suffix (``.json``, ``.jsonl``/``.ndjson``, ``.csv``,
``.parquet``/``.pq``), and a ``.json`` file whose first character is not ``[`` is read as
JSON Lines. Schema: see ``builder.pairwise.battles``.

How a file is read (one connection per read, with the ``ReaderSettings`` memory limit and
spill folder, so a dump larger than memory is counted out of core):

1. **Scan** (the only pass over the file, in parallel): every record becomes one row of a
   table ``scan`` (in a database file in the spill folder, compressed as it is written;
   ``rowid`` = the record's position in the file; for Parquet, which is columnar and numbers
   its rows, a view over the file instead, and the database in memory) holding only

   - ``a``, ``b``, ``w``: model names and winner as raw text (JSON text for JSON files),
     cleaned later once per distinct value: a name is a non-blank string with surrounding
     whitespace removed, a winner one of ``WINNER_CODES``;
   - ``t``: ``tstamp`` in Unix seconds, NULL when missing or not a number (NULL throughout
     for a scan opened with ``times=False``, which only counts: the time is not read);
   - ``f``: the first filter that removes the row, in the fixed order anony, dedup,
     language, min_date, max_date, min_turn (``FILTER_STATUS``), 0 for none;
   - requested feature columns (``FeatureSpec``): for Parquet and CSV the value and its
     quality; for JSON the value's JSON text, decoded after the scan once per distinct text
     (``_feature_text``). A top-level JSON column that features read only through nested
     keys (``conv_metadata``) is read as a STRUCT of those keys, so each record is parsed once.

2. **Reductions**, each one SQL query over ``scan``:

   - ``SELECT a, b, w, f, count(*), min(rowid) ... GROUP BY ALL``: the report, the model
     table and the pair counts per outcome (``PairCounts``). A row's fate: 1
     ``missing_model``, 2 ``same_model``, 3 ``unknown_winner`` (each row counted under the
     first kind it matches, in that order), else its filter, else kept;
   - per battle, small integers through ENUM types of the raw values, in file order
     (``Battles``, for online Elo and history, which need the battle sequence);
   - per time bucket (day, ISO week, month), pair and outcome, counts
     (``history.PeriodCounts``).

**Streamed read** (``stream_battles``, for the style-controlled fit of an uncompressed JSON
file whose battles fit in memory): the scan's query is read in Arrow record batches instead
of into the table; per batch the raw values are dictionary-encoded, each new distinct name,
winner or feature text cleaned or decoded once, the (a, b, w, f) groups counted and the kept
battles with their features handed on; the report and model table follow from the groups
(``summarise_groups``), the same as the table path gives.

Model codes follow the first appearance of each name in the file, counting every row (bad
and filtered ones too): the names seen as ``model_a`` first, then those seen only as
``model_b``; a model without a kept battle is left out of the table.

Malformed input (invalid JSON, a record that is not an object, an unreadable CSV or Parquet
file) ends in one ``UserError`` line naming the file and DuckDB's position (line for JSON
Lines and CSV, record for JSON arrays).
"""

from __future__ import annotations

import contextlib
import csv
import datetime as dt
import gzip
import json
import re
import shutil
import tempfile
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, Protocol

import duckdb
import numpy as np

from builder.errors import UserError
from builder.pairwise.battles import (
    BAD_KINDS,
    REQUIRED,
    WINNER_CODES,
    BattleFilters,
    BattleReport,
    Battles,
)
from builder.pairwise.bt import PairCounts
from builder.pairwise.history import Period, PeriodCounts
from builder.pairwise.rules import FILTER_STATUS, check_columns, enabled_filters, fate_sql, voter_cap_rank
from builder.pairwise.summary import BattleSummary, compute_battle_summary

if TYPE_CHECKING:  # pyarrow loads only for in-memory tables and Arrow results, not to read a file
    import pyarrow as pa

Format = Literal["json", "jsonl", "csv", "parquet", "arrow"]

_COMPRESSION = {".gz": "gzip", ".gzip": "gzip", ".zst": "zstd"}

_NUMERIC_JSON = "('UBIGINT', 'BIGINT', 'DOUBLE', 'HUGEINT')"
_BATCH_ROWS = 262_144  # rows per record batch when a result is streamed
_READ_BACK_ROWS = 65_536  # rows per batch when a scan table is read back into per-battle arrays
_READ_BACK_SETTINGS = ("48MB", "8MB", "8MB")  # DuckDB's memory limit and allocator flush thresholds meanwhile
_DISTINCT_TEXTS = 1 << 16  # a feature's distinct JSON texts decoded through a table up to this many, else per row


@dataclass(frozen=True, slots=True)
class ReaderSettings:
    """DuckDB resources for one read."""

    memory_limit: str = "512MB"  # DuckDB's memory limit ("512MB", "2GB"); beyond it DuckDB spills
    temp_directory: Path | None = None  # spill folder (default: the system temp folder)
    threads: int | None = None  # worker threads (default: DuckDB's, one per core)


@dataclass(frozen=True, slots=True)
class VoterTest:
    """What the anomalous-voter test did (``BattleScan.drop_anomalous_voters``)."""

    column: str  # the column naming the voter
    fpr: float  # the test's false-positive rate for an honest voter
    min_votes: int  # fewest decisive votes a voter needs to be tested
    threshold: float  # the z below which a voter is anomalous (the fpr quantile of N(0, 1))
    voters: int  # distinct voters among the kept battles
    tested: int  # voters with at least min_votes decisive votes
    flagged: tuple[str, ...]  # the anomalous voters, sorted
    rows_removed: int  # their kept votes, removed


@dataclass(frozen=True, slots=True)
class FeatureSpec:
    """A per-battle count read from a nested field.

    ``path`` are the keys from the record's top level, e.g. ``("conv_metadata",
    "sum_assistant_a_tokens")``. A count is a finite number >= 0, or an object (a Parquet
    struct or map) whose values are such numbers, taken as their sum (LMArena writes
    ``header_count_a`` as ``{"h1": 0, "h2": 3, ...}``); inside an object a null value counts
    nothing (a typed struct cannot tell it from an absent key), so ``{}`` counts 0.

    Quality per battle (``FEATURE_*``): ``NO_OBJECT`` when the top-level field of a nested
    path is absent, null or not an object; ``MISSING`` when the value is absent or null;
    ``NON_NUMERIC`` when it (or any value of its object) is text, a boolean, a list, a nested
    object or not finite; else ``NEGATIVE`` when it (or a value of its object) is below 0;
    else ``OK``. Text is never read as a number (a JSON ``"3"`` is non-numeric); a Parquet
    text column holding JSON objects is read as JSON.
    """

    name: str
    path: tuple[str, ...]
    sql: str | None = None  # a covariate: this DuckDB expression over the record's columns (see covariate_spec)
    columns: tuple[str, ...] = ()  # the columns ``sql`` may read
    covariate: bool = False  # a covariate column: any finite number, a boolean as 1 / 0 (not a count)


_IDENT = re.compile(r'"((?:[^"]|"")+)"|\b([A-Za-z_][A-Za-z0-9_]*)\b')


def covariate_spec(name: str, *, column: str | None = None, sql: str | None = None) -> FeatureSpec:
    """A covariate of the contextual fit, one number per battle, as a scan feature column.

    ``column``: keys from the record's top level joined by ``/`` (``is_direct``,
    ``meta/same_org``); a number, or a boolean read as 1 / 0. ``sql``: a DuckDB expression
    over the record's top-level columns, cast to DOUBLE (in JSON files a column arrives as
    DuckDB JSON: cast it, e.g. ``CAST(is_direct AS BOOLEAN)::INT``). Quality: ``MISSING``
    where the value is null (or the column absent), ``NON_NUMERIC`` where it is not a finite
    number (text, a list, an object; an expression that cannot be cast), else ``OK``.
    """
    if (column is None) == (sql is None):
        raise ValueError(f"covariate {name!r}: give one of column and sql")
    if column is not None:
        path = tuple(k for k in column.split("/"))
        if not all(path):
            raise UserError(f"covariate {name!r}: empty key in column {column!r}")
        return FeatureSpec(name, path, covariate=True)
    assert sql is not None
    cols = tuple(dict.fromkeys((m[1] or m[0].replace('""', '"')) for m in _IDENT.finditer(sql)
                               if not _in_string(sql, m.start())))
    return FeatureSpec(name, (), sql=sql, columns=cols, covariate=True)


def _in_string(sql: str, at: int) -> bool:
    """Whether position ``at`` of ``sql`` is inside a single-quoted string literal."""
    return sql[:at].count("'") % 2 == 1


DEFAULT_SETTINGS = ReaderSettings()
NO_FILTERS = BattleFilters()

FEATURE_OK, FEATURE_MISSING, FEATURE_NO_OBJECT, FEATURE_NEGATIVE, FEATURE_NON_NUMERIC = 0, 1, 2, 3, 4
"Per-battle feature quality codes (see ``FeatureSpec``)."
FEATURE_QUALITIES: tuple[str, ...] = ("ok", "missing", "no_object", "negative", "non_numeric")
"Name of each quality code (index = code)."
FEATURE_MALFORMED: tuple[int, ...] = (FEATURE_NEGATIVE, FEATURE_NON_NUMERIC)
"The quality codes of a value that is present but not a count."


@dataclass(frozen=True, eq=False, slots=True)
class FeatureColumn:
    """One feature for the kept battles, in ``Battles`` order, shape (n_battles,) each.

    ``values``: float64, NaN where ``quality`` is not ``FEATURE_OK``; ``quality``: int8
    codes (``FEATURE_QUALITIES``); ``first_malformed``: the 1-based record (JSON array index,
    JSON Lines line without blank lines, Parquet row) of the first kept battle whose value is
    malformed (``FEATURE_MALFORMED``), or None; ``BattleScan.locate`` says where it is.
    """

    name: str
    values: np.ndarray
    quality: np.ndarray
    first_malformed: int | None

    def counts(self) -> dict[str, int]:
        """Battles per quality name, every name present (zeros included)."""
        n = np.bincount(self.quality.astype(np.int64), minlength=len(FEATURE_QUALITIES))
        return {name: int(c) for name, c in zip(FEATURE_QUALITIES, n, strict=False)}


# --------------------------------------------------------------------------- format and columns


def format_of(path: Path) -> tuple[Format, str | None]:
    """(format, compression) from the file name; ``.json`` is peeked at (array or lines)."""
    suffixes = [s.lower() for s in path.suffixes]
    compression = _COMPRESSION.get(suffixes[-1]) if suffixes else None
    if compression:
        suffixes = suffixes[:-1]
    suffix = suffixes[-1] if suffixes else ""
    if suffix in (".jsonl", ".ndjson"):
        return "jsonl", compression
    if suffix == ".csv":
        return "csv", compression
    if suffix in (".parquet", ".pq") and compression is None:
        return "parquet", None
    if suffix == ".json":
        return _peek_json(path, compression), compression
    raise UserError(
        f"{path}: unknown battles format {''.join(path.suffixes) or path.name!r} "
        "(use .json, .jsonl, .csv or .parquet, optionally .gz or .zst)"
    )


def _peek_json(path: Path, compression: str | None) -> Format:
    if compression == "zstd":
        return "json"  # DuckDB tells an array from lines itself
    opener = gzip.open if compression == "gzip" else open
    try:
        with opener(path, "rb") as f:
            head = f.read(4096)
    except OSError as exc:
        raise UserError(f"{path}: cannot read: {exc}") from None
    head = head.lstrip(b"\xef\xbb\xbf \t\r\n")
    return "json" if head.startswith(b"[") or not head else "jsonl"


def _csv_header(path: Path, compression: str | None) -> list[str] | None:
    """The CSV header's column names (None for an empty file; [] when it cannot be peeked at)."""
    if compression == "zstd":
        return []
    opener = gzip.open if compression == "gzip" else open
    try:
        with opener(path, "rt", encoding="utf-8-sig", newline="") as f:
            row = next(csv.reader(f), None)
    except (OSError, UnicodeDecodeError, csv.Error) as exc:
        raise UserError(f"{path}: cannot read the CSV header: {exc}") from None
    return row if row else None


def _numpy_of(column: pa.Array) -> np.ndarray:
    """A record batch's column as a NumPy array. A fixed-width number column without nulls is
    read straight from its Arrow buffer: pyarrow's ``to_numpy`` imports pandas (about 0.5 s and
    a hundred MB in every build process) even where it copies nothing."""
    import pyarrow as pa

    width = column.type.bit_width if pa.types.is_integer(column.type) or pa.types.is_floating(column.type) else 0
    if width >= 8 and column.null_count == 0:
        return np.frombuffer(column.buffers()[1], dtype=column.type.to_pandas_dtype(), count=len(column),
                             offset=column.offset * width // 8)
    return np.asarray(column.to_numpy(zero_copy_only=False))


def _sql_str(value: str) -> str:
    return "'" + value.replace("'", "''") + "'"


def _ident(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _wanted(filters: BattleFilters, features: Sequence[FeatureSpec], times: bool = True) -> list[str]:
    # tstamp is read unless the caller only counts (history and online Elo need the times).
    want = [*REQUIRED, *(["tstamp"] if times else []), *filters.needed_columns(), *filters.official_columns()]
    if filters.category is not None:
        want += filters.category.columns()
    want += filters.voter_columns()
    if filters.voter_daily_cap is not None:
        want.append("tstamp")  # the cap counts per UTC day
    want += [c for f in features for c in (f.columns if f.sql is not None else f.path[:1])]
    return list(dict.fromkeys(want))


def _typed_heads(filters: BattleFilters, features: Sequence[FeatureSpec], times: bool) -> dict[str, str]:
    """Top-level JSON columns read as ``STRUCT("key" JSON, ...)``: those that features read only
    through nested keys (``conv_metadata`` -> ``sum_assistant_a_tokens``, ...), so the reader
    parses each record once and hands over just those members, each as its own JSON text,
    instead of the whole object being re-parsed per key and row. A record whose column is not
    an object (or repeats a key) makes DuckDB refuse the typed read; the scan is then redone
    with the column as JSON (``_create_scan``), which gives the same results."""
    nested = [f for f in features if f.sql is None and len(f.path) > 1]
    others = set(_wanted(filters, [f for f in features if f not in nested], times))
    members: dict[str, list[str]] = {}
    for f in nested:
        if f.path[0] not in others:
            keys = members.setdefault(f.path[0], [])
            if f.path[1] not in keys:
                keys.append(f.path[1])
    # DuckDB matches struct member names without regard to case: two keys that differ only
    # in case stay JSON.
    return {head: "STRUCT(" + ", ".join(f"{_ident(k)} JSON" for k in keys) + ")"
            for head, keys in members.items() if len({k.lower() for k in keys}) == len(keys)}


@dataclass(frozen=True, slots=True)
class _Source:
    """How to read one file: the table function and, per column, the SQL that cleans it."""

    path: Path | None
    kind: Format
    relation: str  # FROM clause
    present: frozenset[str]  # columns the file has (first record, header or schema)
    types: Mapping[str, str]  # DuckDB type of each present column (parquet/arrow; JSON: the typed heads)
    where: str  # how to say where the columns were looked for


def _source(con: duckdb.DuckDBPyConnection, path: Path, filters: BattleFilters,
            features: Sequence[FeatureSpec], times: bool = True, typed_json: bool = True) -> _Source:
    """How to read ``path``. ``typed_json``: in a JSON file, a column that only features read
    nested keys of (``conv_metadata``) is read as a STRUCT of those keys (``_typed_heads``)."""
    kind, compression = format_of(path)
    comp = f", compression={_sql_str(compression)}" if compression else ""
    p = _sql_str(str(path))
    want = _wanted(filters, features, times)
    if kind in ("json", "jsonl"):
        fmt = {"json": "array" if compression != "zstd" else "auto", "jsonl": "newline_delimited"}[kind]
        first = _run(con, path, f"SELECT json_type(json), json_keys(json) FROM read_json_objects({p}, "
                                f"format={_sql_str(fmt)}{comp}) LIMIT 1").fetchall()
        if not first:
            raise UserError(f"{path}: no battles in file (empty input)")
        jtype, keys = first[0]
        if jtype != "OBJECT":
            raise UserError(f"{path}: record 1: a battle must be a JSON object, found {jtype.lower()}")
        present = frozenset(keys)
        typed = _typed_heads(filters, features, times) if typed_json else {}
        cols = ", ".join(f"{_ident(c)}: {_sql_str(typed.get(c, 'JSON'))}" for c in want if c in present
                         ) or "model_a: 'JSON'"
        rel = (f"read_json({p}, format={_sql_str(fmt)}, records='true', columns={{{cols}}}{comp})")
        return _Source(path, kind, rel, present, {c: t for c, t in typed.items() if c in present}, "record 1")
    if kind == "csv":
        header = _csv_header(path, compression)
        if header is None:
            raise UserError(f"{path}: no battles in file (empty input)")
        if header:
            cols = ", ".join(f"{_sql_str(h)}: 'VARCHAR'" for h in header)
            rel = (f"read_csv({p}, header=true, auto_detect=false, delim=',', quote='\"', escape='\"', "
                   f"strict_mode=true, columns={{{cols}}}{comp})")
        else:  # zstd: DuckDB's sniffer reads the header
            rel = f"read_csv({p}, header=true, all_varchar=true{comp})"
            header = [r[0] for r in _run(con, path, f"DESCRIBE SELECT * FROM {rel}").fetchall()]
        return _Source(path, kind, rel, frozenset(h.strip() for h in header), {}, "header")
    rel = f"read_parquet({p}, file_row_number=true)"
    described = _run(con, path, f"DESCRIBE SELECT * FROM {rel}").fetchall()
    return _Source(path, kind, rel, frozenset(r[0] for r in described), {r[0]: r[1] for r in described}, "schema")


def _check_columns(src: _Source, filters: BattleFilters) -> None:
    check_columns(f"{src.path or '<memory>'}: {src.where}", src.present, filters)


# Cleaning SQL per source kind: a string, a number, a boolean, an integer, dedup_tag.sampled.


def _col(src: _Source, name: str) -> str | None:
    return _ident(name) if name in src.present else None


def _text(src: _Source, name: str) -> str:
    c = _col(src, name)
    if c is None:
        return "NULL::VARCHAR"
    if src.kind in ("json", "jsonl"):
        return f"CASE WHEN json_type({c}) = 'VARCHAR' THEN {c} ->> '$' END"
    if src.kind == "csv":
        return c
    return c if src.types.get(name) == "VARCHAR" else f"TRY_CAST({c} AS VARCHAR)"


def _number(src: _Source, name: str) -> str:
    c = _col(src, name)
    if c is None:
        return "NULL::DOUBLE"
    if src.kind in ("json", "jsonl"):
        return f"CASE WHEN json_type({c}) IN {_NUMERIC_JSON} THEN TRY_CAST({c} AS DOUBLE) END"
    return f"TRY_CAST({_csv_text(src, c)} AS DOUBLE)"


def _flag(src: _Source, name: str) -> str:
    c = _col(src, name)
    if c is None:
        return "false"
    if src.kind in ("json", "jsonl"):
        return f"coalesce(CAST({c} AS VARCHAR) = 'true', false)"
    if src.kind == "csv" or src.types.get(name) != "BOOLEAN":
        return f"coalesce(lower(CAST({c} AS VARCHAR)) IN ('true', '1'), false)"
    return f"coalesce({c}, false)"


def _integer(src: _Source, name: str) -> str:
    c = _col(src, name)
    if c is None:
        return "NULL::BIGINT"
    if src.kind in ("json", "jsonl"):
        # int(v) of a JSON number: truncation towards zero
        return (f"CASE WHEN json_type({c}) IN {_NUMERIC_JSON} "
                f"THEN TRY_CAST(trunc(TRY_CAST({c} AS DOUBLE)) AS BIGINT) END")
    return f"TRY_CAST({_csv_text(src, c)} AS BIGINT)"


def _csv_text(src: _Source, c: str) -> str:
    """A CSV field as text that DuckDB cannot push a cast into: it moves ``TRY_CAST`` of a
    plain column into the CSV reader, which then refuses the whole file at the first value
    that does not convert (``nullif`` keeps it a NULL, as the other formats have it)."""
    return f"nullif({c}, '')" if src.kind == "csv" else c


def _sampled(src: _Source) -> str:
    c = _col(src, "dedup_tag")
    if c is None:
        return "false"
    if src.kind in ("json", "jsonl"):
        return f"coalesce(CAST(json_extract({c}, '$.sampled') AS VARCHAR) = 'true', false)"
    kind = src.types.get("dedup_tag", "VARCHAR")
    if kind.startswith("STRUCT") and "sampled" in kind:
        return f"coalesce(TRY_CAST({c}.sampled AS BOOLEAN), false)"
    # a dict written as text, by Python (True) or as JSON (true)
    return f"coalesce(regexp_matches(CAST({c} AS VARCHAR), '[''\"]sampled[''\"]\\s*:\\s*(True|true)'), false)"


_NUMERIC_TYPE = re.compile(r"^(U?(TINYINT|SMALLINT|INTEGER|BIGINT|HUGEINT)|FLOAT|DOUBLE|DECIMAL\(\d+,\s*\d+\))$")
_FLOAT_TYPE = ("FLOAT", "DOUBLE")  # the numeric types that can hold NaN or infinity


def _quality(checks: Sequence[tuple[str, int]]) -> str:
    """``CASE WHEN cond THEN code ... ELSE FEATURE_OK END`` (the first true condition wins)."""
    return "CASE " + " ".join(f"WHEN {cond} THEN {code}" for cond, code in checks) + f" ELSE {FEATURE_OK} END"


def _json_count(v: str) -> tuple[str, list[tuple[str, int]]]:
    """(value, quality checks) of a JSON value ``v`` (a DuckDB JSON expression, never SQL NULL here)."""
    t = f"json_type({v})"
    elems = f"json_extract({v}, '$.*')"
    vals = (f"list_transform({elems}, lambda e: CASE WHEN json_type(e) IN {_NUMERIC_JSON} "
            "THEN TRY_CAST(e AS DOUBLE) END)")
    odd = (f"coalesce(list_bool_or(list_transform({elems}, lambda e: CASE WHEN json_type(e) IN {_NUMERIC_JSON} "
           "THEN NOT coalesce(isfinite(TRY_CAST(e AS DOUBLE)), false) ELSE json_type(e) <> 'NULL' END)), false)")
    neg = f"coalesce(list_bool_or(list_transform({vals}, lambda x: coalesce(x < 0, false))), false)"
    num = f"TRY_CAST({v} AS DOUBLE)"
    value = f"CASE {t} WHEN 'OBJECT' THEN coalesce(list_sum({vals}), 0) ELSE {num} END"
    checks = [
        (f"{t} = 'NULL'", FEATURE_MISSING),
        (f"{t} IN {_NUMERIC_JSON} AND NOT isfinite({num})", FEATURE_NON_NUMERIC),
        (f"{t} IN {_NUMERIC_JSON} AND {num} < 0", FEATURE_NEGATIVE),
        (f"{t} IN {_NUMERIC_JSON}", FEATURE_OK),
        (f"{t} <> 'OBJECT' OR {odd}", FEATURE_NON_NUMERIC),
        (neg, FEATURE_NEGATIVE),
    ]
    return value, checks


def _typed_count(x: str, kind: str) -> tuple[str, list[tuple[str, int]]]:
    """(value, quality checks) of a typed (Parquet / Arrow) value ``x`` of DuckDB type ``kind``, not NULL."""
    if _NUMERIC_TYPE.match(kind):
        v = f"CAST({x} AS DOUBLE)"
        finite = [(f"NOT isfinite({v})", FEATURE_NON_NUMERIC)] if kind in _FLOAT_TYPE else []
        return v, [*finite, (f"{x} < 0", FEATURE_NEGATIVE)]
    if kind == "JSON":
        return _json_count(x)
    parts: list[tuple[str, str]] = []  # (child expression, its type)
    if kind.startswith("STRUCT"):
        parts = [(f"{x}[{_sql_str(name)}]", sub) for name, sub in _struct_members(kind).items()]
    elif kind.startswith("MAP("):
        _key, sub = _split_top(kind[4:-1])
        vals = f"map_values({x})"
        if not _NUMERIC_TYPE.match(sub):
            return "NULL::DOUBLE", [(f"coalesce(list_bool_or(list_transform({vals}, lambda e: e IS NOT NULL)), false)",
                                     FEATURE_NON_NUMERIC)]
        dv = f"list_transform({vals}, lambda e: CAST(e AS DOUBLE))"
        return f"coalesce(list_sum({dv}), 0)", [
            (f"coalesce(list_bool_or(list_transform({dv}, lambda e: NOT isfinite(e))), false)", FEATURE_NON_NUMERIC),
            (f"coalesce(list_bool_or(list_transform({dv}, lambda e: e < 0)), false)", FEATURE_NEGATIVE),
        ]
    else:
        return "NULL::DOUBLE", [("true", FEATURE_NON_NUMERIC)]  # text, a boolean, a list: not a count
    numeric = [(c, sub) for c, sub in parts if _NUMERIC_TYPE.match(sub)]
    other = [c for c, sub in parts if not _NUMERIC_TYPE.match(sub) and sub != "NULL"]
    value = " + ".join(f"coalesce(CAST({c} AS DOUBLE), 0)" for c, _ in numeric) or "0.0"
    odd = [f"{c} IS NOT NULL" for c in other] + [f"NOT coalesce(isfinite({c}), true)" for c, sub in numeric
                                                 if sub in _FLOAT_TYPE]
    neg = [f"coalesce({c} < 0, false)" for c, _ in numeric]
    checks = [(" OR ".join(odd), FEATURE_NON_NUMERIC)] if odd else []
    return f"CAST({value} AS DOUBLE)", checks + ([(" OR ".join(neg), FEATURE_NEGATIVE)] if neg else [])


def _feature_sql(src: _Source, spec: FeatureSpec) -> tuple[str, str]:
    """(value, quality) SQL for one feature (see ``FeatureSpec``); the value means something only
    where the quality is OK (``BattleScan.features`` masks the rest)."""
    if spec.sql is not None:
        v = f"TRY_CAST(({spec.sql}) AS DOUBLE)"
        return v, _quality([(f"{v} IS NULL", FEATURE_MISSING), (f"NOT isfinite({v})", FEATURE_NON_NUMERIC)])
    if spec.covariate:
        return _covariate_sql(src, spec)
    if src.kind == "csv":
        raise UserError(f"{src.path}: CSV carries no nested metadata; feature {spec.name!r} needs JSON or Parquet")
    nested = len(spec.path) > 1
    head = _col(src, spec.path[0])
    if head is None:
        return "NULL::DOUBLE", str(FEATURE_NO_OBJECT if nested else FEATURE_MISSING)
    head_type = src.types.get(spec.path[0], "JSON" if src.kind in ("json", "jsonl") else "")
    if head_type in ("VARCHAR", "JSON") and src.kind not in ("json", "jsonl"):
        head = f"TRY_CAST({head} AS JSON)"  # a text column holding JSON objects
        head_type = "JSON"
    if head_type == "JSON":
        tail = "".join(f".{_json_key(k)}" for k in spec.path[1:])
        v = f"json_extract({head}, '${tail}')" if tail else head
        no_object = f"{head} IS NULL OR json_type({head}) <> 'OBJECT'" if nested else "false"
        value, checks = _json_count(v)
        checks = [(no_object, FEATURE_NO_OBJECT), (f"{v} IS NULL", FEATURE_MISSING), *checks]
    else:
        kind = _nested_type(head_type, spec.path[1:])
        no_object = f"{head} IS NULL" if nested else "false"
        if nested and not head_type.startswith("STRUCT"):
            return "NULL::DOUBLE", str(FEATURE_NO_OBJECT)
        if kind is None:  # the key is not in the struct: missing wherever the object is there
            return "NULL::DOUBLE", f"CASE WHEN {no_object} THEN {FEATURE_NO_OBJECT} ELSE {FEATURE_MISSING} END"
        expr = head + "".join(f"[{_sql_str(k)}]" for k in spec.path[1:])
        value, checks = _typed_count(expr, kind)
        checks = [(no_object, FEATURE_NO_OBJECT), (f"{expr} IS NULL", FEATURE_MISSING), *checks]
    return value, _quality([(c, q) for c, q in checks if c != "false"])


def _covariate_sql(src: _Source, spec: FeatureSpec) -> tuple[str, str]:
    """(value, quality) SQL of a covariate column (``covariate_spec``): a number, a boolean as 1 / 0."""
    head = _col(src, spec.path[0])
    if head is None:
        return "NULL::DOUBLE", str(FEATURE_MISSING)
    kind = src.types.get(spec.path[0], "JSON" if src.kind in ("json", "jsonl") else "VARCHAR")
    if src.kind == "csv":
        if len(spec.path) > 1:
            raise UserError(f"{src.path}: CSV carries no nested values; covariate {spec.name!r} needs JSON or Parquet")
        text = f"nullif(trim({head}), '')"
        v = f"coalesce(TRY_CAST({text} AS DOUBLE), CASE lower({text}) WHEN 'true' THEN 1.0 WHEN 'false' THEN 0.0 END)"
        return v, _quality([(f"{text} IS NULL", FEATURE_MISSING),
                            (f"{v} IS NULL OR NOT isfinite({v})", FEATURE_NON_NUMERIC)])
    if kind in ("JSON", "VARCHAR") or (len(spec.path) > 1 and not kind.startswith("STRUCT")):
        j = head if kind == "JSON" and src.kind in ("json", "jsonl") else f"TRY_CAST({head} AS JSON)"
        tail = "".join(f".{_json_key(k)}" for k in spec.path[1:])
        x = f"json_extract({j}, '${tail}')" if tail else j
        v, checks = _json_covariate(x)
        return v, _quality([(f"{x} IS NULL", FEATURE_MISSING), *checks])
    x = head + "".join(f"[{_sql_str(k)}]" for k in spec.path[1:])
    if len(spec.path) > 1 and _nested_type(kind, spec.path[1:]) is None:
        return "NULL::DOUBLE", str(FEATURE_MISSING)
    v = f"TRY_CAST({x} AS DOUBLE)"
    return v, _quality([(f"{x} IS NULL", FEATURE_MISSING), (f"{v} IS NULL OR NOT isfinite({v})",
                                                            FEATURE_NON_NUMERIC)])


def _json_covariate(x: str) -> tuple[str, list[tuple[str, int]]]:
    """(value, quality checks) of a covariate's JSON value ``x`` (a DuckDB JSON expression, never SQL NULL here)."""
    t = f"json_type({x})"
    v = (f"CASE WHEN {t} = 'BOOLEAN' THEN CASE WHEN CAST({x} AS VARCHAR) = 'true' THEN 1.0 ELSE 0.0 END "
         f"WHEN {t} IN {_NUMERIC_JSON} THEN TRY_CAST({x} AS DOUBLE) END")
    return v, [(f"{t} = 'NULL'", FEATURE_MISSING), (f"{v} IS NULL OR NOT isfinite({v})", FEATURE_NON_NUMERIC)]


_LOOK_UP = -1
"Scan quality of a feature read as JSON text (``_feature_text``): decided by the text, once per distinct text."


def _feature_text(src: _Source, spec: FeatureSpec) -> tuple[str, str] | None:
    """(text, quality) SQL of a feature read from a JSON file, None for other files and SQL covariates.

    Per row the scan keeps only the JSON text of the value (NULL where absent) and what is
    known without reading it: ``FEATURE_NO_OBJECT`` (a nested count whose top-level object is
    missing), ``FEATURE_MISSING`` (no value), else ``_LOOK_UP``. The text is decoded after the
    scan once per distinct text (``_text_decoder``), by the same rules as ``_feature_sql`` and
    ``_covariate_sql``: counts and flags repeat across battles, and a JSON parse per row and
    key was most of the scan's time.
    """
    if src.kind not in ("json", "jsonl") or spec.sql is not None:
        return None
    head = _col(src, spec.path[0])
    no_object_kind = FEATURE_NO_OBJECT if len(spec.path) > 1 and not spec.covariate else None
    if head is None:
        return "NULL::VARCHAR", str(FEATURE_MISSING if no_object_kind is None else no_object_kind)
    if src.types.get(spec.path[0], "JSON").startswith("STRUCT"):  # read as a struct of JSON members
        value, rest, no_object = f"{head}[{_sql_str(spec.path[1])}]", spec.path[2:], f"{head} IS NULL"
    else:
        value, rest, no_object = head, spec.path[1:], f"{head} IS NULL OR json_type({head}) <> 'OBJECT'"
    if rest:
        value = f"json_extract({value}, '${''.join(f'.{_json_key(k)}' for k in rest)}')"
    checks = [(no_object, no_object_kind)] if no_object_kind is not None else []
    checks.append((f"{value} IS NULL", FEATURE_MISSING))
    quality = "CASE " + " ".join(f"WHEN {c} THEN {q}" for c, q in checks) + f" ELSE {_LOOK_UP} END"
    return f"CAST({value} AS VARCHAR)", quality


def _struct_head(src: _Source, spec: FeatureSpec) -> str | None:
    """The top-level column a JSON feature is read from when that column is read as a STRUCT
    of JSON members (``_typed_heads``), else None."""
    if src.kind not in ("json", "jsonl") or spec.sql is not None or spec.path[0] not in src.present:
        return None
    return spec.path[0] if src.types.get(spec.path[0], "JSON").startswith("STRUCT") else None


def _text_quality(src: _Source, features: Sequence[FeatureSpec]) -> list[str | None]:
    """Per feature spec read as JSON text, the SQL of its quality over the scan table (None
    for the others): ``q{k}`` as stored, or, for a member of a STRUCT head, derived from
    what is stored anyway (the member's text ``m{k}``, NULL where absent or null, and
    ``n{h}``, whether the head is NULL) by the rules of ``_feature_text``."""
    heads = list(dict.fromkeys(h for f in features if (h := _struct_head(src, f)) is not None))
    out: list[str | None] = []
    for k, spec in enumerate(features):
        if _feature_text(src, spec) is None:
            out.append(None)
            continue
        head = _struct_head(src, spec)
        if head is None:
            out.append(f"q{k}")
            continue
        nested = len(spec.path) > 1 and not spec.covariate
        no_object = f"WHEN n{heads.index(head)} THEN {FEATURE_NO_OBJECT} " if nested else ""
        out.append(f"CAST(CASE {no_object}WHEN m{k} IS NULL THEN {FEATURE_MISSING} ELSE {_LOOK_UP} END AS TINYINT)")
    return out


def _text_decoder(spec: FeatureSpec, text: str) -> tuple[str, str]:
    """(value, quality) SQL of a feature from its JSON text ``text`` (VARCHAR, not NULL)."""
    x = f"CAST({text} AS JSON)"
    value, checks = _json_covariate(x) if spec.covariate else _json_count(x)
    return value, _quality(checks)


def _json_key(key: str) -> str:
    return '"' + key.replace("\\", "\\\\").replace('"', '\\"').replace("'", "''") + '"'


def _split_top(s: str) -> list[str]:
    out, depth, cur = [], 0, ""
    for ch in s:
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        if ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        out.append(cur.strip())
    return out


def _struct_members(kind: str) -> dict[str, str]:
    inner = kind[kind.index("(") + 1 : kind.rindex(")")]
    members: dict[str, str] = {}
    for part in _split_top(inner):
        if part.startswith('"'):
            end = part.index('"', 1)
            while end + 1 < len(part) and part[end + 1] == '"':
                end = part.index('"', end + 2)
            name, rest = part[1:end].replace('""', '"'), part[end + 1 :]
        else:
            name, _, rest = part.partition(" ")
        members[name] = rest.strip()
    return members


def _nested_type(kind: str, keys: Sequence[str]) -> str | None:
    for key in keys:
        if not kind.startswith("STRUCT"):
            return None
        members = _struct_members(kind)
        if key not in members:
            return None
        kind = members[key]
    return kind


def _raw(src: _Source, name: str) -> str:
    """A column as text, untouched: JSON text for JSON files (DuckDB writes it canonically),
    the field for CSV, the value cast to text for Parquet. Decoded once per distinct value."""
    c = _col(src, name)
    if c is None:
        return "NULL::VARCHAR"
    if src.kind in ("json", "jsonl"):
        return f"CAST({c} AS VARCHAR)"
    if src.kind == "csv" or src.types.get(name) == "VARCHAR":
        return c
    return f"TRY_CAST({c} AS VARCHAR)"


def _scan_sql(src: _Source, filters: BattleFilters, features: Sequence[FeatureSpec], t_min: float | None,
              t_max: float | None, times: bool = True) -> tuple[str, dict[str, Any]]:
    """The CREATE TABLE ... AS SELECT that reads the file once, and its named parameters.

    Per row only what cannot wait: raw names and winner (cleaned per distinct value later),
    the time (unless ``times`` is False: then only a date filter reads it, and ``t`` is
    NULL), and ``f``, the first filter that removes the row (0: none).
    """
    params: dict[str, Any] = {}
    fate = f"CAST({fate_sql(_DuckDialect(src), filters, t_min, t_max, '_mb_t')} AS TINYINT)"
    dated = t_min is not None or t_max is not None or filters.voter_daily_cap is not None
    inner = [f"{_raw(src, 'model_a')} AS _mb_a", f"{_raw(src, 'model_b')} AS _mb_b",
             f"{_raw(src, 'winner')} AS _mb_w",
             f"{_number(src, 'tstamp') if times or dated else 'NULL::DOUBLE'} AS _mb_t", "*"]
    outer = ["_mb_a AS a", "_mb_b AS b", "_mb_w AS w", f"{'_mb_t' if times else 'NULL::DOUBLE'} AS t", f"{fate} AS f"]
    heads = list(dict.fromkeys(h for f in features if (h := _struct_head(src, f)) is not None))
    outer += [f"{_ident(h)} IS NULL AS n{i}" for i, h in enumerate(heads)]
    for k, spec in enumerate(features):
        text = _feature_text(src, spec)
        if text is not None:  # decoded once per distinct text (BattleScan.features)
            outer.append(f"{text[0]} AS m{k}")
            if _struct_head(src, spec) is None:  # else the quality follows from m{k} and n{h}
                outer.append(f"CAST({text[1]} AS TINYINT) AS q{k}")
            continue
        value, quality = _feature_sql(src, spec)
        outer += [f"{value} AS f{k}", f"CAST({quality} AS TINYINT) AS q{k}"]
    if filters.voter_column is not None:
        outer.append(f"{_raw(src, filters.voter_column)} AS v")
        if not times:
            outer[3] = "_mb_t AS t"  # the daily cap reads the day
    if src.kind == "parquet" and filters.voter_column is not None:
        # the voter safeguards mark rows in place: a table, the file's row number as position
        outer.append("file_row_number AS pos")
        return (f"CREATE TABLE scan AS SELECT {', '.join(outer)} FROM (SELECT {', '.join(inner)} FROM {src.relation})",
                params)
    if src.kind == "parquet":
        # Parquet is columnar and numbers its rows: a view reads only the columns each
        # reduction needs, straight from the file, and the position is the file's row number.
        outer.append("file_row_number AS pos")
        view = f"CREATE VIEW scan AS SELECT {', '.join(outer)} FROM (SELECT {', '.join(inner)} FROM {src.relation})"
        return view, params
    sql = (f"CREATE TABLE scan AS SELECT {', '.join(outer)} FROM "
           f"(SELECT {', '.join(inner)} FROM {src.relation})")
    return sql, params


def _json_of(src: _Source, name: str) -> str:
    """A column as DuckDB JSON: as read from JSON files; parsed from text (CSV, a Parquet text
    column); a Parquet struct or map written as JSON; NULL otherwise."""
    c = _col(src, name)
    if c is None:
        return "NULL::JSON"
    if src.kind in ("json", "jsonl"):
        return c
    kind = src.types.get(name, "VARCHAR")
    if src.kind == "csv" or kind == "VARCHAR":
        return f"TRY_CAST({c} AS JSON)"
    if kind.startswith(("STRUCT", "MAP(")) or kind == "JSON":
        return f"to_json({c})"
    return "NULL::JSON"


class _DuckDialect:
    """The rules' primitives (``builder.pairwise.rules``) in DuckDB SQL for one source."""

    def __init__(self, src: _Source) -> None:
        self.src = src

    def text(self, name: str) -> str:
        return _text(self.src, name)

    def number(self, name: str) -> str:
        return _number(self.src, name)

    def integer(self, name: str) -> str:
        return _integer(self.src, name)

    def flag(self, name: str) -> str:
        return _flag(self.src, name)

    def sampled(self) -> str:
        return _sampled(self.src)

    def _tag(self, path: tuple[str, ...]) -> str:
        at = "$" + "".join(f".{_json_key(k)}" for k in path)
        return f"json_extract({_json_of(self.src, 'category_tag')}, {_sql_str(at)})"

    def tag_true(self, path: tuple[str, ...]) -> str:
        return f"CAST({self._tag(path)} AS VARCHAR) = 'true'"

    def tag_true_members(self, path: tuple[str, ...]) -> str:
        v = self._tag(path)
        members = f"map_values(json_transform({v}, '\"MAP(VARCHAR, JSON)\"'))"
        return (f"(CASE WHEN json_type({v}) = 'OBJECT' THEN list_count(list_filter({members}, "
                "lambda e: CAST(e AS VARCHAR) = 'true')) END)")

    def meta_number(self, key: str) -> str:
        v = f"json_extract({_json_of(self.src, 'conv_metadata')}, {_sql_str('$.' + _json_key(key))})"
        return f"(CASE WHEN json_type({v}) IN {_NUMERIC_JSON} THEN TRY_CAST({v} AS DOUBLE) END)"

    def regex(self, expr: str, pattern: str) -> str:
        return f"regexp_matches({expr}, {_sql_str(pattern)})"

    def string(self, value: str) -> str:
        return _sql_str(value)


def _decode(kind: Format, values: Sequence[str | None]) -> list[Any]:
    """Raw text (``_raw``) back to the value: JSON text parsed, other formats as they are."""
    if kind not in ("json", "jsonl"):
        return list(values)
    out: list[Any] = []
    for v in values:
        try:
            out.append(None if v is None else json.loads(v))
        except ValueError:
            out.append(None)
    return out


def _name(value: Any) -> str | None:
    """A model name: a non-blank string, surrounding whitespace removed."""
    if not isinstance(value, str):
        return None
    return value.strip() or None


# --------------------------------------------------------------------------- errors

_POSITION = re.compile(
    r'in file "(?P<file>[^"]*)",? (?:at byte \d+ )?in (?P<unit>line|record/value) (?P<n>\d+):?\s*(?P<msg>.*)', re.S
)
_CSV_LINE = re.compile(r"CSV Error on Line: (?P<n>\d+)\s*\n(?:Original Line:.*?\n)?(?P<msg>(?:.*?\n)*?.*?\S.*?)\n")
_offset: list[int] = []


def _json_position_offset() -> int:
    """How far DuckDB's positions in "Malformed JSON" errors are from the 1-based line/record.

    Measured once on a two-line file whose second line is broken, so the reported position
    stays right whichever way a DuckDB release counts."""
    if not _offset:
        with tempfile.TemporaryDirectory(prefix="modelboards-probe-") as tmp:
            probe = Path(tmp) / "probe.jsonl"
            probe.write_text('{"x": 1}\n{"x" 1}\n{"x": 1}\n', encoding="utf-8")
            try:
                duckdb.connect().execute(f"SELECT count(*) FROM read_json({_sql_str(str(probe))}, "
                                         "format='newline_delimited', columns={x: 'JSON'})").fetchall()
                _offset.append(0)
            except duckdb.Error as exc:
                m = _POSITION.search(str(exc))
                _offset.append(int(m["n"]) - 2 if m else 0)
    return _offset[0]


def _user_error(path: Path | None, exc: duckdb.Error) -> UserError:
    """DuckDB's message as one line naming the file and the record."""
    text = str(exc)
    where = str(path) if path is not None else "<memory>"
    first = text.split("\n", 1)[0]
    first = re.sub(r"^[A-Za-z ]+Error: ", "", first).strip()
    m = _POSITION.search(text)
    if m:
        unit = "line" if m["unit"] == "line" else "record"
        n = int(m["n"])
        msg = m["msg"].split("\n", 1)[0].strip().rstrip(".")
        if "Malformed JSON" in first:
            n = max(1, n - _json_position_offset())
            return UserError(f"{where}: {unit} {n}: invalid JSON ({msg})")
        if "Expected OBJECT" in msg:
            return UserError(f"{where}: {unit} {n}: a battle must be a JSON object ({msg})")
        return UserError(f"{where}: {unit} {n}: {msg}")
    c = _CSV_LINE.search(text)
    if c:
        msg = " ".join(c["msg"].split()).rstrip(".")
        return UserError(f"{where}: line {c['n']}: cannot read CSV battles ({msg})")
    if isinstance(exc, duckdb.OutOfMemoryException):
        return UserError(f"{where}: DuckDB ran out of memory ({first}); raise arena.reader.memory_limit or set "
                         "arena.reader.temp_directory to a folder with space")
    return UserError(f"{where}: cannot read battles: {first}")


def _run(
    con: duckdb.DuckDBPyConnection, path: Path | None, sql: str, params: Mapping[str, Any] | None = None
) -> duckdb.DuckDBPyConnection:
    try:
        return con.execute(sql, dict(params)) if params else con.execute(sql)
    except duckdb.Error as exc:
        raise _user_error(path, exc) from None


def _fetch(con: duckdb.DuckDBPyConnection, path: Path | None, sql: str, how: str) -> Any:
    """Run a query and fetch its result (``arrow``, ``numpy`` or ``one``), errors as UserError."""
    try:
        rel = con.sql(sql)
        if how == "arrow":
            return rel.to_arrow_table()
        if how == "numpy":
            return rel.fetchnumpy()
        rows = rel.fetchall()
        return rows[0] if rows else None
    except duckdb.Error as exc:
        raise _user_error(path, exc) from None


# --------------------------------------------------------------------------- the scan


@contextmanager
def connect(settings: ReaderSettings | None = None, *, in_memory: bool = False) -> Iterator[duckdb.DuckDBPyConnection]:
    """A DuckDB connection with the memory limit and a private spill folder.

    The database itself is a file in that folder: the scan table is written to it
    compressed as the scan goes (names dictionary-encoded, about 8 bytes a battle), so
    memory stays well under the limit however large the dump; the folder is removed after.
    ``in_memory``: no database file (for a Parquet file, whose scan is a view and whose
    tables are a few per pair of models; past the limit DuckDB still spills to the folder),
    which spares creating, checkpointing and syncing one.
    """
    settings = settings or DEFAULT_SETTINGS
    base = Path(settings.temp_directory) if settings.temp_directory else Path(tempfile.gettempdir())
    try:
        base.mkdir(parents=True, exist_ok=True)
        spill = Path(tempfile.mkdtemp(prefix="modelboards-duckdb-", dir=base))
    except OSError as exc:
        raise UserError(f"arena.reader.temp_directory {base}: cannot create a spill folder: {exc}") from None
    config: dict[str, Any] = {
        "memory_limit": settings.memory_limit,
        "temp_directory": str(spill),
        "preserve_insertion_order": True,  # rowid of the scan table = position in the file
    }
    if settings.threads:
        config["threads"] = int(settings.threads)
    try:
        con = duckdb.connect(":memory:" if in_memory else str(spill / "scan.duckdb"), config=config)
    except duckdb.Error as exc:
        shutil.rmtree(spill, ignore_errors=True)
        msg = str(exc).split("\n", 1)[0]
        raise UserError(f"arena.reader: invalid DuckDB setting ({msg})") from None
    try:
        con.execute("SET enable_progress_bar = false")  # a per-connection option
        yield con
    finally:
        con.close()
        shutil.rmtree(spill, ignore_errors=True)


@dataclass(frozen=True, eq=False, slots=True)
class _TextTable:
    """The distinct texts of one feature, decoded: ``value``/``quality`` per text, found by
    the text's 64-bit ``hash`` (``h``, sorted). Every kept battle's text is one of them, so
    within them the hash names the text exactly once no two share it. ``slot`` maps the low
    bits of a hash (``mask``, about eight slots a text) to a text with those bits; a hash
    whose slot holds another text is found by binary search."""

    h: np.ndarray  # uint64, sorted
    value: np.ndarray
    quality: np.ndarray
    mask: np.uint64
    slot: np.ndarray  # int32 (mask + 1,): index of a text with those low bits, 0 where none

    @staticmethod
    def of(h: np.ndarray, value: np.ndarray, quality: np.ndarray) -> _TextTable | None:
        """The table of these texts (hash, value, quality per text); None when two share a hash."""
        order = np.argsort(h, kind="stable")
        h, value, quality = h[order], value[order], quality[order]
        if h.size > 1 and bool((h[1:] == h[:-1]).any()):
            return None
        bits = max(4, int(h.size).bit_length() + 3)
        mask = np.uint64((1 << bits) - 1)
        slot = np.zeros(1 << bits, dtype=np.int32)
        slot[(h & mask).astype(np.int64)] = np.arange(h.size, dtype=np.int32)
        return _TextTable(h, value, quality, mask, slot)

    def look_up(self, h: np.ndarray) -> np.ndarray:
        """Text index of each hash (each the hash of one of the texts)."""
        at = self.slot[(h & self.mask).astype(np.int64)]
        if self.h.size == 0:
            return at
        miss = np.flatnonzero(self.h[at] != h)
        if miss.size:
            at[miss] = np.searchsorted(self.h, h[miss])
        return at


class BattleScan:
    """One battles file scanned into DuckDB; the methods are SQL reductions of that scan.

    Use as a context manager (``with scan_battles(path) as scan:``); the connection and its
    spill folder go away on exit. ``report`` and ``models`` are known once it is open.
    """

    def __init__(self, con: duckdb.DuckDBPyConnection, src: _Source, filters: BattleFilters,
                 features: Sequence[FeatureSpec], times: bool = True) -> None:
        self._con = con
        self._src = src
        self.filters = filters
        self.features_spec = tuple(features)
        self._quality = _text_quality(src, self.features_spec)  # SQL of each text feature's quality
        self.path = src.path
        self.has_tstamp = times and "tstamp" in src.present
        self._pos = "pos" if src.kind == "parquet" else "rowid"  # position of a row in the file
        self._is_view = bool(con.execute("SELECT count(*) FROM duckdb_views() WHERE view_name = 'scan'"
                                         ).fetchall()[0][0])  # a Parquet file read through a view
        self.source_name = src.path.name if src.path is not None else "<memory>"
        self._extra_filters: list[str] = []
        self.voter_test: VoterTest | None = None
        self._summarise()
        if filters.anomaly_fpr is not None:
            self.drop_anomalous_voters(filters.anomaly_fpr, filters.anomaly_min_votes)

    # -- the one aggregation: report, model table, pair counts
    def _summarise(self) -> None:
        for drop in ("TABLE IF EXISTS groups", "TYPE IF EXISTS raw_name", "TYPE IF EXISTS raw_winner"):
            self._q(f"DROP {drop}")  # a re-summary after the anomalous-voter test
        self._q(f"CREATE TABLE groups AS SELECT a, b, w, f, count(*) AS n, min({self._pos}) AS p "
                "FROM scan GROUP BY ALL")
        # Distinct raw values become ENUM types, so every later result is small integers;
        # each value is cleaned once, here.
        self._q("CREATE TYPE raw_name AS ENUM (SELECT DISTINCT v FROM (SELECT a AS v FROM groups UNION ALL "
                "SELECT b FROM groups) WHERE v IS NOT NULL ORDER BY v)")
        self._q("CREATE TYPE raw_winner AS ENUM (SELECT DISTINCT w FROM groups WHERE w IS NOT NULL ORDER BY w)")
        self._raw_names: list[str] = list(self._fetch("SELECT enum_range(NULL::raw_name)", "one")[0] or [])
        self._raw_winners: list[str] = list(self._fetch("SELECT enum_range(NULL::raw_winner)", "one")[0] or [])
        g = self._fetch(f"SELECT {self._CODED}, f, n, p FROM groups", "numpy")
        sm = summarise_groups(
            _decode(self._src.kind, self._raw_names), _decode(self._src.kind, self._raw_winners),
            *(np.asarray(g[c], dtype=np.int64) for c in ("ea", "eb", "ew", "f", "n", "p")),
            enabled=[*enabled_filters(self.filters), *self._extra_filters], source=self.source_name,
            where=str(self.path or "<memory>"))
        self.report, self.models = sm.report, sm.models
        self._all_unfiltered_kept = sm.all_unfiltered_kept  # no bad row among f = 0: nothing to decode per row
        self._raw_code, self._winner_code, self._pair_groups = sm.raw_code, sm.winner_code, sm.pair_groups

    def _q(self, sql: str, params: Mapping[str, Any] | None = None) -> duckdb.DuckDBPyConnection:
        return _run(self._con, self.path, sql, params)

    def drop_anomalous_voters(self, fpr: float, min_votes: int = 20) -> VoterTest | None:
        """Flag and remove the voters whose votes the fitted model finds too unlikely.

        The test: fit Bradley-Terry on the kept battles; for each voter with at least
        ``min_votes`` decisive votes (a winner, not a tie), sum the log-likelihood of the
        observed outcomes, ``L = sum log p_obs`` with ``p = 1 / (1 + base ** ((r_b - r_a) /
        scale))``. Under the model (the voter votes as the population does) ``L`` has mean
        ``E = sum p log p + (1 - p) log(1 - p)`` and variance ``V = sum p (1 - p) (log(p / (1 -
        p)))**2`` (independent votes); a voter is anomalous when ``z = (L - E) / sqrt(V)`` is
        below the ``fpr`` quantile of the standard normal, so an honest voter is flagged with
        probability about ``fpr``. A voter who always votes for one model, or at random, has
        votes the model finds unlikely. The per-voter sums are one SQL aggregation over the
        scan; a flagged voter's kept votes get the ``anomalous_voter`` fate and the report,
        pair counts and battles are recomputed. None (and nothing removed) when the file names
        no voter. Battles between models without a finite rating are not scored.
        """
        if self.filters.voter_column is None:
            return None
        import pyarrow as pa
        from scipy.stats import norm

        from builder.pairwise.bt import fit_bt

        fit = fit_bt(self.pair_counts(), on_unidentifiable="drop")
        codes = self._raw_code[:-1]
        rating = np.where(codes >= 0, fit.ratings[np.maximum(codes, 0)], np.nan)
        ok = np.isfinite(rating)
        self._con.register("_mb_rating", pa.table({"raw": pa.array([n for n, k in zip(self._raw_names, ok,
                                                                                        strict=True) if k]),
                                                    "r": pa.array(rating[ok])}))
        wins = [(raw, int(code)) for raw, code in zip(self._raw_winners, self._winner_code[:-1], strict=True)
                if code in (0, 1)]
        self._con.register("_mb_outcome", pa.table({"raw": pa.array([w for w, _ in wins], type=pa.string()),
                                                     "o": pa.array([o for _, o in wins], type=pa.int8())}))
        # p: the model's probability that side A wins, kept off 0 and 1 for the logarithms
        p = f"1.0 / (1.0 + pow({float(fit.base)!r}, (rb.r - ra.r) / {float(fit.scale)!r}))"
        per_voter = self._fetch(
            "SELECT v, count(*) AS n, sum(CASE WHEN o = 0 THEN ln(q) ELSE ln(1 - q) END) AS ll, "
            "sum(q * ln(q) + (1 - q) * ln(1 - q)) AS e, sum(q * (1 - q) * pow(ln(q / (1 - q)), 2)) AS var "
            f"FROM (SELECT s.v, w.o, greatest(least({p}, 1 - 1e-12), 1e-12) AS q FROM scan s "
            "JOIN _mb_rating ra ON s.a = ra.raw JOIN _mb_rating rb ON s.b = rb.raw JOIN _mb_outcome w ON s.w = w.raw "
            "WHERE s.f = 0 AND s.v IS NOT NULL AND s.a <> s.b) GROUP BY v", "numpy")
        n = np.asarray(per_voter["n"], dtype=np.int64)
        ll, e, var = (np.asarray(per_voter[c], dtype=np.float64) for c in ("ll", "e", "var"))
        tested = n >= min_votes
        z = np.full(n.shape, np.nan)
        z[tested] = (ll[tested] - e[tested]) / np.sqrt(np.maximum(var[tested], 1e-300))
        threshold = float(norm.ppf(fpr))
        flagged = tested & (z < threshold)
        voters = list(per_voter["v"])
        bad = [voters[k] for k in np.flatnonzero(flagged)]
        self._con.register("_mb_flagged", pa.table({"v": pa.array(bad, type=pa.string())}))
        before = self.report.rows_kept
        self._q(f"UPDATE scan SET f = {FILTER_STATUS['anomalous_voter']} "
                "WHERE f = 0 AND v IN (SELECT v FROM _mb_flagged)")
        self._extra_filters.append("anomalous_voter")
        self._summarise()
        for name in ("_mb_rating", "_mb_outcome", "_mb_flagged"):
            self._con.unregister(name)
        names = [str(x) for x in _decode(self._src.kind, bad)]
        self.voter_test = VoterTest(column=self.filters.voter_column, fpr=fpr, min_votes=min_votes,
                                    threshold=threshold, voters=len(voters), tested=int(tested.sum()),
                                    flagged=tuple(sorted(names)), rows_removed=before - self.report.rows_kept)
        return self.voter_test
    def summary(self) -> BattleSummary:
        """The kept battles' outcome distribution and model appearances (from the grouped scan)."""
        ca, cb, o, n = self._pair_groups
        return compute_battle_summary(self.models, ca, cb, o, n)

    def _fetch(self, sql: str, how: str) -> Any:
        return _fetch(self._con, self.path, sql, how)

    def pair_counts(self) -> PairCounts:
        """Kept battles aggregated per unordered pair: ``bt.count_pairs`` of ``battles()``."""
        ca, cb, o, n = self._pair_groups
        key, cell = _pair_cells(ca, cb, o, len(self.models))
        return _pair_counts(self.models, key, cell, n)

    _CODED = ("coalesce(CAST(enum_code(CAST(a AS raw_name)) AS INTEGER), -1) AS ea, "
              "coalesce(CAST(enum_code(CAST(b AS raw_name)) AS INTEGER), -1) AS eb, "
              "coalesce(CAST(enum_code(CAST(w AS raw_winner)) AS INTEGER), -1) AS ew")

    def _decode_rows(
        self, ea: np.ndarray, eb: np.ndarray, ew: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Raw ENUM indices -> model codes and outcome, and which rows are kept battles."""
        ca, cb, o = self._raw_code[ea], self._raw_code[eb], self._winner_code[ew]
        keep = (ca >= 0) & (cb >= 0) & (ca != cb) & (o >= 0)
        return ca, cb, o, keep

    def battles(self) -> Battles:
        """The kept battles, int-coded, in file order (for online Elo, history and the styled fit).

        Read in batches into arrays of the kept battles' size (9 bytes a battle, 17 with
        times), so memory never holds the query's whole result besides them."""
        n = self.report.rows_kept
        a, b = np.empty(n, dtype=np.int32), np.empty(n, dtype=np.int32)
        o = np.empty(n, dtype=np.int8)
        t = np.empty(n) if self.has_tstamp else None
        times = ", coalesce(t, 'NaN'::DOUBLE) AS t" if t is not None else ""
        at = 0
        for cols in self._numpy_batches(f"{self._CODED}{times}", whole_view=True):
            ca, cb, co, keep = self._decode_rows(cols["ea"], cols["eb"], cols["ew"])
            m = int(keep.sum())
            a[at:at + m], b[at:at + m], o[at:at + m] = ca[keep], cb[keep], co[keep]
            if t is not None:
                t[at:at + m] = cols["t"][keep]
            at += m
        if at != n:
            raise RuntimeError(f"battles cover {at} rows, the scan kept {n}")
        return Battles(models=self.models, model_a=a, model_b=b, outcome=o, tstamp=t, report=self.report)

    def period_counts(self, period: Period) -> PeriodCounts:
        """Dated kept battles per time bucket, pair and outcome cell, in one grouped query."""
        if not self.has_tstamp:
            if "tstamp" in self._src.present:
                raise ValueError("period_counts on a scan opened with times=False")
            raise UserError(f"{self.source_name}: history needs timestamps (no 'tstamp' column)")
        day = "CAST(floor(t / 86400.0) AS BIGINT)"
        bucket = {
            "day": day,
            "week": f"CAST(floor(({day} + 3) / 7.0) AS BIGINT)",  # 1970-01-01 was a Thursday; weeks start Monday
            "month": f"((year(DATE '1970-01-01' + CAST({day} AS INTEGER)) - 1970) * 12 "
                     f"+ month(DATE '1970-01-01' + CAST({day} AS INTEGER)) - 1)",
        }.get(period)
        if bucket is None:
            raise UserError(f"unknown history period {period!r} (use day, week or month)")
        res = self._fetch(
            f"SELECT {bucket} AS period, {self._CODED}, count(*) AS n, max(t) AS last "
            "FROM scan WHERE f = 0 AND isfinite(t) GROUP BY ALL",
            "numpy",
        )
        ca, cb, o, keep = self._decode_rows(np.asarray(res["ea"]), np.asarray(res["eb"]), np.asarray(res["ew"]))
        if not keep.any():
            raise UserError(f"{self.source_name}: history needs timestamps (every tstamp is empty)")
        per = np.asarray(res["period"], dtype=np.int64)[keep]
        n = np.asarray(res["n"], dtype=np.int64)[keep]
        key, cell = _pair_cells(ca[keep], cb[keep], o[keep], len(self.models))
        # Several raw spellings can share a (period, pair, cell): add them up.
        groups = np.stack([per, key, cell])
        uniq, inv = np.unique(groups, axis=1, return_inverse=True)
        count = np.bincount(inv.ravel(), weights=n, minlength=uniq.shape[1]).astype(np.int64)
        dated = int(n.sum())
        return PeriodCounts(
            models=self.models,
            period_kind=period,
            period=uniq[0].copy(),
            key=uniq[1].copy(),
            cell=uniq[2].copy(),
            count=count,
            last_tstamp=float(np.asarray(res["last"], dtype=np.float64)[keep].max()),
            undated=self.report.rows_kept - dated,
        )

    def features(self) -> dict[str, FeatureColumn]:
        """The requested feature columns for the kept battles, in ``battles()`` order
        (``feature_batches`` gathered into one array per feature)."""
        out: dict[str, FeatureColumn] = {}
        k = len(self.features_spec)
        if not k:
            return out
        n = self.report.rows_kept
        values = np.empty((k, n))
        quality = np.empty((k, n), dtype=np.int8)
        first: list[int | None] = [None] * k
        at = 0
        for pos, cols in self.feature_batches():
            m = pos.size
            for j, (v, q) in enumerate(cols):
                values[j, at:at + m] = v
                quality[j, at:at + m] = q
                if first[j] is None:
                    bad = np.flatnonzero(np.isin(q, FEATURE_MALFORMED))
                    first[j] = int(pos[bad[0]]) + 1 if bad.size else None
            at += m
        if at != n:
            raise RuntimeError(f"feature columns cover {at} battles, the scan kept {n}")
        for j, spec in enumerate(self.features_spec):
            out[spec.name] = FeatureColumn(spec.name, values[j], quality[j], first[j])
        return out

    def feature_batches(self) -> Iterator[tuple[np.ndarray, list[tuple[np.ndarray, np.ndarray]]]]:
        """The requested features of the kept battles in ``battles()`` order, streamed in
        batches of about ``_BATCH_ROWS`` battles: ``(pos, [(values, quality), ...])``, ``pos``
        the 0-based record of each battle in the file (int64), then per feature spec its
        float64 values (NaN where the quality is not ``FEATURE_OK``) and int8 quality codes.

        One query over the scan; a caller that folds the batches into what it needs holds one
        batch of every feature, not a whole column of each."""
        k = len(self.features_spec)
        if not k:
            return
        tables = self._text_tables()  # under the reader's memory limit: aggregations
        with contextlib.nullcontext() if self._is_view else self._reading_back():
            for pos, _, cols in self._feature_batches(k, tables):
                yield pos, cols

    def battle_feature_batches(self) -> Iterator[tuple[np.ndarray, np.ndarray, list[tuple[np.ndarray, np.ndarray]]]]:
        """``feature_batches`` with each batch's battles: ``(pos, battles, cols)``, ``battles``
        int64 shape (3, m): model code a, model code b and outcome (as ``battles()``), so one
        pass over the scan gives both."""
        tables = self._text_tables()  # under the reader's memory limit: aggregations
        with contextlib.nullcontext() if self._is_view else self._reading_back():
            for pos, battles, cols in self._feature_batches(len(self.features_spec), tables, coded=True):
                assert battles is not None
                yield pos, battles, cols

    def _feature_batches(self, k: int, text_tables: list[_TextTable | str | None], coded: bool = False
                         ) -> Iterator[tuple[np.ndarray, np.ndarray | None, list[tuple[np.ndarray, np.ndarray]]]]:
        sel = []
        tables: list[_TextTable | None] = []
        for j, (spec, table) in enumerate(zip(self.features_spec, text_tables, strict=True)):
            tables.append(table if isinstance(table, _TextTable) else None)
            qs = self._quality[j]
            if isinstance(table, _TextTable):  # the text's hash; value and quality looked up per distinct text
                sel.append(f"{qs} AS c{j}, coalesce(hash(m{j}), 0) AS e{j}")
            elif table == "rows":  # too many distinct texts for a table: decoded per row
                value, quality = _text_decoder(spec, f"m{j}")
                sel.append(f"coalesce(CASE WHEN {qs} = {_LOOK_UP} THEN {value} END, 'NaN'::DOUBLE) AS v{j}, "
                           f"CAST(CASE WHEN {qs} = {_LOOK_UP} THEN {quality} ELSE {qs} END AS TINYINT) AS c{j}")
            else:
                sel.append(f"coalesce(f{j}, 'NaN'::DOUBLE) AS v{j}, q{j} AS c{j}")
        codes = "" if self._all_unfiltered_kept and not coded else f"{self._CODED}, "
        for batch in self._numpy_batches(f"{codes}" + ", ".join([f"{self._pos} AS pos", *sel])):
            keep: np.ndarray | slice = slice(None)
            battles = None
            if codes:
                ca, cb, o, kept = self._decode_rows(batch["ea"], batch["eb"], batch["ew"])
                keep = slice(None) if self._all_unfiltered_kept else kept
                if coded:
                    battles = np.stack([ca[keep], cb[keep], o[keep]])
            cols = []
            for j in range(k):
                q = batch[f"c{j}"][keep].astype(np.int8)
                table = tables[j]
                if table is None:
                    v = batch[f"v{j}"][keep].astype(np.float64)
                else:
                    look = np.flatnonzero(q == _LOOK_UP)
                    at = table.look_up(np.asarray(batch[f"e{j}"], dtype=np.uint64)[keep][look])
                    v = np.full(q.shape, np.nan)
                    v[look] = table.value[at]
                    q[look] = table.quality[at]
                v[q != FEATURE_OK] = np.nan
                cols.append((v, q))
            yield np.asarray(batch["pos"][keep], dtype=np.int64), battles, cols

    def _numpy_batches(self, select: str, whole_view: bool = False) -> Iterator[dict[str, np.ndarray]]:
        """``SELECT {select} FROM scan WHERE f = 0`` in file order, as numpy columns, in batches:
        ranges of ``rowid`` over a scan table (DuckDB skips the other row groups), record
        batches through Arrow over a Parquet view (``whole_view``: one batch, no Arrow)."""
        try:
            if not self._is_view:
                with self._reading_back():
                    for start in range(0, self.report.rows_read, _READ_BACK_ROWS):
                        res = self._con.execute(f"SELECT {select} FROM scan WHERE f = 0 AND rowid >= {start} "
                                                f"AND rowid < {start + _READ_BACK_ROWS}").fetchnumpy()
                        yield {name: np.asarray(v) for name, v in res.items()}
                return
            if whole_view:
                res = self._con.execute(f"SELECT {select} FROM scan WHERE f = 0").fetchnumpy()
                yield {name: np.asarray(v) for name, v in res.items()}
                return
            for batch in self._con.sql(f"SELECT {select} FROM scan WHERE f = 0").to_arrow_reader(_BATCH_ROWS):
                yield {name: _numpy_of(batch.column(name)) for name in batch.schema.names}
        except duckdb.Error as exc:
            raise _user_error(self.path, exc) from None

    @contextmanager
    def _reading_back(self) -> Iterator[None]:
        """While the scan table is read back into the caller's per-battle arrays, DuckDB needs
        little memory: under a small limit (and flushing its allocator, after a task and after
        dropping many blocks at once) it drops the blocks the scan left cached and hands the
        memory back, which would otherwise sit beside those arrays."""
        names = ("memory_limit", "allocator_flush_threshold", "allocator_bulk_deallocation_flush_threshold")
        before = self._fetch("SELECT " + ", ".join(f"current_setting('{k}')" for k in names), "one")
        for name, value in zip(names, _READ_BACK_SETTINGS, strict=True):
            self._q(f"SET {name} = {_sql_str(value)}")
        try:
            yield
        finally:
            for name, value in zip(names, before, strict=True):
                self._con.execute(f"SET {name} = {_sql_str(str(value))}")

    def _text_tables(self) -> list[_TextTable | str | None]:
        """Per feature spec read as JSON text (``_feature_text``): its distinct texts among the
        kept battles, decoded (``_TextTable``), or ``"rows"`` past ``_DISTINCT_TEXTS`` distinct
        texts; None for a spec read as a value."""
        out: list[_TextTable | str | None] = [None] * len(self.features_spec)
        text = [j for j, spec in enumerate(self.features_spec) if _feature_text(self._src, spec) is not None]
        if not text:
            return out
        for j in text:
            value, quality = _text_decoder(self.features_spec[j], "m")
            res = self._fetch(f"SELECT hash(m) AS h, coalesce({value}, 'NaN'::DOUBLE) AS v, "
                              f"CAST({quality} AS TINYINT) AS q FROM (SELECT DISTINCT m{j} AS m FROM scan "
                              f"WHERE f = 0 AND {self._quality[j]} = {_LOOK_UP} LIMIT {_DISTINCT_TEXTS + 1})", "numpy")
            h = np.asarray(res["h"], dtype=np.uint64)
            if h.size > _DISTINCT_TEXTS:
                out[j] = "rows"
                continue
            table = _TextTable.of(h, np.asarray(res["v"], dtype=np.float64), np.asarray(res["q"], dtype=np.int8))
            out[j] = "rows" if table is None else table
        return out

    def locate(self, record: int) -> str:
        """Where the 1-based ``record`` (``FeatureColumn.first_malformed``) is in the file:
        ``line N`` for JSON Lines and JSON arrays (``record N`` where the file cannot be read
        as text here: zstd), ``row N`` for Parquet."""
        if self.path is None or self._src.kind not in ("json", "jsonl"):
            return f"row {record}"
        line = _record_line(self.path, self._src.kind, record)
        return f"record {record}" if line is None else f"line {line}"

    def features_arrow(self) -> pa.Table:
        """The feature values (null where not usable) as an Arrow table, one row per kept battle."""
        import pyarrow as pa

        cols = self.features()
        return pa.table({name: pa.array(c.values, mask=c.quality != FEATURE_OK) for name, c in cols.items()})


def _record_line(path: Path, kind: Format, record: int) -> int | None:
    """The 1-based line where record ``record`` (1-based) of a JSON Lines file (non-blank lines)
    or a JSON array (its elements) starts; read up to that record only. None for zstd files."""
    compression = _COMPRESSION.get(path.suffix.lower())
    if compression == "zstd":
        return None
    opener = gzip.open if compression == "gzip" else open
    with opener(path, "rt", encoding="utf-8-sig") as f:
        if kind == "jsonl":
            seen = 0
            for line_no, text in enumerate(f, 1):
                if text.strip():
                    seen += 1
                    if seen == record:
                        return line_no
            return None
        return _array_element_line(f, record)


def _array_element_line(f: Any, record: int) -> int | None:
    """Line of the ``record``-th element of the JSON array read from text stream ``f``: elements
    are decoded one after another from a growing buffer (C speed, one element in memory)."""
    decoder = json.JSONDecoder()
    buf, pos, lines, seen, started = "", 0, 1, 0, False
    while True:
        while True:  # skip separators, counting lines
            while pos < len(buf) and buf[pos] in " \t\r\n,[":
                if buf[pos] == "\n":
                    lines += 1
                elif buf[pos] == "[":
                    if started:
                        break
                    started = True
                pos += 1
            if pos < len(buf):
                break
            chunk = f.read(1 << 20)
            if not chunk:
                return None
            buf, pos = buf[pos:] + chunk, 0
        if buf[pos] == "]":
            return None
        seen += 1
        if seen == record:
            return lines
        while True:  # decode the element to skip it (reading more until it is whole)
            try:
                _, end = decoder.raw_decode(buf, pos)
            except json.JSONDecodeError:
                chunk = f.read(1 << 20)
                if not chunk:
                    return None
                buf, pos = buf[pos:] + chunk, 0
                continue
            lines += buf.count("\n", pos, end)
            pos = end
            break



@dataclass(frozen=True, eq=False, slots=True)
class GroupSummary:
    """The report, model table and kept pair groups of one read, from its grouped raw values."""

    report: BattleReport
    models: tuple[str, ...]
    raw_code: np.ndarray  # raw name index -> model code (-1: not a usable name), one more slot for null
    winner_code: np.ndarray  # raw winner index -> outcome code (-1: unknown), one more slot for null
    pair_groups: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]  # kept groups: code a, code b, outcome, rows
    all_unfiltered_kept: bool  # no bad row among the rows no filter removed


def summarise_groups(raw_names: Sequence[Any], raw_winners: Sequence[Any], ia: np.ndarray, ib: np.ndarray,
                     iw: np.ndarray, fate: np.ndarray, n: np.ndarray, pos: np.ndarray, *, enabled: Sequence[str],
                     source: str, where: str) -> GroupSummary:
    """Clean the distinct raw values once and settle each group's fate (any engine's GROUP BY).

    ``raw_names`` / ``raw_winners``: the distinct raw values, decoded (a JSON value as
    Python); ``ia``/``ib``/``iw`` per group (a, b, w, f): the index of its raw values (the
    length of the list for null), ``fate`` its filter fate, ``n`` its rows and ``pos`` its
    first row's position in the file. A row's fate: 1 ``missing_model``, 2 ``same_model``, 3
    ``unknown_winner`` (the first that applies), else its filter's, else kept. Model codes
    follow first appearance (the names seen as ``model_a`` first, then those seen only as
    ``model_b``), models without a kept battle left out.
    """
    clean = [_name(v) for v in raw_names]
    wcode = np.array([WINNER_CODES.get(v, -1) if isinstance(v, str) else -1 for v in raw_winners] + [-1],
                     dtype=np.int64)
    o = wcode[iw]  # -1 (the appended slot) for null
    rows_read = int(n.sum())
    if rows_read == 0:
        raise UserError(f"{where}: no battles in file (empty input)")
    names = sorted({m for m in clean if m is not None})
    name_id = {m: k for k, m in enumerate(names)}
    raw_to_name = np.array([name_id[m] if m is not None else -1 for m in clean] + [-1], dtype=np.int64)
    na, nb = raw_to_name[ia], raw_to_name[ib]
    big = np.iinfo(np.int64).max
    first = np.full((2, len(names)), big)
    np.minimum.at(first[0], na[na >= 0], pos[na >= 0])
    np.minimum.at(first[1], nb[nb >= 0], pos[nb >= 0])

    unfiltered = int(n[fate == 0].sum())  # rows with f = 0: the kept battles and the bad rows among them
    fate = np.where((na < 0) | (nb < 0), 1, np.where(na == nb, 2, np.where(o < 0, 3, fate)))
    by_fate = np.bincount(fate, weights=n, minlength=max(FILTER_STATUS.values()) + 1)
    bad = {kind: int(by_fate[k + 1]) for k, kind in enumerate(BAD_KINDS)}
    removed = {name: int(by_fate[code]) for name, code in FILTER_STATUS.items() if name in enabled}
    kept = int(by_fate[0])
    if kept == 0:
        why = ", ".join(f"{k} {v}" for k, v in {**bad, **removed}.items() if v)
        raise UserError(f"{where}: no battles left of {rows_read} rows ({why or 'none valid'})")
    report = BattleReport(source, rows_read, bad, removed, kept)

    keep = fate == 0
    used = np.zeros(len(names), dtype=bool)
    used[na[keep]] = True
    used[nb[keep]] = True
    side = np.where(first[0] < big, 0, 1)
    at = np.where(side == 0, first[0], first[1])
    order = [k for k in np.lexsort((at, side)) if used[k]]
    models = tuple(names[k] for k in order)
    code_of_name = np.full(len(names) + 1, -1, dtype=np.int64)
    code_of_name[np.array(order, dtype=np.int64)] = np.arange(len(order))
    raw_code = np.append(code_of_name[raw_to_name[:-1]], -1)
    return GroupSummary(report, models, raw_code, wcode,
                        (code_of_name[na[keep]], code_of_name[nb[keep]], o[keep], n[keep]), unfiltered == kept)

def _pair_cells(ca: np.ndarray, cb: np.ndarray, o: np.ndarray, m: int) -> tuple[np.ndarray, np.ndarray]:
    """Pair key ``lo * m + hi`` and outcome cell (0 lo won, 1 hi won, 2 tie) per row."""
    lo, hi = np.minimum(ca, cb), np.maximum(ca, cb)
    swapped = ca > cb
    cell = np.where(o == 0, np.where(swapped, 1, 0), np.where(o == 1, np.where(swapped, 0, 1), 2))
    return lo * m + hi, cell


def _pair_counts(models: tuple[str, ...], key: np.ndarray, cell: np.ndarray, n: np.ndarray) -> PairCounts:
    m = len(models)
    uniq, inv = np.unique(key, return_inverse=True)
    flat = np.bincount(inv * 3 + cell, weights=n.astype(np.float64), minlength=uniq.size * 3).reshape(uniq.size, 3)
    return PairCounts(models, uniq // m, uniq % m, flat[:, 0].copy(), flat[:, 1].copy(), flat[:, 2].copy())


def _cap_voters(con: duckdb.DuckDBPyConnection, path: Path | None, filters: BattleFilters) -> None:
    """The per-voter daily cap: of each voter's votes left by the other filters on one UTC day
    (votes without a time form one more "day"), the first ``voter_daily_cap`` in file order
    stay; the rest get the ``voter_cap`` fate. Votes without a voter are not capped."""
    if filters.voter_column is None or filters.voter_daily_cap is None:
        return
    pos = "pos" if "pos" in [r[0] for r in con.execute("DESCRIBE scan").fetchall()] else "rowid"
    _run(con, path, f"UPDATE scan SET f = {FILTER_STATUS['voter_cap']} WHERE {pos} IN (SELECT p FROM ("
                    f"SELECT {pos} AS p, {voter_cap_rank(pos)} AS k "
                    f"FROM scan WHERE f = 0 AND v IS NOT NULL) WHERE k > {int(filters.voter_daily_cap)})")


def _utc_seconds(day: dt.date) -> float:
    return dt.datetime(day.year, day.month, day.day, tzinfo=dt.UTC).timestamp()


def _bounds(filters: BattleFilters) -> tuple[float | None, float | None]:
    t_min = _utc_seconds(filters.min_date) if filters.min_date else None
    t_max = _utc_seconds(filters.max_date) + 86_400.0 if filters.max_date else None
    return t_min, t_max


@contextmanager
def scan_battles(
    path: str | Path,
    filters: BattleFilters = NO_FILTERS,
    settings: ReaderSettings = DEFAULT_SETTINGS,
    features: Sequence[FeatureSpec] = (),
    *,
    times: bool = True,
) -> Iterator[BattleScan]:
    """Scan a battles file once (see the module docstring); yields the ``BattleScan``.

    ``times=False``: the caller only counts (``pair_counts``, the report), so the time of
    each battle is not read (a date filter still reads it), which spares a JSON or CSV scan
    a conversion and a column; ``battles()`` then has no times and ``period_counts`` refuses.

    Raises ``UserError`` for a missing or unreadable file, malformed input, a missing
    required column (or a column a requested filter needs), an empty file, or no rows left.
    """
    path = Path(path)
    if not path.is_file():
        raise UserError(f"{path}: battles file not found")
    parquet = bool(path.suffixes) and path.suffixes[-1].lower() in (".parquet", ".pq")  # read through a view
    with connect(settings, in_memory=True) if parquet else connect(settings) as con:
        asked = filters
        src = _source(con, path, filters, features, times)
        filters = filters.resolve(src.present)
        _check_columns(src, filters)
        sql, params = _scan_sql(src, filters, features, *_bounds(filters), times=times)
        if not _typed_scan(con, path, src, sql, params):
            src = _source(con, path, asked, features, times, typed_json=False)
            sql, params = _scan_sql(src, filters, features, *_bounds(filters), times=times)
            _run(con, path, sql, params)
        _cap_voters(con, path, filters)
        yield BattleScan(con, src, filters, features, times)


def _typed_scan(con: duckdb.DuckDBPyConnection, path: Path, src: _Source, sql: str, params: dict[str, Any]) -> bool:
    """Run the scan; False when a JSON file's typed read (``_typed_heads``) failed and the scan
    must be redone with every column as JSON (a typed column that is not an object in some
    record, a repeated key, or any other error, which the plain read then reports as usual)."""
    if not (src.kind in ("json", "jsonl") and src.types):
        _run(con, path, sql, params)
        return True
    try:
        con.execute(sql, dict(params)) if params else con.execute(sql)
    except (duckdb.OutOfMemoryException, duckdb.InterruptException) as exc:
        raise _user_error(path, exc) from None
    except duckdb.Error:
        return False
    return True


@contextmanager
def scan_table(table: pa.Table, filters: BattleFilters = NO_FILTERS, source: str = "<memory>",
               settings: ReaderSettings = DEFAULT_SETTINGS) -> Iterator[BattleScan]:
    """``scan_battles`` over an in-memory Arrow table (columns as in a Parquet file)."""
    with connect(settings) as con:
        con.register("input_table", table)
        described = con.execute("DESCRIBE SELECT * FROM input_table").fetchall()
        src = _Source(None, "arrow", "input_table", frozenset(r[0] for r in described),
                      {r[0]: r[1] for r in described}, "table")
        filters = filters.resolve(src.present)
        _check_columns(src, filters)
        sql, params = _scan_sql(src, filters, (), *_bounds(filters))
        _run(con, None, sql, params)
        _cap_voters(con, None, filters)
        scan = BattleScan(con, src, filters, ())
        scan.source_name = source
        scan.report = BattleReport(source, scan.report.rows_read, scan.report.bad_rows, scan.report.removed,
                                   scan.report.rows_kept)
        yield scan


def read_battles(path: str | Path, filters: BattleFilters = NO_FILTERS,
                 settings: ReaderSettings = DEFAULT_SETTINGS) -> Battles:
    """The kept battles of a file, int-coded, in file order (``BattleScan.battles``)."""
    with scan_battles(path, filters, settings) as scan:
        return scan.battles()


def battles_from_columns(
    model_a: Sequence[str] | np.ndarray,
    model_b: Sequence[str] | np.ndarray,
    winner: Sequence[str] | np.ndarray,
    tstamp: Sequence[float] | np.ndarray | None = None,
    source: str = "<memory>",
) -> Battles:
    """Encode in-memory columns (no filters; bad rows counted and dropped as when reading)."""
    import pyarrow as pa

    cols: dict[str, pa.Array] = {
        "model_a": pa.array([v if isinstance(v, str) else None for v in model_a], type=pa.string()),
        "model_b": pa.array([v if isinstance(v, str) else None for v in model_b], type=pa.string()),
        "winner": pa.array([v if isinstance(v, str) else None for v in winner], type=pa.string()),
    }
    if tstamp is not None:
        cols["tstamp"] = pa.array(np.asarray(tstamp, dtype=np.float64))
    with scan_table(pa.table(cols), source=source) as scan:
        return scan.battles()


# --------------------------------------------------------------------------- the streamed read


class BatchSink(Protocol):
    """What ``stream_battles`` hands each batch of kept battles to (``add``), in file order."""

    def add(self, pos: np.ndarray, battles: np.ndarray, cols: list[tuple[np.ndarray, np.ndarray]]) -> None:
        """``pos``: 0-based records (int64); ``battles`` int64 (3, m): the models' clean-name ids
        (``StreamedBattles.code_of_name`` turns them into model codes) and the outcome; ``cols``:
        per feature spec its values (NaN where not OK) and int8 quality, as ``feature_batches``."""


@dataclass(frozen=True, eq=False, slots=True)
class StreamedBattles:
    """What a streamed read found, as a ``BattleScan`` has it once open: the report, the model
    table, the summary of the kept battles and where a record is; ``code_of_name`` maps the
    clean-name ids the sink saw to model codes (-1: no kept battle)."""

    path: Path
    source_name: str
    report: BattleReport
    models: tuple[str, ...]
    code_of_name: np.ndarray
    pair_groups: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]
    voter_test: VoterTest | None = None

    def summary(self) -> BattleSummary:
        return compute_battle_summary(self.models, *self.pair_groups)

    def locate(self, record: int) -> str:
        line = _record_line(self.path, format_of(self.path)[0], record)
        return f"record {record}" if line is None else f"line {line}"


_STREAM_FILE_BYTES = 128  # the fewest bytes of file a battle is reckoned to take (its JSON record)
_STREAM_BATTLE_BYTES = 26  # memory a streamed battle takes: model codes, outcome, 4 float32 features, kind
_SIZE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([KMGT]?)(i?)B\s*$")


def _limit_bytes(text: str) -> int | None:
    """A DuckDB memory limit ("512MB", "2GiB") in bytes; None when it says something else."""
    m = _SIZE.match(text)
    if m is None:
        return None
    power = "KMGT".find(m[2]) + 1 if m[2] else 0
    return int(float(m[1]) * (1024 if m[3] else 1000) ** power)


class _TooMany(Exception):
    """A streamed read met more distinct values than it keeps in memory: read through the table."""


_STREAM_ROWS = 131_072  # rows asked of DuckDB per record batch of a streamed read (it often hands fewer)
_GROUP_ROWS = 1 << 20  # rows gathered before they are grouped by (a, b, w, f) and merged into the groups


def stream_battles(path: str | Path, filters: BattleFilters, settings: ReaderSettings,
                   features: Sequence[FeatureSpec], sink: Callable[[], BatchSink]) -> StreamedBattles | None:
    """The kept battles and their features of a JSON or JSON Lines file, in one streamed pass
    and without a scan table: the scan's query (``_scan_sql``, without times) is read in record
    batches; per batch the raw names, winners and feature texts are dictionary-encoded (Arrow),
    each new distinct value is cleaned or decoded once (``_text_decoder``, the same rules as
    ``BattleScan.features``), the (a, b, w, f) groups are counted, and the kept battles go to
    ``sink()``'s ``add``. The report and model table follow from the groups
    (``summarise_groups``) at the end.

    None (nothing handed over for good) where the table path is needed: not an uncompressed
    JSON file, a file whose battles might not fit in half the reader's memory limit (one
    battle per ``_STREAM_FILE_BYTES`` of file, ``_STREAM_BATTLE_BYTES`` each: the streamed
    arrays grow beside DuckDB's parse buffers, where the table path spills to disk), a voter
    safeguard, an SQL covariate, a feature with more than ``_DISTINCT_TEXTS`` distinct texts,
    or too many distinct names. A typed read of ``conv_metadata`` that fails is redone
    with every column as JSON, with a fresh ``sink()``; errors as ``scan_battles``.
    """
    path = Path(path)
    if not path.is_file():
        raise UserError(f"{path}: battles file not found")
    kind, compression = format_of(path)
    if kind not in ("json", "jsonl") or compression is not None:
        return None
    limit = _limit_bytes(settings.memory_limit)
    if limit is None or path.stat().st_size // _STREAM_FILE_BYTES * _STREAM_BATTLE_BYTES > limit // 2:
        return None  # the battles may not fit beside DuckDB's parse: the table path reads out of core
    if filters.voter_daily_cap is not None or filters.anomaly_fpr is not None or filters.voter_column is not None:
        return None
    with connect(settings, in_memory=True) as con:
        asked = filters
        src = _source(con, path, filters, features, False)
        filters = filters.resolve(src.present)
        _check_columns(src, filters)
        if any(_feature_text(src, spec) is None for spec in features):
            return None
        try:
            try:
                return _stream_once(con, path, src, filters, features, sink())
            except (duckdb.OutOfMemoryException, duckdb.InterruptException) as exc:
                raise _user_error(path, exc) from None
            except duckdb.Error:
                if not src.types:
                    raise
            src = _source(con, path, asked, features, False, typed_json=False)
            return _stream_once(con, path, src, filters, features, sink())
        except duckdb.Error as exc:
            raise _user_error(path, exc) from None
        except _TooMany:
            return None


class _Distinct:
    """Distinct raw texts of a batch column -> global ids (first seen first), -1 for null."""

    def __init__(self) -> None:
        self.ids: dict[str, int] = {}
        self.texts: list[str] = []

    def encode(self, column: Any) -> tuple[np.ndarray, list[str]]:
        """(global id per row, the texts new in this batch)."""
        import pyarrow.compute as pc

        enc = pc.dictionary_encode(column)
        seen = enc.dictionary.to_pylist()
        new: list[str] = []
        local = np.empty(len(seen) + 1, dtype=np.int64)
        for k, text in enumerate(seen):
            i = self.ids.get(text)
            if i is None:
                i = self.ids[text] = len(self.texts)
                self.texts.append(text)
                new.append(text)
            local[k] = i
        local[-1] = -1
        at = _numpy_of(enc.indices if enc.indices.null_count == 0 else pc.fill_null(enc.indices, len(seen)))
        return local[at], new


def _stream_once(con: duckdb.DuckDBPyConnection, path: Path, src: _Source, filters: BattleFilters,
                 features: Sequence[FeatureSpec], sink: BatchSink) -> StreamedBattles:
    """One streamed pass (``stream_battles``)."""
    sql, _ = _scan_sql(src, filters, features, *_bounds(filters), times=False)
    select = sql.removeprefix("CREATE TABLE scan AS ")
    quality = _text_quality(src, features)
    cols = "".join(f", CAST({q} AS TINYINT) AS c{j}, m{j}" for j, q in enumerate(quality))
    reader = con.sql(f"SELECT a, b, w, f{cols} FROM ({select})").to_arrow_reader(_STREAM_ROWS)
    decoder = duckdb.connect(config={"threads": 1})
    names, winners = _Distinct(), _Distinct()
    name_of_raw: list[int] = []  # raw name id -> clean-name id (-1: not a usable name)
    clean_ids: dict[str, int] = {}
    outcome_of_raw: list[int] = []  # raw winner id -> outcome code (-1: unknown)
    texts = [_Distinct() for _ in features]
    decoded = [(np.empty(0), np.empty(0, dtype=np.int8)) for _ in features]
    groups: list[np.ndarray] = []  # (a, b, w, f, count, first position) per group, merged as they come
    pending: list[np.ndarray] = []  # (a, b, w, f) per row of the batches not yet grouped
    gathered = 0
    start = 0
    for batch in _batches(reader):
        m = batch.num_rows
        pos = np.arange(start, start + m, dtype=np.int64)
        start += m
        ia, new_a = names.encode(batch.column("a"))
        ib, new_b = names.encode(batch.column("b"))
        iw, new_w = winners.encode(batch.column("w"))
        for text in (*new_a, *new_b):
            clean = _name(_decode(src.kind, [text])[0])
            name_of_raw.append(-1 if clean is None else clean_ids.setdefault(clean, len(clean_ids)))
        for text in new_w:
            value = _decode(src.kind, [text])[0]
            outcome_of_raw.append(WINNER_CODES.get(value, -1) if isinstance(value, str) else -1)
        fate = _numpy_of(batch.column("f")).astype(np.int64)
        n_raw, n_win = len(names.texts) + 1, len(winners.texts) + 1
        if n_raw * n_raw * n_win * 256 >= 1 << 62:
            raise _TooMany
        pending.append(np.stack([ia, ib, iw, fate]).astype(np.int32))
        gathered += m
        if gathered >= _GROUP_ROWS:  # the rows gathered so far grouped: a group per (a, b, w, f)
            groups = _group_rows(groups, pending, start - gathered, n_raw, n_win)
            pending, gathered = [], 0
        clean_of_raw = np.array([*name_of_raw, -1], dtype=np.int64)  # -1 (the last slot) for null
        code = np.array([*outcome_of_raw, -1], dtype=np.int64)
        ca, cb, o = clean_of_raw[ia], clean_of_raw[ib], code[iw]
        keep = np.flatnonzero((fate == 0) & (ca >= 0) & (cb >= 0) & (ca != cb) & (o >= 0))
        out: list[tuple[np.ndarray, np.ndarray]] = []
        rows: np.ndarray | slice = slice(None) if keep.size == m else keep
        encoded = [texts[j].encode(batch.column(f"m{j}")) for j in range(len(features))]
        if any(len(t.texts) > _DISTINCT_TEXTS for t in texts):
            raise _TooMany
        _decode_texts(decoder, features, [new for _, new in encoded], decoded)
        for j in range(len(features)):
            q = _numpy_of(batch.column(f"c{j}"))[rows].astype(np.int8)
            ids = encoded[j][0][rows]
            look = np.flatnonzero(q == _LOOK_UP)
            v = np.full(q.shape, np.nan)
            at = ids[look]
            v[look] = decoded[j][0][at]
            q[look] = decoded[j][1][at]
            v[q != FEATURE_OK] = np.nan
            out.append((v, q))
        sink.add(pos[keep], np.stack([ca[keep], cb[keep], o[keep]]), out)
    decoder.close()
    n_raw, n_win = len(names.texts) + 1, len(winners.texts) + 1
    if pending:
        groups = _group_rows(groups, pending, start - gathered, n_raw, n_win)
    g = groups[0] if groups else np.zeros((6, 0), dtype=np.int64)
    raw_a, raw_b, raw_w = (np.where(g[k] < 0, n, g[k]) for k, n in ((0, n_raw - 1), (1, n_raw - 1), (2, n_win - 1)))
    sm = summarise_groups(_decode(src.kind, names.texts), _decode(src.kind, winners.texts), raw_a, raw_b, raw_w,
                          g[3], g[4], g[5], enabled=enabled_filters(filters), source=path.name, where=str(path))
    code_of_name = np.full(len(clean_ids), -1, dtype=np.int64)
    for raw, clean_id in enumerate(name_of_raw):
        if clean_id >= 0 and sm.raw_code[raw] >= 0:
            code_of_name[clean_id] = sm.raw_code[raw]
    return StreamedBattles(path, path.name, sm.report, sm.models, code_of_name, sm.pair_groups)


def _batches(reader: Any) -> Iterator[Any]:
    """The record batches of a DuckDB Arrow reader; an error DuckDB meets on the way (which the
    reader passes on as an ``OSError`` or Arrow error carrying DuckDB's message) raised as the
    DuckDB error it was, for ``stream_battles`` to handle as ``scan_battles`` does."""
    import pyarrow as pa

    it = iter(reader)
    while True:
        try:
            batch = next(it)
        except StopIteration:
            return
        except (OSError, pa.ArrowException) as exc:
            text = str(exc)
            kind = duckdb.OutOfMemoryException if "Out of Memory" in text else duckdb.InvalidInputException
            raise kind(text) from None
        yield batch


def _group_rows(groups: list[np.ndarray], rows: list[np.ndarray], first: int, n_raw: int,
                n_win: int) -> list[np.ndarray]:
    """``groups`` (at most one array) with the ``rows`` (a, b, w, f per row, the first at
    position ``first`` in the file) grouped and merged in."""
    r = np.concatenate(rows, axis=1).astype(np.int64)
    key = (((r[0] + 1) * n_raw + (r[1] + 1)) * n_win + (r[2] + 1)) * 256 + r[3]
    _, at, count = np.unique(key, return_index=True, return_counts=True)
    new = np.stack([r[0, at], r[1, at], r[2, at], r[3, at], count, first + at])
    return [_merge_groups([*groups, new], n_raw, n_win)]


def _merge_groups(groups: list[np.ndarray], n_raw: int, n_win: int) -> np.ndarray:
    """Groups (rows: a, b, w, f, count, first position) gathered from batches, merged: one
    column per (a, b, w, f), counts added, the first position kept."""
    g = np.concatenate(groups, axis=1)
    key = (((g[0] + 1) * n_raw + (g[1] + 1)) * n_win + (g[2] + 1)) * 256 + g[3]
    uniq, inv = np.unique(key, return_inverse=True)
    out = np.zeros((6, uniq.size), dtype=np.int64)
    out[4] = np.bincount(inv, weights=g[4], minlength=uniq.size).astype(np.int64)
    out[5] = np.iinfo(np.int64).max
    np.minimum.at(out[5], inv, g[5])
    for k in range(4):
        out[k, inv] = g[k]
    return out


_PLAIN_COUNT = re.compile(r"0|[1-9][0-9]{0,14}")  # a JSON integer below 10^15: exact as a double, sums too


def _plain_count(text: str, covariate: bool) -> float | None:
    """The value of a feature's JSON text when it is plainly a count, decoded here: a JSON
    integer 0 <= x < 10^15, or (a count, not a covariate) an object of such integers (their
    sum; ``{}`` is 0), every key counted, repeated ones too. Exactly what ``_text_decoder``
    gives such a text (quality OK): the integers and their sums are exact as doubles. None for
    any other text, which ``_text_decoder`` decodes."""
    if _PLAIN_COUNT.fullmatch(text):
        return float(int(text))
    if covariate or not text.startswith("{"):
        return None
    try:
        pairs = json.loads(text, object_pairs_hook=list)
    except ValueError:
        return None
    total = 0
    for _, v in pairs:
        if type(v) is not int or not 0 <= v < 10**15:
            return None
        total += v
    return float(total) if total < 1 << 53 else None


def _decode_texts(decoder: duckdb.DuckDBPyConnection, features: Sequence[FeatureSpec], new: list[list[str]],
                  known: list[tuple[np.ndarray, np.ndarray]]) -> None:
    """Append to ``known[j]`` (value, quality per text id of feature ``j``) its ``new[j]``
    texts decoded: plain counts here (``_plain_count``), the others by ``_text_decoder`` in one
    query for every feature."""
    parts, params = [], {}
    values: list[np.ndarray] = []
    qualities: list[np.ndarray] = []
    for j, (spec, texts) in enumerate(zip(features, new, strict=True)):
        v = np.array([_plain_count(t, spec.covariate) for t in texts], dtype=np.float64)  # None -> NaN
        q = np.where(np.isnan(v), _LOOK_UP, FEATURE_OK).astype(np.int8)
        values.append(v)
        qualities.append(q)
        rest = [t for t, code in zip(texts, q, strict=True) if code == _LOOK_UP]
        if rest:
            value, quality = _text_decoder(spec, "m")
            parts.append(f"SELECT {j} AS j, i, coalesce({value}, 'NaN'::DOUBLE) AS v, CAST({quality} AS TINYINT) AS q "
                         f"FROM (SELECT unnest($t{j}) AS m, generate_subscripts($t{j}, 1) AS i)")
            params[f"t{j}"] = rest
    if parts:
        res = decoder.execute(" UNION ALL ".join(parts) + " ORDER BY j, i", params).fetchnumpy()
        j_of = np.asarray(res["j"], dtype=np.int64)
        rv, rq = np.asarray(res["v"], dtype=np.float64), np.asarray(res["q"], dtype=np.int8)
        for j in np.unique(j_of):
            at, look = j_of == j, qualities[j] == _LOOK_UP
            values[j][look], qualities[j][look] = rv[at], rq[at]
    for j in range(len(features)):
        if values[j].size:
            known[j] = (np.concatenate([known[j][0], values[j]]), np.concatenate([known[j][1], qualities[j]]))


def count_battles(path: str | Path, filters: BattleFilters = NO_FILTERS,
                  settings: ReaderSettings = DEFAULT_SETTINGS) -> tuple[PairCounts, BattleReport]:
    """Pair-outcome counts and the report of a file, without per-battle arrays."""
    with scan_battles(path, filters, settings, times=False) as scan:
        return scan.pair_counts(), scan.report


__all__ = [
    "FEATURE_MALFORMED",
    "FEATURE_MISSING",
    "FEATURE_NEGATIVE",
    "FEATURE_NON_NUMERIC",
    "FEATURE_NO_OBJECT",
    "FEATURE_OK",
    "FEATURE_QUALITIES",
    "FILTER_STATUS",
    "BatchSink",
    "BattleScan",
    "StreamedBattles",
    "battles_from_columns",
    "FeatureColumn",
    "FeatureSpec",
    "ReaderSettings",
    "VoterTest",
    "connect",
    "count_battles",
    "covariate_spec",
    "format_of",
    "read_battles",
    "scan_battles",
    "scan_table",
    "stream_battles",
]
