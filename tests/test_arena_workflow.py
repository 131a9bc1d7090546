"""The Elo leaderboard's command-line workflow: the offline pipeline (``modelboards arena``
alone), the default roster, ``leaderboard`` over every file ``fit`` and ``history`` write,
``--sample``, ``--top-n``, ``--init-rating``, named models, and the rating-change table."""

from __future__ import annotations

import csv
import io
import json
import math
import re
import statistics

import numpy as np
import pytest
from click.testing import CliRunner

from builder.cli import main
from builder.errors import UserError
from builder.pairwise.battles import Battles
from builder.pairwise.changes import compute_rating_changes, compute_volatility
from builder.pairwise.demo import DEFAULT_ROSTER, parse_models_option, skills_for
from builder.pairwise.leaderboard import Leaderboard, LeaderboardRow, footer_line, render_leaderboard
from builder.pairwise.sampling import sample_battles

FOOTER = re.compile(r"^(\d+) models · ratings (\d+\.\d)-(\d+\.\d) · mean 95% interval width (\d+\.\d)$", re.M)


def run(*args, input=None):
    return CliRunner().invoke(main, [str(a) for a in args], input=input)


@pytest.fixture(scope="module")
def battles_file(tmp_path_factory):
    out = tmp_path_factory.mktemp("wf") / "battles.jsonl"
    res = run("arena", "simulate", "--n", 3000, "--seed", 5, "--output", out)
    assert res.exit_code == 0, res.output
    return out


# --------------------------------------------------------------------------- pipeline


def test_bare_arena_is_the_offline_pipeline(monkeypatch):
    for var in ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "OPENROUTER_API_KEY"):
        monkeypatch.delenv(var, raising=False)
    bare = run("arena")
    assert bare.exit_code == 0, bare.output
    explicit = run("arena", "pipeline")
    assert explicit.output == bare.output  # seeded: the same board twice
    out = bare.output
    for name, offset in DEFAULT_ROSTER.items():  # the true skills are printed
        assert re.search(rf"^  {re.escape(name)}\s+{1000 + offset:.1f}$", out, re.M)
    m = FOOTER.search(out)
    assert m and m.group(1) == "8"
    assert "100 bootstrap rounds" in out
    header = next(line for line in out.splitlines() if line.startswith("rank"))
    assert header.split() == ["rank", "ub", "model", "rating", "lower", "upper", "elo", "truth", "battles", "win_rate"]
    rows = [line.split() for line in out.splitlines() if re.match(r"^\s+\d+\s+\d+\s+\S", line)]
    assert len(rows) == 8
    # 5000 battles among 8 well-spread models: Bradley-Terry puts every model in its true place
    assert [r[2] for r in rows] == sorted(DEFAULT_ROSTER, key=lambda k: -DEFAULT_ROSTER[k])
    assert "true order recovered: Bradley-Terry 8 of 8 positions" in out
    for r in rows:
        lower, rating, upper, truth = float(r[4]), float(r[3]), float(r[5]), float(r[7])
        assert lower <= rating <= upper and abs(rating - truth) < 40

    # pairs drawn uniformly, as the seed's simulator does: both methods recover the true order
    assert "pairs drawn uniformly" in out
    assert "true order recovered: Bradley-Terry 8 of 8 positions, online Elo 8 of 8" in out
    assert [float(r[6]) for r in rows] == sorted((float(r[6]) for r in rows), reverse=True)


def test_pipeline_zipf_option_gives_popularity():
    res = run("arena", "pipeline", "--zipf", 1, "--bootstrap", 0)
    assert res.exit_code == 0, res.output
    assert "Zipf popularity (exponent 1)" in res.output
    rows = [line.split() for line in res.output.splitlines() if re.match(r"^\s+\d+\s+\d+\s+\S", line)]
    battles = [int(r[-2]) for r in rows]
    assert max(battles) > 2 * min(battles)  # popular models play far more often
    uniform = run("arena", "pipeline", "--bootstrap", 0).output
    rows = [line.split() for line in uniform.splitlines() if re.match(r"^\s+\d+\s+\d+\s+\S", line)]
    battles = [int(r[-2]) for r in rows]
    assert sum(battles) == 2 * 5000 and max(battles) < 1.2 * min(battles)
    assert run("arena", "pipeline", "--zipf", -1).exit_code == 2


def _elo_step(ra, rb, score_a, k=4.0):
    e_a = 1 / (1 + 10 ** ((rb - ra) / 400))
    return ra + k * (score_a - e_a), rb + k * ((1 - score_a) - (1 - e_a))


