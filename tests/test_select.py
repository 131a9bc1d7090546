"""Selection: one configuration per source, feed and model (builder.scoring.select).

One test per sentence of the selection rule (each test is named after its sentence and
quotes it), on synthetic observations;
then the same rules on the real upstream files parsed by the project's parsers.
"""

from __future__ import annotations

import csv
import io
import json
from collections import Counter, defaultdict
from datetime import UTC, date, datetime
from pathlib import Path

import pytest
from conftest import require_shared_data

from builder.config import SiteConfig
from builder.errors import UserError
from builder.records import Observation, Payload
from builder.scoring.select import (
    SELECT_COLUMNS,
    identify,
    select_observations,
    select_rows,
    write_select,
)

SHARED = require_shared_data()  # ../shared/data, or the pinned files fetched (tests/realdata.py)

# The effort list these tests run with: the forms the real files use. Not "-max", which is
# a tier (gpt-5.1-codex-max, qwen3.7-max), nor "-base" (Epoch's pretrained base models).
EFFORTS = [
    "-high", "-medium", "-low", "-minimal", "-xhigh", "-thinking", "-non-reasoning", "-reasoning",
    "-nothink", "-no-thinking", "-nothinking", "-highthinking", "-thinking-auto",
    "-high-effort", "-medium-effort", "-low-effort", "-xhigh-effort", "-max-effort",
    "(high)", "(medium)", "(low)", "(minimal)", "(thinking)", "(no thinking)", "(no think)",
    "(default)", "(default think)", "(24k think)", "(32k think)", "(32k thinking)",
    "(32k thinking tokens)", "(16k thinking)", "(64k thinking)",
    "-thinking-16k", "-thinking-32k", "-thinking-64k", "-thinking-128k",
    "_high", "_medium", "_low", "_minimal", "_xhigh", "_16K", "_27K", "_32K", "_64K",
]

CFG = SiteConfig.model_validate({
    "folding": {"effort_suffixes": EFFORTS},
    "sources": [
        {"name": "arena", "kind": "lmarena", "evaluator": "lmarena",
         "url": "https://raw.githubusercontent.com/lmarena/arena-catalog/main/data/leaderboard-text.json",
         "date": "2025-12-11"},
        {"name": "epoch", "kind": "epoch",
         "url": "https://raw.githubusercontent.com/epoch-research/benchmark-stitching/main/data/website/epoch_capabilities_index.csv"},
        {"name": "aider", "kind": "aider",
         "url": "https://raw.githubusercontent.com/Aider-AI/aider/main/aider/website/_data/polyglot_leaderboard.yml"},
        {"name": "livebench", "kind": "livebench", "url": "https://livebench.ai/"},
        {"name": "terminal-bench", "kind": "terminal_bench",
         "url": "https://codeload.github.com/laude-institute/terminal-bench-leaderboard/tar.gz/8e1925a3",
         "options": {"commit": "8e1925a3"}},
        {"name": "litellm", "kind": "litellm"},
    ],
    "families": {"coding": {"title": "Coding", "feeds": ["aider/polyglot"]}},
    "roles": {"r": {"title": "R", "weights": {"coding": 1.0}}},
    "boards": [{"id": "b", "title": "B", "kind": "orchestrator", "role": "r"}],
})


def obs(model: str, raw: float | None, *, source: str = "aider", feed: str | None = None,
        day: str | None = "2025-06-01", url: str = "https://example.org/a", **kw) -> Observation:
    return Observation(
        source=source, feed=feed or f"{source}/x", evaluator=source, model=model, raw=raw,
        date=date.fromisoformat(day) if day else None, url=url, **kw,
    )


def chosen(rows: list[Observation]) -> dict[tuple[str, str], Observation]:
    """(feed, identity) -> the one selected row; fails if a group selects two."""
    out: dict[tuple[str, str], Observation] = {}
    for o in rows:
        if o.selected:
            assert (o.feed, o.identity) not in out, f"two rows selected for {o.feed} {o.identity}"
            out[(o.feed, o.identity)] = o
    return out


# ---------------------------------------------------------------- paragraph 1, sentence by sentence


