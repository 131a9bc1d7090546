"""Benchmark: the seed's Arena method against ``builder.pairwise``, and the battles reader
against the read floor, on the same battles.

    python tests/bench/bench_arena.py [--parts seed,floor,steady,style,style6,stylejsonl] [--sizes 100000,1000000]
        [--with-3m]
        [--seed-rounds 2] [--floor-sizes 1000000,3000000] [--memory-10m] [--cache DIR] [--reps 3] [--quick]
        [--style-sizes 1000000,3000000]

Part ``floor`` (issue 15): FastChat-format battles (150 models, ``conv_metadata`` and the
other clean_battle fields, about 430 bytes a battle as JSON) are generated once per size into
``--cache`` as Parquet, JSON Lines and a JSON array. For each file, whole processes, each
timed from start to exit with its peak memory (VmHWM): ``modelboards arena fit --bootstrap
100`` against the floor, a Python process that imports duckdb and runs the bare
``SELECT model_a, model_b, winner, count(*) ... GROUP BY ALL`` over ``read_json_auto`` or
``read_parquet``; beside it the same command without ``--bootstrap`` (read, count, fit, write),
which splits the ratio into reading and the 100 rounds. Medians of ``--reps`` runs.
``--memory-10m`` adds 10M battles in JSON Lines: peak memory of ``arena fit`` with the default
512 MB limit (target: under 600 MB).

Part ``steady``: the compiled fit plus 100 bootstrap rounds (BLAS pinned to one thread), five
times while one CPU-bound process keeps the other core busy, in this process and then as
``arena fit`` runs them by default (a pool of all cores for this size); prints each spread
(slowest / fastest, target within 1.5x).

Part ``seed``:

Not a test (pytest does not collect ``bench_*.py``) and not timed in CI. It simulates
battles among 150 models (Zipf popularity, 10% ties), writes each size to Parquet, and runs
every method in a fresh Python process so the peak memory (VmHWM) is the whole
process's:

- seed: ``pandas.read_parquet`` (model names as Python strings), then FastChat's
  ``compute_mle_elo`` as the seed has it (three pivot tables, a dense design matrix with two
  rows per ordered pair, ``LogisticRegression(penalty=None, tol=1e-6)``); the bootstrap
  resamples battles (``sample(frac=1, replace=True)``) and refits, timed on a few rounds
  and extrapolated to 100;
- ours: ``read_battles`` (integer codes), ``count_pairs`` + ``fit_bt`` (Newton on the pair
  counts), ``bootstrap_bt`` with 100 multinomial rounds (one process) and 1,000 (all cores);
- online Elo (k = 4): the numba loop against the plain Python loop over the same battles.

Prints one table: seconds, ratios, peak memory and the largest rating difference between
the two fits (the seed stops at tol 1e-6, which can leave it a few tenths of a point short
of the maximum). ``--with-3m`` adds 3M battles (ours, plus the seed's fit alone).

Part ``style`` (issue 16) compares the style-controlled fit with sandwich intervals
against LMArena's ``arena-rank`` (0.1.1) on the same Parquet file with ``conv_metadata``
(150 models, a true length and bold effect), each as a whole process from the file to
ratings with intervals: theirs ``pandas.read_parquet``, the four features from the
metadata dicts, ``ContextualPairDataset.from_pandas``, ``ContextualBradleyTerry`` fit and
sandwich; ours ``modelboards arena fit --style-control`` (one DuckDB scan of the file for
the battles and the metadata counts, the styled fit, sandwich intervals, the JSON output).
It prints both wall times and their ratio, the in-process ratio (our fit + sandwich against
its dataset build + fit + sandwich), the largest rating / beta differences, and the peak
memory (VmHWM) of our whole process at ``--style-sizes`` (default 1M and 3M; arena-rank at
the first size only).

Part ``stylejsonl`` (issue 36): the read-floor's FastChat battles as JSON Lines (1M; with
``--memory-10m`` also 10M), whole processes: arena-rank from ``pandas.read_json(lines=True)``,
``arena fit --style-control`` and the plain ``arena fit --ci sandwich``, every battle
(``--all-votes``); prints the ratios beside their targets (at least 10x arena-rank, at most
2x the plain fit) and the 10M styled peak memory beside 600 MB.

Part ``style6`` is the same with six covariates: the four style features and two top-level
columns (``is_direct``, ``same_org``) as ``--covariate-column``s, arena-rank given all six.
One run at 100k on the shared machine (load 12 on 2 cores): ours 3.9 s whole process, arena-rank
13.1 s (3.3x; our process start-up dominates at that size), in process 22x.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import resource
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

N_MODELS = 150


def make_battles(n: int, path: Path, seed: int = 0) -> None:
    """``n`` simulated battles among 150 models, written as Parquet with string columns."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from builder.pairwise.battles import OUTCOMES
    from builder.pairwise.simulate import random_skills, simulate_battles

    sim = simulate_battles(random_skills(N_MODELS, seed=seed, spread=150.0), n, seed=seed + 1, tie_prob=0.1,
                           zipf_exponent=1.0)
    names = np.array(sim.models, dtype=object)
    table = pa.table({
        "model_a": pa.array(names[sim.model_a], pa.string()),
        "model_b": pa.array(names[sim.model_b], pa.string()),
        "winner": pa.array(np.array(OUTCOMES, dtype=object)[sim.outcome], pa.string()),
        "tstamp": pa.array(sim.tstamp),
        "anony": pa.array(sim.anony),
    })
    pq.write_table(table, path)


def peak_mb() -> float:
    """Peak resident memory of this process, MB.

    VmHWM, not ``ru_maxrss``: Linux carries ``ru_maxrss`` across fork + exec, so a child of
    a parent holding the simulated battles would report the parent's size.
    """
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024.0
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0  # KB on Linux; bytes on macOS


# --------------------------------------------------------------------------- the seed's method


