"""The spark engine (PySpark in local mode) against the DuckDB reader and the in-process fits:
the same pair counts and reports (demo battles, the real GenAI-Arena dump, hostile rows), the
same plain ratings and intervals (1e-9) and styled ones (1e-6), and the CLI and config errors.

One SparkSession for the whole test worker (``spark`` fixture, local[2], loopback, no UI)."""

from __future__ import annotations

import datetime as dt
import json
import shutil

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

from builder.errors import UserError
from builder.pairwise.battles import BattleFilters, CategoryRule
from builder.pairwise.scan import count_battles, scan_battles

pytestmark = pytest.mark.skipif(shutil.which("java") is None,
                                reason="the spark engine needs Java 17 (make install-test installs it on Debian)")

DEMO = "builder/data/demo/battles/clean_battle_demo.jsonl"
MASTER = "local[2]"
# The test JVM compiles with C1 only and collects with one thread: its jobs are many and small
# (milliseconds of data each), so C2's optimising compiles and parallel GC threads cost a third
# of its CPU and never pay back; what the jobs compute is the same.
TEST_JVM = "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC"


@pytest.fixture(scope="session")
def spark():
    pytest.importorskip("pyspark")
    from builder.pairwise.spark import SparkSettings, spark_session

    session = spark_session(SparkSettings(MASTER, {"spark.sql.shuffle.partitions": "2",
                                                   "spark.default.parallelism": "2",
                                                   "spark.driver.extraJavaOptions": TEST_JVM}))
    yield session
    session.stop()


@pytest.fixture(scope="module")
def demo_parquet(tmp_path_factory, root):
    """The demo battles as Parquet, and their first 8000 as a second file (the styled fit's)."""
    rows = [json.loads(line) for line in (root / DEMO).read_text(encoding="utf-8").splitlines() if line.strip()]
    folder = tmp_path_factory.mktemp("spark")
    pq.write_table(pa.Table.from_pylist(rows), folder / "demo.parquet")
    pq.write_table(pa.Table.from_pylist(rows[:8000]), folder / "head.parquet")
    return folder / "demo.parquet"


def _same_counts(a, b) -> bool:
    return a.models == b.models and all(np.array_equal(getattr(a, c), getattr(b, c))
                                        for c in ("i", "j", "wins_i", "wins_j", "ties"))


def _spark_counts(spark, path, filters):
    from builder.pairwise.spark import SparkScan

    scan = SparkScan(spark, str(path), filters)
    return scan.pair_counts(), scan.report


def test_pair_counts_equal_duckdb_on_demo_and_real_battles(spark, root, demo_parquet, shared_data):
    genai = shared_data / "arena" / "genai-arena" / "clean_battle_20240220.json"
    cases = [
        (root / DEMO, BattleFilters(official=True)),
        (demo_parquet, BattleFilters(min_date=dt.date(2026, 6, 1), max_date=dt.date(2026, 9, 30))),
        (genai, BattleFilters(official=True, voter_daily_cap=3)),  # the dump names its voter: judge
        (genai, BattleFilters(models="_generation$")),  # the text-to-image arena of the mixed dump
    ]
    for path, filters in cases:
        got, report = _spark_counts(spark, path, filters)
        want, want_report = count_battles(path, filters)
        assert _same_counts(got, want), path
        assert report == want_report, (path, report, want_report)
    assert report.rows_read == 2061 and report.removed["models"] > 0


