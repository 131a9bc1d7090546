"""Families, R, labels, competition ranks, rounding and movement; hypothesis properties."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from builder.scoring.boards import score_role
from builder.scoring.families import Contribution, compute_family_means, compute_r
from builder.scoring.rank import (
    competition_ranks,
    compute_movement,
    display_score,
    rank_by_key,
    rank_rows,
    score_model,
)

ORCH = {"reasoning": 0.50, "human_preference": 0.30, "terminal_work": 0.20}
ALL = set(ORCH)


def c(ident: str, family: str, value: float, evaluator: str) -> Contribution:
    return Contribution(ident, family, evaluator, f"{evaluator}/x", "", evaluator, ident, value, value)


# --------------------------------------------------------------------------- rounding and ranks


@pytest.mark.parametrize("r, shown", [(1500.5, 1500), (1501.5, 1502), (1499.5, 1500), (1500.49, 1500),
                                      (1500.51, 1501), (-0.5, 0)])
def test_displayed_score_rounds_half_to_even(r, shown):
    assert display_score(r) == shown


def test_competition_ranks_share_ties():
    assert competition_ranks([1510.0, 1500.0, 1500.0, 1490.0]) == [1, 2, 2, 4]
    assert competition_ranks([1.0, 1.0, 1.0]) == [1, 1, 1]


def test_tied_rows_display_in_ascending_spelling():
    rows = [("zeta", 1500.0), ("Alpha", 1500.0), ("top", 1600.0), ("beta", 1500.0), ("low", 1400.0)]
    ranked = rank_rows(rows, lambda x: x[1], lambda x: x[0])
    assert [(rank, name) for rank, (name, _) in ranked] == [
        (1, "top"), (2, "Alpha"), (2, "beta"), (2, "zeta"), (5, "low")]


def test_ranks_use_unrounded_r():
    ranked = rank_rows([("a", 1499.6), ("b", 1500.4)], lambda x: x[1], lambda x: x[0])
    assert [(rank, name, display_score(r)) for rank, (name, r) in ranked] == [(1, "b", 1500), (2, "a", 1500)]


def test_rank_by_key_shares_equal_keys():
    assert rank_by_key([(0, -3), (0, -2), (0, -2), (1, -9)], lambda k: k) == [1, 2, 2, 4]


# --------------------------------------------------------------------------- families and R


def test_family_mean_is_equal_weighted_within_the_family():
    means = compute_family_means([c("m", "reasoning", 1500, "epoch"), c("m", "reasoning", 1400, "livebench"),
                                  c("m", "human_preference", 1450, "lmarena")], ORCH)
    assert means == {"reasoning": 1450.0, "human_preference": 1450.0}


def test_r_renormalises_over_present_families():
    r = compute_r({"reasoning": 1500.0, "terminal_work": 1400.0}, ORCH)
    assert r == pytest.approx((0.5 * 1500 + 0.2 * 1400) / 0.7, abs=1e-9)
    assert compute_r({}, ORCH) is None
    assert compute_r({"coding": 1500.0}, ORCH) is None  # a family without weight is not present


def test_families_without_weight_are_ignored():
    means = compute_family_means([c("m", "coding", 1600, "aider"), c("m", "reasoning", 1500, "epoch")], ORCH)
    assert means == {"reasoning": 1500.0}


# --------------------------------------------------------------------------- labels


def test_single_evaluator_goes_to_new_strip():
    s = score_model("m", "m", [c("m", "reasoning", 1500, "livebench"), c("m", "terminal_work", 1400, "livebench")],
                    ORCH, ALL)
    assert s.new and s.evaluators == ("livebench",)


def test_no_usable_family_has_no_row():
    assert score_model("m", "m", [c("m", "coding", 1500, "aider")], ORCH, ALL) is None
    assert score_model("m", "m", [], ORCH, ALL) is None


def test_partial_for_fewer_than_two_families():
    s = score_model("m", "m", [c("m", "reasoning", 1500, "epoch"), c("m", "reasoning", 1490, "livebench")],
                    ORCH, ALL)
    assert not s.new and s.partial and "fewer than two rating families" in s.partial_reasons
    assert s.coverage == pytest.approx(0.5) and s.available_share == pytest.approx(0.5)


def test_partial_below_half_of_available_weight():
    contributions = [c("m", "human_preference", 1500, "lmarena"), c("m", "terminal_work", 1490, "tbench")]
    s = score_model("m", "m", contributions, ORCH, ALL)
    assert s.available_share == pytest.approx(0.5) and not s.partial  # exactly 50% is enough
    s = score_model("m", "m", [*contributions[:1], c("m", "human_preference", 1480, "other")], ORCH, ALL)
    assert s.partial and "less than 50% of the available family weight" in s.partial_reasons
    # Available weight counts only families usable somewhere in the snapshot.
    s = score_model("m", "m", contributions, ORCH, {"human_preference", "terminal_work"})
    assert s.available_share == pytest.approx(1.0) and s.coverage == pytest.approx(0.5)


def test_full_row_is_not_partial():
    s = score_model("m", "m", [c("m", "reasoning", 1500, "epoch"), c("m", "human_preference", 1490, "lmarena"),
                               c("m", "terminal_work", 1480, "tbench")], ORCH, ALL)
    assert not s.partial and s.coverage == pytest.approx(1.0) and s.score == round(s.r)


def test_movement():
    prev = {"a": 3, "b": 1}
    assert compute_movement("a", 1, prev) == 2  # up two places
    assert compute_movement("b", 2, prev) == -1
    assert compute_movement("c", 4, prev) == "new"
    assert compute_movement("a", 1, None) is None  # first snapshot or a new method
    assert compute_movement("a", None, prev) is None  # unranked rows have none


# --------------------------------------------------------------------------- properties

FAMILIES = ["reasoning", "human_preference", "terminal_work", "coding"]
score = st.floats(min_value=800, max_value=2000, allow_nan=False)
contribution = st.tuples(st.sampled_from(FAMILIES), score, st.sampled_from(["e1", "e2", "e3"]))
models = st.dictionaries(st.sampled_from([f"m{i}" for i in range(8)]), st.lists(contribution, max_size=5),
                         min_size=1, max_size=8)


def to_contributions(spec: dict) -> dict[str, list[Contribution]]:
    return {m: [c(m, f, v, e) for f, v, e in rows] for m, rows in spec.items()}


@settings(max_examples=60, deadline=None)
@given(models, st.sampled_from(FAMILIES), score)
def test_adding_a_family_to_one_model_never_changes_another_models_r(spec, family, value):
    contributions = to_contributions(spec)
    before = {s.identity: s.r for s in score_role(ORCH, contributions, {}, ALL)}
    target = min(spec)
    contributions[target] = [*contributions[target], c(target, family, value, "new-evaluator")]
    after = {s.identity: s.r for s in score_role(ORCH, contributions, {}, ALL)}
    for ident, r in before.items():
        if ident != target:
            assert after[ident] == r


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.text(min_size=1, max_size=4), st.sampled_from([1400.0, 1500.0, 1500.5]) | score),
                max_size=12))
def test_ranks_are_consistent_with_r(rows):
    ranked = rank_rows(rows, lambda x: x[1], lambda x: x[0])
    for rank_a, (_, ra) in ranked:
        assert rank_a == 1 + sum(1 for _, (_, rb) in ranked if rb > ra)
        for rank_b, (_, rb) in ranked:
            if ra > rb:
                assert rank_a < rank_b
            elif ra == rb:
                assert rank_a == rank_b


@settings(max_examples=100, deadline=None)
@given(st.dictionaries(st.sampled_from(FAMILIES), score, max_size=4),
       st.dictionaries(st.sampled_from(FAMILIES), st.floats(min_value=1e-9, max_value=10), min_size=1, max_size=4))
def test_renormalisation_never_divides_by_zero(means, weights):
    r = compute_r(means, weights)
    present = [means[f] for f in weights if f in means]
    if not present:
        assert r is None
    else:
        assert math.isfinite(r) and min(present) - 1e-6 <= r <= max(present) + 1e-6