def seed_compute_mle_elo(df, SCALE=400, BASE=10, INIT_RATING=1000):
    """The seed's formulation (FastChat ``compute_mle_elo``), written out for the comparison."""
    import pandas as pd
    from sklearn.linear_model import LogisticRegression

    ptbl_a_win = pd.pivot_table(df[df["winner"] == "model_a"], index="model_a", columns="model_b",
                                aggfunc="size", fill_value=0)
    ties = df[df["winner"].isin(["tie", "tie (bothbad)"])]
    ptbl_tie = pd.pivot_table(ties, index="model_a", columns="model_b", aggfunc="size", fill_value=0)
    ptbl_tie = ptbl_tie + ptbl_tie.T
    ptbl_b_win = pd.pivot_table(df[df["winner"] == "model_b"], index="model_a", columns="model_b",
                                aggfunc="size", fill_value=0)
    ptbl_win = ptbl_a_win * 2 + ptbl_b_win.T * 2 + ptbl_tie
    models = pd.Series(np.arange(len(ptbl_win.index)), index=ptbl_win.index)
    p = len(models)
    X = np.zeros([p * (p - 1) * 2, p])
    Y = np.zeros(p * (p - 1) * 2)
    cur_row = 0
    sample_weights = []
    for m_a in ptbl_win.index:
        for m_b in ptbl_win.columns:
            if m_a == m_b:
                continue
            if math.isnan(ptbl_win.loc[m_a, m_b]) or math.isnan(ptbl_win.loc[m_b, m_a]):
                continue
            X[cur_row, models[m_a]] = +math.log(BASE)
            X[cur_row, models[m_b]] = -math.log(BASE)
            Y[cur_row] = 1.0
            sample_weights.append(ptbl_win.loc[m_a, m_b])
            X[cur_row + 1, models[m_a]] = math.log(BASE)
            X[cur_row + 1, models[m_b]] = -math.log(BASE)
            Y[cur_row + 1] = 0.0
            sample_weights.append(ptbl_win.loc[m_b, m_a])
            cur_row += 2
    X = X[:cur_row]
    Y = Y[:cur_row]
    lr = LogisticRegression(fit_intercept=False, penalty=None, tol=1e-6)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        lr.fit(X, Y, sample_weight=sample_weights)
    elo_scores = SCALE * lr.coef_[0] + INIT_RATING
    return pd.Series(elo_scores, index=models.index)


def child_seed(path: str, rounds: int) -> dict:
    import pandas as pd

    t0 = time.perf_counter()
    df = pd.read_parquet(path)
    load = time.perf_counter() - t0
    t0 = time.perf_counter()
    ratings = seed_compute_mle_elo(df)
    fit = time.perf_counter() - t0
    per_round = None
    if rounds > 0:
        t0 = time.perf_counter()
        for _ in range(rounds):
            seed_compute_mle_elo(df.sample(frac=1.0, replace=True))
        per_round = (time.perf_counter() - t0) / rounds
    return {"load": load, "fit": fit, "per_round": per_round, "ratings": ratings.to_dict(), "peak_mb": peak_mb()}


# --------------------------------------------------------------------------- ours


class SeedStyleElo:
    """The seed's online-Elo object: one method call per battle, ratings in dicts, every
    model looked up by name (its benchmark also walks ``DataFrame.iterrows``; we do not)."""

    def __init__(self, initial_rating: float = 1000.0, k_factor: float = 4.0) -> None:
        self.initial_rating, self.k_factor = initial_rating, k_factor
        self.ratings: dict[str, float] = {}
        self.match_counts: dict[str, int] = {}
        self.win_counts: dict[str, float] = {}

    def get_rating(self, model: str) -> float:
        if model not in self.ratings:
            self.ratings[model] = self.initial_rating
            self.match_counts[model] = 0
            self.win_counts[model] = 0
        return self.ratings[model]

    def expected_score(self, rating_a: float, rating_b: float) -> float:
        return 1.0 / (1.0 + 10.0 ** ((rating_b - rating_a) / 400.0))

    def update_ratings(self, model_a: str, model_b: str, outcome: str) -> None:
        rating_a, rating_b = self.get_rating(model_a), self.get_rating(model_b)
        expected_a = self.expected_score(rating_a, rating_b)
        expected_b = 1.0 - expected_a
        if outcome == "model_a":
            score_a, score_b = 1.0, 0.0
            self.win_counts[model_a] += 1
        elif outcome == "model_b":
            score_a, score_b = 0.0, 1.0
            self.win_counts[model_b] += 1
        else:
            score_a = score_b = 0.5
            self.win_counts[model_a] += 0.5
            self.win_counts[model_b] += 0.5
        self.ratings[model_a] = rating_a + self.k_factor * (score_a - expected_a)
        self.ratings[model_b] = rating_b + self.k_factor * (score_b - expected_b)
        self.match_counts[model_a] += 1
        self.match_counts[model_b] += 1


def seed_style_elo(la: list[str], lb: list[str], lw: list[str]) -> dict[str, float]:
    elo = SeedStyleElo()
    for a, b, w in zip(la, lb, lw, strict=True):
        elo.update_ratings(a, b, w)
    return elo.ratings


def seed_elo_iterrows(la: list[str], lb: list[str], lw: list[str], limit: int = 100_000) -> float:
    """The seed's own driver (``compute_online_elo_leaderboard``: ``df.iterrows()`` feeding
    ``EloRatingSystem.update_ratings``), timed on the first ``limit`` battles and scaled
    linearly to all of them (the loop costs the same per row)."""
    import pandas as pd

    n = min(limit, len(la))
    df = pd.DataFrame({"model_a": la[:n], "model_b": lb[:n], "winner": lw[:n]})
    elo = SeedStyleElo()
    t0 = time.perf_counter()
    for _, row in df.iterrows():
        elo.update_ratings(row["model_a"], row["model_b"], row["winner"])
    return (time.perf_counter() - t0) * len(la) / n


