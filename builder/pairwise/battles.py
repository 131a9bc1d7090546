"""Battles I/O: read FastChat ``clean_battle`` files into integer-coded columns.

Schema (one row per vote)::

    model_a, model_b : str        the two models shown to the voter
    winner           : str        "model_a" | "model_b" | "tie" | "tie (bothbad)" (or "both_bad",
                                  as LMArena's newer dumps write it: the same outcome)
    tstamp           : float      Unix seconds, UTC (optional)
    anony            : bool       the vote was cast before the names were revealed (optional)
    language         : str        conversation language, e.g. "English" (optional)
    turn             : int        number of conversation turns (optional)
    dedup_tag        : {sampled: bool, ...}  FastChat's prompt de-duplication (optional)

Formats: a JSON array (streamed object by object, never loaded whole), JSON Lines, CSV and
Parquet (both read in record batches by pyarrow). Only the columns above are kept; model
names become ``int32`` codes into ``Battles.models`` and winners ``int8`` outcome codes as
they are read, so a 2 GB dump costs about 17 bytes per battle once loaded.

Bad rows are counted by kind and dropped, never fatal: ``missing_model`` (a side empty or
null), ``same_model`` (one model on both sides), ``unknown_winner`` (anything outside the
four values and ``both_bad``). Each row is counted under the first kind it matches, in that order. Filters
then run in a fixed order (anony, dedup, language, min_date, max_date, min_turn) and each
reports how many of the rows still present it removed. A file without rows, without any
row left, or without a required column is a ``UserError`` naming the file.
"""

from __future__ import annotations

import csv
import datetime as dt
import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import pyarrow as pa
import pyarrow.compute as pc
from numba import njit

from builder.errors import UserError
from builder.util.io import compact_json

OUTCOMES: tuple[str, ...] = ("model_a", "model_b", "tie", "tie (bothbad)")
"Outcome codes are positions in this tuple: 0 A wins, 1 B wins, 2 tie, 3 tie (both bad)."
WIN_A, WIN_B, TIE, TIE_BOTHBAD = 0, 1, 2, 3
_WINNER_SPELLINGS = (*OUTCOMES, "both_bad")  # the last one is read as code 3

REQUIRED = ("model_a", "model_b", "winner")
OPTIONAL = ("tstamp", "anony", "language", "turn", "dedup_tag")
BAD_KINDS = ("missing_model", "same_model", "unknown_winner")

_CHUNK_ROWS = 65_536
_JSON_READ_CHARS = 8 << 20


@dataclass(frozen=True, slots=True)
class BattleFilters:
    """Which votes to keep. Every filter is off by default."""

    anony_only: bool = False  # keep anonymous (blind) votes only
    dedup_sampled: bool = False  # keep rows whose dedup_tag.sampled is true
    language: str | None = None  # keep this conversation language only (exact match)
    min_date: dt.date | None = None  # keep votes on or after this UTC day
    max_date: dt.date | None = None  # keep votes on or before this UTC day (inclusive)
    min_turn: int | None = None  # keep conversations with at least this many turns

    def needed_columns(self) -> dict[str, str]:
        """Column -> the filter that needs it."""
        need: dict[str, str] = {}
        if self.anony_only:
            need["anony"] = "anony_only"
        if self.dedup_sampled:
            need["dedup_tag"] = "dedup_sampled"
        if self.language is not None:
            need["language"] = "language"
        if self.min_date is not None or self.max_date is not None:
            need["tstamp"] = "min_date/max_date"
        if self.min_turn is not None:
            need["turn"] = "min_turn"
        return need

    def to_json(self) -> dict[str, Any]:
        return {
            "anony_only": self.anony_only,
            "dedup_sampled": self.dedup_sampled,
            "language": self.language,
            "min_date": self.min_date.isoformat() if self.min_date else None,
            "max_date": self.max_date.isoformat() if self.max_date else None,
            "min_turn": self.min_turn,
        }


@dataclass(frozen=True, slots=True)
class BattleReport:
    """What reading one battles file did: rows read, bad rows by kind, rows each filter removed."""

    source: str  # file name
    rows_read: int
    bad_rows: Mapping[str, int]  # kind -> rows (every kind in BAD_KINDS, zeros included)
    removed: Mapping[str, int]  # filter name -> rows removed (only the filters that ran)
    rows_kept: int

    def to_json(self) -> dict[str, Any]:
        return {
            "source": self.source,
            "rows_read": self.rows_read,
            "bad_rows": dict(self.bad_rows),
            "removed": dict(self.removed),
            "rows_kept": self.rows_kept,
        }


