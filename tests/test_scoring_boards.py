"""Board rules: flagship names, price bounds, token and build prices, memory picks, stacks;
and the whole scoring stage on a synthetic world (movement, stale, as of, sources)."""

from __future__ import annotations

import dataclasses
import json
from datetime import UTC, date, datetime

import pytest

from builder.config import SiteConfig
from builder.records import BuildCheck, FetchStatus, ModelInfo, Observation, Price
from builder.scoring.boards import (
    PriceBook,
    ScoringInputs,
    compute_best_stack,
    compute_snapshot,
    compute_value_stack,
    is_flagship,
    memory_estimate_gb,
    qualifies_mid_tier,
    qualifies_rote,
    within_fraction,
)
from builder.scoring.prices import (
    blended_price,
    compute_build_prices,
    latest_scored_epoch,
    select_token_prices,
)
from builder.scoring.rank import ScoredModel
from builder.snapshot import Snapshot, validate_snapshot
from builder.snapshot.models import Board, BoardRow

SOURCES = [("arena", "lmarena"), ("arena-catalog", "lmarena_catalog"), ("epoch", "epoch"), ("aider", "aider"),
           ("livebench", "livebench"), ("terminal-bench", "terminal_bench"), ("litellm", "litellm"),
           ("openrouter", "openrouter"), ("piratebench", "piratebench"), ("metadata", "metadata")]


def make_cfg(**over) -> SiteConfig:
    data = {
        "sources": [{"name": n, "kind": k, "licence": f"{n} licence"} for n, k in SOURCES],
        "families": {
            "reasoning": {"title": "Reasoning", "feeds": ["epoch/eci", "livebench/global"]},
            "human_preference": {"title": "Human preference", "feeds": ["arena/text"]},
            "coding": {"title": "Coding", "feeds": ["arena/coding", "aider/polyglot", "livebench/coding"]},
            "terminal_work": {"title": "Terminal work", "feeds": ["terminal-bench/accuracy"]},
            "instruction_following": {"title": "Instruction following", "feeds": ["livebench/instruction_following"]},
            "data_analysis": {"title": "Data analysis", "feeds": ["livebench/data_analysis"]},
        },
        "roles": {
            "orchestrator": {"title": "Orchestrator",
                             "weights": {"reasoning": 0.5, "human_preference": 0.3, "terminal_work": 0.2}},
            "mid_tier": {"title": "Mid-tier", "weights": {"coding": 0.4, "terminal_work": 0.25,
                                                          "instruction_following": 0.2, "reasoning": 0.15}},
            "rote": {"title": "Rote", "weights": {"instruction_following": 0.4, "data_analysis": 0.3, "coding": 0.3}},
        },
        "boards": [
            {"id": "orchestrator", "title": "Best orchestrator", "kind": "orchestrator", "role": "orchestrator"},
            {"id": "open-weight", "title": "Open weight", "kind": "open_weight", "role": "orchestrator"},
            {"id": "mid-tier", "title": "Mid-tier", "kind": "mid_tier", "role": "mid_tier"},
            {"id": "rote", "title": "Rote", "kind": "rote", "role": "rote"},
            {"id": "build-prices", "title": "Build prices", "kind": "build_prices", "role": "mid_tier"},
        ],
        "machines": [{"id": "rtx-3090", "name": "RTX 3090", "memory_gb": 24},
                     {"id": "strix-halo", "name": "Strix Halo", "memory_gb": 128},
                     {"id": "mac-studio", "name": "Mac Studio", "memory_gb": 512}],
    }
    data.update(over)
    return SiteConfig.model_validate(data)


CFG = make_cfg()


def sm(ident: str, r: float, *, partial: bool = False, new: bool = False) -> ScoredModel:
    return ScoredModel(ident, ident, r, {"reasoning": r}, ("a", "b"), 1.0, 1.0,
                       ("fewer than two rating families",) if partial else (), new)


# --------------------------------------------------------------------------- flagship rule


@pytest.mark.parametrize("name, flagship", [
    ("claude-opus-4-1", True), ("Claude Opus 5.5", True), ("sol-2", True), ("astra-large", True),
    ("fable_1", True), ("solar-pro-2", False), ("console-7b", False), ("opusx", False),
    ("muse-spark-preview", True), ("Muse Spark 2", True), ("my-muse-spark", False),
    ("gemini-2.5-pro", True), ("Gemini 3 Pro Preview", True), ("gemini-2.5-flash", False), ("proxy-gemini", False),
    ("grok-4", True), ("grok-4-fast-reasoning", False), ("grok-3-mini", False), ("grok-code-fast-1", False),
    ("gpt-5-mini", False),
])
def test_flagship_rule(name, flagship):
    assert is_flagship(name, CFG.flagship) is flagship


