#!/usr/bin/env python3
"""Rebuild every published ModelBoards number from the evidence downloads.

Uses only Python's standard library. Reads ``evidence.json`` (the Capability Index) and
``boards-evidence.json`` (the role boards) from a folder or a site URL, rebuilds

  * every index source score, family score, measured-specialist mean, fused score and score,
    and the order of both index boards (``current`` and ``allVersions``);
  * every role-board calibration, calibrated value, family mean, R, displayed score and
    rank, and the order of every board;
  * every role-board interval, rank range, Rank (UB), P(rank 1), tie marker and top-20
    matrix, by running the same seeded bootstrap again (``random.Random(seed)``, the draws
    in the order ``uncertainty.drawOrder`` of boards-evidence.json states);
  * every Arena vote flip budget of ``arena-flips.json`` (when published), by refitting
    without the removed votes: plain Bradley-Terry from the pair counts, and the
    style-controlled fit from its battles (``styled-battles-<board>.csv.gz``, after rerunning
    the whole fit, which must reproduce the published ratings): the order reverses, and one
    vote fewer does not;
  * every role-board leave-one-evaluator-out rank, "depends on one evaluator" flag and
    smallest set of evaluators that changes #1, and the share of the seeded Dirichlet
    weight draws under which #1 holds with each top-5 contender's share and weights;

then prints how many of each were reproduced and names every miss or moved position.
Exit code 0 when everything was reproduced, 1 otherwise, 2 when the downloads cannot be
read (a missing folder, a file given in place of the folder, unreadable JSON): one line
saying which.

    python recompute.py                      # the files beside this script
    python recompute.py path/to/site/data
    python recompute.py https://example.github.io/modelboards/data/
    python recompute.py --help
"""

from __future__ import annotations

import argparse
import gc
import heapq
import json
import math
import os
import random
import sys
from array import array
from bisect import bisect_right
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator, Sequence
from itertools import compress, repeat, starmap
from math import floor
from operator import add, gt, itemgetter, lt, mul, sub, truediv
from pathlib import Path
from typing import Any

# ---------------------------------------------------------------- loading

BOARDS_FILE = "boards-evidence.json"
INDEX_FILE = "evidence.json"


class InputError(Exception):
    """The downloads cannot be read: printed as one line, exit code 2."""


def is_url(location: str) -> bool:
    return location.startswith(("http://", "https://"))


def check_location(location: str) -> None:
    """A folder that holds the boards evidence, or an http(s) URL (checked when read)."""
    if is_url(location):
        return
    path = Path(location)
    if not path.exists():
        raise InputError(f"{location}: no such folder (give the folder that holds {BOARDS_FILE})")
    if not path.is_dir():
        raise InputError(f"{location}: a file, not a folder: give the folder of the downloads, "
                         f"e.g. {path.parent if str(path.parent) else '.'}")
    if not (path / BOARDS_FILE).is_file():
        raise InputError(f"{location}: no {BOARDS_FILE} in this folder (is it a ModelBoards site's data/ folder?)")


def load_bytes(location: str, name: str) -> bytes:
    """The bytes of ``name`` from a folder or from a URL ending in '/' (FileNotFoundError when
    absent). urllib loads only for a URL: most runs read a folder."""
    if not is_url(location):
        return (Path(location) / name).read_bytes()
    import urllib.error
    import urllib.request

    where = location.rstrip("/") + "/" + name
    try:
        with urllib.request.urlopen(where, timeout=60) as resp:  # noqa: S310 (http(s) only)
            return resp.read()
    except urllib.error.HTTPError as exc:
        if exc.code == 404:
            raise FileNotFoundError(where) from None
        raise InputError(f"{where}: HTTP {exc.code}") from None
    except urllib.error.URLError as exc:
        raise InputError(f"{where}: {exc.reason}") from None


def load(location: str, name: str) -> dict:
    """The JSON document ``name`` from a folder or from a URL ending in '/'."""
    where = location.rstrip("/") + "/" + name if is_url(location) else str(Path(location) / name)
    try:
        return json.loads(load_bytes(location, name).decode("utf-8"))
    except json.JSONDecodeError as exc:
        raise InputError(f"{where}: line {exc.lineno}: invalid JSON: {exc.msg}") from None
    except UnicodeDecodeError as exc:
        raise InputError(f"{where}: not UTF-8 text at byte {exc.start}") from None


class Tally:
    """Counts of reproduced numbers per kind, and the misses."""

    def __init__(self) -> None:
        self.ok: dict[str, int] = defaultdict(int)
        self.total: dict[str, int] = defaultdict(int)
        self.misses: list[str] = []

    def check(self, kind: str, what: str, published, rebuilt, tol: float) -> None:
        self.total[kind] += 1
        same = (published is None and rebuilt is None) or (
            published is not None and rebuilt is not None and abs(published - rebuilt) <= tol
        )
        if same:
            self.ok[kind] += 1
        else:
            self.misses.append(f"{kind}: {what}: published {published}, rebuilt {rebuilt}")

    def order(self, kind: str, board: str, published: list[str], rebuilt: list[str]) -> None:
        where: dict[str, int] = {}
        for pos, ident in enumerate(rebuilt):
            where.setdefault(ident, pos + 1)
        for pos, ident in enumerate(published):
            self.total[kind] += 1
            if pos < len(rebuilt) and rebuilt[pos] == ident:
                self.ok[kind] += 1
            else:
                new = where.get(ident)
                self.misses.append(f"{kind}: {board}: {ident} published at {pos + 1}, rebuilt at {new}")

    def report(self) -> str:
        lines = [f"{kind:<28} {self.ok[kind]:>6} of {self.total[kind]:<6} reproduced" for kind in self.total]
        lines += [f"MISS {m}" for m in self.misses]
        return "\n".join(lines)


# ---------------------------------------------------------------- the Capability Index


def r1(x: float) -> float:
    return math.floor(abs(x) * 10 + 0.5 + 1e-9) / 10 * (1 if x >= 0 else -1)


def clamp(x: float, lo: float, hi: float) -> float:
    return lo if x < lo else hi if x > hi else x


NAN = float("nan")
SPECIALISTS = ("coding", "agent", "reasoning")
BASIS_ORDER = {"measured": 0, "inherited": 1, "estimated": 2}


def family_scores(observations: list[dict]) -> dict[str, float]:
    """sum(w * sourceScore) / sum(w), w = share * confidence / 100, per family (w > 0 only)."""
    num: dict[str, float] = defaultdict(float)
    den: dict[str, float] = defaultdict(float)
    for o in observations:
        w = o["share"] * o["confidence"] / 100.0
        if w > 0:
            num[o["family"]] += w * o["sourceScore"]
            den[o["family"]] += w
    return {f: num[f] / den[f] for f in den}


def recompute_index(ev: dict, tally: Tally) -> None:
    method = ev["method"]
    tol = method["tolerance"]
    weights = method["familyWeights"]
    bound = method["specialistDeltaBound"]
    for m in ev["models"]:
        name = m["identityKey"]
        fams = family_scores(m["observations"])
        for f, published in m["families"].items():
            tally.check("index family score", f"{name} {f}", published, fams.get(f), tol)
        for f in fams:
            if f not in m["families"]:
                tally.check("index family score", f"{name} {f} (unpublished)", None, fams[f], tol)
        pub = m["families"]
        if m["basis"] == "measured":
            g = pub["general"]
            score = g + sum(weights.get(f, 0) / 100 * clamp(pub[f] - g, -bound, bound) for f in SPECIALISTS if f in pub)
            tally.check("index score", name, m["score"], clamp(score, 0, 100), tol)
            continue
        terms = (m.get("fusion") or {}).get("terms") or []
        for t in terms:
            if t["channel"] == "measured-specialist":
                num = sum(weights[f] * pub[f] for f in SPECIALISTS if f in pub and weights.get(f, 0) > 0)
                den = sum(weights[f] for f in SPECIALISTS if f in pub and weights.get(f, 0) > 0)
                tally.check("index specialist mean", name, t["mean"], num / den if den else None, tol)
        if not terms:
            tally.check("index fused score", name, m["score"], None, tol)
            continue
        precision = sum(1 / t["sigma"] ** 2 for t in terms)
        fused = sum(t["mean"] / t["sigma"] ** 2 for t in terms) / precision
        tally.check("index fused score", name, m["score"], clamp(fused, 0, 100), tol)

    def key(m: dict) -> tuple:
        return (-m["score"], BASIS_ORDER[m["basis"]], -m["confidence"], m["identityKey"])

    for board in ("current", "allVersions"):
        on_board = [m for m in ev["models"] if m["rank"][board] is not None]
        published = [m["identityKey"] for m in sorted(on_board, key=lambda m: m["rank"][board])]
        rebuilt = [m["identityKey"] for m in sorted(on_board, key=key)]
        tally.order("index board order", board, published, rebuilt)
        for i, m in enumerate(sorted(on_board, key=lambda m: m["rank"][board]), 1):
            tally.check("index rank", f"{board} {m['identityKey']}", m["rank"][board], i, 0)


# ---------------------------------------------------------------- the role boards


def close(a: float, b: float) -> bool:
    return abs(a - b) <= 1e-12 * max(1.0, abs(a), abs(b))


def fit_calibration(pairs: list[tuple[float, float]]) -> tuple[float, float, float, float]:
    """(mu, sigma, alpha, beta) of the z-fit: raw scores onto Arena text ratings."""
    n = len(pairs)
    mu = sum(r for r, _ in pairs) / n
    sigma = math.sqrt(sum((r - mu) ** 2 for r, _ in pairs) / n)
    alpha = sum(a for _, a in pairs) / n
    z = [(r - mu) / sigma for r, _ in pairs]
    beta = sum(zi * (a - alpha) for zi, (_, a) in zip(z, pairs)) / sum(zi * zi for zi in z)
    return mu, sigma, alpha, beta


def recompute_boards(be: dict, tally: Tally) -> None:
    obs = be["observations"]
    arena_feeds = set(be["arenaFeeds"])
    text_feed = be["arenaTextFeed"]
    arena_text = {o["identity"]: o["raw"] for o in be["selected"] if o["feed"] == text_feed}
    selected: dict[tuple[str, str], dict[str, float]] = defaultdict(dict)  # (feed, release) -> identity -> raw
    for o in be["selected"]:
        selected[(o["feed"], o["release"])][o["identity"]] = o["raw"]
    calib = {}
    for c in be["calibrations"]:
        calib[(c["feed"], c["release"])] = c
        if not c["used"]:
            continue
        raws = selected[(c["feed"], c["release"])]
        pairs = [(raws[k], arena_text[k]) for k in c["overlap"]]
        mu, sigma, alpha, beta = fit_calibration(pairs)
        for label, pub, new in (("mu", c["mu"], mu), ("sigma", c["sigma"], sigma), ("alpha", c["alpha"], alpha),
                                ("beta", c["beta"], beta)):
            tally.total["board calibration"] += 1
            if close(pub, new):
                tally.ok["board calibration"] += 1
            else:
                tally.misses.append(f"board calibration: {c['feed']} {c['release']} {label}: published {pub}, rebuilt "
                                    f"{new}")

    usable: dict[str, list[dict]] = defaultdict(list)
    for o in obs:
        if o["feed"] in arena_feeds:
            value = o["raw"]
        else:
            c = calib[(o["feed"], o["release"])]
            value = c["alpha"] + c["beta"] * (o["raw"] - c["mu"]) / c["sigma"]
        tally.total["board calibrated value"] += 1
        if close(value, o["calibrated"]):
            tally.ok["board calibrated value"] += 1
        else:
            tally.misses.append(f"board calibrated value: {o['identity']} {o['feed']}: published {o['calibrated']}, "
                                f"rebuilt {value}")
        usable[o["identity"]].append({**o, "value": value})

    feed_family = {feed: fam for fam, feeds in be["families"].items() for feed in feeds}
    for board in be["boards"]:
        weights = board["weights"]
        rebuilt_r = {}
        for row in board["rows"] + board["new"]:
            fams: dict[str, list[float]] = defaultdict(list)
            for o in usable.get(row["identity"], []):
                fam = feed_family.get(o["feed"])
                if fam is not None and fam in weights:
                    fams[fam].append(o["value"])
            means = {f: sum(v) / len(v) for f, v in fams.items()}
            for f, pub in row["families"].items():
                tally.total["board family mean"] += 1
                if f in means and close(pub, means[f]):
                    tally.ok["board family mean"] += 1
                else:
                    tally.misses.append(f"board family mean: {board['id']} {row['identity']} {f}: published {pub}, "
                                        f"rebuilt {means.get(f)}")
            den = sum(weights[f] for f in means)
            r = sum(weights[f] * means[f] for f in means) / den if den else None
            rebuilt_r[row["identity"]] = r
            tally.total["board R"] += 1
            if r is not None and close(r, row["r"]):
                tally.ok["board R"] += 1
            else:
                tally.misses.append(f"board R: {board['id']} {row['identity']}: published {row['r']}, rebuilt {r}")
            tally.check("board displayed score", f"{board['id']} {row['identity']}", row["score"],
                        round(r) if r is not None else None, 0)
        ranked = [row for row in board["rows"] if row["rank"] is not None]
        # competition rank: 1 + the ranked rows with a strictly greater rebuilt R
        known = sorted(r for r in (rebuilt_r[row["identity"]] for row in ranked) if r is not None)
        for row in ranked:
            r = rebuilt_r[row["identity"]]
            rank = 1 + (len(known) - bisect_right(known, r) if r is not None else 0)
            tally.check("board rank", f"{board['id']} {row['identity']}", row["rank"], rank, 0)
        published = [row["identity"] for row in ranked]
        order = sorted(ranked, key=lambda row: (-(rebuilt_r[row["identity"]] or -math.inf), row["model"]))
        tally.order("board order", board["id"], published, [row["identity"] for row in order])