@dataclass(frozen=True, eq=False, slots=True)
class Battles:
    """Integer-coded battles, in file order.

    ``model_a``/``model_b``: int32 codes into ``models``, shape (n,); ``outcome``: int8
    codes into ``OUTCOMES``, shape (n,); ``tstamp``: float64 Unix seconds, shape (n,), NaN
    where a row had none, or None when the file has no timestamps.
    """

    models: tuple[str, ...]
    model_a: np.ndarray
    model_b: np.ndarray
    outcome: np.ndarray
    tstamp: np.ndarray | None
    report: BattleReport = field(
        default_factory=lambda: BattleReport("", 0, dict.fromkeys(BAD_KINDS, 0), {}, 0)
    )
    source_row: np.ndarray | None = None  # int64 (n,): each battle's record index in the file (0-based)

    def __len__(self) -> int:
        return int(self.model_a.shape[0])

    def in_time_order(self) -> bool:
        """True when file order is already chronological (rows without a time last)."""
        if self.tstamp is None:
            return True
        return bool(_in_time_order(np.ascontiguousarray(self.tstamp, dtype=np.float64)))

    def chronological(self) -> np.ndarray:
        """Row order by timestamp (stable: file order breaks ties and orders rows without one)."""
        if self.tstamp is None:
            return np.arange(len(self))
        key = np.where(np.isnan(self.tstamp), np.inf, self.tstamp)
        return np.argsort(key, kind="stable")

    def take(self, rows: np.ndarray) -> Battles:
        """The battles at ``rows`` (same model table and report)."""
        return Battles(
            self.models,
            self.model_a[rows],
            self.model_b[rows],
            self.outcome[rows],
            None if self.tstamp is None else self.tstamp[rows],
            self.report,
            None if self.source_row is None else self.source_row[rows],
        )


def battles_from_columns(
    model_a: list[str] | np.ndarray,
    model_b: list[str] | np.ndarray,
    winner: list[str] | np.ndarray,
    tstamp: list[float] | np.ndarray | None = None,
    source: str = "<memory>",
) -> Battles:
    """Encode in-memory columns (no filters; bad rows counted and dropped as when reading)."""
    cols: dict[str, pa.Array] = {
        "model_a": pa.array(list(model_a), type=pa.string()),
        "model_b": pa.array(list(model_b), type=pa.string()),
        "winner": pa.array(list(winner), type=pa.string()),
    }
    if tstamp is not None:
        cols["tstamp"] = pa.array(np.asarray(tstamp, dtype=np.float64))
    enc = _Encoder(source, BattleFilters())
    enc.add(cols)
    return enc.finish(has_tstamp=tstamp is not None)


def read_battles(path: str | Path, filters: BattleFilters = BattleFilters()) -> Battles:
    """Read a battles file (JSON array, JSONL, CSV or Parquet) into ``Battles``.

    The format comes from the suffix (``.json``, ``.jsonl``/``.ndjson``, ``.csv``,
    ``.parquet``/``.pq``); a ``.json`` file whose first character is ``{`` is read as JSON
    Lines. Raises ``UserError`` for a missing or unreadable file, a missing required
    column (or a column a requested filter needs), an empty file, or no rows left.
    """
    path = Path(path)
    if not path.is_file():
        raise UserError(f"{path}: battles file not found")
    kind = _format_of(path)
    enc = _Encoder(path.name, filters)
    readers = {"json": _iter_json_array, "jsonl": _iter_jsonl, "csv": _iter_csv, "parquet": _iter_parquet}
    try:
        columns = None
        for chunk in readers[kind](path, filters):
            if columns is None:
                columns = set(chunk)
            enc.add(chunk)
    except (pa.ArrowInvalid, pa.ArrowTypeError, pa.ArrowNotImplementedError) as exc:
        msg = str(exc).strip().splitlines()[0]
        raise UserError(f"{path}: cannot read {kind} battles: {msg}") from None
    except UnicodeDecodeError as exc:
        raise UserError(f"{path}: not UTF-8 text at byte {exc.start}") from None
    if enc.rows_read == 0:
        raise UserError(f"{path}: no battles in file (empty input)")
    return enc.finish(has_tstamp=columns is not None and "tstamp" in columns, path=path)


