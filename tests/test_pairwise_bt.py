"""Bradley-Terry MLE: equal to the seed's logistic-regression formulation, components,
published GenAI-Arena ratings, and clear errors where no finite maximum exists."""

from __future__ import annotations

import csv
import json
import math
import warnings

import numpy as np
import pandas as pd  # noqa: E402  (test extras: the seed's reference formulation)
import pytest
import sklearn.linear_model as sklearn_lm  # noqa: E402

from builder.errors import UserError
from builder.pairwise.battles import BattleFilters
from builder.pairwise.bt import NoFiniteRating, PairCounts, count_pairs, fit_bt
from builder.pairwise.scan import battles_from_columns, read_battles


def seed_formulation(rows: list[dict], tol: float = 1e-10) -> dict[str, float]:
    """FastChat's compute_mle_elo (pivot tables + unpenalised logistic regression), with every
    pivot table reindexed to the union of models and zero-filled, solved to ``tol``."""
    df = pd.DataFrame(rows)
    models = sorted(set(df["model_a"]) | set(df["model_b"]))

    def table(sub):
        t = pd.pivot_table(sub, index="model_a", columns="model_b", aggfunc="size", fill_value=0)
        return t.reindex(index=models, columns=models, fill_value=0)

    a_win = table(df[df["winner"] == "model_a"])
    b_win = table(df[df["winner"] == "model_b"])
    tie = table(df[df["winner"].isin(["tie", "tie (bothbad)"])])
    win = a_win * 2 + b_win.T * 2 + tie + tie.T
    p = len(models)
    x = np.zeros((p * (p - 1) * 2, p))
    y = np.zeros(p * (p - 1) * 2)
    weights = []
    row = 0
    for ia, ma in enumerate(models):
        for ib, mb in enumerate(models):
            if ia == ib:
                continue
            x[row, ia], x[row, ib], y[row] = math.log(10), -math.log(10), 1.0
            weights.append(win.loc[ma, mb])
            x[row + 1, ia], x[row + 1, ib], y[row + 1] = math.log(10), -math.log(10), 0.0
            weights.append(win.loc[mb, ma])
            row += 2
    lr = sklearn_lm.LogisticRegression(fit_intercept=False, penalty=None, tol=tol, max_iter=100_000)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        lr.fit(x[:row], y[:row], sample_weight=weights)
    return dict(zip(models, 400 * lr.coef_[0] + 1000, strict=True))


@pytest.fixture(scope="module")
def genai(shared_data):
    path = shared_data / "arena" / "genai-arena" / "clean_battle_20240220.json"
    return path, json.loads(path.read_text())


@pytest.mark.parametrize("anony_only", [False, True])
def test_equals_seed_formulation_on_real_battles(genai, anony_only):
    path, rows = genai
    ref = seed_formulation([r for r in rows if r["anony"] or not anony_only])
    fit = fit_bt(count_pairs(read_battles(path, BattleFilters(anony_only=anony_only))))
    assert set(fit.models) == set(ref)
    diff = max(abs(fit.rating_of(m) - ref[m]) for m in ref)
    assert diff < 0.01


def test_disconnected_graph_is_reported_and_each_component_centred(genai):
    path, _ = genai
    fit = fit_bt(count_pairs(read_battles(path)))
    assert len(fit.components) == 2
    gen, edit = fit.components  # most battles first
    assert all(m.endswith("_generation") for m in gen) and len(gen) == 6
    assert all(m.endswith("_edition") for m in edit) and len(edit) == 7
    for k, members in enumerate(fit.components):
        mean = np.mean([fit.rating_of(m) for m in members])
        assert mean == pytest.approx(1000.0, abs=1e-6)
        assert all(fit.component[fit.models.index(m)] == k for m in members)


def test_editing_models_that_never_win_still_have_finite_ratings(genai):
    path, _ = genai
    counts = count_pairs(read_battles(path, BattleFilters(anony_only=True)))
    _, wins, ties = counts.per_model()
    winless = [m for m, w in zip(counts.models, wins, strict=True) if w == 0]
    assert len(winless) == 2 and all(m.endswith("_edition") for m in winless)
    assert all(ties[counts.models.index(m)] > 0 for m in winless)  # their ties keep the graph strongly connected
    fit = fit_bt(counts)
    assert all(np.isfinite(fit.rating_of(m)) for m in winless) and not fit.unrated


def test_text_to_image_ratings_match_the_published_leaderboard(genai, shared_data):
    path, _ = genai
    fit = fit_bt(count_pairs(read_battles(path, BattleFilters(anony_only=True))))
    with (shared_data / "arena" / "genai-arena" / "t2i_generation_leaderboard.csv").open() as f:
        published = {r["key"]: float(r["Arena Elo rating (anony)"]) for r in csv.DictReader(f)}
    assert len(published) == 6
    for key, rating in published.items():
        assert fit.rating_of(f"imagenhub_{key}_generation") == pytest.approx(rating, abs=0.5)


def _battles(spec: list[tuple[str, str, str, int]]):
    a, b, w = [], [], []
    for ma, mb, winner, n in spec:
        a += [ma] * n
        b += [mb] * n
        w += [winner] * n
    return battles_from_columns(a, b, w)


