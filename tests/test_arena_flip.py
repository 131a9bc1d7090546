"""Vote flip budgets (``builder.pairwise.flips``): the influence approximation against refits,
the published budgets against LMArena's own ``arena-rank`` fit, the page, the downloads and
``recompute.py``.

The acceptance check: remove exactly the published votes from the battles (read by the site's
own reader) and fit the rest independently with ``arena-rank``: the pair's order reverses, and
with one vote fewer (the last published entry's count minus one) it does not, unless the
budget is published as an upper bound. Done on the demo battles and on the real GenAI-Arena
dump. ``arena-rank`` runs in a spawned child process (jax starts threads; see
``test_pairwise_styled_exact``).
"""

from __future__ import annotations

import json
import math
import multiprocessing as mp
import subprocess
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from builder.config import ArenaConfig, load_config
from builder.pairwise import flips
from builder.pairwise.arena import battle_filters, compute_arena_section, reader_settings
from builder.pairwise.battles import OUTCOMES, TIE, WIN_A, WIN_B, Battles
from builder.pairwise.bt import PairCounts, count_pairs
from builder.pairwise.scan import battles_from_columns, scan_battles
from builder.pairwise.style import contextual_columns, parse_style_features, style_feature_specs
from builder.pairwise.styled import build_style_dataset, fit_styled_bt

ROOT = Path(__file__).resolve().parents[1]
DEMO = ROOT / "builder" / "data" / "demo" / "battles" / "clean_battle_demo.jsonl"
GENAI = Path("arena") / "genai-arena" / "clean_battle_20240220.json"


# --------------------------------------------------------------------------- helpers


@pytest.fixture(scope="module")
def arena_rank():
    """Run a ``_reference_*`` function in one spawned child process (jax stays out of this one)."""
    with ProcessPoolExecutor(max_workers=1, mp_context=mp.get_context("spawn")) as pool:
        yield lambda fn, *args: pool.submit(fn, *args).result()


def _reference_plain(df: pd.DataFrame, reweight: bool) -> dict[str, float]:
    """arena-rank's BradleyTerry on ``df``: rating per competitor."""
    from arena_rank.models.bradley_terry import BradleyTerry
    from arena_rank.utils.data_utils import PairDataset

    ds = PairDataset.from_pandas(df, reweighted=reweight)
    ref = BradleyTerry(n_competitors=len(ds.competitors), max_iter=20_000, ftol=0.0, gtol=1e-12)
    res = ref.compute_ratings_and_cis(ds)
    return {str(c): float(r) for c, r in zip(res["competitors"], np.asarray(res["ratings"]), strict=True)}


def _reference_styled_many(frames: list[pd.DataFrame], cols: list[str], reweight: bool) -> list[dict[str, float]]:
    return [_reference_styled(df, cols, reweight) for df in frames]


def _reference_styled(df: pd.DataFrame, cols: list[str], reweight: bool) -> dict[str, float]:
    """arena-rank's ContextualBradleyTerry on ``df``: rating per competitor."""
    from arena_rank.models.contextual_bradley_terry import ContextualBradleyTerry
    from arena_rank.utils.data_utils import ContextualPairDataset

    ds = ContextualPairDataset.from_pandas(df, cols, reweighted=reweight)
    ref = ContextualBradleyTerry(n_competitors=len(ds.competitors), n_features=len(cols), max_iter=20_000,
                                 ftol=0.0, gtol=1e-12)
    res = ref.compute_ratings_and_cis(ds)
    return {str(c): float(r) for c, r in zip(res["competitors"], np.asarray(res["ratings"]), strict=True)}


def removal_mask(battles_models: tuple[str, ...], a: np.ndarray, b: np.ndarray, o: np.ndarray,
                 removed: list[dict[str, Any]]) -> np.ndarray:
    """Keep-mask over the battles without the published votes: for each entry, its first
    ``count`` battles in file order of that unordered pair and outcome (the documented rule)."""
    code = {m: k for k, m in enumerate(battles_models)}
    keep = np.ones(a.size, dtype=bool)
    for v in removed:
        ma, mb = code[v["model_a"]], code[v["model_b"]]
        pair = ((a == ma) & (b == mb)) | ((a == mb) & (b == ma))
        if v["outcome"] == "tie":
            hit = pair & (o >= TIE)
        else:
            winner = ma if v["outcome"] == "model_a" else mb
            hit = pair & (((o == WIN_A) & (a == winner)) | ((o == WIN_B) & (b == winner)))
        rows = np.flatnonzero(hit & keep)[: v["count"]]
        assert rows.size == v["count"], f"fewer battles than published for {v}"
        keep[rows] = False
    return keep


