"""Reading ``conv_metadata`` for the style-controlled fit: raw counts per battle, row-aligned with ``read_battles``.

Sources: Parquet (the column as written: a struct, its dict-valued counts structs or maps)
read with pyarrow in record batches; JSON arrays and JSON Lines read by DuckDB
(``read_json``, types detected from a sample and, if a later record contradicts them, from
the whole file). CSV carries no nested metadata and serves plain fits only.

``style_counts_from_arrow`` turns one Arrow array of ``conv_metadata`` values (any reader's:
pyarrow's or DuckDB's ``.arrow()``) into the raw counts of ``builder.pairwise.style``: a
count >= 0, or the codes ``MISSING`` (NaN), ``NEGATIVE``, ``NON_NUMERIC``, ``NO_METADATA``.
A dict-valued count is the sum of its values; it is NON_NUMERIC or NEGATIVE if any value
is (in that order of precedence). Inside a dict an absent key and a null value count
nothing (a typed struct cannot tell them apart); the dict itself absent or null is MISSING. A count written as text
that reads as a number (a typed text column, or a JSON column DuckDB could not type) counts
as that number only when it is a bare JSON number; quoted strings, booleans, lists and
nested objects are NON_NUMERIC.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from builder.errors import UserError
from builder.pairwise.battles import Battles, _format_of
from builder.pairwise.style import (
    MALFORMED_KINDS,
    META_KEYS,
    NEGATIVE,
    NO_METADATA,
    NON_NUMERIC,
    STYLE_ROW_KINDS,
    StyleReport,
    compute_style_features,
    count_status,
)

META_COLUMN = "conv_metadata"
_BATCH = 262_144
_FULL_DETECT_BYTES = 64 << 20


def _scalar_counts(arr: pa.Array, path: str = "", json_text: frozenset[str] = frozenset()) -> np.ndarray:
    """One count per value of an array (codes for null, negative, non-numeric).

    ``json_text``: paths (``key`` or ``key.child``) whose text values are JSON (DuckDB's
    JSON type); other text is a string, so not a count.
    """
    t = arr.type
    n = len(arr)
    if pa.types.is_integer(t) or pa.types.is_floating(t) or pa.types.is_decimal(t):
        v = np.asarray(pc.fill_null(arr.cast(pa.float64()), np.nan).to_numpy(zero_copy_only=False), dtype=np.float64)
        return np.where(v < 0, NEGATIVE, v)
    if pa.types.is_null(t):
        return np.full(n, np.nan)
    if pa.types.is_string(t) or pa.types.is_large_string(t):
        if path in json_text:
            return np.array([_text_count(x) for x in arr.to_pylist()], dtype=np.float64)
        out = np.full(n, NON_NUMERIC)
        out[np.asarray(arr.is_null().to_numpy(zero_copy_only=False), dtype=bool)] = np.nan
        return out
    if pa.types.is_struct(t):
        return _dict_counts(arr, path, json_text)
    if pa.types.is_map(t):
        return _map_counts(arr)
    out = np.full(n, NON_NUMERIC)
    out[np.asarray(arr.is_null().to_numpy(zero_copy_only=False), dtype=bool)] = np.nan
    return out


def _text_count(x: str | None) -> float:
    """A JSON text value (DuckDB's JSON column) or plain text: its count, or a code."""
    if x is None:
        return np.nan
    try:
        v = json.loads(x)
    except (json.JSONDecodeError, TypeError):
        return NON_NUMERIC
    return _py_count(v)


def _py_count(v: Any) -> float:
    if v is None:
        return np.nan
    if isinstance(v, bool) or isinstance(v, (str, list)):
        return NON_NUMERIC
    if isinstance(v, (int, float)):
        return NEGATIVE if v < 0 else float(v)
    if isinstance(v, dict):
        parts = [_py_count(x) if not isinstance(x, dict) else NON_NUMERIC for x in v.values()]
        return float(_combine(np.array(parts, dtype=np.float64).reshape(1, -1))[0])
    return NON_NUMERIC


def _combine(parts: np.ndarray) -> np.ndarray:
    """Rows of value counts (n, c) -> one count per row: the sum, or the strongest code."""
    n = parts.shape[0]
    if parts.shape[1] == 0:
        return np.zeros(n)
    out: np.ndarray = np.nansum(np.where(parts < 0, 0.0, parts), axis=1)
    out[(parts == NEGATIVE).any(axis=1)] = NEGATIVE
    out[(parts == NON_NUMERIC).any(axis=1)] = NON_NUMERIC
    return out


def _dict_counts(arr: pa.StructArray, path: str, json_text: frozenset[str]) -> np.ndarray:
    children = [arr.field(k) for k in range(arr.type.num_fields)]
    numeric = all(pa.types.is_integer(c.type) or pa.types.is_floating(c.type) for c in children)
    if numeric and children and all(c.null_count == 0 for c in children):
        # The usual case (LMArena's dumps): every value a number. One pass per child.
        total = np.zeros(len(arr))
        negative = np.zeros(len(arr), dtype=bool)
        for c in children:
            v = c.to_numpy(zero_copy_only=False)
            total += v
            negative |= v < 0
        total[negative] = NEGATIVE
        total[np.asarray(arr.is_null().to_numpy(zero_copy_only=False), dtype=bool)] = np.nan
        return total
    parts = []
    for k in range(arr.type.num_fields):
        child = arr.field(k)
        sub = _scalar_counts(child, f"{path}.{arr.type.field(k).name}", json_text)
        if pa.types.is_struct(child.type) or pa.types.is_map(child.type):
            sub = np.where(np.isnan(sub), np.nan, NON_NUMERIC)  # a dict inside a dict is not a count
        parts.append(sub)
    out = _combine(np.stack(parts, axis=1) if parts else np.zeros((len(arr), 0)))
    out[np.asarray(arr.is_null().to_numpy(zero_copy_only=False), dtype=bool)] = np.nan
    return out


def _map_counts(arr: pa.MapArray) -> np.ndarray:
    n = len(arr)
    items = _scalar_counts(arr.items)
    offsets = np.asarray(arr.offsets.to_numpy(zero_copy_only=False), dtype=np.int64)
    lengths = np.diff(offsets)
    owner = np.repeat(np.arange(n), lengths)
    bad_neg = np.bincount(owner, items == NEGATIVE, n) > 0
    bad_txt = np.bincount(owner, items == NON_NUMERIC, n) > 0
    out = np.bincount(owner, np.where(items >= 0, items, 0.0), n)
    out[bad_neg] = NEGATIVE
    out[bad_txt] = NON_NUMERIC
    out[np.asarray(arr.is_null().to_numpy(zero_copy_only=False), dtype=bool)] = np.nan
    return out


def style_counts_from_arrow(
    meta: pa.Array | pa.ChunkedArray, features: tuple[str, ...], json_text: frozenset[str] = frozenset()
) -> tuple[np.ndarray, np.ndarray]:
    """Raw counts of sides A and B, shape (n, len(features)) float64 each, from ``conv_metadata`` values.

    ``meta``: a struct array (the usual case), or text holding JSON objects. ``json_text``:
    the paths inside it whose text values are JSON (see ``_scalar_counts``).
    """
    if isinstance(meta, pa.ChunkedArray):
        meta = meta.combine_chunks()
    n = len(meta)
    raw_a = np.empty((n, len(features)))
    raw_b = np.empty((n, len(features)))
    if pa.types.is_string(meta.type) or pa.types.is_large_string(meta.type):
        for r, text in enumerate(meta.to_pylist()):
            obj = None
            if text is not None:
                try:
                    obj = json.loads(text)
                except json.JSONDecodeError:
                    obj = None
            for c, f in enumerate(features):
                ka, kb = META_KEYS[f]
                raw_a[r, c] = _py_count(obj.get(ka)) if isinstance(obj, dict) else NO_METADATA
                raw_b[r, c] = _py_count(obj.get(kb)) if isinstance(obj, dict) else NO_METADATA
        return raw_a, raw_b
    if not pa.types.is_struct(meta.type):
        raw_a[:] = NO_METADATA
        raw_b[:] = NO_METADATA
        return raw_a, raw_b
    names = [meta.type.field(k).name for k in range(meta.type.num_fields)]
    absent = np.asarray(meta.is_null().to_numpy(zero_copy_only=False), dtype=bool)
    for c, f in enumerate(features):
        for side, key in zip((raw_a, raw_b), META_KEYS[f], strict=True):
            side[:, c] = _scalar_counts(meta.field(names.index(key)), key, json_text) if key in names else np.nan
            side[absent, c] = NO_METADATA
    return raw_a, raw_b


# --------------------------------------------------------------------------- files


def _duckdb_connect() -> Any:
    import duckdb

    con = duckdb.connect()
    con.execute("SET threads = 2")
    con.execute("SET memory_limit = '512MB'")
    con.execute("SET preserve_insertion_order = true")  # rows in file order, aligned with read_battles
    return con


def _to_table(rel: Any) -> pa.Table:
    out = rel.arrow()
    return out.read_all() if isinstance(out, pa.RecordBatchReader) else out


def _json_rows(path: Path, kind: str, features: tuple[str, ...]) -> tuple[np.ndarray, np.ndarray, int]:
    import duckdb

    fmt = "array" if kind == "json" else "newline_delimited"
    src = str(path).replace("'", "''")
    con = _duckdb_connect()
    try:
        # Small files get their types from every record (exact); big ones from DuckDB's sample,
        # and from every record only if a later one contradicts it. (Past the sample, a count
        # written as a quoted number is read as that number.)
        tries = ("", ", sample_size = -1") if path.stat().st_size > _FULL_DETECT_BYTES else (", sample_size = -1",)
        for sample in tries:
            try:
                rel = con.sql(f"SELECT {META_COLUMN} FROM read_json('{src}', format = '{fmt}'{sample})")
                kind_of = rel.types[0]
                if str(kind_of) == "JSON":  # no common type: every record's object as JSON text
                    table = _to_table(rel)
                    raw_a, raw_b = style_counts_from_arrow(table.column(0), features)
                    return raw_a, raw_b, table.num_rows
                json_paths = frozenset(_json_paths(kind_of))
                table = _to_table(rel)
                break
            except duckdb.BinderException:  # no record has the key: no metadata anywhere
                n = int(con.sql(f"SELECT count(*) FROM read_json('{src}', format = '{fmt}')").fetchall()[0][0])
                return np.full((n, len(features)), NO_METADATA), np.full((n, len(features)), NO_METADATA), n
            except (duckdb.ConversionException, duckdb.InvalidInputException):
                if sample == tries[-1]:  # a record past the type-detection sample contradicts it: detect from all
                    raise
    except duckdb.Error as exc:
        msg = str(exc).strip().splitlines()[0]
        raise UserError(f"{path}: cannot read conv_metadata: {msg}") from None
    finally:
        con.close()
    raw_a, raw_b = style_counts_from_arrow(table.column(META_COLUMN), features, json_paths)
    return raw_a, raw_b, table.num_rows


def _json_paths(duck_type: Any, prefix: str = "") -> set[str]:
    """Paths inside a DuckDB type whose values are JSON text (rather than VARCHAR)."""
    out: set[str] = set()
    for name, child in getattr(duck_type, "children", None) or []:
        if not isinstance(name, str):
            continue
        path = f"{prefix}.{name}" if prefix else name
        if str(child) == "JSON":
            out.add(path)
        elif str(child).startswith("STRUCT"):
            out |= _json_paths(child, path)
    return out


def _parquet_chunks(path: Path, features: tuple[str, ...]) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    import pyarrow.parquet as pq

    pf = pq.ParquetFile(path, pre_buffer=False, buffer_size=1 << 20)
    n = pf.metadata.num_rows
    if META_COLUMN not in pf.schema_arrow.names:
        for s in range(0, n, _BATCH):
            size = min(_BATCH, n - s)
            yield np.full((size, len(features)), NO_METADATA), np.full((size, len(features)), NO_METADATA)
        return
    for batch in pf.iter_batches(batch_size=_BATCH, columns=[META_COLUMN], use_threads=False):
        yield style_counts_from_arrow(batch.column(0), features)


def _chunks(path: Path, features: tuple[str, ...]) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    kind = _format_of(path)
    if kind == "csv":
        raise UserError(f"{path}: a CSV battles file carries no conv_metadata; the style-controlled fit needs "
                        "JSON, JSON Lines or Parquet")
    if kind == "parquet":
        yield from _parquet_chunks(path, features)
    else:
        raw_a, raw_b, _ = _json_rows(path, kind, features)
        yield raw_a, raw_b


def read_style_counts(path: str | Path, features: tuple[str, ...]) -> tuple[np.ndarray, np.ndarray, int]:
    """Raw counts (see ``style_counts_from_arrow``) for every record of a battles file, in file order.

    Returns ``(raw_a, raw_b, records)``, arrays shape (records, len(features)).
    """
    parts = list(_chunks(Path(path), features))
    if not parts:
        empty = np.empty((0, len(features)))
        return empty, empty, 0
    raw_a = np.concatenate([p[0] for p in parts])
    raw_b = np.concatenate([p[1] for p in parts])
    return raw_a, raw_b, raw_a.shape[0]


def locate_record(path: Path, row: int) -> str:
    """Where record ``row`` (0-based) of a battles file is: ``line N`` for JSON text, ``row N`` for Parquet."""
    kind = _format_of(path)
    if kind == "parquet":
        return f"row {row + 1}"
    if kind == "jsonl":
        seen = -1
        with path.open("r", encoding="utf-8-sig") as f:
            for line_no, line in enumerate(f, 1):
                if line.strip():
                    seen += 1
                    if seen == row:
                        return f"line {line_no}"
        return f"record {row + 1}"
    decoder = json.JSONDecoder()
    text = path.read_text(encoding="utf-8-sig")
    pos = text.index("[") + 1
    for _ in range(row):
        while text[pos] in " \t\r\n,":
            pos += 1
        _, pos = decoder.raw_decode(text, pos)
    while text[pos] in " \t\r\n,":
        pos += 1
    return f"line {text.count(chr(10), 0, pos) + 1}"


@dataclass(frozen=True, eq=False, slots=True)
class StyleColumns:
    """Style features of a ``Battles`` object's battles (same order), shape (n,) unless stated."""

    features: tuple[str, ...]
    raw: np.ndarray  # (n, k) float64: (x_a - x_b) / (x_a + x_b), 0 where unusable
    status: np.ndarray  # int8 codes of STYLE_ROW_KINDS (0 = usable)
    report: StyleReport

    @property
    def usable(self) -> np.ndarray:
        ok: np.ndarray = self.status == 0
        return ok


def read_battle_styles(path: str | Path, battles: Battles, features: tuple[str, ...]) -> StyleColumns:
    """Style features for the battles ``read_battles(path, ...)`` returned (its ``source_row`` aligns them)."""
    path = Path(path)
    if battles.source_row is None:
        raise ValueError("battles carry no source rows (read them with read_battles)")
    rows = battles.source_row
    if rows.size > 1 and not bool(np.all(np.diff(rows) > 0)):
        raise ValueError("battles must be in file order (as read_battles returns them)")
    # Chunk by chunk, keeping only the features of the kept battles: memory stays at the
    # result (n_battles x k floats) plus one chunk.
    f = np.zeros((rows.size, len(features)))
    status = np.zeros(rows.size, dtype=np.int8)
    pos = records = 0
    for raw_a, raw_b in _chunks(path, features):
        start, records = records, records + raw_a.shape[0]
        hi = int(np.searchsorted(rows, records, side="left"))
        sel = rows[pos:hi] - start
        f[pos:hi], status[pos:hi] = compute_style_features(raw_a[sel], raw_b[sel])
        pos = hi
    if records != battles.report.rows_read:
        raise UserError(f"{path}: conv_metadata has {records} records but the battles {battles.report.rows_read}")
    malformed = np.flatnonzero(status >= STYLE_ROW_KINDS.index(MALFORMED_KINDS[0]))
    first: str | None = None
    if malformed.size:
        k = int(malformed[0])
        first = f"{path.name}: {locate_record(path, int(rows[k]))} ({STYLE_ROW_KINDS[status[k]].replace('_', ' ')})"
    return StyleColumns(features, f, status, StyleReport(features, count_status(status), first))


__all__ = [
    "META_COLUMN",
    "StyleColumns",
    "locate_record",
    "read_battle_styles",
    "read_style_counts",
    "style_counts_from_arrow",
]