def test_pipeline_walks_the_first_battles_and_lists_win_probabilities():
    out = run("arena", "pipeline", "--trace", 4, "--bootstrap", 0).output
    lines = out.splitlines()
    start = lines.index("the first 4 battles, online Elo k=4 step by step:")
    trace = lines[start + 1:start + 13]
    ratings: dict[str, float] = {}
    for q in range(4):
        m = re.fullmatch(r"battle (\d): (\S+) vs (\S+) -> (.+)", trace[3 * q])
        assert m and int(m.group(1)) == q + 1
        a, b, result = m.group(2), m.group(3), m.group(4)
        score = 1.0 if result == f"{a} wins" else 0.0 if result == f"{b} wins" else 0.5
        ra, rb = ratings.get(a, 1000.0), ratings.get(b, 1000.0)
        na, nb = _elo_step(ra, rb, score)
        assert trace[3 * q + 1] == f"  {a}: {ra:.1f} -> {na:.1f} ({na - ra:+.1f})"
        assert trace[3 * q + 2] == f"  {b}: {rb:.1f} -> {nb:.1f} ({nb - rb:+.1f})"
        ratings[a], ratings[b] = na, nb
    # the first battle starts both sides at 1000: E = 1/2, so a win moves each by k/2 = 2
    assert trace[1].endswith("(+2.0)") or trace[1].endswith("(-2.0)") or trace[1].endswith("(+0.0)")
    rows = [line.split() for line in lines if re.match(r"^\s+\d+\s+\d+\s+\S", line)]
    rating = {r[2]: float(r[3]) for r in rows}
    head = lines.index("predicted win probabilities from the Bradley-Terry ratings (A vs B: A wins - B wins):")
    probs = lines[head + 1:]
    assert len(probs) == 8 * 7 // 2
    for line in probs:
        m = re.fullmatch(r"  (\S+) vs (\S+): ([\d.]+)% - ([\d.]+)%", line)
        assert m, line
        p = 1 / (1 + 10 ** ((rating[m.group(2)] - rating[m.group(1)]) / 400))
        assert float(m.group(3)) == pytest.approx(100 * p, abs=0.1)  # printed ratings are rounded to 0.1
        assert float(m.group(3)) + float(m.group(4)) == pytest.approx(100, abs=0.05)
    assert "step by step" not in run("arena", "pipeline", "--trace", 0, "--bootstrap", 0).output


def test_pipeline_options_and_csv(tmp_path):
    out = tmp_path / "sim.jsonl"
    res = run("arena", "pipeline", "--models", "x,y,z", "--n", 1500, "--seed", 2, "--bootstrap", 20,
              "--init-rating", 1500, "--format", "csv", "--output", out)
    assert res.exit_code == 0, res.output
    rows = list(csv.DictReader(io.StringIO(res.stdout)))
    assert [r["model"] for r in rows] == ["x", "y", "z"]
    assert sum(float(r["rating"]) for r in rows) / 3 == pytest.approx(1500, abs=0.01)  # the scale's centre
    assert [float(r["truth"]) for r in rows] == [1560.0, 1500.0, 1440.0]
    assert "Arena pipeline" not in res.stdout  # prose on stderr keeps stdout pure CSV
    assert len(out.read_text().splitlines()) == 1500
    res = run("arena", "pipeline", "--output", tmp_path / "bad.txt")
    assert res.exit_code == 2 and "must end in .jsonl" in res.output


# --------------------------------------------------------------------------- simulate


def test_simulate_roster_names_and_count(tmp_path):
    res = run("arena", "simulate", "--n", 200, "--output", tmp_path / "a.jsonl")
    assert res.exit_code == 0, res.output
    assert "true skills" in res.output and "claude-opus-5.5    1180.0" in res.output
    models = {json.loads(line)["model_a"] for line in (tmp_path / "a.jsonl").read_text().splitlines()}
    assert models == set(DEFAULT_ROSTER)
    res = run("arena", "simulate", "--models", "p,q", "--n", 50, "--output", tmp_path / "b.jsonl",
              "--truth-output", tmp_path / "t.json")
    assert res.exit_code == 0 and json.loads((tmp_path / "t.json").read_text()) == {"p": 1030.0, "q": 970.0}
    res = run("arena", "simulate", "--models", 5, "--n", 50, "--output", tmp_path / "c.jsonl")
    assert res.exit_code == 0 and "model-5" in res.output  # a count keeps working
    res = run("arena", "simulate", "--models", "p,p", "--output", tmp_path / "d.jsonl")
    assert res.exit_code == 2 and "named twice" in res.output
    res = run("arena", "simulate", "--models", "3", "--models-from", tmp_path / "t.json",
              "--output", tmp_path / "e.jsonl")
    assert res.exit_code == 2 and "at most one" in res.output


