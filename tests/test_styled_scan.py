"""The styled scan of JSON files: ``conv_metadata`` read as a STRUCT of the keys the features
ask for (one parse per record), each value kept as JSON text and decoded once per distinct
text; the same numbers and qualities as reading the column as JSON (the fallback DuckDB takes
when a record's ``conv_metadata`` is not an object), and per row past many distinct texts."""

from __future__ import annotations

import json

import numpy as np
import pytest

import builder.pairwise.scan as scan_module
from builder.pairwise.scan import (
    FEATURE_MISSING,
    FEATURE_NEGATIVE,
    FEATURE_NO_OBJECT,
    FEATURE_NON_NUMERIC,
    FEATURE_OK,
    covariate_spec,
    scan_battles,
)
from builder.pairwise.style import STYLE_FEATURES, style_feature_specs
from builder.pairwise.styled import _column_moments

BASE = {"model_a": "m1", "model_b": "m2", "winner": "model_a"}
# (sum_assistant_a_tokens, header_count_a, covariate meta value) per row, and the expected
# (value, quality) of tokens_a and headers_a
CASES = [
    (10, {"h1": 1, "h2": 2}, 1, (10.0, FEATURE_OK), (3.0, FEATURE_OK)),
    ("3", {"h1": "2"}, True, (None, FEATURE_NON_NUMERIC), (None, FEATURE_NON_NUMERIC)),
    (True, {"h1": True}, "x", (None, FEATURE_NON_NUMERIC), (None, FEATURE_NON_NUMERIC)),
    (-4, {"h1": -1, "h2": 5}, None, (None, FEATURE_NEGATIVE), (None, FEATURE_NEGATIVE)),
    (None, {"h1": None, "h2": 4}, 2.5, (None, FEATURE_MISSING), (4.0, FEATURE_OK)),
    ([1], {}, 0, (None, FEATURE_NON_NUMERIC), (0.0, FEATURE_OK)),
    ({"x": 2, "y": 3}, 7, -1, (5.0, FEATURE_OK), (7.0, FEATURE_OK)),
    (1e400, {"h1": {"deep": 1}}, 3, (None, FEATURE_NON_NUMERIC), (None, FEATURE_NON_NUMERIC)),
    (12.5, [1, 2], 4, (12.5, FEATURE_OK), (None, FEATURE_NON_NUMERIC)),
]


def _rows() -> list[dict]:
    rows = []
    for k, (tok, head, cov, _, _) in enumerate(CASES):
        meta = {"sum_assistant_a_tokens": tok, "header_count_a": head, "sum_assistant_b_tokens": 5 + k,
                "header_count_b": {"h1": k}, "bold_count_a": {"**": 1}, "bold_count_b": {"**": 0},
                "list_count_a": {"ordered": 1}, "list_count_b": {"ordered": 1}, "extra": {"z": cov}}
        rows.append({**BASE, "is_direct": cov, "conv_metadata": meta})
    rows.append({**BASE})  # no conv_metadata: still a typed read (NULL)
    rows.append({**BASE, "conv_metadata": {"sum_assistant_a_tokens": 1}})  # the other keys absent
    return rows


def _specs():
    return [*style_feature_specs(STYLE_FEATURES), covariate_spec("direct", column="is_direct"),
            covariate_spec("nested", column="conv_metadata/extra/z")]


def _read(path):
    with scan_battles(path, features=_specs()) as scan:
        return dict(scan._src.types), scan.features()


def _write(path, rows):
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")


def _check_cases(cols):
    for k, (_, _, _, tok, head) in enumerate(CASES):
        for name, (value, quality) in (("tokens_a", tok), ("headers_a", head)):
            col = cols[name]
            assert col.quality[k] == quality, (k, name)
            assert (np.isnan(col.values[k]) if value is None else col.values[k] == value), (k, name)
    n = len(CASES)
    assert cols["tokens_a"].quality[n] == FEATURE_NO_OBJECT and cols["tokens_a"].quality[n + 1] == FEATURE_OK
    assert cols["headers_a"].quality[n + 1] == FEATURE_MISSING
    # covariates: a boolean is 1 / 0, text not a number, null (or no object) missing
    assert cols["direct"].quality[:4].tolist() == [FEATURE_OK, FEATURE_OK, FEATURE_NON_NUMERIC, FEATURE_MISSING]
    assert cols["direct"].values[1] == 1.0 and cols["nested"].values[4] == 2.5
    assert cols["nested"].quality[n] == FEATURE_MISSING


