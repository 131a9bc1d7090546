"""Robustness on the site built from the real upstream files (the shared ``real_site`` build):
every ranked row of every role board carries its leave-one-evaluator-out ranks, the board
page shows the column and the weight region, and the downloads and the API carry the fields
declared once on ``BoardRow``; the build's own verify reproduced them."""

from __future__ import annotations

import csv
import io
import json

import pytest

from builder.snapshot.models import Snapshot


@pytest.fixture(scope="module")
def snap(real_snapshot) -> Snapshot:
    return real_snapshot


def test_every_ranked_row_has_its_leave_one_out_ranks(snap):
    ranked = [b for b in snap.boards if b.rows]
    assert ranked
    for b in ranked:
        rb = b.robustness
        assert rb is not None, b.id
        assert rb.anchor == "lmarena" and "lmarena" in rb.evaluators and len(rb.evaluators) >= 3
        assert rb.weights is not None and 0 <= rb.weights.hold_share <= 1
        assert [c.identity for c in rb.weights.contenders] == [r.identity for r in b.rows[1:5]]
        for row in b.rows:
            assert tuple(sorted(row.loo_ranks)) == rb.evaluators, (b.id, row.identity)
            assert all(r is None or 1 <= r <= len(b.rows) for r in row.loo_ranks.values())
            assert set(row.depends_on) <= set(rb.evaluators)
            if row.uncertainty is not None and row.uncertainty.rank_lo is not None:
                assert row.depends_on_one is bool(row.depends_on)
        if rb.leader_set is not None:
            assert rb.leader_after is not None and rb.leader_after != b.rows[0].identity
            assert len(rb.leader_set) <= rb.max_set


def test_the_board_page_shows_the_column_and_the_weight_region(snap, real_site):
    b = next(b for b in snap.boards if b.id == "orchestrator")
    html = (real_site.site / "boards" / "orchestrator" / "index.html").read_text(encoding="utf-8")
    assert 'data-key="loo"' in html and "Without one evaluator</th>" in html
    assert html.count('data-label="Without one evaluator"') == len(b.rows)
    assert 'id="about-robustness"' in html and 'data-role="weight-region"' in html
    flagged = [r for r in b.rows if r.depends_on_one]
    assert html.count('class="flag-one"') == len(flagged)
    method = (real_site.site / "methodology" / "index.html").read_text(encoding="utf-8")
    assert 'id="robustness"' in method and "Which evaluators and which weights" in method


def test_downloads_and_api_carry_the_fields(snap, real_site):
    b = next(b for b in snap.boards if b.id == "orchestrator")
    data = real_site.site / "data" / "boards"
    rows = list(csv.DictReader(io.StringIO((data / "orchestrator.csv").read_text(encoding="utf-8"))))
    first = rows[0]
    assert first["loo_ranks"] == ";".join(f"{e}={'' if r is None else r}"
                                          for e, r in sorted(b.rows[0].loo_ranks.items()))
    assert first["depends_on_one"] in ("true", "false")
    download = json.loads((data / "orchestrator.json").read_text(encoding="utf-8"))
    api = json.loads((real_site.site / "api" / "v1" / "boards" / "orchestrator.json").read_text(encoding="utf-8"))
    for doc in (download, api):
        assert doc["rows"][0]["loo_ranks"] == dict(b.rows[0].loo_ranks)
        assert doc["rows"][0]["depends_on"] == list(b.rows[0].depends_on)
    schema = (real_site.site / "api" / "v1" / "schema" / "board.json").read_text(encoding="utf-8")
    assert "loo_ranks" in schema and "depends_on_one" in schema


def test_the_build_verified_the_robustness(real_site):
    evidence = json.loads((real_site.site / "data" / "boards-evidence.json").read_text(encoding="utf-8"))
    assert all(b["robustness"] is not None for b in evidence["boards"] if b["rows"])
    assert "Traceback" not in real_site.output
    assert "did not rebuild" not in real_site.output


def test_try_puts_a_contender_first_in_the_browser(real_site, snap, browser):
    """The weight region's "Try" loads a contender's weights into the form; the board re-scores
    by them and the contender leads (its leave-one-out column, like the intervals, shows a dash)."""
    from conftest import serve_directory

    board = next(b for b in snap.boards if b.rows and b.robustness is not None and b.robustness.weights is not None
                 and any(c.weights for c in b.robustness.weights.contenders))
    assert board.robustness is not None and board.robustness.weights is not None
    k, contender = next((k, c) for k, c in enumerate(board.robustness.weights.contenders) if c.weights)
    with serve_directory(real_site.site) as origin:
        page = browser.new_page()
        try:
            page.goto(f"{origin}/boards/{board.id}/")
            page.wait_for_selector("#board-table[data-weights-ready='1']", state="attached")
            page.click("#own-weights summary")
            page.locator("#own-weights [data-role=try-weights]").nth(
                sum(1 for c in board.robustness.weights.contenders[:k] if c.weights)).click()
            first = page.eval_on_selector("#board-table tbody tr", "r => r.dataset.identity")
            assert first == contender.identity
            assert page.is_visible("[data-role=custom-note]")
            loo = page.eval_on_selector_all("#board-table td.loo", "cs => cs.map(c => c.textContent.trim())")
            assert loo and all(t == "\u2013" for t in loo)
        finally:
            page.close()
