"""Reading EvalRun files: the three formats, and every rejection naming file, line and value."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from builder.errors import UserError
from builder.evals.io import read_eval_runs
from builder.evals.records import EvalRun

GOOD = [
    {"model_id": "m1", "task_id": "t1", "metric_name": "acc", "score": 1, "category": "code"},
    {"model_id": "m1", "task_id": "t2", "metric_name": "acc", "score": 0.25},
    {"model_id": "m2", "task_id": "t1", "metric_name": "acc", "score": 0.0, "weight": 2},
]
EXPECTED = (
    EvalRun("m1", "t1", "acc", 1.0, "code", None),
    EvalRun("m1", "t2", "acc", 0.25, None, None),
    EvalRun("m2", "t1", "acc", 0.0, None, 2.0),
)


def jsonl(path: Path, lines: list[str]) -> Path:
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def good_lines() -> list[str]:
    return [json.dumps(r) for r in GOOD]


def test_reads_jsonl_csv_and_json(tmp_path):
    assert read_eval_runs([jsonl(tmp_path / "r.jsonl", good_lines()[:1] + [""] + good_lines()[1:])]) == EXPECTED
    csv_path = tmp_path / "r.csv"
    csv_path.write_text(
        "model_id,task_id,metric_name,score,category,weight\n"
        "m1,t1,acc,1,code,\n"
        "m1,t2,acc,0.25,,\n"
        "m2,t1,acc,0.0,,2\n",
        encoding="utf-8",
    )
    assert read_eval_runs([csv_path]) == EXPECTED
    (tmp_path / "r.json").write_text(json.dumps(GOOD), encoding="utf-8")
    assert read_eval_runs([tmp_path / "r.json"]) == EXPECTED
    (tmp_path / "w.json").write_text(json.dumps({"runs": GOOD}), encoding="utf-8")
    assert read_eval_runs([tmp_path / "w.json"]) == EXPECTED
    runs = read_eval_runs([tmp_path / "r.jsonl"])
    assert runs[2].origin == f"{tmp_path / 'r.jsonl'}: line 4"


def _bad(record_update: dict, drop: str | None = None) -> str:
    rec = dict(GOOD[1], **record_update)
    if drop:
        rec.pop(drop)
    return json.dumps(rec)


@pytest.mark.parametrize(
    "line,message",
    [
        (_bad({"score": 1.5}), r"line 3: score out of \[0, 1\] \(1\.5\)"),
        (_bad({"score": -0.01}), r"line 3: score out of \[0, 1\] \(-0\.01\)"),
        (_bad({"score": 87}), r"line 3: score out of \[0, 1\] \(87\)"),
        ('{"model_id": "m1", "task_id": "t9", "metric_name": "acc", "score": NaN}',
         r"line 3: score is not finite \(nan\)"),
        ('{"model_id": "m1", "task_id": "t9", "metric_name": "acc", "score": Infinity}',
         r"line 3: score is not finite \(inf\)"),
        (_bad({"score": True}), r"line 3: score is a boolean \(true\)"),
        (_bad({"score": "0.5"}), r"line 3: score is not a number \('0\.5'\)"),
        (_bad({"score": None}), r"line 3: missing field 'score'"),
        (_bad({}, drop="task_id"), r"line 3: missing field 'task_id'"),
        (_bad({}, drop="metric_name"), r"line 3: missing field 'metric_name'"),
        (_bad({"model_id": 3.5}), r"line 3: model_id must be a string \(3\.5\)"),
        (_bad({"weight": 0}), r"line 3: weight must be > 0 \(0\)"),
        (json.dumps(GOOD[0]),
         r"line 3: duplicate record for model 'm1', task 't1', metric 'acc' \(first at .*line 1\)"),
        (json.dumps(dict(GOOD[2], model_id="m3", category="math")),
         r"line 3: task 't1' has category 'math' but 'code'"),
        ('{"model_id": "m1", ', r"line 3: invalid JSON"),
        ("[1, 2]", r"line 3: expected an object, got \[1, 2\]"),
    ],
)
def test_jsonl_rejections_name_file_line_and_value(tmp_path, line, message):
    path = jsonl(tmp_path / "runs.jsonl", good_lines()[:2] + [line])
    with pytest.raises(UserError) as exc:
        read_eval_runs([path])
    text = str(exc.value)
    assert "\n" not in text
    assert text.startswith(f"{path}: ")
    assert re.search(message, text), text


@pytest.mark.parametrize(
    "cells,message",
    [
        ("m1,t9,acc,1.01,,", r"row 3 \(line 4\): score out of \[0, 1\] \('1\.01'\)"),
        ("m1,t9,acc,nan,,", r"row 3 \(line 4\): score is not finite \('nan'\)"),
        ("m1,t9,acc,True,,", r"row 3 \(line 4\): score is a boolean \('True'\)"),
        ("m1,t9,acc,,,", r"row 3 \(line 4\): missing field 'score'"),
        ("m1,t9,acc,high,,", r"row 3 \(line 4\): score is not a number \('high'\)"),
        ("m1,t1,acc,0.5,,", r"row 3 \(line 4\): duplicate record .*first at .*row 1 \(line 2\)"),
        ("m1,t9,acc,0.5", r"row 3 \(line 4\): 4 cells for 6 columns"),
    ],
)
def test_csv_rejections_name_row(tmp_path, cells, message):
    path = tmp_path / "runs.csv"
    path.write_text(
        "model_id,task_id,metric_name,score,category,weight\nm1,t1,acc,1,code,\nm1,t2,acc,0.25,,\n" + cells + "\n",
        encoding="utf-8",
    )
    with pytest.raises(UserError, match=message) as exc:
        read_eval_runs([path])
    assert str(exc.value).startswith(f"{path}: ")


def test_csv_header_must_have_required_columns(tmp_path):
    path = tmp_path / "runs.csv"
    path.write_text("model,task_id,metric_name,score\nm,t,acc,1\n", encoding="utf-8")
    with pytest.raises(UserError, match=r"runs\.csv: line 1: header lacks column 'model_id'"):
        read_eval_runs([path])


@pytest.mark.parametrize(
    "bad,message",
    [
        ({"score": 2}, r"row 3: score out of \[0, 1\] \(2\)"),
        ({"score": False}, r"row 3: score is a boolean \(false\)"),
        ({"score": None}, r"row 3: missing field 'score'"),
    ],
)
def test_json_array_rejections_name_row(tmp_path, bad, message):
    path = tmp_path / "runs.json"
    path.write_text(json.dumps(GOOD[:2] + [dict(GOOD[2], **bad)], indent=1), encoding="utf-8")
    with pytest.raises(UserError, match=message) as exc:
        read_eval_runs([path])
    assert str(exc.value).startswith(f"{path}: ")


def test_json_nan_and_shape_errors(tmp_path):
    path = tmp_path / "runs.json"
    path.write_text('[{"model_id": "m", "task_id": "t", "metric_name": "acc", "score": NaN}]', encoding="utf-8")
    with pytest.raises(UserError, match=r"runs\.json: row 1: score is not finite \(nan\)"):
        read_eval_runs([path])
    path.write_text('{"model_id": "m"}', encoding="utf-8")
    with pytest.raises(UserError, match=r"runs\.json: expected a JSON array"):
        read_eval_runs([path])
    path.write_text('[\n{"a": 1},\n', encoding="utf-8")
    with pytest.raises(UserError, match=r"runs\.json: line 3: invalid JSON"):
        read_eval_runs([path])


def test_duplicates_across_files_and_unknown_type(tmp_path):
    a = jsonl(tmp_path / "a.jsonl", good_lines())
    b = jsonl(tmp_path / "b.jsonl", good_lines()[1:2])
    with pytest.raises(UserError,
                       match=rf"b\.jsonl: line 1: duplicate record .*first at {tmp_path / 'a.jsonl'}: line 2"):
        read_eval_runs([a, b])
    with pytest.raises(UserError, match=r"r\.txt: unknown eval file type"):
        read_eval_runs([tmp_path / "r.txt"])
    with pytest.raises(UserError, match=r"gone\.jsonl: eval file not found"):
        read_eval_runs([tmp_path / "gone.jsonl"])
