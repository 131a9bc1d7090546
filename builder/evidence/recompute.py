#!/usr/bin/env python3
"""Rebuild every published ModelBoards number from the evidence downloads.

Uses only Python's standard library. Reads ``evidence.json`` (the Capability Index) and
``boards-evidence.json`` (the role boards) from a folder or a site URL, rebuilds

  * every index source score, family score, measured-specialist mean, fused score and score,
    and the order of both index boards (``current`` and ``allVersions``);
  * every role-board calibration, calibrated value, family mean, R, displayed score and
    rank, and the order of every board;

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
import json
import math
import sys
import urllib.error
import urllib.request
from collections import defaultdict
from pathlib import Path

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


def load(location: str, name: str) -> dict:
    """Read ``name`` from a folder or from a URL ending in '/'."""
    where = location.rstrip("/") + "/" + name if is_url(location) else str(Path(location) / name)
    try:
        if is_url(location):
            with urllib.request.urlopen(where, timeout=60) as resp:  # noqa: S310 (http(s) only)
                text = resp.read().decode("utf-8")
        else:
            text = Path(where).read_text(encoding="utf-8")
        return json.loads(text)
    except urllib.error.HTTPError as exc:
        if exc.code == 404:
            raise FileNotFoundError(where) from None
        raise InputError(f"{where}: HTTP {exc.code}") from None
    except urllib.error.URLError as exc:
        raise InputError(f"{where}: {exc.reason}") from None
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
        for pos, ident in enumerate(published):
            self.total[kind] += 1
            if pos < len(rebuilt) and rebuilt[pos] == ident:
                self.ok[kind] += 1
            else:
                new = rebuilt.index(ident) + 1 if ident in rebuilt else None
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
    calib = {}
    for c in be["calibrations"]:
        calib[(c["feed"], c["release"])] = c
        if not c["used"]:
            continue
        raws = {o["identity"]: o["raw"] for o in be["selected"]
                if o["feed"] == c["feed"] and o["release"] == c["release"]}
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
        for row in ranked:
            r = rebuilt_r[row["identity"]]
            above = [rebuilt_r[o["identity"]] for o in ranked]
            rank = 1 + sum(1 for x in above if x is not None and r is not None and x > r)
            tally.check("board rank", f"{board['id']} {row['identity']}", row["rank"], rank, 0)
        published = [row["identity"] for row in ranked]
        order = sorted(ranked, key=lambda row: (-(rebuilt_r[row["identity"]] or -math.inf), row["model"]))
        tally.order("board order", board["id"], published, [row["identity"] for row in order])


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