def test_use_each_sources_highest_published_raw_score_for_that_model_instead_of_averaging_reasoning_efforts():
    """'Use each source's highest published raw score for that model instead of averaging
    reasoning efforts.'"""
    rows = select_observations([
        obs("gpt-5 (low)", 81.3), obs("gpt-5 (high)", 88.0), obs("gpt-5 (medium)", 86.7),
    ], CFG)
    assert [o.selected for o in rows] == [False, True, False]
    assert rows[1].raw == 88.0  # the published value, not the mean 85.33
    assert rows[0].reason == "lower raw than gpt-5 (high) (81.3 < 88.0)"
    assert rows[2].reason == "lower raw than gpt-5 (high) (86.7 < 88.0)"
    assert rows[1].reason.startswith("selected: best of 3 rows for gpt-5")


def test_if_raw_scores_tie_choose_the_latest_publication_date():
    """'If raw scores tie, choose the latest publication date, ...'"""
    rows = select_observations([
        obs("o3 (high)", 80.0, day="2025-05-01"), obs("o3 (low)", 80.0, day="2025-06-01"),
        obs("o3", 80.0, day=None),
    ], CFG)
    assert [o.selected for o in rows] == [False, True, False]
    assert rows[0].reason == "same raw as o3 (low) (80.0), older date (2025-05-01 < 2025-06-01)"
    assert rows[2].reason == "same raw as o3 (low) (80.0), older date (no date < 2025-06-01)"


def test_then_the_lexicographically_greatest_model_spelling():
    """'... then the lexicographically greatest model spelling ...'"""
    rows = select_observations([
        obs("O3 (high)", 80.0), obs("o3 (high)", 80.0), obs("o3-high", 80.0),
    ], CFG)
    # Published spellings compare as strings: "o3-high" > "o3 (high)" > "O3 (high)".
    assert [o.selected for o in rows] == [False, False, True]
    assert "lexicographically smaller spelling ('O3 (high)' < 'o3-high')" in rows[0].reason


def test_and_url():
    """'... and URL.'"""
    rows = select_observations([
        obs("o3", 80.0, url="https://example.org/b"), obs("o3", 80.0, url="https://example.org/c"),
        obs("o3", 80.0, url="https://example.org/a"),
    ], CFG)
    assert [o.selected for o in rows] == [False, True, False]
    assert "smaller URL" in rows[0].reason and "https://example.org/c" in rows[0].reason


def test_exact_duplicates_keep_input_order():
    rows = select_observations([obs("o3", 80.0), obs("o3", 80.0)], CFG)
    assert [o.selected for o in rows] == [True, False]
    assert rows[1].reason.startswith("duplicate of the selected o3 row")


def test_explicit_effort_suffixes_fold_into_the_base_model():
    """'Explicit effort suffixes fold into the base model.'"""
    rows = select_observations([
        obs("o4-mini (high)", 72.0), obs("o4-mini-2025-04-16_medium", 60.0),
        obs("claude-3-7-sonnet-20250219 (32k thinking)", 64.9), obs("claude-3-7-sonnet-20250219", 60.4),
        obs("grok-4-1-fast-non-reasoning", 40.0), obs("grok-4.1-fast-reasoning", 50.0),
        obs("gemini-3-flash-preview-minimal", 30.0), obs("gemini-3-flash-preview-thinking-64k", 35.0),
    ], CFG)
    assert [o.identity for o in rows] == [
        "o4-mini", "o4-mini", "claude-3.7-sonnet", "claude-3.7-sonnet",
        "grok-4.1-fast", "grok-4.1-fast", "gemini-3-flash-preview", "gemini-3-flash-preview",
    ]
    assert [o.selected for o in rows] == [True, False, True, False, False, True, False, True]
    assert [o.model for o in rows] != [o.identity for o in rows]  # records keep their spelling