BASE = [("x", "y", "model_a", 6), ("x", "y", "model_b", 4), ("y", "z", "model_a", 5), ("y", "z", "tie", 2),
        ("z", "x", "model_a", 3), ("x", "z", "model_a", 5)]


def test_model_that_loses_every_battle_is_named():
    b = _battles(BASE + [("loser", "x", "model_b", 3), ("y", "loser", "model_a", 4)])
    with pytest.raises(NoFiniteRating) as exc:
        fit_bt(count_pairs(b))
    assert isinstance(exc.value, UserError)
    (problem,) = exc.value.problems
    assert problem.models == ("loser",)
    assert "lost every battle it played against the other models (7)" in problem.reason
    assert "no finite Bradley-Terry rating" in str(exc.value) and "loser" in str(exc.value)


def test_model_that_wins_every_battle_is_named():
    b = _battles(BASE + [("champ", "x", "model_a", 2), ("z", "champ", "model_b", 1)])
    with pytest.raises(NoFiniteRating, match=r"champ: won every battle it played against the other models \(3\)"):
        fit_bt(count_pairs(b))


def test_group_that_never_beats_the_rest_is_named():
    group = [("g1", "g2", "model_a", 3), ("g1", "g2", "model_b", 2)]  # strongly connected inside
    against = [("x", "g1", "model_a", 4), ("g2", "y", "model_b", 3), ("z", "g2", "model_a", 2)]
    b = _battles(BASE + group + against)
    with pytest.raises(NoFiniteRating) as exc:
        fit_bt(count_pairs(b))
    (problem,) = exc.value.problems
    assert set(problem.models) == {"g1", "g2"}
    assert "lost every battle they played against the other models (9)" in problem.reason
    fit = fit_bt(count_pairs(b), on_unidentifiable="drop")
    assert np.isnan(fit.rating_of("g1")) and np.isnan(fit.rating_of("g2"))
    assert fit.unrated == exc.value.problems
    rated = [fit.rating_of(m) for m in ("x", "y", "z")]
    assert np.mean(rated) == pytest.approx(1000.0) and all(np.isfinite(rated))


def test_ties_count_half_to_each_side():
    models = ("a", "b", "c")
    i, j = np.array([0, 0, 1]), np.array([1, 2, 2])
    with_ties = PairCounts(models, i, j, np.array([3.0, 1, 4]), np.array([1.0, 2, 1]), np.array([2.0, 4, 0]))
    as_halves = PairCounts(models, i, j, np.array([4.0, 3, 4]), np.array([2.0, 4, 1]), np.zeros(3))
    assert np.allclose(fit_bt(with_ties).ratings, fit_bt(as_halves).ratings, atol=1e-9)


def test_score_equations_hold_and_anchor_shifts():
    rng = np.random.default_rng(4)
    models = tuple(f"m{k}" for k in range(6))
    i, j = np.triu_indices(6, 1)
    wi, wj, t = (rng.integers(1, 30, i.size).astype(float) for _ in range(3))
    counts = PairCounts(models, i, j, wi, wj, t)
    fit = fit_bt(counts)
    # At the maximum, each model's expected score equals its observed score.
    p = 1 / (1 + 10 ** ((fit.ratings[j] - fit.ratings[i]) / 400))
    resid = (wi + t / 2) - (wi + wj + t) * p
    grad = np.bincount(i, resid, 6) - np.bincount(j, resid, 6)
    assert np.abs(grad).max() < 1e-6
    anchored = fit_bt(counts, anchor=("m3", 1250.0))
    assert anchored.rating_of("m3") == pytest.approx(1250.0)
    assert np.allclose(anchored.ratings - fit.ratings, 1250.0 - fit.rating_of("m3"))
    with pytest.raises(UserError, match="anchor model 'nope'"):
        fit_bt(counts, anchor=("nope", 1.0))


def test_battle_order_does_not_matter():
    rng = np.random.default_rng(1)
    b = _battles(BASE)
    perm = rng.permutation(len(b))
    assert np.allclose(fit_bt(count_pairs(b)).ratings, fit_bt(count_pairs(b.take(perm))).ratings, atol=1e-9)


def test_one_blas_thread_limits_every_blas_and_finds_them_again_after_an_import(monkeypatch):
    """Inside, every BLAS loaded has one thread; after, each has what it had. The libraries are
    looked up once, and again once a module was imported (it may have loaded another BLAS)."""
    import sys

    from threadpoolctl import ThreadpoolController

    import builder.pairwise.bt as bt

    def blas_threads() -> dict[str, int]:
        return {lib["filepath"]: lib["num_threads"] for lib in ThreadpoolController().info()
                if lib["user_api"] == "blas"}

    before = blas_threads()
    assert before  # numpy's own at least
    with bt.one_blas_thread():
        inside = blas_threads()
    assert inside == dict.fromkeys(before, 1)
    assert blas_threads() == before
    made = []
    monkeypatch.setattr(bt, "ThreadpoolController", lambda: made.append(1) or ThreadpoolController())
    monkeypatch.setattr(bt, "_blas", {})
    for _ in range(3):
        with bt.one_blas_thread():
            pass
    assert len(made) == 1
    monkeypatch.setitem(sys.modules, "a_module_imported_meanwhile", sys)
    with bt.one_blas_thread():
        pass
    assert len(made) == 2
