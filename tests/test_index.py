"""The Capability Index, one hand-built case per rule."""

from __future__ import annotations

import math

import pytest

from builder.config import IndexBoardConfig, IndexConfig
from builder.scoring.index import (
    compute_family_score,
    compute_fused,
    compute_index_section,
    compute_measured,
    compute_source_scores,
    lineage_key,
    order_index_board,
    r1,
    select_current,
)
from builder.snapshot.models import FactSources, ModelFacts, Observation

W = {"coding": 30.0, "agent": 20.0, "reasoning": 30.0}


def test_source_score_is_mid_rank_percentile_with_ties():
    # raws 10, 20, 20, 40: L/E = (0,1), (1,2), (1,2), (3,1) of N=4
    s = compute_source_scores({"a": 10, "b": 20, "c": 20, "d": 40})
    assert s == {"a": 12.5, "b": 50.0, "c": 50.0, "d": 87.5}


def test_single_row_board_scores_fifty():
    assert compute_source_scores({"only": 3.0}) == {"only": 50.0}


def test_family_score_weights_share_times_confidence_and_skips_zero_weight():
    rows = [
        {"source_score": 80, "share": 0.6, "confidence": 90},  # w = 0.54
        {"source_score": 40, "share": 0.4, "confidence": 50},  # w = 0.20
        {"source_score": 0, "share": 0.5, "confidence": 0},  # w = 0: ignored
    ]
    assert compute_family_score(rows) == pytest.approx((0.54 * 80 + 0.2 * 40) / 0.74, abs=1e-12)
    assert compute_family_score([{"source_score": 5, "share": 1, "confidence": 0}]) is None


def test_delta_cap_upwards_and_downwards():
    # coding 30 points above general, capped at +8; reasoning 20 below, capped at -8.
    fams = {"general": 50.0, "coding": 80.0, "reasoning": 30.0}
    assert compute_measured(fams, W, 8.0) == pytest.approx(50 + 0.3 * 8 - 0.3 * 8)
    fams = {"general": 50.0, "coding": 55.0, "agent": 10.0}
    assert compute_measured(fams, W, 8.0) == pytest.approx(50 + 0.3 * 5 - 0.2 * 8)


def test_measured_clamped_to_0_and_100():
    heavy = {"coding": 100.0, "agent": 100.0, "reasoning": 100.0}  # weights are configurable
    assert compute_measured({"general": 95.0, "coding": 100.0, "agent": 100.0}, heavy, 8.0) == 100.0
    assert compute_measured({"general": 3.0, "coding": 0.0, "agent": 0.0, "reasoning": 0.0}, heavy, 8.0) == 0.0
    near_top = {"general": 99.0, "coding": 100.0, "agent": 100.0, "reasoning": 100.0}
    assert compute_measured(near_top, W, 8.0) == pytest.approx(99.8)


def test_fusion_is_precision_weighted_and_clamped():
    terms = [{"mean": 60.0, "sigma": 6.0}, {"mean": 70.0, "sigma": 12.0}]
    score, sigma = compute_fused(terms)
    p1, p2 = 1 / 36, 1 / 144
    assert score == pytest.approx((60 * p1 + 70 * p2) / (p1 + p2))
    assert sigma == pytest.approx(1 / math.sqrt(p1 + p2))
    assert compute_fused([{"mean": 130.0, "sigma": 1.0}])[0] == 100.0


def _observations(rows):
    return [Observation(source=feed.split("/")[0], feed=feed, evaluator="t", model=ident, identity=ident,
                        raw=float(raw), calibrated=None, date="2026-11-01", url="https://example.org/" + feed,
                        release="", selected=True, reason="", excluded=None, details={})
            for feed, ident, raw in rows]


def _facts(name, maker, release_date):
    return ModelFacts(name=name, maker=maker, licence=None, open_weight=None, params_b=None, context_window=None,
                      release_date=release_date, lineage=None, spellings=(), sources=FactSources(licence=None,
                                                                                                 params_b=None))


def _index(rows, models=None):
    return compute_index_section(_observations(rows), models or {}, None, "2026-11-30", CFG).model_dump()


