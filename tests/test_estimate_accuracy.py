"""Estimate accuracy of the Capability Index: the function on a hand-computed case, and the
shipped demo history holding a model that goes from estimated to measured, so the index
page's accuracy table has rows."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from types import SimpleNamespace

import pytest

from builder.config import load_config
from builder.render.pages.evidence import compute_estimate_accuracy
from builder.render.site import render_site
from builder.snapshot import Snapshot, load_snapshot

ROOT = Path(__file__).resolve().parents[1]


def snap(day: str, *models: tuple[str, str, float]) -> SimpleNamespace:
    """The parts of a snapshot the function reads: its date and the index models' basis and score."""
    rows = [SimpleNamespace(identity=i, basis=b, score=s) for i, b, s in models]
    return SimpleNamespace(date=day, index=SimpleNamespace(models=rows))


def test_hand_computed_case():
    history = [
        snap("2026-01-15", ("a", "measured", 58.5), ("b", "estimated", 40.0), ("c", "measured", 71.0)),
        snap("2026-01-01", ("a", "estimated", 60.0), ("b", "inherited", 50.0), ("c", "measured", 70.0),
             ("d", "measured", 30.0)),
        snap("2026-01-08", ("a", "estimated", 62.0), ("b", "measured", 55.0), ("d", "estimated", 33.0)),
        SimpleNamespace(date="2026-01-10", index=None),  # a snapshot without the index counts for nothing
    ]
    got = compute_estimate_accuracy(history)  # any order: read oldest first
    # b: inherited 50.0 on 01-01, measured 55.0 on 01-08 -> error -5.0 (its later estimate is ignored)
    # a: the last estimate before its measurement is 62.0 (01-08), measured 58.5 on 01-15 -> +3.5
    # c: always measured; d: measured, then estimated: neither went from an estimate to a measurement
    assert got["pairs"] == [
        {"identity": "b", "estimate": 50.0, "basis": "inherited", "estimate_date": "2026-01-01", "measured": 55.0,
         "measured_date": "2026-01-08", "error": -5.0},
        {"identity": "a", "estimate": 62.0, "basis": "estimated", "estimate_date": "2026-01-08", "measured": 58.5,
         "measured_date": "2026-01-15", "error": 3.5},
    ]
    assert got["mae"] == pytest.approx((5.0 + 3.5) / 2)
    assert compute_estimate_accuracy([]) == {"pairs": [], "mae": None}


def shipped() -> list[Snapshot]:
    return [load_snapshot(p) for p in sorted((ROOT / "snapshots").glob("*.json"))]


def test_demo_history_moves_a_model_from_estimated_to_measured():
    got = compute_estimate_accuracy(shipped())
    pairs = {p["identity"]: p for p in got["pairs"]}
    assert "hermes-5-70b" in pairs  # Aider only until LiveBench's November release lists it
    h = pairs["hermes-5-70b"]
    assert h["basis"] == "estimated" and h["estimate_date"] < "2026-11-20" <= h["measured_date"]
    assert got["mae"] == pytest.approx(sum(abs(p["error"]) for p in got["pairs"]) / len(got["pairs"]))


def test_index_page_shows_the_accuracy_rows(tmp_path):
    cfg, _ = load_config(ROOT / "site.yml")
    history = shipped()
    current, earlier = history[-1], history[:-1]
    render_site(current, earlier, cfg, ROOT, tmp_path, now=datetime(2026, 11, 29, 13, tzinfo=UTC))
    page = (tmp_path / "capability-index" / "index.html").read_text(encoding="utf-8")
    section = page[page.index('id="accuracy-title"'):]
    assert "How good were the estimates?" in section and "hermes-5-70b" in section.lower().replace(" ", "-")
