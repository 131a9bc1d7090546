"""Score parsers (LMArena, Epoch, Aider, LiveBench, Terminal-Bench) on the real upstream files.

Every trap the data MANIFEST lists for these five sources has a test here, plus whole-payload
failures (PayloadError) and row-level validation (booleans, NaN, out-of-range scores kept as
excluded rows with their reasons), the latter on tiny inline payloads.
"""

from __future__ import annotations

import dataclasses
import json
import math
from collections import Counter
from datetime import UTC, date, datetime
from pathlib import Path

import pytest
import yaml
from conftest import require_shared_data

from builder.config import SourceConfig
from builder.records import Observation, ParseResult, Payload
from builder.sources import PayloadError, aider, epoch, livebench, lmarena, parse_payload, terminal_bench
from builder.sources.validate import check_score

DATA = require_shared_data()  # ../shared/data, or the pinned files fetched (tests/realdata.py)
FETCHED = datetime(2026, 2, 1, 12, 0, tzinfo=UTC)

ARENA = SourceConfig(
    name="arena",
    kind="lmarena",
    evaluator="lmarena",
    url="https://raw.githubusercontent.com/lmarena/arena-catalog/main/data/leaderboard-text.json",
    date=date(2025, 12, 11),
)
EPOCH = SourceConfig(
    name="epoch",
    kind="epoch",
    url="https://raw.githubusercontent.com/epoch-research/benchmark-stitching/main/data/website/epoch_capabilities_index.csv",
    homepage="https://epoch.ai/benchmarks/eci",
)
AIDER = SourceConfig(
    name="aider",
    kind="aider",
    url="https://raw.githubusercontent.com/Aider-AI/aider/main/aider/website/_data/polyglot_leaderboard.yml",
)
LIVEBENCH = SourceConfig(
    name="livebench",
    kind="livebench",
    url="https://raw.githubusercontent.com/LiveBench/livebench.github.io/main/public/",
)
TBENCH = SourceConfig(
    name="terminal-bench",
    kind="terminal_bench",
    url="https://codeload.github.com/laude-institute/terminal-bench-leaderboard/tar.gz/8e1925a3",
    options={"commit": "8e1925a3"},
)


def payload(name: str, files: dict[str, bytes], origin: str = "test") -> Payload:
    return Payload(source=name, files=files, fetched_at=FETCHED, origin=origin)


def file_payload(name: str, *paths: Path) -> Payload:
    return payload(name, {p.name: p.read_bytes() for p in paths}, origin=str(paths[0]))


def folder_payload(name: str, folder: Path) -> Payload:
    files = {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}
    return payload(name, files, origin=str(folder))


def kept(result: ParseResult) -> list[Observation]:
    return [o for o in result.observations if o.excluded is None]


def by(result: ParseResult, **match: object) -> list[Observation]:
    return [o for o in result.observations if all(getattr(o, k) == v for k, v in match.items())]


def assert_common(result: ParseResult, source: SourceConfig) -> None:
    """Fields every observation of every parser must carry."""
    assert result.observations
    for o in result.observations:
        assert o.source == source.name
        assert o.feed.startswith(f"{source.name}/")
        assert o.evaluator == source.evaluator_id
        assert o.model and o.model == o.model.strip()
        assert o.url.startswith(("http://", "https://"))
        assert o.identity == "" and o.selected is False and o.reason == ""
        if o.excluded is None:
            assert o.raw is not None and math.isfinite(o.raw)
            assert check_score(o.raw, percent=o.percent)[1] is None
        else:
            assert o.excluded.strip()


# --------------------------------------------------------------------------- LMArena


@pytest.fixture(scope="module")
def arena_result() -> ParseResult:
    return lmarena.parse(file_payload("arena", DATA / "arena/lmarena/leaderboard-text.json"), ARENA)


def test_arena_text_and_coding_feeds_only(arena_result: ParseResult) -> None:
    raw = json.loads((DATA / "arena/lmarena/leaderboard-text.json").read_bytes())
    assert len(raw) == 29  # 27 other categories are ignored
    assert_common(arena_result, ARENA)
    feeds = Counter(o.feed for o in arena_result.observations)
    assert feeds == {"arena/text": len(raw["full"]), "arena/coding": len(raw["coding"])}
    assert {o.evaluator for o in arena_result.observations} == {"lmarena"}  # one evaluator for both
    top = by(arena_result, feed="arena/text", model="gemini-3-pro")[0]
    assert top.raw == raw["full"]["gemini-3-pro"]["rating"]
    assert top.details == {
        "category": "full",
        "rating_q025": raw["full"]["gemini-3-pro"]["rating_q025"],
        "rating_q975": raw["full"]["gemini-3-pro"]["rating_q975"],
    }
    assert top.percent is False  # Arena scale, 1486 is fine
    coding = by(arena_result, feed="arena/coding", model="gemini-3-pro")[0]
    assert coding.raw == raw["coding"]["gemini-3-pro"]["rating"] != top.raw


def test_arena_has_no_dates_inside_so_the_hint_or_upstream_commit_dates_it(arena_result: ParseResult) -> None:
    assert {o.date for o in arena_result.observations} == {date(2025, 12, 11)}
    assert {o.release for o in arena_result.observations} == {"2025-12-11"}
    assert arena_result.published == date(2025, 12, 11)
    no_hint = ARENA.model_copy(update={"date": None})
    payload = file_payload("arena", DATA / "arena/lmarena/leaderboard-text.json")
    # never the fetch day: without a hint or a commit date the date is unknown
    result = lmarena.parse(payload, no_hint)
    assert {o.date for o in result.observations} == {None} and result.published is None
    assert {o.release for o in result.observations} == {"undated"}
    committed = lmarena.parse(dataclasses.replace(payload, published=date(2025, 12, 11)), no_hint)
    assert {o.date for o in committed.observations} == {date(2025, 12, 11)}
    assert committed.published == date(2025, 12, 11) != FETCHED.date()


