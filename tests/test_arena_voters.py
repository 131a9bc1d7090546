"""Voter safeguards in the battles reader: a per-voter daily cap, and the anomalous-voter test
(log-likelihood of each voter's votes under the fitted model against its expectation)."""

from __future__ import annotations

import json

import numpy as np
import pytest
from click.testing import CliRunner

from builder.cli.arena import arena
from builder.config import ArenaConfig
from builder.pairwise.arena import compute_arena_section
from builder.pairwise.battles import BattleFilters
from builder.pairwise.scan import scan_battles

DAY = 86_400.0
T0 = 1_767_225_600.0  # 2026-01-01 00:00 UTC


def _honest_rows(rng, n_voters=400, votes=(20, 60), n_models=8, days=5):
    skill = np.linspace(-1.2, 1.2, n_models)
    rows = []
    for v in range(n_voters):
        for _ in range(int(rng.integers(*votes))):
            a, b = rng.choice(n_models, size=2, replace=False)
            r = rng.random()
            winner = "tie" if r < 0.08 else "model_a" if r < 0.08 + 0.92 / (1 + np.exp(skill[b] - skill[a])) \
                else "model_b"
            rows.append({"model_a": f"m{a}", "model_b": f"m{b}", "winner": winner, "anony": True,
                         "judge": f"voter-{v}", "tstamp": T0 + rng.random() * days * DAY})
    return rows


def _write(path, rows):
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def test_a_voter_with_200_votes_in_a_day_is_capped(tmp_path):
    rng = np.random.default_rng(3)
    rows = _honest_rows(rng, n_voters=30, votes=(5, 10), days=3)
    burst = [{"model_a": "m0", "model_b": "m1", "winner": "model_a", "anony": True, "judge": "busy",
              "tstamp": T0 + DAY + k * 60.0} for k in range(200)]  # 200 votes on 2026-01-02
    burst += [{"model_a": "m0", "model_b": "m2", "winner": "model_b", "anony": True, "judge": "busy",
               "tstamp": T0 + 2 * DAY + k} for k in range(7)]  # and 7 the next day
    path = _write(tmp_path / "b.jsonl", rows + burst)
    with scan_battles(path, BattleFilters(official=True, voter_daily_cap=50)) as scan:
        assert scan.report.removed["voter_cap"] == 150
        counts = scan.pair_counts()
        k = {m: i for i, m in enumerate(counts.models)}
        i, j = sorted((k["m0"], k["m1"]))
        pair = int(np.flatnonzero((counts.i == i) & (counts.j == j))[0])
        others = sum(1 for r in rows if {r["model_a"], r["model_b"]} == {"m0", "m1"})
        assert counts.totals()[pair] == others + 50  # the first 50 of that day kept
    section = compute_arena_section(path, ArenaConfig(bootstrap=0, voter_daily_cap=50, history="day"))
    assert section.voters is not None and section.voters.capped_rows == 150 and section.voters.daily_cap == 50
    assert section.filters["voter_cap"] == 150
    res = CliRunner().invoke(arena, ["fit", "--input", str(path), "--voter-cap", "50"])
    assert res.exit_code == 0, res.output
    assert "voter_cap 150" in res.output


def test_the_cap_is_off_when_the_dump_names_no_voter(tmp_path):
    rows = [{"model_a": "a", "model_b": "b", "winner": "model_a", "tstamp": T0 + k} for k in range(300)]
    rows += [{"model_a": "b", "model_b": "a", "winner": "model_a", "tstamp": T0 + k} for k in range(100)]
    path = _write(tmp_path / "nov.jsonl", rows)
    with scan_battles(path, BattleFilters(voter_daily_cap=5, anomaly_fpr=0.01)) as scan:
        assert scan.report.rows_kept == 400 and "voter_cap" not in scan.report.removed
        assert scan.voter_test is None
    section = compute_arena_section(path, ArenaConfig(bootstrap=0, voter_daily_cap=5, anomalous_voters_fpr=0.01))
    assert section.voters is None and section.n_battles == 400


@pytest.mark.parametrize("fpr", [0.01, 0.05])
def test_an_injected_one_model_voter_is_flagged_and_honest_voters_within_the_rate(tmp_path, fpr):
    rng = np.random.default_rng(11)
    rows = _honest_rows(rng)
    # the injected voter always votes for m2 (a weak model), whatever it meets
    for _ in range(60):
        a, b = rng.choice(8, size=2, replace=False)
        if 2 not in (a, b):
            b = 2 if a != 2 else b
        rows.append({"model_a": f"m{a}", "model_b": f"m{b}", "winner": "model_a" if a == 2 else "model_b",
                     "anony": True, "judge": "shill", "tstamp": T0 + rng.random() * 4 * DAY})
    path = _write(tmp_path / "v.jsonl", rows)
    with scan_battles(path, BattleFilters(official=True, anomaly_fpr=fpr, anomaly_min_votes=20)) as scan:
        test = scan.voter_test
        assert test is not None and test.column == "judge"
        assert "shill" in test.flagged
        honest_flagged = [v for v in test.flagged if v != "shill"]
        # the share of honest voters flagged stays within the rate (binomial slack: 3 sd over fpr)
        n = test.tested - 1
        assert len(honest_flagged) <= fpr * n + 3 * np.sqrt(n * fpr * (1 - fpr))
        assert scan.report.removed["anomalous_voter"] == test.rows_removed >= 60
        counts = scan.pair_counts()
        assert int(counts.totals().sum()) == scan.report.rows_kept
    section = compute_arena_section(path, ArenaConfig(bootstrap=0, anomalous_voters_fpr=fpr))
    assert section.voters is not None and section.voters.flagged == len(test.flagged)
    assert section.voters.flagged_rows == test.rows_removed and section.filters["anomalous_voter"] == test.rows_removed
    res = CliRunner().invoke(arena, ["fit", "--input", str(path), "--anomalous-voters", str(fpr)])
    assert res.exit_code == 0 and f"anomalous voters: {len(test.flagged)} of {test.tested} tested flagged" in res.output


def test_honest_false_positive_rate_over_many_voters(tmp_path):
    """Over 1,500 honest voters the flagged share is close to the configured rate."""
    rng = np.random.default_rng(5)
    rows = _honest_rows(rng, n_voters=1500, votes=(25, 45))
    path = _write(tmp_path / "h.jsonl", rows)
    with scan_battles(path, BattleFilters(anomaly_fpr=0.05)) as scan:
        test = scan.voter_test
        assert test is not None and test.tested > 1450  # a few voters have under 20 decisive votes
        share = len(test.flagged) / test.tested
        assert 0.02 <= share <= 0.05 + 3 * np.sqrt(0.05 * 0.95 / 1500)
