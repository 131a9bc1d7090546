"""Bootstrap benchmark (not a timed test): what the boards' uncertainty adds to scoring.

A synthetic world of N models (100 to 5,000 by default) with the shipped site.yml (families, roles, five boards;
Arena text and coding with intervals, Epoch, Aider, four LiveBench feeds, Terminal-Bench,
token and build prices, licences) as parsed records, scored in one run with the bootstrap off
(``rounds: 0``) and on (B = 1,000), each the best of ``--repeat`` runs:

- the score stage as ``modelboards score`` runs it after parsing: selection and identities,
  the role boards, the Capability Index and the snapshot's assembly and validation
  (``compute_snapshot``; no battles or eval files: no Arena page or suites);
- the role boards alone (``compute_scored_boards``), the strictest comparison.

Prints the times, what the bootstrap adds, and the ratios added / rest at each size; the
score-stage ratio in CPU time must stay below 1 at every size (the role-board ratio is
printed beside it). Wall times are printed too, but on a shared machine they mostly measure
the wait for a core. With ``--recompute`` it also times the standard-library re-derivation
of the bootstrap (``recompute.py``; ``bench_verify.py`` times the whole verify step).

    python tests/bench/bench_uncertainty.py [--models 100 400 500 1000 5000] [--rounds 1000] [--repeat 5]
"""

from __future__ import annotations

import argparse
import gc
import importlib.util
import json
import os
import sys
import time
from datetime import UTC, date, datetime
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from builder.config import load_config  # noqa: E402
from builder.evidence.export import compute_boards_evidence  # noqa: E402
from builder.records import BuildCheck, ModelInfo, Observation, Price  # noqa: E402
from builder.scoring.boards import ScoringInputs, compute_scored_boards, compute_snapshot  # noqa: E402
from builder.scoring.select import identify, select_observations  # noqa: E402

LIMIT = 1.0
NOW = datetime(2026, 11, 30, 6, 45, tzinfo=UTC)
DAY = date(2026, 11, 20)
# feed, source, evaluator, (intercept, slope per Arena point, noise), share of models rated, percent
FEEDS = [
    ("arena/coding", "arena", "lmarena", (20.0, 1.0, 12.0), 0.85, False),
    ("epoch/eci", "epoch", "epoch", (-250.0, 0.3, 6.0), 0.6, False),
    ("aider/polyglot", "aider", "aider", (-330.0, 0.28, 9.0), 0.5, True),
    ("livebench/global", "livebench", "livebench", (-300.0, 0.26, 5.0), 0.7, True),
    ("livebench/coding", "livebench", "livebench", (-290.0, 0.26, 6.0), 0.7, True),
    ("livebench/instruction_following", "livebench", "livebench", (-250.0, 0.24, 6.0), 0.7, True),
    ("livebench/data_analysis", "livebench", "livebench", (-280.0, 0.25, 7.0), 0.7, True),
    ("terminal-bench/accuracy", "terminal-bench", "terminal-bench", (-360.0, 0.3, 8.0), 0.35, True),
]


def make_parsed(n: int, seed: int = 4) -> ScoringInputs:
    """``n`` models as parsed records (no identity, nothing selected yet): every one on Arena
    text, the other feeds by their share, and for some a second, lower configuration."""
    rng = np.random.default_rng(seed)
    obs: list[Observation] = []
    prices: list[Price] = []
    checks: list[BuildCheck] = []
    infos: list[ModelInfo] = []
    for i in range(n):
        ident = f"model-{i:04}"
        q = float(rng.normal(1300, 70))
        sd = float(rng.uniform(3, 12))
        rating = q + float(rng.normal(0, sd))
        obs.append(Observation("arena", "arena/text", "lmarena", ident, rating, DAY, "https://example.org/a",
                               release=DAY.isoformat(),
                               details={"rating_q025": rating - 1.96 * sd, "rating_q975": rating + 1.96 * sd}))
        for feed, source, evaluator, (a, b, s), share, pct in FEEDS:
            if rng.random() > share:
                continue
            raw = a + b * q + float(rng.normal(0, s))
            raw = min(max(raw, 0.5), 99.5) if pct else raw
            details = {}
            if source == "arena":
                details = {"rating_q025": raw - 1.96 * sd * 1.3, "rating_q975": raw + 1.96 * sd * 1.3}
            release = DAY.isoformat() if source in ("arena", "livebench") else ""
            obs.append(Observation(source, feed, evaluator, ident, raw, DAY, f"https://example.org/{source}",
                                   release=release, percent=pct, details=details))
            if source != "arena" and rng.random() < 0.3:  # a second configuration: selection keeps the best
                obs.append(Observation(source, feed, evaluator, f"{ident}-low", raw - 1.0, DAY,
                                       f"https://example.org/{source}/low", release=release, percent=pct))
        if rng.random() < 0.8:
            inp = float(10 ** rng.uniform(-8, -5.3))
            out = inp * 4
            prices.append(Price("litellm", f"prov/{ident}", ident, inp, out, 1e6 * (0.75 * inp + 0.25 * out), DAY))
        if rng.random() < 0.25:
            checks.append(BuildCheck("piratebench", "e1", True, ident, bool(rng.random() < 0.8),
                                     round(float(rng.uniform(0.05, 3.0)), 3), DAY))
        infos.append(ModelInfo("arena-catalog", ident, licence="MIT" if rng.random() < 0.4 else "Proprietary"))
    return ScoringInputs(tuple(obs), tuple(prices), tuple(checks), tuple(infos), {}, {})