CFG = IndexConfig(
    boards=[
        IndexBoardConfig(feed="t/general", family="general", share=1.0, confidence=100),
        IndexBoardConfig(feed="t/coding", family="coding", share=1.0, confidence=100),
    ],
    family_weights={"coding": 50.0, "agent": 0.0, "reasoning": 0.0},
    delta_bound=8.0,
)


def test_measured_specialist_fusion_for_a_model_without_general_rows():
    rows = [("t/general", "a", 1), ("t/general", "b", 2),
            ("t/coding", "a", 1), ("t/coding", "b", 2), ("t/coding", "c", 3)]
    section = _index(rows)
    c = next(m for m in section["models"] if m["identity"] == "c")
    assert c["basis"] == "estimated"
    terms = c["fusion"]["terms"]
    assert [t["channel"] for t in terms] == ["measured-specialist"]
    # c has the top coding raw of three: (2 + 0.5) / 3 = 83.3
    assert terms[0]["mean"] == pytest.approx(83.3)
    assert c["score"] == pytest.approx(83.3)
    a = next(m for m in section["models"] if m["identity"] == "a")
    # a: general 25.0, coding 16.7 -> delta -8.3 capped at -8 -> 25 - 0.5 * 8 = 21.0
    assert a["basis"] == "measured" and a["score"] == pytest.approx(21.0)


def test_inherited_through_lineage_and_maker_prior():
    rows = [("t/general", "acme-4", 1), ("t/general", "zeta-1", 2)]
    models = {
        "acme-4": _facts("Acme 4", "Acme", "2026-01-01"),
        "acme-5": _facts("Acme 5", "Acme", "2026-09-01"),
        "zeta-1": _facts("Zeta 1", "Zeta", "2026-02-01"),
        "loner-1": _facts("Loner", "Nobody", "2026-02-01"),
    }
    section = _index(rows, models)
    by_id = {m["identity"]: m for m in section["models"]}
    assert "loner-1" not in by_id  # no rows, no lineage: not ranked
    acme5 = by_id["acme-5"]
    assert acme5["basis"] == "inherited"
    assert [t["channel"] for t in acme5["fusion"]["terms"]] == ["lineage", "maker-prior"]
    assert acme5["fusion"]["terms"][0]["from_identity"] == "acme-4"
    # current shows only the newest of the acme lineage; all_versions shows both
    assert "acme-4" not in section["boards"]["current"] and "acme-5" in section["boards"]["current"]
    assert {"acme-4", "acme-5"} <= set(section["boards"]["all_versions"])


def _m(ident, score, basis, conf):
    return {"identity": ident, "score": score, "basis": basis, "confidence": conf}


def test_order_every_tie_break():
    models = [
        _m("b", 70.0, "measured", 50), _m("a", 70.0, "measured", 50),  # identity code point
        _m("c", 70.0, "measured", 60),  # confidence first
        _m("d", 70.0, "estimated", 99), _m("e", 70.0, "inherited", 10),  # basis order
        _m("f", 70.1, "estimated", 0),  # score first
        _m("B", 70.0, "measured", 50),  # code point: upper case sorts first
    ]
    assert [m["identity"] for m in order_index_board(models)] == ["f", "c", "B", "a", "b", "e", "d"]


def test_lineage_keys_drop_versions_and_dates_keep_sizes():
    assert lineage_key("claude-opus-5.5") == "claude-opus"
    assert lineage_key("claude-opus-4-20250514") == "claude-opus"
    assert lineage_key("qwen4-235b-a22b") == "qwen-235b-a22b"
    assert lineage_key("llama-5-70b") != lineage_key("llama-5-400b")
    assert lineage_key("x-1", {"x-1": "custom"}) == "custom"


def test_current_picks_newest_release_else_version():
    ms = [
        {"identity": "m-1", "lineage": "m", "release_date": "2026-01-01"},
        {"identity": "m-2", "lineage": "m", "release_date": "2026-05-01"},
        {"identity": "n-2", "lineage": "n", "release_date": None},
        {"identity": "n-10", "lineage": "n", "release_date": None},
    ]
    assert sorted(m["identity"] for m in select_current(ms)) == ["m-2", "n-10"]


def test_r1_rounds_half_up_on_the_decimal():
    assert r1(64.25) == 64.3 and r1(64.24) == 64.2 and r1(0.05) == 0.1
