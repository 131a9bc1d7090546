"""The ``table`` kind: any published leaderboard by configuration.

Unit tests on small tables in every format, the config-time checks of the mapping, a payload
that does not match (a failed source with its reason), and the acceptance test: a real
leaderboard (Aider's polyglot YAML from ../shared/data) served from 127.0.0.1, mapped by
configuration only to a new family of a role, built ``--live`` with the real LMArena file,
its calibrated scores on the role board, in the evidence download and through ``verify``.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from datetime import UTC, date, datetime
from pathlib import Path

import pytest
import yaml
from conftest import serve_directory

from builder.config import SourceConfig, load_config
from builder.errors import UserError
from builder.fetch import fetch_all
from builder.records import Payload
from builder.sources import PayloadError, parse_payload
from builder.sources.table import path_segments

ROOT = Path(__file__).resolve().parents[1]
T0 = datetime(2026, 11, 30, 12, tzinfo=UTC)


def _source(**options) -> SourceConfig:
    return SourceConfig(name="board", kind="table", url="https://example.org/board", evaluator="lab", options=options)


def _parse(name: str, text: str, **options):
    payload = Payload(source="board", files={name: text.encode()}, fetched_at=T0, origin=f"https://example.org/{name}")
    return parse_payload(payload, _source(**options)).observations


SCORES = [{"column": "score", "feed": "overall", "scale": "0-100"}]


def test_csv_rows_scores_dates_and_excluded_rows():
    text = ("model,score,date,effort,link\n"
            "gpt-9,71.5,2026-10-01,high,https://example.org/gpt-9\n"
            "tiny-1,abc,2026-10-02,low,\n"
            "big-2,101,2026-10-03,,\n"
            "ragged,1\n"
            ",50,2026-10-04,,\n")
    obs = _parse("board.csv", text, model="model", scores=SCORES, date="date", configuration="effort", url="link")
    assert [o.model for o in obs] == ["gpt-9", "tiny-1", "big-2", "(row 5)", "(row 6)"]
    first = obs[0]
    assert (first.feed, first.evaluator, first.raw, first.date, first.percent) == (
        "board/overall", "lab", 71.5, date(2026, 10, 1), True)
    assert first.url == "https://example.org/gpt-9" and first.details["configuration"] == "high"
    assert first.excluded is None and obs[1].url == "https://example.org/board"
    assert "not a number" in obs[1].excluded and "out of [0, 100]" in obs[2].excluded
    assert "ragged row" in obs[3].excluded and "no model" in obs[4].excluded


def test_tsv_jsonl_and_lower_is_better():
    tsv = "name\tacc\tsecs\nm-a\t0.5\t12\nm-b\t1.5\t-3\n"
    scores = [{"column": "acc", "feed": "accuracy", "scale": "0-1"},
              {"column": "secs", "feed": "speed", "scale": "unbounded", "higher_is_better": False}]
    obs = _parse("t.tsv", tsv, model="name", scores=scores)
    by = {(o.model, o.feed): o for o in obs}
    assert by["m-a", "board/accuracy"].raw == 0.5 and not by["m-a", "board/accuracy"].percent
    assert "out of [0, 1]" in by["m-b", "board/accuracy"].excluded
    assert by["m-a", "board/speed"].raw == -12.0 and by["m-a", "board/speed"].details["published"] == 12.0
    jsonl = '{"m": "a", "s": 3}\nnot json\n[1]\n{"m": "b", "s": true}\n'
    obs = _parse("r.jsonl", jsonl, model="m", scores=[{"column": "s", "feed": "x", "scale": "unbounded"}])
    assert [(o.raw, o.excluded is None) for o in obs][0] == (3.0, True)
    assert "line 2: not JSON" in obs[1].excluded and "not a JSON object" in obs[2].excluded
    assert "boolean" in obs[3].excluded


def test_json_rows_by_dotted_path_and_jsonpath_and_object_of_objects():
    doc = {"data": {"results": [{"model": {"id": "m-1"}, "scores": {"all": 40}}, {"model": {"id": "m-2"},
                                                                                   "scores": {"all": 60}}]}}
    scores = [{"column": "scores.all", "feed": "all", "scale": "0-100"}]
    for rows in ("data.results", "$.data.results[*]", "$['data']['results']"):
        obs = _parse("b.json", json.dumps(doc), rows=rows, model="model.id", scores=scores)
        assert [(o.model, o.raw) for o in obs] == [("m-1", 40.0), ("m-2", 60.0)], rows
    keyed = {"full": {"m-1": {"rating": 1300}, "m-2": {"rating": 1250}}}
    obs = _parse("k.json", json.dumps(keyed), rows="full", model="_key",
                 scores=[{"column": "rating", "feed": "text", "scale": "unbounded"}])
    assert [(o.model, o.raw) for o in obs] == [("m-1", 1300.0), ("m-2", 1250.0)]
    assert path_segments("$.a[0].b") == ["a", 0, "b"]


def test_yaml_rows_and_dates():
    text = "- {model: m-1, pass: 55.5, date: 2026-09-01}\n- {model: m-2, pass: 44, date: not a date}\n"
    obs = _parse("lb.yml", text, model="model", scores=[{"column": "pass", "feed": "pass", "scale": "0-100"}],
                 date="date")
    assert [(o.model, o.raw, o.date) for o in obs] == [("m-1", 55.5, date(2026, 9, 1)), ("m-2", 44.0, None)]


@pytest.mark.parametrize("name, text, options, why", [
    ("b.json", '{"rows": []}', {"rows": "data"}, "no 'data' in the document"),
    ("b.json", '{"data": 3}', {"rows": "data"}, "expected a list of rows"),
    ("b.json", "{nope", {}, "not valid JSON"),
    ("b.csv", "name,score\nx,1\n", {}, "no row has the column 'model'"),
    ("b.csv", "model,points\nx,1\n", {}, "no row has the column 'score'"),
    ("b.txt", "model,score\nx,1\n", {}, "set options.format"),
    ("b.yml", "a: *x\n", {}, "invalid YAML"),
])
def test_a_payload_that_does_not_match_raises_payload_error(name, text, options, why):
    with pytest.raises(PayloadError, match=why):
        _parse(name, text, **{"model": "model", "scores": SCORES, **options})


def _site(tmp_path: Path, options: dict) -> Path:
    data = yaml.safe_load((ROOT / "site.yml").read_text())
    data["sources"].append({"name": "board", "kind": "table", "recorded": str(tmp_path / "board.csv"),
                            "options": options})
    (tmp_path / "site.yml").write_text(yaml.safe_dump(data))
    return tmp_path / "site.yml"


@pytest.mark.parametrize("options, where", [
    ({"scores": SCORES}, "options.model: Field required"),
    ({"model": "m", "scores": [{"column": "s", "feed": "f", "scale": "0-10"}]}, "options.scores.0.scale"),
    ({"model": "m", "scores": []}, "options.scores"),
    ({"model": "m", "scores": SCORES, "rows": "a..b["}, "options.rows"),
    ({"model": "m", "scores": SCORES * 2}, "mapped twice"),
    ({"model": "m", "scores": SCORES, "colour": "red"}, "options.colour"),
])
def test_a_bad_mapping_is_one_line_naming_the_field(tmp_path, options, where):
    with pytest.raises(UserError) as exc:
        load_config(_site(tmp_path, options))
    msg = str(exc.value)
    assert "\n" not in msg and re.search(r"sources\.\d+\.options", msg) and where in msg, msg


def test_a_payload_that_does_not_match_fails_the_source_with_its_reason(tmp_path):
    (tmp_path / "board.csv").write_text("name,points\nx,1\n")
    cfg, base = load_config(_site(tmp_path, {"model": "model", "scores": SCORES}))
    statuses = {s.source: s for s in fetch_all(cfg, base, live=False, progress=False, now=T0)}
    board = statuses["board"]
    assert not board.ok and "unparseable payload" in board.error and "no row has the column 'model'" in board.error
    assert statuses["arena"].ok


# --------------------------------------------------------------------------- acceptance


def test_a_real_leaderboard_by_configuration_reaches_a_role_board_the_evidence_and_verify(tmp_path, shared_data):
    """A build ``--live`` against 127.0.0.1 (~30-60 s on two busy cores: one whole build and
    ``verify``): Aider's real polyglot YAML through the table kind (a new family, ``polyglot``,
    half of a role), the real LMArena file as the Arena scale (their overlap is 26 models)."""
    served = tmp_path / "upstream"
    served.mkdir()
    shutil.copy(shared_data / "aider" / "polyglot_leaderboard.yml", served / "polyglot_leaderboard.yml")
    shutil.copy(shared_data / "arena" / "lmarena" / "leaderboard-text.json", served / "leaderboard-text.json")
    with serve_directory(served) as origin:
        site = {
            "demo": False,
            "sources": [
                {"name": "arena", "kind": "lmarena", "url": f"{origin}/leaderboard-text.json",
                 "date": "2025-12-11", "evaluator": "lmarena"},
                {"name": "polyglot", "kind": "table", "url": f"{origin}/polyglot_leaderboard.yml",
                 "evaluator": "aider", "min_records": 20,
                 "options": {"model": "model", "date": "date", "configuration": "edit_format",
                             "scores": [{"column": "pass_rate_2", "feed": "pass_rate", "scale": "0-100"}]}},
            ],
            "families": {"human_preference": {"title": "Human preference", "feeds": ["arena/text"]},
                         "polyglot": {"title": "Polyglot coding", "feeds": ["polyglot/pass_rate"]}},
            "roles": {"coder": {"title": "Coder", "weights": {"human_preference": 0.5, "polyglot": 0.5}}},
            "boards": [{"id": "coder", "title": "Best coder", "kind": "orchestrator", "role": "coder"}],
            "arena": {"enabled": False}, "index": {"enabled": False}, "uncertainty": {"rounds": 0},
        }
        (tmp_path / "site.yml").write_text(yaml.safe_dump(site, sort_keys=False))
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        cli = [str(Path(sys.executable).parent / "modelboards")]
        run = subprocess.run([*cli, "--config", str(tmp_path / "site.yml"), "build", "--live"],
                             cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)
        assert run.returncode == 0, run.stderr
    snap = json.loads(next((tmp_path / "snapshots").glob("*.json")).read_text())
    fit = next(c for c in snap["calibration"] if c["feed"] == "polyglot/pass_rate")
    assert fit["used"] and fit["n"] >= 10
    board = next(b for b in snap["boards"] if b["id"] == "coder")
    with_polyglot = [r for r in board["rows"] if "polyglot" in (r["families"] or {})]
    assert len(with_polyglot) >= 10
    evidence = json.loads((tmp_path / "site" / "data" / "boards-evidence.json").read_text())
    rows = [o for o in evidence["observations"] if o["feed"] == "polyglot/pass_rate" and o["calibrated"] is not None]
    assert len(rows) >= 10 and all(o["evaluator"] == "aider" for o in rows)
    calibrated = {o["identity"]: o["calibrated"] for o in rows}
    top = with_polyglot[0]
    assert top["families"]["polyglot"] == pytest.approx(calibrated[top["identity"]])
    csv_text = (tmp_path / "site" / "data" / "boards" / "coder.csv").read_text()
    assert "family_polyglot" in csv_text.splitlines()[0]
    verify = subprocess.run([*cli, "--config", str(tmp_path / "site.yml"), "verify", str(tmp_path / "site")],
                            cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)
    assert verify.returncode == 0, verify.stdout + verify.stderr