HOSTILE = [
    {"model_a": "m1", "model_b": "m2", "winner": "model_a", "tstamp": 1767225610, "anony": True, "language": "English",
     "turn": 1, "dedup_tag": {"high_freq": False, "sampled": True}, "is_code": True},
    {"model_a": "m2", "model_b": "m3", "winner": "tie", "tstamp": 1767312000, "anony": False, "language": "English",
     "turn": 2, "dedup_tag": {"high_freq": True, "sampled": False}, "is_code": False},
    {"model_a": "m3", "model_b": "m1", "winner": "tie (bothbad)", "tstamp": 1767398400, "anony": True,
     "language": "German", "turn": 3, "dedup_tag": {"high_freq": False, "sampled": True}, "is_code": True},
    {"model_a": "m1", "model_b": "m3", "winner": "model_b", "tstamp": 1767484800, "anony": True, "language": "English",
     "turn": 1, "dedup_tag": {"high_freq": False, "sampled": True}, "is_code": False},
    {"model_a": "m1", "model_b": "m2", "winner": "model_c", "tstamp": 1767571200, "anony": True,
     "language": "English", "turn": 1, "dedup_tag": {"sampled": True}, "is_code": True},
    {"model_a": None, "model_b": "m2", "winner": "model_a", "tstamp": 1767571200, "anony": True,
     "language": "English", "turn": 1, "dedup_tag": {"sampled": True}, "is_code": True},
    {"model_a": "m2", "model_b": "m2", "winner": "model_a", "tstamp": 1767571200, "anony": True,
     "language": "English", "turn": 1, "dedup_tag": {"sampled": True}, "is_code": True},
    {"model_a": "", "model_b": "m2", "winner": "nobody", "tstamp": 1767571200, "anony": True,
     "language": "English", "turn": 1, "dedup_tag": {"sampled": True}, "is_code": True},
    {"model_a": " m3 ", "model_b": "m2", "winner": "both_bad", "tstamp": 1767571300, "anony": True,
     "language": "English", "turn": 4, "dedup_tag": {"sampled": True}, "is_code": True},
]
# wrong value types (JSON only: a Parquet column has one type): a number as a name, text as a time
WRONG_TYPES = [
    {"model_a": "a", "model_b": "b", "winner": "model_a", "tstamp": "yesterday", "anony": "true", "turn": "2"},
    {"model_a": 5, "model_b": "b", "winner": "model_b", "tstamp": 3, "anony": True, "turn": 2.7},
    {"model_a": "a", "model_b": "b", "winner": None, "tstamp": 4, "anony": 1, "turn": None},
    {"model_a": "b", "model_b": "a", "winner": "tie", "tstamp": 86_400 * 3, "anony": True, "turn": 3},
]


def test_bad_rows_and_filters_are_counted_as_duckdb_counts_them(spark, tmp_path):
    files = []
    for rows, stem in ((HOSTILE, "hostile"), (WRONG_TYPES, "types")):
        p = tmp_path / f"{stem}.jsonl"
        p.write_text("".join(json.dumps(r) + "\n" for r in rows) + "\n", encoding="utf-8")
        files.append(p)
        p = tmp_path / f"{stem}.json"
        p.write_text(json.dumps(rows, indent=1), encoding="utf-8")
        files.append(p)
    p = tmp_path / "hostile.parquet"
    pq.write_table(pa.Table.from_pylist(HOSTILE), p)
    files.append(p)
    filters = [
        BattleFilters(),
        BattleFilters(official=True, language="English", min_turn=2),
        BattleFilters(anony_only=True, category=CategoryRule(is_code=True, min_turn=1)),
    ]
    for path in files:
        for flt in filters:
            try:
                want = count_battles(path, flt)
            except UserError as exc:
                with pytest.raises(UserError) as got_exc:
                    _spark_counts(spark, path, flt)
                assert str(exc).split(":", 1)[1].split("(")[0] == str(got_exc.value).split(":", 1)[1].split("(")[0]
                continue
            got = _spark_counts(spark, path, flt)
            assert _same_counts(got[0], want[0]), (path, flt)
            assert got[1].to_json() == {**want[1].to_json(), "source": path.name}, (path, flt)
    assert count_battles(files[0])[1].bad_rows == {"missing_model": 2, "same_model": 1, "unknown_winner": 1}