def test_models_option_and_skills():
    assert parse_models_option(None) is None and parse_models_option(" 4 ") == 4
    assert parse_models_option("a, b ,c") == ["a", "b", "c"]
    with pytest.raises(UserError):
        parse_models_option("1")
    with pytest.raises(UserError):
        parse_models_option("solo")
    assert skills_for(["a", "b", "c", "d"], centre=0) == {"a": 90.0, "b": 30.0, "c": -30.0, "d": -90.0}
    assert sum(skills_for(None).values()) / 8 == 1000.0


# --------------------------------------------------------------------------- leaderboard


def test_leaderboard_reads_fit_and_history_files(battles_file, tmp_path):
    rj, rc = tmp_path / "r.json", tmp_path / "r.csv"
    assert run("arena", "fit", "--input", battles_file, "--bootstrap", 30, "--output", rj).exit_code == 0
    assert run("arena", "fit", "--input", battles_file, "--bootstrap", 30, "--output", rc).exit_code == 0
    printed = run("arena", "fit", "--input", battles_file, "--bootstrap", 30)
    ratings = json.loads(rj.read_text())
    lo, hi = min(r["rating"] for r in ratings), max(r["rating"] for r in ratings)
    width = sum(r["upper"] - r["lower"] for r in ratings) / len(ratings)
    want = f"8 models · ratings {lo:.1f}-{hi:.1f} · mean 95% interval width {width:.1f}"
    assert printed.stdout.rstrip().splitlines()[-1] == want  # under fit's own table
    for f in (rj, rc):
        res = run("arena", "leaderboard", "--input", f)
        assert res.exit_code == 0, res.output
        assert res.stdout.rstrip().splitlines()[-1] == want
        assert res.stdout == printed.stdout
    top = run("arena", "leaderboard", "--input", rj, "--top-n", 3).stdout.splitlines()
    assert len(top) == 1 + 3 + 2 and top[-1] == want and "5 more" in top[-2]
    md = run("arena", "leaderboard", "--input", rj, "--format", "markdown").stdout
    assert md.startswith("| Rank | Rank (UB) | Model | Rating | Lower | Upper |") and md.rstrip().endswith(want)
    cs = list(csv.DictReader(io.StringIO(run("arena", "leaderboard", "--input", rj, "--format", "csv").stdout)))
    assert [r["model"] for r in cs] == [r["model"] for r in ratings]
    # a battles file is fitted (same defaults as fit)
    res = run("arena", "leaderboard", "--input", battles_file, "--bootstrap", 30)
    assert res.exit_code == 0 and res.stdout == printed.stdout
    # history files: the newest slice
    hj, hc = tmp_path / "h.json", tmp_path / "h.csv"
    assert run("arena", "history", "--input", battles_file, "--period", "month", "--output", hj).exit_code == 0
    assert run("arena", "history", "--input", battles_file, "--period", "month", "--output", hc).exit_code == 0
    newest = json.loads(hj.read_text())[-1]
    for f in (hj, hc):
        res = run("arena", "leaderboard", "--input", f)
        assert res.exit_code == 0, res.output
        lines = res.stdout.splitlines()
        assert lines[0].split() == ["rank", "model", "rating", "elo"]
        assert lines[1].split()[1] == newest["models"][0]["model"]
        assert lines[-1] == "8 models · ratings {:.1f}-{:.1f}".format(
            min(m["rating"] for m in newest["models"]), max(m["rating"] for m in newest["models"]))


def test_leaderboard_errors_are_one_line(tmp_path):
    bad = tmp_path / "r.json"
    bad.write_text('[{"model": "a", "rating": 1000}, {"model": "b", "rating": "high"}]')
    res = run("arena", "leaderboard", "--input", bad)
    assert res.exit_code == 2 and res.output.strip().count("\n") == 0
    assert "row 2: rating 'high' is not a number" in res.output
    res = run("arena", "leaderboard", "--input", tmp_path / "missing.json")
    assert res.exit_code == 2 and "not found" in res.output
    broken = tmp_path / "b.csv"
    broken.write_text("model,rating\na,\n")
    res = run("arena", "leaderboard", "--input", broken)
    assert res.exit_code == 2 and "row 1: no rating" in res.output


