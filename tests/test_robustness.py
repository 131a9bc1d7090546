"""Robustness of the role boards: leave-one-evaluator-out ranks against full rebuilds, the
"depends on one evaluator" flag, the smallest set that changes #1, the Dirichlet weight
draws (seeded, concentrating on the published weights), the site.yml section's errors, and
the standard-library recompute.py reproducing all of it on a rendered board."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from datetime import UTC, date, datetime
from pathlib import Path

import numpy as np
import pytest
import yaml
from click.testing import CliRunner

from builder.cli import main
from builder.config import SiteConfig, load_config
from builder.errors import UserError
from builder.evidence.export import compute_boards_evidence
from builder.records import Observation
from builder.scoring.boards import ScoringInputs, compute_scored_boards
from builder.scoring.robustness import draw_weights, weight_grid
from builder.snapshot.models import Board

ROOT = Path(__file__).resolve().parents[1]
NOW = datetime(2026, 3, 2, 6, 0, tzinfo=UTC)
DAY = date(2026, 3, 1)
FEEDS = {  # feed -> (source, evaluator, intercept, slope per Arena point)
    "arena/text": ("arena", "lmarena", 0.0, 1.0),
    "epoch/eci": ("epoch", "epoch", -250.0, 0.3),
    "livebench/global": ("livebench", "livebench", -300.0, 0.26),
    "aider/polyglot": ("aider", "aider", -330.0, 0.28),
    "terminal-bench/accuracy": ("terminal-bench", "terminal-bench", -360.0, 0.3),
}
STAR = "star-model"
"The model that terminal-bench alone puts first."


def make_cfg(disabled: tuple[str, ...] = (), arena_feed: str = "arena/text", **robustness) -> SiteConfig:
    return SiteConfig.model_validate({
        "sources": [{"name": n, "kind": k, "evaluator": e, "enabled": n not in disabled}
                    for n, k, e in [("arena", "lmarena", "lmarena"), ("epoch", "epoch", "epoch"),
                                    ("livebench", "livebench", "livebench"), ("aider", "aider", "aider"),
                                    ("terminal-bench", "terminal_bench", "terminal-bench")]],
        "families": {
            "reasoning": {"title": "Reasoning", "feeds": ["epoch/eci", "livebench/global"]},
            "human_preference": {"title": "Human preference", "feeds": [arena_feed]},
            "coding": {"title": "Coding", "feeds": ["aider/polyglot"]},
            "terminal_work": {"title": "Terminal work", "feeds": ["terminal-bench/accuracy"]},
        },
        "roles": {"orchestrator": {"title": "Orchestrator", "weights": {
            "reasoning": 0.35, "human_preference": 0.2, "coding": 0.2, "terminal_work": 0.25}}},
        "boards": [{"id": "orchestrator", "title": "Best orchestrator", "kind": "orchestrator",
                    "role": "orchestrator"}],
        "uncertainty": {"rounds": 200, "seed": 7},
        "robustness": robustness,
    })


def obs(feed: str, ident: str, raw: float) -> Observation:
    source, evaluator, _, _ = FEEDS[feed]
    return Observation(source, feed, evaluator, ident, raw, DAY, "https://example.org", release=DAY.isoformat(),
                       identity=ident, selected=True)


def world() -> ScoringInputs:
    """16 models whose every feed lies near one line of their quality, and STAR: middling
    everywhere but on Terminal-Bench, where it is far ahead of everyone (the board's #1 with
    Terminal-Bench, 4th without). STAR has no Arena rating, so its outlying score is in no
    calibration's overlap and every fit stays tight. ``lone`` has two evaluators: it loses
    its rank without either of them."""
    rng = np.random.default_rng(3)
    rows: list[Observation] = []
    for i in range(16):
        q = 1300.0 + 12.0 * i
        for feed, (_, _, a, b) in FEEDS.items():
            rows.append(obs(feed, f"m{i:02}", a + b * q + float(rng.normal(0, 4.0 * b))))
    for feed, (_, _, a, b) in FEEDS.items():
        if feed != "arena/text":
            rows.append(obs(feed, STAR, a + b * (1450.0 if feed != "terminal-bench/accuracy" else 1700.0)))
    rows += [obs("arena/text", "lone", 1390.0), obs("aider/polyglot", "lone", -330.0 + 0.28 * 1390.0)]
    return ScoringInputs(tuple(rows), (), (), (), {}, {})


@pytest.fixture(scope="module")
def inputs() -> ScoringInputs:
    return world()


@pytest.fixture(scope="module")
def board(inputs) -> Board:
    return compute_scored_boards(inputs, make_cfg(), NOW, None).boards[0]


def rebuilt_ranks(inputs: ScoringInputs, evaluator: str) -> dict[str, int]:
    """Ranks of the board rebuilt from a configuration without ``evaluator``: its sources switched
    off, or, for the Arena anchor, its feed taken out of every family (the scale stays)."""
    if evaluator == "lmarena":
        cfg = make_cfg(arena_feed="arena/none")
    else:
        cfg = make_cfg(disabled=tuple(s for s, e in [(v[0], v[1]) for v in FEEDS.values()] if e == evaluator))
    b = compute_scored_boards(inputs, cfg, NOW, None).boards[0]
    return {r.identity: r.rank for r in b.rows if r.rank is not None}


def test_leave_one_out_ranks_equal_full_rebuilds_without_each_evaluator(inputs, board):
    assert board.robustness is not None
    assert board.robustness.evaluators == ("aider", "epoch", "livebench", "lmarena", "terminal-bench")
    assert board.robustness.anchor == "lmarena"
    for e in board.robustness.evaluators:
        direct = rebuilt_ranks(inputs, e)
        assert {r.identity: r.loo_ranks[e] for r in board.rows} == {r.identity: direct.get(r.identity)
                                                                     for r in board.rows}, e


def test_one_evaluator_alone_puts_a_model_first(inputs, board):
    first = board.rows[0]
    assert first.identity == STAR
    assert first.uncertainty is not None and first.uncertainty.rank_hi is not None
    without = first.loo_ranks["terminal-bench"]
    assert without is not None and without > first.uncertainty.rank_hi
    assert without == rebuilt_ranks(inputs, "terminal-bench")[STAR]
    assert first.depends_on == ("terminal-bench",) and first.depends_on_one is True
    # the other evaluators leave it first
    assert all(first.loo_ranks[e] == 1 for e in ("aider", "epoch", "lmarena", "livebench"))
    assert board.robustness is not None and board.robustness.leader_set == ("terminal-bench",)
    assert board.robustness.leader_after == next(i for i, r in rebuilt_ranks(inputs, "terminal-bench").items()
                                                 if r == 1)
    # a row whose every leave-one-out rank is inside its range is not flagged
    steady = [r for r in board.rows if r.depends_on_one is False]
    assert steady and all(not r.depends_on for r in steady)
    # two evaluators only: without either it drops to the New strip, and says so (null)
    lone = next(r for r in board.rows if r.identity == "lone")
    assert lone.loo_ranks["aider"] is None and lone.loo_ranks["lmarena"] is None
    assert "lone" not in rebuilt_ranks(inputs, "aider")


def test_leader_set_searches_larger_sets_when_no_single_evaluator_moves_first(inputs):
    """Without STAR's spike no single evaluator changes #1 (m15 leads everywhere); the search
    reports None up to max_set 1 and a set of two or more only if one really exists."""
    plain = ScoringInputs(tuple(o for o in inputs.observations if o.identity != STAR), (), (), (), {}, {})
    one = compute_scored_boards(plain, make_cfg(max_set=1), NOW, None).boards[0].robustness
    assert one is not None and one.leader_set is None and one.leader_after is None
    many = compute_scored_boards(plain, make_cfg(max_set=4), NOW, None).boards[0]
    assert many.robustness is not None
    if many.robustness.leader_set is not None:
        assert len(many.robustness.leader_set) >= 2


def test_off_leaves_the_board_unchanged(inputs, board):
    off = compute_scored_boards(inputs, make_cfg(enabled=False), NOW, None).boards[0]
    assert off.robustness is None and all(r.loo_ranks == {} and r.depends_on_one is None for r in off.rows)
    assert [(r.identity, r.rank, r.r) for r in off.rows] == [(r.identity, r.rank, r.r) for r in board.rows]


# --------------------------------------------------------------------------- weights


def test_weight_draws_are_seeded_dirichlet_vectors():
    weights = {"b": 0.3, "a": 0.5, "c": 0.2, "z": 0.0}
    fams, first = draw_weights(weights, 50.0, 300, 11)
    assert fams == ["a", "b", "c"]
    assert draw_weights(weights, 50.0, 300, 11) == (fams, first)
    assert draw_weights(weights, 50.0, 300, 12)[1] != first
    w = np.array(first)
    assert np.allclose(w.sum(axis=1), 1.0) and (w > 0).all()
    assert np.allclose(w.mean(axis=0), [0.5, 0.3, 0.2], atol=0.02)  # centred on the published weights
    # sd of a Dirichlet component: sqrt(p (1 - p) / (c + 1))
    assert w[:, 0].std() == pytest.approx(math.sqrt(0.25 / 51), rel=0.15)
    near = np.array(draw_weights(weights, 1e7, 50, 11)[1])
    assert np.abs(near - [0.5, 0.3, 0.2]).max() < 1e-3


def test_weight_grid_is_every_positive_tenths_vector():
    grid = weight_grid(3)
    assert len(grid) == math.comb(9, 2) and grid[0] == [0.1, 0.1, 0.8]
    assert all(abs(sum(v) - 1) < 1e-12 and min(v) > 0 for v in grid)


def test_first_holds_under_every_nearby_weighting_when_concentration_is_large(inputs):
    b = compute_scored_boards(inputs, make_cfg(concentration=1e8, draws=200), NOW, None).boards[0]
    assert b.robustness is not None and b.robustness.weights is not None
    assert b.robustness.weights.hold_share == 1.0
    again = compute_scored_boards(inputs, make_cfg(concentration=1e8, draws=200), NOW, None).boards[0]
    assert again.robustness == b.robustness


def test_contenders_lead_under_the_weights_they_are_given(inputs):
    """At a low concentration some draws leave STAR's Terminal-Bench lead behind; each
    contender's weights, applied to the published family means, really put it first."""
    b = compute_scored_boards(inputs, make_cfg(concentration=2.0, draws=400, seed=5), NOW, None).boards[0]
    wr = b.robustness.weights if b.robustness is not None else None
    assert wr is not None and 0 < wr.hold_share < 1
    assert [c.identity for c in wr.contenders] == [r.identity for r in b.rows[1:5]]
    assert wr.hold_share + sum(c.lead_share for c in wr.contenders) <= 1.0 + 1e-12
    found = [c for c in wr.contenders if c.weights is not None]
    assert any(c.found_in == "draws" for c in found)
    for c in found:
        assert c.weights is not None and abs(sum(c.weights.values()) - 1) < 1e-9

        def r_under(row, w=c.weights):
            present = [f for f in w if f in row.families]
            return sum(w[f] * row.families[f] for f in present) / sum(w[f] for f in present)

        me = next(r for r in b.rows if r.identity == c.identity)
        assert r_under(me) >= max(r_under(r) for r in b.rows)