def test_plain_ratings_and_intervals_equal_the_in_process_fit(spark, root):
    from builder.pairwise.arena import fit_rating_table

    got_counts, _ = _spark_counts(spark, root / DEMO, BattleFilters(official=True))
    want_counts, _ = count_battles(root / DEMO, BattleFilters(official=True))
    for kwargs in ({"bootstrap": 30, "seed": 3}, {"ci": "sandwich", "reweight": True}):
        got, _ = fit_rating_table(got_counts, **kwargs)
        want, _ = fit_rating_table(want_counts, **kwargs)
        assert [r["model"] for r in got] == [r["model"] for r in want]
        for g, w in zip(got, want, strict=True):
            for key in ("rating", "median", "lower", "upper"):
                assert abs(g[key] - w[key]) <= 1e-9, (g, w)


def test_styled_fit_on_spark_equals_the_in_process_fit(spark, demo_parquet):
    from builder.pairwise.arena_style import fit_styled_table
    from builder.pairwise.spark import SparkScan, fit_styled_spark, styled_table_spark
    from builder.pairwise.style import STYLE_FEATURES, contextual_columns, style_feature_specs

    flt = BattleFilters(official=True)
    specs = style_feature_specs(STYLE_FEATURES)
    head = demo_parquet.with_name("head.parquet")
    res = fit_styled_spark(SparkScan(spark, str(head), flt, specs), STYLE_FEATURES, [], reweight=True)
    with scan_battles(head, flt, features=specs) as scan:
        battles, styles = scan.battles(), contextual_columns(scan, STYLE_FEATURES, [])
    want = fit_styled_table(battles, styles, reweight=True, ci="sandwich")
    assert res.report.rows == styles.report.rows
    assert res.fit.models == want.fit.models and res.fit.n_battles == want.fit.n_battles
    for got, ref in ((res.fit.ratings, want.fit.ratings), (res.fit.beta, want.fit.beta),
                     (res.intervals.lower, want.intervals.lower), (res.intervals.upper, want.intervals.upper),
                     (res.intervals.beta_lower, want.intervals.beta_lower)):
        assert np.array_equal(np.isnan(got), np.isnan(ref))
        assert np.nanmax(np.abs(got - ref)) <= 1e-6
    table = styled_table_spark(res, reweight=True, anchor=None)
    assert [(r["model"], r["battles"], r["wins"], r["ties"], r["rank"]) for r in table.rows] == \
        [(r["model"], r["battles"], r["wins"], r["ties"], r["rank"]) for r in want.rows]


def test_arena_fit_engine_spark_prints_the_duckdb_leaderboard(spark, root, tmp_path):
    from builder.cli.arena import arena

    runner = CliRunner()
    out_spark, out_duck = tmp_path / "spark.json", tmp_path / "duck.json"
    res = runner.invoke(arena, ["fit", "--input", str(root / DEMO), "--engine", "spark", "--spark-master", MASTER,
                                "--output", str(out_spark)])
    assert res.exit_code == 0, res.output
    res2 = runner.invoke(arena, ["fit", "--input", str(root / DEMO), "--output", str(out_duck)])
    assert res2.exit_code == 0, res2.output
    assert json.loads(out_spark.read_text()) == json.loads(out_duck.read_text())
    for args, message in (
        (["--engine", "spark", "--spark-master", "nonsense"], "not a Spark master"),
        (["--spark-master", MASTER], "--spark-master needs --engine spark"),
        (["--engine", "spark", "--method", "elo"], "online Elo"),
    ):
        bad = runner.invoke(arena, ["fit", "--input", str(root / DEMO), *args])
        assert bad.exit_code == 2 and message in bad.output, bad.output
        assert "Traceback" not in bad.output


def test_engine_setting_is_validated_in_site_yml():
    from pydantic import ValidationError

    from builder.config import ArenaConfig

    cfg = ArenaConfig(engine="spark", spark={"master": "spark://head:7077", "config": {"spark.executor.memory": "8g"}})
    assert cfg.engine == "spark" and cfg.spark.master == "spark://head:7077"
    assert ArenaConfig().engine == "duckdb"
    with pytest.raises(ValidationError, match="duckdb"):
        ArenaConfig(engine="polars")
    with pytest.raises(ValidationError, match="not a Spark master"):
        ArenaConfig(spark={"master": "localhost"})