def test_a_full_date_suffix_folds_into_the_base_only_when_there_is_exactly_one_dated_release_for_that_base():
    """'A full date suffix folds into the base only when that source has exactly one dated
    release for that base', counted across the sources of one selection: a lone dated
    release meets the same dated release in a source that has two."""
    rows = select_observations([
        # arena: one dated release of claude-opus-4 (two efforts of it) -> folds.
        obs("claude-opus-4-20250514", 1410.0, source="arena", feed="arena/text"),
        obs("claude-opus-4-20250514-thinking-16k", 1420.0, source="arena", feed="arena/text"),
        # aider: two dated releases of gpt-4o -> both stay, each selected on its own.
        obs("gpt-4o-2024-11-20", 18.2), obs("gpt-4o-2024-08-06", 23.1),
        # arena: one dated release of gpt-4o, but aider names two -> stays dated and meets aider's.
        obs("gpt-4o-2024-08-06", 1300.0, source="arena", feed="arena/text"),
    ], CFG)
    assert [o.identity for o in rows] == [
        "claude-opus-4", "claude-opus-4", "gpt-4o-2024-11-20", "gpt-4o-2024-08-06", "gpt-4o-2024-08-06",
    ]
    assert [o.selected for o in rows] == [False, True, True, True, True]


def test_versions_tiers_parameter_sizes_and_checkpoint_ids_remain_separate():
    """'Versions, tiers, parameter sizes and checkpoint IDs remain separate.'"""
    spellings = [
        "gpt-4.1", "gpt-4o", "claude-opus-4", "claude-opus-4-1",  # versions
        "gpt-5-mini", "gpt-5-nano", "gemini-2.5-pro", "gemini-2.5-flash",  # tiers
        "qwen3-32b", "qwen3-235b-a22b", "llama-3.1-8b-instruct", "llama-3.1-70b-instruct",  # sizes
        "gpt-4-0613", "gpt-4-0314", "deepseek-v3", "deepseek-v3-0324",  # checkpoints
    ]
    rows = select_observations([obs(s, 10.0 + i) for i, s in enumerate(spellings)], CFG)
    assert all(o.selected for o in rows)
    assert len({o.identity for o in rows}) == len(spellings)


def test_the_chosen_spelling_can_differ_between_sources():
    """'The chosen spelling can differ between sources.'"""
    rows = select_observations([
        obs("o3 (high)", 81.3, source="aider", feed="aider/polyglot"),
        obs("o3", 76.9, source="aider", feed="aider/polyglot"),
        obs("o3-2025-04-16_medium", 140.0, source="epoch", feed="epoch/eci"),
        obs("o3-2025-04-16_high", 145.0, source="epoch", feed="epoch/eci"),
    ], CFG)
    picks = chosen(rows)
    assert picks[("aider/polyglot", "o3")].model == "o3 (high)"
    assert picks[("epoch/eci", "o3")].model == "o3-2025-04-16_high"


# ---------------------------------------------------------------- paragraph 2, sentence by sentence


def test_arena_uses_the_latest_publication_in_each_of_its_overall_and_coding_categories():
    """'Arena uses the latest publication in each of its overall and coding categories.'
    The parser reads one publication; selection then keeps one row per category (feed)."""
    rows = select_observations([
        obs("gpt-5-high", 1440.0, source="arena", feed="arena/text", day="2025-12-11"),
        obs("gpt-5-high", 1460.0, source="arena", feed="arena/coding", day="2025-12-11"),
        obs("gpt-5-chat", 1430.0, source="arena", feed="arena/text", day="2025-12-11"),
    ], CFG)
    picks = chosen(rows)
    assert set(picks) == {("arena/text", "gpt-5"), ("arena/coding", "gpt-5"), ("arena/text", "gpt-5-chat")}
    assert picks[("arena/coding", "gpt-5")].raw == 1460.0  # categories never compete


def test_epoch_uses_rows_with_eci_scores():
    """'Epoch uses rows with ECI scores.'"""
    rows = select_observations([
        obs("gpt-5-2025-08-07_high", None, source="epoch", feed="epoch/eci", excluded="no ECI score"),
        obs("gpt-5-2025-08-07_medium", 150.0, source="epoch", feed="epoch/eci"),
        obs("LLaMA-65B", None, source="epoch", feed="epoch/eci", excluded="no ECI score"),
    ], CFG)
    assert [o.selected for o in rows] == [False, True, False]
    assert rows[0].reason == rows[2].reason == "excluded: no ECI score"