def one_fewer(removed: list[dict[str, Any]]) -> list[dict[str, Any]]:
    out = [dict(v) for v in removed]
    out[-1]["count"] -= 1
    return [v for v in out if v["count"] > 0]


def frame(models: tuple[str, ...], a: np.ndarray, b: np.ndarray, o: np.ndarray) -> pd.DataFrame:
    names = np.array(models, dtype=object)
    return pd.DataFrame({"model_a": names[a], "model_b": names[b], "winner": np.array(OUTCOMES)[o]})


def read(path: Path, cfg: ArenaConfig) -> tuple[Battles, Any]:
    """The battles and style columns exactly as the Arena stage reads them."""
    features = parse_style_features(cfg.style_features)
    specs = list(style_feature_specs(features))
    with scan_battles(path, battle_filters(cfg), reader_settings(cfg.reader), features=specs) as scan:
        battles = scan.battles()
        styles = contextual_columns(scan, features, [])
    return battles, styles


def _reference_plain_many(frames: list[pd.DataFrame], reweight: bool) -> list[dict[str, float]]:
    return [_reference_plain(df, reweight) for df in frames]


def check_plain_against_arena_rank(arena_rank, section, battles: Battles, reweight: bool) -> list[int]:
    """The #1/#2 budget (arena-rank takes seconds per fit; the other pairs are checked against the
    site's own refit and recompute.py): arena-rank reverses the pair without its published votes,
    and not with one fewer (unless the budget is an upper bound). Returns the positions checked."""
    top = section.flips[0]
    assert top.position == 1 and top.flipped
    chosen = {1: top}
    frames, plan = [], []
    for f in chosen.values():
        removed = [v.model_dump() for v in f.removed]
        keep = removal_mask(battles.models, battles.model_a, battles.model_b, battles.outcome, removed)
        assert int((~keep).sum()) == f.votes
        frames.append(frame(battles.models, battles.model_a[keep], battles.model_b[keep], battles.outcome[keep]))
        plan.append((f, "reverses"))
        if f.minimal:
            keep = removal_mask(battles.models, battles.model_a, battles.model_b, battles.outcome, one_fewer(removed))
            frames.append(frame(battles.models, battles.model_a[keep], battles.model_b[keep], battles.outcome[keep]))
            plan.append((f, "holds"))
        else:
            assert f.upper_bound
    for (f, want), r in zip(plan, arena_rank(_reference_plain_many, frames, reweight), strict=True):
        if want == "reverses":
            assert r[f.lower] > r[f.higher], f"arena-rank keeps {f.higher} above {f.lower} without {f.votes} votes"
        else:
            assert r[f.higher] >= r[f.lower], f"{f.votes - 1} votes already reverse {f.higher} / {f.lower}"
    return sorted(chosen)


# --------------------------------------------------------------------------- the influence math


def small_counts() -> PairCounts:
    rng = np.random.default_rng(3)
    skill = np.array([0.9, 0.7, 0.2, 0.0, -0.4])
    n = skill.size
    a = rng.integers(0, n, 3000)
    b = rng.integers(0, n, 3000)
    keep = a != b
    a, b = a[keep], b[keep]
    p = 1 / (1 + np.exp(-(skill[a] - skill[b])))
    u = rng.random(a.size)
    winner = np.where(u < 0.08, "tie", np.where(rng.random(a.size) < p, "model_a", "model_b"))
    names = np.array([f"m{k}" for k in range(n)])
    return count_pairs(battles_from_columns(names[a], names[b], winner))