def test_arena_previous_publication_differs_and_style_control_file_is_read_as_its_own_feeds() -> None:
    current = DATA / "arena/lmarena/leaderboard-text.json"
    previous = DATA / "arena/lmarena/previous-2025-11-06/leaderboard-text.json"
    old = lmarena.parse(file_payload("arena", previous), ARENA.model_copy(update={"date": date(2025, 11, 6)}))
    new = lmarena.parse(file_payload("arena", current), ARENA)
    assert len(old.observations) != len(new.observations)
    assert by(old, feed="arena/text", model="gemini-2.5-pro")[0].raw != by(new, feed="arena/text",
                                                                           model="gemini-2.5-pro")[0].raw
    # A style-control file beside the plain one: the plain feeds keep the plain ratings, the
    # style-control ratings are the "-style" feeds.
    style = json.loads(current.read_bytes())
    style["full"]["gemini-3-pro"]["rating"] = 1234.5
    both = payload(
        "arena",
        {"leaderboard-text.json": current.read_bytes(),
         "leaderboard-text-style-control.json": json.dumps(style).encode()},
    )
    parsed = lmarena.parse(both, ARENA)
    assert by(parsed, feed="arena/text", model="gemini-3-pro")[0].raw == 1486.6027120272704
    styled = by(parsed, feed="arena/text-style", model="gemini-3-pro")[0]
    assert styled.raw == 1234.5 and styled.details["style_control"] is True
    assert len(by(parsed, feed="arena/coding-style")) == len(by(parsed, feed="arena/coding"))
    # a source whose URL is the style-control file alone yields only the "-style" feeds
    alone = lmarena.parse(payload("arena", {"leaderboard-text-style-control.json": json.dumps(style).encode()}),
                          ARENA)
    assert {o.feed for o in alone.observations} == {"arena/text-style", "arena/coding-style"}
    # any published category by configuration: feed suffix -> upstream category
    picked = lmarena.parse(file_payload("arena", current),
                           ARENA.model_copy(update={"options": {"categories": {"hard": "hard_6", "math": "math"}}}))
    assert {o.feed for o in picked.observations} == {"arena/hard", "arena/math"}
    raw = json.loads(current.read_bytes())
    assert by(picked, feed="arena/math", model="gemini-3-pro")[0].raw == raw["math"]["gemini-3-pro"]["rating"]
    with pytest.raises(PayloadError, match="options.categories"):
        lmarena.parse(file_payload("arena", current), ARENA.model_copy(update={"options": {"categories": ["x"]}}))
    two_plain = payload("arena", {"a/leaderboard-text.json": current.read_bytes(),
                                  "b/leaderboard-text.json": previous.read_bytes()})
    with pytest.raises(PayloadError, match="2 leaderboard files"):
        lmarena.parse(two_plain, ARENA)


def test_arena_bad_rows_are_kept_with_reasons() -> None:
    body = {
        "full": {
            "ok": {"rating": 1300.0, "rating_q975": 1310.0, "rating_q025": 1290.0},
            "flag": {"rating": True},
            "nan": {"rating": float("nan")},
            "text": {"rating": "high"},
            "missing": {"rating_q975": 1.0},
            "scalar": 1250,
        },
        "coding": {"inf": {"rating": float("inf")}},
        "math": {"ignored": {"rating": 1.0}},
    }
    result = lmarena.parse(payload("arena", {"leaderboard-text.json": json.dumps(body).encode()}), ARENA)
    assert_common(result, ARENA)
    reasons = {o.model: o.excluded for o in result.observations}
    assert reasons["ok"] is None
    assert "boolean" in reasons["flag"]
    assert "not finite" in reasons["nan"] and "not finite" in reasons["inf"]
    assert "not a number" in reasons["text"]
    assert "missing" in reasons["missing"]
    assert "not an object" in reasons["scalar"]
    assert "ignored" not in reasons
    assert by(result, model="nan")[0].raw is not None and math.isnan(by(result, model="nan")[0].raw)


@pytest.mark.parametrize(
    "files, match",
    [
        ({"leaderboard-text.json": b"{not json"}, "not valid JSON"),
        ({"leaderboard-text.json": b"[1, 2]"}, "expected an object"),
        ({"leaderboard-text.json": b'{"math": {}}'}, "none of the categories 'full', 'coding'"),
        ({"leaderboard-text.json": b'{"full": [1]}'}, "not an object of models"),
        ({}, "no plain"),
    ],
)
def test_arena_unreadable_payload_raises(files: dict[str, bytes], match: str) -> None:
    with pytest.raises(PayloadError, match=match):
        lmarena.parse(payload("arena", files), ARENA)


# --------------------------------------------------------------------------- Epoch


@pytest.fixture(scope="module")
def epoch_result() -> ParseResult:
    return epoch.parse(file_payload("epoch", DATA / "epoch/epoch_capabilities_index.csv"), EPOCH)