def test_aider_uses_pass_rate_2_from_documented_single_model_runs_architect_editor_pairs_and_combined_model_runs_are_excluded():  # noqa: E501 - named after its sentence
    """'Aider uses pass_rate_2 from documented single-model whole, diff or diff-fenced runs with
    224 or 225 tests, a commit and a date; architect/editor pairs and combined-model runs are
    excluded.' An excluded run is never selected, however high its score."""
    rows = select_observations([
        obs("o3 (high) + gpt-4.1", 99.0, excluded="architect/editor run; combined-model run"),
        obs("o3 (high)", 81.3),
        obs("o3", 90.0, excluded="test_cases 223 is not 224 or 225"),
        obs("DeepSeek R1", 56.9, excluded="no commit"),
    ], CFG)
    assert [o.selected for o in rows] == [False, True, False, False]
    assert rows[2].reason == "excluded: test_cases 223 is not 224 or 225"
    assert rows[3].reason == "excluded: no commit"
    assert not any(o.selected for o in rows if o.identity == "deepseek-r1")


def test_aider_first_breaks_same_spelling_score_ties_by_date_edit_format_and_commit_spelling():
    """'Aider first breaks same-spelling score ties by date, edit format and commit spelling.'"""
    tb = lambda d, fmt, commit: {"tiebreak": [d, fmt, commit]}  # noqa: E731
    rows = select_observations([
        obs("Qwen3 32B", 40.0, url="https://z.example/", details=tb("2025-05-01", "whole", "aaa")),
        obs("Qwen3 32B", 40.0, url="https://a.example/", details=tb("2025-05-01", "diff", "zzz")),
        obs("Qwen3 32B", 40.0, url="https://a.example/", details=tb("2025-05-01", "whole", "bbb")),
        obs("Qwen3 32B", 39.0, url="https://z.example/", details=tb("2025-06-01", "whole", "ccc")),
    ], CFG)
    # Same date; "whole" > "diff"; then commit "bbb" > "aaa" even though its URL is smaller.
    assert [o.selected for o in rows] == [False, False, True, False]
    assert "Aider same-spelling tiebreak" in rows[0].reason and "'aaa'" in rows[0].reason
    assert "'diff'" in rows[1].reason
    assert rows[3].reason == "lower raw than Qwen3 32B (39.0 < 40.0)"


def test_aider_tiebreak_applies_only_to_the_same_spelling():
    rows = select_observations([
        obs("gpt-5 (high)", 88.0, details={"tiebreak": ["2025-09-01", "diff", "a"]}),
        obs("gpt-5 (low)", 88.0, details={"tiebreak": ["2025-08-01", "whole", "z"]}),
    ], CFG)
    # Different spellings: the general rule decides (same raw, same date, greatest spelling).
    assert [o.selected for o in rows] == [False, True]
    assert "lexicographically smaller spelling" in rows[0].reason


def test_livebench_uses_its_latest_linked_dated_csv():
    """'LiveBench uses its latest linked dated CSV.' The parser reads only the latest table;
    selection keeps one row per feed and identity within it."""
    rows = select_observations([
        obs("gpt-5.1-2025-11-13-high", 70.0, source="livebench", feed="livebench/global", day="2026-01-08"),
        obs("gpt-5.1-2025-11-13-low", 60.0, source="livebench", feed="livebench/global", day="2026-01-08"),
        obs("gpt-5.1-2025-11-13-high", 75.0, source="livebench", feed="livebench/coding", day="2026-01-08"),
    ], CFG)
    assert {k: o.model for k, o in chosen(rows).items()} == {
        ("livebench/global", "gpt-5.1"): "gpt-5.1-2025-11-13-high",
        ("livebench/coding", "gpt-5.1"): "gpt-5.1-2025-11-13-high",
    }


def test_an_incomplete_category_contributes_nothing():
    """'If category summary columns are absent, it averages the mapped tasks within each
    category, then averages categories equally for the global score; an incomplete category
    contributes nothing.' The parser computes the averages; an incomplete category's row is
    excluded and selection never picks it, while the model's other feeds still count."""
    rows = select_observations([
        obs("glm-4.7", None, source="livebench", feed="livebench/coding",
            excluded="category Coding incomplete: task LCB_generation missing"),
        obs("glm-4.7", 55.0, source="livebench", feed="livebench/global"),
    ], CFG)
    assert [o.selected for o in rows] == [False, True]
    assert rows[0].reason == "excluded: category Coding incomplete: task LCB_generation missing"