def best(fn, repeat: int) -> float:
    """Best of ``repeat`` wall times: the machine is shared, the minimum is the cost."""
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def child_ours(path: str, rounds: list[int], elo_python: bool) -> dict:
    from builder.pairwise.battles import OUTCOMES
    from builder.pairwise.bootstrap import bootstrap_bt
    from builder.pairwise.bt import count_pairs, fit_bt
    from builder.pairwise.elo import fit_online_elo, online_elo_python, run_elo_codes
    from builder.pairwise.scan import read_battles

    # load the compiled loop for the dtypes battles have (int32 codes, int8 outcomes)
    run_elo_codes(("a", "b"), np.array([0], np.int32), np.array([1], np.int32), np.array([0], np.int8))
    t0 = time.perf_counter()
    battles = read_battles(path)
    load = time.perf_counter() - t0
    # Online Elo first, on a quiet machine: the Bradley-Terry fit's LAPACK solves leave
    # OpenBLAS threads spinning for a while, and on 2 cores they slow whatever runs next.
    elo_numba = best(lambda: fit_online_elo(battles), 9)
    t0 = time.perf_counter()
    counts = count_pairs(battles)
    fit = fit_bt(counts)
    t_fit = time.perf_counter() - t0
    out = {"load": load, "n_pairs": int(counts.i.size), "boot": {}, "elo_numba": elo_numba}
    out["peak_mb"] = peak_mb()  # the whole pipeline once: read, count, fit, Elo (before any bootstrap)
    out["fit"] = min(t_fit, best(lambda: fit_bt(count_pairs(battles)), 2))
    for r in rounds:
        out["boot"][str(r)] = best(lambda r=r: bootstrap_bt(counts, fit, r, seed=1), 2 if r <= 100 else 1)
    out["ratings"] = dict(zip(fit.models, fit.ratings.tolist(), strict=True))
    if elo_python:
        names = battles.models
        la = [names[k] for k in battles.model_a.tolist()]
        lb = [names[k] for k in battles.model_b.tolist()]
        lw = [OUTCOMES[k] for k in battles.outcome.tolist()]
        out["elo_python"] = best(lambda: online_elo_python(la, lb, lw), 3)
        ref, ours = online_elo_python(la, lb, lw), fit_online_elo(battles)
        out["elo_identical"] = all(ref[m][0] == ours.ratings[k] for k, m in enumerate(names) if m in ref)
        out["elo_seed_class"] = best(lambda: seed_style_elo(la, lb, lw), 1)
        out["elo_seed_iterrows"] = seed_elo_iterrows(la, lb, lw)
    return out


# --------------------------------------------------------------------------- style control (issue 16)


EXTRA_COVARIATES = ("is_direct", "same_org")
"Part ``style6``: two covariates beside the four style features (top-level Parquet columns)."