# ---------------------------------------------------------------- the role boards' uncertainty

# Wichura's AS241 (PPND16) coefficients, lowest power first.
AS241_A = (3.387132872796366608, 133.14166789178437745, 1971.5909503065514427, 13731.693765509461125,
           45921.953931549871457, 67265.770927008700853, 33430.575583588128105, 2509.0809287301226727)
AS241_B = (1.0, 42.313330701600911252, 687.1870074920579083, 5394.1960214247511077,
           21213.794301586595867, 39307.89580009271061, 28729.085735721942674, 5226.495278852854561)
AS241_C = (1.42343711074968357734, 4.6303378461565452959, 5.7694972214606914055, 3.64784832476320460504,
           1.27045825245236838258, 0.24178072517745061177, 0.0227238449892691845833, 7.7454501427834140764e-4)
AS241_D = (1.0, 2.05319162663775882187, 1.6763848301838038494, 0.68976733498510000455,
           0.14810397642748007459, 0.0151986665636164571966, 5.475938084995344946e-4, 1.05075007164441684324e-9)
AS241_E = (6.6579046435011037772, 5.4637849111641143699, 1.7848265399172913358, 0.29656057182850489123,
           0.026532189526576123093, 0.0012426609473880784386, 2.71155556874348757815e-5, 2.01033439929228813265e-7)
AS241_F = (1.0, 0.599832206555887937690, 0.136929880922735805310, 0.0148753612908506148525,
           7.86869131145613259100e-4, 1.84631831751005468180e-5, 1.42151175831644588870e-7, 2.04426310338993978564e-15)


def horner(coef: tuple, r: float) -> float:
    acc = coef[-1]
    for c in reversed(coef[:-1]):
        acc = acc * r + c
    return acc


def normal_quantile(p: float) -> float:
    """Phi^-1(p) by AS241; p in (0, 1)."""
    q = p - 0.5
    if abs(q) <= 0.425:
        r = 0.180625 - q * q
        return q * horner(AS241_A, r) / horner(AS241_B, r)
    r = math.sqrt(-math.log(p if q <= 0.0 else 1.0 - p))
    if r <= 5.0:
        r = r - 1.6
        x = horner(AS241_C, r) / horner(AS241_D, r)
    else:
        r = r - 5.0
        x = horner(AS241_E, r) / horner(AS241_F, r)
    return -x if q < 0.0 else x


def left_sum(values) -> float:
    """Left to right from 0.0 (the order is part of the published arithmetic)."""
    total = 0.0
    for v in values:
        total += v
    return total


def plain_sum():
    """``sum`` where it adds floats left to right from 0.0 as ``left_sum`` does (CPython up to
    3.11: the same additions in C), else ``left_sum`` itself (3.12 and later compensate)."""
    probe = [((k * 7919) % 1000 - 500) / 7.0 * 10.0 ** (k % 9 - 4) for k in range(1000)]
    if sum([1e100, 1.0, -1e100]) == 0.0 and sum(probe) == left_sum(probe) and sum([-0.0]) == left_sum([-0.0]):
        return sum
    return left_sum


total = plain_sum()
"Sum of a non-empty list of floats, left to right from 0.0."


def percentile_linear(s: list[float], p: float) -> float:
    """Linear interpolation on ascending ``s``: h = p (n - 1), s[k] + (h - k) (s[k+1] - s[k])."""
    h = p * (len(s) - 1)
    k = math.floor(h)
    k1 = min(k + 1, len(s) - 1)
    return s[k] + (h - k) * (s[k1] - s[k])


def arena_sd(o: dict, divisor: float) -> float:
    lo, hi = o.get("q025"), o.get("q975")
    if not (isinstance(lo, (int, float)) and isinstance(hi, (int, float))) or isinstance(lo, bool) \
            or isinstance(hi, bool) or not (math.isfinite(lo) and math.isfinite(hi)):
        return 0.0
    return (hi - lo) / divisor if hi >= lo else 0.0


def bootstrap_inputs(be: dict) -> tuple[list, list, list, int]:
    """(Arena draws, fits, boards, number of value slots) in the documented order, from the
    evidence alone. Arena draws: (rating, sd); fits: dicts with n, raws, anchors, residuals,
    scored [(slot, raw)]; boards: per board the rows' (identity, [(weight, [slot, ...]), ...]).
    """
    u = be["uncertainty"]
    arena_feeds = set(be["arenaFeeds"])
    text_feed = be["arenaTextFeed"]
    fam_of: dict[str, list[str]] = {}
    for fam, feeds in be["families"].items():
        for feed in feeds:
            fam_of.setdefault(feed, []).append(fam)
    obs = be["observations"]
    arena = sorted((o for o in obs if o["feed"] in arena_feeds),
                   key=lambda o: (o["feed"], o["identity"], o["release"], o["model"]))
    slot = {id(o): i for i, o in enumerate(arena)}
    draws = [(o["raw"], arena_sd(o, u["arenaSdDivisor"])) for o in arena]
    anchor: dict[str, int] = {}
    for i, o in enumerate(arena):
        if o["feed"] == text_feed and (o["identity"] not in anchor or o["raw"] > draws[anchor[o["identity"]]][0]):
            anchor[o["identity"]] = i
    # each fit's observations, found in one pass (not one scan of all observations per fit)
    by_key: dict[tuple, list[dict]] = defaultdict(list)
    for o in obs:
        by_key[(o["source"], o["feed"], o["release"])].append(o)
    fits = []
    n_slots = len(arena)
    for c in sorted(be["calibrations"], key=lambda c: (c["source"], c["feed"], c["release"])):
        if not c["used"] or c["feed"] not in fam_of:
            continue
        key = (c["source"], c["feed"], c["release"])
        rows = sorted(by_key.get(key, []), key=lambda o: (o["identity"], o["model"]))
        raw_of: dict[str, float] = {}
        for o in rows:
            raw_of[o["identity"]] = max(raw_of.get(o["identity"], o["raw"]), o["raw"])
        raws = [raw_of[k] for k in c["overlap"]]
        anchors = [anchor[k] for k in c["overlap"]]
        residuals = [draws[a][0] - (c["alpha"] + c["beta"] * (x - c["mu"]) / c["sigma"]) for a, x in zip(anchors, raws)]
        scored = []
        for o in rows:
            slot[id(o)] = n_slots
            scored.append((n_slots, o["raw"], o["identity"]))
            n_slots += 1
        fits.append({"key": (c["source"], c["feed"], c["release"]), "n": len(raws), "raws": raws, "anchors": anchors,
                     "overlap": list(c["overlap"]),
                     "residuals": residuals, "published_residuals": c.get("residuals"), "scored": scored})
    per_identity: dict[str, list[dict]] = defaultdict(list)
    for o in obs:
        if id(o) in slot and o["feed"] in fam_of:
            per_identity[o["identity"]].append(o)
    boards = []
    for b in be["boards"]:
        weights = b["weights"]
        board_rows = []
        for row in b["rows"] + b["new"]:
            fams = []
            for fam in sorted(f for f, w in weights.items() if w > 0):
                members = sorted((o for o in per_identity.get(row["identity"], []) if fam in fam_of[o["feed"]]),
                                 key=lambda o: (o["feed"], o["release"], o["model"]))
                if members:
                    fams.append((weights[fam], [slot[id(o)] for o in members]))
            board_rows.append((row["identity"], fams))
        boards.append(board_rows)
    return draws, fits, boards, n_slots


def python_arena_draws(ps: list[float], ratings: Sequence[float], sds: Sequence[float]) -> list[float]:
    """rating + sd * Phi^-1(p) for each Arena draw, by ``normal_quantile``."""
    return [r + s * normal_quantile(p) for p, r, s in zip(ps, ratings, sds)]


def library_arena_draws():
    """``python_arena_draws`` by the standard library's own AS241, or None when it is missing
    or differs on any probe (every branch, both tails, the smallest p, several ratings and sds).

    ``statistics.NormalDist`` uses ``_normal_dist_inv_cdf(p, mu, sigma)``: the same
    coefficients and the same operations in the same order, then mu + x * sigma, in C where
    CPython has it; so with mu = rating and sigma = sd one call is the whole draw (sigma <= 0
    is refused: with any sd of 0, x comes from mu = 0, sigma = 1, then rating + sd * x).
    """
    import statistics

    inv = getattr(statistics, "_normal_dist_inv_cdf", None)
    if inv is None:
        return None
    probes = [2.0 ** -53, 1e-300, 1e-30, 1e-12, 1e-6, 0.0001, 0.074, 0.075, 0.0751, 0.5, 0.924, 0.925, 0.926,
              1 - 1e-6, 1 - 1e-12, 1 - 2.0 ** -53] + [(k + 0.5) / 1021 for k in range(1021)]
    try:
        for rating, sd in ((0.0, 1.0), (1300.25, 7.3), (-5.0, 0.001), (1e6, 123.4), (1187.0, 2.0 ** -30)):
            if any(inv(p, rating, sd) != rating + sd * normal_quantile(p) for p in probes):
                return None
    except Exception:  # noqa: BLE001 (any trouble at all: the pure-Python quantile is used)
        return None

    def draws(ps: list[float], ratings: Sequence[float], sds: Sequence[float]) -> list[float]:
        if min(sds, default=1.0) > 0.0:
            return list(map(inv, ps, ratings, sds))
        return list(map(add, ratings, map(mul, sds, map(inv, ps, repeat(0.0), repeat(1.0)))))

    return draws


VALUES_PER_BLOCK = 2_000_000
"Values drawn (rounds x slots) before they are turned into columns (one per slot) for R."


def round_values(rand: Callable[[], float], ratings: Sequence[float], sds: Sequence[float], fits: list, arena_draws,
                 mixing: tuple[int, float, int, float] | None = None) -> tuple[list[float], bool]:
    """One round's value slots (the Arena draws, then the calibrated values some row reads), NaN
    where the round dropped a fit, and whether it dropped any; ``rand`` gives the round's
    uniforms in the documented order.

    ``mixing``: (identities, c, (identity, source) pairs, s) for the per-model residual draws
    (``residualDraws`` "source": after every fit's resample, two uniforms (v, u) per identity,
    then two (v', u') per (identity, source) pair, then one w per calibrated score; the score
    takes its fit's ascending residual at floor(x * n), x = u when v < c, else u' when v' < s,
    else w; "model": no pairs, s = 0), None for one overlap position per score right after
    its fit's resample.

    Each number is the rule's IEEE operations in the rule's order; the per-element loops run
    in ``map`` over the standard library's operators, and every sum is ``total``: left to
    right from 0.0, as written in ``left_sum``. A position floor(u * n) is ``floor`` of the
    float product (u * n >= 0: the same integer as ``int``), taken as the uniforms are drawn
    (no list of the round's uniforms: each is freed as soon as it is used); ``pick`` gathers
    the entries at the positions in one call.
    """
    ps = uniforms(rand, len(ratings))
    if 0.0 in ps:
        ps = [p if p > 0.0 else 2.0 ** -53 for p in ps]
    v = arena_draws(ps, ratings, sds)
    dropped = False
    refits = []
    for f in fits:
        n = f["n"]
        # floor(u * n) is n only when u * n rounds up to n: the tables' extra last entry reads position n - 1
        at = positions(rand, n, n)
        xs = pick(f["raws+"], at)
        arena = pick(v, pick(f["anchors+"], at))
        mu = total(xs) / n
        dev = list(map(sub, xs, repeat(mu)))
        sigma = math.sqrt(total(map(mul, dev, dev)) / n)
        # not all equal: two that differ show it at once, else the largest and the smallest
        ok = n >= 10 and sigma > 0 and (xs[0] != xs[-1] or max(xs) != min(xs))
        alpha = beta = 0.0
        if ok:
            alpha = total(arena) / n
            z = list(map(truediv, dev, repeat(sigma)))
            beta = total(map(mul, z, map(sub, arena, repeat(alpha)))) / total(map(mul, z, z))
            ok = beta > 0
        res: Iterable[float] = ()
        if mixing is None:
            res = pick(f["residuals+"], kept_positions(rand, f, n))
        refits.append((ok, alpha, beta, mu, sigma, res))
    if mixing is not None:
        models, share, pairs, source_share = mixing
        vu = uniforms(rand, 2 * models)
        follows, own = list(map(lt, vu[::2], repeat(share))), vu[1::2]  # per identity: v < c, and its u
        vs = uniforms(rand, 2 * pairs)
        src_follows, src_own = list(map(lt, vs[::2], repeat(source_share))), vs[1::2]  # per pair: v' < s, its u'
        for k, f in enumerate(fits):
            n, of, src = f["n"], f["scored_models"], f["scored_sources"]
            drawn = kept_positions(rand, f, n)  # x = w
            at = drawn if isinstance(drawn, list) else list(drawn)
            if pairs:
                for j in compress(range(len(at)), pick(src_follows, src)):
                    at[j] = floor(src_own[src[j]] * n)  # x = u' (unless the model's u comes first, below)
            for j in compress(range(len(at)), pick(follows, of)):
                at[j] = floor(own[of[j]] * n)  # x = u
            refits[k] = refits[k][:5] + (pick(f["ascending+"], at),)
    for f, (ok, alpha, beta, mu, sigma, res) in zip(fits, refits):
        if ok:
            fitted = map(truediv, map(mul, repeat(beta), map(sub, f["scored_raws"], repeat(mu))), repeat(sigma))
            v.extend(map(add, map(add, repeat(alpha), fitted), res))
        else:
            v.extend(repeat(NAN, len(f["kept"])))
            dropped = True
    return v, dropped