@pytest.mark.parametrize("reweight", [False, True], ids=["unweighted", "reweighted"])
def test_plain_influence_predicts_the_refit_change(reweight):
    """One removed vote per cell: the one-step prediction of the gap's change is within 3% (or
    1e-3 points) of what a full refit gives, for every cell of the pair counts."""
    counts = small_counts()
    fit = flips.fit_plain(counts, reweight=reweight)
    cells = flips.cells_of(counts)
    a, b = 0, 1
    per = flips.plain_influence(counts, cells, fit.ratings, fit.component, a, b, reweight=reweight,
                                scale=fit.scale, base=fit.base)
    gap = fit.ratings[a] - fit.ratings[b]
    for c in range(cells.count.size):
        removed = np.zeros(cells.count.size, dtype=np.int64)
        removed[c] = 1
        refit = flips.fit_plain(flips.counts_without(counts, cells, removed), reweight=reweight)
        actual = (refit.ratings[a] - refit.ratings[b]) - gap
        assert per[c] == pytest.approx(actual, rel=0.03, abs=1e-3), (c, per[c], actual)
    # Ties move the gap too, and wins of A over B shrink it when removed.
    ab = np.flatnonzero((cells.i == a) & (cells.j == b))
    assert per[ab[cells.outcome[ab] == 0][0]] < 0 < per[ab[cells.outcome[ab] == 1][0]]


def test_styled_influence_predicts_the_refit_change():
    """The same for single battles of the style-controlled fit (each battle its own influence)."""
    rng = np.random.default_rng(5)
    n_models, n = 6, 4000
    skill = rng.normal(0, 0.6, n_models)
    a = rng.integers(0, n_models, n)
    b = rng.integers(0, n_models, n)
    keep = a != b
    a, b = a[keep], b[keep]
    raw = np.tanh(rng.normal(0, 0.6, (a.size, 2)))
    z = skill[a] - skill[b] + raw @ np.array([0.7, -0.3])
    out = np.where(rng.random(a.size) < 1 / (1 + np.exp(-z)), WIN_A, WIN_B).astype(np.int8)
    models = tuple(f"m{k}" for k in range(n_models))
    ds = build_style_dataset(models, a, b, out, raw, ("f1", "f2"))
    fit = fit_styled_bt(ds)
    order = np.argsort(-fit.ratings)
    hi, lo = int(order[0]), int(order[1])
    per = flips.styled_influence(ds, fit, hi, lo)
    gap = fit.ratings[hi] - fit.ratings[lo]
    for k in list(np.argsort(per)[:5]) + list(np.argsort(per)[-5:]):
        rest = np.setdiff1d(np.arange(a.size), [k])
        refit = fit_styled_bt(build_style_dataset(models, a[rest], b[rest], out[rest], raw[rest], ("f1", "f2")))
        actual = (refit.ratings[hi] - refit.ratings[lo]) - gap
        assert per[k] == pytest.approx(actual, rel=0.05, abs=2e-3), (k, per[k], actual)


def test_a_pair_no_list_reverses_within_the_cap_is_published_as_not_flipped():
    """A dominates B 950 to 50 and nothing else ranks it: reversing needs most of all votes,
    past the cap of half of them, so the pair is published as not flipped with the votes whose
    removal was refitted and kept the order."""
    rows = ([("A", "B", "model_a")] * 950 + [("A", "B", "model_b")] * 50 + [("B", "C", "model_a")] * 90
            + [("B", "C", "model_b")] * 10 + [("A", "C", "model_a")] * 99 + [("A", "C", "model_b")] * 1)
    battles = battles_from_columns([r[0] for r in rows], [r[1] for r in rows], [r[2] for r in rows])
    counts = count_pairs(battles)
    fit = flips.fit_plain(counts, reweight=False)
    res = flips.compute_plain_flips(counts, fit, reweight=False)
    first = res[0]
    assert (first.higher, first.lower) == ("A", "B")
    assert not first.flipped and first.votes is None and first.checked_votes > 0
    removed = counts_after(counts, first.removed)
    refit = flips.fit_plain(removed, reweight=False)
    assert refit.rating_of("A") > refit.rating_of("B")
    assert first.checked_votes == int(flips.MAX_SHARE * counts.n_battles)


def counts_after(counts: PairCounts, removed: list[dict[str, Any]]) -> PairCounts:
    cells = flips.cells_of(counts)
    code = {m: k for k, m in enumerate(counts.models)}
    take = np.zeros(cells.count.size, dtype=np.int64)
    for v in removed:
        i, j = code[v["model_a"]], code[v["model_b"]]
        k = np.flatnonzero((cells.i == i) & (cells.j == j) & (cells.outcome == flips.CELL_OUTCOMES.index(v["outcome"])))
        take[k[0]] += v["count"]
    return flips.counts_without(counts, cells, take)


