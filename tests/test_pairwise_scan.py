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
    FEATURE_MALFORMED,
    FEATURE_MISSING,
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
        {**base},  # no metadata: missing
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
    assert tok.quality[1] == FEATURE_MALFORMED and np.isnan(tok.values[1]) and tok.first_malformed == 2
    if fmt != "parquet":
        assert head.quality[2] == FEATURE_MALFORMED and head.first_malformed == 3
    assert list(tok.quality[3:]) == [FEATURE_MISSING, FEATURE_OK] and tok.values[4] == 7
    no_meta = 2 + (fmt == "parquet")  # rows without conv_metadata
    assert head.quality[4] == FEATURE_MISSING
    assert bold.counts() == {"ok": 5 - no_meta, "missing": no_meta, "malformed": 0}
    assert table.column_names == ["tokens_a", "headers_a", "bold_a"] and table.num_rows == 5
    assert table["tokens_a"].null_count == no_meta  # one malformed, the rest without conv_metadata


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