def test_footer_line_rules():
    rows = (LeaderboardRow("a", 1010.04, 1000.0, 1020.0), LeaderboardRow("b", 989.96, 970.0, 1001.0),
            LeaderboardRow("c", 950.0, None, 960.0))
    assert footer_line(Leaderboard(rows, "t")) == (
        "3 models · ratings 950.0-1010.0 · mean 95% interval width 25.5 (1 unbounded left out)")
    flat = (LeaderboardRow("a", 1.0, 1.0, 1.0), LeaderboardRow("b", 2.0, 2.0, 2.0))
    assert footer_line(Leaderboard(flat, "t")) == "2 models · ratings 1.0-2.0"  # no intervals: no width
    assert "lower" not in render_leaderboard(Leaderboard(flat, "t")).splitlines()[0]


# --------------------------------------------------------------------------- options


def test_sample_is_seeded_and_in_file_order():
    k = np.arange(100)
    b = Battles(("m0", "m1", "m2"), (k % 3).astype(np.int32), ((k + 1) % 3).astype(np.int32),
                np.zeros(100, np.int8), k.astype(np.float64))
    s1, note = sample_battles(b, 30, seed=4)
    s2, _ = sample_battles(b, 30, seed=4)
    s3, _ = sample_battles(b, 30, seed=5)
    assert len(s1) == 30 and note is not None and note.kept == 30 and note.available == 100
    assert list(s1.tstamp) == list(s2.tstamp) != list(s3.tstamp)
    assert list(s1.tstamp) == sorted(s1.tstamp) and len(set(s1.tstamp)) == 30  # no repeats, file order
    same, note = sample_battles(b, 500, seed=0)
    assert same is b and "all 100" in note.line()
    assert sample_battles(b, None, seed=0) == (b, None)


def test_fit_sample_init_and_top_n(battles_file, tmp_path):
    out = tmp_path / "s.json"
    res = run("arena", "fit", "--input", battles_file, "--sample", 1000, "--seed", 3, "--init-rating", 1500,
              "--output", out)
    assert res.exit_code == 0 and "sample: 1000 of 3000 battles" in res.output
    rows = json.loads(out.read_text())
    assert sum(r["battles"] for r in rows) == 2 * 1000
    assert sum(r["rating"] for r in rows) / len(rows) == pytest.approx(1500, abs=0.01)
    again = tmp_path / "s2.json"
    run("arena", "fit", "--input", battles_file, "--sample", 1000, "--seed", 3, "--init-rating", 1500,
        "--output", again)
    assert again.read_text() == out.read_text()
    elo = run("arena", "fit", "--input", battles_file, "--method", "elo", "--init-rating", 1200, "--top-n", 2)
    lines = elo.stdout.splitlines()
    assert len(lines) == 1 + 2 + 2
    assert float(lines[1].split()[3]) > 1200  # online Elo starts at the given centre
    res = run("arena", "history", "--input", battles_file, "--period", "month", "--sample", 500, "--output",
              tmp_path / "h.json")
    assert res.exit_code == 0 and json.loads((tmp_path / "h.json").read_text())[-1]["n_battles"] == 500


# --------------------------------------------------------------------------- rating changes


def test_rating_changes_hand_computed():
    slices = [("2026-01-04", {"a": 1000.0, "b": 990.0}), ("2026-01-11", {"a": 1010.0, "b": math.nan}),
              ("2026-01-18", {"a": 1004.0, "b": 1001.0, "c": 950.0}), ("2026-01-25", {"a": 1020.0, "b": 996.0})]
    matches = {"2026-01-18": {"a": 30, "b": 12, "c": 7}, "2026-01-25": {"a": 41, "b": 20}}
    by = {c.model: c for c in compute_rating_changes(reversed(slices), matches)}  # any order: sorted by date
    a = by["a"]
    assert (a.initial, a.final, a.highest, a.lowest, a.change, a.slices) == (1000.0, 1020.0, 1020.0, 1000.0, 20.0, 4)
    # volatility is the std of the ratings themselves: mean 1008.5, deviations -8.5, 1.5, -4.5, 11.5,
    # squares 72.25 + 2.25 + 20.25 + 132.25 = 227, sample variance 227 / 3
    assert a.volatility == pytest.approx(math.sqrt(227 / 3))
    assert a.volatility == pytest.approx(8.6987, abs=1e-4)
    assert a.total_matches == 41  # the matches of its last slice
    b = by["b"]  # the NaN slice is skipped: ratings 990, 1001, 996, mean 2987/3
    assert (b.initial, b.final, b.slices, b.first_date) == (990.0, 996.0, 3, "2026-01-04")
    # deviations -17/3, 16/3, 1/3: squares (289 + 256 + 1) / 9, sample variance 546 / 18
    assert b.volatility == pytest.approx(math.sqrt(546 / 18))
    assert b.total_matches == 20
    c = by["c"]
    assert c.volatility is None and c.change == 0 and c.last_date == "2026-01-18" and c.total_matches == 7
    order = [x.model for x in compute_rating_changes(slices)]
    assert order == ["a", "b", "c"]  # rated in the newest slice first, by final rating
    assert compute_rating_changes(slices)[0].total_matches is None  # a history without counts
    assert compute_volatility([1.0]) is None
    assert compute_volatility([1.0, 2.0]) == pytest.approx(math.sqrt(0.5))