def make_styled_battles(n: int, path: Path, seed: int = 0, extra: bool = False) -> None:
    """``n`` battles with ``conv_metadata`` (a true length and bold effect), as Parquet; with
    ``extra`` also an ``is_direct`` flag (30% of battles) and a ``same_org`` 0/1 column (the
    two models' codes equal modulo 12)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from builder.pairwise.battles import OUTCOMES
    from builder.pairwise.simulate import StyleSpec, random_skills, simulate_battles

    sim = simulate_battles(random_skills(N_MODELS, seed=seed, spread=150.0), n, seed=seed + 1, tie_prob=0.1,
                           style=StyleSpec(effect={"tokens": 1.0, "bold": 0.3}))
    names = np.array(sim.models, dtype=object)
    fields: dict[str, pa.Array] = {}
    for side, x in (("a", sim.style_a), ("b", sim.style_b)):
        tok, head, bold, lists = (x[:, k] for k in range(4))
        h1 = head // 4
        h2 = (head - h1) // 2
        zero = pa.array(np.zeros(n, np.int64))
        fields[f"sum_assistant_{side}_tokens"] = pa.array(tok)
        fields[f"header_count_{side}"] = pa.StructArray.from_arrays(
            [pa.array(h1), pa.array(h2), pa.array(head - h1 - h2), zero, zero, zero],
            names=["h1", "h2", "h3", "h4", "h5", "h6"])
        fields[f"list_count_{side}"] = pa.StructArray.from_arrays(
            [pa.array(lists // 3), pa.array(lists - lists // 3)], names=["ordered", "unordered"])
        fields[f"bold_count_{side}"] = pa.StructArray.from_arrays(
            [pa.array(bold - bold // 5), pa.array(bold // 5)], names=["**", "__"])
    table = pa.table({
        "model_a": pa.array(names[sim.model_a], pa.string()),
        "model_b": pa.array(names[sim.model_b], pa.string()),
        "winner": pa.array(np.array(OUTCOMES, dtype=object)[sim.outcome], pa.string()),
        "tstamp": pa.array(sim.tstamp),
        "conv_metadata": pa.StructArray.from_arrays(list(fields.values()), names=list(fields)),
    })
    if extra:
        rng = np.random.default_rng(seed + 2)
        table = table.append_column("is_direct", pa.array(rng.random(n) < 0.3))
        table = table.append_column("same_org", pa.array((sim.model_a % 12 == sim.model_b % 12).astype(np.int8)))
    pq.write_table(table, path)


def child_arena_rank(path: str, extra: bool = False) -> dict:
    """arena-rank from the Parquet file to style-controlled ratings with sandwich intervals
    (``extra``: with the two extra covariate columns as features too)."""
    t_start = time.perf_counter()
    import pandas as pd
    from arena_rank.models.contextual_bradley_terry import ContextualBradleyTerry
    from arena_rank.utils.data_utils import ContextualPairDataset

    t_import = time.perf_counter() - t_start
    t0 = time.perf_counter()
    df = pd.read_json(path, lines=True) if path.endswith(".jsonl") else pd.read_parquet(path)
    load = time.perf_counter() - t0
    t0 = time.perf_counter()
    meta = df["conv_metadata"]
    keys = {"tokens": ("sum_assistant_a_tokens", "sum_assistant_b_tokens"),
            "headers": ("header_count_a", "header_count_b"),
            "bold": ("bold_count_a", "bold_count_b"), "lists": ("list_count_a", "list_count_b")}

    def count(v):
        return sum(v.values()) if isinstance(v, dict) else v

    cols = []
    for f, (ka, kb) in keys.items():
        xa = np.array([count(m[ka]) for m in meta], dtype=float)
        xb = np.array([count(m[kb]) for m in meta], dtype=float)
        den = xa + xb
        den[den == 0] = 1.0
        df[f] = (xa - xb) / den
        cols.append(f)
    if extra:
        for c in EXTRA_COVARIATES:
            df[c] = df[c].astype(float)
            cols.append(c)
    features = time.perf_counter() - t0
    t0 = time.perf_counter()
    ds = ContextualPairDataset.from_pandas(df, cols, reweighted=False)
    build = time.perf_counter() - t0
    model = ContextualBradleyTerry(n_competitors=len(ds.competitors), n_features=len(cols))
    t0 = time.perf_counter()
    model.fit(ds)
    np.asarray(model.params["ratings"])
    t_fit = time.perf_counter() - t0
    t0 = time.perf_counter()
    res = model.compute_ratings_and_cis(ds)
    lower = np.asarray(res["rating_lower"])
    sandwich = time.perf_counter() - t0
    return {"import": t_import, "load": load, "features": features, "build": build, "fit": t_fit, "sandwich": sandwich,
            "ratings": dict(zip(res["competitors"], np.asarray(res["ratings"]).tolist(), strict=False)),
            "lower": dict(zip(res["competitors"], lower.tolist(), strict=False)),
            "beta": np.asarray(res["coeffs"]).tolist(), "peak_mb": peak_mb()}


def child_ours_styled(path: str, extra: bool = False) -> dict:
    """Ours in process: one scan (battles and the conv_metadata feature columns, and with
    ``extra`` the two covariate columns), the styled table with sandwich intervals, then the
    fit + sandwich alone (best of 3)."""
    from builder.pairwise.arena_style import fit_styled_table
    from builder.pairwise.scan import covariate_spec, scan_battles
    from builder.pairwise.style import STYLE_FEATURES, contextual_columns, style_feature_specs
    from builder.pairwise.styled import build_style_dataset, fit_styled_bt, sandwich_styled

    covariates = [covariate_spec(c, column=c) for c in EXTRA_COVARIATES] if extra else []
    t0 = time.perf_counter()
    with scan_battles(path, features=[*style_feature_specs(STYLE_FEATURES), *covariates]) as scan:
        battles = scan.battles()
        styles = contextual_columns(scan, STYLE_FEATURES, [c.name for c in covariates])
    load = time.perf_counter() - t0
    t0 = time.perf_counter()
    table = fit_styled_table(battles, styles, ci="sandwich")
    whole_fit = time.perf_counter() - t0
    out = {"load": load, "fit_table": whole_fit, "peak_mb": peak_mb(),
           "ratings": {r["model"]: r["rating"] for r in table.rows},
           "lower": {r["model"]: r["lower"] for r in table.rows},
           "beta": [c["beta"] for c in table.style], "iterations": table.fit.iterations}
    use = np.flatnonzero(styles.usable)

    def fit_and_sandwich():
        ds = build_style_dataset(battles.models, battles.model_a[use], battles.model_b[use], battles.outcome[use],
                                 styles.raw[use], styles.features)
        sandwich_styled(ds, fit_styled_bt(ds))

    out["fit_sandwich"] = best(fit_and_sandwich, 3)
    return out


def run_timed(*args: str) -> tuple[dict, float]:
    t0 = time.perf_counter()
    res = run_child(*args)
    return res, time.perf_counter() - t0


def main_style(sizes: list[int], extra: bool = False) -> None:
    """Part ``style`` (``style6`` with ``extra``: six covariates, the four style features and
    ``EXTRA_COVARIATES``): whole processes from the same Parquet file, and in process."""
    six = ["--all-votes", *(a for c in EXTRA_COVARIATES for a in ("--covariate-column", f"{c}={c}"))] if extra else []
    print(f"style control{' with six covariates' if extra else ''}: {N_MODELS} models, conv_metadata in Parquet; "
          f"{load_note()} (a shared, loaded machine: ratios from one run)")
    flag = "1" if extra else "0"
    with tempfile.TemporaryDirectory() as tmp:
        for k, n in enumerate(sizes):
            path = Path(tmp) / f"styled_{n}.parquet"
            make_styled_battles(n, path, extra=extra)
            if k == 0:  # warm the compiled kernels' cache (a fresh clone compiles once, then reuses it)
                run_process(FIT_CHILD, "--input", str(path), "--style-control", *six, "--output",
                            str(Path(tmp) / "w.json"))
            wall, peak = run_process(FIT_CHILD, "--input", str(path), "--style-control", *six, "--output",
                                     str(Path(tmp) / "ours.json"))
            ours = run_child("ours-styled", str(path), flag)
            print(f"\n{n:,} battles: ours whole process (arena fit --style-control, sandwich) {wall:.2f} s, "
                  f"peak {peak:.0f} MB; in process: scan {ours['load']:.2f} s, fit + sandwich + table "
                  f"{ours['fit_table']:.3f} s; fit + sandwich alone {ours['fit_sandwich']:.3f} s "
                  f"({ours['iterations']} Newton steps)")
            if k == 0:
                theirs, their_wall = run_timed("arena-rank", str(path), flag)
                inproc = theirs["build"] + theirs["fit"] + theirs["sandwich"]
                print(f"  arena-rank whole process {their_wall:.2f} s (import {theirs['import']:.2f}, read_parquet "
                      f"{theirs['load']:.2f}, features {theirs['features']:.2f}, dataset build {theirs['build']:.2f}, "
                      f"fit {theirs['fit']:.2f}, sandwich {theirs['sandwich']:.2f} s); peak {theirs['peak_mb']:.0f} MB")
                print(f"  ratio whole process: {their_wall / wall:.1f}x (target >= 5x); in process "
                      f"(its build + fit + sandwich vs our fit + sandwich): {inproc / ours['fit_sandwich']:.0f}x "
                      "(target >= 20x)")
                dr = max(abs(ours["ratings"][m] - theirs["ratings"][m]) for m in theirs["ratings"])
                dl = max(abs(ours["lower"][m] - theirs["lower"][m]) for m in theirs["lower"])
                db = max(abs(a - b) for a, b in zip(ours["beta"], theirs["beta"], strict=False))
                print(f"  max |difference| vs arena-rank (its default tolerances): rating {dr:.3f}, lower bound "
                      f"{dl:.3f} points, beta {db:.2e}")
            if n >= 3_000_000:
                verdict = "yes" if peak < 1024 else "NO"
                print(f"  peak memory of the whole process at {n:,} styled battles under 1 GB: {verdict}")


def _with_cpu(fn, *args):
    """(fn(*args), CPU seconds its child processes used: user + system, threads included)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    out = fn(*args)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return out, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


STYLE_JSONL_TARGETS = (10.0, 2.0)
"Part ``stylejsonl``: ours at least 10x arena-rank, and at most 2x our plain fit, whole processes."


