"""Battles I/O through DuckDB: every format, compressed or not, file order, filters, bad rows, errors."""

from __future__ import annotations

import datetime as dt
import gzip
import json

import numpy as np
import pyarrow as pa
import pyarrow.csv as pcsv
import pyarrow.parquet as pq
import pytest

import builder.pairwise.battles as bmod
from builder.errors import UserError
from builder.pairwise.battles import BattleFilters
from builder.pairwise.scan import ReaderSettings, read_battles

DAY = 86_400

ROWS = [
    # 2026-01-01 = 1767225600
    {"model_a": "m1", "model_b": "m2", "winner": "model_a", "tstamp": 1767225600 + 10, "anony": True,
     "language": "English", "turn": 1, "dedup_tag": {"high_freq": False, "sampled": True}},
    {"model_a": "m2", "model_b": "m3", "winner": "tie", "tstamp": 1767225600 + DAY, "anony": False,
     "language": "English", "turn": 2, "dedup_tag": {"high_freq": True, "sampled": False}},
    {"model_a": "m3", "model_b": "m1", "winner": "tie (bothbad)", "tstamp": 1767225600 + 2 * DAY, "anony": True,
     "language": "German", "turn": 3, "dedup_tag": {"high_freq": False, "sampled": True}},
    {"model_a": "m1", "model_b": "m3", "winner": "model_b", "tstamp": 1767225600 + 3 * DAY, "anony": True,
     "language": "English", "turn": 1, "dedup_tag": {"high_freq": False, "sampled": True}},
    # bad rows: one of each kind, plus a row that is bad twice (counted once, as missing)
    {"model_a": "m1", "model_b": "m2", "winner": "model_c", "tstamp": 1767225600 + 4 * DAY, "anony": True,
     "language": "English", "turn": 1, "dedup_tag": {"sampled": True}},
    {"model_a": None, "model_b": "m2", "winner": "model_a", "tstamp": 1767225600 + 4 * DAY, "anony": True,
     "language": "English", "turn": 1, "dedup_tag": {"sampled": True}},
    {"model_a": "m2", "model_b": "m2", "winner": "model_a", "tstamp": 1767225600 + 4 * DAY, "anony": True,
     "language": "English", "turn": 1, "dedup_tag": {"sampled": True}},
    {"model_a": "", "model_b": "m2", "winner": "nobody", "tstamp": 1767225600 + 4 * DAY, "anony": True,
     "language": "English", "turn": 1, "dedup_tag": {"sampled": True}},
]


def _write(tmp_path, fmt: str, rows=ROWS):
    if fmt == "json":
        p = tmp_path / "b.json"
        p.write_text(json.dumps(rows, indent=2))
    elif fmt == "jsonl":
        p = tmp_path / "b.jsonl"
        p.write_text("".join(json.dumps(r) + "\n" for r in rows))
    elif fmt == "csv":
        p = tmp_path / "b.csv"
        flat = [{**r, "dedup_tag": repr(r["dedup_tag"])} for r in rows]  # as pandas writes a dict
        pcsv.write_csv(pa.Table.from_pylist(flat), p)
    else:
        p = tmp_path / "b.parquet"
        pq.write_table(pa.Table.from_pylist(rows), p)
    return p


FORMATS = ["json", "jsonl", "csv", "parquet"]


@pytest.mark.parametrize("fmt", FORMATS)
def test_every_format_reads_the_same(tmp_path, fmt):
    b = read_battles(_write(tmp_path, fmt))
    assert b.models == ("m1", "m2", "m3")
    names = [(b.models[x], b.models[y], bmod.OUTCOMES[o])
             for x, y, o in zip(b.model_a, b.model_b, b.outcome, strict=True)]
    assert names == [("m1", "m2", "model_a"), ("m2", "m3", "tie"), ("m3", "m1", "tie (bothbad)"),
                     ("m1", "m3", "model_b")]
    assert b.model_a.dtype == np.int32 and b.outcome.dtype == np.int8
    assert b.tstamp is not None and b.tstamp[0] == 1767225610.0
    rep = b.report
    assert rep.rows_read == 8 and rep.rows_kept == 4
    assert dict(rep.bad_rows) == {"missing_model": 2, "same_model": 1, "unknown_winner": 1}


