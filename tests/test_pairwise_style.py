"""Style features, conv_metadata reading and accounting, the styled CLI, and recovery of a
true style effect from simulated battles."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner
from scipy.stats import spearmanr

from builder.cli import main
from builder.errors import UserError
from builder.pairwise.scan import (
    FEATURE_MISSING,
    FEATURE_NEGATIVE,
    FEATURE_NO_OBJECT,
    FEATURE_NON_NUMERIC,
    FEATURE_OK,
    FeatureColumn,
    scan_battles,
)
from builder.pairwise.simulate import StyleSpec, random_skills, simulate_battles
from builder.pairwise.style import (
    STYLE_FEATURES,
    parse_style_features,
    relative_differences,
    standardise,
    style_columns,
    style_columns_from,
    style_feature_specs,
)
from builder.pairwise.styled import bootstrap_styled, build_style_dataset, fit_styled_bt, sandwich_styled


def meta(ta=10, tb=30, ha=None, hb=None, ba=None, bb=None, la=None, lb=None):
    return {"sum_assistant_a_tokens": ta, "sum_assistant_b_tokens": tb,
            "header_count_a": ha if ha is not None else {"h1": 1, "h2": 0, "h3": 0, "h4": 0, "h5": 0, "h6": 0},
            "header_count_b": hb if hb is not None else {"h1": 0, "h2": 0, "h3": 0, "h4": 0, "h5": 0, "h6": 0},
            "bold_count_a": ba if ba is not None else {"**": 2, "__": 1},
            "bold_count_b": bb if bb is not None else {"**": 1, "__": 0},
            "list_count_a": la if la is not None else {"ordered": 0, "unordered": 0},
            "list_count_b": lb if lb is not None else {"ordered": 2, "unordered": 2}}


def test_features_are_relative_differences_with_zero_denominators_as_one():
    f = relative_differences(np.array([[10.0, 1, 3, 0], [0, 0, 0, 0]]), np.array([[30.0, 0, 1, 4], [0, 0, 0, 0]]))
    np.testing.assert_allclose(f, [[-0.5, 1.0, 0.5, -1.0], [0, 0, 0, 0]])


def _column(name, values, quality, first=None):
    return FeatureColumn(name, np.array(values, dtype=float), np.array(quality, dtype=np.int8), first)


def test_row_kind_is_the_worst_over_features_and_sides_and_unusable_rows_are_zeroed():
    ok, miss, no, neg, txt = FEATURE_OK, FEATURE_MISSING, FEATURE_NO_OBJECT, FEATURE_NEGATIVE, FEATURE_NON_NUMERIC
    nan = float("nan")
    cols = {
        "tokens_a": _column("tokens_a", [1, 1, nan, 1, 1], [ok, ok, no, ok, ok]),
        "tokens_b": _column("tokens_b", [1, nan, nan, 3, nan], [ok, txt, no, ok, neg], 5),
        "bold_a": _column("bold_a", [nan, nan, nan, 2, 1], [miss, neg, no, ok, ok], 2),
        "bold_b": _column("bold_b", [1, 1, nan, 2, 1], [ok, ok, no, ok, ok]),
    }
    st = style_columns_from(cols, ("tokens", "bold"), "x.jsonl", lambda r: f"line {r + 10}")
    assert st.status.tolist() == [2, 4, 1, 0, 3]  # incomplete, non-numeric beats negative, no metadata, ok, negative
    assert (st.raw[[0, 1, 2, 4]] == 0).all() and st.raw[3].tolist() == [-0.5, 0.0]
    assert st.report.rows == {"ok": 1, "no_metadata": 1, "incomplete_metadata": 1, "negative_count": 1,
                              "non_numeric_count": 1}
    assert st.report.first_malformed == "x.jsonl: line 12 (non numeric count)"
    sub = st.take(np.array([0, 3]))
    assert sub.report.usable == 1 and sub.report.first_malformed is None and sub.raw.shape == (2, 2)


def test_standardise_uses_population_std_and_keeps_constant_columns():
    x = np.array([[1.0, 5.0], [3.0, 5.0]])
    z, mean, std = standardise(x)
    assert mean.tolist() == [2.0, 5.0] and std.tolist() == [1.0, 1.0]
    assert z.tolist() == [[-1.0, 0.0], [1.0, 0.0]]


def test_parse_style_features():
    assert parse_style_features(None) == STYLE_FEATURES
    assert parse_style_features("bold, tokens") == ("tokens", "bold")
    for bad in ("tokens,emoji", "", "bold,bold"):
        with pytest.raises(UserError):
            parse_style_features(bad)


def _write_jsonl(path, rows):
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")


def _rows():
    base = {"model_a": "m1", "model_b": "m2", "winner": "model_a"}
    return [
        {**base, "conv_metadata": meta()},
        {**base, "winner": "both_bad", "conv_metadata": meta(ta=5, tb=5)},
        {**base},  # no metadata
        {**base, "conv_metadata": meta(bb={"**": "3", "__": 0})},  # non-numeric
        {**base, "model_b": "m1", "conv_metadata": meta()},  # same model: a bad row, never read for style
        {**base, "winner": "model_b", "conv_metadata": meta(tb=-4)},  # negative
    ]


def read_styles(path, features=STYLE_FEATURES):
    with scan_battles(path, features=style_feature_specs(features)) as scan:
        return scan.battles(), style_columns(scan, features)


def test_jsonl_metadata_is_counted_by_kind_with_the_first_malformed_line(tmp_path):
    path = tmp_path / "b.jsonl"
    _write_jsonl(path, _rows())
    battles, st = read_styles(path)
    assert battles.report.bad_rows["same_model"] == 1 and battles.outcome[1] == 3  # both_bad is a tie (both bad)
    assert st.report.rows == {"ok": 2, "no_metadata": 1, "incomplete_metadata": 0, "negative_count": 1,
                              "non_numeric_count": 1}
    assert st.report.first_malformed == "b.jsonl: line 4 (non numeric count)"
    assert st.status.tolist() == [0, 0, 1, 4, 3]
    np.testing.assert_allclose(st.raw[0], [-0.5, 1.0, 0.5, -1.0])


def test_json_array_and_parquet_give_the_same_features(tmp_path):
    rows = _rows()
    arr = tmp_path / "b.json"
    arr.write_text("[\n" + ",\n".join(json.dumps(r, indent=2) for r in rows) + "\n]\n", encoding="utf-8")
    _, st = read_styles(arr)
    line = 1 + sum(json.dumps(r, indent=2).count("\n") + 1 for r in rows[:3]) + 1
    assert st.report.first_malformed == f"b.json: line {line} (non numeric count)"
    good = [r for r in rows if r.get("conv_metadata") and r is not rows[3]]
    pq_path = tmp_path / "b.parquet"
    pq.write_table(pa.Table.from_pylist(good), pq_path)
    _, ps = read_styles(pq_path)
    np.testing.assert_allclose(ps.raw[:2], st.raw[:2])
    assert ps.status.tolist() == [0, 0, 3]
    assert ps.report.first_malformed == "b.parquet: row 4 (negative count)"  # the same-model row is row 3


def test_files_without_metadata(tmp_path):
    plain = tmp_path / "p.jsonl"
    _write_jsonl(plain, [{"model_a": "m1", "model_b": "m2", "winner": "tie"}] * 3)
    _, st = read_styles(plain)
    assert st.report.rows["no_metadata"] == 3 and st.report.usable == 0
    _, st = read_styles(plain, ("bold",))
    assert st.features == ("bold",) and st.raw.shape == (3, 1)


def run(*args):
    return CliRunner().invoke(main, ["arena", *[str(a) for a in args]], catch_exceptions=False)


@pytest.fixture(scope="module")
def styled_file(tmp_path_factory):
    out = tmp_path_factory.mktemp("styled") / "b.jsonl"
    res = run("simulate", "--models", 8, "--n", 6000, "--seed", 3, "--style-effect", "tokens=1.0",
              "--verbose-model", "model-3=1.0", "--output", out, "--truth-output", out.with_suffix(".truth.json"))
    assert res.exit_code == 0, res.output
    return out


def test_cli_style_control_json_shape(styled_file, tmp_path):
    out = tmp_path / "s.json"
    res = run("fit", "--input", styled_file, "--style-control", "--reweight", "--output", out)
    assert res.exit_code == 0, res.output
    doc = json.loads(out.read_text())
    assert set(doc) == {"rows", "style", "method"}
    assert set(doc["rows"][0]) == {"model", "rating", "median", "lower", "upper", "rank", "rank_ub", "battles",
                                   "wins", "ties", "win_rate"}
    assert [s["feature"] for s in doc["style"]] == list(STYLE_FEATURES)
    assert all(set(s) == {"feature", "beta", "lower", "upper", "mean", "std"} for s in doc["style"])
    assert all(s["lower"] < s["beta"] < s["upper"] for s in doc["style"])
    assert doc["method"]["reweight"] is True and doc["method"]["ci_kind"] == "sandwich"
    # rank (UB) from the shown intervals
    rows = doc["rows"]
    for r in rows:
        assert r["rank_ub"] == 1 + sum(o["lower"] > r["upper"] for o in rows)
    # without --style-control the output keeps its list shape; sandwich and reweighting apply too
    plain = tmp_path / "p.json"
    assert run("fit", "--input", styled_file, "--ci", "sandwich", "--reweight", "--output", plain).exit_code == 0
    rows = json.loads(plain.read_text())
    assert isinstance(rows, list) and all(r["lower"] < r["rating"] < r["upper"] for r in rows)
    sub = tmp_path / "t.json"
    assert run("fit", "--input", styled_file, "--style-control", "--style-features", "tokens", "--ci", "bootstrap",
               "--bootstrap", 20, "--seed", 1, "--output", sub).exit_code == 0
    doc = json.loads(sub.read_text())
    assert [s["feature"] for s in doc["style"]] == ["tokens"] and doc["method"]["bootstrap"] == 20


@pytest.mark.parametrize("args, message", [
    (["--style-control", "--method", "elo"], "drop --method elo"),
    (["--style-features", "tokens"], "needs --style-control"),
    (["--ci", "sandwich", "--bootstrap", 5], "choose one"),
    (["--style-control", "--style-features", "emoji"], "unknown feature"),
])
def test_cli_style_errors_are_one_line(styled_file, args, message):
    res = CliRunner().invoke(main, ["arena", "fit", "--input", str(styled_file), *[str(a) for a in args]])
    assert res.exit_code == 2 and message in res.output and "Traceback" not in res.output


def test_recovery_of_a_true_style_effect():
    """One model wins by length alone: the styled fit recovers beta within its interval, the
    skills (Spearman >= 0.95), and puts that model back at its skill; the plain fit cannot."""
    skills = random_skills(12, seed=5, spread=100.0)
    names = list(skills)
    wordy = names[5]
    effect = 1.5
    sim = simulate_battles(skills, 80_000, seed=11, tie_prob=0.1,
                           style=StyleSpec(effect={"tokens": effect}, verbose={wordy: 1.5}))
    f = relative_differences(sim.style_a[:, :1], sim.style_b[:, :1])
    # lambda -> 0: the penalised fit becomes the MLE, whose interval covers the truth
    ds = build_style_dataset(sim.models, sim.model_a, sim.model_b, sim.outcome, f, ("tokens",))
    fit = fit_styled_bt(ds, reg=1e-8)
    sw = sandwich_styled(ds, fit)
    true_beta = effect * ds.std[0]  # per standard deviation of the raw feature
    assert sw.beta_lower[0] < true_beta < sw.beta_upper[0]
    truth = sim.skills - sim.skills.mean() + 1000.0
    assert spearmanr(fit.ratings, truth).statistic >= 0.95
    k = sim.models.index(wordy)
    assert sw.lower[k] < truth[k] < sw.upper[k]
    from builder.pairwise.bt import count_pairs, fit_bt

    plain = fit_bt(count_pairs(sim.to_battles()))
    assert plain.ratings[k] - truth[k] > 40  # the plain fit rewards length
    assert abs(fit.ratings[k] - truth[k]) < (plain.ratings[k] - truth[k]) / 3
    # the default penalty (lambda = 1) shrinks beta but keeps its sign and moves the model back
    shrunk = fit_styled_bt(ds)
    assert 0 < shrunk.beta[0] < fit.beta[0]
    assert shrunk.ratings[k] < plain.ratings[k]
    # the seeded bootstrap agrees with the sandwich on beta's interval width within a factor 1.5
    bs = bootstrap_styled(ds, fit, 40, seed=2)
    ratio = (bs.beta_upper[0] - bs.beta_lower[0]) / (sw.beta_upper[0] - sw.beta_lower[0])
    assert 0.67 < ratio < 1.5
    assert bootstrap_styled(ds, fit, 5, seed=2).lower.tolist() == bootstrap_styled(ds, fit, 5, seed=2).lower.tolist()


def test_demo_arena_section_carries_the_style_view():
    """The bundled demo battles: the styled sub-object's fields, and the model that wins by
    length (qwen4-32b, see builder/data/demo/README.md) loses places under style control."""
    from builder.config import ArenaConfig
    from builder.pairwise.arena import compute_arena_section
    from builder.render.arena_style import coefficient_words, compute_style_view, rank_change_text

    demo = Path(__file__).resolve().parents[1] / "builder" / "data" / "demo" / "battles" / "clean_battle_demo.jsonl"
    typed = compute_arena_section(demo, ArenaConfig(bootstrap=0, history="month", default_view="style"))
    section = typed.model_dump(mode="json")
    json.dumps(section, allow_nan=False)
    style = section["style"]
    assert section["default_view"] == "style"
    assert set(style) == {"features", "n_battles", "metadata", "method", "coefficients", "models", "unrated", "flips"}
    assert style["metadata"]["usable"] == style["n_battles"] == section["n_battles"]
    tokens = style["coefficients"][0]
    assert tokens["feature"] == "tokens" and tokens["lower"] > 0  # the true length effect is found
    assert tokens["points"] == pytest.approx(tokens["beta"] * 400 / np.log(10), abs=0.01)
    qwen = next(m for m in style["models"] if m["model"] == "qwen4-32b")
    assert qwen["rank_change"] < 0 and qwen["rating"] < qwen["plain_rating"]
    assert len(style["models"]) == len(section["models"])
    view = compute_style_view(section)
    assert view["default_view"] == "style" and len(view["rows"]) == len(style["models"])
    assert coefficient_words("tokens", 12.34, 8.0, 16.5) == (
        "An answer one standard deviation longer than its opponent's wins as if it were 12.3 points stronger "
        "(95% interval 8.0 to 16.5 points).")
    assert [rank_change_text(x) for x in (3, 0, -2, None)] == ["+3", "0", "−2", "–"]


def test_battles_without_metadata_have_no_style_view(tmp_path):
    from builder.config import ArenaConfig
    from builder.pairwise.arena import compute_arena_section

    path = tmp_path / "plain.jsonl"
    rows = [{"model_a": a, "model_b": b, "winner": w} for a, b, w in
            [("m1", "m2", "model_a"), ("m2", "m1", "model_a"), ("m1", "m3", "tie"), ("m3", "m2", "model_b")] * 5]
    _write_jsonl(path, rows)
    section = compute_arena_section(path, ArenaConfig(bootstrap=0, default_view="style"))
    assert section.style is None and section.default_view == "plain"


def test_csv_serves_plain_fits_only(tmp_path):
    from builder.config import ArenaConfig
    from builder.pairwise.arena import compute_arena_section

    path = tmp_path / "b.csv"
    path.write_text("model_a,model_b,winner\n" + "m1,m2,model_a\nm2,m1,model_a\nm1,m2,both_bad\n" * 4,
                    encoding="utf-8")
    res = CliRunner().invoke(main, ["arena", "fit", "--input", str(path), "--style-control"])
    assert res.exit_code == 2 and "carries no conv_metadata" in res.output and "Traceback" not in res.output
    section = compute_arena_section(path, ArenaConfig(bootstrap=0, default_view="style"))
    assert section.style is None and section.n_battles == 12  # both_bad counts in the plain fit too