def _hand_battles(path):
    """Six dated battles in two ISO weeks among a, b, c (Monday 2026-01-05 starts week 2)."""
    day = 86_400
    t0 = 1_767_571_200  # 2026-01-05 00:00 UTC, a Monday
    rows = [("a", "b", "model_a", t0), ("a", "c", "model_a", t0 + day), ("b", "c", "tie", t0 + 2 * day),
            ("c", "a", "model_a", t0 + 7 * day), ("b", "a", "model_b", t0 + 8 * day),
            ("b", "c", "model_a", t0 + 9 * day)]
    path.write_text("".join(json.dumps({"model_a": a, "model_b": b, "winner": w, "tstamp": t}) + "\n"
                            for a, b, w, t in rows))
    return path


def test_history_output_carries_matches_wins_and_the_seed_statistics(tmp_path):
    src = _hand_battles(tmp_path / "b.jsonl")
    out = tmp_path / "h.csv"
    res = run("arena", "history", "--input", src, "--period", "week", "--output", out)
    assert res.exit_code == 0, res.output
    rows = list(csv.DictReader(out.open(newline="")))
    assert list(rows[0]) == ["date", "model", "rating", "rank", "elo", "lower", "upper", "matches", "wins", "ties"]
    got = {(r["date"], r["model"]): (int(r["matches"]), int(r["wins"]), int(r["ties"])) for r in rows}
    # week 1 (to Sunday 2026-01-11): a 2 matches 2 wins; b 2 matches, 0 wins, 1 tie; c 2 matches, 1 tie
    # week 2 (cumulative, to the last battle 2026-01-14): a 4 matches 3 wins; b 4 matches 1 win 1 tie;
    # c 4 matches 1 win 1 tie (5 decisive battles: 3 + 1 + 1 wins)
    for model, want in {"a": (4, 3, 0), "b": (4, 1, 1), "c": (4, 1, 1)}.items():
        assert got[("2026-01-14", model)] == want, model
    for model, want in {"a": (2, 2, 0), "b": (2, 0, 1), "c": (2, 0, 1)}.items():
        if ("2026-01-11", model) in got:  # a model that won everything has no finite rating yet
            assert got[("2026-01-11", model)] == want, model
    # the printed table: volatility = std of the model's ratings over the slices, matches = last slice's
    table = [line.split() for line in res.stdout.splitlines()[2:] if line.strip()]
    head = res.stdout.splitlines()[1].split()
    assert head[-2:] == ["slices", "matches"]
    for line in table:
        model = line[0]
        ratings = [float(r["rating"]) for r in rows if r["model"] == model]
        want = "-" if len(ratings) < 2 else f"{statistics.stdev(ratings):.1f}"
        assert line[head.index("volatility")] == want
        assert int(line[-1]) == 4 and int(line[head.index("slices")]) == len(ratings)
    js = tmp_path / "h.json"
    assert run("arena", "history", "--input", src, "--output", js).exit_code == 0
    last = json.loads(js.read_text())[-1]
    assert {m["model"]: (m["matches"], m["wins"], m["ties"]) for m in last["models"]} == {
        "a": (4, 3, 0), "b": (4, 1, 1), "c": (4, 1, 1)}