@pytest.mark.parametrize("fmt", FORMATS)
def test_filters_report_rows_removed(tmp_path, fmt):
    p = _write(tmp_path, fmt)
    f = BattleFilters(anony_only=True, dedup_sampled=True, language="English",
                      min_date=dt.date(2026, 1, 1), max_date=dt.date(2026, 1, 3), min_turn=1)
    b = read_battles(p, f)
    # anony removes row 2; then language removes row 3 (German); max_date keeps the 4th (Jan 4) out.
    assert dict(b.report.removed) == {"anony": 1, "dedup": 0, "language": 1, "min_date": 0, "max_date": 1,
                                      "min_turn": 0}
    assert len(b) == 1 and b.models == ("m1", "m2")
    b = read_battles(p, BattleFilters(dedup_sampled=True, min_turn=2, min_date=dt.date(2026, 1, 2)))
    assert dict(b.report.removed) == {"dedup": 1, "min_date": 1, "min_turn": 1}
    assert len(b) == 1


def test_parallel_scan_keeps_file_order(tmp_path):
    # Enough rows for DuckDB to split the file between threads; codes follow first appearance.
    rng = np.random.default_rng(0)
    n = 120_000
    ia, step, w = rng.integers(0, 9, n), rng.integers(1, 9, n), rng.integers(0, 3, n)
    ib = (ia + step) % 9
    rows = [{"model_a": f"m{x}", "model_b": f"m{y}", "winner": bmod.OUTCOMES[o], "tstamp": 1.5 * i}
            for i, (x, y, o) in enumerate(zip(ia.tolist(), ib.tolist(), w.tolist(), strict=True))]
    p = tmp_path / "big.jsonl"
    p.write_text("".join(json.dumps(r) + "\n" for r in rows))
    b = read_battles(p, settings=ReaderSettings(threads=2))
    seen_a = list(dict.fromkeys(f"m{x}" for x in ia.tolist()))
    models = tuple(seen_a + [m for m in dict.fromkeys(f"m{y}" for y in ib.tolist()) if m not in seen_a])
    assert b.models == models and len(b) == n
    code = {m: k for k, m in enumerate(models)}
    assert np.array_equal(b.model_a, [code[f"m{x}"] for x in ia.tolist()])
    assert np.array_equal(b.model_b, [code[f"m{y}"] for y in ib.tolist()])
    assert np.array_equal(b.outcome, w) and np.array_equal(b.tstamp, 1.5 * np.arange(n))


@pytest.mark.parametrize("fmt", FORMATS)
def test_empty_input_is_a_user_error(tmp_path, fmt):
    if fmt == "json":
        p = tmp_path / "e.json"
        p.write_text("[]\n")
    elif fmt == "jsonl":
        p = tmp_path / "e.jsonl"
        p.write_text("\n")
    elif fmt == "csv":
        p = tmp_path / "e.csv"
        p.write_text("")
    else:
        p = tmp_path / "e.parquet"
        pq.write_table(pa.table({"model_a": pa.array([], pa.string()), "model_b": pa.array([], pa.string()),
                                 "winner": pa.array([], pa.string())}), p)
    with pytest.raises(UserError, match=r"e\.(json|jsonl|csv|parquet).*no battles"):
        read_battles(p)


def test_all_rows_bad_is_a_user_error(tmp_path):
    p = _write(tmp_path, "jsonl", ROWS[4:])
    with pytest.raises(UserError, match="no battles left of 4 rows .*missing_model 2, same_model 1, unknown_winner 1"):
        read_battles(p)


@pytest.mark.parametrize("fmt", FORMATS)
def test_missing_required_column_names_file_and_column(tmp_path, fmt):
    rows = [{k: v for k, v in r.items() if k != "winner"} for r in ROWS[:3]]
    p = _write(tmp_path, fmt, rows)
    with pytest.raises(UserError, match=rf"{p.name}.*no column 'winner'"):
        read_battles(p)


@pytest.mark.parametrize("fmt", FORMATS)
def test_missing_filter_column_names_the_filter(tmp_path, fmt):
    rows = [{k: v for k, v in r.items() if k != "anony"} for r in ROWS[:3]]
    p = _write(tmp_path, fmt, rows)
    assert len(read_battles(p)) == 3
    with pytest.raises(UserError, match=r"no column 'anony', which the anony_only filter needs"):
        read_battles(p, BattleFilters(anony_only=True))