def stylejsonl_part(cache: Path, n: int, memory_10m: bool) -> None:
    """Part ``stylejsonl``: FastChat battles with ``conv_metadata`` as JSON Lines (the read-floor
    files); whole processes, each timed from start to exit with its peak memory (VmHWM):
    arena-rank (``pandas.read_json(lines=True)``, the four features from the metadata dicts,
    ``ContextualBradleyTerry`` fit and sandwich), ``arena fit --style-control`` (sandwich) and
    ``arena fit --ci sandwich`` (the plain fit with the same kind of interval), all on every
    battle (``--all-votes``, as arena-rank takes them). ``memory_10m``: also 10M battles,
    both of ours once (peak memory of the styled fit, target under 600 MB with the default
    512 MB DuckDB limit)."""
    print(f"\nStyle control from JSON Lines: arena-rank vs arena fit --style-control vs arena fit --ci sandwich, "
          f"whole processes, {N_MODELS} models; {load_note()} at the start")
    files = make_fastchat_files(n, cache, formats=("jsonl",))
    path = files["jsonl"]
    styled_args = ["--input", str(path), "--all-votes", "--style-control", "--output", str(cache / "styled.json")]
    plain_args = ["--input", str(path), "--all-votes", "--ci", "sandwich", "--output", str(cache / "plain.json")]
    _read_through(path)
    run_process(FIT_CHILD, *styled_args)  # warm the compiled kernels' cache (a fresh clone compiles once)
    (sw, sm), sc = _with_cpu(run_process, FIT_CHILD, *styled_args)
    (pw, pm), pc = _with_cpu(run_process, FIT_CHILD, *plain_args)
    (theirs, tw), tc = _with_cpu(run_timed, "arena-rank", str(path), "0")
    ours = json.loads((cache / "styled.json").read_text())
    rating = {r["model"]: r["rating"] for r in ours["rows"]}
    dr = max(abs(rating[m] - v) for m, v in theirs["ratings"].items() if m in rating)
    db = max(abs(a["beta"] - b) for a, b in zip(ours["style"], theirs["beta"], strict=False))
    size = path.stat().st_size
    # CPU s: user + system time of the whole process (threads included), steadier than the
    # wall time when other work shares the cores; the ratios are given for both.
    print(f"{'battles':>9} | {'file MB':>7} | {'process':<36} | {'wall s':>6} | {'CPU s':>6} | {'peak MB':>7} | "
          "ratio wall / CPU | target")
    print("-" * 118)
    print(f"{n:>9} | {size / 1e6:>7.0f} | {'arena-rank (ContextualBradleyTerry)':<36} | {tw:>6.2f} | {tc:>6.2f} | "
          f"{theirs['peak_mb']:>7.0f} |                  |")
    ten, two = STYLE_JSONL_TARGETS
    print(f"{n:>9} | {size / 1e6:>7.0f} | {'arena fit --style-control':<36} | {sw:>6.2f} | {sc:>6.2f} | {sm:>7.0f} | "
          f"{tw / sw:>5.1f}x / {tc / sc:>5.1f}x | >= {ten:.0f}x arena-rank: {'yes' if tw / sw >= ten else 'NO'} / "
          f"{'yes' if tc / sc >= ten else 'NO'}")
    print(f"{n:>9} | {size / 1e6:>7.0f} | {'arena fit --ci sandwich (plain)':<36} | {pw:>6.2f} | {pc:>6.2f} | "
          f"{pm:>7.0f} | {sw / pw:>5.2f}x / {sc / pc:>4.2f}x | styled <= {two:.0f}x plain: "
          f"{'yes' if sw / pw <= two else 'NO'} / {'yes' if sc / pc <= two else 'NO'}")
    print(f"  arena-rank: import {theirs['import']:.2f}, read_json {theirs['load']:.2f}, features "
          f"{theirs['features']:.2f}, dataset build {theirs['build']:.2f}, fit {theirs['fit']:.2f}, sandwich "
          f"{theirs['sandwich']:.2f} s; max |difference| (its default tolerances): rating {dr:.3f} points, "
          f"beta {db:.2e}")
    if memory_10m:
        big = make_fastchat_files(10_000_000, cache, formats=("jsonl",))["jsonl"]
        _read_through(big)
        args = ["--input", str(big), "--all-votes", "--output", str(cache / "big.json")]
        (bw, bm), bc = _with_cpu(run_process, FIT_CHILD, *args[:3], "--style-control", *args[3:])
        (qw, qm), qc = _with_cpu(run_process, FIT_CHILD, *args[:3], "--ci", "sandwich", *args[3:])
        size = big.stat().st_size
        print(f"{10_000_000:>9} | {size / 1e6:>7.0f} | {'arena fit --style-control':<36} | {bw:>6.2f} | {bc:>6.2f} | "
              f"{bm:>7.0f} |                  | peak < {MEMORY_TARGET_MB:.0f} MB (512 MB limit): "
              f"{'yes' if bm < MEMORY_TARGET_MB else 'NO'}")
        print(f"{10_000_000:>9} | {size / 1e6:>7.0f} | {'arena fit --ci sandwich (plain)':<36} | {qw:>6.2f} | "
              f"{qc:>6.2f} | {qm:>7.0f} | {bw / qw:>5.2f}x / {bc / qc:>4.2f}x |")
    print(f"  {load_note()} at the end")


def run_child(*args: str) -> dict:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    res = subprocess.run([sys.executable, __file__, "--child", *args], capture_output=True, text=True, env=env,
                         check=False)
    if res.returncode != 0:
        raise SystemExit(res.stderr)
    return json.loads(res.stdout.strip().splitlines()[-1])


# --------------------------------------------------------------------------- the read floor

FLOOR_TARGETS = {1_000_000: 2.0, 3_000_000: 1.5}  # arena fit / floor, whole processes
MEMORY_TARGET_MB = 600.0