# --------------------------------------------------------------------------- published budgets


@pytest.fixture(scope="module")
def demo_cfg() -> ArenaConfig:
    cfg, _ = load_config(ROOT / "site.yml")
    return cfg.arena.model_copy(update={"bootstrap": 0, "history_bootstrap": 0})


@pytest.fixture(scope="module")
def demo_section(demo_cfg):
    return compute_arena_section(DEMO, demo_cfg)


def test_demo_budgets_are_verified_and_minimal(demo_section):
    """Both views publish a budget per adjacent pair of the top 10, each verified by refit,
    with a share of all votes and the list of removed votes summing to the count."""
    for fl in (demo_section.flips, demo_section.style.flips):
        assert len(fl) == 9 and fl[0].position == 1
        assert fl[0].higher == next(m.model for m in (demo_section.models if fl is demo_section.flips
                                                      else demo_section.style.models) if m.rank == 1)
        for f in fl:
            assert f.flipped and f.votes is not None and f.votes >= 1
            assert sum(v.count for v in f.removed) == f.votes == f.checked_votes
            assert f.share == pytest.approx(f.votes / f.n_votes, abs=1e-8)
            assert f.minimal and not f.upper_bound
            assert f.gap_after is not None and f.gap_after > 0
            assert f.approx_votes is not None
    assert demo_section.pair_counts is not None
    assert sum(demo_section.pair_counts.wins_i) + sum(demo_section.pair_counts.wins_j) + sum(
        demo_section.pair_counts.ties) == demo_section.n_battles


def test_demo_plain_budgets_reverse_under_arena_rank(arena_rank, demo_section, demo_cfg):
    """The demo's plain #1/#2 budget refitted by arena-rank (about 20 s: each arena-rank fit takes
    seconds, with jax's start; this is the acceptance check of the published votes)."""
    battles, _ = read(DEMO, demo_cfg)
    assert check_plain_against_arena_rank(arena_rank, demo_section, battles, demo_cfg.reweight)[0] == 1


def test_demo_styled_budget_of_the_top_pair_reverses_under_arena_rank(arena_rank, demo_section, demo_cfg):
    """The style-controlled #1/#2 budget: its battles (the first of each published cell in file
    order, among the battles with usable style metadata) removed, arena-rank's contextual fit
    puts the lower model above; with one vote fewer it does not."""
    battles, styles = read(DEMO, demo_cfg)
    use = np.flatnonzero(styles.usable)
    a, b, o, raw = battles.model_a[use], battles.model_b[use], battles.outcome[use], styles.raw[use]
    f = demo_section.style.flips[0]
    removed = [v.model_dump() for v in f.removed]
    cols = [f"f_{x}" for x in styles.features]

    def styled_frame(rem: list[dict[str, Any]]) -> pd.DataFrame:
        keep = removal_mask(battles.models, a, b, o, rem)
        df = frame(battles.models, a[keep], b[keep], o[keep])
        for j, c in enumerate(cols):
            df[c] = raw[keep, j]
        return df

    assert f.minimal
    without, fewer = arena_rank(_reference_styled_many, [styled_frame(removed), styled_frame(one_fewer(removed))],
                                cols, demo_cfg.reweight)
    assert without[f.lower] > without[f.higher]
    assert fewer[f.higher] >= fewer[f.lower]


def test_real_genai_arena_budgets_reverse_under_arena_rank(arena_rank, shared_data):
    """GenAI-Arena's text-to-image battles (the real dump, all votes, as the real-data site's
    arena reads them): the #1/#2 budget, removed votes from three pairs, reverses its pair under
    arena-rank, and one vote fewer does not."""
    cfg = ArenaConfig(all_votes=True, models="_generation$", bootstrap=0)
    path = shared_data / GENAI
    section = compute_arena_section(path, cfg)
    assert len(section.flips) >= 4 and len(section.flips[0].removed) >= 2
    battles, _ = read(path, cfg)
    assert check_plain_against_arena_rank(arena_rank, section, battles, False)[0] == 1


# --------------------------------------------------------------------------- page, downloads, recompute