def select(parsed: ScoringInputs, cfg) -> ScoringInputs:
    """Selection and identities, as ``gather_inputs`` does after parsing."""
    return ScoringInputs(tuple(select_observations(parsed.observations, cfg)), tuple(identify(parsed.prices, cfg)),
                         tuple(identify(parsed.build_checks, cfg)), tuple(identify(parsed.models, cfg)), {}, {})


def score_stage(parsed: ScoringInputs, cfg):
    return compute_snapshot(select(parsed, cfg), cfg, NOW, None)


def best_of(fn, repeat: int) -> tuple[float, float, object]:
    """(best wall seconds, best CPU seconds, result); every run starts after a full garbage
    collection, so that one run does not pay for the garbage of the one before."""
    wall = cpu = float("inf")
    out = None
    for _ in range(repeat):
        gc.collect()
        t0, c0 = time.perf_counter(), time.process_time()
        out = fn()
        wall, cpu = min(wall, time.perf_counter() - t0), min(cpu, time.process_time() - c0)
    return wall, cpu, out


def bench(n: int, cfg, rounds: int, repeat: int, recompute: bool) -> tuple[float, bool]:
    """Print one size's figures; (the score-stage CPU ratio added / rest, recompute exact)."""
    off = cfg.model_copy(update={"uncertainty": cfg.uncertainty.model_copy(update={"rounds": 0})})
    on = cfg.model_copy(update={"uncertainty": cfg.uncertainty.model_copy(update={"rounds": rounds})})
    parsed = make_parsed(n)
    selected = select(parsed, on)
    compute_scored_boards(selected, on, NOW, None)  # warm-up: loads the compiled kernels
    stage_off = best_of(lambda: score_stage(parsed, off), repeat)
    stage_on = best_of(lambda: score_stage(parsed, on), repeat)
    boards_off = best_of(lambda: compute_scored_boards(selected, off, NOW, None), repeat)
    boards_on = best_of(lambda: compute_scored_boards(selected, on, NOW, None), repeat)
    snap = stage_on[2]
    boards = [(b.id, len(b.rows), len(b.new)) for b in snap.boards]
    print(f"\n{n} models, boards (ranked+new): " + ", ".join(f"{i} {r}+{k}" for i, r, k in boards))
    print(f"draws per round: {snap.uncertainty.draws_per_round}, rounds: {rounds}")
    print(f"{'':<34} {'wall s':>8} {'cpu s':>8}")
    ratios = {}
    pairs = (("score stage", stage_off, stage_on), ("role boards", boards_off, boards_on))
    for label, (w0, c0, _), (w1, c1, _) in pairs:
        print(f"{label + ', bootstrap off':<34} {w0:8.3f} {c0:8.3f}")
        print(f"{label + ', bootstrap on':<34} {w1:8.3f} {c1:8.3f}")
        print(f"{'  added by the bootstrap':<34} {w1 - w0:8.3f} {c1 - c0:8.3f}")
        ratios[label] = ((w1 - w0) / w0, (c1 - c0) / c0)
        print(f"{'  ratio added / rest':<34} {ratios[label][0]:8.2f} {ratios[label][1]:8.2f}")
    exact = True
    if recompute:
        spec = importlib.util.spec_from_file_location("recompute", ROOT / "builder" / "evidence" / "recompute.py")
        rc = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(rc)
        be = json.loads(json.dumps(compute_boards_evidence(snap, "https://example.org/")))
        t0 = time.perf_counter()
        tally = rc.Tally()
        rc.recompute_uncertainty(be, tally)
        took = time.perf_counter() - t0
        print(f"{'recompute.py (stdlib) re-derives':<34} {took:8.3f} s   ({len(tally.misses)} misses)")
        exact = not tally.misses
    return ratios["score stage"][1], exact


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--models", type=int, nargs="+", default=[100, 400, 500, 1000, 5000])
    ap.add_argument("--rounds", type=int, default=1000)
    ap.add_argument("--repeat", type=int, default=5, help="runs of each; the best time is reported")
    ap.add_argument("--recompute", action="store_true", help="also time recompute.py's bootstrap on each size")
    a = ap.parse_args()
    cfg, _ = load_config(ROOT / "site.yml")
    print(f"load average (1 min) at start: {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
    results = {n: bench(n, cfg, a.rounds, a.repeat, a.recompute) for n in a.models}
    print(f"\n{'models':>7} {'added / score stage (cpu)':>26} {'limit':>6}")
    ok = True
    for n, (ratio, exact) in results.items():
        verdict = "ok" if ratio < LIMIT and exact else "TOO SLOW" if exact else "RECOMPUTE MISSES"
        ok = ok and ratio < LIMIT and exact
        print(f"{n:>7} {ratio:>26.2f} {LIMIT:>6.2f} {verdict}")
    print(f"load average (1 min) at end: {os.getloadavg()[0]:.2f}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
