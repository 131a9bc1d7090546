"""Seed 004's movement rule for old snapshots: rendering a snapshot saved before the
single-source rule moves its single-evaluator rows to the New strip and hides the saved
movement labels on every board (and machine) whose ranking that changes, and only there."""

from __future__ import annotations

import copy
import csv
import json
import re
from datetime import UTC, datetime
from pathlib import Path

import pytest

from builder.config import load_config
from builder.render.legacy import (
    apply_single_source_rule,
    competition_ranks,
    single_source_rule_applied,
)
from builder.render.site import render_site
from builder.snapshot import validate_snapshot

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "tests" / "fixtures"
NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)


def row(identity: str, r: float, evaluators: list[str], movement=None, partial: bool = False) -> dict:
    return {"identity": identity, "model": identity, "r": r, "score": round(r), "rank": None, "movement": movement,
            "evaluators": evaluators, "partial": partial, "partial_reasons": [], "families": {}, "coverage": 1.0,
            "available_share": 1.0, "token_price": None, "build_price": None, "build_passed": None}


def ranked(rows: list[dict]) -> list[dict]:
    rows = sorted(rows, key=lambda r: (-r["r"], r["model"]))
    for k, r in zip(competition_ranks([(-r["r"],) for r in rows]), rows, strict=True):
        r["rank"] = k
    return rows


def pre_rule_snapshot() -> dict:
    """Two boards and a machine as the old method saved them: single-evaluator models ranked."""
    two = ["arena", "epoch"]
    board_a = ranked([row("m1", 1500, two, 1), row("solo", 1490, ["aider"], "new"), row("m2", 1480, two, -1),
                      row("m3", 1480, two, 2), row("m4", 1470, two, 0)])
    board_b = ranked([row("m1", 1500, two, 3), row("m2", 1480, two, -2)])
    machine = ranked([row("m1", 1500, two, 1), row("solo", 1490, ["aider"], 0), row("m4", 1470, two, -1)])
    return {"schema_version": 1, "date": "2026-11-29", "boards": [
        {"id": "a", "title": "A", "rows": board_a, "new": [row("late", 1400, ["livebench"])]},
        {"id": "b", "title": "B", "rows": board_b, "new": []}],
        "machines": [{"id": "box", "name": "Box", "memory_gb": 24, "rows": machine}]}


def test_rule_on_a_synthetic_pre_rule_snapshot():
    saved = pre_rule_snapshot()
    before = copy.deepcopy(saved)
    assert not single_source_rule_applied(saved)
    snap, result = apply_single_source_rule(saved)
    assert saved == before  # the saved snapshot is not touched
    a, b = snap["boards"]
    assert [(r["identity"], r["rank"], r["movement"]) for r in a["rows"]] == [
        ("m1", 1, None), ("m2", 2, None), ("m3", 2, None), ("m4", 4, None)]  # ranked again, labels hidden
    assert [(r["identity"], r["rank"]) for r in a["new"]] == [("solo", None), ("late", None)]  # by R
    assert "a" in result.boards and "b" not in result.boards
    assert b["rows"] == before["boards"][1]["rows"]  # an unchanged board keeps its labels
    box = snap["machines"][0]
    assert [(r["identity"], r["rank"], r["movement"]) for r in box["rows"]] == [("m1", 1, None), ("m4", 2, None)]
    # the single-evaluator pick is not dropped: it sits in the machine's New strip, unranked
    assert [(r["identity"], r["rank"], r["movement"]) for r in box["new"]] == [("solo", None, None)]
    assert result.pre_rule and result.boards == ("a",) and result.machines == ("box",)
    assert "predates the single-source rule" in result.warning()


def test_snapshots_scored_under_the_rule_render_as_saved():
    saved = pre_rule_snapshot()
    saved["method"] = {"single_source_rule": True}
    snap, result = apply_single_source_rule(saved)
    assert snap == saved and not result.pre_rule and result.warning() is None
    saved["method"] = {"single_source_rule": False}  # said explicitly: from before the rule
    assert apply_single_source_rule(saved)[1].boards == ("a",)


