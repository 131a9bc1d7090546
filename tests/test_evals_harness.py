"""Eval results as the tools write them: lm-evaluation-harness output folders and Inspect AI logs.

The files in tests/data/harness/ are real output of both tools (run offline from PyPI on a tiny
task; MANIFEST.json pins each by sha256). The per-item scores the readers return are checked
against the files' own per-sample values, and their means against the aggregate each tool
wrote into the same run's results.
"""

from __future__ import annotations

import hashlib
import json
import math
import shutil
import subprocess
import sys
import zipfile
from collections import defaultdict
from pathlib import Path

import pytest

from builder.config import EvalSuiteConfig
from builder.errors import UserError
from builder.evals.harness import (
    inspect_value,
    parse_inspect_log,
    read_inspect_runs,
    read_lm_eval_runs,
)
from builder.evals.section import compute_suite_section, read_runs_as

HARNESS = Path(__file__).parent / "data" / "harness"
MANIFEST = json.loads((HARNESS / "MANIFEST.json").read_text(encoding="utf-8"))
LM_EVAL = HARNESS / "lm-eval"
INSPECT = HARNESS / "inspect"
INSPECT_EVAL = next(INSPECT.glob("*.eval"))
INSPECT_JSON = next(INSPECT.glob("*.json"))


def test_manifest_pins_every_file_by_sha256():
    listed = {f["path"] for f in MANIFEST["files"]}
    present = {str(p.relative_to(HARNESS)) for p in HARNESS.rglob("*")
               if p.is_file() and p.name != "MANIFEST.json" and "recipe" not in p.parts}
    assert listed == present
    for f in MANIFEST["files"]:
        assert hashlib.sha256((HARNESS / f["path"]).read_bytes()).hexdigest() == f["sha256"], f["path"]


# --------------------------------------------------------------------------- lm-evaluation-harness


def _lm_results(model_dir: str) -> dict:
    return json.loads(next((LM_EVAL / model_dir).glob("results_*.json")).read_text(encoding="utf-8"))


def test_lm_eval_per_item_scores_are_the_samples_values():
    runs = read_lm_eval_runs([LM_EVAL])
    by_key = {(r.model_id, r.task_id, r.metric_name): r for r in runs}
    assert {r.model_id for r in runs} == {"example/dummy-a", "example/dummy-b"}  # results file's model_name
    for model_dir, model in (("example__dummy-a", "example/dummy-a"), ("example__dummy-b", "example/dummy-b")):
        for sample_file in (LM_EVAL / model_dir).glob("samples_*.jsonl"):
            task = sample_file.name.split("_2026-")[0].removeprefix("samples_")
            metric = "acc" if task == "mb_arith" else "exact_match"  # the default order: acc, then exact_match
            for line in sample_file.read_text(encoding="utf-8").splitlines():
                rec = json.loads(line)
                run = by_key[(model, f"{task}/{rec['doc_id']}", metric)]
                assert run.score == rec[metric] and run.category == task
    assert len(runs) == 2 * (6 + 4)


def test_lm_eval_item_means_equal_the_results_files_aggregates():
    runs = read_lm_eval_runs([LM_EVAL])
    sums: dict[tuple[str, str, str], list[float]] = defaultdict(list)
    for r in runs:
        sums[(r.model_id, r.category or "", r.metric_name)].append(r.score)
    for model_dir, model in (("example__dummy-a", "example/dummy-a"), ("example__dummy-b", "example/dummy-b")):
        results = _lm_results(model_dir)["results"]
        assert math.isclose(sum(sums[(model, "mb_arith", "acc")]) / 6, results["mb_arith"]["acc,none"])
        assert math.isclose(sum(sums[(model, "mb_echo", "exact_match")]) / 4, results["mb_echo"]["exact_match,none"])


def test_lm_eval_metric_chosen_by_the_suite_when_the_task_has_it():
    runs = read_lm_eval_runs([LM_EVAL / "example__dummy-b"], metric="acc_norm")
    names = {(r.category, r.metric_name) for r in runs}
    assert names == {("mb_arith", "acc_norm"), ("mb_echo", "exact_match")}
    results = _lm_results("example__dummy-b")["results"]
    got = [r.score for r in runs if r.metric_name == "acc_norm"]
    assert math.isclose(sum(got) / len(got), results["mb_arith"]["acc_norm,none"])


