"""A careless operator's input ends in one line and exit code 2, before anything is fetched
or written: a site.yml that is not UTF-8, an unsafe --base-url, click's usage errors, a
negative timeout, an eval record whose model_id is a number, a bad JSON Lines battles line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from builder.cli import main
from builder.config import load_config
from builder.errors import UserError

ROOT = Path(__file__).resolve().parents[1]


def _one_line_error(result) -> str:
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, result.stderr
    assert "Traceback" not in result.output
    return lines[0]


def _config(tmp_path: Path, **changes) -> Path:
    data = yaml.safe_load((ROOT / "site.yml").read_text())
    data["fetch"] = {"store": str(tmp_path / "store")}
    data["snapshots_dir"] = str(tmp_path / "snapshots")
    data.update(changes)
    path = tmp_path / "site.yml"
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    return path


def test_site_yml_that_is_not_utf8_is_one_line(tmp_path):
    path = tmp_path / "site.yml"
    path.write_bytes((ROOT / "site.yml").read_bytes().replace(b"ModelBoards", b"Model\xffBoards", 1))
    with pytest.raises(UserError, match=r"site\.yml: not UTF-8 text at byte \d+"):
        load_config(path)
    result = CliRunner().invoke(main, ["--config", str(path), "build"])
    assert result.exit_code == 2
    assert "not UTF-8" in _one_line_error(result)


@pytest.mark.parametrize("url", ["javascript:alert(1)", "data:text/html,x", "//evil.example/", "ftp://x/"])
def test_unsafe_base_url_is_refused_before_fetching(tmp_path, url):
    cfg = _config(tmp_path)
    result = CliRunner().invoke(main, ["--config", str(cfg), "build", "--base-url", url])
    assert result.exit_code == 2
    line = _one_line_error(result)
    assert "--base-url" in line and "http(s)" in line
    assert not (tmp_path / "store").exists()  # nothing fetched, nothing written
    assert not (tmp_path / "snapshots").exists() and not (tmp_path / "site").exists()


@pytest.mark.parametrize("args", [
    ["build", "--bogus"],
    ["select", "--format", "xml"],
    ["no-such-command"],
    ["render"],  # a required option missing
    ["arena", "fit", "--no-such-flag"],
])
def test_click_usage_errors_are_one_line(args):
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 2
    line = _one_line_error(result)
    assert line.startswith("error: ") and "--help" in line


def test_help_and_version_still_work():
    runner = CliRunner()
    assert runner.invoke(main, ["--help"]).exit_code == 0
    assert runner.invoke(main, ["--version"]).exit_code == 0


@pytest.mark.parametrize("field,value", [("timeout", -5), ("timeout", 0), ("max_bytes", 0), ("deadline", -1)])
def test_non_positive_limits_are_refused(tmp_path, field, value):
    data = yaml.safe_load((ROOT / "site.yml").read_text())
    data["sources"][0][field] = value
    path = tmp_path / "site.yml"
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    with pytest.raises(UserError, match=rf"sources\.0\.{field}: Input should be greater than 0"):
        load_config(path)


def test_eval_record_model_id_must_be_text(tmp_path):
    from builder.evals.io import read_eval_runs

    path = tmp_path / "runs.jsonl"
    rows = [{"model_id": "m1", "task_id": 17, "metric_name": "acc", "score": 1},
            {"model_id": 42, "task_id": "t1", "metric_name": "acc", "score": 1}]
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    with pytest.raises(UserError, match=r"runs\.jsonl: line 2: model_id must be a string \(42\)"):
        read_eval_runs([path])
    path.write_text(json.dumps(rows[0]) + "\n", encoding="utf-8")
    assert read_eval_runs([path])[0].task_id == "17"  # integer task ids stay accepted


@pytest.mark.parametrize("bad_line", [2, 3, 7])
def test_jsonl_battles_parse_error_names_the_right_line(tmp_path, bad_line):
    from builder.pairwise.scan import read_battles

    good = json.dumps({"model_a": "a", "model_b": "b", "winner": "model_a", "tstamp": 1.0})
    lines = [good] * 8
    lines[bad_line - 1] = '{"model_a": "a", "model_b": '
    path = tmp_path / "battles.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(UserError, match=rf"battles\.jsonl: line {bad_line}: invalid JSON"):
        read_battles(path)