def test_epoch_uses_rows_with_an_eci_score(epoch_result: ParseResult) -> None:
    assert_common(epoch_result, EPOCH)
    assert len(epoch_result.observations) == 426
    reasons = Counter(o.excluded for o in epoch_result.observations)
    assert reasons == {None: 142, "no ECI score": 284}
    assert {o.feed for o in epoch_result.observations} == {"epoch/eci"}
    gpt5 = by(epoch_result, model="gpt-5-2025-08-07_high")[0]
    assert gpt5.raw == pytest.approx(149.63110287022786)
    assert gpt5.date == date(2025, 8, 7)
    assert gpt5.percent is False
    assert gpt5.details == {"effort": "high", "organization": "OpenAI", "accessibility": "API access",
                            "model_name": "GPT-5"}
    assert by(epoch_result, model="claude-sonnet-4-5-20250929_32K")[0].details["effort"] == "32K"
    assert epoch.effort_of("Mistral-7B-Instruct-v0.2") is None
    assert epoch.effort_of("gemma_7b") is None  # a parameter size, not an effort


def test_epoch_model_facts(epoch_result: ParseResult) -> None:
    assert len(epoch_result.models) == 426
    info = {m.model: m for m in epoch_result.models}
    assert info["gpt-oss-120b_high"].open_weight is True  # "Open weights (unrestricted)"
    assert info["gpt-oss-120b_high"].maker == "OpenAI"
    assert info["gpt-oss-120b_high"].release_date == date(2025, 8, 5)
    assert info["gpt-5-2025-08-07_high"].open_weight is False  # "API access"
    assert epoch.open_weight_of("Hosted access (no API)") is False
    assert epoch.open_weight_of("Open weights (non-commercial)") is True
    assert epoch.open_weight_of("Unreleased") is None
    assert epoch.open_weight_of("") is None


def test_epoch_byte_order_mark_is_ignored() -> None:
    """The real ECI file has no BOM but its sibling CSVs do; a BOM must not rename the first column."""
    assert (DATA / "epoch/model_versions.csv").read_bytes().startswith(b"\xef\xbb\xbf")
    body = b"\xef\xbb\xbf" + (DATA / "epoch/epoch_capabilities_index.csv").read_bytes()
    result = epoch.parse(payload("epoch", {"epoch_capabilities_index.csv": body}), EPOCH)
    assert len(kept(result)) == 142
    assert result.observations[0].model == "gpt-oss-120b_high"


def test_epoch_long_dates_from_the_runs_file() -> None:
    import csv
    import io

    runs = list(csv.DictReader(io.StringIO((DATA / "epoch/benchmarks_runs.csv").read_text(encoding="utf-8-sig"))))
    assert runs[0]["started_at"] == "17 November 2025 4:28pm"
    assert epoch.parse_date(runs[0]["started_at"]) == date(2025, 11, 17)
    parsed = [epoch.parse_date(r["started_at"]) for r in runs if r["started_at"]]
    assert all(parsed) and min(parsed) > date(2020, 1, 1)
    body = (
        b"Model version,ECI Score,Release date,Organization,Model accessibility\n"
        b"m-long,120.5,17 November 2025 4:28pm,Lab,API access\n"
        b"m-none,121,,Lab,\n"
        b"m-odd,122,sometime,Lab,\n"
    )
    result = epoch.parse(payload("epoch", {"eci.csv": body}), EPOCH)
    assert [o.date for o in result.observations] == [date(2025, 11, 17), None, None]
    assert all(o.excluded is None for o in result.observations)  # a missing date does not drop a score


def test_epoch_bad_scores_kept_with_reasons() -> None:
    body = (
        b"Model version,ECI Score,Release date\n"
        b"a,nan,2025-01-01\n"
        b"b,inf,2025-01-01\n"
        b"c,True,2025-01-01\n"
        b"d,   ,2025-01-01\n"
        b"e,150,2025-01-01,extra\n"
        b"f,-5,2025-01-01\n"
    )
    result = epoch.parse(payload("epoch", {"eci.csv": body}), EPOCH)
    reasons = {o.model: o.excluded for o in result.observations}
    assert "not finite" in reasons["a"] and "not finite" in reasons["b"]
    assert "not a number" in reasons["c"]
    assert reasons["d"] == "no ECI score"
    assert "4 fields, header has 3" in reasons["e"]
    assert reasons["f"] is None  # ECI points are not a percentage: no [0, 100] rule


@pytest.mark.parametrize(
    "files, match",
    [
        ({"eci.csv": b"Model,Score\nx,1\n"}, "missing column"),
        ({"eci.csv": b"\xff\xfe\x00bad"}, "not UTF-8"),
        ({"a.csv": b"", "b.csv": b""}, "expected one ECI CSV"),
    ],
)
def test_epoch_unreadable_payload_raises(files: dict[str, bytes], match: str) -> None:
    with pytest.raises(PayloadError, match=match):
        epoch.parse(payload("epoch", files), EPOCH)


# --------------------------------------------------------------------------- Aider


@pytest.fixture(scope="module")
def aider_result() -> ParseResult:
    return aider.parse(file_payload("aider", DATA / "aider/polyglot_leaderboard.yml"), AIDER)


def test_aider_exactly_65_of_69_runs_pass_the_run_rules(aider_result: ParseResult) -> None:
    assert_common(aider_result, AIDER)
    assert len(aider_result.observations) == 69
    assert len(kept(aider_result)) == 65
    excluded = {o.model: o.excluded for o in aider_result.observations if o.excluded}
    architect = [m for m, r in excluded.items() if "architect/editor" in r]
    assert sorted(architect) == [
        "DeepSeek R1 + claude-3-5-sonnet-20241022",
        "QwQ-32B + Qwen 2.5 Coder Instruct",
        "o3 (high) + gpt-4.1",
    ]
    assert all("combined-model run" in excluded[m] for m in architect)
    assert excluded["chatgpt-4o-latest (2025-02-15)"] == "test_cases 223 is not 224 or 225"
    for o in kept(aider_result):
        assert o.details["edit_format"] in ("whole", "diff", "diff-fenced")
        assert o.details["test_cases"] in (224, 225)
        assert o.details["commit"] and isinstance(o.date, date)
        assert o.feed == "aider/polyglot" and o.percent is True


