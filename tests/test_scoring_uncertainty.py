"""The boards' bootstrap (``builder.scoring.uncertainty``): its draws are Python's
``random.Random(seed)`` in the documented order, its intervals cover the truth of a synthetic
world, it never changes the method's numbers, and the shipped standard-library
``recompute.py`` re-derives every value bit for bit (``modelboards verify`` checks them)."""

from __future__ import annotations

import importlib.util
import json
import math
import random
import statistics
from datetime import UTC, date, datetime
from pathlib import Path

import numpy as np
import pytest

from builder.config import SiteConfig, load_config
from builder.evidence.export import compute_boards_evidence, compute_evidence_files
from builder.evidence.verify import verify_site
from builder.records import Observation
from builder.scoring.boards import ScoringInputs
from builder.scoring.boards import compute_snapshot as compute_typed
from builder.scoring.uncertainty import (
    BoardInput,
    RowInput,
    competition_ranks_per_round,
    draw_uniforms,
    normal_quantiles,
    summarise_board,
    uniform_blocks,
)
from builder.snapshot import Snapshot, validate_snapshot

ROOT = Path(__file__).resolve().parents[1]
NOW = datetime(2026, 3, 2, 6, 45, tzinfo=UTC)
DAY = date(2026, 3, 1)


def compute_snapshot(*args, **kw) -> dict:
    """The scored snapshot as its JSON object (what the published file holds)."""
    return compute_typed(*args, **kw).model_dump(mode="json")