def _format_of(path: Path) -> str:
    suffix = path.suffix.lower()
    if suffix in (".jsonl", ".ndjson"):
        return "jsonl"
    if suffix == ".csv":
        return "csv"
    if suffix in (".parquet", ".pq"):
        return "parquet"
    if suffix == ".json":
        with path.open("rb") as f:
            head = f.read(4096).lstrip(b"\xef\xbb\xbf \t\r\n")
        return "jsonl" if head.startswith(b"{") else "json"
    raise UserError(f"{path}: unknown battles format {suffix!r} (use .json, .jsonl, .csv or .parquet)")


def _check_columns(path: Path, present: set[str], filters: BattleFilters, where: str) -> None:
    for col in REQUIRED:
        if col not in present:
            raise UserError(f"{path}: {where} has no column {col!r} (needs model_a, model_b, winner)")
    for col, flt in filters.needed_columns().items():
        if col not in present:
            raise UserError(f"{path}: {where} has no column {col!r}, which the {flt} filter needs")


def _wanted(filters: BattleFilters) -> tuple[str, ...]:
    # tstamp is always kept: history and online Elo need the order.
    want = list(REQUIRED) + ["tstamp"]
    want += [c for c in filters.needed_columns() if c not in want]
    return tuple(want)


# --------------------------------------------------------------------------- readers
# Each reader yields dicts column -> pyarrow Array (same length), only wanted columns.


def _iter_json_array(path: Path, filters: BattleFilters) -> Iterator[dict[str, pa.Array]]:
    """Stream the objects of a top-level JSON array with ``raw_decode``, chunk by chunk."""
    want = _wanted(filters)
    decoder = json.JSONDecoder()
    lists: dict[str, list[Any]] = {c: [] for c in want}
    present: set[str] = set()
    row = 0
    lines_before = 0
    with path.open("r", encoding="utf-8-sig") as f:
        buf = f.read(_JSON_READ_CHARS)
        eof = len(buf) < _JSON_READ_CHARS
        pos = _skip_ws(buf, 0)
        if pos >= len(buf):
            return
        if buf[pos] != "[":
            raise UserError(f"{path}: line 1: expected a JSON array of battles, found {buf[pos]!r}")
        pos += 1
        while True:
            pos = _skip_ws(buf, pos, commas=True)
            if pos >= len(buf) - 1 and not eof:
                lines_before += buf.count("\n", 0, pos)
                more = f.read(_JSON_READ_CHARS)
                eof = len(more) < _JSON_READ_CHARS
                buf, pos = buf[pos:] + more, 0
                continue
            if pos >= len(buf):
                line = lines_before + buf.count("\n") + 1
                raise UserError(f"{path}: line {line}: JSON array not closed")
            if buf[pos] == "]":
                break
            try:
                obj, end = decoder.raw_decode(buf, pos)
            except json.JSONDecodeError as exc:
                if not eof:  # the object may continue in the next block
                    lines_before += buf.count("\n", 0, pos)
                    more = f.read(_JSON_READ_CHARS)
                    eof = len(more) < _JSON_READ_CHARS
                    buf, pos = buf[pos:] + more, 0
                    continue
                line = lines_before + buf.count("\n", 0, exc.pos) + 1
                raise UserError(f"{path}: line {line}: invalid JSON in battle {row + 1}: {exc.msg}") from None
            if not isinstance(obj, dict):
                line = lines_before + buf.count("\n", 0, pos) + 1
                raise UserError(f"{path}: line {line}: battle {row + 1} is a {type(obj).__name__}, not an object")
            if row == 0:
                present = set(obj)
                _check_columns(path, present, filters, "battle 1")
            for c in want:
                lists[c].append(obj.get(c))
            row += 1
            pos = end
            if len(lists["winner"]) >= _CHUNK_ROWS:
                yield _lists_to_arrays(lists, present)
                lists = {c: [] for c in want}
    if lists["winner"]:
        yield _lists_to_arrays(lists, present)


def _skip_ws(buf: str, pos: int, commas: bool = False) -> int:
    n = len(buf)
    while pos < n and (buf[pos] in " \t\r\n" or (commas and buf[pos] == ",")):
        pos += 1
    return pos