def uniforms(rand: Callable[[], float], count: int) -> list[float]:
    """The next ``count`` values of ``rand()``."""
    return list(starmap(rand, repeat((), count)))


def positions(rand: Callable[[], float], count: int, n: int) -> list[int]:
    """floor(u * n) for each of the next ``count`` uniforms u."""
    return list(map(floor, map(mul, starmap(rand, repeat((), count)), repeat(float(n)))))


def kept_positions(rand: Callable[[], float], f: dict, n: int) -> Sequence[int]:
    """floor(u * n) for each of the fit's next ``f["m"]`` uniforms, at the scores kept (all of
    them, mostly: then no pick)."""
    at = positions(rand, f["m"], n)
    return at if f["all_kept"] else pick(at, f["kept"])


def pick(values: Sequence, at: Sequence[int]) -> Sequence:
    """``values`` at the positions ``at``, in their order (``itemgetter``: one loop in C)."""
    if len(at) > 1:
        return itemgetter(*at)(values)
    return [values[k] for k in at]


def spec_r(fams: list[tuple[float, list[int]]], v: Sequence[float]) -> float:
    """R of one row in one round, value by value (NaN: a dropped value; NaN R: no family left)."""
    num = den = 0.0
    for w, slots in fams:
        vals = [v[s] for s in slots if v[s] == v[s]]
        if vals:
            num += w * (left_sum(vals) / len(vals))
            den += w
    return num / den if den > 0 else NAN


def block_r(fams: list[tuple[float, list[int]]], cols: Sequence[Sequence[float]], means: dict) -> Iterator[float]:
    """R of one row in each round of a block, from the slots' columns (no value dropped):
    the same operations in the same order as ``spec_r``, one round per element of ``map``.

    ``means``: slots -> their mean per round in this block, shared by the rows of every role
    (a family's mean does not depend on the weights). A family of one value is that value:
    (0.0 + v) / 1 differs from v only for v = -0.0, whose weighted term then adds to the
    running sum (0.0 or a number) exactly as +0.0 would.
    """
    num: Iterable[float] = repeat(0.0)
    den = 0.0
    for w, slots in fams:
        if len(slots) == 1:
            mean: Iterable[float] = cols[slots[0]]
        else:
            key = tuple(slots)
            cached = means.get(key)
            if cached is None:
                acc: Iterable[float] = repeat(0.0)
                for s in slots:
                    acc = map(add, acc, cols[s])
                cached = means[key] = list(map(truediv, acc, repeat(len(slots))))
            mean = cached
        num = map(add, num, map(mul, repeat(w), mean))
        den += w
    if not den > 0:
        return repeat(NAN, len(cols[0]) if cols else 0)
    return map(truediv, num, repeat(den))


PARALLEL_DRAWS = 5_000_000
"Uniforms (rounds x draws per round) from which the rounds are shared out among processes."


def skip_uniforms(rng: random.Random, count: int) -> None:
    """Advance ``rng`` past ``count`` values of ``random()``: each takes two 32-bit outputs of
    the Mersenne Twister, and ``getrandbits(32 * k)`` takes exactly k of them."""
    words = 2 * count
    while words:
        k = min(words, 1 << 22)
        rng.getrandbits(32 * k)
        words -= k


def skipping_works() -> bool:
    """``skip_uniforms`` lands where as many ``random()`` calls land (checked, not assumed)."""
    a, b = random.Random(7), random.Random(7)
    for _ in range(3):
        a.random()
    skip_uniforms(b, 3)
    return a.random() == b.random()