def test_typed_read_and_json_read_give_the_same_features(tmp_path):
    typed, fallback = tmp_path / "typed.jsonl", tmp_path / "fallback.jsonl"
    _write(typed, _rows())
    _write(fallback, [*_rows(), {**BASE, "conv_metadata": "not an object"}])
    types, a = _read(typed)
    assert types["conv_metadata"].startswith("STRUCT(")  # the one-parse path was taken
    _check_cases(a)
    types, b = _read(fallback)
    assert types == {}  # DuckDB refused the typed read: the column was read as JSON
    _check_cases(b)
    n = len(_rows())
    for name, col in a.items():
        other = b[name]
        np.testing.assert_array_equal(col.quality, other.quality[:n])
        np.testing.assert_array_equal(col.values, other.values[:n])
        assert col.first_malformed == other.first_malformed
    assert b["tokens_a"].quality[n] == FEATURE_NO_OBJECT


def test_a_json_array_reads_the_same(tmp_path):
    path = tmp_path / "battles.json"
    path.write_text(json.dumps(_rows()), encoding="utf-8")
    _check_cases(_read(path)[1])


def test_many_distinct_texts_are_decoded_per_row_with_the_same_results(tmp_path, monkeypatch):
    path = tmp_path / "b.jsonl"
    _write(path, _rows())
    _, table = _read(path)
    monkeypatch.setattr(scan_module, "_DISTINCT_TEXTS", 1)
    _, rows = _read(path)
    for name, col in table.items():
        np.testing.assert_array_equal(col.quality, rows[name].quality)
        np.testing.assert_array_equal(col.values, rows[name].values)


@pytest.mark.parametrize("n", [1, 7, 262_144, 262_145, 600_001])
def test_blockwise_moments_are_numpys(n):
    rng = np.random.default_rng(n)
    z = rng.random((n, 4)) * 1e3 + rng.normal(size=(n, 4))
    mean, std = _column_moments(z)
    assert np.array_equal(mean, z.mean(axis=0)) and np.array_equal(std, z.std(axis=0))


# --------------------------------------------------------------------------- the streamed read

BAD = [
    {"model_a": "m1", "model_b": "m1", "winner": "model_a"},  # same model
    {"model_a": " ", "model_b": "m2", "winner": "model_b"},  # no usable name
    {"model_a": "m2", "model_b": "m3", "winner": "nobody"},  # unknown winner
    {"model_a": None, "model_b": "m3", "winner": "tie"},
    {"model_a": " m3 ", "model_b": "m1", "winner": "tie (bothbad)", "anony": False},
]


def _both(path, filters=None, covariates=()):
    from builder.pairwise.battles import BattleFilters
    from builder.pairwise.scan import DEFAULT_SETTINGS
    from builder.pairwise.style import contextual_battles, stream_contextual_battles

    filters = filters or BattleFilters()
    specs = [*style_feature_specs(STYLE_FEATURES), *covariates]
    with scan_battles(path, filters, features=specs, times=False) as scan:
        table = (scan.report, scan.models, scan.summary(), *contextual_battles(scan, STYLE_FEATURES,
                                                                            [c.name for c in covariates]))
    streamed = stream_contextual_battles(path, filters, DEFAULT_SETTINGS, STYLE_FEATURES, list(covariates))
    assert streamed is not None
    read, battles, styles = streamed
    return table, (read.report, read.models, read.summary(), battles, styles)


def _assert_same(table, streamed):
    (rep, models, summary, battles, styles), (rep2, models2, summary2, battles2, styles2) = table, streamed
    assert rep == rep2 and models == models2 and summary == summary2
    for x, y in ((battles.model_a, battles2.model_a), (battles.model_b, battles2.model_b),
                 (battles.outcome, battles2.outcome), (styles.raw, styles2.raw), (styles.status, styles2.status)):
        assert x.dtype == y.dtype
        np.testing.assert_array_equal(x, y)
    assert styles.report == styles2.report


