"""``modelboards evals aggregate`` and ``evals clarify``: outputs, one-line errors, nothing written."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from click.testing import CliRunner

from builder.cli.evals import evals

SUITE = [
    ("a", "t1", 1.0), ("a", "t2", 0.5), ("a", "t3", 1.0), ("a", "t4", 0.25),
    ("b", "t1", 1.0), ("b", "t2", 0.25), ("b", "t3", 0.5), ("b", "t4", 0.25),
    ("c", "t1", 0.25), ("c", "t2", 0.25), ("c", "t4", 0.25),
]


def write_suite(path: Path) -> Path:
    path.write_text(
        "".join(json.dumps({"model_id": m, "task_id": t, "metric_name": "acc", "score": s}) + "\n"
                for m, t, s in SUITE),
        encoding="utf-8",
    )
    return path


def invoke(args: list[str]):
    return CliRunner().invoke(evals, args, catch_exceptions=False)


def test_aggregate_prints_and_writes_json_and_markdown(tmp_path):
    suite = write_suite(tmp_path / "suite.jsonl")
    out_json, out_md = tmp_path / "out" / "report.json", tmp_path / "out" / "board.md"
    res = invoke(["aggregate", str(suite), "--bootstrap", "200", "--seed", "4", "--json", str(out_json),
                  "--markdown", str(out_md)])
    assert res.exit_code == 0, res.output
    assert "| 1 | a | 0.69 |" in res.output and "| Model A | Model B |" in res.output
    doc = json.loads(out_json.read_text())
    (rep,) = doc["reports"]
    assert rep["metric"] == "acc" and rep["bootstrap"] == 200 and rep["seed"] == 4 and rep["alpha"] == 0.05
    assert [r["model_id"] for r in rep["rows"]] == ["a", "b", "c"]
    assert rep["rows"][2]["win_rate"] == pytest.approx(1 / 9)
    assert len(rep["pairwise"]) == 3
    md = out_md.read_text()
    assert md.startswith("| Rank | Model | Mean | 95% CI | Win rate | Tasks |\n")
    assert "| 3 | c | 0.25 | 0.25-0.25 | 0.11 | 3 |" in md
    # Same seed, same report.
    again = tmp_path / "again.json"
    invoke(["aggregate", str(suite), "--bootstrap", "200", "--seed", "4", "--json", str(again)])
    assert json.loads(again.read_text())["reports"] == doc["reports"]


def test_aggregate_alpha_changes_header(tmp_path):
    suite = write_suite(tmp_path / "suite.jsonl")
    res = invoke(["aggregate", str(suite), "--alpha", "0.1", "--bootstrap", "50"])
    assert "| 90% CI |" in res.output


def test_aggregate_bad_file_is_one_line_exit_2_and_writes_nothing(tmp_path):
    suite = write_suite(tmp_path / "suite.jsonl")
    with suite.open("a", encoding="utf-8") as f:
        f.write('{"model_id": "d", "task_id": "t1", "metric_name": "acc", "score": 1.2}\n')
    out_json = tmp_path / "report.json"
    res = CliRunner().invoke(evals, ["aggregate", str(suite), "--json", str(out_json)])
    assert res.exit_code == 2
    assert res.output.strip() == f"error: {suite}: line 12: score out of [0, 1] (1.2)"
    assert not out_json.exists()


@pytest.mark.parametrize("args", [["aggregate", "x.jsonl", "--bootstrap", "0"],
                                  ["aggregate", "x.jsonl", "--alpha", "1"]])
def test_aggregate_option_ranges(args):
    res = CliRunner().invoke(evals, args)
    assert res.exit_code == 2 and "Invalid value" in res.output


def test_clarify_reports_models_and_writes_json(tmp_path):
    run = tmp_path / "runs" / "gpt-x"
    run.mkdir(parents=True)
    (run / "r.jsonl").write_text(
        json.dumps({"task_id": "t1", "key_question_num": 0, "turns": 1}) + "\n"
        + json.dumps({"task_id": "t2", "key_question_num": 2, "turns": 3, "hit_dict": {"0": 1, "1": 1}}) + "\n",
        encoding="utf-8",
    )
    out = tmp_path / "c.json"
    res = invoke(["clarify", str(tmp_path / "runs"), "--json", str(out)])
    assert res.exit_code == 0, res.output
    assert "| gpt-x | 1.000 | 1.000 | 1.00 | +0.00 | 2 | 1 |" in res.output
    doc = json.loads(out.read_text())
    assert doc["overall"] == {"num_tasks": 2, "num_files": 1, "TKQR": 1.0, "ORA": 1.0, "avg_turns": 1.0,
                              "avg_diff": 0.0, "tkqr_above_one": 0}
    assert list(doc["models"]) == ["gpt-x"]
    assert [r["metric"] for r in doc["reports"]] == ["tkqr", "ora"]
    res = invoke(["clarify", str(run / "r.jsonl"), "--model", "named"])
    assert "| named |" in res.output


def test_clarify_averages_repeated_runs_and_flags_tkqr_above_one(tmp_path):
    run = tmp_path / "runs" / "gpt-x"
    run.mkdir(parents=True)
    rec = {"key_question_num": 1, "turns": 2}
    # two repeated runs of the same tasks; run 2's task t2 hits twice for one key question
    (run / "seed1.jsonl").write_text(
        json.dumps({**rec, "task_id": "t1", "hit_dict": {"0": 1}}) + "\n"
        + json.dumps({**rec, "task_id": "t2", "hit_dict": {"0": 0}}) + "\n", encoding="utf-8")
    (run / "seed2.jsonl").write_text(
        json.dumps({**rec, "task_id": "t1", "hit_dict": {"0": 1}}) + "\n"
        + json.dumps({"task_id": "t2", "key_question_num": 1, "turns": 3, "hit_dict": {"0": 1, "1": 1}}) + "\n",
        encoding="utf-8")
    out = tmp_path / "c.json"
    res = invoke(["clarify", str(tmp_path / "runs"), "--json", str(out)])
    assert res.exit_code == 0, res.output  # repeated runs are averaged, not refused as duplicates
    over = 1 + 1 / math.log2(3)  # hits [1, 1, 0] against K = 1: DCG 1 + 1/log2(3), IDCG 1
    doc = json.loads(out.read_text())["overall"]
    assert doc["num_tasks"] == 4 and doc["num_files"] == 2 and doc["tkqr_above_one"] == 1
    assert doc["TKQR"] == pytest.approx((1 + 0 + 1 + over) / 4, abs=1e-12)
    ora2 = math.exp(-1 / (2 * 0.425**2))  # 2 rounds for K = 1
    assert doc["ORA"] == pytest.approx((1 + 1 + 1 + ora2) / 4, abs=1e-12)
    assert doc["avg_turns"] == pytest.approx(1.25) and doc["avg_diff"] == pytest.approx(0.25)
    assert "flagged: 1 records with more hits than key questions" in res.output
    assert "seed2.jsonl: line 2 (TKQR 1.6309, K 1)" in res.output
    assert f"| gpt-x | {(2 + over) / 4:.3f} (1 above 1) |" in res.output


def test_clarify_without_records_fails(tmp_path):
    res = CliRunner().invoke(evals, ["clarify", str(tmp_path)])
    assert res.exit_code == 2 and "no clarification run records found" in res.output


def test_every_command_has_help():
    for args in (["--help"], ["aggregate", "--help"], ["clarify", "--help"]):
        res = invoke(args)
        assert res.exit_code == 0 and "Usage:" in res.output


def test_registered_on_the_main_cli():
    from builder.cli import main

    assert "evals" in main.commands
    res = CliRunner().invoke(main, ["evals", "aggregate", "--help"])
    assert res.exit_code == 0 and "--bootstrap" in res.output


def test_demo_prints_the_three_model_twelve_task_board():
    from builder.evals.synthetic import DEMO_MODELS, make_demo_runs

    res = invoke(["demo", "--bootstrap", "200"])
    assert res.exit_code == 0, res.output
    runs = make_demo_runs()
    assert len(runs) == 3 * 12 and len({r.task_id for r in runs}) == 12 and all(0 <= r.score <= 1 for r in runs)
    assert make_demo_runs() == runs  # deterministic
    lines = res.output.splitlines()
    assert lines[0].startswith("Demo suite (synthetic, offline): 3 models, 12 tasks in 3 categories")
    board = [line for line in lines if line.startswith("| ") and line[2].isdigit()]
    assert len(board) == 3
    means = {m: sum(r.score for r in runs if r.model_id == m) / 12 for m in DEMO_MODELS}
    ranked = sorted(means, key=lambda m: -means[m])
    for line, model in zip(board, ranked, strict=True):
        cells = [c.strip() for c in line.strip("|").split("|")]
        assert cells[1] == model and abs(float(cells[2]) - means[model]) <= 0.005 + 1e-9 and cells[5] == "12"
        lo, hi = (float(x) for x in cells[3].split("-"))
        assert lo <= means[model] <= hi
    assert sum(float(line.strip("|").split("|")[4]) for line in board) == pytest.approx(1.0, abs=0.011)
    pairs = [line for line in lines if line.startswith("| ") and line.count("|") == 7 and not line[2].isdigit()
             and "Model" not in line]
    assert len(pairs) == 3  # every pair of the three models
    assert "tiny-baseline" in pairs[-1] and pairs[-1].rstrip().endswith("| yes |")
    assert invoke(["demo", "--bootstrap", "200"]).output == res.output  # seeded
