"""Identity keys: folding spellings of one model across sources (builder.identity)."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from builder.config import FoldingConfig
from builder.identity import (
    KEY_PATTERN,
    canonicalise,
    identity_map,
    identity_of,
    normalise,
    split_date,
    split_effort,
)

# An explicit list, so these tests do not move when site.yml's defaults are tuned.
F = FoldingConfig(effort_suffixes=[
    "-high", "-medium", "-low", "-minimal", "-xhigh", "-thinking", "-non-reasoning", "-reasoning",
    "(high)", "(medium)", "(low)", "(no thinking)", "(32k thinking)", "-thinking-16k",
    "-thinking-32k", "-thinking-64k", "_high", "_medium", "_low",
])


def ident(spelling: str, aliases: dict[str, str] | None = None) -> str:
    return identity_of(spelling, F, aliases or {})


# --------------------------------------------------------------------------- normalise


@pytest.mark.parametrize(
    "spelling",
    ["claude-opus-4.1", "Claude Opus 4.1", "CLAUDE_OPUS_4.1", "claude-opus-4-1", "claude opus 4-1",
     "  Claude--Opus  4.1 ", "claude:opus:4.1", "anthropic/claude-opus-4-1", "claude-opus-4.1/"],
)
def test_case_separators_and_version_hyphens_join(spelling):
    assert normalise(spelling, F) == "claude-opus-4.1"


def test_provider_prefixes_and_any_route_before_last_slash_are_stripped():
    assert normalise("openai/gpt-4.1", F) == "gpt-4.1"
    assert normalise("OpenAI/GPT-4.1", F) == "gpt-4.1"
    assert normalise("openrouter/anthropic/claude-sonnet-4", F) == "claude-sonnet-4"
    assert normalise("bedrock/eu/mistral-large-2411", F) == "mistral-large-2411"
    assert normalise("meta-llama/Llama-3.3-70B-Instruct", F) == "llama-3.3-70b-instruct"


def test_version_dots_stay_only_between_digits():
    assert normalise("gpt-4.1", F) == "gpt-4.1"
    assert normalise("amazon.nova-pro-v1:0", F) == "amazon-nova-pro-v1-0"
    assert normalise("mistral-7b-instruct-v0.2", F) == "mistral-7b-instruct-v0.2"
    assert normalise("Model. 4", F) == "model-4"


@pytest.mark.parametrize(
    ("spelling", "key"),
    [
        ("claude-3-5-sonnet-20241022", "claude-3.5-sonnet-20241022"),  # version pair after a name
        ("phi-1_5", "phi-1.5"),
        ("grok-4-1-fast-reasoning", "grok-4.1-fast-reasoning"),
        ("qwen3-235b-a22b", "qwen3-235b-a22b"),  # glued digits: not a version pair
        ("gemma-2-2b-it", "gemma-2-2b-it"),  # a size carries a unit
        ("llama-3-8b-instruct", "llama-3-8b-instruct"),
        ("gpt-4-0613", "gpt-4-0613"),  # checkpoint id: more than one digit
        ("o1-2024-12-17", "o1-2024-12-17"),  # dates keep their hyphens
        ("gemini-2.5-pro-preview-03-25", "gemini-2.5-pro-preview-03-25"),
        ("internlm2_5-20b-chat", "internlm2-5-20b-chat"),  # '2' is glued to a name token
    ],
)
def test_version_rule_folds_single_digit_pairs_only(spelling, key):
    assert normalise(spelling, F) == key


def test_spelling_without_ascii_gets_a_stable_distinct_key():
    a, b = normalise("文心一言", F), normalise("通义千问", F)
    assert a != b and a == normalise("文心一言", F)
    assert KEY_PATTERN.match(a) and a.startswith("model-")
    assert normalise("Ministral Café", F) == "ministral-cafe"


# --------------------------------------------------------------------------- effort


@pytest.mark.parametrize("suffix", FoldingConfig().effort_suffixes + F.effort_suffixes)
def test_every_configured_effort_suffix_folds(suffix):
    folding = FoldingConfig()
    if suffix not in folding.effort_suffixes:
        folding = F
    glue = "" if suffix[0] in "-_" else " "
    spelling = f"gpt-5-mini{glue}{suffix}"
    assert identity_of(spelling, folding, {}) == "gpt-5-mini", spelling
    base, effort = split_effort(normalise(spelling, folding), folding)
    assert base == "gpt-5-mini" and effort


@pytest.mark.parametrize(
    ("spelling", "effort"),
    [
        ("o3-mini (high)", "high"),
        ("o3-mini-high", "high"),
        ("gpt-5-2025-08-07_high", "high"),
        ("claude-3-7-sonnet-20250219 (32k thinking)", "32k-thinking"),
        ("claude-opus-4-20250514-thinking-64k", "thinking-64k"),
        ("gemini-3-flash-preview-minimal", "minimal"),
        ("grok-4-1-fast-non-reasoning", "non-reasoning"),
    ],
)
def test_effort_forms(spelling, effort):
    assert split_effort(normalise(spelling, F), F)[1] == effort


def test_effort_matches_whole_tokens_longest_first_and_repeatedly():
    assert split_effort("o3-xhigh", F) == ("o3", "xhigh")  # not "o3-x" + "high"
    assert split_effort("grok-4-fast-non-reasoning", F) == ("grok-4-fast", "non-reasoning")
    assert split_effort("model-thinking-64k-high", F) == ("model", "thinking-64k-high")
    assert split_effort("thigh", F) == ("thigh", None)
    assert split_effort("high", F) == ("high", None)  # never an empty base


def test_effort_folds_before_the_date():
    # "o1-2024-12-17 (high)": the date is only at the end once the effort is gone.
    assert ident("o1-2024-12-17 (high)") == "o1"
    m = identity_map(["o1-2024-12-17 (high)", "o1-2024-12-17 (medium)", "o1-2024-12-17"], F, {})
    assert set(m.values()) == {"o1"}


def test_effort_list_comes_from_config():
    only_high = FoldingConfig(effort_suffixes=["-high"])
    assert identity_of("o3 (low)", only_high, {}) == "o3-low"
    assert identity_of("o3-high", only_high, {}) == "o3"


# --------------------------------------------------------------------------- dates


def test_split_date_forms():
    assert split_date("claude-opus-4.1-20250805") == ("claude-opus-4.1", "2025-08-05")
    assert split_date("gpt-4o-2024-08-06") == ("gpt-4o", "2024-08-06")
    assert split_date("chatgpt-4o-latest-2025-03-29") == ("chatgpt-4o-latest", "2025-03-29")
    assert split_date("gpt-4-0613") == ("gpt-4-0613", None)
    assert split_date("qwen3-235b-a22b-instruct-2507") == ("qwen3-235b-a22b-instruct-2507", None)
    assert split_date("model-20251399") == ("model-20251399", None)  # no such day: checkpoint
    assert split_date("x120250101") == ("x120250101", None)  # a digit run, not x1 + date
    assert split_date("20250101") == ("20250101", None)  # nothing left to fold into


def test_date_folds_when_the_source_has_exactly_one_dated_release_for_the_base():
    m = identity_map(["claude-opus-4-1-20250805", "claude-opus-4-1-20250805-thinking-16k"], F, {})
    assert set(m.values()) == {"claude-opus-4.1"}
    # An undated spelling of the same base joins the one dated release.
    m = identity_map(["gpt-4.1", "gpt-4.1-2025-04-14"], F, {})
    assert m == {"gpt-4.1": "gpt-4.1", "gpt-4.1-2025-04-14": "gpt-4.1"}


def test_two_dated_releases_stay_separate_in_canonical_form():
    m = identity_map(["gpt-4o-2024-11-20", "gpt-4o-20240806", "gpt-4o"], F, {})
    assert m == {"gpt-4o-2024-11-20": "gpt-4o-2024-11-20",
                 "gpt-4o-20240806": "gpt-4o-2024-08-06",
                 "gpt-4o": "gpt-4o"}
    # Aider's real spellings: two dated chatgpt-4o-latest runs.
    m = identity_map(["chatgpt-4o-latest (2025-02-15)", "chatgpt-4o-latest (2025-03-29)"], F, {})
    assert sorted(m.values()) == ["chatgpt-4o-latest-2025-02-15", "chatgpt-4o-latest-2025-03-29"]


def test_date_rule_is_per_source():
    # Source A has two releases (kept apart); source B has one (folded). Same spelling differs.
    a = identity_map(["claude-3-5-sonnet-20240620", "claude-3-5-sonnet-20241022"], F, {})
    b = identity_map(["claude-3-5-sonnet-20241022"], F, {})
    assert a["claude-3-5-sonnet-20241022"] == "claude-3.5-sonnet-2024-10-22"
    assert b["claude-3-5-sonnet-20241022"] == "claude-3.5-sonnet"


# --------------------------------------------------------------------------- kept apart


@pytest.mark.parametrize(
    "group",
    [
        ["gpt-4.1", "gpt-4.5-preview", "gpt-4o", "gpt-4"],  # versions
        ["claude-opus-4.1", "claude-opus-4", "claude-opus-4-5"],
        ["gpt-5", "gpt-5-mini", "gpt-5-nano", "gpt-5-pro"],  # tiers
        ["gemini-2.5-pro", "gemini-2.5-flash", "gemini-2.5-flash-lite"],
        ["qwen3-32b", "qwen3-235b-a22b", "qwen3-30b-a3b"],  # parameter sizes
        ["llama-3.1-8b-instruct", "llama-3.1-70b-instruct", "llama-3.1-405b-instruct"],
        ["gpt-4-0613", "gpt-4-0314", "gpt-4-1106-preview"],  # checkpoint ids
        ["deepseek-v3", "deepseek-v3-0324", "deepseek-r1", "deepseek-r1-0528"],
        ["gemini-2.5-pro-preview-03-25", "gemini-2.5-pro-preview-05-06"],
    ],
)
def test_versions_tiers_sizes_and_checkpoints_stay_separate(group):
    m = identity_map(group, F, {})
    assert len(set(m.values())) == len(group), m


# --------------------------------------------------------------------------- aliases


def test_alias_table_joins_differently_ordered_names():
    aliases = {"Claude 4.1 Opus": "claude-opus-4.1"}
    # LiveBench spells it claude-4-1-opus-20250805-thinking-32k.
    m = identity_map(["claude-4-1-opus-20250805-thinking-32k"], F, aliases)
    assert m == {"claude-4-1-opus-20250805-thinking-32k": "claude-opus-4.1"}
    assert ident("anthropic/claude-opus-4-1", aliases) == "claude-opus-4.1"


def test_alias_of_the_whole_spelling_pins_it_against_effort_folding():
    assert ident("mistral-medium") == "mistral"  # "-medium" is a configured effort suffix ...
    assert ident("mistral-medium", {"mistral-medium": "mistral-medium"}) == "mistral-medium"
    # ... and pinned spellings do not count as dated releases of another base.
    m = identity_map(["foo-20250101", "foo-20250202"], F, {"foo-20250202": "bar"})
    assert m == {"foo-20250101": "foo", "foo-20250202": "bar"}


def test_alias_targets_are_normalised():
    assert ident("x", {"x": "Some Model 4-1"}) == "some-model-4.1"


def test_identity_map_has_one_entry_per_distinct_spelling():
    m = identity_map(["A", "A", "b"], F, {})
    assert m == {"A": "a", "b": "b"}


# --------------------------------------------------------------------------- properties

_spellings = st.text(
    alphabet=st.sampled_from(list("abcXYZ0123456789 .-_:/()+,é文")), min_size=0, max_size=40
)


@settings(max_examples=300, deadline=None)
@given(st.lists(_spellings, min_size=1, max_size=6), st.dictionaries(_spellings, _spellings, max_size=3))
def test_keys_use_the_url_safe_alphabet_and_are_fixed_points(spellings, aliases):
    for spelling, key in identity_map(spellings, F, aliases).items():
        assert re.fullmatch(r"[a-z0-9.-]+", key), (spelling, key)
        assert not key.startswith("-") and not key.endswith("-") and "--" not in key
        assert normalise(key, F) == key
    for s in spellings:
        n = normalise(s, F)
        assert normalise(n, F) == n
        c = canonicalise(n)
        assert KEY_PATTERN.match(c) and canonicalise(c) == c and normalise(c, F) == c


# --------------------------------------------------------------------------- canonical spellings


@pytest.mark.parametrize(
    ("spelling", "key"),
    [
        ("meta-llama-3-70b-instruct", "llama-3-70b-instruct"),  # vendor prefix before a name
        ("Meta-Llama-3-8B", "llama-3-8b"),
        ("amazon.nova-pro-v1:0", "nova-pro"),  # vendor, Bedrock's first-version suffix
        ("amazon-nova-pro-v1.0", "nova-pro"),
        ("amazon/nova-pro-v1", "nova-pro"),
        ("us.anthropic.claude-3-5-sonnet-20241022-v2:0", "claude-3.5-sonnet"),  # lone dated release
        ("c4ai-command-r-plus-08-2024", "command-r-plus-08-2024"),
        ("claude-4-sonnet", "claude-sonnet-4"),  # Claude 4 on: tier, then version
        ("claude-4-1-opus", "claude-opus-4.1"),
        ("claude-sonnet-3.7", "claude-3.7-sonnet"),  # before 4: version, then tier
        ("claude-3-5-sonnet", "claude-3.5-sonnet"),
        ("gemini-2.5-pro-preview-06-05", "gemini-2.5-pro-06-05"),  # preview tag before a checkpoint
        ("gemini-3-pro-preview-11-2025", "gemini-3-pro-11-2025"),
        ("Llama-2-70b-chat-hf", "llama-2-70b-chat"),
        ("Qwen3 235B A22B diff, no think, Alibaba API", "qwen3-235b-a22b"),  # display-name note
    ],
)
def test_canonical_spellings(spelling, key):
    assert ident(spelling) == key


def test_dated_base_and_thinking_budgets_are_configurations_of_one_release():
    m = identity_map(["claude-4-1-opus-20250805-base", "claude-4-1-opus-20250805-thinking-32k"], F, {})
    assert set(m.values()) == {"claude-opus-4.1"}
    m = identity_map(["claude-3-7-sonnet-20250219_12K", "claude-3-7-sonnet-20250219_1K",
                      "claude-3-7-sonnet-20250219"], F, {})
    assert set(m.values()) == {"claude-3.7-sonnet"}
    assert ident("gemini-2.5-flash-preview-04-17 (24K thinking)") == "gemini-2.5-flash-04-17"


@pytest.mark.parametrize(
    "group",
    [
        ["DeepSeek-V3", "DeepSeek-V3-Base"],  # a pretrained base carries no API date
        ["gpt-4-0314", "gpt-4-32k-0314"],  # a context window is not a thinking budget
        ["gemini-2.5-flash", "gemini-2.5-flash-preview-09-2025"],  # preview of a later checkpoint
        ["meta-llama-3-70b", "llama-3-70b-instruct"],
        ["llama-3.3-nemotron-super-49b-v1", "llama-3.3-nemotron-super-49b-v1.5"],
        ["mistral-7b-instruct-v0.1", "mistral-7b-instruct-v0.2"],
        ["claude-3-sonnet", "claude-3.5-sonnet", "claude-sonnet-4", "claude-sonnet-4.5"],
        ["amazon-nova-pro-v1.0", "amazon-nova-lite-v1.0", "nova-2-lite"],
    ],
)
def test_canonical_rules_keep_look_alikes_apart(group):
    m = identity_map(group, F, {})
    assert len(set(m.values())) == len(group), m


def test_cross_source_date_rule():
    from builder.identity import identity_maps

    by_source = {
        "arena": ["claude-3-5-sonnet-20240620", "claude-3-5-sonnet-20241022", "gpt-4.1-2025-04-14"],
        "aider": ["claude-3-5-sonnet-20241022", "gpt-4.1"],
    }
    maps = identity_maps(by_source, F, {})
    # aider's lone dated release meets arena's, which has two; an undated base joins the one release
    assert maps["aider"]["claude-3-5-sonnet-20241022"] == maps["arena"]["claude-3-5-sonnet-20241022"] \
        == "claude-3.5-sonnet-2024-10-22"
    assert maps["aider"]["gpt-4.1"] == maps["arena"]["gpt-4.1-2025-04-14"] == "gpt-4.1"
    # per source (identity_map), aider alone would fold its lone release into the base
    assert identity_map(by_source["aider"], F, {})["claude-3-5-sonnet-20241022"] == "claude-3.5-sonnet"
    # only rated sources decide: a price list's stray dated key does not split the rated model
    prices = {"arena": ["claude-3-7-sonnet-20250219"],
              "litellm": ["anthropic.claude-3-7-sonnet-20240620-v1:0", "claude-3-7-sonnet-20250219"]}
    rated = identity_maps(prices, F, {}, rated=["arena"])
    assert rated["arena"]["claude-3-7-sonnet-20250219"] == rated["litellm"]["claude-3-7-sonnet-20250219"] \
        == "claude-3.7-sonnet"
    assert identity_maps(prices, F, {})["arena"]["claude-3-7-sonnet-20250219"] == "claude-3.7-sonnet-2025-02-19"


def test_registry_pins_a_separate_release_against_effort_folding():
    from builder.identity import registry_aliases, shipped_registry

    table = registry_aliases(shipped_registry())
    m = identity_map(["kimi-k2-thinking", "Kimi K2", "kimi-k2-0711-preview", "Kimi-K2-Instruct"], F, table)
    assert m["kimi-k2-thinking"] == "kimi-k2-thinking"
    assert {m["Kimi K2"], m["kimi-k2-0711-preview"], m["Kimi-K2-Instruct"]} == {"kimi-k2"}
    assert identity_map(["kimi-k2-thinking"], F, {})["kimi-k2-thinking"] == "kimi-k2"  # the rule alone would fold it
    # an entry written in a non-canonical form still matches the canonical spelling
    assert identity_of("gemini-3-pro-preview-11-2025-high", F, table) == "gemini-3-pro"


def test_registry_validation_names_file_and_entry(tmp_path):
    from builder.errors import UserError
    from builder.identity import read_registry

    path = tmp_path / "identities.yml"
    for text, message in [
        ("- a\n", "expected a mapping with one key, models"),
        ("models:\n  - {id: a, spellings: [], reason: r}\n", "models[0] (a): spellings must be a non-empty list"),
        ("models:\n  - {id: a, spellings: [x], reason: r, link: ftp://x}\n", "link 'ftp://x' is not an http(s) URL"),
        ("models:\n  - {id: a, spellings: [x], reason: r, note: y}\n", "models[0]: unknown field 'note'"),
        ("models:\n  - [a]\n", "models[0]: expected a mapping"),
    ]:
        path.write_text(text)
        with pytest.raises(UserError) as err:
            read_registry(path)
        assert str(err.value).startswith(f"{path}: ") and message in str(err.value), str(err.value)
        assert "\n" not in str(err.value)
    assert read_registry(tmp_path / "missing.yml") == ()


def test_accept_into_registry_creates_joins_and_moves_spellings(tmp_path):
    from builder.identity import accept_into_registry, read_registry

    path = tmp_path / "identities.yml"
    assert accept_into_registry(path, {"Kimi K2": "kimi-k2"}, "same checkpoint") == 1
    assert accept_into_registry(path, {"kimi-k2-0711-preview": "kimi-k2", "x-1": "y-1"}, "later") == 2
    entries = {e.id: e for e in read_registry(path)}
    assert entries["kimi-k2"].spellings == ("Kimi K2", "kimi-k2-0711-preview")
    assert entries["kimi-k2"].reason == "same checkpoint" and entries["y-1"].reason == "later"
    accept_into_registry(path, {"x-1": "kimi-k2"}, "moved")  # a spelling moves; an emptied entry goes
    entries = {e.id: e for e in read_registry(path)}
    assert set(entries) == {"kimi-k2"} and entries["kimi-k2"].spellings[-1] == "x-1"
    assert path.read_text().startswith("# This site's identity registry")
