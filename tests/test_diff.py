"""``modelboards diff`` and the diff engine, on two shipped snapshots with moves checked by hand.

Hand-checked in snapshots/2026-11-15.json -> 2026-11-22.json (the JSON files, read directly):
- models present on 11-15 and gone on 11-22: claude-opus-4.8, gpt-5.5, grok-4.6; none added;
- orchestrator board: gpt-6 rank 3 -> 2 (R 1498.3757 -> 1502.7415; its arena/text value
  1503.4506 -> 1501.9512 and a new livebench/global value 87.3723), gemini-3-pro 2 -> 3;
- grok-5-fast was in the orchestrator's new strip on 11-15 and is ranked 14 on 11-22;
- every source is ok on both days; the method id is the same.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from builder.cli import main
from builder.history.diff import compute_change_log, compute_diff, diff_document, render_diff_text
from builder.snapshot import load_snapshot
from builder.snapshot.models import Snapshot

ROOT = Path(__file__).resolve().parents[1]
OLD = ROOT / "snapshots" / "2026-11-15.json"
NEW = ROOT / "snapshots" / "2026-11-22.json"


@pytest.fixture(scope="module")
def pair() -> tuple[Snapshot, Snapshot]:
    return load_snapshot(OLD), load_snapshot(NEW)


def _move(diff, board, identity, kind):
    found = [m for m in diff.moves if m.board == board and m.identity == identity and m.kind == kind]
    assert len(found) == 1, (board, identity, kind, found)
    return found[0]


def test_hand_checked_moves(pair):
    old, new = pair
    d = compute_diff(old, new, threshold=10.0)
    assert [m.identity for m in d.removed_models] == ["claude-opus-4.8", "gpt-5.5", "grok-4.6"]
    assert d.new_models == ()
    assert d.method is None and d.sources == ()
    gpt6 = _move(d, "orchestrator", "gpt-6", "rank")
    assert (gpt6.before, gpt6.after) == (3, 2)
    assert gpt6.r_before == pytest.approx(1498.3756591023873, abs=1e-9)
    assert gpt6.r_after == pytest.approx(1502.7414968654473, abs=1e-9)
    texts = [r.text for r in gpt6.reasons if r.code == "source_value"]
    assert "a new source value: arena/text 1503.45 -> 1501.95" in texts
    assert "a new source value: livebench/global 87.37" in texts
    gem = _move(d, "orchestrator", "gemini-3-pro", "rank")
    assert (gem.before, gem.after) == (2, 3)
    entered = _move(d, "orchestrator", "grok-5-fast", "entered")
    assert (entered.before, entered.after) == (None, 14)
    assert "rating_strip" in {r.code for r in entered.reasons}
    # a model two places lower on the board is pushed down by the two newly ranked ones above it
    mistral = _move(d, "orchestrator", "mistral-large-3", "rank")
    assert (mistral.before, mistral.after) == (14, 16)
    assert any(r.code == "new_model_above" and "grok-5-fast" in r.text and "ernie-5" in r.text
               for r in mistral.reasons)


def test_score_moves_respect_the_threshold(pair):
    old, new = pair
    for threshold in (5.0, 10.0, 20.0):
        d = compute_diff(old, new, threshold=threshold)
        scores = [m for m in d.moves if m.kind == "score"]
        assert scores, threshold
        assert all(abs(m.r_after - m.r_before) >= threshold for m in scores)
    loose, tight = compute_diff(old, new, threshold=5.0), compute_diff(old, new, threshold=20.0)
    assert len([m for m in loose.moves if m.kind == "score"]) > len([m for m in tight.moves if m.kind == "score"])


def test_identical_snapshots_have_no_change(pair):
    old, _ = pair
    d = compute_diff(old, old)
    assert d.empty and d.count() == 0
    assert render_diff_text(d).startswith("changes 2026-11-15 -> 2026-11-15: no change")


def test_method_change_and_source_failure_and_recovery(pair):
    old, new = pair
    failed = tuple(s.model_copy(update={"status": "failed", "error": "HTTP 503"}) if s.name == "epoch" else s
                   for s in new.sources)
    weights = {**new.roles["orchestrator"].weights, "reasoning": 0.6}
    roles = {**new.roles, "orchestrator": new.roles["orchestrator"].model_copy(update={"weights": weights})}
    changed = new.model_copy(update={"sources": failed, "method_id": "boards-zfit-v1-000000000000", "roles": roles})
    d = compute_diff(old, changed)
    assert [(s.source, s.kind, s.error) for s in d.sources] == [("epoch", "failed", "HTTP 503")]
    assert d.method is not None and d.method.after == "boards-zfit-v1-000000000000"
    assert any(x.startswith("role orchestrator weights:") for x in d.method.details)
    assert all(r.code == "method" for m in d.moves for r in m.reasons)
    back = compute_diff(changed, new)
    assert [(s.source, s.kind) for s in back.sources] == [("epoch", "recovered")]


def test_price_changes(pair):
    old, new = pair
    d = compute_diff(old, new)
    sonnet = [p for p in d.prices if p.identity == "claude-sonnet-5" and p.price == "build"]
    raw_old = {b["identity"]: b["price"] for b in json.loads(OLD.read_text())["prices"]["build"]}
    raw_new = {b["identity"]: b["price"] for b in json.loads(NEW.read_text())["prices"]["build"]}
    assert raw_old["claude-sonnet-5"] != raw_new["claude-sonnet-5"]
    assert [(p.before, p.after) for p in sonnet] == [(raw_old["claude-sonnet-5"], raw_new["claude-sonnet-5"])]


def test_change_log_one_document_per_date(pair):
    old, new = pair
    docs = compute_change_log([new, old, new])
    assert [d["date"] for d in docs] == ["2026-11-15", "2026-11-22"]
    assert docs[0]["previous"] is None and docs[0]["count"] == 0
    assert docs[1]["previous"] == "2026-11-15"
    assert docs[1] == json.loads(json.dumps(diff_document(compute_diff(old, new), old, new)))


def test_cli_text_and_json():
    runner = CliRunner()
    text = runner.invoke(main, ["--config", str(ROOT / "site.yml"), "diff", str(OLD), str(NEW)])
    assert text.exit_code == 0, text.output
    assert text.output.startswith("changes 2026-11-15 -> 2026-11-22: 3 removed models")
    assert "gpt-6 rank 3 -> 2 (up 1)" in text.output
    js = runner.invoke(main, ["--config", str(ROOT / "site.yml"), "diff", "--format", "json", str(OLD), str(NEW)])
    assert js.exit_code == 0
    doc = json.loads(js.output)
    assert doc["previous"] == "2026-11-15" and doc["date"] == "2026-11-22"
    assert doc["threshold"] == 10.0  # site.yml's changes.score_threshold (the default)
    assert {"board": "orchestrator", "identity": "gpt-6", "kind": "rank", "before": 3, "after": 2} \
        .items() <= next(m for m in doc["moves"] if m["identity"] == "gpt-6" and m["board"] == "orchestrator").items()


def test_cli_threshold_from_site_yml(tmp_path):
    cfg = tmp_path / "site.yml"
    cfg.write_text((ROOT / "site.yml").read_text() + "\nchanges:\n  score_threshold: 25\n")
    r = CliRunner().invoke(main, ["--config", str(cfg), "diff", "--format", "json", str(OLD), str(NEW)])
    assert r.exit_code == 0, r.output
    assert json.loads(r.output)["threshold"] == 25.0


@pytest.mark.parametrize("content", [None, "{not json", '{"schema_version": 2}'])
def test_cli_bad_file_is_one_line_exit_2(tmp_path, content):
    bad = tmp_path / "bad.json"
    if content is not None:
        bad.write_text(content)
    r = CliRunner().invoke(main, ["--config", str(tmp_path / "none.yml"), "diff", str(OLD), str(bad)])
    assert r.exit_code == 2
    lines = r.output.strip().splitlines()
    assert len(lines) == 1 and "bad.json" in lines[0] and "Traceback" not in r.output