# --------------------------------------------------------------------------- price bounds


@pytest.mark.parametrize("build, ok", [(0.25, True), (0.2499, True), (0.2501, False), (0.01, True)])
def test_rote_build_bound_is_inclusive(build, ok):
    assert qualifies_rote(build, None, CFG) is ok


@pytest.mark.parametrize("token, ok", [(0.30, True), (0.2999, True), (0.3001, False), (0.0, False), (None, False)])
def test_rote_token_bound_is_inclusive_and_positive(token, ok):
    assert qualifies_rote(None, token, CFG) is ok


@pytest.mark.parametrize("build, flagship, ok", [
    (0.25, None, False), (0.2501, None, True), (500.0, None, True),
    (1.9999, 2.0, True), (2.0, 2.0, False), (2.0001, 2.0, False),
])
def test_mid_tier_build_bounds_are_strict(build, flagship, ok):
    assert qualifies_mid_tier(build, None, flagship, CFG) is ok


@pytest.mark.parametrize("token, ok", [(0.30, False), (0.3001, True), (3.0, True), (2.9999, True), (3.0001, False),
                                       (None, False)])
def test_mid_tier_token_bounds(token, ok):
    assert qualifies_mid_tier(None, token, None, CFG) is ok


def test_build_price_takes_precedence_over_token_price():
    assert not qualifies_rote(0.5, 0.1, CFG)  # cheap tokens, expensive build
    assert qualifies_mid_tier(0.5, 0.1, None, CFG)
    assert qualifies_rote(0.2, 10.0, CFG)
    assert not qualifies_mid_tier(0.2, 1.0, None, CFG)


def test_blended_price_hits_the_bounds_exactly():
    assert blended_price(3e-7, 3e-7) == 0.3
    assert blended_price(2e-6, 6e-6) == 3.0
    assert qualifies_rote(None, blended_price(3e-7, 3e-7), CFG)
    assert qualifies_mid_tier(None, blended_price(2e-6, 6e-6), None, CFG)


# --------------------------------------------------------------------------- token prices


def price(key: str, ident: str, i, o, source: str = "litellm", excluded: str | None = None) -> Price:
    return Price(source, key, key, i, o, None, date(2026, 1, 1), identity=ident, excluded=excluded)


def test_token_price_is_cheapest_then_first_key():
    chosen = select_token_prices([
        price("vertex/m", "m", 2e-6, 2e-6), price("b-provider/m", "m", 1e-6, 1e-6),
        price("a-provider/m", "m", 1e-6, 1e-6), price("bedrock/m:v1", "m", 1e-9, 1e-9),
        price("z/m", "m", True, 1e-9), price("y/m", "m", 0.0, 1e-9), price("x/m", "m", float("inf"), 1e-9),
        price("w/m", "m", -1e-6, 1e-9), price("v/m", "m", 1e-9, 1e-9, excluded="bad"), price("u/m", "m", "1e-9", 1e-9),
    ])
    entry, blended = chosen["m"]
    assert entry.key == "a-provider/m" and blended == 1.0


# --------------------------------------------------------------------------- build prices


def check(epoch: str, model: str, price_, passed=True, scored=True, day=date(2026, 1, 5)) -> BuildCheck:
    return BuildCheck("piratebench", epoch, scored, model, passed, price_, day, identity=model)


def test_build_price_is_median_of_latest_scored_epoch():
    checks = [
        check("epoch-9", "m", 9.0, day=date(2026, 1, 1)),
        check("epoch-10", "m", 0.2), check("epoch-10", "m", 0.4), check("epoch-10", "m", 0.3, passed=False),
        check("epoch-11", "m", 100.0, scored=False, day=date(2026, 2, 1)),  # not scored: ignored
        check("epoch-10", "n", 0.2), check("epoch-10", "n", None),  # one job unpriced: no build price
        check("epoch-10", "z", 0.2), check("epoch-10", "z", 0.0),
        check("epoch-10", "b", True),  # a boolean is not a price
    ]
    assert latest_scored_epoch(checks) == "epoch-10"
    built = compute_build_prices(checks)
    assert built["m"].price == 0.3 and built["m"].jobs == 3 and built["m"].passed is False
    assert built["n"].price is None and built["z"].price is None and built["b"].price is None
    assert built["n"].passed is True