# --------------------------------------------------------------------------- config


def _site(tmp_path: Path, robustness: dict) -> Path:
    data = yaml.safe_load((ROOT / "site.yml").read_text())
    data["robustness"] = robustness
    p = tmp_path / "site.yml"
    p.write_text(yaml.safe_dump(data))
    return p


@pytest.mark.parametrize("value, field", [
    ({"concentration": 0}, "robustness.concentration"),
    ({"concentration": "lots"}, "robustness.concentration"),
    ({"draws": -5}, "robustness.draws"),
    ({"max_set": 0}, "robustness.max_set"),
    ({"spread": 3}, "robustness.spread"),
])
def test_bad_robustness_settings_are_one_line(tmp_path, value, field):
    with pytest.raises(UserError) as exc:
        load_config(_site(tmp_path, value))
    assert field in str(exc.value) and "\n" not in str(exc.value)
    result = CliRunner().invoke(main, ["--config", str(_site(tmp_path, value)), "select"])
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert field in result.stderr and len(result.stderr.strip().splitlines()) == 1


def test_defaults_are_sane():
    cfg, _ = load_config(ROOT / "site.yml")
    assert cfg.robustness.enabled and cfg.robustness.draws >= 500 and cfg.robustness.concentration > 1
    # like the bootstrap, it never changes a board, so it is not part of the method
    assert make_cfg().method_id() == make_cfg(concentration=3.0, draws=10, max_set=1).method_id()