def test_terminal_bench_uses_only_the_latest_benchmark_version_from_one_pinned_repository_commit():
    """'Terminal-Bench uses only the latest benchmark version from one pinned repository commit.'
    The parser reads only the latest version; selection chooses within it per feed."""
    rows = select_observations([
        obs("claude-opus-4-1", 58.8, source="terminal-bench", feed="terminal-bench/accuracy",
            release="0.1.1", details={"agent": "droid", "commit": "8e1925a3"}),
    ], CFG)
    assert rows[0].selected and rows[0].identity == "claude-opus-4.1"


def test_same_spelling_runs_with_incompatible_agent_configurations_are_excluded_otherwise_the_latest_date_and_url_win_before_configuration_selection():  # noqa: E501 - named after its sentence
    """'Same-spelling runs with incompatible agent or agent-version configurations are
    excluded; otherwise the latest date and URL win before configuration selection.'"""
    tb = dict(source="terminal-bench", feed="terminal-bench/accuracy")
    rows = select_observations([
        # claude-4-sonnet: the latest run wins although an older one scored higher.
        obs("claude-4-sonnet", 50.0, day="2025-08-11", url="u/cursor", details={"agent": "cursor"}, **tb),
        obs("claude-4-sonnet", 42.0, day="2025-09-02", url="u/orch-a", details={"agent": "orchestrator"}, **tb),
        obs("claude-4-sonnet", 41.0, day="2025-09-02", url="u/orch-b", details={"agent": "orchestrator"}, **tb),
        # same identity, another spelling: now the higher score wins across spellings.
        obs("anthropic/claude-4-sonnet", 45.0, day="2025-07-01", url="u/other", details={"agent": "x"}, **tb),
        # incompatible runs (excluded by the parser) never count.
        obs("gpt-5", 60.0, day="2025-09-01", url="u/a", details={"agent": "a"}, excluded="incompatible", **tb),
        obs("gpt-5", 55.0, day="2025-09-01", url="u/b", details={"agent": "b"}, excluded="incompatible", **tb),
    ], CFG)
    assert [o.selected for o in rows] == [False, False, False, True, False, False]
    assert rows[0].reason.startswith("older run of the same spelling than u/orch-b (2025-08-11 < 2025-09-02)")
    assert rows[1].reason.startswith("same spelling and date as u/orch-b, smaller URL")
    assert rows[2].reason == "lower raw than anthropic/claude-4-sonnet (41.0 < 45.0)"
    assert rows[4].reason == "excluded: incompatible"
    assert not any(o.selected for o in rows if o.identity == "gpt-5")


def test_latest_date_first_applies_to_terminal_bench_only():
    rows = select_observations([
        obs("claude-4-sonnet", 50.0, day="2025-08-11"), obs("claude-4-sonnet", 42.0, day="2025-09-02"),
    ], CFG)
    assert [o.selected for o in rows] == [True, False]  # aider: highest raw


def test_these_are_workflow_proxies_with_the_named_agent_retained_in_the_evidence():
    """'These are workflow proxies, with the named agent retained in the evidence.'"""
    rows = select_observations([
        obs("gpt-5", 49.6, source="terminal-bench", feed="terminal-bench/accuracy",
            details={"agent": "codex-cli", "agent_version": "0.2"}),
    ], CFG)
    assert rows[0].selected and rows[0].details["agent"] == "codex-cli"


# ---------------------------------------------------------------- contract


def test_every_row_is_returned_in_input_order_with_identity_and_reason():
    inputs = [obs("b", 1.0), obs("a", None, excluded="score is missing"), obs("b", 2.0),
              obs("a", 3.0, source="epoch"), obs("c", None)]
    rows = select_observations(inputs, CFG)
    assert [(o.source, o.model, o.raw) for o in rows] == [(o.source, o.model, o.raw) for o in inputs]
    assert all(o.identity and o.reason for o in rows)
    assert rows[4].reason == "no usable raw score" and not rows[4].selected
    assert rows[1].excluded == "score is missing"  # exclusions pass through untouched


