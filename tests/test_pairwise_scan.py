"""The DuckDB scan's reductions: pair counts, per-period counts, feature columns, bounded
memory, and its settings from the command line and site.yml."""

from __future__ import annotations

import datetime as dt
import json
import re
from collections import Counter
from pathlib import Path

import duckdb
import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

from builder.config import PACKAGE_DATA
from builder.errors import UserError
from builder.pairwise.battles import OUTCOMES, BattleFilters
from builder.pairwise.bt import count_pairs
from builder.pairwise.history import period_counts_of
from builder.pairwise.scan import (
    FEATURE_MISSING,
    FEATURE_NEGATIVE,
    FEATURE_NO_OBJECT,
    FEATURE_NON_NUMERIC,
    FEATURE_OK,
    FeatureSpec,
    ReaderSettings,
    scan_battles,
)

DEMO = PACKAGE_DATA / "demo" / "battles" / "clean_battle_demo.jsonl"
ROOT = Path(__file__).resolve().parents[1]


def test_pair_counts_are_the_counts_of_the_battles():
    with scan_battles(DEMO, BattleFilters(anony_only=True)) as scan:
        counts, battles = scan.pair_counts(), scan.battles()
    ref = count_pairs(battles)
    assert counts.models == ref.models
    for col in ("i", "j", "wins_i", "wins_j", "ties"):
        assert np.array_equal(getattr(counts, col), getattr(ref, col)), col