def test_arena_page_shows_the_top_pair_budget(bundled_site):
    snap = json.loads(sorted((ROOT / "snapshots").glob("*.json"))[-1].read_text(encoding="utf-8"))
    top = snap["arena"]["flips"][0]
    html = (bundled_site / "arena" / "index.html").read_text(encoding="utf-8")
    share = f"{top['share'] * 100:.3f}%"
    lead = (f"Removing {top['votes']:,} of {top['n_votes']:,} votes ({share}) would put {top['lower']} above "
            f"{top['higher']}; verified by refit")
    assert lead in html
    assert 'id="flips-table-plain"' in html
    assert ('id="flips-table-style"' in html) == bool(snap["arena"]["style"] and snap["arena"]["style"]["flips"])
    doc = json.loads((bundled_site / "data" / "arena" / "flips.json").read_text(encoding="utf-8"))
    assert doc["plain"] == snap["arena"]["flips"]
    csv_lines = (bundled_site / "data" / "arena" / "flips.csv").read_text(encoding="utf-8").splitlines()
    assert csv_lines[0].startswith("fit,position,higher,lower")
    assert sum(1 for line in csv_lines if line.startswith("plain,1,")) == len(top["removed"])
    api = json.loads((bundled_site / "api" / "v1" / "index.json").read_text(encoding="utf-8"))
    assert api["arena"]["flips"][0]["votes"] == top["votes"]
    assert "How many votes would reverse an order" in (bundled_site / "methodology" / "index.html").read_text(
        encoding="utf-8")


def _recompute(data: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(data / "recompute.py"), str(data)], capture_output=True, text=True,
                          timeout=600)


def test_recompute_refits_every_plain_budget_and_catches_a_wrong_one(bundled_site, tmp_path):
    data = bundled_site / "data"
    ev = json.loads((data / "arena-flips.json").read_text(encoding="utf-8"))
    n = sum(1 for b in ev["boards"] if b["fit"] == "plain" for f in b["flips"] if f["flipped"])
    assert n >= 9
    # Only the flip evidence: a copy of the folder with recompute.py and its inputs.
    work = tmp_path / "data"
    work.mkdir()
    for name in ("recompute.py", "boards-evidence.json", "arena-flips.json"):
        (work / name).write_bytes((data / name).read_bytes())
    for battles in data.glob("styled-battles-*.csv.gz"):  # a styled board's budgets need its battles
        (work / battles.name).write_bytes(battles.read_bytes())
    proc = _recompute(work)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert f"{'arena flip (reverses)':<28} {n:>6} of {n:<6} reproduced" in proc.stdout
    assert "arena flip (one fewer holds)" in proc.stdout
    # A budget one vote short of its list no longer reverses: recompute says so.
    f = max(next(b for b in ev["boards"] if b["fit"] == "plain")["flips"], key=lambda x: x["votes"] or 0)
    assert f["minimal"] and f["votes"] >= 2
    f["removed"] = [dict(v) for v in f["removed"]]
    f["removed"][-1]["count"] -= 1
    f["removed"] = [v for v in f["removed"] if v["count"] > 0]
    (work / "arena-flips.json").write_text(json.dumps(ev), encoding="utf-8")
    proc = _recompute(work)
    assert proc.returncode == 1
    assert "MISS arena flip (reverses)" in proc.stdout


def styled_board(section) -> dict[str, Any]:
    """The styled board of arena-flips.json for a section (what ``recompute.py`` reads)."""
    from builder.evidence.flips import compute_flips_evidence
    from builder.snapshot.models import Snapshot

    snap = Snapshot.model_construct(arena=section, arenas=())
    ev = compute_flips_evidence(snap)
    assert ev is not None
    return next(b for b in ev["boards"] if b["fit"] == "style")