def test_latest_scored_epoch_compares_numbers_as_numbers_on_equal_dates():
    assert latest_scored_epoch([check("epoch-9", "m", 1.0), check("epoch-10", "m", 1.0)]) == "epoch-10"
    assert latest_scored_epoch([check("e", "m", 1.0, scored=False)]) is None


# --------------------------------------------------------------------------- home computers


def test_memory_estimate_and_the_80_percent_edge():
    assert memory_estimate_gb(30.72, CFG) == pytest.approx(19.2)
    assert within_fraction(memory_estimate_gb(30.72, CFG), 24, 0.8)  # exactly 80% of 24 GB fits
    assert not within_fraction(memory_estimate_gb(30.73, CFG), 24, 0.8)
    assert within_fraction(memory_estimate_gb(163.84, CFG), 128, 0.8)
    assert not within_fraction(memory_estimate_gb(163.85, CFG), 128, 0.8)
    assert within_fraction(memory_estimate_gb(655.36, CFG), 512, 0.8)
    assert not within_fraction(memory_estimate_gb(655.37, CFG), 512, 0.8)


# --------------------------------------------------------------------------- stacks


def test_value_stack_bounds_preference_and_day_of_work():
    fields = {
        "orchestrator": [sm("five", 1600), sm("partial", 1590, partial=True), sm("b", 1500), sm("a", 1500),
                         sm("new", 1700, new=True)],
        "mid_tier": [sm("one", 1500), sm("under-one", 1400)],
        "rote": [sm("edge", 1500), sm("cheap", 1300)],
    }
    openrouter = {k: (None, p) for k, p in {"five": 5.0, "partial": 1.0, "a": 4.99, "b": 4.99, "new": 0.1,
                                            "one": 1.0, "under-one": 0.99, "edge": 0.30, "cheap": 0.2999}.items()}
    book = PriceBook({}, openrouter, {})
    value = compute_value_stack(fields, book, CFG)
    picks = {e.role: e.identity for e in value.entries}
    assert picks == {"orchestrator": "a", "mid_tier": "under-one", "rote": "cheap"}
    assert value.day_of_work == pytest.approx(2 * 4.99 + 10 * 0.99 + 50 * 0.2999)
    # the bounds and the day of work it was computed with travel with it, for the page to state
    assert [(c.role, c.below, c.tokens) for c in value.roles or ()] == [
        ("orchestrator", 5.0, 2.0), ("mid_tier", 1.0, 10.0), ("rote", 0.30, 50.0)]
    del openrouter["cheap"]
    value = compute_value_stack(fields, PriceBook({}, openrouter, {}), CFG)
    assert [e.role for e in value.entries] == ["orchestrator", "mid_tier"] and value.day_of_work is None


def test_best_stack_prefers_first_non_partial_row():
    def row(ident, partial):
        return BoardRow(rank=1, model=ident, identity=ident, r=1.0, score=1, partial=partial, partial_reasons=(),
                        families={}, evaluators=(), coverage=1.0, available_share=1.0, movement=None,
                        token_price=None, build_price=None, build_passed=None)

    def board(bid, kind, rows):
        return Board(id=bid, title=bid, kind=kind, role=kind, description="", weights={}, warning=None,
                     missing_families=(), rows=tuple(rows), new=())

    boards = [board("o", "orchestrator", [row("p", True), row("q", False)]),
              board("m", "mid_tier", [row("x", True), row("y", True)]), board("r", "rote", [])]
    assert [(e.board, e.identity) for e in compute_best_stack(boards)] == [("o", "q"), ("m", "x")]


# --------------------------------------------------------------------------- the whole stage

BASE = {"epoch/eci": 100.0, "terminal-bench/accuracy": 20.0, "aider/polyglot": 30.0}
NOW = datetime(2026, 2, 3, 6, 45, tzinfo=UTC)


def o(feed: str, ident: str, raw: float, day=date(2026, 1, 20)) -> Observation:
    source = feed.split("/")[0]
    evaluator = "lmarena" if source == "arena" else source
    return Observation(source, feed, evaluator, ident, raw, day, "https://example.org", identity=ident, selected=True)