def make_fastchat_files(n: int, folder: Path, seed: int = 0,
                        formats: tuple[str, ...] = ("parquet", "jsonl", "json")) -> dict[str, Path]:
    """``n`` FastChat clean_battle rows as Parquet, JSON Lines and a JSON array (made once)."""
    folder.mkdir(parents=True, exist_ok=True)
    out = {fmt: folder / f"battles_{n}.{fmt}" for fmt in ("parquet", *formats)}
    if all(p.exists() for p in out.values()):
        return out
    import duckdb
    import pyarrow as pa
    import pyarrow.parquet as pq

    from builder.pairwise.battles import OUTCOMES
    from builder.pairwise.simulate import random_skills, simulate_battles

    skills = random_skills(N_MODELS, seed=seed, spread=150.0)
    tmp = out["parquet"].with_suffix(".parquet.part")
    chunk = 1_000_000
    with pq.ParquetWriter(tmp, _fastchat_schema()) as writer:
        t_start = 1_700_000_000.0
        for k, start in enumerate(range(0, n, chunk)):
            m = min(chunk, n - start)
            sim = simulate_battles(skills, m, seed=seed + 1 + k, tie_prob=0.1, anony_share=0.85)
            rng = np.random.default_rng(seed + 1000 + k)
            names = np.array(sim.models, dtype=object)

            def counts(lam: float, keys: list[str], rng=rng, m=m) -> pa.StructArray:
                return pa.StructArray.from_arrays([pa.array(rng.poisson(lam, m)) for _ in keys], names=keys)

            tok_a, tok_b = rng.integers(5, 1500, m), rng.integers(5, 1500, m)
            meta = pa.StructArray.from_arrays(
                [pa.array(tok_a), pa.array(tok_b),
                 counts(0.3, ["h1", "h2", "h3", "h4", "h5", "h6"]), counts(1.0, ["ordered", "unordered"]),
                 counts(2.0, ["**", "__"]), counts(0.3, ["h1", "h2", "h3", "h4", "h5", "h6"]),
                 counts(1.0, ["ordered", "unordered"]), counts(2.0, ["**", "__"])],
                names=["sum_assistant_a_tokens", "sum_assistant_b_tokens", "header_count_a", "list_count_a",
                       "bold_count_a", "header_count_b", "list_count_b", "bold_count_b"])
            table = pa.table({
                "model_a": pa.array(names[sim.model_a], pa.string()),
                "model_b": pa.array(names[sim.model_b], pa.string()),
                "winner": pa.array(np.array(OUTCOMES, dtype=object)[sim.outcome], pa.string()),
                "turn": pa.array(rng.integers(1, 4, m)),
                "anony": pa.array(sim.anony),
                "language": pa.array(np.array(["English", "Chinese", "German", "Russian"], dtype=object)[
                    rng.choice(4, m, p=[0.7, 0.15, 0.1, 0.05])]),
                "tstamp": pa.array(np.round(t_start + np.sort(rng.uniform(0, 86_400.0 * 30, m)), 3)),
                "conv_metadata": meta,
                "dedup_tag": pa.StructArray.from_arrays([pa.array(rng.random(m) < 0.1), pa.array(rng.random(m) < 0.9)],
                                                        names=["high_freq", "sampled"]),
            }, schema=_fastchat_schema())
            writer.write_table(table, row_group_size=131_072)
            t_start += 86_400.0 * 30
    con = duckdb.connect(config={"memory_limit": "3GB", "preserve_insertion_order": True, "threads": 2})
    for fmt, extra in (("jsonl", ""), ("json", ", ARRAY true")):
        if fmt not in formats:
            continue
        part = out[fmt].with_suffix(f".{fmt}.part")
        con.execute(f"COPY (SELECT * FROM read_parquet('{tmp}')) TO '{part}' (FORMAT json{extra})")
        os.replace(part, out[fmt])
    os.replace(tmp, out["parquet"])
    return out


def _fastchat_schema():
    import pyarrow as pa

    def counts(keys):
        return pa.struct([(k, pa.int64()) for k in keys])

    heads, lists, bold = ["h1", "h2", "h3", "h4", "h5", "h6"], ["ordered", "unordered"], ["**", "__"]
    meta = pa.struct([("sum_assistant_a_tokens", pa.int64()), ("sum_assistant_b_tokens", pa.int64()),
                      *((f"{kind}_count_{side}", counts(keys)) for side in "ab"
                        for kind, keys in (("header", heads), ("list", lists), ("bold", bold)))])
    return pa.schema([("model_a", pa.string()), ("model_b", pa.string()), ("winner", pa.string()),
                      ("turn", pa.int64()), ("anony", pa.bool_()), ("language", pa.string()),
                      ("tstamp", pa.float64()), ("conv_metadata", meta),
                      ("dedup_tag", pa.struct([("high_freq", pa.bool_()), ("sampled", pa.bool_())]))])


_HWM = ("import atexit, sys\n"
        "def _hwm():\n"
        "    for line in open('/proc/self/status'):\n"
        "        if line.startswith('VmHWM:'):\n"
        "            sys.stderr.write('VMHWM_KB ' + line.split()[1] + '\\n')\n"
        "atexit.register(_hwm)\n")

FLOOR_CHILD = _HWM + """
import duckdb
path = sys.argv[1]
src = f"read_parquet('{path}')" if path.endswith('.parquet') else f"read_json_auto('{path}')"
rows = duckdb.sql(f"SELECT model_a, model_b, winner, count(*) FROM {src} GROUP BY ALL").fetchall()
print(len(rows))
"""

FIT_CHILD = _HWM + """
from builder.cli import main
sys.argv = ['modelboards', 'arena', 'fit', *sys.argv[1:]]
main()
"""


