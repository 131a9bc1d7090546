"""TKQR / ORA: every branch by hand, the record fields, run directories, EvalRuns."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from builder.errors import UserError
from builder.evals.aggregate import compute_eval_reports
from builder.evals.clarify import (
    clarify_eval_runs,
    compute_clarify_summaries,
    compute_clarify_summary,
    compute_ora,
    compute_tkqr,
    hit_sequence,
    key_question_count,
    ora_sigma,
    read_clarify_scores,
    response_count,
    score_clarify_record,
)

L3 = 1.0 / math.log2(3)  # discount of the second turn


def write_jsonl(path: Path, records: list[dict]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


# --------------------------------------------------------------------------- TKQR


def test_tkqr_empty_sequence_is_zero():
    assert compute_tkqr([], 3) == 0.0


@pytest.mark.parametrize("k", [0, -1])
def test_tkqr_without_key_questions_is_zero(k):
    assert compute_tkqr([1, 1], k) == 0.0


def test_tkqr_discounts_late_hits():
    # DCG = 1/log2(2) + 0 + 1/log2(4) = 1.5; IDCG over min(3, 2) = 2 turns = 1 + 1/log2(3).
    assert compute_tkqr([1, 0, 1], 2) == pytest.approx(1.5 / (1 + L3), abs=1e-12)
    assert compute_tkqr([1, 0, 1], 2) == pytest.approx(0.9197207891481876, abs=1e-12)


def test_tkqr_fewer_turns_than_key_questions_uses_short_ideal():
    # n = 2 < K = 3: IDCG has 2 terms. DCG = 1/log2(3).
    assert compute_tkqr([0, 1], 3) == pytest.approx(L3 / (1 + L3), abs=1e-12)
    assert compute_tkqr([0, 1], 3) == pytest.approx(0.38685280723454163, abs=1e-12)


def test_tkqr_perfect_early_hits_is_one():
    assert compute_tkqr([1, 1, 0], 2) == pytest.approx(1.0, abs=1e-12)
    assert compute_tkqr([0, 0, 0], 2) == 0.0


# --------------------------------------------------------------------------- ORA


def test_ora_sigma_branches():
    assert ora_sigma(0) == 0.3
    assert ora_sigma(-2) == 0.3
    assert ora_sigma(4) == pytest.approx(1.7)


def test_ora_values():
    assert compute_ora(3, 3) == 1.0
    # |n - K| = K/2 gives about one half (0.425 K ~ 0.5 K / sqrt(2 ln 2)).
    assert compute_ora(6, 4) == pytest.approx(math.exp(-4 / (2 * 1.7**2)), abs=1e-12)
    assert compute_ora(6, 4) == pytest.approx(0.5005531347669072, abs=1e-12)
    assert compute_ora(2, 0) == pytest.approx(math.exp(-4 / (2 * 0.09)), rel=1e-12)  # K = 0: sigma 0.3
    assert compute_ora(2, 1, sigma=1.0) == pytest.approx(math.exp(-0.5), abs=1e-12)


@pytest.mark.parametrize("n,k,sigma", [(-1, 2, None), (1, -2, None), (1, 2, 0.0), (1, 2, -1.0)])
def test_ora_rejects_bad_inputs(n, k, sigma):
    with pytest.raises(ValueError):
        compute_ora(n, k, sigma)


# --------------------------------------------------------------------------- record fields


def test_response_count_precedence():
    assert response_count({"turns": 4, "response_contents": ["a"], "messages": []}) == 4
    assert response_count({"turns": None, "response_contents": ["a", "b"]}) == 2
    msgs = [{"role": "user"}, {"role": "assistant"}, {"role": "user"}, {"role": "assistant"}]
    assert response_count({"response_contents": None, "messages": msgs}) == 2
    assert response_count({"hit_dict": {"0": 1, "1": 0, "2": 0}}) == 3
    assert response_count({}) == 0


def test_key_question_count_precedence():
    assert key_question_count({"key_question_num": 2, "qa_pairs": [1, 2, 3]}) == 2
    assert key_question_count({"key_question_num": None, "qa_pairs": [1, 2, 3]}) == 3
    assert key_question_count({}) == 0


def test_hit_sequence_padding_order_and_gaps():
    assert hit_sequence({"hit_dict": {"1": 0, "0": 1}, "turns": 4}) == [1, 0, 0, 0]  # turn order, padded
    assert hit_sequence({"hit_dict": {"0": 1, "1": 1}, "turns": 1}) == [1, 1]  # never truncated
    # As in the seed, only indices 0 .. len(hit_dict) - 1 are read: "1" of a one-key dict is ignored.
    assert hit_sequence({"hit_dict": {"1": 1}, "turns": 2}) == [0, 0]
    assert hit_sequence({"turns": 2}) == [0, 0]


def test_score_record_normal_case():
    s = score_clarify_record({"key_question_num": 2, "turns": 4, "hit_dict": {"0": 1, "1": 0, "2": 1}})
    # Hits padded to [1, 0, 1, 0]: DCG 1.5, IDCG 1 + 1/log2(3); 3 rounds for K = 2.
    assert s["tkqr"] == pytest.approx(1.5 / (1 + L3), abs=1e-12)
    assert s["ora"] == pytest.approx(math.exp(-1 / (2 * 0.85**2)), abs=1e-12)
    assert s["turns"] == 3.0 and s["diff"] == 1.0


def test_score_record_no_key_questions_single_response_is_perfect():
    s = score_clarify_record({"key_question_num": 0, "turns": 1, "hit_dict": {}})
    assert s == {"tkqr": 1.0, "ora": 1.0, "turns": 0.0, "diff": 0.0}


def test_score_record_no_key_questions_but_asked_scores_zero():
    s = score_clarify_record({"qa_pairs": [], "response_contents": ["q?", "q?", "code"], "hit_dict": {"0": 0, "1": 0}})
    assert s["tkqr"] == 0.0
    assert s["ora"] == pytest.approx(math.exp(-4 / 0.18), rel=1e-12)
    assert s["turns"] == 2.0 and s["diff"] == 2.0


def test_score_record_asked_too_little():
    # One question for K = 2 and the hit dict longer than the responses (no truncation).
    s = score_clarify_record({"key_question_num": 2, "turns": 1, "hit_dict": {"0": 1, "1": 1}})
    assert s["tkqr"] == pytest.approx(1.0, abs=1e-12)
    assert s["ora"] == pytest.approx(math.exp(-4 / (2 * 0.85**2)), abs=1e-12)
    assert s["turns"] == 0.0 and s["diff"] == -2.0


def test_score_record_without_responses_is_rejected():
    with pytest.raises(ValueError):
        score_clarify_record({"key_question_num": 1, "turns": 0})


# --------------------------------------------------------------------------- files and folders


def _two_model_tree(root: Path) -> None:
    write_jsonl(root / "alpha" / "a.jsonl", [
        {"task_id": "t1", "key_question_num": 2, "turns": 3, "hit_dict": {"0": 1, "1": 1}},  # tkqr 1, ora 1
        {"task_id": "t2", "key_question_num": 0, "turns": 1},  # special case: 1, 1
    ])
    write_jsonl(root / "alpha" / "sub" / "b.jsonl", [
        {"id": 3, "key_question_num": 1, "turns": 3, "hit_dict": {"0": 0, "1": 1}},  # tkqr 1/log2(3)
    ])
    write_jsonl(root / "beta" / "a.jsonl", [
        {"task_id": "t1", "key_question_num": 2, "turns": 1},  # tkqr 0, ora exp(-4/(2*.85^2))
        {"key_question_num": 0, "turns": 1},  # no id: task "a.jsonl:2"
    ])


def test_read_tree_models_tasks_and_summaries(tmp_path):
    _two_model_tree(tmp_path)
    scores = read_clarify_scores([tmp_path])
    got = {(s.model, s.task_id) for s in scores}
    assert got == {("alpha", "t1"), ("alpha", "t2"), ("alpha", "3"), ("beta", "t1"), ("beta", "a.jsonl:2")}
    per = compute_clarify_summaries(scores)
    assert list(per) == ["alpha", "beta"]
    a = per["alpha"]
    ora3 = math.exp(-1 / (2 * 0.425**2))  # 2 rounds for K = 1
    assert a.num_tasks == 3 and a.num_files == 2
    assert a.tkqr == pytest.approx((1 + 1 + L3) / 3, abs=1e-12)
    assert a.ora == pytest.approx((1 + 1 + ora3) / 3, abs=1e-12)
    assert a.avg_turns == pytest.approx((2 + 0 + 2) / 3) and a.avg_diff == pytest.approx((0 + 0 + 1) / 3)
    overall = compute_clarify_summary(scores)
    assert overall.num_tasks == 5 and overall.num_files == 3
    assert overall.tkqr == pytest.approx((1 + 1 + L3 + 0 + 1) / 5, abs=1e-12)


def test_model_override_and_direct_files(tmp_path):
    _two_model_tree(tmp_path)
    scores = read_clarify_scores([tmp_path / "beta" / "a.jsonl"])
    assert {s.model for s in scores} == {"beta"}
    scores = read_clarify_scores([tmp_path / "alpha"], model="custom")
    assert {s.model for s in scores} == {"custom"} and len(scores) == 3


def test_eval_runs_feed_the_aggregator(tmp_path):
    _two_model_tree(tmp_path)
    runs = clarify_eval_runs(read_clarify_scores([tmp_path]))
    assert {r.metric_name for r in runs} == {"tkqr", "ora"} and len(runs) == 10
    reports = {r.metric: r for r in compute_eval_reports(runs, b=50, seed=1)}
    tk = {row.model_id: row for row in reports["tkqr"].rows}
    assert tk["alpha"].mean_score == pytest.approx((2 + L3) / 3, abs=1e-12)
    assert tk["alpha"].tasks_completed == 3
    # t1 is the only common task: alpha 1.0 beats beta 0.0.
    assert tk["alpha"].win_rate == pytest.approx(3 / 3) and tk["beta"].win_rate == pytest.approx(1 / 2)
    assert reports["tkqr"].pairwise[0].n_tasks == 1


def test_no_records_is_an_error(tmp_path):
    (tmp_path / "empty").mkdir()
    (tmp_path / "empty" / "x.jsonl").write_text("\n\n", encoding="utf-8")
    with pytest.raises(UserError, match="no clarification run records"):
        read_clarify_scores([tmp_path / "empty"])


def test_missing_path_bad_json_and_bad_record_name_file_and_line(tmp_path):
    with pytest.raises(UserError, match="nope: no such file"):
        read_clarify_scores([tmp_path / "nope"])
    bad = tmp_path / "m" / "r.jsonl"
    bad.parent.mkdir()
    bad.write_text('{"turns": 1}\n{"turns": \n', encoding="utf-8")
    with pytest.raises(UserError, match=r"r\.jsonl: line 2: invalid JSON"):
        read_clarify_scores([bad])
    bad.write_text('{"turns": 1}\n\n{"turns": 0, "key_question_num": 1}\n', encoding="utf-8")
    with pytest.raises(UserError, match=r"r\.jsonl: line 3: unusable record .*\"turns\": 0"):
        read_clarify_scores([bad])
    bad.write_text('{"turns": 3, "key_question_num": 1, "hit_dict": {"0": -1, "1": 0}}\n', encoding="utf-8")
    with pytest.raises(UserError, match=r"r\.jsonl: line 1: TKQR .* negative or not finite"):
        read_clarify_scores([bad])


def _repeated_runs(root: Path) -> None:
    """Two repeated runs of one model on the same two tasks, in one run directory."""
    write_jsonl(root / "m" / "seed1.jsonl", [
        {"task_id": "t1", "key_question_num": 2, "turns": 3, "hit_dict": {"0": 1, "1": 1}},  # tkqr 1, ora 1
        {"task_id": "t2", "key_question_num": 1, "turns": 2, "hit_dict": {"0": 0}},  # tkqr 0, ora 1
    ])
    write_jsonl(root / "m" / "seed2.jsonl", [
        {"task_id": "t1", "key_question_num": 2, "turns": 2, "hit_dict": {"0": 1}},  # tkqr 1 / (1 + L3)
        {"task_id": "t2", "key_question_num": 1, "turns": 2, "hit_dict": {"0": 1}},  # tkqr 1, ora 1
    ])


def test_repeated_runs_are_averaged_not_refused(tmp_path):
    _repeated_runs(tmp_path)
    scores = read_clarify_scores([tmp_path])
    assert [(s.model, s.task_id) for s in scores] == [("m", "t1"), ("m", "t2")] * 2
    summ = compute_clarify_summary(scores)
    # by hand: t1 run 2 hits [1, 0] against K = 2: DCG 1, IDCG 1 + 1/log2(3); 1 round for K = 2:
    # ORA exp(-1 / (2 (0.85)^2)); turns 2, 1, 1, 1; diffs 0, 0, -1, 0
    t1b = 1 / (1 + L3)
    ora_short = math.exp(-1 / (2 * 0.85**2))
    assert summ.num_tasks == 4 and summ.num_files == 2 and summ.tkqr_above_one == 0
    assert summ.tkqr == pytest.approx((1 + 0 + t1b + 1) / 4, abs=1e-12)
    assert summ.ora == pytest.approx((1 + 1 + ora_short + 1) / 4, abs=1e-12)
    assert summ.avg_turns == pytest.approx(1.25) and summ.avg_diff == pytest.approx(-0.25)
    runs = clarify_eval_runs(scores)
    assert len(runs) == 4  # one tkqr and one ora per model and task
    by = {(r.task_id, r.metric_name): r for r in runs}
    assert by[("t1", "tkqr")].score == pytest.approx((1 + t1b) / 2)
    assert by[("t2", "tkqr")].score == pytest.approx(0.5)
    assert by[("t1", "ora")].score == pytest.approx((1 + ora_short) / 2)
    assert "mean of 2 runs" in by[("t1", "tkqr")].origin
    tk = {r.metric: r for r in compute_eval_reports(runs, b=20, seed=1)}["tkqr"].rows[0]
    assert tk.mean_score == pytest.approx(((1 + t1b) / 2 + 0.5) / 2) and tk.tasks_completed == 2


def test_more_hits_than_key_questions_is_computed_and_flagged(tmp_path):
    write_jsonl(tmp_path / "m" / "r.jsonl", [
        {"task_id": "a", "key_question_num": 1, "turns": 3, "hit_dict": {"0": 1, "1": 1}},  # 1 + L3 > 1
        {"task_id": "b", "key_question_num": 1, "turns": 2, "hit_dict": {"0": 1}},  # 1
    ])
    scores = read_clarify_scores([tmp_path])
    # hits [1, 1, 0] against K = 1: DCG 1 + 1/log2(3), IDCG 1
    assert scores[0].tkqr == pytest.approx(1 + L3, abs=1e-12)
    summ = compute_clarify_summary(scores)
    assert summ.tkqr_above_one == 1 and summ.tkqr == pytest.approx((1 + L3 + 1) / 2, abs=1e-12)
    assert summ.to_json()["tkqr_above_one"] == 1
    runs = {r.task_id: r for r in clarify_eval_runs(scores) if r.metric_name == "tkqr"}
    assert runs["a"].score == 1.0  # the board's score range