def model_obs(ident: str, q: float, feeds=("arena/text", "epoch/eci", "terminal-bench/accuracy", "aider/polyglot")):
    """Observations that all calibrate to ``q`` (the anchors lie on one line)."""
    return [o(f, ident, q if f.startswith("arena/") else BASE[f] + (q - 1300) / 10) for f in feeds]


def world(arena_ok: bool = True) -> ScoringInputs:
    obs = [x for i in range(12) for x in model_obs(f"a{i:02}", 1300.0 + 10 * i)]
    obs += model_obs("claude-opus-9", 1500) + model_obs("mid-model", 1450) + model_obs("rote-model", 1400)
    obs += model_obs("open-model", 1420) + model_obs("big-open", 1430) + model_obs("closed-model", 1425)
    obs += [o("arena/text", "solo", 1600.0), o("arena/coding", "rote-model", 1400.0)]
    obs.append(Observation("livebench", "livebench/global", "livebench", "x", 1.0, None, "", identity="x",
                           excluded="score is missing"))
    models = [ModelInfo("arena-catalog", m, licence=lic, identity=m) for m, lic in
              [("open-model", "MIT"), ("big-open", "Apache 2.0"), ("closed-model", "Proprietary"),
               ("a00", "Propretary")]]
    models += [ModelInfo("metadata", "open-model", params_b=30, identity="open-model"),
               ModelInfo("metadata", "big-open", params_b=200, identity="big-open"),
               ModelInfo("metadata", "closed-model", params_b=10, identity="closed-model")]
    prices = [Price("litellm", "prov/mid-model", "mid-model", 1e-6, 1e-6, 1.0, date(2026, 2, 1), identity="mid-model"),
              Price("litellm", "prov/claude-opus-9", "claude-opus-9", 1e-7, 1e-7, 0.1, None, identity="claude-opus-9"),
              Price("openrouter", "x/open-model", "open-model", 4e-6, 4e-6, 4.0, None, identity="open-model"),
              Price("openrouter", "x/big-open", "big-open", 5e-6, 5e-6, 5.0, None, identity="big-open"),
              Price("openrouter", "x/mid-model", "mid-model", 9e-7, 9e-7, 0.9, None, identity="mid-model")]
    checks = [check("e1", "claude-opus-9", 2.0), check("e1", "rote-model", 0.2), check("e1", "mid-model", 1.5)]
    t = datetime(2026, 2, 3, 6, 0, tzinfo=UTC)
    statuses = {n: FetchStatus(n, n != "arena" or arena_ok, 200, None if arena_ok or n != "arena" else "HTTP 503",
                               10, "0" * 64, t, t, "recorded", False) for n, _ in SOURCES}
    statuses["aider"] = None
    return ScoringInputs(tuple(obs), tuple(prices), tuple(checks), tuple(models), statuses,
                         {"arena": date(2026, 1, 25), "epoch": None})


@pytest.fixture(scope="module")
def typed() -> Snapshot:
    return compute_snapshot(world(), CFG, NOW, None)


@pytest.fixture(scope="module")
def snap(typed: Snapshot) -> dict:
    """The snapshot as the JSON it is saved as."""
    return typed.model_dump(mode="json")


def board(snapshot: dict, board_id: str) -> dict:
    return next(b for b in snapshot["boards"] if b["id"] == board_id)


def test_snapshot_has_every_contract_field(snap):
    top = {"schema_version", "date", "created_at", "method_id", "demo", "as_of", "stale", "site", "sources",
           "families", "roles", "observations", "calibration", "models", "prices", "boards", "machines",
           "stacks", "arena", "arenas", "evals", "index", "previous_date", "worked_example", "backfill", "method",
           "uncertainty"}
    assert top == set(snap)
    row_fields = {"rank", "model", "identity", "r", "score", "partial", "partial_reasons", "families", "evaluators",
                  "coverage", "available_share", "movement", "token_price", "build_price", "build_passed",
                  "uncertainty"}
    for b in snap["boards"]:
        assert {"id", "title", "kind", "role", "description", "weights", "warning", "missing_families", "rows",
                "new"} <= set(b)
        for row in [*b["rows"], *b["new"]]:
            assert row_fields <= set(row)
    for m in snap["machines"]:
        for row in m["rows"]:
            assert row_fields | {"params_b", "memory_est_gb"} <= set(row)
    assert set(snap["calibration"][0]) == {"source", "feed", "release", "n", "overlap", "mu", "sigma", "alpha",
                                           "beta", "used", "reason"}
    json.dumps(snap, allow_nan=False)
    assert snap["date"] == "2026-02-03" and snap["created_at"] == NOW.isoformat()
    assert snap["method_id"] == CFG.method_id() and snap["schema_version"] == 3
    assert snap["uncertainty"]["rounds"] == CFG.uncertainty.rounds and all(b["uncertainty"] for b in snap["boards"])
    assert snap["previous_date"] is None and snap["backfill"] is None
    example = snap["worked_example"]
    assert example["board_id"] == "orchestrator" and example["identity"] == "claude-opus-9" and example["agrees"]