@pytest.mark.parametrize("reweight", [False, True], ids=["unweighted", "reweighted"])
def test_stdlib_styled_refit_agrees_with_the_styled_fit(demo_section, demo_cfg, reweight):
    """recompute.py's standard-library styled fit, on the published battles file, against
    ``builder.pairwise.styled``: the whole fit's ratings within 1e-6 points and beta within
    1e-9, and without the votes of the budgets of 1, 2, 9 and 34 votes (and one vote fewer)
    every refitted rating within 1e-4 points of ``fit_styled_bt`` on the battles left (the
    pair's gap within 2e-5). Reweighted too (LMArena's weights; the demo publishes unweighted
    budgets, whose removal lists serve as removals here)."""
    import base64

    from builder.evidence import recompute

    board = styled_board(demo_section)
    data = base64.b64decode(demo_section.style_battles.csv_gz)
    battles, styles = read(DEMO, demo_cfg)
    use = np.flatnonzero(styles.usable)
    a, b, o, raw = battles.model_a[use], battles.model_b[use], battles.outcome[use], styles.raw[use]
    assert board["nBattles"] == a.size and not board["reweight"]
    models = battles.models
    alpha = board["scale"] / math.log(board["base"])

    def numpy_fit(keep: np.ndarray):
        ds = build_style_dataset(models, a[keep], b[keep], o[keep], raw[keep], styles.features, reweight=reweight)
        return fit_styled_bt(ds, on_unidentifiable="drop")

    ref = numpy_fit(np.ones(a.size, dtype=bool))
    if reweight:  # as a reweighted board would publish it
        board["reweight"] = True
        board["ratings"] = {m: round(float(x), 2) for m, x in zip(models, ref.ratings, strict=True) if np.isfinite(x)}
        for f, beta in zip(board["features"], ref.beta, strict=True):
            board["coefficients"][f]["beta"] = round(float(beta), 6)
    sb = recompute.StyledBattles(board, data)
    assert sb.n == a.size
    code = {m: k for k, m in enumerate(models)}
    r0 = [0.0] * len(models)
    for m, rating in board["ratings"].items():
        r0[code[m]] = (rating - board["init"]) / alpha
    whole = sb.fit(r0, [board["coefficients"][f]["beta"] for f in board["features"]])
    rated = np.flatnonzero(np.isfinite(ref.ratings))
    got = board["init"] + alpha * np.array(whole["r"])
    np.testing.assert_allclose(got[rated], ref.ratings[rated], atol=1e-6)
    np.testing.assert_allclose(whole["beta"], ref.beta, atol=1e-9)
    flips_by_votes = {f["votes"]: f for f in board["flips"]}
    for votes in (1, 2, 9, 34):
        f = flips_by_votes[votes]
        snake = [{"model_a": v["modelA"], "model_b": v["modelB"], "outcome": v["outcome"], "count": v["count"]}
                 for v in f["removed"]]
        for removed in (snake, one_fewer(snake)):
            camel = [{"modelA": v["model_a"], "modelB": v["model_b"], "outcome": v["outcome"], "count": v["count"]}
                     for v in removed]
            fit = sb.refit(sb.removed_positions(camel), whole["r"], whole["eta"], whole["base"], whole["lu"])
            exact = numpy_fit(removal_mask(models, a, b, o, removed))
            mine = np.array(fit["r"]) * alpha
            theirs = exact.ratings - board["init"]
            ok = np.isfinite(theirs)
            np.testing.assert_allclose(mine[ok] - mine[ok].mean(), theirs[ok] - theirs[ok].mean(), atol=1e-4)
            hi, lo = code[f["higher"]], code[f["lower"]]
            assert mine[lo] - mine[hi] == pytest.approx(theirs[lo] - theirs[hi], abs=2e-5)


def test_real_site_arena_page_shows_the_flip_budget(real_site):
    """The build from the real files: GenAI-Arena's text-to-image arena, fetched live from the
    test server, shows its #1/#2 budget, and recompute.py refits it."""
    page = real_site.site / "arenas" / "text-to-image" / "index.html"
    html = page.read_text(encoding="utf-8")
    snap = json.loads(real_site.snapshot.read_text(encoding="utf-8"))
    arena = next(a for a in snap["arenas"] if a["arena_id"] == "text-to-image")
    top = arena["flips"][0]
    assert top["flipped"] and top["minimal"]
    assert f"Removing {top['votes']:,} of {top['n_votes']:,} votes" in html
    assert math.isclose(top["share"], top["votes"] / top["n_votes"], abs_tol=1e-8)
    proc = _recompute(real_site.site / "data")
    assert "arena flip (reverses)" in proc.stdout, proc.stdout + proc.stderr
    assert "MISS arena flip" not in proc.stdout