def test_aliases_join_spellings_before_selection():
    cfg = CFG.model_copy(update={"aliases": {"claude-4-1-opus": "claude-opus-4-1"}})
    rows = select_observations([
        obs("claude-4-1-opus-20250805-thinking-32k", 70.0), obs("Claude Opus 4.1", 72.0),
    ], cfg)
    assert {o.identity for o in rows} == {"claude-opus-4.1"}
    assert [o.selected for o in rows] == [False, True]


def test_identify_sets_identity_on_any_record_counting_dated_releases_across_sources():
    from builder.records import Price

    prices = [
        Price("litellm", "openai/gpt-4o-2024-08-06", "openai/gpt-4o-2024-08-06", 1e-6, 2e-6, 1.25, None),
        Price("litellm", "gpt-4o-2024-11-20", "gpt-4o-2024-11-20", 1e-6, 2e-6, 1.25, None),
        Price("openrouter", "openai/gpt-4o-2024-08-06", "openai/gpt-4o-2024-08-06", 1e-6, 2e-6, 1.25, None),
    ]
    out = identify(prices, CFG)
    # openrouter's lone dated release stays dated: litellm names two releases of gpt-4o
    assert [p.identity for p in out] == ["gpt-4o-2024-08-06", "gpt-4o-2024-11-20", "gpt-4o-2024-08-06"]
    assert [p.key for p in out] == [p.key for p in prices]
    # alone, openrouter's one dated release folds into the base; the context splits it again
    assert identify(prices[2:], CFG)[0].identity == "gpt-4o"
    assert identify(prices[2:], CFG, [("litellm", p.model) for p in prices[:2]])[0].identity == "gpt-4o-2024-08-06"


def test_select_rows_and_both_formats():
    rows = select_rows(select_observations([
        obs("o3 (high)", 81.3, feed="aider/polyglot"), obs("o3", 76.9, feed="aider/polyglot"),
        obs("x", float("nan"), feed="aider/polyglot", excluded="score is not finite (nan)", day=None),
    ], CFG))
    assert list(rows[0]) == list(SELECT_COLUMNS)
    assert rows[0] | {"reason": ""} == {
        "source": "aider", "feed": "aider/polyglot", "evaluator": "aider", "model": "o3 (high)",
        "identity": "o3", "raw": 81.3, "date": "2025-06-01", "url": "https://example.org/a",
        "selected": True, "reason": "",
    }
    assert rows[2]["raw"] is None and rows[2]["date"] is None

    buf = io.StringIO()
    write_select(rows, "json", buf)
    data = json.loads(buf.getvalue())
    assert [r["selected"] for r in data] == [True, False, False]
    assert data[1]["reason"] == "lower raw than o3 (high) (76.9 < 81.3)"

    buf = io.StringIO()
    write_select(rows, "csv", buf)
    table = list(csv.DictReader(io.StringIO(buf.getvalue())))
    assert list(table[0]) == list(SELECT_COLUMNS)
    assert [r["selected"] for r in table] == ["true", "false", "false"]
    assert table[2]["raw"] == "" and table[1]["raw"] == "76.9"

    with pytest.raises(UserError):
        write_select(rows, "xml", io.StringIO())


# ---------------------------------------------------------------- the real upstream files


def _payload(source: str, root: Path, files: list[Path]) -> Payload:
    return Payload(source, {f.relative_to(root).as_posix(): f.read_bytes() for f in files},
                   datetime(2026, 1, 10, tzinfo=UTC), str(root))


def _parse(name: str, root: Path, files: list[Path]) -> list[Observation]:
    from builder.sources import parse_payload

    return list(parse_payload(_payload(name, root, files), CFG.source(name)).observations)


def _one_selected_per_identity(rows: list[Observation]) -> dict[tuple[str, str], Observation]:
    groups: dict[tuple[str, str], list[Observation]] = defaultdict(list)
    for o in rows:
        groups[(o.feed, o.identity)].append(o)
    for key, members in groups.items():
        usable = [o for o in members if not o.excluded]
        assert sum(o.selected for o in members) == (1 if usable else 0), key
    assert all(o.reason for o in rows)
    return chosen(rows)