def test_history_prints_the_change_table(battles_file):
    res = run("arena", "history", "--input", battles_file, "--period", "month", "--top-n", 3)
    assert res.exit_code == 0, res.output
    lines = res.stdout.splitlines()
    assert lines[0].startswith("Bradley-Terry rating changes over 3 month slices, 2026-01-31 to 2026-03-31")
    assert lines[1].split() == ["model", "first", "initial", "final", "change", "highest", "lowest", "volatility",
                                "slices", "matches"]
    first = lines[2].split()
    initial, final, change, high, low = map(float, first[2:7])
    assert change == pytest.approx(final - initial, abs=0.11) and low <= min(initial, final) <= high
    assert len(lines) == 2 + 3 + 1 and "5 more" in lines[-1]


def test_new_commands_have_help():
    for cmd in ("pipeline", "leaderboard", "simulate", "fit", "history", "judge"):
        res = run("arena", cmd, "--help")
        assert res.exit_code == 0 and "Usage" in res.output
    assert "Without a command: the offline demo" in run("arena", "--help").output


def test_readme_command_table_lists_every_arena_and_evals_command():
    from pathlib import Path

    from builder.cli.arena import arena
    from builder.cli.evals import evals

    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")
    table = "\n".join(line for line in readme.splitlines() if line.startswith("| `"))
    for name in arena.commands:
        assert f"arena {name}" in table or (name == "pipeline" and "arena pipeline" in table), name
    assert "| `modelboards arena` (= `arena pipeline" in table
    for name in evals.commands:
        assert f"evals {name}" in table or f"evals aggregate\\|{name}" in table, name
    assert "recompute.py" in table


def test_demo_elo_is_the_compiled_online_elo():
    from builder.pairwise.demo import compute_demo_elo
    from builder.pairwise.elo import fit_online_elo
    from builder.pairwise.simulate import simulate_battles

    sim = simulate_battles(skills_for(None), 3000, seed=9, tie_prob=0.2)
    compiled = fit_online_elo(sim.to_battles(), k=4.0, init=1200.0)
    fast = compute_demo_elo(sim, k=4.0, init=1200.0)
    assert fast == {m: float(r) for m, r in zip(sim.models, compiled.ratings, strict=True)}  # bit for bit


# --------------------------------------------------------------------------- fit --output, loader summary


def test_fit_output_writes_the_file_and_prints_the_table(battles_file, tmp_path):
    out = tmp_path / "f.csv"
    res = run("arena", "fit", "--input", battles_file, "--output", out)
    assert res.exit_code == 0, res.output
    rows = list(csv.DictReader(out.open(newline="")))
    assert len(rows) == 8
    printed = run("arena", "fit", "--input", battles_file)
    assert res.stdout == printed.stdout  # the same leaderboard, with or without --output
    assert res.stdout.rstrip().splitlines()[-1].startswith("8 models · ratings")
    assert [r["model"] for r in rows] == [line.split()[2] for line in res.stdout.splitlines()[1:9]]
    assert f"{out}: 8 models" in res.stderr


def test_loader_prints_outcome_distribution_and_top_models(tmp_path):
    src = tmp_path / "b.jsonl"
    # 12 models: m00 plays in every battle; 20 battles: 9 model_a, 6 model_b, 4 tie, 1 tie (bothbad)
    winners = ["model_a"] * 9 + ["model_b"] * 6 + ["tie"] * 4 + ["tie (bothbad)"]
    rows = [{"model_a": "m00", "model_b": f"m{1 + k % 11:02d}", "winner": w, "tstamp": 1_767_571_200 + k}
            for k, w in enumerate(winners)]
    rows.append({"model_a": "m00", "model_b": "m00", "winner": "tie"})  # a bad row: not counted
    src.write_text("".join(json.dumps(r) + "\n" for r in rows))
    res = run("arena", "fit", "--input", src, "--method", "elo")
    assert res.exit_code == 0, res.output
    err = res.stderr.splitlines()
    start = err.index("outcome distribution (20 battles):")
    assert [line.split() for line in err[start + 1:start + 5]] == [
        ["model_a", "9", "45.0%"], ["model_b", "6", "30.0%"], ["tie", "4", "20.0%"], ["tie", "(bothbad)", "1", "5.0%"]]
    assert err[start + 5] == "models with the most appearances (10 of 12):"
    top = [line.split() for line in err[start + 6:start + 16]]
    # m00 20; m01..m09 two each (battles k and k + 11), m10 and m11 one each: ties by name
    assert top == [["m00", "20"]] + [[f"m{k:02d}", "2"] for k in range(1, 10)]
    assert len(err) == start + 16 or not err[start + 16].startswith("  ")
