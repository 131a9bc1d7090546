"""The snapshot's "evals" section from site.yml suites, path resolution, and the bundled demo data."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from builder.config import PACKAGE_DATA, EvalSuiteConfig, load_config, resolve_data_path
from builder.errors import UserError
from builder.evals.demo import write_demo_evals
from builder.evals.section import compute_evals_section

REPO = Path(__file__).resolve().parents[1]
DEMO = PACKAGE_DATA / "demo" / "evals"
ROW_KEYS = {"model_id", "mean_score", "mean_ci_lo", "mean_ci_hi", "win_rate", "tasks_completed", "categories"}
PAIR_KEYS = {"model_a", "model_b", "diff", "ci_lo", "ci_hi", "n_tasks", "significant"}


@pytest.fixture(scope="module")
def site_section():
    config, base = load_config(REPO / "site.yml")
    return compute_evals_section(config.evals, base)


def test_site_suites_are_aggregated(site_section):
    suites = {s.id: s for s in site_section.suites}
    assert list(suites) == ["demo-suite", "demo-clarify"]
    coding = suites["demo-suite"]
    assert coding.kind == "aggregate" and coding.metric == "pass_rate" and coding.metrics == ("pass_rate",)
    assert coding.n_tasks == 120 and coding.n_models == 10
    assert coding.categories == ("algorithms", "bug-fixing", "refactoring", "sql")
    assert set(coding.rows[0].model_dump()) == ROW_KEYS and set(coding.pairwise[0].model_dump()) == PAIR_KEYS
    means = [r.mean_score for r in coding.rows]
    assert means == sorted(means, reverse=True)
    assert len(coding.pairwise) == 45
    assert coding.markdown.startswith("| Rank | Model | Mean | 95% CI | Win rate | Tasks |\n")
    assert coding.markdown.count("\n") == 12
    assert coding.clarify is None
    # Each task's win is shared out completely: the win counts add up to the number of tasks.
    assert sum(r.win_rate * r.tasks_completed for r in coding.rows) == pytest.approx(120)
    assert {r.model_id: r.tasks_completed for r in coding.rows}["gemma-4-27b"] == 108
    clar = suites["demo-clarify"]
    assert clar.kind == "clarify" and clar.metrics == ("tkqr", "ora") and clar.metric == "tkqr"
    assert set(clar.boards) == {"tkqr", "ora"} and clar.rows == clar.boards["tkqr"].rows
    assert clar.n_models == 5 and clar.n_tasks == 24
    assert clar.clarify is not None
    assert clar.clarify.overall.num_tasks == 120 and clar.clarify.overall.num_files == 10
    tk = {r.model_id: r.mean_score for r in clar.rows}
    for model, summary in clar.clarify.models.items():
        assert tk[model] == pytest.approx(summary.tkqr, abs=1e-12)


def test_section_is_strict_json_and_reproducible(site_section):
    text = json.dumps(site_section.model_dump(mode="json"), allow_nan=False, sort_keys=True)
    config, base = load_config(REPO / "site.yml")
    again = compute_evals_section(config.evals, base).model_dump(mode="json")
    assert json.dumps(again, allow_nan=False, sort_keys=True) == text


def test_metric_choice_and_unknown_metric():
    suite = EvalSuiteConfig(id="c", title="C", kind="clarify", paths=["demo/evals/clarify"], metric="ora", bootstrap=50)
    (s,) = compute_evals_section([suite], None).suites
    assert s.metric == "ora" and s.rows == s.boards["ora"].rows
    bad = EvalSuiteConfig(id="c", title="C", paths=["demo/evals/coding-suite.jsonl"], metric="bleu", bootstrap=50)
    with pytest.raises(UserError, match="metric 'bleu' not found"):
        compute_evals_section([bad], None)


def test_include_keeps_only_the_chosen_models_and_drops_an_emptied_suite():
    config, base = load_config(REPO / "site.yml")
    keep = {"gpt-6", "claude-opus-5.5"}
    section = compute_evals_section(config.evals, base, include=lambda m: m in keep)
    for suite in section.suites:
        for board in suite.boards.values():
            assert {r.model_id for r in board.rows} <= keep and board.rows
        if suite.clarify is not None:
            assert set(suite.clarify.models) <= keep
    assert compute_evals_section(config.evals, base, include=lambda m: False).suites == ()


def test_path_resolution(tmp_path):
    own = tmp_path / "evals"
    own.mkdir()
    (own / "mine.csv").write_text("model_id,task_id,metric_name,score\nx,t1,acc,0.5\ny,t1,acc,1\n", encoding="utf-8")
    assert resolve_data_path(str(own / "mine.csv"), None) == own / "mine.csv"
    assert resolve_data_path("evals/mine.csv", tmp_path) == tmp_path / "evals" / "mine.csv"
    assert resolve_data_path("demo/evals/coding-suite.jsonl", tmp_path) == DEMO / "coding-suite.jsonl"
    suite = EvalSuiteConfig(id="own", title="Own", paths=["evals"], bootstrap=20)  # a folder of eval files
    (s,) = compute_evals_section([suite], tmp_path).suites
    assert [r.model_id for r in s.rows] == ["y", "x"] and s.inputs == ("evals",)
    missing = EvalSuiteConfig(id="m", title="M", paths=["nowhere.jsonl"])
    with pytest.raises(UserError, match="nowhere.jsonl: no such eval file or folder"):
        compute_evals_section([missing], tmp_path)


def test_bundled_demo_files_match_their_generator(tmp_path):
    written = write_demo_evals(tmp_path)
    bundled = sorted(p.relative_to(DEMO).as_posix() for p in DEMO.rglob("*.jsonl"))
    assert sorted(p.relative_to(tmp_path).as_posix() for p in written) == bundled
    for p in written:
        assert p.read_bytes() == (DEMO / p.relative_to(tmp_path)).read_bytes(), p