# --------------------------------------------------------------------------- recompute.py


def test_recompute_rebuilds_every_robustness_number(tmp_path, inputs):
    """The shipped standard-library script, run as a reader runs it, on this board's evidence
    (with the weight draws at a concentration where contenders lead)."""
    from builder.snapshot.assemble import assemble_snapshot

    scored = compute_scored_boards(inputs, make_cfg(concentration=2.0, draws=300), NOW, None)
    snapshot = assemble_snapshot(scored, demo=False, arena=None, evals=None, index=None, backfill=None)
    data = tmp_path / "data"
    data.mkdir()
    (data / "boards-evidence.json").write_text(json.dumps(compute_boards_evidence(snapshot, "https://x.test/")))
    script = ROOT / "builder" / "evidence" / "recompute.py"
    run = subprocess.run([sys.executable, "-I", "-S", str(script), str(data)], capture_output=True, text=True,
                         timeout=120)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-2000:]
    for kind in ("board leave-one-out rank", "board one-evaluator flag", "board set that changes #1",
                 "board #1 holds under weights", "board weight contender"):
        assert kind in run.stdout
    # a changed number is caught
    doc = json.loads((data / "boards-evidence.json").read_text())
    doc["boards"][0]["robustness"]["rows"][STAR]["loo_ranks"]["terminal-bench"] = 1
    doc["boards"][0]["robustness"]["weights"]["hold_share"] = 0.5
    (data / "boards-evidence.json").write_text(json.dumps(doc))
    bad = subprocess.run([sys.executable, "-I", "-S", str(script), str(data)], capture_output=True, text=True,
                         timeout=120)
    assert bad.returncode == 1
    assert "without terminal-bench" in bad.stdout and "board #1 holds under weights" in bad.stdout


def test_a_row_does_not_move_because_rows_above_lost_their_rank():
    from builder.scoring.robustness import moved_beyond_range, survivor_bases
    from builder.snapshot.models import RowUncertainty

    # rows 1 and 2 lose their rank without the evaluator: row 3 is then 1st, as its base says
    bases = survivor_bases([1500.0, 1490.0, 1480.0, 1470.0], [None, None, 1, 2])
    assert bases == [1, 1, 1, 2]
    tight = RowUncertainty(r_lo=1.0, r_hi=2.0, rank_lo=3, rank_hi=3, rank_ub=3, p_first=0.0, p_above=0.5,
                           tied_above=True, rounds_scored=10)
    assert moved_beyond_range(1, bases[2], tight) is False
    assert moved_beyond_range(2, bases[2], tight) is True  # one place past a range of width 0
    assert moved_beyond_range(None, bases[2], tight) is False  # a lost rank is said as such, not as a move
    assert moved_beyond_range(1, 1, None) is None