def run_process(code: str, *args: str) -> tuple[float, float]:
    """(wall seconds, peak MB) of one whole Python process running ``code``."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    t0 = time.perf_counter()
    res = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, env=env, check=False)
    wall = time.perf_counter() - t0
    if res.returncode != 0:
        raise SystemExit(f"child failed ({args}):\n{res.stderr[-2000:]}")
    peak = [int(line.split()[1]) for line in res.stderr.splitlines() if line.startswith("VMHWM_KB ")]
    return wall, (peak[-1] / 1024.0 if peak else float("nan"))


def load_note() -> str:
    try:
        one, five, fifteen = os.getloadavg()
        return f"load average {one:.1f} / {five:.1f} / {fifteen:.1f} on {os.cpu_count()} cores"
    except OSError:  # pragma: no cover
        return "load average unknown"


def floor_part(sizes: list[int], cache: Path, reps: int, memory_10m: bool,
               formats: tuple[str, ...] = ("json", "jsonl", "parquet")) -> None:
    print(f"\nRead floor: arena fit --bootstrap 100 vs the bare DuckDB GROUP BY, whole processes, median of {reps}; "
          f"{load_note()} at the start")
    rows = []
    for n in sizes:
        files = make_fastchat_files(n, cache)
        for fmt in formats:
            path = files[fmt]
            out = cache / f"fit_{n}_{fmt}.json"
            floor_runs, plain_runs, ours_runs = [], [], []
            _read_through(path)
            for _ in range(reps):  # interleaved, so all three see the same load
                floor_runs.append(run_process(FLOOR_CHILD, str(path)))
                plain_runs.append(run_process(FIT_CHILD, "--input", str(path), "--output", str(out)))
                ours_runs.append(run_process(FIT_CHILD, "--input", str(path), "--bootstrap", "100",
                                             "--output", str(out)))
            rows.append((n, fmt, path.stat().st_size, _median(floor_runs), _median(plain_runs), _median(ours_runs)))
    # "fit s": the same command without the bootstrap (read, count, fit, write), which shows
    # how much of the ratio is reading and how much is the 100 rounds.
    print(f"{'battles':>9} | {'format':<10} | {'MB':>6} | {'B/battle':>8} | {'floor s':>7} | {'floor MB':>8} | "
          f"{'fit s':>5} | {'ratio':>6} | {'fit+100 s':>9} | {'fit MB':>6} | {'ratio':>6} | target")
    print("-" * 118)
    for n, fmt, size, (fw, fm), (pw, _), (ow, om) in rows:
        target = FLOOR_TARGETS.get(n)
        ok = "" if target is None else f"<= {target}x: {'yes' if ow / fw <= target else 'NO'}"
        name = {"json": "JSON array", "jsonl": "JSON Lines", "parquet": "Parquet"}[fmt]
        print(f"{n:>9} | {name:<10} | {size / 1e6:>6.0f} | {size / n:>8.0f} | {fw:>7.2f} | {fm:>8.0f} | {pw:>5.2f} | "
              f"{pw / fw:>5.2f}x | {ow:>9.2f} | {om:>6.0f} | {ow / fw:>5.2f}x | {ok}")
    if memory_10m:
        n = 10_000_000
        files = make_fastchat_files(n, cache, formats=("jsonl",))
        out = cache / "fit_10m.json"
        _read_through(files["jsonl"])  # one run each: both must find the 5 GB file in the page cache
        fw, fm = run_process(FLOOR_CHILD, str(files["jsonl"]))
        ow, om = run_process(FIT_CHILD, "--input", str(files["jsonl"]), "--bootstrap", "100", "--output", str(out))
        size = files["jsonl"].stat().st_size
        verdict = "yes" if om < MEMORY_TARGET_MB else "NO"
        print(f"{n:>9} | {'JSON Lines':<10} | {size / 1e6:>6.0f} | {size / n:>8.0f} | {fw:>7.2f} | {fm:>8.0f} | "
              f"{'-':>5} | {'-':>6} | {ow:>9.2f} | {om:>6.0f} | {ow / fw:>5.2f}x | peak < {MEMORY_TARGET_MB:.0f} MB "
              f"(512 MB limit): {verdict}")
    print("floor: python -c 'import duckdb; SELECT model_a, model_b, winner, count(*) FROM read_json_auto/read_parquet "
          f"GROUP BY ALL'; fit: modelboards arena fit (DuckDB scan, counts, Newton, the ratings file), fit+100: the "
          f"same with --bootstrap 100 (100 multinomial rounds, refitted); "
          f"MB = peak resident memory (VmHWM) of the whole process; {load_note()} at the end")


def _read_through(path: Path) -> None:
    """Read a file once, so the timed runs after it all find it in the page cache."""
    with path.open("rb") as f:
        while f.read(1 << 23):
            pass


def _median(runs: list[tuple[float, float]]) -> tuple[float, float]:
    walls = sorted(r[0] for r in runs)
    return walls[len(walls) // 2], max(r[1] for r in runs)


def steady_part(cache: Path, n: int = 1_000_000) -> None:
    from builder.pairwise.bootstrap import bootstrap_bt
    from builder.pairwise.bt import fit_bt
    from builder.pairwise.scan import count_battles

    files = make_fastchat_files(n, cache)
    counts, _ = count_battles(files["parquet"])
    print(f"\nSteady fits: fit_bt + 100 bootstrap rounds on {n} battles' pair counts ({counts.i.size} pairs), BLAS "
          f"pinned to one thread, five runs with a CPU-bound process on another core; {load_note()}")
    # workers=1: the rounds in this process; None: what `arena fit` does (a pool of all cores
    # for a job this size), which then shares the busy core.
    for label, workers in (("in this process", 1), ("default (pool of all cores)", None)):
        busy = subprocess.Popen([sys.executable, "-c", "while True: pass"])
        try:
            times = []
            for _ in range(5):
                t0 = time.perf_counter()
                fit = fit_bt(counts)
                bootstrap_bt(counts, fit, 100, seed=1, workers=workers)
                times.append(time.perf_counter() - t0)
        finally:
            busy.kill()
            busy.wait()
        spread = max(times) / min(times)
        print(f"  {label}: " + ", ".join(f"{t:.3f}" for t in times)
              + f" s; spread {spread:.2f}x (target <= 1.5x: {'yes' if spread <= 1.5 else 'NO'})")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="100000,1000000")
    ap.add_argument("--with-3m", action="store_true", help="also 3M battles (ours + the seed's fit alone)")
    ap.add_argument("--seed-rounds", type=int, default=2, help="seed bootstrap rounds timed (then extrapolated)")
    ap.add_argument("--parts", default="seed,floor,steady,style",
                    help="which parts to run (seed, floor, steady, style, style6: six covariates, "
                         "stylejsonl: style control from JSON Lines against arena-rank and the plain fit)")
    ap.add_argument("--floor-sizes", default="1000000,3000000", help="battles per file for the read-floor part")
    ap.add_argument("--memory-10m", action="store_true",
                    help="also 10M battles in JSON Lines: peak memory of arena fit (floor, stylejsonl)")
    ap.add_argument("--cache", default=None, help="folder for the generated files (default: a temp folder, removed)")
    ap.add_argument("--formats", default="json,jsonl,parquet", help="read-floor formats (json, jsonl, parquet)")
    ap.add_argument("--reps", type=int, default=3, help="runs per process in the read-floor part (median)")
    ap.add_argument("--quick", action="store_true", help="small sizes everywhere (100k and 300k), one rep")
    ap.add_argument("--style-sizes", default="1000000,3000000",
                    help="battles per file for the style part (arena-rank at the first size only)")
    ap.add_argument("--child", nargs="+", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        kind, path, *rest = args.child
        if kind == "arena-rank":
            print(json.dumps(child_arena_rank(path, bool(rest) and rest[0] == "1")))
        elif kind == "ours-styled":
            print(json.dumps(child_ours_styled(path, bool(rest) and rest[0] == "1")))
        elif kind == "seed":
            print(json.dumps(child_seed(path, int(rest[0]))))
        else:
            print(json.dumps(child_ours(path, [int(x) for x in rest[0].split(",") if x], rest[1] == "1")))
        return

    parts = set(args.parts.split(","))
    if args.quick:
        args.sizes, args.floor_sizes, args.reps, args.with_3m = "100000", "100000,300000", 1, False
    print(f"{N_MODELS} models, Zipf popularity, 10% ties; {os.cpu_count()} cores; Python {sys.version.split()[0]}; "
          f"{load_note()}")
    with tempfile.TemporaryDirectory() as tmp:
        cache = Path(args.cache) if args.cache else Path(tmp)
        if "floor" in parts:
            floor_part([int(x) for x in args.floor_sizes.split(",") if x], cache, args.reps, args.memory_10m,
                       tuple(args.formats.split(",")))
        if "steady" in parts:
            steady_part(cache, 100_000 if args.quick else 1_000_000)
        if "stylejsonl" in parts:
            stylejsonl_part(cache, 100_000 if args.quick else 1_000_000, args.memory_10m)
    if "seed" in parts:
        seed_part(args)
    if "style" in parts:
        print()
        main_style([100_000] if args.quick else [int(x) for x in args.style_sizes.split(",")])
    if "style6" in parts:
        print()
        main_style([100_000] if args.quick else [int(x) for x in args.style_sizes.split(",")], extra=True)


def seed_part(args) -> None:
    sizes = [int(s) for s in args.sizes.split(",")]
    if args.with_3m:
        sizes.append(3_000_000)
    print()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for n in sizes:
            path = Path(tmp) / f"battles_{n}.parquet"
            make_battles(n, path)
            big = n >= 3_000_000
            seed = run_child("seed", str(path), "0" if big else str(args.seed_rounds))
            ours = run_child("ours", str(path), "" if big else "100,1000", "0" if big else "1")
            diff = max(abs(ours["ratings"][m] - seed["ratings"][m]) for m in seed["ratings"])
            rows.append((n, seed, ours, diff))

    def f(x, fmt="{:.2f}"):
        return "-" if x is None else fmt.format(x)

    print()
    print(f"{'battles':>9} | {'method':<5} | {'load s':>7} | {'fit s':>7} | {'fit+100 s':>9} | {'fit+1000 s':>10} | "
          f"{'peak MB':>7} | {'elo s':>7}")
    print("-" * 88)
    for n, seed, ours, diff in rows:
        seed100 = None if seed["per_round"] is None else seed["fit"] + 100 * seed["per_round"]
        seed1000 = None if seed["per_round"] is None else seed["fit"] + 1000 * seed["per_round"]
        print(f"{n:>9} | {'seed':<5} | {f(seed['load']):>7} | {f(seed['fit']):>7} | {f(seed100, '~{:.0f}'):>9} | "
              f"{f(seed1000, '~{:.0f}'):>10} | {f(seed['peak_mb'], '{:.0f}'):>7} | "
              f"{f(ours.get('elo_python'), '{:.3f}'):>7}")
        o100 = None if "100" not in ours["boot"] else ours["fit"] + ours["boot"]["100"]
        o1000 = None if "1000" not in ours["boot"] else ours["fit"] + ours["boot"]["1000"]
        print(f"{'':>9} | {'ours':<5} | {f(ours['load']):>7} | {f(ours['fit'], '{:.3f}'):>7} | {f(o100):>9} | "
              f"{f(o1000):>10} | {f(ours['peak_mb'], '{:.0f}'):>7} | {f(ours['elo_numba'], '{:.4f}'):>7}")
        ratio_fit = seed["fit"] / ours["fit"]
        ratio100 = None if seed100 is None or o100 is None else seed100 / o100
        elo_ratio = None if "elo_python" not in ours else ours["elo_python"] / ours["elo_numba"]
        print(f"{'':>9} | ratio | {'':>7} | {ratio_fit:>6.0f}x | {f(ratio100, '{:.0f}x'):>9} | {'':>10} | "
              f"{seed['peak_mb'] / ours['peak_mb']:>6.1f}x | {f(elo_ratio, '{:.0f}x'):>7}")
        print(f"{'':>9} | max |rating difference| ours vs seed: {diff:.3f} points; pairs {ours['n_pairs']}")
        if "elo_python" in ours:
            e = ours["elo_numba"]
            print(f"{'':>9} | online Elo: numba {e:.4f} s; plain Python loop {ours['elo_python']:.3f} s "
                  f"({ours['elo_python'] / e:.0f}x); seed-style object loop {ours['elo_seed_class']:.3f} s "
                  f"({ours['elo_seed_class'] / e:.0f}x); the seed's iterrows driver ~{ours['elo_seed_iterrows']:.1f} s "
                  f"({ours['elo_seed_iterrows'] / e:.0f}x); numba = Python loop bit for bit: "
                  f"{'yes' if ours['elo_identical'] else 'NO'}")
        if o1000 is not None:
            verdict = "yes" if o1000 < seed["fit"] else "NO"
            print(f"{'':>9} | ours fit + 1000 rounds ({o1000:.2f} s) faster than the seed's fit alone "
                  f"({seed['fit']:.2f} s): {verdict}")
        print("-" * 88)
    print("elo s: seed row = plain Python loop over model names; ours = fit_online_elo (numba over codes).")
    print("ours: best of 2-3 runs (shared machine; online Elo best of 9, its Python loop best of 3); "
          "peak MB measured after read + count + fit + Elo.")
    print("seed fit+100 / fit+1000 are extrapolated from "
          f"{args.seed_rounds} timed bootstrap rounds; peak MB = VmHWM of the whole process.")


if __name__ == "__main__":
    main()