def test_lm_eval_suite_builds_a_board(tmp_path):
    suite = EvalSuiteConfig(id="lm", title="lm-eval", format="lm-eval-harness", paths=[str(LM_EVAL)],
                            bootstrap=50)
    section = compute_suite_section(suite, tmp_path)
    assert section is not None and section.metric == "acc"
    assert {row.model_id for row in section.rows} == {"example/dummy-a", "example/dummy-b"}
    assert section.n_tasks == 6


def _copy_run(tmp_path: Path) -> Path:
    dst = tmp_path / "out" / "example__dummy-a"
    shutil.copytree(LM_EVAL / "example__dummy-a", dst)
    return dst


def test_lm_eval_bad_files_are_one_line_errors(tmp_path):
    run = _copy_run(tmp_path)
    results = next(run.glob("results_*.json"))
    samples = next(run.glob("samples_mb_arith_*.jsonl"))
    lines = samples.read_text(encoding="utf-8").splitlines()
    samples.write_text("\n".join([lines[0], '{"doc_id": 1, "metrics": ["acc"], "acc": 1.5}']) + "\n")
    with pytest.raises(UserError, match=r"samples_mb_arith_.*\.jsonl: line 2: acc: score 1.5 is outside \[0, 1\]"):
        read_lm_eval_runs([run])
    samples.write_text("not json\n")
    with pytest.raises(UserError, match=r"line 1: invalid JSON"):
        read_lm_eval_runs([run])
    for s in run.glob("samples_*.jsonl"):
        s.unlink()
    with pytest.raises(UserError, match=r"no samples_<task>_.*--log_samples"):
        read_lm_eval_runs([run])
    results.write_text('{"runs": []}')
    with pytest.raises(UserError, match=r"not an lm-evaluation-harness results file"):
        read_lm_eval_runs([results])
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(UserError, match=r"empty: no lm-evaluation-harness results_\*\.json in this folder"):
        read_lm_eval_runs([empty])


def test_lm_eval_corpus_level_metric_is_refused(tmp_path):
    run = _copy_run(tmp_path)
    for s in run.glob("samples_mb_echo_*.jsonl"):
        s.unlink()
    samples = next(run.glob("samples_mb_arith_*.jsonl"))
    samples.write_text('{"doc_id": 0, "filter": "none", "metrics": ["f1"], "f1": ["gold", ["pred"]]}\n')
    with pytest.raises(UserError, match=r"no per-sample metric .*have f1.*corpus-level"):
        read_lm_eval_runs([run])


# --------------------------------------------------------------------------- Inspect AI


def _inspect_doc() -> dict:
    return json.loads(INSPECT_JSON.read_text(encoding="utf-8"))


@pytest.mark.parametrize("log", [INSPECT_EVAL, INSPECT_JSON], ids=["eval-archive", "json-log"])
def test_inspect_per_item_scores_average_the_epochs(log):
    runs = parse_inspect_log(log)
    doc = _inspect_doc()
    assert doc["eval"]["config"]["epochs"] == 2
    expected: dict[tuple[str, str], list[float]] = defaultdict(list)
    letters = {"C": 1.0, "I": 0.0}
    for s in doc["samples"]:
        for scorer, score in s["scores"].items():
            v = score["value"]
            expected[(f"mb_mock/{s['id']}", scorer)].append(letters[v] if isinstance(v, str) else float(v))
    got = {(r.task_id, r.metric_name): r.score for r in runs}
    assert got == {k: sum(v) / len(v) for k, v in expected.items()}
    assert {r.model_id for r in runs} == {"mockllm/model"} and {r.category for r in runs} == {"mb_mock"}


@pytest.mark.parametrize("log", [INSPECT_EVAL, INSPECT_JSON], ids=["eval-archive", "json-log"])
def test_inspect_item_means_equal_the_logs_own_metrics(log):
    runs = parse_inspect_log(log)
    metrics = {s["name"]: s["metrics"] for s in _inspect_doc()["results"]["scores"]}
    for scorer, metric in (("includes", "accuracy"), ("overlap", "mean")):
        scores = [r.score for r in runs if r.metric_name == scorer]
        assert math.isclose(sum(scores) / len(scores), metrics[scorer][metric]["value"])