def test_every_model_calibrates_to_its_quality(snap):
    used = {c["feed"] for c in snap["calibration"] if c["used"]}
    assert used == {"epoch/eci", "terminal-bench/accuracy", "aider/polyglot"}
    rows = {r["identity"]: r for r in board(snap, "orchestrator")["rows"]}
    assert rows["mid-model"]["r"] == pytest.approx(1450, abs=1e-9) and rows["claude-opus-9"]["rank"] == 1
    excluded = [x for x in snap["observations"] if x["excluded"]]
    assert excluded and excluded[0]["calibrated"] is None


def test_single_evaluator_model_is_in_the_new_strip(snap):
    orch = board(snap, "orchestrator")
    assert [r["identity"] for r in orch["new"]] == ["solo"] and orch["new"][0]["rank"] is None
    assert "solo" not in {r["identity"] for r in orch["rows"]}
    assert snap["method"] == {"single_source_rule": True}  # renderers tell it from a pre-rule snapshot


def test_board_membership(snap):
    ids = {b["id"]: [r["identity"] for r in b["rows"]] for b in snap["boards"]}
    assert ids["open-weight"] == ["big-open", "open-model"]  # 'Propretary' and 'Proprietary' stay out
    assert ids["mid-tier"] == ["mid-model"]  # build 1.5 < cheapest flagship build 2.0; opus never
    assert ids["rote"] == ["rote-model"]
    assert ids["build-prices"] == ["claude-opus-9", "mid-model", "rote-model"]
    rote = board(snap, "rote")["rows"][0]
    assert rote["build_price"] == 0.2 and rote["build_passed"] is True and rote["token_price"] is None
    assert board(snap, "mid-tier")["rows"][0]["token_price"] == 1.0


def test_board_warning_names_missing_families(snap):
    assert board(snap, "orchestrator")["warning"] is None
    rote = board(snap, "rote")
    assert rote["missing_families"] == ["instruction_following", "data_analysis"]
    assert "Instruction following" in rote["warning"] and "Data analysis" in rote["warning"]


def test_home_computer_picks(snap):
    picks = {m["id"]: [r["identity"] for r in m["rows"]] for m in snap["machines"]}
    assert picks == {"rtx-3090": ["open-model"], "strix-halo": ["open-model"], "mac-studio": ["big-open", "open-model"]}
    mac = snap["machines"][2]["rows"]
    assert mac[0]["memory_est_gb"] == 125.0 and mac[0]["params_b"] == 200 and [r["rank"] for r in mac] == [1, 2]


def test_single_evaluator_models_that_fit_are_in_each_machines_new_strip():
    w = world()
    # "solo" (one evaluator) becomes an open-weight 12B model: 12 * 0.5 * 1.25 = 7.5 GB fits all three machines
    w = dataclasses.replace(w, models=(*w.models, ModelInfo("arena-catalog", "solo", licence="MIT", identity="solo"),
                                       ModelInfo("metadata", "solo", params_b=12, identity="solo")))
    got = compute_snapshot(w, CFG, NOW, None).model_dump(mode="json")
    for m in got["machines"]:
        assert "solo" not in [r["identity"] for r in m["rows"]], m["id"]  # never ranked among the picks
        assert [(r["identity"], r["rank"], r["movement"], r["memory_est_gb"]) for r in m["new"]] == [
            ("solo", None, None, 7.5)], m["id"]
    assert [r["identity"] for r in got["machines"][0]["rows"]] == ["open-model"]