def test_aider_commit_hash_spellings(aider_result: ParseResult) -> None:
    runs = yaml.safe_load((DATA / "aider/polyglot_leaderboard.yml").read_text())
    loaded = {r["dirname"]: r["commit_hash"] for r in runs}
    commits = {o.details["dirname"]: o.details["commit"] for o in aider_result.observations}
    as_int = [d for d, c in loaded.items() if isinstance(c, int)]
    assert len(as_int) == 1 and loaded[as_int[0]] == 5318380  # what safe_load makes of it
    assert commits[as_int[0]] == "5318380"
    assert all(isinstance(c, str) for c in commits.values())
    assert "60d11a6, 93edbda" in commits.values()
    assert "aaacee5-dirty, aeaf259" in commits.values()
    dirty = [c for c in commits.values() if c.endswith("-dirty")]
    assert len(dirty) > 30  # "-dirty" stays part of the spelling
    # leading-zero all-digit hashes would load as octal ints: the source text is kept instead
    text = ("- {model: m, edit_format: diff, test_cases: 225, total_tests: 225, pass_rate_2: 50.0, "
            "commit_hash: 0123456, date: 2025-01-02}\n")
    assert yaml.safe_load(text)[0]["commit_hash"] == 0o123456
    obs = aider.parse(payload("aider", {"p.yml": text.encode()}), AIDER).observations[0]
    assert obs.details["commit"] == "0123456" and obs.excluded is None
    assert aider.commit_spelling(["60d11a6", 93]) == "60d11a6, 93"


def test_aider_dates_load_as_dates_and_tiebreak(aider_result: ParseResult) -> None:
    runs = yaml.safe_load((DATA / "aider/polyglot_leaderboard.yml").read_text())
    assert all(type(r["date"]) is date for r in runs)
    first = by(aider_result, model="Gemini 2.0 Pro exp-02-05")[0]
    assert first.date == date(2025, 2, 25)
    assert first.raw == 35.6
    assert first.details["tiebreak"] == ["2025-02-25", "whole", "2fccd47"]
    for o in aider_result.observations:
        assert o.details["tiebreak"] == [o.date.isoformat(), o.details["edit_format"], o.details["commit"]]
    # the one spelling published twice keeps both runs for selection to choose from
    qwen = by(aider_result, model="Qwen2.5-Coder-32B-Instruct")
    assert len(qwen) == 2 and all(o.excluded is None for o in qwen)


def test_aider_224_of_225_runs_keep_pass_rate_2_as_published(aider_result: ParseResult) -> None:
    short = [o for o in aider_result.observations if o.details["test_cases"] == 224]
    assert len(short) == 5
    o1 = by(aider_result, model="o1-2024-12-17 (high)")[0]
    assert o1.excluded is None
    assert o1.raw == 61.7  # published (139 of 225 tests), not recomputed over 224
    assert (o1.details["test_cases"], o1.details["total_tests"], o1.details["pass_num_2"]) == (224, 225, 139)
    assert by(aider_result, model="o3 (high)")[0].details["reasoning_effort"] == "high"


def test_aider_bad_rows_kept_with_reasons() -> None:
    runs = [
        {"model": "bool", "edit_format": "diff", "test_cases": 225, "pass_rate_2": True, "commit_hash": "abc",
         "date": "2025-01-01"},
        {"model": "nan", "edit_format": "diff", "test_cases": 225, "pass_rate_2": float("nan"), "commit_hash": "abc",
         "date": "2025-01-01"},
        {"model": "over", "edit_format": "diff", "test_cases": 225, "pass_rate_2": 100.5, "commit_hash": "abc",
         "date": "2025-01-01"},
        {"model": "edge", "edit_format": "diff-fenced", "test_cases": 224, "pass_rate_2": 100.0, "commit_hash": "abc",
         "date": "2025-01-01"},
        {"model": "nocommit", "edit_format": "whole", "test_cases": 225, "pass_rate_2": 10.0, "date": "2025-01-01"},
        {"model": "nodate", "edit_format": "whole", "test_cases": 225, "pass_rate_2": 10.0, "commit_hash": "abc"},
        {"model": "udiff", "edit_format": "udiff", "test_cases": 225, "pass_rate_2": 10.0, "commit_hash": "abc",
         "date": "2025-01-01"},
        {"model": "a + b", "edit_format": "diff", "test_cases": 225, "pass_rate_2": 10.0, "commit_hash": "abc",
         "date": "2025-01-01"},
        "not a run",
    ]
    text = yaml.safe_dump(runs)
    result = aider.parse(payload("aider", {"p.yml": text.encode()}), AIDER)
    reasons = {o.model: o.excluded for o in result.observations}
    assert "boolean" in reasons["bool"]
    assert "not finite" in reasons["nan"]
    assert "out of [0, 100]" in reasons["over"]
    assert reasons["edge"] is None  # 100 is inside the inclusive range
    assert reasons["nocommit"] == "no commit"
    assert "no usable date" in reasons["nodate"]
    assert "udiff" in reasons["udiff"]
    assert reasons["a + b"] == "combined-model run"
    assert "not a run record" in reasons["(run 9)"]