def test_inspect_archive_and_json_log_agree():
    a = sorted((r.task_id, r.metric_name, r.score) for r in parse_inspect_log(INSPECT_EVAL))
    b = sorted((r.task_id, r.metric_name, r.score) for r in parse_inspect_log(INSPECT_JSON))
    assert a == b and len(a) == 8


def test_inspect_folder_of_two_logs_of_one_run_is_a_duplicate():
    with pytest.raises(UserError, match=r"duplicate record for model 'mockllm/model', task 'mb_mock/"):
        read_runs_as("inspect", [INSPECT])


@pytest.mark.parametrize(("value", "expected"), [
    ("C", 1.0), ("I", 0.0), ("P", 0.5), ("N", 0.0), (True, 1.0), (False, 0.0), (0.25, 0.25), (1, 1.0),
    ("yes", 1.0), ("no", 0.0), ("0.75", 0.75), (None, None),
])
def test_inspect_values_map_to_unit_interval(value, expected):
    assert inspect_value(value, "where") == expected


@pytest.mark.parametrize(("value", "message"), [
    (3.5, r"where: score 3.5 is outside \[0, 1\]"), ("maybe", r"'maybe' is not C/I/P/N"),
    (float("nan"), "not a finite number"),
])
def test_inspect_values_refused(value, message):
    with pytest.raises(UserError, match=message):
        inspect_value(value, "where")


def test_inspect_bad_files_are_one_line_errors(tmp_path):
    fake = tmp_path / "run.eval"
    fake.write_text("not a zip")
    with pytest.raises(UserError, match=r"run\.eval: not an Inspect \.eval log \(not a zip archive\)"):
        read_inspect_runs([fake])
    empty = tmp_path / "empty.eval"
    with zipfile.ZipFile(empty, "w") as z:
        z.writestr("other.txt", "x")
    with pytest.raises(UserError, match=r"empty\.eval: not an Inspect \.eval log \(no header\.json"):
        read_inspect_runs([empty])
    other = tmp_path / "other.json"
    other.write_text('{"results": {}}')
    with pytest.raises(UserError, match=r"other\.json: not an Inspect log"):
        read_inspect_runs([other])
    doc = _inspect_doc()
    doc["samples"][3]["scores"]["overlap"]["value"] = 7
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(doc))
    with pytest.raises(UserError, match=r"bad\.json: samples\[3\]: sample '\w+', scorer 'overlap': score 7.0 is "):
        read_inspect_runs([bad])
    del doc["samples"]
    bad.write_text(json.dumps(doc))
    with pytest.raises(UserError, match=r"has no samples"):
        read_inspect_runs([bad])


def test_inspect_dict_values_give_one_metric_per_key(tmp_path):
    doc = _inspect_doc()
    for s in doc["samples"]:
        s["scores"] = {"rubric": {"value": {"style": 1, "facts": "P"}}}
    log = tmp_path / "dict.json"
    log.write_text(json.dumps(doc))
    runs = parse_inspect_log(log)
    assert {r.metric_name for r in runs} == {"rubric.style", "rubric.facts"}
    assert {r.score for r in runs if r.metric_name == "rubric.facts"} == {0.5}


def test_cli_aggregate_takes_the_format(tmp_path):
    exe = Path(sys.executable).parent / "modelboards"
    out = tmp_path / "report.json"
    proc = subprocess.run([str(exe), "evals", "aggregate", "--format", "inspect", str(INSPECT_EVAL),
                           "--bootstrap", "50", "--json", str(out)], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "mockllm/model" in proc.stdout
    bad = tmp_path / "x.eval"
    bad.write_text("nope")
    proc = subprocess.run([str(exe), "evals", "aggregate", "--format", "inspect", str(bad)],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2
    assert proc.stderr.strip().splitlines() == [f"error: {bad}: not an Inspect .eval log (not a zip archive)"]