def test_stacks(snap):
    best = {e["role"]: e["identity"] for e in snap["stacks"]["best"]}
    assert best == {"orchestrator": "claude-opus-9", "mid_tier": "mid-model", "rote": "rote-model"}
    value = snap["stacks"]["value"]
    picks = {e["role"]: e["identity"] for e in value["entries"]}
    assert picks == {"orchestrator": "mid-model", "mid_tier": "mid-model"}
    assert value["day_of_work"] is None  # no rote entry


def test_sources_credit_all_evidence(snap):
    by = {s["name"]: s for s in snap["sources"]}
    assert [s["name"] for s in snap["sources"]] == [n for n, _ in SOURCES]
    assert by["aider"]["status"] == "missing" and by["arena"]["status"] == "ok"
    assert {n for n, s in by.items() if s["contributing"]} == {
        "arena", "arena-catalog", "epoch", "aider", "terminal-bench", "litellm", "openrouter", "piratebench",
        "metadata"}
    assert not by["livebench"]["contributing"]  # its only row is excluded
    assert by["arena"]["published"] == "2026-01-25" and by["litellm"]["published"] == "2026-02-01"
    # the newest scored source dates the boards; a price list published later does not
    assert snap["as_of"] == "2026-01-25" == max(by[n]["published"] for n in ("arena", "epoch", "terminal-bench")
                                                if by[n]["published"])
    assert snap["stale"] is False


def test_arena_failure_marks_stale_and_nothing_else():
    failed = compute_snapshot(world(arena_ok=False), CFG, NOW, None).model_dump(mode="json")
    assert failed["stale"] is True
    arena = next(s for s in failed["sources"] if s["name"] == "arena")
    assert arena["status"] == "failed" and arena["error"] == "HTTP 503"
    assert board(failed, "orchestrator")["rows"]  # its last good payload still scores


def test_movement_against_previous(typed, snap):
    again = compute_snapshot(world(), CFG, NOW, typed).model_dump(mode="json")
    assert {r["movement"] for r in board(again, "orchestrator")["rows"]} == {0}
    assert {r["movement"] for m in again["machines"] for r in m["rows"]} == {0}
    assert again["previous_date"] == typed.date
    assert board(snap, "orchestrator")["rows"][0]["movement"] is None  # first snapshot
    prev = json.loads(json.dumps(snap))
    orch = board(prev, "orchestrator")
    # the day before: mid-model not ranked yet, claude-opus-9 last (R set so the ranks follow)
    rows = [r for r in orch["rows"] if r["identity"] not in ("mid-model", "claude-opus-9")]
    rows += [r for r in orch["rows"] if r["identity"] == "claude-opus-9"]
    for k, r in enumerate(rows):
        r["rank"], r["r"], r["score"] = k + 1, 2000.0 - k, 2000 - k
    orch["rows"] = rows
    prev["worked_example"] = None
    prev["stacks"]["best"] = [e for e in prev["stacks"]["best"] if e["board"] != "orchestrator"]
    earlier = validate_snapshot(prev)
    moved = {r.identity: r.movement for r in compute_snapshot(world(), CFG, NOW, earlier).boards[0].rows}
    assert moved["claude-opus-9"] == len(rows) - 1 and moved["mid-model"] == "new"
    other = compute_snapshot(world(), CFG, NOW, validate_snapshot({**prev, "method_id": "boards-zfit-v1-000000000000"}))
    assert {r.movement for b in other.boards for r in b.rows} == {None} and other.previous_date is None


def test_demo_single_evaluator_pick_is_in_the_rtx_3090_new_strip():
    """The shipped demo: gemma-4-12b (12B, 12 * 0.5 * 1.25 = 7.5 GB, within 80% of 24 GB) has one
    evaluator, so it is in the RTX 3090's New strip rather than silently dropped."""
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    snap = json.loads((root / "snapshots" / "2026-11-29.json").read_text(encoding="utf-8"))
    rtx = next(m for m in snap["machines"] if m["id"] == "rtx-3090")
    new = {r["identity"]: r for r in rtx["new"]}
    assert "gemma-4-12b" in new and "gemma-4-12b" not in {r["identity"] for r in rtx["rows"]}
    gemma = new["gemma-4-12b"]
    assert gemma["rank"] is None and gemma["params_b"] == 12 and gemma["memory_est_gb"] == 7.5
    assert len(gemma["evaluators"]) == 1