@pytest.mark.parametrize(
    "body, match",
    [(b"- model: [unclosed", "invalid YAML"), (b"model: x\n", "expected a list"), (b"\xff\xfe", "not UTF-8")],
)
def test_aider_unreadable_payload_raises(body: bytes, match: str) -> None:
    with pytest.raises(PayloadError, match=match):
        aider.parse(payload("aider", {"polyglot_leaderboard.yml": body}), AIDER)


# --------------------------------------------------------------------------- LiveBench


@pytest.fixture(scope="module")
def livebench_result() -> ParseResult:
    return livebench.parse(folder_payload("livebench", DATA / "livebench"), LIVEBENCH)


def test_livebench_reads_only_the_latest_release(livebench_result: ParseResult) -> None:
    assert_common(livebench_result, LIVEBENCH)
    assert {o.release for o in livebench_result.observations} == {"2026-01-08"}
    assert {o.date for o in livebench_result.observations} == {date(2026, 1, 8)}
    assert livebench_result.published == date(2026, 1, 8)
    assert {o.url for o in livebench_result.observations} == {LIVEBENCH.url + "table_2026_01_08.csv"}
    feeds = Counter(o.feed for o in livebench_result.observations)
    assert set(feeds) == {
        "livebench/global",
        "livebench/reasoning",
        "livebench/coding",
        "livebench/agentic_coding",
        "livebench/mathematics",
        "livebench/data_analysis",
        "livebench/language",
        "livebench/instruction_following",
    }
    assert set(feeds.values()) == {127}
    assert all(o.percent for o in livebench_result.observations)


def test_livebench_latest_table_with_its_own_or_an_earlier_categories_file() -> None:
    files = {p.name: p.read_bytes() for p in (DATA / "livebench").iterdir()}
    older = {k: v for k, v in files.items() if "2025_12_23" in k}
    assert livebench.parse(payload("livebench", older), LIVEBENCH).published == date(2025, 12, 23)
    # a newer table without its own categories file is read with the latest earlier one
    files["table_2026_02_01.csv"] = files["table_2026_01_08.csv"]
    files["categories_2026_03_01.json"] = b'{"Later": ["AMPS_Hard"]}'  # newer than the table: unused
    result = livebench.parse(payload("livebench", files), LIVEBENCH)
    assert result.published == date(2026, 2, 1)
    assert {o.details["categories_file"] for o in result.observations} == {"categories_2026_01_08.json"}
    assert {o.details["table"] for o in result.observations} == {"table_2026_02_01.csv"}
    # the 2026 table read with the 2025 categories: tasks added since are simply not averaged
    mixed = {"table_2026_01_08.csv": files["table_2026_01_08.csv"],
             "categories_2025_12_23.json": files["categories_2025_12_23.json"]}
    da = by(livebench.parse(payload("livebench", mixed), LIVEBENCH), model="claude-4-1-opus-20250805-base",
            feed="livebench/data_analysis")[0]
    assert da.details["tasks"] == ["tablejoin", "tablereformat"] and da.raw == pytest.approx((37.827 + 96.078) / 2)


def test_livebench_category_means_and_equal_global(livebench_result: ParseResult) -> None:
    import csv
    import io

    rows = list(csv.DictReader(io.StringIO((DATA / "livebench/table_2026_01_08.csv").read_text())))
    cats = json.loads((DATA / "livebench/categories_2026_01_08.json").read_text())
    row = next(r for r in rows if r["model"] == "claude-4-1-opus-20250805-base")
    means = {c: sum(float(row[t]) for t in tasks) / len(tasks) for c, tasks in cats.items()}
    obs = {o.details["category"]: o for o in by(livebench_result, model="claude-4-1-opus-20250805-base")}
    for c, mean in means.items():
        assert obs[c].raw == pytest.approx(mean, abs=1e-9)
        assert obs[c].details["tasks"] == cats[c] and obs[c].details["from_summary"] is False
    assert obs["IF"].feed == "livebench/instruction_following"
    assert obs["global"].raw == pytest.approx(sum(means.values()) / len(means), abs=1e-9)
    assert obs["global"].details["categories"] == list(cats)
    assert obs["global"].details["incomplete_categories"] == []


def test_livebench_ragged_row_is_rejected_not_misread(livebench_result: ParseResult) -> None:
    lines = (DATA / "livebench/table_2026_01_08.csv").read_text().splitlines()
    assert len(lines[0].split(",")) == 24
    bad_line = next(i for i, line in enumerate(lines, start=1) if line.startswith("nemotron-3-super-120b-a12b,"))
    assert len(lines[bad_line - 1].split(",")) == 21
    nemo = by(livebench_result, model="nemotron-3-super-120b-a12b")
    assert len(nemo) == 8  # one per feed
    for o in nemo:
        assert o.raw is None
        assert o.excluded == (
            f"table_2026_01_08.csv line {bad_line} ('nemotron-3-super-120b-a12b'): ragged row, 21 fields, header has 24"
        )
    assert sum(1 for o in livebench_result.observations if o.excluded) == 8


def test_livebench_task_sets_change_between_releases(livebench_result: ParseResult) -> None:
    old = livebench.parse(
        payload("livebench", {p.name: p.read_bytes() for p in (DATA / "livebench").glob("*2025_12_23*")}), LIVEBENCH
    )
    new_tasks = {t for o in by(livebench_result, model="claude-4-1-opus-20250805-base") for t in o.details.get("tasks",
                                                                                                               [])}
    old_tasks = {t for o in by(old, model="claude-4-1-opus-20250805-base") for t in o.details.get("tasks", [])}
    assert (len(old_tasks), len(new_tasks)) == (21, 23)
    assert new_tasks - old_tasks == {"consecutive_events", "integrals_with_game"}
    assert len({o.model for o in old.observations}) == 65
    assert all(o.excluded is None for o in old.observations)
    # the same model's Data Analysis score changes because the category gained a task
    old_da = by(old, model="claude-4-1-opus-20250805-base", feed="livebench/data_analysis")[0].raw
    new_da = by(livebench_result, model="claude-4-1-opus-20250805-base", feed="livebench/data_analysis")[0].raw
    assert old_da != new_da