def test_real_aider_leaderboard():
    root = SHARED / "aider"
    rows = select_observations(_parse("aider", root, [root / "polyglot_leaderboard.yml"]), CFG)
    assert len(rows) == 69
    assert sum(o.excluded is None for o in rows) == 65
    picks = _one_selected_per_identity(rows)
    assert picks[("aider/polyglot", "gpt-5")].model == "gpt-5 (high)"
    assert picks[("aider/polyglot", "o3")].model == "o3 (high)"
    # Two dated chatgpt-4o-latest runs stay apart (the registry names the release each ran
    # on); the 223-test one is excluded.
    latest = [o for o in rows if o.model.startswith("chatgpt-4o-latest")]
    assert [(o.identity, o.selected) for o in latest] == [
        ("chatgpt-4o-latest-2025-01-29", False), ("chatgpt-4o-latest-2025-03-26", True)]
    assert all(not o.selected for o in rows if o.excluded)


def test_real_arena_leaderboard():
    root = SHARED / "arena" / "lmarena"
    rows = select_observations(_parse("arena", root, [root / "leaderboard-text.json"]), CFG)
    picks = _one_selected_per_identity(rows)
    assert {feed for feed, _ in picks} == {"arena/text", "arena/coding"}
    # claude-opus-4-1-20250805 and its -thinking-16k variant: one dated release, one identity.
    best = picks[("arena/text", "claude-opus-4.1")]
    both = [o for o in rows if o.feed == "arena/text" and o.identity == "claude-opus-4.1"]
    assert len(both) == 2 and best.raw == max(o.raw for o in both)


def test_real_epoch_index():
    root = SHARED / "epoch"
    rows = select_observations(_parse("epoch", root, [root / "epoch_capabilities_index.csv"]), CFG)
    assert sum(o.excluded is None for o in rows) == 142
    picks = _one_selected_per_identity(rows)
    gpt5 = [o for o in rows if o.identity == "gpt-5"]
    assert {o.model for o in gpt5} >= {"gpt-5-2025-08-07_high", "gpt-5-2025-08-07_medium"}
    assert picks[("epoch/eci", "gpt-5")].raw == max(o.raw for o in gpt5 if not o.excluded)


def test_real_livebench_tables():
    root = SHARED / "livebench"
    rows = select_observations(_parse("livebench", root, sorted(root.iterdir())), CFG)
    assert {o.date for o in rows} == {date(2026, 1, 8)}
    picks = _one_selected_per_identity(rows)
    opus = [o for o in rows if o.feed == "livebench/global" and o.identity == "claude-opus-4.5"]
    assert len(opus) == 6  # three efforts, with and without a 64k thinking budget
    assert picks[("livebench/global", "claude-opus-4.5")].raw == max(o.raw for o in opus)
    # Tiers stay apart: codex-max is not codex, qwen3.7-max is not qwen3.7.
    assert {o.identity for o in rows if o.model.startswith("gpt-5.1-codex")} == {
        "gpt-5.1-codex", "gpt-5.1-codex-max", "gpt-5.1-codex-mini"}
    assert {o.identity for o in rows if o.model == "qwen3.7-max"} == {"qwen3.7-max"}
    ragged = [o for o in rows if o.model == "nemotron-3-super-120b-a12b"]
    assert ragged and all(o.excluded and not o.selected for o in ragged)


def test_real_terminal_bench_runs():
    root = SHARED / "terminal-bench"
    files = sorted(p for p in root.rglob("*") if p.is_file())
    rows = select_observations(_parse("terminal-bench", root, files), CFG)
    picks = _one_selected_per_identity(rows)
    assert all(o.details.get("agent") for o in picks.values())
    # Several submissions of one spelling: exactly one counts, and it is the latest.
    by_spelling = Counter(o.model for o in rows if not o.excluded)
    for spelling in by_spelling:
        runs = [o for o in rows if o.model == spelling and not o.excluded]
        latest = max(runs, key=lambda o: (o.date, o.url))
        assert all(not o.selected or o is latest for o in runs)