def rounds_part(job: dict, start: int, count: int) -> list[array]:
    """Per row spec its R in rounds ``start`` to ``start + count`` (NaN: no family that round).

    The rounds' uniforms continue one ``random.Random(seed)`` stream from round ``start``;
    every block of ``VALUES_PER_BLOCK // slots`` rounds is turned into one column per value
    slot, so each row's R is computed for the whole block at once (a round that dropped a fit
    is recomputed value by value, skipping what it dropped).
    """
    rng = random.Random(job["seed"])
    per_round, n_slots, specs = job["per_round"], job["n_slots"], job["specs"]
    skip_uniforms(rng, start * per_round)
    rand = rng.random
    arena_draws = job["arena_draws"]
    series = [array("d") for _ in specs]
    done = 0
    while done < count:
        block = min(max(1, VALUES_PER_BLOCK // max(n_slots, 1)), count - done)
        table, dropped = array("d"), []  # the block's values, round after round
        for b in range(block):
            v, lost = round_values(rand, job["ratings"], job["sds"], job["fits"], arena_draws, job["mixing"])
            table.fromlist(v)
            if lost:
                dropped.append(b)
        # one column per slot, its values contiguous (reading float objects spread over the
        # rounds' memory cost more than the arithmetic)
        cols = [table[s::n_slots] for s in range(n_slots)]
        means: dict = {}
        for k, fams in enumerate(specs):
            r = array("d", block_r(fams, cols, means))
            for b in dropped:
                r[b] = spec_r(fams, table[b * n_slots:(b + 1) * n_slots])
            series[k].extend(r)
        done += block
    return series


def forked_parts(job: dict, cuts: list[int]) -> list[list[array]]:
    """``rounds_part`` of rounds ``cuts[i]`` to ``cuts[i + 1]``: the first share in this process,
    every other in one forked process (the job is inherited, not sent), which sends its rows'
    R back through a pipe. This process works while the others do: a process of its own for
    the first share would only add its start, its copied memory and its R sent back."""
    import multiprocessing

    ctx = multiprocessing.get_context("fork")
    running = []
    for a, b in zip(cuts[1:], cuts[2:]):
        receive, send = ctx.Pipe(duplex=False)
        proc = ctx.Process(target=send_part, args=(send, job, a, b - a), daemon=True)
        proc.start()
        send.close()
        running.append((proc, receive))
    parts = [rounds_part(job, cuts[0], cuts[1] - cuts[0])]
    for proc, receive in running:
        try:
            parts.append([array("d", raw) for raw in receive.recv()])
        except EOFError:
            proc.join()
            raise RuntimeError(f"a rounds process ended without its rounds (exit {proc.exitcode})") from None
        proc.join()
    return parts


def send_part(conn: Any, job: dict, start: int, count: int) -> None:
    conn.send([s.tobytes() for s in rounds_part(job, start, count)])
    conn.close()


def workers_for(rounds: int, per_round: int) -> int:
    """Processes for the rounds: one per idle usable core (this process's own included) for a
    large job where ``fork`` exists and this process runs no other thread (a notebook kernel
    does: forking it is not safe), else 1. A core is idle while the load average leaves it
    free: a process forked onto a busy core shortens no wait and costs CPU (its start, its
    skipped draws, its copied memory, its R sent back; about a tenth more CPU at 5,000
    models on a busy 2-core machine)."""
    if rounds * per_round < PARALLEL_DRAWS:
        return 1
    import multiprocessing  # only for a large job: importing it costs more than a small job's rounds
    import threading

    if "fork" not in multiprocessing.get_all_start_methods() or threading.active_count() > 1:
        return 1
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    return max(1, min(cores, 8, rounds, idle_cores(cores))) if skipping_works() else 1


def idle_cores(cores: int) -> int:
    """Cores left by the other running processes (1-minute load average, this one counted in
    it), at least 1; all of them where the load average cannot be read."""
    try:
        load = os.getloadavg()[0]
    except (AttributeError, OSError):
        return cores
    return max(1, cores + 1 - round(load))


def run_rounds(be: dict, inputs: tuple | None = None, workers: int | None = None) -> list[dict[str, array]]:
    """Per board, identity -> its R in every round (``array('d')``, NaN where the round left it
    no family). Residual draws as ``uncertainty.residualDraws`` says (see ``round_values``;
    absent in older downloads: one overlap position per calibrated score). ``inputs``:
    ``bootstrap_inputs(be)`` when already built; ``workers``: processes (default: every idle
    core for a large job, see ``workers_for``). Rounds ``[a, b)`` go to one process each, which
    starts the one seeded stream at round ``a`` (``skip_uniforms``): the numbers do not depend
    on the number of processes.
    """
    u = be["uncertainty"]
    draws, fits, boards, n_slots = inputs if inputs is not None else bootstrap_inputs(be)
    rounds = u["rounds"]
    per_model = u.get("residualDraws") in ("model", "source")
    by_source = u.get("residualDraws") == "source"
    models = sorted({ident for f in fits for _, _, ident in f["scored"]})
    position = {ident: k for k, ident in enumerate(models)}
    pairs = sorted({(ident, f["key"][0]) for f in fits for _, _, ident in f["scored"]}) if by_source else []
    pair_position = {key: k for k, key in enumerate(pairs)}
    for f in fits:
        # the tables the rounds read as lists of floats made once, next to one another in memory:
        # a pick or a map then reads each value without making a float object of it each round
        f["raws+"] = array("d", f["raws"] + f["raws"][-1:]).tolist()  # floats: sum() then adds as left_sum
        f["anchors+"] = f["anchors"] + f["anchors"][-1:]
        f["residuals+"] = array("d", f["residuals"] + f["residuals"][-1:]).tolist()
        ascending = sorted(f["residuals"])
        f["ascending+"] = array("d", ascending + ascending[-1:]).tolist()
    per_round = (len(draws) + sum(f["n"] + len(f["scored"]) for f in fits) + (2 * len(models) if per_model else 0)
                 + 2 * len(pairs))
    unique: dict[tuple, int] = {}  # (families, slots) -> index: rows of one role share their R
    specs: list[list[tuple[float, list[int]]]] = []
    board_index = []
    for rows in boards:
        idx = {}
        for ident, fams in rows:
            key = tuple((w, tuple(sl)) for w, sl in fams)
            if key not in unique:
                unique[key] = len(specs)
                specs.append(fams)
            idx[ident] = unique[key]
        board_index.append(idx)
    # A calibrated value no row reads is not computed (its uniforms are still drawn): the values
    # rows read keep their order, renumbered after the Arena draws.
    read = {s for fams in specs for _, slots in fams for s in slots}
    renumber = {s: s for s in range(len(draws))}
    for f in fits:
        f["m"] = len(f["scored"])
        f["kept"] = [j for j, (slot, _, _) in enumerate(f["scored"]) if slot in read]
        f["all_kept"] = len(f["kept"]) == f["m"]
        kept = [f["scored"][j] for j in f["kept"]]
        renumber.update((slot, len(renumber)) for slot, _, _ in kept)
        f["scored_raws"] = array("d", [raw for _, raw, _ in kept]).tolist()
        f["scored_models"] = [position[ident] for _, _, ident in kept]
        f["scored_sources"] = [pair_position[(ident, f["key"][0])] for _, _, ident in kept] if by_source else []
    specs = [[(w, [renumber[s] for s in slots]) for w, slots in fams] for fams in specs]
    n_slots = len(renumber)
    shares = residual_shares(fits) if by_source else (0.0, 0.0)
    job = {"seed": u["seed"], "per_round": per_round, "n_slots": n_slots, "specs": specs, "fits": fits,
           "ratings": [float(r) for r, _ in draws], "sds": [float(sd) for _, sd in draws],
           "mixing": ((len(models), shares[0], len(pairs), shares[1]) if by_source
                      else (len(models), residual_share(fits), 0, 0.0) if per_model else None),
           "arena_draws": library_arena_draws() or python_arena_draws}  # probed once, before any fork
    n = workers if workers is not None else workers_for(rounds, per_round)
    cuts = [rounds * k // n for k in range(n + 1)]
    if n > 1:
        parts = forked_parts(job, cuts)
    else:
        parts = [rounds_part(job, 0, rounds)]
    series = parts[0]
    for part in parts[1:]:
        for whole, piece in zip(series, part):
            whole.extend(piece)
    return [{ident: series[k] for ident, k in idx.items()} for idx in board_index]


def pearson(x: list[float], y: list[float]) -> float:
    """sum(dx dy) / sqrt(sum(dx^2) sum(dy^2)), d the gap to the mean (fsum); 0 when either is constant."""
    mx = math.fsum(x) / len(x)
    my = math.fsum(y) / len(y)
    sxy = sxx = syy = 0.0
    for a, b in zip(x, y):
        sxy += (a - mx) * (b - my)
        sxx += (a - mx) * (a - mx)
        syy += (b - my) * (b - my)
    return sxy / math.sqrt(sxx * syy) if sxx > 0.0 and syy > 0.0 else 0.0


def pair_correlations(fits: list[dict]) -> tuple[list[float], list[float]]:
    """(across sources, within one source): the residuals' correlation of each pair of fits with
    at least 10 common overlap keys, over those keys (ascending)."""
    across: list[float] = []
    within: list[float] = []
    for i, a in enumerate(fits):
        ra = dict(zip(a["overlap"], a["residuals"]))
        for b in fits[i + 1:]:
            rb = dict(zip(b["overlap"], b["residuals"]))
            common = sorted(set(ra) & set(rb))
            if len(common) >= 10:
                corr = pearson([ra[k] for k in common], [rb[k] for k in common])
                (within if a["key"][0] == b["key"][0] else across).append(corr)
    return across, within


def median(values: list[float]) -> float:
    xs = sorted(values)
    mid = len(xs) // 2
    return xs[mid] if len(xs) % 2 else (xs[mid - 1] + xs[mid]) / 2.0


def residual_shares(fits: list[dict]) -> tuple[float, float]:
    """(c, s) of the "source" draws: c the median correlation over pairs of fits of different
    sources (over all pairs without one; 1.0 without any), clamped to [0, 1]; s = (m - c) / (1 - c),
    m the median over pairs of fits of one source, clamped to [0, 1] (0.0 without one, or c = 1)."""
    across, within = pair_correlations(fits)
    pairs = across or within
    c = min(max(median(pairs), 0.0), 1.0) if pairs else 1.0
    if not within or c >= 1.0:
        return c, 0.0
    return c, min(max((median(within) - c) / (1.0 - c), 0.0), 1.0)


def residual_share(fits: list[dict]) -> float:
    """c: the median over pairs of fits with at least 10 common overlap keys of their residuals'
    correlation over those keys (ascending), clamped to [0, 1]; 1.0 without such a pair."""
    across, within = pair_correlations(fits)
    corrs = across + within
    return min(max(median(corrs), 0.0), 1.0) if corrs else 1.0


def count_greater(a: Sequence[float], b: Sequence[float]) -> int:
    """Rounds in which ``a`` is strictly greater than ``b`` (NaN on either side: not greater)."""
    return sum(map(gt, a, b))


def has_nan(values: array) -> bool:
    """Whether some value may be NaN: their sum is NaN (always with a NaN; also with +inf and
    -inf, and then the caller only takes its slower path, which skips NaN)."""
    t = sum(values)
    return t != t


SELECT = 64
"Positions from either end within which ``ascending_at`` pops heaps instead of sorting."

_heapify_max = getattr(heapq, "heapify_max", None) or getattr(heapq, "_heapify_max", None)
_heappop_max = getattr(heapq, "heappop_max", None) or getattr(heapq, "_heappop_max", None)


def ascending_at(values: list, at: Sequence[int]) -> list:
    """``sorted(values)[k]`` for each k of ``at`` (ascending, in range). When every k lies
    within SELECT positions of either end (the tails of an interval), the smallest are popped
    from a heap of the values and the largest from a max-heap (the standard library's, in C):
    the same values without sorting the middle."""
    n = len(values)
    low = [k for k in at if k < SELECT]
    high = [n - 1 - k for k in at if k >= SELECT]
    if any(k >= SELECT for k in high) or _heapify_max is None or _heappop_max is None:
        s = sorted(values)
        return [s[k] for k in at]
    got: dict[int, Any] = {}
    for keys, make, pop, where in ((low, heapq.heapify, heapq.heappop, lambda k: k),
                                   (high, _heapify_max, _heappop_max, lambda k: n - 1 - k)):
        if keys:
            heap = list(values)
            make(heap)
            for k in range(max(keys) + 1):
                x = pop(heap)
                if k in keys:
                    got[where(k)] = x
    return [got[k] for k in at]


def interval(series: array, p_lo: float, p_hi: float) -> tuple[float | None, float | None, int, bool]:
    """(r_lo, r_hi, rounds scored, whether some round had no R) of one row's R per round: the
    percentiles by linear interpolation on its R ascending, NaN left out."""
    gap = has_nan(series)
    values = [x for x in series if x == x] if gap else series.tolist()
    if not values:
        return None, None, 0, gap
    last = len(values) - 1
    h_lo, h_hi = p_lo * last, p_hi * last
    at = sorted({math.floor(h_lo), min(math.floor(h_lo) + 1, last), math.floor(h_hi), min(math.floor(h_hi) + 1, last)})
    s = dict(zip(at, ascending_at(values, at)))
    return percentile_at(s, h_lo, last), percentile_at(s, h_hi, last), len(values), gap


def percentile_at(s: dict[int, float], h: float, last: int) -> float:
    """``percentile_linear`` at h = p (n - 1) from the ascending values it reads (``s``: position -> value)."""
    k = math.floor(h)
    k1 = min(k + 1, last)
    return s[k] + (h - k) * (s[k1] - s[k])


def summarise(board: dict, r: dict[str, array], u: dict, shared: dict | None = None) -> tuple[dict[str, dict], dict]:
    """Per identity the row's fields, and the board's top-rows matrix, from the rounds' R
    (``r``: identity -> R per round, NaN where it had none). ``shared``: the interval of each R
    series already summarised for another board (boards of one role share their rows' R)."""
    rounds = u["rounds"]
    p_lo, p_hi = u["interval"]
    ranked = [row["identity"] for row in board["rows"]]
    n = len(ranked)
    if shared is None:
        shared = {}
    for i in ranked + [row["identity"] for row in board["new"]]:
        if id(r[i]) not in shared:
            shared[id(r[i])] = interval(r[i], p_lo, p_hi)
    gaps = {i for i in ranked + [row["identity"] for row in board["new"]] if shared[id(r[i])][3]}
    # per round, each ranked row's competition rank: 1 + rows with a strictly greater R (0: no R);
    # over the round's values ascending, the last position of a value v leaves exactly the
    # values greater than v after it, and a dict keeps the last position it is given.
    # The R and the ranks are held round after round in one array each (row p of round b at
    # b * n + p), filled and read by strided slices: no object per value until one is compared.
    by_round = array("d", bytes(8 * n * rounds))
    for p, i in enumerate(ranked):
        by_round[p::n] = r[i]
    ranks = array("l")
    for b in range(rounds if n else 0):
        values = by_round[b * n:(b + 1) * n].tolist()
        if gaps:
            valid = [x for x in values if x == x]
            position = dict(zip(sorted(valid), range(len(valid), 0, -1)))
            ranks.extend(map(position.get, values, repeat(0)))
        else:
            position = dict(zip(sorted(values), range(n, 0, -1)))
            ranks.extend(map(position.__getitem__, values))
    out: dict[str, dict] = {}
    for row in board["rows"] + board["new"]:
        i = row["identity"]
        r_lo, r_hi, scored, _ = shared[id(r[i])]
        out[i] = {"r_lo": r_lo, "r_hi": r_hi,
                  "rank_lo": None, "rank_hi": None, "rank_ub": None, "p_first": None, "p_above": None,
                  "tied_above": None, "rounds_scored": scored, "tie_leader": None, "p_leader": None}
    lows = sorted(out[i]["r_lo"] for i in ranked if out[i]["r_lo"] is not None)
    above: dict[tuple[str, str], int] = {}  # (a, b) -> rounds in which R_a > R_b
    for pos, i in enumerate(ranked):
        o = out[i]
        mine = ranks[pos::n]
        unranked = mine.count(0)  # rounds without an R: rank 0, the smallest, left out
        if unranked < len(mine):
            last = len(mine) - unranked - 1
            o["rank_lo"], o["rank_hi"] = ascending_at(mine.tolist(), (unranked + math.floor(p_lo * last),
                                                                      unranked + math.ceil(p_hi * last)))
            o["rank_ub"] = 1 + len(lows) - bisect_right(lows, o["r_hi"])
        o["p_first"] = mine.count(1) / rounds
        if pos:
            above[ranked[pos - 1], i] = count_greater(r[ranked[pos - 1]], r[i])
            o["p_above"] = above[ranked[pos - 1], i] / rounds
            o["tied_above"] = o["p_above"] < u["tieThreshold"]
    # tie groups anchored on their leader: a row joins while P(R_leader > R_row) < threshold
    leader = ranked[0] if ranked else ""
    for i in ranked[1:] if u.get("tieGroups") == "leader" else []:
        ahead = above.get((leader, i))
        if ahead is None:
            ahead = count_greater(r[leader], r[i])
        if ahead / rounds < u["tieThreshold"]:
            out[i]["tie_leader"], out[i]["p_leader"] = leader, ahead / rounds
        else:
            leader = i
    top = ranked[:u["pairwiseTop"]]
    series = {a: r[a].tolist() for a in top}  # each float made once, not once per comparison
    matrix = [[count_greater(series[a], series[b]) / rounds for b in top] for a in top]
    return out, {"identities": top, "p_greater": matrix}


def recompute_uncertainty(be: dict, tally: Tally) -> None:
    u = be.get("uncertainty")
    if not u or not u.get("rounds"):
        return
    # The cyclic collector is paused: the rounds make no reference cycles, and every
    # collection would walk the downloads' parsed objects again (about 5% of the time).
    collecting = gc.isenabled()
    gc.disable()
    try:
        check_uncertainty(be, u, tally)
    finally:
        if collecting:
            gc.enable()


def check_uncertainty(be: dict, u: dict, tally: Tally) -> None:
    """Compare every published bootstrap number with the rebuilt one."""
    inputs = bootstrap_inputs(be)
    fits = inputs[1]
    for f in fits:
        published = f["published_residuals"] or []
        for k, new in enumerate(f["residuals"]):
            pub = published[k] if k < len(published) else None
            tally.total["board fit residual"] += 1
            if pub is not None and close(pub, new):
                tally.ok["board fit residual"] += 1
            else:
                tally.misses.append(f"board fit residual: {' '.join(f['key'])} #{k}: published {pub}, rebuilt {new}")
    if u.get("residualDraws") == "model":
        tally.check("board residual share", "c", u.get("residualShare"), residual_share(fits), 1e-12)
    elif u.get("residualDraws") == "source":
        c, source_share = residual_shares(fits)
        tally.check("board residual share", "c", u.get("residualShare"), c, 1e-12)
        tally.check("board residual share", "s", u.get("residualShareSource"), source_share, 1e-12)
    per_board = run_rounds(be, inputs)
    shared: dict = {}
    for board, r in zip(be["boards"], per_board):
        rebuilt, matrix = summarise(board, r, u, shared)
        for row in board["rows"] + board["new"]:
            got = rebuilt[row["identity"]]
            what = f"{board['id']} {row['identity']}"
            for field in ("r_lo", "r_hi"):
                pub, new = row.get(field), got[field]
                tally.total["board interval bound"] += 1
                if (pub is None and new is None) or (pub is not None and new is not None and close(pub, new)):
                    tally.ok["board interval bound"] += 1
                else:
                    tally.misses.append(f"board interval bound: {what} {field}: published {pub}, rebuilt {new}")
            for field, kind in (("rank_lo", "board rank range"), ("rank_hi", "board rank range"),
                                ("rank_ub", "board rank (UB)"), ("p_first", "board P(rank 1)"),
                                ("p_above", "board tie"), ("tied_above", "board tie"),
                                ("tie_leader", "board tie group"), ("p_leader", "board tie group"),
                                ("rounds_scored", "board rounds scored")):
                tally.total[kind] += 1
                if row.get(field) == got[field] and type(row.get(field)) is type(got[field]):
                    tally.ok[kind] += 1
                else:
                    tally.misses.append(f"{kind}: {what} {field}: published {row.get(field)}, rebuilt {got[field]}")
        pub = board.get("pairwise") or {}
        tally.total["board pairwise matrix"] += 1
        if pub.get("identities") == matrix["identities"] and pub.get("p_greater") == matrix["p_greater"]:
            tally.ok["board pairwise matrix"] += 1
        else:
            top = len(matrix["identities"])
            tally.misses.append(f"board pairwise matrix: {board['id']}: the published top-{top} matrix differs")


# ---------------------------------------------------------------- the Arena vote flip budgets
#
# arena-flips.json holds, per Arena board, the plain fit's votes per pair and outcome and each
# published flip budget: the votes whose removal puts the lower model of an adjacent pair above
# the higher one. Each budget is refitted here: plain Bradley-Terry maximum likelihood (a tie is
# half a win to each side; P(i beats j) = 1 / (1 + base ** ((r_j - r_i) / scale)); with
# reweighting each vote of pair p weighs 1 / max(n_p, minPair)) by Newton's method on the
# strongly connected group of the higher model, without the removed votes. The refit must put
# the lower model above (gapAfter = r_lower - r_higher > 0, as published), and, where the
# budget is published as minimal, one vote fewer (the last entry's count minus one) must not;
# a pair published as not flipped must keep its order without the votes checked. The
# style-controlled budgets are refitted the same way from their battles (see below).

FLIPS_FILE = "arena-flips.json"


def cholesky(h: list[list[float]]) -> tuple[list[list[float]], list[list[float]]]:
    """(L, L transposed) with h = L L^T (h symmetric positive definite), by dot products of rows."""
    n = len(h)
    low = [[0.0] * n for _ in range(n)]
    for i in range(n):
        li, hi = low[i], h[i]
        for j in range(i):
            lj = low[j]
            li[j] = (hi[j] - sum(map(mul, li[:j], lj[:j]))) / lj[j]
        d = hi[i] - sum(map(mul, li[:i], li[:i]))
        if not d > 0:
            raise ArithmeticError("the Hessian is not positive definite")
        li[i] = math.sqrt(d)
    return low, [list(col) for col in zip(*low)]


def cholesky_solve(factor: tuple[list[list[float]], list[list[float]]], g: list[float]) -> list[float]:
    """x with L L^T x = g."""
    low, up = factor
    n = len(g)
    y = [0.0] * n
    for i in range(n):
        y[i] = (g[i] - sum(map(mul, low[i][:i], y[:i]))) / low[i][i]
    x = [0.0] * n
    for i in range(n - 1, -1, -1):
        x[i] = (y[i] - sum(map(mul, up[i][i + 1:], x[i + 1:]))) / low[i][i]
    return x


def reachable(adj: Sequence[Iterable[int]], start: int) -> set[int]:
    """The codes reachable from ``start`` over ``adj`` (``start`` included)."""
    seen, todo = {start}, [start]
    while todo:
        for v in adj[todo.pop()]:
            if v not in seen:
                seen.add(v)
                todo.append(v)
    return seen


def strong_group(n: int, cells: list[tuple], start: int) -> list[int]:
    """Codes reachable from ``start`` and reaching it over edges u -> v (u beat or tied v)."""
    fwd: list[list[int]] = [[] for _ in range(n)]
    bwd: list[list[int]] = [[] for _ in range(n)]
    for i, j, wi, wj, t in cells:
        if wi + t > 0:
            fwd[i].append(j)
            bwd[j].append(i)
        if wj + t > 0:
            fwd[j].append(i)
            bwd[i].append(j)

    return sorted(reachable(fwd, start) & reachable(bwd, start))


def fit_plain_bt(board: dict, cells: list[tuple], around: int) -> dict[int, float]:
    """Plain Bradley-Terry ratings (Arena points, up to a shift) of the strongly connected group
    of model ``around``, from ``cells`` [(i, j, wins_i, wins_j, ties)], warm-started at the
    published ratings."""
    scale, base = board["scale"], board["base"]
    c = math.log(base) / scale
    group = strong_group(len(board["models"]), cells, around)
    pos = {k: p for p, k in enumerate(group)}
    pairs = []
    for i, j, wi, wj, t in cells:
        n = wi + wj + t
        if n > 0 and i in pos and j in pos:
            w = 1.0 / max(n, board["minPair"]) if board["reweight"] else 1.0
            pairs.append((pos[i], pos[j], w * (wi + t / 2), w * n))
    m = len(group)
    published = board["ratings"]
    theta = [c * (published.get(board["models"][k]) or 0.0) for k in group]
    theta = [x - theta[-1] for x in theta]

    def loglik(th: list[float]) -> float:
        total = 0.0
        for i, j, s, n in pairs:
            x = th[i] - th[j]
            ls = math.log1p(math.exp(-x)) if x > 0 else -x + math.log1p(math.exp(x))  # -log sigmoid(x)
            total -= s * ls + (n - s) * (ls + x)
        return total

    ll = loglik(theta)
    for _ in range(100):
        grad = [0.0] * m
        h = [[0.0] * m for _ in range(m)]
        for i, j, s, n in pairs:
            p = 1.0 / (1.0 + math.exp(-(theta[i] - theta[j])))
            r = s - n * p
            grad[i] += r
            grad[j] -= r
            w = n * p * (1.0 - p)
            h[i][i] += w
            h[j][j] += w
            h[i][j] -= w
            h[j][i] -= w
        if m < 2:
            break
        # the last model is held at 0: its row and column dropped, the rest is positive definite
        step = cholesky_solve(cholesky([row[:-1] for row in h[:-1]]), grad[:-1]) + [0.0]
        t = 1.0
        while True:
            cand = [a + t * d for a, d in zip(theta, step)]
            ll_new = loglik(cand)
            if ll_new >= ll - 1e-12 * abs(ll) or t < 1e-8:
                break
            t /= 2
        theta, ll = cand, ll_new
        if max(abs(t * d) for d in step) < 1e-11:
            break
    return {k: theta[pos[k]] / c for k in group}


def flip_gap_after(board: dict, removed: list[dict], higher: str, lower: str) -> float | None:
    """r_lower - r_higher after refitting without ``removed``; None when they are not both rated."""
    models = board["models"]
    code = {name: k for k, name in enumerate(models)}
    cnt = board["counts"]
    cells = {(i, j): [wi, wj, t] for i, j, wi, wj, t in
             zip(cnt["i"], cnt["j"], cnt["winsI"], cnt["winsJ"], cnt["ties"])}
    for v in removed:
        slot = {"model_a": 0, "model_b": 1, "tie": 2}[v["outcome"]]
        cells[(code[v["modelA"]], code[v["modelB"]])][slot] -= v["count"]
    ratings = fit_plain_bt(board, [(i, j, *c) for (i, j), c in cells.items()], code[higher])
    if code[lower] not in ratings:
        return None
    return ratings[code[lower]] - ratings[code[higher]]


def recompute_flips(fl: dict, tally: Tally, location: str | None = None) -> None:
    """Refit every published flip budget, plain and (with the battles beside it, read from
    ``location``) style-controlled (see the section comment)."""
    for board in fl["boards"]:
        if board.get("fit") == "style" and location is not None:
            try:
                data = load_bytes(location, board["battles"])
            except FileNotFoundError:
                tally.total["styled battles file"] += 1
                tally.misses.append(f"styled battles file: {board['id']}: no {board['battles']}")
                continue
            recompute_styled_flips(board, data, tally)
            continue
        if board.get("fit") != "plain":
            continue
        for f in board["flips"]:
            what = f"{board['id']}: {f['lower']} above {f['higher']}"
            if not f["flipped"]:
                after = flip_gap_after(board, f["removed"], f["higher"], f["lower"])
                tally.check("arena flip (no reversal)", what, 1, 1 if after is None or after <= 0 else 0, 0)
                continue
            after = flip_gap_after(board, f["removed"], f["higher"], f["lower"])
            tally.check("arena flip (reverses)", what, 1, 1 if after is not None and after > 0 else 0, 0)
            tally.check("arena flip gap after", what, f["gapAfter"], None if after is None else round(after, 4),
                        2e-3)
            if f["minimal"] and f["removed"]:
                fewer = [dict(v) for v in f["removed"]]
                fewer[-1]["count"] -= 1
                after = flip_gap_after(board, [v for v in fewer if v["count"] > 0], f["higher"], f["lower"])
                tally.check("arena flip (one fewer holds)", what, 1, 1 if after is None or after <= 0 else 0, 0)


# The style-controlled budgets. A styled board of arena-flips.json names its battles file
# (styled-battles-<board>.csv.gz: per battle in file order the two model codes, the outcome
# 0 / 1 / 2 for a win of model_a, of model_b, a tie of either kind, and each raw feature),
# the fit's settings and its published ratings and coefficients. The fit:
#
#     f = (raw - mean) / sd              over the battles fitted (population sd, 0 read as 1)
#     z = r_a - r_b + f . beta,          y = 1, 0 or 1/2
#     loss = -(1/n) sum w (y z - log(1 + e^z)) + (reg / 2) |beta|^2
#
# with w = 1, or with reweighting 1 / max(battles of the unordered pair, minPair) scaled to
# mean 1, and each group's ratings of mean 0 (Arena points: init + r scale / ln base). The
# main strongly connected group of each connected component is fitted; the other battles
# count in n, the mean, the sd and the weights only. The whole fit is rerun first, from the
# published ratings, and must reproduce them (ratings within 0.006 points, beta within 1e-6).
# A budget removes from each cell (unordered pair and outcome) its first ``count`` battles in
# file order; the refit standardises and weights the battles left again and is checked like
# a plain one (it reverses the pair, gapAfter within 2e-3, one vote fewer does not reverse;
# a pair not flipped keeps its order).
#
# Every fit is Newton's method on the ratings and coefficients together; the refits start
# from the whole fit and are made cheap by two exact rewritings and one expansion.
# (1) With the whole fit's mean m and sd s, the features of the battles left are
# (s / s') (f + q), q = (m - m') / s, so in eta = beta' s / s' a refit is the same problem on
# f + q with the penalty (reg W / 2) sum (s'_j / s_j)^2 eta_j^2 (W the mean of the unscaled
# weights left): no feature column is standardised again. (2) The battles are kept sorted by
# ordered pair (a, b), so the ratings' part of the gradient and Hessian comes from per-pair
# sums, and the coefficients' from whole-column sums. (3) A pair whose logits all moved by at
# most STYLED_TAYLOR from the whole fit (the pair's shift D plus the largest f . v) is summed
# from the whole fit's per-pair sums of the loss's first, second and third derivatives times
# the features: the gradient to second order in D and first in f . v, whose remainder is
# about |dz|^3 / 48 per battle (under 2.1e-8 log-odds), its parts linear in the change summed
# per model once. The pairs that lost battles, their twins (the other way round, whose
# weight changed) and those that moved more are summed battle by battle at every step. A fit
# ends after a step below STYLED_STEP, or below STYLED_NEWTON when the Hessian was rebuilt at
# its start (Newton's error left is then about the step's square); the Hessian is rebuilt
# after steps above STYLED_REBUILD and reused otherwise. On the demo's 25,542 battles the
# refitted gaps agree with the site's own refits within 1e-5 points.

STYLED_STEP = 1e-7
"A fit ends after a step below this many log-odds."
STYLED_REBUILD = 1e-3
"After a step above this many log-odds the Hessian is rebuilt at the new point, else the last one is reused."
STYLED_NEWTON = 1e-4
"Or after a step below this many log-odds by the Hessian at its own starting point."
STYLED_TAYLOR = 1e-2
"Largest logit change (log-odds) of a battle whose ordered pair is summed by the expansion."
STYLED_ITER = 60
"Most Newton steps of one fit."


def sigmoid_column(z: Iterable[float]) -> list[float]:
    """1 / (1 + e^-z) of every z (whole-column C loops; a logit below -700 element by element)."""
    from operator import neg

    z = list(z)
    try:
        return list(map(truediv, repeat(1.0), map(add, repeat(1.0), map(math.exp, map(neg, z)))))
    except OverflowError:
        return [1.0 / (1.0 + math.exp(-x)) if x > -700 else math.exp(x) for x in z]


def main_groups(n_models: int, cells: list[tuple]) -> list[list[int]]:
    """The main strongly connected group of each connected component of the battle graph
    (most models, then most battles, then the lowest code), from cells (i, j, wins_i, wins_j, ties)."""
    adj: list[set[int]] = [set() for _ in range(n_models)]
    played = [0.0] * n_models
    for i, j, wi, wj, t in cells:
        if wi + wj + t > 0:
            adj[i].add(j)
            adj[j].add(i)
            played[i] += wi + wj + t
            played[j] += wi + wj + t
    seen: set[int] = set()
    out = []
    for s in range(n_models):
        if s in seen or not adj[s]:
            continue
        comp = reachable(adj, s)
        seen |= comp
        left, groups = set(comp), []
        while left:
            g = strong_group(n_models, cells, min(left))
            groups.append(g)
            left -= set(g)
        out.append(max(groups, key=lambda g: (len(g), sum(played[x] for x in g), -g[0])))
    return out


class StyledBattles:
    """One styled board's battles, sorted by ordered pair (a, b) (file order within), and its fits."""

    Y = (1.0, 0.0, 0.5)

    def __init__(self, board: dict, data: bytes) -> None:
        import gzip
        from bisect import bisect_left
        from operator import itemgetter, mod

        self.board = board
        features = list(board["features"])
        try:
            text = gzip.decompress(data).decode("ascii")
        except (OSError, EOFError, UnicodeDecodeError) as exc:
            raise InputError(f"{board['battles']}: not a gzip CSV ({exc})") from None
        header, _, body = text.partition("\n")
        if header.split(",") != ["model_a", "model_b", "outcome", *features]:
            raise InputError(f"{board['battles']}: header {header!r}, expected model_a,model_b,outcome,"
                             + ",".join(features))
        k, nm = len(features), len(board["models"])
        cells = body.replace("\n", ",").split(",")[:-1]  # every row ends in a newline
        width = 3 + k
        n = len(cells) // width
        if n < 2 or len(cells) != n * width:
            raise InputError(f"{board['battles']}: {n} battles, or a row without {width} fields")
        cols = [cells[j::width] for j in range(width)]
        self.n, self.k, self.n_models = n, k, nm
        try:
            a, b, out = list(map(int, cols[0])), list(map(int, cols[1])), list(map(int, cols[2]))
            raw = [list(map(float, c)) for c in cols[3:3 + k]]
        except ValueError as exc:
            raise InputError(f"{board['battles']}: {exc}") from None
        if not set(out) <= {0, 1, 2} or min(a + b) < 0 or max(a + b) >= nm:
            raise InputError(f"{board['battles']}: an outcome not 0, 1 or 2, or a model code outside the models")
        self.raw = raw
        # sorted by ordered pair, then outcome, then file order: a slice's cells lie side by side
        key = list(map(add, map(mul, map(add, map(mul, a, repeat(nm)), b), repeat(3)), out))
        order = sorted(range(n), key=key.__getitem__)
        self.file_of = order  # sorted position -> file index
        skey = list(map(key.__getitem__, order))
        cell_keys = sorted(set(key))
        cell_start = [bisect_left(skey, x) for x in cell_keys] + [n]
        self.sa: list[int] = []
        self.sb: list[int] = []
        self.start: list[int] = []
        self.stop: list[int] = []
        self.wins: list[list[int]] = []
        for x, at, end in zip(cell_keys, cell_start, cell_start[1:]):
            pair, o = divmod(x, 3)
            if not self.sa or self.sa[-1] * nm + self.sb[-1] != pair:
                self.sa.append(pair // nm)
                self.sb.append(pair % nm)
                self.start.append(at)
                self.stop.append(end)
                self.wins.append([0, 0, 0])
            self.stop[-1] = end
            self.wins[-1][o] = end - at
        self.slice_id = {(x, y): s for s, (x, y) in enumerate(zip(self.sa, self.sb))}
        get = itemgetter(*order)
        self.out_sorted = list(map(mod, skey, repeat(3)))
        self.y = list(map(self.Y.__getitem__, self.out_sorted))
        # the whole fit's standardisation (mean, population sd, 0 read as 1)
        self.sum_raw = [math.fsum(c) for c in raw]
        self.mean = [x / n for x in self.sum_raw]
        self.ssd = [math.fsum(map(mul, d, d)) for d in (list(map(sub, c, repeat(mu))) for c, mu in zip(raw, self.mean))]
        self.sd = [math.sqrt(v / n) or 1.0 for v in self.ssd]
        self.f = [list(map(truediv, map(sub, get(c), repeat(mu)), repeat(sd)))
                  for c, mu, sd in zip(raw, self.mean, self.sd)]
        self.fmax = [max(map(abs, c)) for c in self.f]
        self.whole = self.structure({})

    # ------------------------------------------------------------ which battles a budget removes

    def removed_positions(self, removed: list[dict]) -> list[int]:
        """Sorted positions of a budget's votes: the first ``count`` battles in file order of each cell."""
        code = {m: c for c, m in enumerate(self.board["models"])}
        out = []
        for v in removed:
            lo, hi = code[v["modelA"]], code[v["modelB"]]
            cand = []
            for x, y in ((lo, hi), (hi, lo)):
                s = self.slice_id.get((x, y))
                if s is None:
                    continue
                want = 2 if v["outcome"] == "tie" else 0 if (lo if v["outcome"] == "model_a" else hi) == x else 1
                cand += [p for p in range(self.start[s], self.stop[s]) if self.out_sorted[p] == want]
            taken = sorted(cand, key=self.file_of.__getitem__)[:v["count"]]
            if len(taken) < v["count"]:
                raise InputError(f"{self.board['battles']}: fewer battles than removed for {v}")
            out += taken
        return sorted(set(out))

    # ------------------------------------------------------------ the battles left

    def structure(self, left_by_slice: dict[int, list[int]]) -> dict:
        """Weights, groups and fitted slices when the slices in ``left_by_slice`` keep only those
        outcome counts (won by a, by b, tied) and every other slice all its battles."""
        board = self.board
        pair: dict[tuple[int, int], list[int]] = defaultdict(lambda: [0, 0, 0])  # (lo, hi): lo won, hi won, ties
        for s, (x, y) in enumerate(zip(self.sa, self.sb)):
            w = left_by_slice.get(s, self.wins[s])
            c = pair[(x, y) if x < y else (y, x)]
            if x < y:
                c[0] += w[0]
                c[1] += w[1]
            else:
                c[0] += w[1]
                c[1] += w[0]
            c[2] += w[2]
        groups = main_groups(self.n_models, [(i, j, *c) for (i, j), c in pair.items()])
        group_of = {m: g for g, members in enumerate(groups) for m in members}
        count = [sum(left_by_slice.get(s, self.wins[s])) for s in range(len(self.sa))]
        fitted = [s for s, (x, y) in enumerate(zip(self.sa, self.sb))
                  if count[s] and x in group_of and group_of[x] == group_of.get(y)]
        if board["reweight"]:
            per = {p: 1.0 / max(sum(c), board["minPair"]) for p, c in pair.items()}
            u = [per[(x, y) if x < y else (y, x)] for x, y in zip(self.sa, self.sb)]
        else:
            u = [1.0] * len(self.sa)
        members = [m for g in groups for m in g]
        local = {m: x for x, m in enumerate(members)}
        on = set(fitted)
        by_a: dict[int, list[int]] = defaultdict(list)
        by_b: dict[int, list[int]] = defaultdict(list)
        for s in fitted:
            by_a[local[self.sa[s]]].append(s)
            by_b[local[self.sb[s]]].append(s)
        return {"pair": dict(pair), "groups": groups, "group_of": group_of, "fitted": fitted,
                "mask": [1.0 if s in on else 0.0 for s in range(len(self.sa))], "u": u,
                "wsum": math.fsum(map(mul, u, count)), "count": count, "members": members, "local": local,
                "by_a": [by_a[x] for x in range(len(members))], "by_b": [by_b[x] for x in range(len(members))]}

    def prepare(self, gone_positions: list[int]) -> dict:
        """What a fit without the battles at ``gone_positions`` needs: n, the shift q and ratio
        s'/s of the standardisation, the slices' weights u and W (their mean over the battles
        left), the main groups and the slices fitted (both models in one)."""
        from bisect import bisect_right as right

        k = self.k
        gone: dict[int, list[int]] = defaultdict(list)
        for pos in gone_positions:
            gone[right(self.start, pos) - 1].append(pos)
        n = self.n - len(gone_positions)
        q, rho = [], []
        for j in range(k):
            vals = [self.raw[j][self.file_of[pos]] for pos in gone_positions]
            mean = (self.sum_raw[j] - math.fsum(vals)) / n
            ssd = self.ssd[j] - math.fsum((x - self.mean[j]) ** 2 for x in vals) - n * (mean - self.mean[j]) ** 2
            q.append((self.mean[j] - mean) / self.sd[j])
            rho.append((math.sqrt(max(ssd, 0.0) / n) or 1.0) / self.sd[j])
        left = {}
        for s, positions in gone.items():
            w = self.wins[s][:]
            for pos in positions:
                w[self.out_sorted[pos]] -= 1
            left[s] = w
        st = self.whole
        if left:
            # Only the pairs that lost battles change: their weights always, the groups only
            # when an edge of the battle graph went (a pair lost every win of one side) and the
            # main groups of the graph left differ.
            pair: dict[tuple[int, int], list[int]] = {}
            for s, w in left.items():
                x, y = self.sa[s], self.sb[s]
                p = (x, y) if x < y else (y, x)
                c = pair.setdefault(p, st["pair"][p][:])
                lost = [self.wins[s][o] - w[o] for o in range(3)]
                c[0] -= lost[0] if x < y else lost[1]
                c[1] -= lost[1] if x < y else lost[0]
                c[2] -= lost[2]
            old = st["pair"]
            if any((c[0] + c[2] > 0) != (old[p][0] + old[p][2] > 0) or (c[1] + c[2] > 0) != (old[p][1] + old[p][2] > 0)
                   for p, c in pair.items()) and main_groups(
                    self.n_models, [(i, j, *pair.get((i, j), c)) for (i, j), c in old.items()]) != st["groups"]:
                st = self.structure(left)
            else:  # the same groups and slices: the touched pairs' weights and the weights' sum
                u, wsum = st["u"][:], st["wsum"]
                for p, c in pair.items():
                    new = 1.0 / max(sum(c), self.board["minPair"]) if self.board["reweight"] else 1.0
                    for t in (self.slice_id.get(p), self.slice_id.get(p[::-1])):
                        if t is not None:
                            wsum += new * sum(left.get(t, self.wins[t])) - u[t] * sum(self.wins[t])
                            u[t] = new
                st = {**st, "u": u, "wsum": wsum}
        return {"gone": dict(gone), "n": n, "q": q, "rho": rho, "W": st["wsum"] / n, **st}

    # ------------------------------------------------------------ sums

    def per_slice(self, col: list[float], ids: Any) -> list[float]:
        """Sums of ``col`` (the battles of slices ``ids``, ascending, one after the other) per
        slice: by differences of running sums when the slices are many (C loops)."""
        from itertools import accumulate
        from operator import itemgetter

        lens = [self.stop[s] - self.start[s] for s in ids]
        cuts = list(accumulate(lens, initial=0))
        if len(lens) < 64:
            return [sum(col[x:e]) for x, e in zip(cuts, cuts[1:])]
        run = list(accumulate(col, initial=0.0))
        return list(map(sub, itemgetter(*cuts[1:])(run), itemgetter(*cuts[:-1])(run)))

    def exact(self, ids: list[int], r: list[float], eta: list[float], c: float, u: list[float],
              gone: dict[int, list[int]], hessian: bool = True, third: bool = False) -> dict:
        """Sums over the battles of slices ``ids`` (ascending) at ratings ``r`` (per model code),
        ``eta`` and the constant ``c`` (q . eta), without the battles ``gone`` (slice -> positions).
        Per slice, unweighted: A (sum of p - y); with ``hessian`` H (sum of h = p (1 - p)) and
        HF[j] (sum of h f_j); with ``third`` also G[j] (sum of (p - y) f_j), T (sum of
        t = h (1 - 2p)), TF[j] and HFF (sums of h f_j f_l, j <= i2). Over all,
        weighted by the slices' u: B[j] (sum of u (p - y) f_j), with ``hessian`` HFF_all (sum of
        u h f_j f_l)."""
        from itertools import chain

        k = self.k
        spans = [(self.start[s], self.stop[s]) for s in ids]
        if len(ids) == len(self.start):
            f, y = self.f, self.y
        else:
            f = [list(chain.from_iterable(col[s:e] for s, e in spans)) for col in self.f]
            y = list(chain.from_iterable(self.y[s:e] for s, e in spans))
        lens = [e - s for s, e in spans]
        d = map(add, map(sub, map(r.__getitem__, map(self.sa.__getitem__, ids)),
                         map(r.__getitem__, map(self.sb.__getitem__, ids))), repeat(c))
        z: Iterable[float] = chain.from_iterable(map(repeat, d, lens))  # r_a - r_b + c per battle
        for j in range(k):
            z = map(add, z, map(mul, f[j], repeat(eta[j])))
        p = sigmoid_column(z)
        resid = list(map(sub, p, y))

        def per_slice(col: list[float]) -> list[float]:
            return self.per_slice(col, ids)

        weighted = any(u[s] != 1.0 for s in ids)
        w = list(chain.from_iterable(map(repeat, map(u.__getitem__, ids), lens))) if weighted else None
        wres = list(map(mul, resid, w)) if w is not None else resid
        res: dict[str, Any] = {"A": per_slice(resid), "B": [sum(map(mul, wres, fj)) for fj in f]}
        if hessian or third:
            h = list(map(mul, p, map(sub, repeat(1.0), p)))
            hf = [list(map(mul, h, fj)) for fj in f]
            whf = [list(map(mul, x, w)) for x in hf] if w is not None else hf
            res["H"] = per_slice(h)
            res["HF"] = [per_slice(x) for x in hf]
            res["HFF_all"] = [[sum(map(mul, whf[j], f[i2])) for i2 in range(k)] for j in range(k)]
        if third:
            t = list(map(mul, h, map(sub, repeat(1.0), map(add, p, p))))
            tf = [list(map(mul, t, fj)) for fj in f]
            res["G"] = [per_slice(list(map(mul, resid, fj))) for fj in f]
            res["T"] = per_slice(t)
            res["TF"] = [per_slice(x) for x in tf]
            res["HFF"] = {(j, i2): per_slice(list(map(mul, hf[j], f[i2]))) for j in range(k) for i2 in range(j, k)}
        # the battles removed
        where = {s: x for x, s in enumerate(ids)}
        for s, positions in gone.items():
            x = where.get(s)
            if x is None:
                continue
            shift = r[self.sa[s]] - r[self.sb[s]] + c
            for pos in positions:
                fv = [col[pos] for col in self.f]
                pp = sigmoid_column([shift + sum(map(mul, fv, eta))])[0]
                rr, hh = pp - self.y[pos], pp * (1.0 - pp)
                res["A"][x] -= rr
                for j in range(k):
                    res["B"][j] -= u[s] * rr * fv[j]
                if "H" in res:
                    res["H"][x] -= hh
                    for j in range(k):
                        res["HF"][j][x] -= hh * fv[j]
                        for i2 in range(k):
                            res["HFF_all"][j][i2] -= u[s] * hh * fv[j] * fv[i2]
        return res

    def expansion(self, base: dict, model: list[float], u: list[float], pre: dict) -> dict:
        """What the expansion around ``base`` (the whole fit) gives the slices where ``model``
        is 1.0 (weights ``u``), in each battle's logit change dz = D + f . v (D = dr_a - dr_b + c
        its slice's, dr the ratings' change, v eta's): the sums to second order in D and first
        in f . v. The parts linear in the change per model (its slices as a minus as b: g,
        hsign, hfsign, the Laplacian lap of u H) and in total, and the columns of the rest."""
        k, nm, local, by_a, by_b = self.k, len(pre["members"]), pre["local"], pre["by_a"], pre["by_b"]
        ur = list(map(mul, u, model))
        uh = list(map(mul, ur, base["H"]))
        ug = list(map(mul, ur, base["A"]))
        uhf = [list(map(mul, ur, col)) for col in base["HF"]]

        def signed(col: list[float]) -> list[float]:
            return [sum(map(col.__getitem__, by_a[x])) - sum(map(col.__getitem__, by_b[x])) for x in range(nm)]

        hfsign = [list(row) for row in zip(*(signed(col) for col in uhf))] if k else [[] for _ in range(nm)]
        lap = [[0.0] * nm for _ in range(nm)]
        for x in range(nm):
            lap[x][x] = sum(map(uh.__getitem__, by_a[x])) + sum(map(uh.__getitem__, by_b[x]))
        for s in pre["fitted"]:
            if model[s]:
                x, y = local[self.sa[s]], local[self.sb[s]]
                lap[x][y] -= uh[s]
                lap[y][x] -= uh[s]
        return {"ur": ur, "g": signed(ug), "hsign": signed(uh), "hfsign": hfsign, "lap": lap, "g_tot": sum(ug),
                "h_tot": sum(uh), "hf_tot": [sum(col) for col in uhf],
                "gf_tot": [sum(map(mul, ur, col)) for col in base["G"]],
                "hff": [[sum(map(mul, ur, base["HFF"][(min(j, i2), max(j, i2))])) for i2 in range(k)]
                        for j in range(k)],
                "t_half": list(map(mul, map(mul, ur, base["T"]), repeat(0.5))),
                "tf_half": [list(map(mul, map(mul, ur, col), repeat(0.5))) for col in base["TF"]]}

    def without(self, e: dict, slices: Iterable[int], base: dict, pre: dict) -> None:
        """Take ``slices`` out of an expansion ``e`` (in place): each slice's own part, at the
        weight it was summed with."""
        k, local = self.k, pre["local"]
        ur, hsign, hfsign, lap, g = e["ur"], e["hsign"], e["hfsign"], e["lap"], e["g"]
        for s in slices:
            w = ur[s]
            if not w:
                continue
            a, b = local[self.sa[s]], local[self.sb[s]]
            ga, ha = w * base["A"][s], w * base["H"][s]
            g[a] -= ga
            g[b] += ga
            hsign[a] -= ha
            hsign[b] += ha
            lap[a][a] -= ha
            lap[b][b] -= ha
            lap[a][b] += ha
            lap[b][a] += ha
            e["g_tot"] -= ga
            e["h_tot"] -= ha
            for j in range(k):
                hf = w * base["HF"][j][s]
                hfsign[a][j] -= hf
                hfsign[b][j] += hf
                e["hf_tot"][j] -= hf
                e["gf_tot"][j] -= w * base["G"][j][s]
                e["tf_half"][j][s] = 0.0
                for i2 in range(j, k):
                    x = w * base["HFF"][(j, i2)][s]
                    e["hff"][j][i2] -= x
                    if i2 != j:
                        e["hff"][i2][j] -= x
            ur[s] = 0.0
            e["t_half"][s] = 0.0

    @staticmethod
    def copied(e: dict) -> dict:
        """A copy of an expansion that ``without`` can change."""
        return {key: ([row[:] for row in val] if key in ("lap", "hfsign", "hff", "tf_half") else
                      val[:] if isinstance(val, list) else val) for key, val in e.items()}

    # ------------------------------------------------------------ a fit

    def setup(self, gone_positions: list[int]) -> dict:
        """``prepare`` and the unknowns: the members' ratings but one per group, then eta."""
        pre = self.prepare(gone_positions)
        nm, k = len(pre["members"]), self.k
        fixed = {pre["local"][g[-1]] for g in pre["groups"]}
        pre["free"] = [x for x in range(nm + k) if x not in fixed]
        pre["penalty"] = [pre["n"] * self.board["reg"] * pre["W"] * x * x for x in pre["rho"]]
        return pre

    def finish(self, pre: dict, r: list[float], eta: list[float], step: list[float]) -> float:
        """Apply a step over the free unknowns; its largest size."""
        nm, members = len(pre["members"]), pre["members"]
        for x, d in zip(pre["free"], step):
            if x < nm:
                r[members[x]] += d
            else:
                eta[x - nm] += d
        return max(map(abs, step), default=0.0)

    def result(self, pre: dict, r: list[float], eta: list[float], **more: Any) -> dict:
        for grp in pre["groups"]:
            mid = math.fsum(r[m] for m in grp) / len(grp)
            for m in grp:
                r[m] -= mid
        return {"r": r, "beta": [e * x for e, x in zip(eta, pre["rho"])], "eta": eta, "group_of": pre["group_of"],
                **more}

    def fit(self, r: list[float], eta: list[float]) -> dict:
        """The whole fit by Newton's method from (r, eta) (log-odds per model code; eta per
        feature), battle by battle. Returns ratings ``r`` (each group's mean 0), ``beta``,
        ``eta``, ``group_of``, ``lu`` (the last factorised Hessian) and ``base``: the sums of
        the last pass, which the expansion of every refit starts from."""
        pre = self.setup([])
        k, q, u, free = self.k, pre["q"], pre["u"], pre["free"]
        nm, by_a, by_b, ids = len(pre["members"]), pre["by_a"], pre["by_b"], pre["fitted"]
        uf = list(map(mul, u, pre["mask"]))
        r, eta = list(r), list(eta)
        lu, base, rebuild = None, None, True
        for _ in range(STYLED_ITER):
            c = sum(map(mul, q, eta))
            ex = self.exact(ids, r, eta, c, u, {}, hessian=rebuild, third=True)
            base = self.base_of(ex, ids, list(r), list(eta))
            aw = list(map(mul, uf, base["A"]))
            g = [sum(map(aw.__getitem__, by_a[x])) - sum(map(aw.__getitem__, by_b[x])) for x in range(nm)]
            total = sum(aw)
            g += [ex["B"][j] + q[j] * total + pre["penalty"][j] * eta[j] for j in range(k)]
            if rebuild:
                sums = {"H": base["H"], "HF": base["HF"], "HFF_all": ex["HFF_all"]}
                lu = (pre["members"], cholesky(self.hessian(sums, pre, q, pre["penalty"], uf, free)))
            assert lu is not None
            size = self.finish(pre, r, eta, cholesky_solve(lu[1], [-g[x] for x in free]))
            if size < STYLED_STEP or (rebuild and size < STYLED_NEWTON):
                break
            rebuild = size > STYLED_REBUILD
        return self.result(pre, r, eta, lu=lu, base=base)

    def refit(self, gone_positions: list[int], r: list[float], eta: list[float], base: dict, lu: Any = None,
              exact_from: Iterable[int] = ()) -> dict:
        """The fit without the battles at ``gone_positions`` by Newton's method from (r, eta),
        the slices whose logits moved little by the expansion around ``base``, the others
        battle by battle. ``lu``: a factorised Hessian to start with (used when the members
        match); ``exact_from``: slices to sum battle by battle from the start (a nearby
        refit's). Returns what ``fit`` does but ``base``, and ``exact`` (the slices summed
        battle by battle)."""
        pre = self.setup(gone_positions)
        k, q, u, free, penalty = self.k, pre["q"], pre["u"], pre["free"], pre["penalty"]
        members, local, mask, gone = pre["members"], pre["local"], pre["mask"], pre["gone"]
        nm, by_a, by_b = len(members), pre["by_a"], pre["by_b"]
        r, eta = list(r), list(eta)
        # the slices whose pair lost battles are summed battle by battle, and their twins
        # (the same pair the other way round, whose weight changed)
        twins = {self.slice_id.get((self.sb[s], self.sa[s])) for s in gone}
        exact_set = {s for s in (*gone, *twins, *exact_from) if s is not None and mask[s]}
        if lu is not None and lu[0] != members:
            lu = None
        rebuild = lu is None
        r0, d0, eta0 = base["r"], base["d"], base["eta"]
        # the expansion of every slice fitted, less those summed battle by battle
        if members == base["members"]:
            whole = base.get("expansion")
            if whole is None:
                whole = base["expansion"] = self.expansion(base, base["mask"], base["u"], self.whole)
            e = self.copied(whole)
            self.without(e, [s for s in range(len(mask)) if not mask[s] or s in exact_set], base, pre)
        else:
            model = mask[:]
            for s in exact_set:
                model[s] = 0.0
            e = self.expansion(base, model, u, pre)
        for _ in range(STYLED_ITER):
            c = sum(map(mul, q, eta))
            v = list(map(sub, eta, eta0))
            lim = STYLED_TAYLOR - sum(abs(x) * m for x, m in zip(v, self.fmax))
            D = list(map(add, map(sub, map(sub, map(r.__getitem__, self.sa), map(r.__getitem__, self.sb)), d0),
                         repeat(c)))
            moved = [s for s, x in enumerate(map(abs, D)) if x > lim and mask[s] and s not in exact_set]
            if moved:
                exact_set.update(moved)
                self.without(e, moved, base, pre)
            # the expansion: linear parts per model, then the rest slice by slice
            dr = [r[m] - r0[m] for m in members]
            dd = list(map(mul, D, D))
            tfv = [0.0] * len(D)
            for j in range(k):
                tfv = list(map(add, tfv, map(mul, base["TF"][j], repeat(v[j]))))
            rest = list(map(add, map(mul, e["t_half"], dd), map(mul, map(mul, e["ur"], D), tfv)))
            g = [e["g"][x] + sum(map(mul, e["lap"][x], dr)) + c * e["hsign"][x] + sum(map(mul, e["hfsign"][x], v))
                 + sum(map(rest.__getitem__, by_a[x])) - sum(map(rest.__getitem__, by_b[x])) for x in range(nm)]
            total = (e["g_tot"] + sum(map(mul, dr, e["hsign"])) + c * e["h_tot"] + sum(map(mul, e["hf_tot"], v))
                     + sum(rest))
            B = [e["gf_tot"][j] + sum(x[j] * y for x, y in zip(e["hfsign"], dr)) + c * e["hf_tot"][j]
                 + sum(map(mul, e["hff"][j], v)) + sum(map(mul, e["tf_half"][j], dd)) for j in range(k)]
            # the slices summed battle by battle
            ids = sorted(exact_set)
            hm = None
            if rebuild:  # the expansion's part at base, then the slices summed battle by battle
                hm = [row + [0.0] * k for row in e["lap"]] + [[0.0] * (nm + k) for _ in range(k)]
                for x in range(nm):
                    for j in range(k):
                        hm[x][nm + j] = hm[nm + j][x] = e["hfsign"][x][j] + q[j] * e["hsign"][x]
                for j in range(k):
                    for i2 in range(k):
                        hm[nm + j][nm + i2] = (e["hff"][j][i2] + q[j] * e["hf_tot"][i2] + q[i2] * e["hf_tot"][j]
                                               + q[j] * q[i2] * e["h_tot"])
            if ids:
                ex = self.exact(ids, r, eta, c, u, gone, hessian=rebuild)
                for x, s in enumerate(ids):
                    a, b, w = local[self.sa[s]], local[self.sb[s]], u[s]
                    aw = w * ex["A"][x]
                    g[a] += aw
                    g[b] -= aw
                    total += aw
                    if hm is not None:
                        hw = w * ex["H"][x]
                        ra, rb = hm[a], hm[b]
                        ra[a] += hw
                        rb[b] += hw
                        ra[b] -= hw
                        rb[a] -= hw
                        for j in range(k):
                            hfw = w * ex["HF"][j][x]
                            cp = hfw + q[j] * hw
                            ra[nm + j] += cp
                            rb[nm + j] -= cp
                            hm[nm + j][a] += cp
                            hm[nm + j][b] -= cp
                B = list(map(add, B, ex["B"]))
                if hm is not None:
                    h_e = sum(u[s] * ex["H"][x] for x, s in enumerate(ids))
                    hf_e = [sum(u[s] * ex["HF"][j][x] for x, s in enumerate(ids)) for j in range(k)]
                    for j in range(k):
                        for i2 in range(k):
                            hm[nm + j][nm + i2] += (ex["HFF_all"][j][i2] + q[j] * hf_e[i2] + q[i2] * hf_e[j]
                                                   + q[j] * q[i2] * h_e)
            g += [B[j] + q[j] * total + penalty[j] * eta[j] for j in range(k)]
            if hm is not None:
                for j in range(k):
                    hm[nm + j][nm + j] += penalty[j]
                lu = (members, cholesky([[hm[x][y] for y in free] for x in free]))
            size = self.finish(pre, r, eta, cholesky_solve(lu[1], [-g[x] for x in free]))
            if size < STYLED_STEP or (rebuild and size < STYLED_NEWTON):
                break
            rebuild = size > STYLED_REBUILD
        return self.result(pre, r, eta, lu=lu, exact=exact_set)

    def hessian(self, sums: dict, pre: dict, q: list[float], penalty: list[float], uf: list[float],
                free: list[int]) -> list[list[float]]:
        """The Hessian of n * loss over the free unknowns, from the per-slice sums: per model
        from its slices' sums (``by_a``, ``by_b``), the ratings' off-diagonal per slice."""
        k, nm, local, by_a, by_b = self.k, len(pre["members"]), pre["local"], pre["by_a"], pre["by_b"]
        size = nm + k
        hm = [[0.0] * size for _ in range(size)]
        hw = list(map(mul, uf, sums["H"]))
        hfw = [list(map(mul, uf, col)) for col in sums["HF"]]
        cross = [list(map(add, col, map(mul, hw, repeat(qj)))) for col, qj in zip(hfw, q)]
        for x in range(nm):
            row, ia, ib = hm[x], by_a[x], by_b[x]
            row[x] = sum(map(hw.__getitem__, ia)) + sum(map(hw.__getitem__, ib))
            for j in range(k):
                row[nm + j] = sum(map(cross[j].__getitem__, ia)) - sum(map(cross[j].__getitem__, ib))
        for s in pre["fitted"]:
            a, b = local[self.sa[s]], local[self.sb[s]]
            hm[a][b] -= hw[s]
            hm[b][a] -= hw[s]
        h_tot, hf_tot = sum(hw), [sum(col) for col in hfw]
        for j in range(k):
            row = hm[nm + j]
            for x in range(nm):
                row[x] = hm[x][nm + j]
            for i2 in range(k):
                row[nm + i2] = (sums["HFF_all"][j][i2] + q[j] * hf_tot[i2] + q[i2] * hf_tot[j] + q[j] * q[i2] * h_tot
                               + (penalty[j] if j == i2 else 0.0))
        return [[hm[x][y] for y in free] for x in free]

    def base_of(self, res: dict, ids: list[int], r0: list[float], eta0: list[float]) -> dict:
        """The whole fit's sums at (r0, eta0), per slice over all slices (0 where not fitted)."""
        P = len(self.sa)

        def spread(col: list[float]) -> list[float]:
            if len(ids) == P:  # every slice, in order
                return col
            out = [0.0] * P
            for x, s in enumerate(ids):
                out[s] = col[x]
            return out

        return {"r": r0, "eta": eta0, "d": [r0[x] - r0[y] for x, y in zip(self.sa, self.sb)],
                "members": self.whole["members"], "mask": self.whole["mask"], "u": self.whole["u"],
                "A": spread(res["A"]), "H": spread(res["H"]), "T": spread(res["T"]),
                "G": [spread(x) for x in res["G"]], "HF": [spread(x) for x in res["HF"]],
                "TF": [spread(x) for x in res["TF"]],
                "HFF": {jl: spread(x) for jl, x in res["HFF"].items()}}


def recompute_styled_flips(board: dict, data: bytes, tally: Tally) -> None:
    """Refit a styled board's whole fit and every published budget (see the section comment)."""
    sb = StyledBattles(board, data)
    alpha, init = board["scale"] / math.log(board["base"]), board["init"]
    code = {m: c for c, m in enumerate(board["models"])}
    r = [0.0] * sb.n_models
    for m, rating in board["ratings"].items():
        r[code[m]] = (rating - init) / alpha
    beta = [board["coefficients"][f]["beta"] for f in board["features"]]
    whole = sb.fit(r, beta)
    for m, rating in board["ratings"].items():
        got = init + alpha * whole["r"][code[m]] if code[m] in whole["group_of"] else None
        tally.check("styled fit rating", f"{board['id']}: {m}", rating, got, 6e-3)
    for j, f in enumerate(board["features"]):
        tally.check("styled fit coefficient", f"{board['id']}: {f}", board["coefficients"][f]["beta"],
                    whole["beta"][j], 1e-6)

    def gap_after(removed: list[dict], higher: str, lower: str, start: dict) -> tuple[float | None, dict]:
        fit = sb.refit(sb.removed_positions(removed), start["r"], start["eta"], whole["base"], start["lu"],
                       start.get("exact", ()))
        hi, lo, group_of = code[higher], code[lower], fit["group_of"]
        if hi not in group_of or group_of.get(lo) != group_of[hi]:
            return None, fit
        return alpha * (fit["r"][lo] - fit["r"][hi]), fit

    for f in board["flips"]:
        what = f"{board['id']}: {f['lower']} above {f['higher']}"
        after, fit = gap_after(f["removed"], f["higher"], f["lower"], whole)
        if not f["flipped"]:
            tally.check("styled flip (no reversal)", what, 1, 1 if after is None or after <= 0 else 0, 0)
            continue
        tally.check("styled flip (reverses)", what, 1, 1 if after is not None and after > 0 else 0, 0)
        tally.check("styled flip gap after", what, f["gapAfter"], None if after is None else round(after, 4), 2e-3)
        if f["minimal"] and f["removed"]:
            fewer = [dict(v) for v in f["removed"]]
            fewer[-1]["count"] -= 1
            after, _ = gap_after([v for v in fewer if v["count"] > 0], f["higher"], f["lower"], fit)
            tally.check("styled flip (one fewer holds)", what, 1, 1 if after is None or after <= 0 else 0, 0)


# ---------------------------------------------------------------- the role boards' robustness

GRID_STEPS_DEFAULT = 10


def loo_contributions(be: dict, board: dict) -> tuple[dict[str, list[tuple[str, str, float]]], list[str]]:
    """Per qualified row (ranked, then new) its (family, evaluator, calibrated) for the board's
    weighted families; and the evaluators among them, ascending."""
    weighted = {f for f, w in board["weights"].items() if w > 0}
    fams_of: dict[str, list[str]] = defaultdict(list)
    for fam, feeds in be["families"].items():
        if fam in weighted:
            for feed in feeds:
                fams_of[feed].append(fam)
    qualified = [row["identity"] for row in board["rows"] + board["new"]]
    wanted = set(qualified)
    out: dict[str, list[tuple[str, str, float]]] = {i: [] for i in qualified}
    for o in be["observations"]:
        if o["identity"] in wanted:
            for fam in fams_of.get(o["feed"], ()):
                out[o["identity"]].append((fam, o["evaluator"], o["calibrated"]))
    return out, sorted({e for rows in out.values() for _, e, _ in rows})


def r_without(contribs: list[tuple[str, str, float]], weights: dict, drop: set) -> float | None:
    """R of a row without the evaluators ``drop``; None when it is not ranked then (fewer than
    two evaluators left, or no weighted family)."""
    values: dict[str, list[float]] = defaultdict(list)
    voices = set()
    for fam, ev, value in contribs:
        if ev not in drop:
            values[fam].append(value)
            voices.add(ev)
    if len(voices) < 2:
        return None
    num = den = 0.0
    for fam in sorted(values):
        num += weights[fam] * (sum(values[fam]) / len(values[fam]))
        den += weights[fam]
    return num / den if den > 0 else None


def competition(r: dict[str, float | None]) -> dict[str, int | None]:
    """Competition ranks: 1 + the number of values strictly greater (one sort, a bisection each)."""
    vals = sorted(x for x in r.values() if x is not None)
    n = len(vals)
    return {k: None if x is None else 1 + n - bisect_right(vals, x) for k, x in r.items()}


def dirichlet_draws(weights: dict, concentration: float, draws: int, seed: int) -> tuple[list[str], list[list[float]]]:
    """The weight draws: random.Random(seed), per draw gammavariate(c * w_f / sum w, 1) per family
    ascending, each vector divided by its sum (left to right)."""
    fams = sorted(f for f, w in weights.items() if w > 0)
    total = 0.0
    for f in fams:
        total += weights[f]
    shape = [concentration * weights[f] / total for f in fams]
    rng = random.Random(seed)
    out = []
    for _ in range(draws):
        g = [rng.gammavariate(a, 1.0) for a in shape]
        s = 0.0
        for x in g:
            s += x
        out.append([x / s for x in g] if s > 0 else [weights[f] / total for f in fams])
    return fams, out


def tenths_grid(families: int, steps: int) -> list[list[float]]:
    """Every vector of positive multiples of 1/steps summing to 1, in lexicographic order."""
    out: list[list[float]] = []

    def fill(prefix: list[int], left: int, slots: int) -> None:
        if slots == 1:
            out.append([k / steps for k in (*prefix, left)])
            return
        for k in range(1, left - slots + 2):
            fill([*prefix, k], left - k, slots - 1)

    if 0 < families <= steps:
        fill([], steps, families)
    return out


def leads_under(rows: list[dict], fams: list[str], vectors: list[list[float]], top: int) -> list[list[bool]]:
    """Per vector, for each of the first ``top`` ranked rows: no row has a strictly greater R
    (from the published family means). A weighted mean is at most its largest value, so the
    rows are visited by their largest family mean, descending, and the search for the best R
    stops at the first row whose largest mean is below it (with a margin for rounding): the
    same answer as computing every row's R, in time that hardly grows with the board."""
    values = [[(k, row["families"][f]) for k, f in enumerate(fams) if f in row["families"]] for row in rows]
    bound = [max((v for _, v in vs), default=-math.inf) for vs in values]
    order = sorted(range(len(rows)), key=lambda i: -bound[i])

    def r(w: list[float], i: int) -> float:
        num = den = 0.0
        for k, v in values[i]:
            num += w[k] * v
            den += w[k]
        return num / den if den > 0 else -math.inf

    out = []
    for w in vectors:
        best = -math.inf
        for i in order:
            if bound[i] < best - 1e-9 * max(1.0, abs(best)):
                break
            best = max(best, r(w, i))
        out.append([r(w, i) >= best for i in range(min(top, len(rows)))])
    return out


def nearest(leads: list[list[bool]], vectors: list[list[float]], published: list[float], j: int) -> int | None:
    best, at = math.inf, None
    for b, w in enumerate(vectors):
        if leads[b][j]:
            sq = 0.0
            for x, p in zip(w, published):
                d = x - p
                sq += d * d
            if sq < best:
                best, at = sq, b
    return at


def recompute_weight_robustness(board: dict, pub: dict, tally: Tally) -> None:
    rows = board["rows"]
    fams, vectors = dirichlet_draws(board["weights"], pub["concentration"], pub["draws"], pub["seed"])
    top = 1 + len(pub["contenders"])  # #1 and the rows that could lead
    leads = leads_under(rows, fams, vectors, top)
    total = 0.0
    for f in fams:
        total += board["weights"][f]
    published = [board["weights"][f] / total for f in fams]
    tally.check("board #1 holds under weights", board["id"], pub["hold_share"],
                sum(1 for x in leads if x[0]) / len(vectors), 0)
    grid = None
    for j, c in enumerate(pub["contenders"], start=1):
        what = f"{board['id']} {c['identity']}"
        share = sum(1 for x in leads if x[j]) / len(vectors)
        b = nearest(leads, vectors, published, j)
        got_weights, found = (vectors[b], "draws") if b is not None else (None, None)
        if b is None:
            if grid is None:
                g = tenths_grid(len(fams), pub.get("grid_steps", GRID_STEPS_DEFAULT))
                grid = (g, leads_under(rows, fams, g, top))
            k = nearest(grid[1], grid[0], published, j)
            got_weights, found = (grid[0][k], "grid") if k is not None else (None, None)
        same = (rows[j]["identity"] == c["identity"] and share == c["lead_share"] and b == c["draw"]
                and found == c.get("found_in") and (got_weights is None) == (c["weights"] is None)
                and (got_weights is None or all(close(x, c["weights"][f]) for x, f in zip(got_weights, fams))))
        tally.total["board weight contender"] += 1
        if same:
            tally.ok["board weight contender"] += 1
        else:
            tally.misses.append(f"board weight contender: {what}: published {c['lead_share']} at {c['weights']}, "
                                f"rebuilt {share} at {got_weights}")


def recompute_robustness(be: dict, tally: Tally) -> None:
    """Leave-one-evaluator-out ranks, flags, the smallest set that changes #1 and the weight
    robustness of every board that publishes them."""
    import itertools

    for board in be["boards"]:
        pub = board.get("robustness")
        if not pub:
            continue
        contribs, evaluators = loo_contributions(be, board)
        weights = board["weights"]
        tally.check("board evaluators left out", board["id"], 0 if pub["evaluators"] == evaluators else 1, 0, 0)
        ranked = [row["identity"] for row in board["rows"]]
        loo = {e: competition({k: r_without(v, weights, {e}) for k, v in contribs.items()}) for e in evaluators}
        # per evaluator, the published R of the rows still ranked without it, ascending
        still = {e: sorted(other["r"] for other in board["rows"] if loo[e][other["identity"]] is not None)
                 for e in evaluators}
        for row in board["rows"]:
            i = row["identity"]
            got = {e: loo[e][i] for e in evaluators}
            published = pub["rows"].get(i, {})
            tally.total["board leave-one-out rank"] += len(evaluators)
            for e in evaluators:
                if published.get("loo_ranks", {}).get(e, "missing") == got[e]:
                    tally.ok["board leave-one-out rank"] += 1
                else:
                    tally.misses.append(f"board leave-one-out rank: {board['id']} {i} without {e}: published "
                                        f"{published.get('loo_ranks', {}).get(e)}, rebuilt {got[e]}")
            lo, hi = row.get("rank_lo"), row.get("rank_hi")
            # the place it would hold among the rows still ranked without e, by published R
            base = {e: 1 + len(still[e]) - bisect_right(still[e], row["r"]) for e in evaluators}
            depends = [e for e, k in got.items() if lo is not None and hi is not None and k is not None
                       and abs(k - base[e]) > hi - lo]
            flag = bool(depends) if lo is not None and hi is not None else None
            tally.total["board one-evaluator flag"] += 1
            if published.get("depends_on") == depends and published.get("depends_on_one") == flag:
                tally.ok["board one-evaluator flag"] += 1
            else:
                tally.misses.append(f"board one-evaluator flag: {board['id']} {i}: published "
                                    f"{published.get('depends_on')}, rebuilt {depends}")
        leader_set, after = None, None
        if ranked:
            leader = ranked[0]
            models = {row["identity"]: row["model"] for row in board["rows"] + board["new"]}
            for size in range(1, min(pub["max_set"], len(evaluators)) + 1):
                for combo in itertools.combinations(evaluators, size):
                    r = {k: r_without(v, weights, set(combo)) for k, v in contribs.items()}
                    vals = [x for x in r.values() if x is not None]
                    if not vals:
                        continue
                    best, own = max(vals), r[leader]
                    if own is None or best > own:
                        leader_set = list(combo)
                        after = min((k for k, x in r.items() if x == best), key=lambda k: models[k])
                        break
                if leader_set is not None:
                    break
        tally.total["board set that changes #1"] += 1
        if pub["leader_set"] == leader_set and pub["leader_after"] == after:
            tally.ok["board set that changes #1"] += 1
        else:
            tally.misses.append(f"board set that changes #1: {board['id']}: published {pub['leader_set']} -> "
                                f"{pub['leader_after']}, rebuilt {leader_set} -> {after}")
        if pub.get("weights") and board["rows"]:
            recompute_weight_robustness(board, pub["weights"], tally)


# ---------------------------------------------------------------- main


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="recompute.py",
        description="Rebuild every published ModelBoards number from the evidence downloads "
                    "(evidence.json, boards-evidence.json) with the standard library alone.",
        epilog="Exit code 0: everything rebuilt; 1: some number or position did not; 2: the downloads "
               "could not be read.",
    )
    parser.add_argument("location", nargs="?", default=None,
                        help="the folder holding the downloads, or the site's data URL ending in / "
                             "(default: the folder of this script)")
    return parser.parse_args(argv)


def main(argv: list[str]) -> int:
    args = parse_args(argv[1:])
    location = args.location or str(Path(__file__).resolve().parent)
    tally = Tally()
    try:
        check_location(location)
        try:
            index = load(location, INDEX_FILE)
        except FileNotFoundError:
            print(f"no {INDEX_FILE}: the Capability Index is not published here")
        else:
            recompute_index(index, tally)
        try:
            boards = load(location, BOARDS_FILE)
        except FileNotFoundError:
            raise InputError(f"{location}: no {BOARDS_FILE}") from None
        recompute_boards(boards, tally)
        recompute_uncertainty(boards, tally)
        try:
            flips = load(location, FLIPS_FILE)
        except FileNotFoundError:
            flips = None
        if flips is not None:
            recompute_flips(flips, tally, location)
        recompute_robustness(boards, tally)
    except InputError as exc:
        print(f"recompute.py: error: {exc}", file=sys.stderr)
        return 2
    print(tally.report())
    if tally.misses:
        print(f"{len(tally.misses)} number(s) or position(s) did not rebuild")
        return 1
    print("everything rebuilt")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