def _lb_payload(table: str, categories: dict[str, list[str]]) -> Payload:
    return payload(
        "livebench",
        {"public/table_2026_03_01.csv": table.encode(),
         "public/categories_2026_03_01.json": json.dumps(categories).encode()},
    )


def test_livebench_incomplete_category_contributes_nothing() -> None:
    cats = {"Coding": ["a", "b"], "Data Analysis": ["c"], "IF": ["d"]}
    table = "model,a,b,c,d\nfull,10,20,30,60\nhole,10,,30,60\nflag,10,20,True,60\nover,10,20,30,101\nnone,,,,nan\n"
    result = livebench.parse(_lb_payload(table, cats), LIVEBENCH)
    get = {(o.model, o.feed): o for o in result.observations}
    assert get["full", "livebench/global"].raw == pytest.approx((15 + 30 + 60) / 3)
    assert "category 'Coding' incomplete: task 'b': score is missing" == get["hole", "livebench/coding"].excluded
    assert get["hole", "livebench/global"].raw == pytest.approx((30 + 60) / 2)
    assert get["hole", "livebench/global"].details["incomplete_categories"] == ["Coding"]
    assert get["hole", "livebench/global"].excluded is None
    assert "not a number" in get["flag", "livebench/data_analysis"].excluded
    assert "out of [0, 100]" in get["over", "livebench/instruction_following"].excluded
    assert get["none", "livebench/global"].excluded == "no complete category"
    assert "not finite" in get["none", "livebench/instruction_following"].excluded


def test_livebench_summary_columns_are_used_when_present() -> None:
    cats = {"Coding": ["a", "b"], "Data Analysis": ["c"]}
    table = "model,Global Average,Coding Average,data_analysis,a,b,c\nm,55,90,40,10,20,30\n"
    result = livebench.parse(_lb_payload(table, cats), LIVEBENCH)
    get = {o.feed: o for o in result.observations}
    assert get["livebench/coding"].raw == 90 and get["livebench/coding"].details["from_summary"]
    assert get["livebench/data_analysis"].raw == 40
    assert get["livebench/global"].raw == 55 and get["livebench/global"].details["from_summary"]


def test_livebench_missing_task_column_and_feed_override() -> None:
    cats = {"Coding": ["a", "zz"], "Math": ["c"]}
    src = LIVEBENCH.model_copy(update={"options": {"feed_names": {"Math": "maths"}}})
    result = livebench.parse(_lb_payload("model,a,c\nm,10,30\n", cats), src)
    get = {o.feed: o for o in result.observations}
    assert "task 'zz' is not in table_2026_03_01.csv" in get["livebench/coding"].excluded
    assert get["livebench/maths"].raw == 30
    assert get["livebench/global"].raw == 30


@pytest.mark.parametrize(
    "files, match",
    [
        ({"table_2026_01_08.csv": b"model,a\nm,1\n"}, "no categories_YYYY_MM_DD.json dated on or before"),
        ({"categories_2026_01_08.json": b'{"C": ["a"]}'}, "no table_YYYY_MM_DD.csv"),
        ({"table_2026_01_08.csv": b"model,a\n", "categories_2026_02_08.json": b'{"C": ["a"]}'}, "dated on or before"),
        ({"table_2026_01_08.csv": b"name,a\n", "categories_2026_01_08.json": b'{"C": ["a"]}'},
         "first column must be 'model'"),
        ({"table_2026_01_08.csv": b"model,a\n", "categories_2026_01_08.json": b"{oops"}, "not valid JSON"),
        ({"table_2026_01_08.csv": b"model,a\n", "categories_2026_01_08.json": b'{"C": "a"}'}, "list of task names"),
        ({"table_2026_01_08.csv": b"model,a\n", "categories_2026_01_08.json": b'{"IF": ["a"], "if": ["a"]}'},
         "share the feed"),
    ],
)
def test_livebench_unreadable_payload_raises(files: dict[str, bytes], match: str) -> None:
    with pytest.raises(PayloadError, match=match):
        livebench.parse(payload("livebench", files), LIVEBENCH)


# --------------------------------------------------------------------------- Terminal-Bench


@pytest.fixture(scope="module")
def tb_result() -> ParseResult:
    return terminal_bench.parse(folder_payload("terminal-bench", DATA / "terminal-bench"), TBENCH)


def test_tb_one_observation_per_submission_folder(tb_result: ParseResult) -> None:
    assert_common(tb_result, TBENCH)
    subs = {o.details["submission"] for o in tb_result.observations}
    assert len(tb_result.observations) == len(subs) == 13
    assert {o.feed for o in tb_result.observations} == {"terminal-bench/accuracy"}
    # every run counts but the one whose model_name is its agent's own name (ob1-sdk)
    assert [o.model for o in tb_result.observations if o.excluded is not None] == ["ob1-sdk"]
    assert {o.release for o in tb_result.observations} == {"0.1.1"}
    for o in tb_result.observations:
        assert o.details["commit"] == "8e1925a3" and o.details["benchmark_version"] == "0.1.1"
        assert o.url.startswith("https://github.com/laude-institute/terminal-bench-leaderboard/tree/8e1925a3/results/")