@pytest.fixture(scope="module")
def rendered(tmp_path_factory):
    """A real saved snapshot turned into a pre-rule one: the "new" strip of the orchestrator
    board folded back into its ranking (as the old method ranked it), every row given a
    movement label, and the method field removed."""
    cfg = load_config(FIXTURES / "site.yml")[0]
    snap = json.loads((FIXTURES / "golden_snapshot.json").read_text(encoding="utf-8"))
    snap.pop("method", None)
    orch = next(b for b in snap["boards"] if b["id"] == "orchestrator")
    assert orch["new"], "the fixture needs single-evaluator rows on the orchestrator board"
    moved = [r["identity"] for r in orch["new"]]
    orch["rows"] = ranked(orch["rows"] + orch["new"])
    orch["new"] = []
    for b in snap["boards"]:
        for k, r in enumerate(b["rows"]):
            r["movement"] = (k % 3) + 1  # an "up" label on every row
    untouched = next(b for b in snap["boards"] if b["id"] == "mid-tier" and not b.get("new"))
    out = tmp_path_factory.mktemp("legacy")
    render_site(validate_snapshot(snap), [], cfg, ROOT, out, now=NOW, base_url="https://example.org/")
    return out, moved, untouched["id"], len(untouched["rows"])


def _movement_cells(html: str) -> list[str]:
    return re.findall(r'<td class="num move"[^>]*><span aria-hidden="true">([^<]*)</span>', html)


def test_rendered_pre_rule_board_hides_movement_only_where_ranking_changed(rendered):
    out, moved, untouched, n_untouched = rendered
    orch = (out / "boards" / "orchestrator" / "index.html").read_text()
    cells = _movement_cells(orch)
    assert cells and all(c == "–" for c in cells), cells[:5]
    assert "Movement hidden." in orch and "before the single-source rule" in orch
    new_strip = orch[orch.index("New, not enough ratings yet"):]
    for ident in moved:
        assert ident in new_strip
    kept = (out / "boards" / untouched / "index.html").read_text()
    labels = _movement_cells(kept)
    assert len(labels) == n_untouched and all(re.fullmatch(r"▲ [123]", c) for c in labels), labels
    assert "Movement hidden." not in kept
    with (out / "data" / "boards" / "orchestrator.csv").open(newline="") as f:
        rows = list(csv.DictReader(f))
    assert {r["movement"] for r in rows} == {""}  # the download agrees with the page
    assert {r["identity"] for r in rows if r["strip"] == "new"} >= set(moved)


def test_hidden_movement_cells_say_movement_hidden_to_screen_readers(rendered):
    out, _, untouched, _ = rendered
    orch = (out / "boards" / "orchestrator" / "index.html").read_text()
    spoken = re.findall(r'<td class="num move"[^>]*>.*?<span class="sr">([^<]*)</span>', orch)
    assert spoken and set(spoken) == {"movement hidden"}, spoken[:5]
    kept = (out / "boards" / untouched / "index.html").read_text()
    spoken_kept = re.findall(r'<td class="num move"[^>]*>.*?<span class="sr">([^<]*)</span>', kept)
    assert spoken_kept and all(re.fullmatch(r"up [123]", s) for s in spoken_kept), spoken_kept[:5]


def test_machine_new_strip_is_rendered_on_the_picks_page(tmp_path):
    cfg = load_config(FIXTURES / "site.yml")[0]
    snap = json.loads((FIXTURES / "golden_snapshot.json").read_text(encoding="utf-8"))
    orch = next(b for b in snap["boards"] if b["id"] == "orchestrator")
    solo = copy.deepcopy(orch["new"][0])
    mach = snap["machines"][0]
    solo.update(params_b=12, memory_est_gb=7.5, rank=None, movement=None)
    mach["new"] = [solo]
    render_site(validate_snapshot(snap), [], cfg, ROOT, tmp_path, now=NOW, base_url="https://example.org/")
    html = (tmp_path / "picks" / "index.html").read_text()
    table = html[html.index(f'id="picks-{mach["id"]}-new"'):]
    table = table[:table.index("</table>")]
    assert solo["identity"] in table and ">7.5<" in table and ">12<" in table
    assert "not enough ratings yet" in html
    assert 'id="picks-' + snap["machines"][1]["id"] + '-new"' not in html  # no strip where none fits