def _lists_to_arrays(lists: dict[str, list[Any]], present: set[str]) -> dict[str, pa.Array]:
    out: dict[str, pa.Array] = {}
    for col, values in lists.items():
        if col not in present:
            continue
        if col in ("model_a", "model_b", "winner", "language"):
            # A number or object where a name belongs is a bad value, not a crash.
            values = [v if isinstance(v, str) else None for v in values]
            out[col] = pa.array(values, type=pa.string())
        elif col == "tstamp":
            out[col] = pa.array(
                [float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else None for v in values],
                type=pa.float64(),
            )
        elif col == "anony":
            out[col] = pa.array([v is True for v in values], type=pa.bool_())
        elif col == "turn":
            out[col] = pa.array(
                [int(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else None for v in values],
                type=pa.int64(),
            )
        elif col == "dedup_tag":
            out[col] = pa.array([isinstance(v, dict) and v.get("sampled") is True for v in values], type=pa.bool_())
    return out


_JSON_TYPES = {
    "model_a": pa.string(),
    "model_b": pa.string(),
    "winner": pa.string(),
    "tstamp": pa.float64(),
    "anony": pa.bool_(),
    "language": pa.string(),
    "turn": pa.int64(),
    "dedup_tag": pa.struct([("sampled", pa.bool_())]),
}


def _iter_jsonl(path: Path, filters: BattleFilters) -> Iterator[dict[str, pa.Array]]:
    import pyarrow.json as pj

    with path.open("r", encoding="utf-8-sig") as f:
        first = ""
        for first in f:
            if first.strip():
                break
    if not first.strip():
        return
    try:
        head = json.loads(first)
    except json.JSONDecodeError as exc:
        raise UserError(f"{path}: line 1: invalid JSON: {exc.msg}") from None
    if not isinstance(head, dict):
        raise UserError(f"{path}: line 1: a battle must be a JSON object")
    present = set(head)
    _check_columns(path, present, filters, "line 1")
    cols = [c for c in _wanted(filters) if c in present]
    schema = pa.schema([(c, _JSON_TYPES[c]) for c in cols])
    reader = pj.open_json(
        path,
        read_options=pj.ReadOptions(block_size=16 << 20),
        parse_options=pj.ParseOptions(explicit_schema=schema, unexpected_field_behavior="ignore"),
    )
    for batch in reader:
        out = {c: batch.column(c) for c in cols}
        if "dedup_tag" in out:
            out["dedup_tag"] = pc.fill_null(pc.struct_field(out["dedup_tag"], "sampled"), False)
        yield out


def _iter_csv(path: Path, filters: BattleFilters) -> Iterator[dict[str, pa.Array]]:
    import pyarrow.csv as pcsv

    with path.open("r", encoding="utf-8-sig", newline="") as f:
        header = next(csv.reader(f), None)
    if not header:
        return
    present = {h.strip() for h in header}
    _check_columns(path, present, filters, "header")
    cols = [c for c in _wanted(filters) if c in present]
    types = {c: _JSON_TYPES[c] for c in cols if c != "dedup_tag"}
    types["dedup_tag"] = pa.string()  # a dict written as text; parsed below
    types["anony"] = pa.string()
    reader = pcsv.open_csv(
        path,
        read_options=pcsv.ReadOptions(block_size=16 << 20),
        convert_options=pcsv.ConvertOptions(
            include_columns=cols, column_types={c: t for c, t in types.items() if c in cols}, strings_can_be_null=True
        ),
    )
    for batch in reader:
        out = {c: batch.column(c) for c in cols}
        if "anony" in out:
            out["anony"] = pc.fill_null(pc.is_in(pc.utf8_lower(out["anony"]), pa.array(["true", "1"])), False)
        if "dedup_tag" in out:
            # A dict serialised by Python (True) or JSON (true).
            out["dedup_tag"] = pc.fill_null(
                pc.match_substring_regex(out["dedup_tag"], r"""['"]sampled['"]\s*:\s*(True|true)"""), False
            )
        yield out


def _iter_parquet(path: Path, filters: BattleFilters) -> Iterator[dict[str, pa.Array]]:
    import pyarrow.parquet as pq

    present = set(pq.read_schema(path).names)
    _check_columns(path, present, filters, "schema")
    cols = [c for c in _wanted(filters) if c in present]
    # Names come back as dictionary arrays (Parquet stores them so): no per-row strings are
    # ever built. Unbuffered reads keep one page, not a whole row group, in memory.
    names = [c for c in ("model_a", "model_b", "winner", "language") if c in cols]
    pf = pq.ParquetFile(path, read_dictionary=names, pre_buffer=False, buffer_size=1 << 20)
    for batch in pf.iter_batches(batch_size=_CHUNK_ROWS, columns=cols, use_threads=False):
        out = {c: batch.column(c) for c in cols}
        if "dedup_tag" in out and pa.types.is_struct(out["dedup_tag"].type):
            out["dedup_tag"] = pc.fill_null(pc.struct_field(out["dedup_tag"], "sampled"), False)
        yield out


# --------------------------------------------------------------------------- encoding


class _Encoder:
    """Turns column chunks into int codes, counting bad rows and filter removals."""

    def __init__(self, source: str, filters: BattleFilters) -> None:
        self.source = source
        self.filters = filters
        self.index: dict[str, int] = {}
        self.parts: dict[str, list[np.ndarray]] = {"a": [], "b": [], "o": [], "t": [], "r": []}
        self.rows_read = 0
        self.bad = dict.fromkeys(BAD_KINDS, 0)
        self.removed: dict[str, int] = {}
        if filters.anony_only:
            self.removed["anony"] = 0
        if filters.dedup_sampled:
            self.removed["dedup"] = 0
        if filters.language is not None:
            self.removed["language"] = 0
        if filters.min_date is not None:
            self.removed["min_date"] = 0
        if filters.max_date is not None:
            self.removed["max_date"] = 0
        if filters.min_turn is not None:
            self.removed["min_turn"] = 0
        day = 86_400.0
        self.t_min = _utc_seconds(filters.min_date) if filters.min_date else None
        self.t_max = _utc_seconds(filters.max_date) + day if filters.max_date else None

    def _codes(self, arr: pa.Array) -> np.ndarray:
        """Model names -> global int32 codes (-1 for null or blank)."""
        if isinstance(arr, pa.ChunkedArray):
            arr = arr.combine_chunks()
        if not pa.types.is_dictionary(arr.type):
            if not (pa.types.is_string(arr.type) or pa.types.is_large_string(arr.type)):
                arr = arr.cast(pa.string())
            arr = pc.dictionary_encode(arr)
        local = arr.indices.to_numpy(zero_copy_only=False)
        valid = ~np.asarray(arr.is_null().to_numpy(zero_copy_only=False), dtype=bool)
        mapping = np.empty(len(arr.dictionary), dtype=np.int32)
        for k, name in enumerate(arr.dictionary.to_pylist()):
            name = (name or "").strip()
            if not name:
                mapping[k] = -1
                continue
            code = self.index.get(name)
            if code is None:
                code = self.index[name] = len(self.index)
            mapping[k] = code
        out = np.full(len(arr), -1, dtype=np.int32)
        if len(mapping):
            out[valid] = mapping[local[valid].astype(np.int64)]
        return out

    def add(self, cols: Mapping[str, pa.Array]) -> None:
        n = len(cols["winner"])
        if n == 0:
            return
        first_row = self.rows_read
        self.rows_read += n
        a = self._codes(cols["model_a"])
        b = self._codes(cols["model_b"])
        w = pc.index_in(cols["winner"], value_set=pa.array(_WINNER_SPELLINGS))
        outcome = np.asarray(pc.fill_null(w, -1).to_numpy(zero_copy_only=False), dtype=np.int8)
        outcome[outcome == len(OUTCOMES)] = TIE_BOTHBAD
        keep = np.ones(n, dtype=bool)

        bad = (a < 0) | (b < 0)
        self.bad["missing_model"] += int(bad.sum())
        keep &= ~bad
        bad = keep & (a == b)
        self.bad["same_model"] += int(bad.sum())
        keep &= ~bad
        bad = keep & (outcome < 0)
        self.bad["unknown_winner"] += int(bad.sum())
        keep &= ~bad

        t = None
        if "tstamp" in cols:
            t = np.asarray(pc.fill_null(cols["tstamp"].cast(pa.float64()), np.nan).to_numpy(zero_copy_only=False))
        f = self.filters
        if f.anony_only:
            self._drop(keep, ~_bool(cols["anony"]), "anony")
        if f.dedup_sampled:
            self._drop(keep, ~_bool(cols["dedup_tag"]), "dedup")
        if f.language is not None:
            lang = pc.fill_null(pc.equal(cols["language"], f.language), False)
            self._drop(keep, ~_bool(lang), "language")
        # a date filter makes tstamp a required column, so t is there whenever one is set
        if self.t_min is not None and t is not None:
            self._drop(keep, np.logical_not(t >= self.t_min), "min_date")  # a missing time (NaN) is dropped
        if self.t_max is not None and t is not None:
            self._drop(keep, np.logical_not(t < self.t_max), "max_date")
        if f.min_turn is not None:
            turn = np.asarray(pc.fill_null(cols["turn"].cast(pa.int64()), -1).to_numpy(zero_copy_only=False))
            self._drop(keep, turn < f.min_turn, "min_turn")

        if t is None:
            t = np.full(n, np.nan)
        for key, col in (("a", a), ("b", b), ("o", outcome), ("t", t)):
            self.parts[key].append(col[keep])
        self.parts["r"].append(np.flatnonzero(keep) + first_row)

    def _drop(self, keep: np.ndarray, remove: np.ndarray, name: str) -> None:
        hit = keep & remove
        self.removed[name] += int(hit.sum())
        keep &= ~hit

    def _column(self, key: str, dtype: npt.DTypeLike) -> np.ndarray:
        # One column at a time, dropping its parts: the peak is the data plus one column.
        parts = self.parts[key]
        col = np.concatenate(parts) if parts else np.empty(0, dtype)
        parts.clear()
        return col

    def finish(self, has_tstamp: bool, path: Path | None = None) -> Battles:
        a = self._column("a", np.int32)
        b = self._column("b", np.int32)
        o = self._column("o", np.int8)
        t = self._column("t", np.float64)
        rows = self._column("r", np.int64)
        report = BattleReport(self.source, self.rows_read, dict(self.bad), dict(self.removed), int(a.shape[0]))
        if a.shape[0] == 0:
            where = path if path is not None else self.source
            why = ", ".join(f"{k} {v}" for k, v in {**self.bad, **self.removed}.items() if v)
            raise UserError(f"{where}: no battles left of {self.rows_read} rows ({why or 'none valid'})")
        names = sorted(self.index, key=self.index.__getitem__)
        used = np.zeros(len(names), dtype=bool)
        used[a] = True
        used[b] = True
        if not used.all():
            # Models that only appeared in dropped rows are left out of the table.
            remap = np.full(len(names), -1, dtype=np.int32)
            order = np.flatnonzero(used)
            remap[order] = np.arange(order.size, dtype=np.int32)
            a, b = remap[a], remap[b]
            names = [names[k] for k in order]
        return Battles(
            models=tuple(names),
            model_a=a,
            model_b=b,
            outcome=o,
            tstamp=t if has_tstamp else None,
            report=report,
            source_row=rows,
        )


def _bool(arr: pa.Array) -> np.ndarray:
    if isinstance(arr, pa.ChunkedArray):
        arr = arr.combine_chunks()
    if not pa.types.is_boolean(arr.type):
        arr = pc.is_in(pc.utf8_lower(arr.cast(pa.string())), pa.array(["true", "1"]))
    return np.asarray(pc.fill_null(arr, False).to_numpy(zero_copy_only=False), dtype=bool)


def _utc_seconds(day: dt.date) -> float:
    return dt.datetime(day.year, day.month, day.day, tzinfo=dt.UTC).timestamp()


def write_battles_jsonl(rows: Iterator[Mapping[str, Any]] | list[Mapping[str, Any]], path: str | Path) -> int:
    """Write battle dicts as compact JSON Lines (UTF-8); returns the number of rows."""
    path = Path(path)
    n = 0
    with path.open("w", encoding="utf-8") as f:
        for row in rows:
            f.write(compact_json(row))
            n += 1
    return n


__all__ = [
    "OUTCOMES",
    "BattleFilters",
    "BattleReport",
    "Battles",
    "battles_from_columns",
    "read_battles",
    "write_battles_jsonl",
]


@njit(cache=True, nogil=True)  # the Elo fit runs it beside its own loop
def _in_time_order(t: np.ndarray) -> bool:  # pragma: no cover - compiled
    """Non-decreasing times, then only missing ones (NaN) to the end.

    Branch-free over the timed part (it vectorises: about 0.15 ms per million rows)."""
    m = t.shape[0]
    while m > 0 and np.isnan(t[m - 1]):
        m -= 1
    if m > 0 and np.isnan(t[0]):
        return False
    bad = 0
    for q in range(1, m):
        x = t[q]
        bad += (x < t[q - 1]) | (x != x)  # out of order, or missing before a time
    return bad == 0