def test_tb_dataset_folder_spelled_with_colon_or_at(tb_result: ParseResult) -> None:
    colon = [o for o in tb_result.observations if "terminal-bench-core:0.1.1" in o.url]
    at = [o for o in tb_result.observations if "terminal-bench-core@0.1.1" in o.url]
    assert len(colon) == 1 and len(at) == 12
    assert colon[0].model == "claude-4.1-opus" and colon[0].raw == pytest.approx(39.75)


def test_tb_models_from_folder_names_when_metadata_has_none(tb_result: ParseResult) -> None:
    got = {o.details["submission"]: (o.model, o.details["model_from"],
                                     o.details["agent"]) for o in tb_result.observations}
    # run_metadata.json has model_name null
    assert got["20250902_orchestrator_qwen-3-coder-480B"] == ("qwen-3-coder-480B", "folder", "LeadArchitectAgent")
    assert got["20250923_droid_claude-4-1-opus"] == ("claude-4-1-opus", "folder", "Factory Droid")
    # no run_metadata.json at all (loose *results.json files / run folders without metadata)
    assert got["20250829_goose_claude-4-opus"] == ("claude-4-opus", "folder", "goose")
    assert got["20250811_cursor-cli_claude-4-sonnet"] == ("claude-4-sonnet", "folder", "cursor-cli")
    # metadata names the model
    assert got["20250711_openhands_claude-4-sonnet"] == ("openai/neulab/claude-sonnet-4-20250514", "metadata",
                                                         "openhands")
    # trials disagree on model_name (claude-sonnet-4-20250514 vs claude-sonnet-4-0): the folder decides
    assert got["20250825_swe-agent-mini_claude-4-sonnet"] == ("claude-4-sonnet", "folder", "mini-swe-agent")


def test_tb_folder_breaking_the_pattern(tb_result: ParseResult) -> None:
    ob1 = by(tb_result, model="ob1-sdk")
    assert len(ob1) == 1
    o = ob1[0]
    assert o.details["submission"] == "ob1-09-10-25"
    assert o.details["agent"] == "ob1-agent" and o.details["model_from"] == "metadata"
    assert o.date == date(2025, 9, 10)  # from start_time, the folder name has no YYYYMMDD
    assert o.details["trials"] == 5
    # its model_name is the agent's own product (ob1-sdk run by ob1-agent), not a model: kept, excluded
    assert o.raw is None and "names the agent" in o.excluded
    assert o.details["trial_accuracies"] == pytest.approx([56.25, 58.75, 57.5, 56.25, 55.0])
    assert not terminal_bench.names_its_agent("claude-4.1-opus", "orchestrator")
    assert not terminal_bench.names_its_agent("gpt-5", None)
    assert not terminal_bench.names_its_agent("claude-sonnet-5-20260915", "Claude Code")
    # without metadata such a folder cannot name its model: kept, excluded with the reason
    files = {
        "results/terminal-bench-core@0.1.1/odd-folder/results.json": b'{"accuracy": 0.5}',
        "results/terminal-bench-core@0.1.1/20250101_agent_model-x/results.json": b'{"accuracy": 0.25}',
    }
    result = terminal_bench.parse(payload("terminal-bench", files), TBENCH)
    odd = by(result, model="odd-folder")[0]
    assert "not YYYYMMDD_<agent>_<model>" in odd.excluded and odd.raw is None
    assert by(result, model="model-x")[0].raw == 25.0


def test_tb_mean_accuracy_over_trials_and_loose_results_files(tb_result: ParseResult) -> None:
    goose = by(tb_result, model="claude-4-opus")[0]  # five loose *_results.json files
    assert goose.details["trials"] == 5
    assert goose.raw == pytest.approx(100 * (0.4875 + 0.45 + 0.4875 + 0.425 + 0.4125) / 5)
    assert goose.date == date(2025, 8, 29)
    sonnet = {o.details["agent"]: o for o in by(tb_result, model="claude-4-sonnet")}
    assert sonnet["cursor-cli"].raw == pytest.approx(100 * (0.25 + 0.225 + 0.25 + 0.2875 + 0.3) / 5)
    assert sonnet["LeadArchitectAgent"].details["trials"] == 1  # one results.json of 400 attempts
    assert sonnet["LeadArchitectAgent"].raw == pytest.approx(36.0)
    assert sonnet["Factory Droid"].date == date(2025, 9, 23)
    assert len(sonnet) == 5  # same spelling, different dates: all kept for selection


def test_tb_accuracy_computed_when_absent_and_null_is_unresolved() -> None:
    real = json.loads(
        (DATA / "terminal-bench/results/terminal-bench-core@0.1.1/20250711_openhands_claude-4-sonnet"
         / "openhands-sonnet/results.json").read_bytes()
    )
    nulls = sum(1 for r in real["results"] if r["is_resolved"] is None)
    assert nulls == 3
    no_acc = {k: v for k, v in real.items() if k != "accuracy"}
    no_n = {k: v for k, v in no_acc.items() if k != "n_resolved"}
    files = {
        "results/tb@0.1.1/20250101_a_with-n/results.json": json.dumps(no_acc).encode(),
        "results/tb@0.1.1/20250101_a_counted/results.json": json.dumps(no_n).encode(),
    }
    result = terminal_bench.parse(payload("terminal-bench", files), TBENCH)
    expected = 100 * real["n_resolved"] / len(real["results"])
    assert by(result, model="with-n")[0].raw == pytest.approx(expected)
    assert by(result, model="counted")[0].raw == pytest.approx(expected)  # null counted as unresolved
    assert expected == pytest.approx(100 * real["accuracy"])