def load_recompute():
    """The shipped script as a module (it is also run as a reader runs it, in the verify tests)."""
    spec = importlib.util.spec_from_file_location("recompute", ROOT / "builder" / "evidence" / "recompute.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


RC = load_recompute()


# --------------------------------------------------------------------------- draws and helpers


def test_uniforms_are_pythons_random_stream():
    for seed in (0, 42, 2**40 + 7):
        rng = random.Random(seed)
        want = [rng.random() for _ in range(5000)]
        assert draw_uniforms(seed, 5000).tolist() == want


def test_uniform_blocks_continue_one_stream():
    whole = draw_uniforms(5, 7 * 13).reshape(7, 13)
    for block in (1, 3, 7, 50):
        blocks = [b.copy() for b in uniform_blocks(5, 7, 13, block)]
        assert [len(b) for b in blocks] == [min(block, 7 - k) for k in range(0, 7, block)]
        assert np.array_equal(np.concatenate(blocks), whole)


def test_normal_quantiles_are_as241_and_match_the_standard_library_script():
    rng = random.Random(3)
    p = np.array([0.0, 2.0**-53, 1e-300, 1e-12, 0.02425, 0.075, 0.0751, 0.5, 0.925, 0.9249, 0.999999, 1 - 2.0**-53]
                 + [rng.random() for _ in range(20000)])
    got = normal_quantiles(p)
    # bit for bit the standard-library computation of recompute.py (0 is read as 2**-53)
    assert got.tolist() == [RC.normal_quantile(x if x > 0 else 2.0**-53) for x in p.tolist()]
    ref = statistics.NormalDist()
    for x, z in zip(p.tolist()[1:], got.tolist()[1:], strict=True):
        assert z == pytest.approx(ref.inv_cdf(x), rel=1e-14, abs=1e-14)
    assert got[0] == got[1] and math.isfinite(got[0]) and got[0] < -8


def test_competition_ranks_per_round_with_ties_and_missing_rows():
    rng = np.random.default_rng(1)
    r = rng.integers(0, 6, size=(300, 9)).astype(float)
    r[rng.random(r.shape) < 0.1] = np.nan
    got = competition_ranks_per_round(r)
    for b in range(r.shape[0]):
        for j in range(r.shape[1]):
            if np.isnan(r[b, j]):
                assert got[b, j] == 0
            else:
                assert got[b, j] == 1 + sum(1 for x in r[b] if not np.isnan(x) and x > r[b, j])


@pytest.mark.parametrize("rounds", [1, 2, 20, 999, 1000])
def test_board_summary_is_numpys_percentiles_of_the_rounds(rounds):
    rng = np.random.default_rng(rounds)
    ranked, new = [RowInput(f"m{i}", ()) for i in range(6)], [RowInput("n0", ())]
    board = BoardInput("b", {"f": 1.0}, tuple(ranked), tuple(new))
    r = np.round(rng.normal(1400, 5, size=(7, rounds)), 0)  # rounded: ties between rows happen
    got = summarise_board(board, r.T)
    ranks = competition_ranks_per_round(r[:6].T).T
    for j, row in enumerate(ranked + new):
        u = got.rows[row.identity]
        # numpy interpolates from the upper neighbour when h - k >= 0.5: equal to the last bits
        assert u.r_lo == pytest.approx(np.percentile(r[j], 2.5, method="linear"), rel=1e-15)
        assert u.r_hi == pytest.approx(np.percentile(r[j], 97.5, method="linear"), rel=1e-15)
        assert u.rounds_scored == rounds
        if j < 6:
            assert u.rank_lo == np.percentile(ranks[j], 2.5, method="lower")
            assert u.rank_hi == np.percentile(ranks[j], 97.5, method="higher")
            assert u.p_first == np.mean(ranks[j] == 1)
            assert u.p_above == (None if j == 0 else float(np.sum(r[j - 1] > r[j]) / rounds))
        else:
            assert (u.rank_lo, u.rank_ub, u.p_first, u.tied_above) == (None, None, None, None)
    assert got.p_greater[1][2] == float(np.sum(r[1] > r[2]) / rounds) and got.p_greater[3][3] == 0.0


# --------------------------------------------------------------------------- synthetic worlds


def world_config(sources: list[str], rounds: int, seed: int = 7) -> SiteConfig:
    """Arena plus one family per other source, all weighted equally on one board."""
    families = {"human_preference": {"title": "Human preference", "feeds": ["arena/text"]}}
    families |= {f"fam_{s}": {"title": s, "feeds": [f"{s}/score"]} for s in sources}
    weights = {f: 1.0 for f in families}
    return SiteConfig.model_validate({
        "sources": [{"name": "arena", "kind": "lmarena"}] + [{"name": s, "kind": "epoch"} for s in sources],
        "families": families,
        "roles": {"orchestrator": {"title": "Orchestrator", "weights": weights}},
        "boards": [{"id": "orchestrator", "title": "Best orchestrator", "kind": "orchestrator",
                    "role": "orchestrator"}],
        "index": {"enabled": False},
        "uncertainty": {"rounds": rounds, "seed": seed},
    })


def arena_obs(ident: str, rating: float, sd: float) -> Observation:
    return Observation("arena", "arena/text", "lmarena", ident, rating, DAY, "https://example.org/arena",
                       release=DAY.isoformat(), identity=ident, selected=True,
                       details={"rating_q025": rating - 1.96 * sd, "rating_q975": rating + 1.96 * sd})


def source_obs(source: str, ident: str, raw: float) -> Observation:
    return Observation(source, f"{source}/score", source, ident, raw, DAY, f"https://example.org/{source}",
                       release="r1", identity=ident, selected=True)


def inputs(observations: list[Observation]) -> ScoringInputs:
    return ScoringInputs(tuple(observations), (), (), (), {}, {})


ISOLATED = (1850.0, 1700.0, 900.0, 750.0)


def true_quality_world(seed: int = 5) -> tuple[list[Observation], dict[str, float]]:
    """200 models with a true quality q: Arena publishes q + N(0, 4^2) with its true 95%
    interval; each of three sources publishes a + b q + its own normal noise. Four models
    sit far from the rest (their ranks are certain)."""
    rng = np.random.default_rng(seed)
    q = {f"m{i:03}": float(rng.normal(1300, 60)) for i in range(200 - len(ISOLATED))}
    q |= {f"iso{i}": v for i, v in enumerate(ISOLATED)}
    sources = {"alpha": (-100.0, 0.1, 1.2), "beta": (20.0, 0.05, 0.5), "gamma": (500.0, 2.0, 30.0)}
    obs = []
    for ident, qi in q.items():
        obs.append(arena_obs(ident, qi + float(rng.normal(0, 4.0)), 4.0))
        for name, (a, b, s) in sources.items():
            obs.append(source_obs(name, ident, a + b * qi + float(rng.normal(0, s))))
    return obs, q


@pytest.fixture(scope="module")
def truth():
    obs, q = true_quality_world()
    cfg = world_config(["alpha", "beta", "gamma"], rounds=1000)
    return compute_snapshot(inputs(obs), cfg, NOW, None), q


def test_intervals_cover_the_true_quality(truth):
    snap, q = truth
    rows = snap["boards"][0]["rows"]
    assert len(rows) == 200 and all(r["uncertainty"]["rounds_scored"] == 1000 for r in rows)
    covered = sum(1 for r in rows if r["uncertainty"]["r_lo"] <= q[r["identity"]] <= r["uncertainty"]["r_hi"])
    # the three sources' errors are independent here, so the measured residual share is 0 and
    # every score draws its own residual; real-data-shaped sources: tests/bench/bench_coverage.py
    assert snap["uncertainty"]["residual_share"] == 0.0
    assert 0.90 <= covered / len(rows) <= 0.99, covered


def test_a_model_far_from_every_other_has_a_certain_rank(truth):
    snap, q = truth
    rows = snap["boards"][0]["rows"]
    isolated = 0
    for r in rows:
        u = r["uncertainty"]
        half = (u["r_hi"] - u["r_lo"]) / 2
        if all(abs(q[r["identity"]] - q[o["identity"]]) > 4 * half for o in rows if o is not r):
            isolated += 1
            assert u["rank_lo"] == u["rank_hi"] == r["rank"], r["identity"]
    assert isolated >= len(ISOLATED)
    top = rows[0]
    assert top["identity"] == "iso0" and top["uncertainty"]["p_first"] == 1.0 and top["uncertainty"]["rank_ub"] == 1


def test_rank_ub_ties_and_matrix_follow_their_definitions(truth):
    snap, _ = truth
    board = snap["boards"][0]
    rows = board["rows"]
    lows = [r["uncertainty"]["r_lo"] for r in rows]
    for k, r in enumerate(rows):
        u = r["uncertainty"]
        assert u["rank_ub"] == 1 + sum(1 for lo in lows if lo > u["r_hi"])
        assert 1 <= u["rank_lo"] <= u["rank_hi"] <= len(rows) and u["rank_ub"] <= u["rank_hi"]
        assert u["r_lo"] <= u["r_hi"]
        if k == 0:
            assert u["tied_above"] is None and u["p_above"] is None
        else:
            assert u["tied_above"] is (u["p_above"] < 0.95)
    pair = board["uncertainty"]["pairwise"]
    assert pair["identities"] == [r["identity"] for r in rows[:20]]
    m = pair["p_greater"]
    assert len(m) == 20 and all(len(line) == 20 and line[i] == 0.0 for i, line in enumerate(m))
    assert m[1][2] == rows[2]["uncertainty"]["p_above"]
    ties = [r["uncertainty"]["tied_above"] for r in rows[1:]]
    assert any(ties) and not all(ties)


def degenerate_world() -> list[Observation]:
    """Two feeds whose 10 overlap models share one raw score but one: a resample that misses it
    has sigma zero (about 35% of rounds), so the feed drops out of that round. ``orphan`` is
    rated by those two feeds only, so some rounds leave it no family at all."""
    rng = np.random.default_rng(2)
    obs = []
    for i in range(30):
        ident = f"m{i:02}"
        rating = 1300.0 + 10 * i
        obs.append(arena_obs(ident, rating, 5.0))
        obs.append(source_obs("alpha", ident, 0.5 * rating + float(rng.normal(0, 3))))
        if i >= 20:  # the ten best carry the two flat feeds; the very best stands out
            for name in ("flat1", "flat2"):
                obs.append(source_obs(name, ident, 60.0 if i == 29 else 50.0))
    obs += [source_obs("flat1", "orphan", 55.0), source_obs("flat2", "orphan", 52.0)]
    return obs


def test_a_round_whose_refit_fails_drops_the_feed_for_that_round():
    cfg = world_config(["alpha", "flat1", "flat2"], rounds=1000)
    typed = compute_typed(inputs(degenerate_world()), cfg, NOW, None)
    snap = typed.model_dump(mode="json")
    fits = {c["feed"]: c for c in snap["calibration"]}
    assert fits["flat1/score"]["used"] and fits["flat2/score"]["used"] and fits["flat1/score"]["n"] == 10
    rows = {r["identity"]: r for r in snap["boards"][0]["rows"]}
    orphan = rows["orphan"]["uncertainty"]
    # both flat feeds miss their one distinct score with chance 0.9**10 each, independently
    assert 0.80 * 1000 < orphan["rounds_scored"] < 0.95 * 1000
    assert all(r["uncertainty"]["rounds_scored"] == 1000 for i, r in rows.items() if i != "orphan")
    check_recompute_is_exact(typed)


def without_uncertainty(snap: dict) -> dict:
    out = json.loads(json.dumps(snap))
    out.pop("uncertainty", None)
    for b in out["boards"]:
        assert b.pop("uncertainty") is None or snap["uncertainty"]["rounds"]
        for row in [*b["rows"], *b["new"]]:
            row.pop("uncertainty")
            # the one-evaluator flag compares a leave-one-out rank with the bootstrap's rank range
            row.pop("depends_on", None)
            row.pop("depends_on_one", None)
    return out


def assert_method_untouched(off: dict, on: dict) -> None:
    assert off["uncertainty"]["rounds"] == 0 and on["uncertainty"]["rounds"] > 0
    assert all(b["uncertainty"] is None and all(r["uncertainty"] is None for r in b["rows"] + b["new"])
               for b in off["boards"])
    assert all(r["uncertainty"] is not None for b in on["boards"] for r in b["rows"] + b["new"])
    for a, b in zip(off["boards"], on["boards"], strict=True):
        for strip in ("rows", "new"):
            key = ("identity", "r", "score", "rank", "partial", "partial_reasons", "movement")
            assert [[r[k] for k in key] for r in a[strip]] == [[r[k] for k in key] for r in b[strip]]
    assert without_uncertainty(off) == without_uncertainty(on)
    assert off["method_id"] == on["method_id"]


def with_rounds(cfg: SiteConfig, rounds: int) -> SiteConfig:
    return cfg.model_copy(update={"uncertainty": cfg.uncertainty.model_copy(update={"rounds": rounds})})


def test_the_method_is_untouched_on_a_synthetic_world():
    obs, _ = true_quality_world(seed=9)
    cfg = world_config(["alpha", "beta", "gamma"], rounds=0)
    assert_method_untouched(compute_snapshot(inputs(obs), cfg, NOW, None),
                            compute_snapshot(inputs(obs), with_rounds(cfg, 300), NOW, None))


@pytest.fixture(scope="module")
def bundled(tmp_path_factory):
    """The bundled demo inputs (fetched offline into a temporary store) and their config."""
    from builder.fetch import fetch_all
    from builder.pipeline import gather_inputs

    cfg, base = load_config(ROOT / "site.yml")
    store = tmp_path_factory.mktemp("store")
    cfg = cfg.model_copy(update={"fetch": cfg.fetch.model_copy(update={"store": str(store)})})
    fetch_all(cfg, base, live=False, progress=False, now=NOW)
    return cfg, gather_inputs(cfg, base)


@pytest.fixture(scope="module")
def bundled_snapshot(bundled) -> Snapshot:
    cfg, data = bundled
    assert cfg.uncertainty.rounds == 1000  # the shipped default
    return compute_typed(data, cfg, NOW, None)


def test_the_method_is_untouched_on_the_bundled_data(bundled, bundled_snapshot):
    cfg, data = bundled
    assert_method_untouched(compute_snapshot(data, with_rounds(cfg, 0), NOW, None),
                            bundled_snapshot.model_dump(mode="json"))


def test_the_method_is_untouched_on_the_real_files(tmp_path, shared_data):
    import yaml

    from builder.fetch import fetch_all
    from builder.pipeline import gather_inputs

    data = yaml.safe_load((ROOT / "site.yml").read_text())
    recorded = {
        "arena": ("arena/lmarena/leaderboard-text.json", "2025-12-11"),
        "arena-catalog": ("arena/lmarena/scatterplot-data.json", "2025-12-17"),
        "epoch": ("epoch/epoch_capabilities_index.csv", "2025-11-07"),
        "aider": ("aider/polyglot_leaderboard.yml", "2025-10-04"),
        "livebench": ("livebench", None),
        "terminal-bench": ("terminal-bench", "2025-09-25"),
        "litellm": ("litellm/model_prices_and_context_window.json", "2026-07-24"),
        "openrouter": ("openrouter/openrouter_models.json", "2026-08-19"),
    }
    sources = []
    for s in data["sources"]:
        if s["name"] in recorded:
            path, day = recorded[s["name"]]
            s["recorded"] = str(shared_data / path)
            s.pop("recorded_date", None)
            if day:
                s["recorded_date"] = day
            sources.append(s)
        elif s["kind"] == "metadata":
            sources.append(s)
    aliases = {"claude-4-sonnet": "claude-sonnet-4", "claude-4-opus": "claude-opus-4",
               "claude-4.1-opus": "claude-opus-4.1", "qwen-3-coder-480b": "qwen3-coder-480b-a35b-instruct"}
    data.update(sources=sources, demo=False, aliases=aliases, fetch={"store": str(tmp_path / "store")},
                snapshots_dir=str(tmp_path / "snapshots"), arena={"enabled": False}, evals=[])
    cfg = SiteConfig.model_validate(data)
    fetch_all(cfg, ROOT, live=False, progress=False, now=NOW)
    real = gather_inputs(cfg, ROOT)
    typed = compute_typed(real, with_rounds(cfg, 200), NOW, None)
    on = typed.model_dump(mode="json")
    assert sum(len(b["rows"]) for b in on["boards"]) > 40
    assert_method_untouched(compute_snapshot(real, with_rounds(cfg, 0), NOW, None), on)
    check_recompute_is_exact(typed)


# --------------------------------------------------------------------------- re-derivation


def check_recompute_is_exact(typed: Snapshot) -> None:
    """recompute.py, from boards-evidence.json alone, rebuilds every bootstrap value exactly."""
    be = json.loads(json.dumps(compute_boards_evidence(typed, "https://example.org/")))
    snap = typed.model_dump(mode="json")
    assert be["uncertainty"]["rounds"] == snap["uncertainty"]["rounds"] and be["uncertainty"]["drawOrder"]
    rebuilt = RC.run_rounds(be)
    fields = ("r_lo", "r_hi", "rank_lo", "rank_hi", "rank_ub", "p_first", "p_above", "tied_above", "rounds_scored")
    checked = 0
    for board, r, published in zip(be["boards"], rebuilt, snap["boards"], strict=True):
        rows, matrix = RC.summarise(board, r, be["uncertainty"])
        for row in published["rows"] + published["new"]:
            assert {k: rows[row["identity"]][k] for k in fields} == {k: row["uncertainty"][k] for k in fields}
            checked += 1
        assert matrix == published["uncertainty"]["pairwise"]
    assert checked
    tally = RC.Tally()
    RC.recompute_uncertainty(be, tally)
    assert tally.misses == [] and tally.total["board interval bound"] == 2 * checked


def test_recompute_rebuilds_the_bundled_bootstrap_bit_for_bit(bundled_snapshot):
    check_recompute_is_exact(bundled_snapshot)


def test_recompute_shortcuts_give_the_plain_rules_numbers(bundled_snapshot, monkeypatch):
    """The standard library's AS241, ``sum``, ``floor``, ``itemgetter`` and the column blocks
    change no bit: the same rounds with the pure-Python quantile, ``left_sum``, int(u * n)
    one uniform at a time, one index at a time and one round per block."""
    be = json.loads(json.dumps(compute_boards_evidence(bundled_snapshot, "https://example.org/")))
    be["uncertainty"]["rounds"] = 120
    fast = RC.run_rounds(be)
    assert RC.library_arena_draws() is not None  # CPython has it: the shortcut was taken
    assert RC.skipping_works()
    shared = RC.run_rounds(be, workers=3)  # rounds 0-39, 40-79, 80-119 in three forked processes
    assert [{k: v.tobytes() for k, v in b.items()} for b in shared] == [{k: v.tobytes() for k, v in b.items()}
                                                                        for b in fast]
    monkeypatch.setattr(RC, "library_arena_draws", lambda: None)
    monkeypatch.setattr(RC, "total", RC.left_sum)
    monkeypatch.setattr(RC, "VALUES_PER_BLOCK", 1)
    monkeypatch.setattr(RC, "positions", lambda rand, count, n: [int(rand() * n) for _ in range(count)])
    monkeypatch.setattr(RC, "pick", lambda values, at: [values[k] for k in at])
    plain = RC.run_rounds(be)
    assert [{k: v.tobytes() for k, v in b.items()} for b in fast] == [{k: v.tobytes() for k, v in b.items()}
                                                                      for b in plain]


def test_recompute_rows_r_by_columns_equals_value_by_value():
    rng = random.Random(8)
    cols = [tuple(rng.uniform(900, 1400) for _ in range(40)) for _ in range(6)]
    for fams in ([(40, [0]), (35, [1, 2]), (25, [3, 4, 5])], [(1.5, [2, 5])], [(10, [4])], []):
        means: dict = {}
        got = list(RC.block_r(fams, cols, means))
        want = [RC.spec_r(fams, [c[b] for c in cols]) for b in range(40)]
        assert [math.isnan(x) for x in got] == [math.isnan(x) for x in want]
        assert [x for x in got if x == x] == [x for x in want if x == x]
    # a dropped value (NaN) leaves its family's other values; a family with none left drops out
    v = [1000.0, math.nan, 1200.0, math.nan]
    assert RC.spec_r([(40, [0, 1]), (60, [2])], v) == (40 * 1000.0 + 60 * 1200.0) / 100
    assert RC.spec_r([(40, [1, 3]), (60, [2])], v) == 1200.0
    assert math.isnan(RC.spec_r([(40, [1, 3])], v))


def test_recompute_rebuilds_the_synthetic_bootstrap_bit_for_bit():
    obs, _ = true_quality_world(seed=3)
    keep = {f"m{i:03}" for i in range(0, 196, 4)} | {"iso0", "iso2"}
    cfg = world_config(["alpha", "beta", "gamma"], rounds=300, seed=11)
    check_recompute_is_exact(compute_typed(inputs([o for o in obs if o.identity in keep]), cfg, NOW, None))


@pytest.mark.parametrize("draws", ["model", "score"])
def test_recompute_rebuilds_days_drawn_by_the_earlier_residual_schemes(monkeypatch, draws):
    # a published site keeps its earlier days: their downloads still rebuild bit for bit
    import functools

    from builder.scoring import uncertainty

    monkeypatch.setattr(uncertainty, "compute_bootstrap_problem",
                        functools.partial(uncertainty.compute_bootstrap_problem, residual_draws=draws))
    obs, _ = true_quality_world(seed=3)
    keep = {f"m{i:03}" for i in range(0, 196, 4)} | {"iso0", "iso2"}
    cfg = world_config(["alpha", "beta", "gamma"], rounds=200, seed=11)
    typed = compute_typed(inputs([o for o in obs if o.identity in keep]), cfg, NOW, None)
    assert typed.uncertainty.residual_draws == (None if draws == "score" else draws)
    check_recompute_is_exact(typed)


def test_evidence_carries_the_inputs_a_rederivation_needs(bundled_snapshot):
    be = compute_boards_evidence(bundled_snapshot, "https://example.org/")
    arena = [o for o in be["observations"] if o["feed"] in be["arenaFeeds"]]
    assert arena and all(o["q975"] > o["q025"] for o in arena)
    assert all(o["q025"] is None for o in be["observations"] if o["feed"] not in be["arenaFeeds"])
    used = [c for c in be["calibrations"] if c["used"]]
    assert used and all(len(c["residuals"]) == len(c["overlap"]) for c in used)
    assert {"rounds", "seed", "interval", "tieThreshold", "pairwiseTop", "drawOrder"} <= set(be["uncertainty"])
    for b in be["boards"]:
        assert b["pairwise"]["identities"] == [r["identity"] for r in b["rows"][:20]]
        assert all(r["r_lo"] is not None and r["rank_ub"] is not None for r in b["rows"])


def test_verify_checks_the_bootstrap_and_names_a_tampered_value(tmp_path, bundled):
    from builder.render.site import render_site

    cfg, data = bundled
    out = tmp_path / "site"
    render_site(compute_typed(data, with_rounds(cfg, 200), NOW, None), [], cfg, ROOT, out, now=NOW)
    result = verify_site(out)
    assert result.ok, result.output
    for kind in ("board interval bound", "board rank range", "board rank (UB)", "board P(rank 1)", "board tie",
                 "board pairwise matrix", "board fit residual"):
        assert kind in result.output
    path = out / "data" / "boards-evidence.json"
    be = json.loads(path.read_text())
    row = be["boards"][0]["rows"][1]
    row["p_first"] = row["p_first"] + 0.001
    be["boards"][0]["rows"][2]["rank_ub"] += 1
    path.write_text(json.dumps(be))
    result = verify_site(out)
    assert not result.ok
    assert f"board P(rank 1): {be['boards'][0]['id']} {row['identity']} p_first" in result.output
    assert "board rank (UB)" in result.output and "MISS" in result.output
    be["uncertainty"]["seed"] += 1
    path.write_text(json.dumps(be))
    assert "board interval bound" in verify_site(out).output.split("MISS", 1)[1]


def test_downloads_carry_the_fields_under_their_exact_names(bundled_snapshot):
    import csv
    import io

    from builder.render.exports import render_board_csv, render_board_json, render_pairwise_csv

    names = ["r_lo", "r_hi", "rank_lo", "rank_hi", "rank_ub", "p_first", "tied_above"]
    board = bundled_snapshot.boards[0]
    rows = list(csv.DictReader(io.StringIO(render_board_csv(board))))
    assert set(names) <= set(rows[0])
    first = board.rows[0].uncertainty.model_dump()
    assert float(rows[0]["r_lo"]) == first["r_lo"] and int(rows[0]["rank_ub"]) == first["rank_ub"]
    assert rows[0]["tied_above"] == "" and rows[1]["tied_above"] in ("true", "false")
    doc = json.loads(render_board_json(board, bundled_snapshot, "credit"))
    assert all(set(names) <= set(r) for r in doc["rows"] + doc["new"])
    assert doc["rows"][0]["p_first"] == first["p_first"]
    assert doc["uncertainty"]["rounds"] == 1000
    assert len(doc["uncertainty"]["pairwise"]["identities"]) == min(20, len(board.rows))
    matrix = list(csv.reader(io.StringIO(render_pairwise_csv(board))))
    assert matrix[0][1:] == doc["uncertainty"]["pairwise"]["identities"]
    assert float(matrix[1][2]) == board.uncertainty.pairwise.p_greater[0][1]
    files = compute_evidence_files(bundled_snapshot, "https://example.org/")
    assert "random.Random" in files["recompute.py"] and "board interval bound" in files["recompute.py"]


def test_rounds_must_be_zero_or_enough(tmp_path):
    import yaml

    from builder.errors import UserError

    base = world_config(["alpha"], rounds=0).model_dump()
    assert SiteConfig.model_validate({**base, "uncertainty": {"rounds": 20}}).uncertainty.seed == 42
    assert SiteConfig.model_validate({k: v for k, v in base.items() if k != "uncertainty"}).uncertainty.rounds == 1000
    for bad, words in ((5, "at least 20"), (-1, "greater than or equal to 0")):
        path = tmp_path / "site.yml"
        path.write_text(yaml.safe_dump({**base, "uncertainty": {"rounds": bad, "seed": 1}}))
        with pytest.raises(UserError, match=rf"site.yml: 1 error\(s\): uncertainty.rounds: .*{words}"):
            load_config(path)


@pytest.mark.parametrize("rounds", [0, 200])
def test_a_site_renders_and_verifies_with_the_bootstrap_on_and_off(tmp_path, rounds):
    import csv
    import io
    import sys

    sys.path.insert(0, str(ROOT / "tests"))
    from fixtures.make_snapshot import make_snapshot

    from builder.render.site import render_site

    cfg, _ = load_config(ROOT / "tests" / "fixtures" / "site.yml")
    snap = validate_snapshot(make_snapshot(16, seed=2, rounds=rounds))
    out = tmp_path / "site"
    render_site(snap, [], cfg, ROOT, out, now=datetime(2026, 11, 30, 12, tzinfo=UTC))
    result = verify_site(out)
    assert result.ok, result.output
    board = (out / "boards" / "orchestrator" / "index.html").read_text(encoding="utf-8")
    rows = list(csv.DictReader(io.StringIO((out / "data" / "boards" / "orchestrator.csv").read_text())))
    method = (out / "methodology" / "index.html").read_text(encoding="utf-8")
    pairwise = out / "data" / "boards" / "orchestrator-pairwise.csv"
    if rounds:
        assert "Rank (UB)" in board and "95% interval" in board and pairwise.is_file()
        assert all(r["r_lo"] and r["rank_ub"] for r in rows if r["strip"] == "ranked")
        assert "board interval bound" in result.output and "200 rounds from seed 42" in method
    else:
        assert "Rank (UB)" not in board and "95% interval" not in board and not pairwise.exists()
        assert all(r["r_lo"] == "" and r["tied_above"] == "" for r in rows)
        assert "board interval bound" not in result.output and "bootstrap was off" in method