def test_malformed_json_names_file_and_record(tmp_path):
    good = '{"model_a": "a", "model_b": "b", "winner": "tie"}'
    p = tmp_path / "bad.jsonl"
    p.write_text("\n".join([good, good, good, '{"model_a": "a", "model_b" "b"}', good]) + "\n")
    with pytest.raises(UserError, match=r"^\S*bad\.jsonl: line 4: invalid JSON \(") as err:
        read_battles(p)
    assert "\n" not in str(err.value)
    p = tmp_path / "bad.json"
    p.write_text("[" + ",".join([good, good, '{"model_a": "a", "model_b" "b"}', good]) + "]")
    with pytest.raises(UserError, match=r"bad\.json: record \d+: invalid JSON \("):
        read_battles(p)
    p.write_text("[" + ",".join([good, "17", good]) + "]")
    with pytest.raises(UserError, match=r"bad\.json: record 2: a battle must be a JSON object"):
        read_battles(p)
    p.write_text("[17, " + good + "]")
    with pytest.raises(UserError, match=r"bad\.json: record 1: a battle must be a JSON object"):
        read_battles(p)


def test_unreadable_csv_and_parquet_are_one_line_errors(tmp_path):
    p = tmp_path / "bad.parquet"
    p.write_bytes(b"PAR1 this is not parquet")
    with pytest.raises(UserError, match=r"bad\.parquet: cannot read battles") as err:
        read_battles(p)
    assert "\n" not in str(err.value)
    p = tmp_path / "bad.csv"
    p.write_text('model_a,model_b,winner\na,b,tie\na,"b,tie\n')
    with pytest.raises(UserError, match=r"bad\.csv") as err:
        read_battles(p)
    assert "\n" not in str(err.value)


@pytest.mark.parametrize("fmt", ["json", "jsonl", "csv"])
def test_compressed_files_read_like_plain_ones(tmp_path, fmt):
    plain = _write(tmp_path, fmt)
    packed = plain.with_name(plain.name + ".gz")
    packed.write_bytes(gzip.compress(plain.read_bytes()))
    a, b = read_battles(plain), read_battles(packed)
    assert a.models == b.models and a.report.bad_rows == b.report.bad_rows
    for col in ("model_a", "model_b", "outcome", "tstamp"):
        assert np.array_equal(getattr(a, col), getattr(b, col))


def test_missing_file_and_unknown_format(tmp_path):
    with pytest.raises(UserError, match="not found"):
        read_battles(tmp_path / "nope.json")
    p = tmp_path / "b.txt"
    p.write_text("x")
    with pytest.raises(UserError, match="unknown battles format"):
        read_battles(p)


def test_wrong_value_types_are_bad_rows_not_crashes(tmp_path):
    rows = [{"model_a": "a", "model_b": "b", "winner": "model_a", "tstamp": "yesterday"},
            {"model_a": 5, "model_b": "b", "winner": "model_b", "tstamp": 3},
            {"model_a": "a", "model_b": "b", "winner": None, "tstamp": 4}]
    b = read_battles(_write(tmp_path, "json", rows))
    assert len(b) == 1 and np.isnan(b.tstamp[0])
    assert dict(b.report.bad_rows) == {"missing_model": 1, "same_model": 0, "unknown_winner": 1}


def test_real_genai_arena_file(shared_data):
    path = shared_data / "arena" / "genai-arena" / "clean_battle_20240220.json"
    b = read_battles(path)
    assert b.report.rows_read == 2061 and len(b) == 2060 and len(b.models) == 13
    assert dict(b.report.bad_rows) == {"missing_model": 0, "same_model": 1, "unknown_winner": 0}
    anon = read_battles(path, BattleFilters(anony_only=True))
    # 546 rows are not anonymous; one of them is the same-model row, already counted as bad.
    assert dict(anon.report.removed) == {"anony": 545} and len(anon) == 1515
    assert int((anon.outcome == bmod.TIE_BOTHBAD).sum()) > 0


@pytest.mark.parametrize(
    ("times", "in_order"),
    [
        ([], True),
        ([float("nan")], True),
        ([1.0, 1.0, 2.0], True),
        ([1.0, 2.0, float("nan"), float("nan")], True),  # rows without a time go last
        ([-float("inf"), 0.0, float("inf")], True),
        ([2.0, 1.0], False),
        ([float("nan"), 1.0], False),
        ([1.0, float("nan"), 2.0], False),
        ([1.0, 3.0, 2.0, float("nan")], False),
    ],
)
def test_in_time_order(times, in_order):
    n = len(times)
    b = bmod.Battles(("a", "b"), np.zeros(n, np.int32), np.ones(n, np.int32), np.zeros(n, np.int8),
                     np.array(times, dtype=np.float64))
    assert b.in_time_order() is in_order
    # in order exactly when sorting by time (stable, missing times last) changes nothing
    assert bool(np.array_equal(b.chronological(), np.arange(n))) is in_order