def test_tb_only_the_latest_benchmark_version_compared_numerically() -> None:
    files = {
        "results/terminal-bench-core@0.9.1/20250101_a_old/results.json": b'{"accuracy": 0.9}',
        "results/terminal-bench-core:0.10.0/20250102_a_new/results.json": b'{"accuracy": 0.3}',
        "results/terminal-bench-core@0.10.0/20250103_b_new2/results.json": b'{"accuracy": 0.4}',
    }
    result = terminal_bench.parse(payload("terminal-bench", files), TBENCH)
    assert sorted(o.model for o in result.observations) == ["new", "new2"]
    assert {o.release for o in result.observations} == {"0.10.0"}
    assert terminal_bench.version_key("0.10.0") > terminal_bench.version_key("0.9.1")


def test_tb_same_spelling_incompatible_agents_on_latest_date_are_excluded() -> None:
    meta = lambda agent, version=None: json.dumps(  # noqa: E731
        {"agent_name": agent, "model_name": "m-1", "agent_kwargs": {"version": version} if version else None}
    ).encode()
    files = {
        "results/tb@1.0/20250105_x_m/results.json": b'{"accuracy": 0.5}',
        "results/tb@1.0/20250105_x_m/run_metadata.json": meta("alpha", "1"),
        "results/tb@1.0/20250105_y_m/results.json": b'{"accuracy": 0.6}',
        "results/tb@1.0/20250105_y_m/run_metadata.json": meta("alpha", "2"),
        "results/tb@1.0/20250101_z_m/results.json": b'{"accuracy": 0.7}',
        "results/tb@1.0/20250101_z_m/run_metadata.json": meta("beta"),
        # same agent twice on the latest date: compatible, both kept
        "results/tb@1.0/20250105_p_q/results.json": b'{"accuracy": 0.1}',
        "results/tb@1.0/20250105_p_q/run_metadata.json": json.dumps({"agent_name": "alpha",
                                                                     "model_name": "m-2"}).encode(),
        "results/tb@1.0/20250105_p_r/results.json": b'{"accuracy": 0.2}',
        "results/tb@1.0/20250105_p_r/run_metadata.json": json.dumps({"agent_name": "alpha",
                                                                     "model_name": "m-2"}).encode(),
    }
    result = terminal_bench.parse(payload("terminal-bench", files), TBENCH)
    m1 = {o.details["submission"]: o for o in by(result, model="m-1")}
    assert m1["20250105_x_m"].excluded == m1["20250105_y_m"].excluded
    expected = "incompatible same-spelling submissions on 2025-01-05: agents alpha 1, alpha 2"
    assert m1["20250105_x_m"].excluded == expected
    assert m1["20250101_z_m"].excluded is None  # an earlier date is not part of the conflict
    assert m1["20250105_x_m"].details["agent_version"] == "1"
    assert all(o.excluded is None for o in by(result, model="m-2"))


def test_tb_bad_trials_kept_with_reasons() -> None:
    files = {
        "results/tb@1.0/20250101_a_flag/results.json": b'{"accuracy": true}',
        "results/tb@1.0/20250101_a_nan/results.json": b'{"accuracy": NaN}',
        "results/tb@1.0/20250101_a_over/results.json": b'{"accuracy": 1.5}',
        "results/tb@1.0/20250101_a_broken/t1/results.json": b'{"accuracy": 0.5}',
        "results/tb@1.0/20250101_a_broken/t2/results.json": b"{truncated",
        "results/tb@1.0/20250101_a_empty/results.json": b'{"results": []}',
        "results/tb@1.0/20250101_a_fine/results.json": b'{"accuracy": 1.0}',
    }
    result = terminal_bench.parse(payload("terminal-bench", files), TBENCH)
    reasons = {o.model: o.excluded for o in result.observations}
    assert "boolean" in reasons["flag"]
    assert "not finite" in reasons["nan"]
    assert "outside [0, 1]" in reasons["over"]
    assert "20250101_a_broken/t2/results.json: not valid JSON" in reasons["broken"]
    assert "no accuracy and no results" in reasons["empty"]
    assert reasons["fine"] is None and by(result, model="fine")[0].raw == 100.0


def test_tb_unreadable_payload_raises() -> None:
    with pytest.raises(PayloadError, match="no results files"):
        terminal_bench.parse(payload("terminal-bench", {"README.md": b"# hi", "results/x.json": b"{}"}), TBENCH)


# --------------------------------------------------------------------------- dispatch and demo data


def test_dispatch_by_kind_reaches_each_parser() -> None:
    result = parse_payload(file_payload("aider", DATA / "aider/polyglot_leaderboard.yml"), AIDER)
    assert len(kept(result)) == 65


DEMO = Path(__file__).resolve().parents[1] / "builder" / "data" / "demo"


def test_parsers_read_the_bundled_demo_payloads() -> None:
    """The project's own demo payloads (another stage writes them) parse cleanly where present."""
    from builder.config import load_config

    config, _ = load_config(Path(__file__).resolve().parents[1] / "site.yml")
    checked = 0
    for source in config.sources:
        if source.kind not in ("lmarena", "epoch", "aider", "livebench", "terminal_bench"):
            continue
        path = source.recorded_path()
        if path is None or not path.exists():
            continue
        if path.is_dir():
            files = {p.relative_to(path).as_posix(): p.read_bytes() for p in sorted(path.rglob("*")) if p.is_file()}
        else:
            files = {path.name: path.read_bytes()}
        result = parse_payload(payload(source.name, files, origin=str(path)), source)
        assert kept(result), f"{source.name}: no usable observation in the demo payload"
        checked += 1
    assert checked > 0, f"no bundled demo payloads under {DEMO}"