@pytest.mark.parametrize("fallback", [False, True])
def test_the_streamed_read_gives_what_the_table_gives(tmp_path, fallback):
    path = tmp_path / "b.jsonl"
    extra = [{**BASE, "conv_metadata": "not an object"}] if fallback else []
    _write(path, [*_rows(), *BAD, *extra, *BAD])  # the first record names the columns
    covariates = [covariate_spec("direct", column="is_direct"),
                  covariate_spec("nested", column="conv_metadata/extra/z")]
    table, streamed = _both(path, covariates=covariates)
    _assert_same(table, streamed)
    assert streamed[4].report.first_malformed is not None  # named by line, as the table path names it


def test_the_streamed_read_filters_as_the_table_does(tmp_path):
    from builder.pairwise.battles import BattleFilters

    path = tmp_path / "b.json"
    rows = [{**r, "anony": k % 3 != 0} for k, r in enumerate([*_rows(), *BAD, *_rows()])]
    path.write_text(json.dumps(rows), encoding="utf-8")
    _assert_same(*_both(path, BattleFilters(anony_only=True)))


def test_the_streamed_read_leaves_many_texts_and_large_files_to_the_table(tmp_path, monkeypatch):
    from builder.pairwise.battles import BattleFilters
    from builder.pairwise.scan import ReaderSettings
    from builder.pairwise.style import stream_contextual_battles

    path = tmp_path / "b.jsonl"
    _write(path, _rows())
    small = ReaderSettings(memory_limit="1KB")
    assert stream_contextual_battles(path, BattleFilters(), small, STYLE_FEATURES) is None
    monkeypatch.setattr(scan_module, "_DISTINCT_TEXTS", 1)
    assert stream_contextual_battles(path, BattleFilters(), ReaderSettings(), STYLE_FEATURES) is None


def test_plain_counts_decode_as_the_sql_decoder_does():
    import duckdb

    texts = ["0", "7", "999999999999999", "1000000000000000", "-3", "3.0", "1e2", '"4"', "true", "null", "{}",
             '{"h1":1,"h2":2}', '{"a":1,"a":2}', '{"a":true}', '{"a":-1}', '{"a":1.5}', '{"a":{"b":1}}',
             '{"a":null}', "[1]", '{"a":999999999999999,"b":999999999999999}']
    con = duckdb.connect()
    for covariate in (False, True):
        spec = covariate_spec("c", column="c") if covariate else style_feature_specs(["tokens"])[0]
        value, quality = scan_module._text_decoder(spec, "m")
        for text in texts:
            plain = scan_module._plain_count(text, covariate)
            if plain is None:
                continue
            v, q = con.execute(f"SELECT {value}, {quality} FROM (SELECT $t AS m)", {"t": text}).fetchone()
            assert (v, q) == (plain, FEATURE_OK), text


def test_the_streamed_read_names_a_broken_line(tmp_path):
    from builder.errors import UserError
    from builder.pairwise.battles import BattleFilters
    from builder.pairwise.scan import DEFAULT_SETTINGS
    from builder.pairwise.style import stream_contextual_battles

    path = tmp_path / "b.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in _rows()[:2]) + '{"model_a" "m1"}\n', encoding="utf-8")
    with pytest.raises(UserError, match=r"b\.jsonl: line 3: invalid JSON"):
        stream_contextual_battles(path, BattleFilters(), DEFAULT_SETTINGS, STYLE_FEATURES)


def test_an_error_the_arrow_reader_passes_on_is_duckdbs_again():
    import duckdb

    def reader():
        yield "first batch"
        raise OSError('Invalid Input Error: Malformed JSON in file "b.jsonl", at byte 3 in line 9: unexpected')

    batches = scan_module._batches(reader())
    assert next(batches) == "first batch"
    with pytest.raises(duckdb.InvalidInputException, match="line 9"):
        next(batches)