@pytest.mark.parametrize("fmt", ["jsonl", "json", "csv", "parquet"])
def test_a_counting_scan_skips_the_times_and_counts_the_same(tmp_path, fmt):
    src = tmp_path / "demo.jsonl"
    src.write_text(DEMO.read_text() + json.dumps({"model_a": "x", "model_b": "x", "winner": "tie", "tstamp": "late"})
                   + "\n")
    path = tmp_path / f"demo.{fmt}"
    if fmt != "jsonl":
        cols = "model_a, model_b, winner, tstamp" if fmt == "csv" else "*"
        options = {"json": "FORMAT json, ARRAY true", "csv": "FORMAT csv, HEADER true", "parquet": "FORMAT parquet"}
        duckdb.execute(f"COPY (SELECT {cols} FROM read_json('{src}', format='newline_delimited', "
                       f"columns={{model_a: 'VARCHAR', model_b: 'VARCHAR', winner: 'VARCHAR', tstamp: 'JSON', "
                       f"anony: 'BOOLEAN'}})) TO '{path}' ({options[fmt]})")
    else:
        path = src
    times = sorted(json.loads(line)["tstamp"] for line in DEMO.read_text().splitlines())
    middle = dt.datetime.fromtimestamp(times[len(times) // 2], dt.UTC).date()
    dated = BattleFilters(min_date=middle)  # removes the earlier half: a counting scan still reads the times
    for filters in (BattleFilters(), dated):
        with scan_battles(path, filters) as scan:
            want, want_report = scan.pair_counts(), scan.report
        with scan_battles(path, filters, times=False) as scan:
            got, report = scan.pair_counts(), scan.report
            assert scan.battles().tstamp is None
            with pytest.raises(ValueError, match="times=False"):
                scan.period_counts("day")
        assert report == want_report and got.models == want.models
        assert report.bad_rows["same_model"] == 1
        for col in ("i", "j", "wins_i", "wins_j", "ties"):
            assert np.array_equal(getattr(got, col), getattr(want, col)), (fmt, col)
    assert want_report.removed["min_date"] >= len(times) // 3


@pytest.mark.parametrize("period", ["day", "week", "month"])
def test_period_counts_in_sql_equal_the_numpy_ones(tmp_path, period):
    # Times around the epoch, month ends and a leap day, plus rows without a time.
    times = [-86_400.5, -1.0, 0.0, 1.0, 951_782_400.0, 951_868_799.0, 1_767_225_599.0, 1_767_225_600.0,
             1_769_904_000.0, None, "later"]
    rows = [{"model_a": f"m{k % 3}", "model_b": f"m{(k + 1) % 3}", "winner": OUTCOMES[k % 4], "tstamp": t}
            for k, t in enumerate(times * 3)]
    p = tmp_path / "t.json"
    p.write_text(json.dumps(rows))
    with scan_battles(p) as scan:
        got, battles = scan.period_counts(period), scan.battles()
    want = period_counts_of(battles, period)
    assert got.undated == want.undated == 6
    assert got.last_tstamp == want.last_tstamp
    for col in ("period", "key", "cell", "count"):
        assert np.array_equal(getattr(got, col), getattr(want, col)), col


def _big_jsonl(path, n: int) -> Counter:
    """``n`` battles of about 430 bytes each, written by DuckDB; returns the true counts."""
    duckdb.execute(f"""
        COPY (SELECT 'model-' || (i * 7 % 37) AS model_a,
                     'model-' || ((i * 7 % 37 + 1 + i % 36) % 37) AS model_b,
                     ['model_a', 'model_b', 'tie', 'tie (bothbad)'][i % 4 + 1] AS winner,
                     1767225600 + i AS tstamp, i % 5 <> 0 AS anony,
                     repeat('x', 330) AS padding
              FROM range({n}) t(i)) TO '{path}' (FORMAT json)""")
    i = np.arange(n)
    a = i * 7 % 37
    b = (a + 1 + i % 36) % 37
    keep = i % 5 != 0
    return Counter(zip((f"model-{x}" for x in a[keep]), (f"model-{y}" for y in b[keep]),
                       (OUTCOMES[o] for o in (i % 4)[keep]), strict=True))


def test_a_file_larger_than_the_memory_limit_is_counted_exactly(tmp_path):
    path = tmp_path / "big.jsonl"
    truth = _big_jsonl(path, 150_000)
    limit = 48 << 20
    assert path.stat().st_size > limit
    settings = ReaderSettings(memory_limit="48MB", temp_directory=tmp_path / "spill", threads=1)
    with scan_battles(path, BattleFilters(anony_only=True), settings) as scan:
        counts, report = scan.pair_counts(), scan.report
    assert report.rows_read == 150_000 and report.removed == {"anony": 30_000}
    got: Counter = Counter()
    for i, j, wi, wj, t in zip(counts.i, counts.j, counts.wins_i, counts.wins_j, counts.ties, strict=True):
        got[(counts.models[i], counts.models[j], "i")] += wi
        got[(counts.models[i], counts.models[j], "j")] += wj
        got[(counts.models[i], counts.models[j], "t")] += t
    want: Counter = Counter()
    for (ma, mb, w), c in truth.items():
        lo, hi = sorted((ma, mb), key=counts.models.index)
        side = "t" if w.startswith("tie") else ("i" if (w == "model_a") == (ma == lo) else "j")
        want[(lo, hi, side)] += c
    assert +got == +want
    assert not list((tmp_path / "spill").iterdir())  # the private spill folder is removed


META = {"sum_assistant_a_tokens": 120, "header_count_a": {"h1": 1, "h2": 2}, "bold_count_a": {"**": 3, "__": 1}}
FEATURES = [FeatureSpec("tokens_a", ("conv_metadata", "sum_assistant_a_tokens")),
            FeatureSpec("headers_a", ("conv_metadata", "header_count_a")),
            FeatureSpec("bold_a", ("conv_metadata", "bold_count_a"))]


def _feature_rows():
    base = {"model_a": "a", "model_b": "b", "winner": "model_a"}
    return [
        {**base, "conv_metadata": META},
        {**base, "conv_metadata": {**META, "sum_assistant_a_tokens": -5}},  # negative: malformed
        {**base, "conv_metadata": {**META, "header_count_a": {"h1": "two"}}},  # not a number: malformed
        {**base},  # no metadata object
        {**base, "model_b": "a", "conv_metadata": META},  # a bad row: not in the output
        {**base, "conv_metadata": {"sum_assistant_a_tokens": 7}},  # the two counts missing
    ]


@pytest.mark.parametrize("fmt", ["json", "jsonl", "parquet"])
def test_feature_columns_per_battle(tmp_path, fmt):
    rows = _feature_rows()
    if fmt == "parquet":
        rows[2] = {k: v for k, v in rows[2].items() if k != "conv_metadata"}  # a struct column has one type
        p = tmp_path / "f.parquet"
        pq.write_table(pa.Table.from_pylist(rows), p)
    else:
        p = tmp_path / f"f.{fmt}"
        p.write_text(json.dumps(rows) if fmt == "json" else "".join(json.dumps(r) + "\n" for r in rows))
    with scan_battles(p, features=FEATURES) as scan:
        cols = scan.features()
        assert len(scan.battles()) == 5
        table = scan.features_arrow()
    tok, head, bold = cols["tokens_a"], cols["headers_a"], cols["bold_a"]
    assert tok.values[0] == 120 and head.values[0] == 3 and bold.values[0] == 4
    assert tok.quality[1] == FEATURE_NEGATIVE and np.isnan(tok.values[1]) and tok.first_malformed == 2
    if fmt != "parquet":
        assert head.quality[2] == FEATURE_NON_NUMERIC and head.first_malformed == 3
    assert list(tok.quality[3:]) == [FEATURE_NO_OBJECT, FEATURE_OK] and tok.values[4] == 7
    no_meta = 1 + (fmt == "parquet")  # rows without conv_metadata
    assert head.quality[4] == FEATURE_MISSING
    assert bold.counts() == {"ok": 4 - no_meta, "missing": 1, "no_object": no_meta, "negative": 0,
                             "non_numeric": 0}
    assert table.column_names == ["tokens_a", "headers_a", "bold_a"] and table.num_rows == 5
    assert table["tokens_a"].null_count == 1 + no_meta  # one malformed, the rest without conv_metadata


def _count_rows():
    base = {"model_a": "a", "model_b": "b", "winner": "model_a"}
    return [
        {**base, "model_b": "a", "conv_metadata": {"h": {"x": -1}}},  # a bad row: never the first malformed
        {**base, "conv_metadata": {"h": {"x": 1, "y": None}}},  # a null inside a dict counts nothing
        {**base, "conv_metadata": {"h": {}}},  # an empty dict counts 0
        {**base, "conv_metadata": {"h": {"x": -1, "y": "2"}}},  # non-numeric beats negative
        {**base, "conv_metadata": {"h": {"x": -1, "y": 2}}},  # negative
        {**base, "conv_metadata": {"h": True}},  # a boolean is not a count
        {**base, "conv_metadata": {"h": "3"}},  # nor is text that looks like one
        {**base, "conv_metadata": {"h": [1, 2]}},  # nor a list
        {**base, "conv_metadata": "none"},  # not an object: no object
        {**base, "conv_metadata": None},  # null: no object
        {**base, "conv_metadata": {"h": None}},  # null: missing
    ]


@pytest.mark.parametrize("fmt", ["json", "jsonl", "jsonl.gz"])
def test_feature_counts_by_kind_and_the_first_malformed_line(tmp_path, fmt):
    import gzip

    rows = _count_rows()
    p = tmp_path / f"c.{fmt}"
    if fmt == "json":  # pretty-printed: records span several lines
        text = "[\n" + ",\n".join(json.dumps(r, indent=2) for r in rows) + "\n]\n"
        first_line = 2 + sum(json.dumps(r, indent=2).count("\n") + 1 for r in rows[:3])
    else:  # blank lines are not records
        text = "".join(json.dumps(r) + "\n" + ("\n" if k == 1 else "") for k, r in enumerate(rows))
        first_line = 5
    p.write_bytes(gzip.compress(text.encode()) if fmt.endswith(".gz") else text.encode())
    with scan_battles(p, features=[FeatureSpec("h", ("conv_metadata", "h"))]) as scan:
        col = scan.features()["h"]
        assert len(scan.battles()) == len(rows) - 1
        assert col.first_malformed == 4 and scan.locate(col.first_malformed) == f"line {first_line}"
    assert col.values[:2].tolist() == [1.0, 0.0] and np.isnan(col.values[2:]).all()
    assert col.quality.tolist() == [FEATURE_OK, FEATURE_OK, FEATURE_NON_NUMERIC, FEATURE_NEGATIVE,
                                    FEATURE_NON_NUMERIC, FEATURE_NON_NUMERIC, FEATURE_NON_NUMERIC,
                                    FEATURE_NO_OBJECT, FEATURE_NO_OBJECT, FEATURE_MISSING]


def test_typed_feature_counts_in_parquet(tmp_path):
    base = {"model_a": ["a"] * 6, "model_b": ["b"] * 6, "winner": ["tie"] * 6}
    meta = pa.StructArray.from_arrays([
        pa.array([{"x": 1, "y": None}, {"x": 2, "y": 3}, None, {"x": -1, "y": 0}, {"x": 1, "y": 1}, {"x": 0, "y": 0}]),
        pa.array([[("h1", 2), ("h2", 3)], [], [("h1", -1)], None, [("h1", 1)], [("h1", 0)]],
                 type=pa.map_(pa.string(), pa.int64())),
        pa.array(["12", None, "1", None, None, None]),
        pa.array([1.5, float("nan"), 2.0, 1.0, -0.5, 0.0]),
    ], names=["dict", "map", "text", "float"], mask=pa.array([False, False, True, False, False, False]))
    p = tmp_path / "t.parquet"
    pq.write_table(pa.table({**base, "conv_metadata": meta}), p)
    specs = [FeatureSpec(n, ("conv_metadata", n)) for n in ("dict", "map", "text", "float", "absent")]
    with scan_battles(p, features=specs) as scan:
        cols = scan.features()
        assert scan.locate(4) == "row 4"
    q = {k: c.quality.tolist() for k, c in cols.items()}
    assert cols["dict"].values[:2].tolist() == [1.0, 5.0] and cols["map"].values[:2].tolist() == [5.0, 0.0]
    assert q["dict"] == [FEATURE_OK, FEATURE_OK, FEATURE_NO_OBJECT, FEATURE_NEGATIVE, FEATURE_OK, FEATURE_OK]
    assert q["map"] == [FEATURE_OK, FEATURE_OK, FEATURE_NO_OBJECT, FEATURE_MISSING, FEATURE_OK, FEATURE_OK]
    assert q["text"] == [FEATURE_NON_NUMERIC, FEATURE_MISSING, FEATURE_NO_OBJECT] + [FEATURE_MISSING] * 3
    assert q["float"] == [FEATURE_OK, FEATURE_NON_NUMERIC, FEATURE_NO_OBJECT, FEATURE_OK, FEATURE_NEGATIVE, FEATURE_OK]
    assert q["absent"] == [FEATURE_MISSING, FEATURE_MISSING, FEATURE_NO_OBJECT] + [FEATURE_MISSING] * 3
    assert cols["dict"].first_malformed == 4 and cols["float"].first_malformed == 2
    # conv_metadata written as JSON text in a Parquet column is read as JSON
    text = pa.array([json.dumps({"dict": {"x": 4, "y": 1}}), "not json", None, json.dumps({"dict": -2}), "{}", "[]"])
    p2 = tmp_path / "j.parquet"
    pq.write_table(pa.table({**base, "conv_metadata": text}), p2)
    with scan_battles(p2, features=specs[:1]) as scan:
        col = scan.features()["dict"]
    assert col.values[0] == 5.0
    assert col.quality.tolist() == [FEATURE_OK, FEATURE_NO_OBJECT, FEATURE_NO_OBJECT, FEATURE_NEGATIVE,
                                    FEATURE_MISSING, FEATURE_NO_OBJECT]


def test_csv_has_no_features(tmp_path):
    p = tmp_path / "b.csv"
    p.write_text("model_a,model_b,winner\na,b,tie\n")
    with pytest.raises(UserError, match="CSV carries no nested metadata"):
        with scan_battles(p, features=FEATURES):
            pass


def test_reader_settings_errors_are_one_line(tmp_path):
    with pytest.raises(UserError, match="arena.reader: invalid DuckDB setting"):
        with scan_battles(DEMO, settings=ReaderSettings(memory_limit="lots")):
            pass
    from builder.cli.arena import arena

    res = CliRunner().invoke(arena, ["fit", "--input", str(DEMO), "--memory-limit", "lots"])
    assert res.exit_code == 2 and "--memory-limit 'lots'" in res.output


def test_cli_reader_settings_come_from_options_then_site_yml(tmp_path, monkeypatch):
    from builder.cli import main
    from builder.pairwise import scan as scan_mod

    seen = []
    real = scan_mod.connect

    def spy(settings=None):
        seen.append(settings)
        return real(settings)

    monkeypatch.setattr(scan_mod, "connect", spy)
    cfg = tmp_path / "site.yml"
    site = (ROOT / "site.yml").read_text(encoding="utf-8")
    shipped = re.search(r"\n  reader:.*\n    memory_limit: 512MB\n", site)
    assert shipped, "site.yml states the reader's default memory limit"
    reader = f"\n  reader:\n    memory_limit: 300MB\n    threads: 1\n    temp_directory: {tmp_path / 'sp'}\n"
    cfg.write_text(site.replace(shipped[0], reader), encoding="utf-8")
    out = tmp_path / "r.json"
    res = CliRunner().invoke(main, ["--config", str(cfg), "arena", "fit", "--input", str(DEMO), "--output", str(out)])
    assert res.exit_code == 0, res.output
    assert seen[-1] == ReaderSettings("300MB", tmp_path / "sp", 1)
    res = CliRunner().invoke(main, ["--config", str(cfg), "arena", "fit", "--input", str(DEMO), "--memory-limit",
                                    "200MB", "--threads", "2", "--output", str(out)])
    assert res.exit_code == 0, res.output
    assert seen[-1] == ReaderSettings("200MB", tmp_path / "sp", 2)


def test_date_filters_are_utc_days(tmp_path):
    day = dt.datetime(2026, 3, 1, tzinfo=dt.UTC).timestamp()
    rows = [{"model_a": "a", "model_b": "b", "winner": "tie", "tstamp": t} for t in (day - 1, day, day + 86_399.5,
                                                                                     day + 86_400)]
    p = tmp_path / "d.jsonl"
    p.write_text("".join(json.dumps(r) + "\n" for r in rows))
    with scan_battles(p, BattleFilters(min_date=dt.date(2026, 3, 1), max_date=dt.date(2026, 3, 1))) as scan:
        assert scan.report.removed == {"min_date": 1, "max_date": 1}
        assert list(scan.battles().tstamp) == [day, day + 86_399.5]


def test_a_csv_time_or_turn_that_is_not_a_number_is_null_not_an_error(tmp_path):
    p = tmp_path / "b.csv"
    p.write_text("model_a,model_b,winner,tstamp,turn\na,b,tie,1777594116,1\na,b,model_a,late,two\n"
                 "b,a,model_b,,\n")
    with scan_battles(p, BattleFilters(min_turn=1)) as scan:
        assert scan.report.rows_kept == 1 and scan.report.removed == {"min_turn": 2}
        assert list(scan.battles().tstamp) == [1777594116.0]
    with scan_battles(p) as scan:
        assert np.isnan(scan.battles().tstamp[1:]).all()


@pytest.mark.parametrize("fmt", ["jsonl", "parquet"])
def test_language_filter_value_is_quoted(tmp_path, fmt):
    rows = [{"model_a": "a", "model_b": "b", "winner": "tie", "language": lang} for lang in ("O'Brien", "x", "x')--")]
    if fmt == "parquet":
        p = tmp_path / "l.parquet"
        pq.write_table(pa.Table.from_pylist(rows), p)
    else:
        p = tmp_path / "l.jsonl"
        p.write_text("".join(json.dumps(r) + "\n" for r in rows))
    for lang, kept in (("O'Brien", 1), ("x')--", 1), ("x", 1), ("none", 0)):
        if kept:
            with scan_battles(p, BattleFilters(language=lang)) as scan:
                assert scan.report.rows_kept == kept and scan.report.removed == {"language": 3 - kept}
        else:
            with pytest.raises(UserError, match="no battles left of 3 rows"):
                with scan_battles(p, BattleFilters(language=lang)):
                    pass
