"""Model-name folding: one identity key for the spellings of one model across sources.

Seed 004, "Choose one configuration per source and model": explicit effort suffixes fold
into the base model; a full date suffix folds into the base only when that source has
exactly one dated release for that base; versions, tiers, parameter sizes and checkpoint
ids remain separate. Every record keeps its own spelling; only ``identity`` is folded.

An identity key uses the URL-safe alphabet ``[a-z0-9.-]`` (it appears in page URLs and
evidence files) and is built in this order:

1. ``normalise`` -- the spelling as a token string:
   a. configured provider prefixes are stripped, then anything up to the last ``/``
      (``openrouter/anthropic/claude-opus-4.1`` -> ``claude-opus-4.1``);
   b. Unicode is folded to ASCII (NFKD) and lower-cased;
   c. every run of characters outside ``[a-z0-9]`` becomes one ``-``, except a ``.``
      between two digits (``gpt-4.1``, ``v0.1``), which is a version dot and stays;
   d. the version rule: a ``-`` between two single-digit tokens becomes ``.``
      (``claude-opus-4-1`` -> ``claude-opus-4.1``, ``claude-3-5-sonnet`` ->
      ``claude-3.5-sonnet``, ``phi-1_5`` -> ``phi-1.5``). Both digits must stand alone:
      the left one right after a ``-`` (so ``qwen3-...``, ``o1-2024...`` are untouched) and
      the right one followed by ``-`` or the end (so ``gemma-2-2b``, ``gpt-4-0613``,
      ``llama-3-8b`` and every date keep their hyphens). Providers spell minor versions
      both ways (Anthropic's API ids use hyphens, most leaderboards use dots); a
      single-digit pair after a name token is a version number in every spelling we have
      seen, while sizes carry a unit (``8b``) and dates and checkpoints have 2+ digits;
   e. leading and trailing ``-`` are trimmed. A spelling with no ASCII letter or digit
      at all gets ``model-<sha256 prefix>`` so distinct spellings stay distinct.
2. the alias table (``site.yml: aliases``, keys and values normalised like spellings):
   an alias of the whole normalised spelling wins outright (this is how an operator pins
   a spelling that the effort list would otherwise fold, e.g. ``mistral-medium``);
3. ``split_effort`` -- configured effort suffixes (normalised the same way, so
   ``(32k thinking)`` matches ``-32k-thinking`` and ``_high`` matches ``-high``) are
   stripped from the end, longest first, repeatedly (``-thinking-64k-high`` loses both);
   an alias of the effort-folded key wins next;
4. ``split_date`` -- a full date ``-?\\d{4}-?\\d{2}-?\\d{2}`` at the end (a real calendar
   date, not glued to a preceding digit) folds into the base when the source has exactly
   one distinct dated release for that base. Otherwise the date stays, written in the
   canonical form ``<base>-YYYY-MM-DD`` so ``gpt-4o-20240806`` and ``gpt-4o-2024-08-06``
   agree across sources;
5. the alias table once more, on the final key.

Between steps 1 and 2, ``canonicalise`` rewrites the normalised spelling where publishers
write one model differently (each rule names only the one checkpoint, never a neighbour):

* vendor and host prefixes before the model name (``meta-llama-3-70b`` -> ``llama-3-70b``,
  ``amazon-nova-pro`` -> ``nova-pro``, ``c4ai-command-a-03-2025`` -> ``command-a-03-2025``);
* API suffixes of a first version (``-v1:0``, ``-v1.0``, ``-v1``): version 1 is the model;
* Claude word order: from Claude 4 on, Anthropic writes tier then version
  (``claude-sonnet-4``), before it version then tier (``claude-3.5-sonnet``); LiveBench's
  ``claude-4-sonnet`` and OpenRouter's ``claude-sonnet-3.7`` take Anthropic's order;
* a ``preview`` tag right before a checkpoint tag (``-MM-DD`` or ``-MM-YYYY``) names the same
  checkpoint as the tag alone (``gemini-2.5-pro-preview-06-05`` = ``gemini-2.5-pro-06-05``);
* ``-base`` right after a full date is LiveBench's non-thinking configuration of that dated
  release (a pretrained base model never carries an API date), and ``-hf`` names Hugging
  Face's conversion of the same weights;
* after effort folding, a thinking budget right after a date or checkpoint tag
  (``claude-3-7-sonnet-20250219_12K``, ``gemini-2.5-flash-preview-04-17 (24K thinking)``)
  folds like an effort: budgets are configurations of one release;
* a display-name note after a comma and Aider's edit format before it
  (``Qwen3 235B A22B diff, no think, Alibaba API`` -> ``qwen3-235b-a22b``).

The date rule needs a source's whole set of spellings, so ``identity_map`` folds the
spellings of ONE source at a time; ``identity_maps`` folds several sources together and
counts dated releases across all of them (the cross-source date rule): a source's lone dated
release folds into the base only when no source names another dated release of that base,
so Aider's one dated Claude 3.5 Sonnet meets the same dated release on LMArena, which has two.

The curated registry (``builder/data/identities.yml``, shipped; ``identities.yml`` beside
``site.yml``, the operator's) decides what rules cannot: spellings that share no rule
(``qwen-max-2025-01-25`` is ``qwen2.5-max``) and names that look like an effort of another
model but are a separate release (``kimi-k2-thinking``). ``alias_table`` merges the shipped
registry, the site's registry and ``site.yml: aliases``, later ones winning.
"""

from __future__ import annotations

import datetime as dt
import functools
import hashlib
import re
import unicodedata
from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml

from builder.config import FoldingConfig
from builder.errors import UserError

if TYPE_CHECKING:
    from builder.config import SiteConfig

KEY_PATTERN = re.compile(r"^[a-z0-9.-]+$")
"Every identity key matches this."

# A dot survives only between two digits; everything else outside [a-z0-9] is a separator.
_SEPARATORS = re.compile(r"(?P<dot>(?<=\d)\.(?=\d))|[^a-z0-9]+")
# The version rule (step 1d): "-<digit>-<digit>" where both digits stand alone.
_VERSION_HYPHEN = re.compile(r"(?:(?<=^\d)|(?<=-\d))-(?=\d(?:-|$))")
# Step 4. The lookbehind keeps "x120250101" (a digit run) from being read as x1 + a date.
_DATE_SUFFIX = re.compile(r"-?(?<!\d)(\d{4})-?(\d{2})-?(\d{2})$")


# canonicalise: vendor / host prefixes that stand before a model name. "meta" and "nvidia"
# only before a name they publish (Meta's "meta-..." alone is not a model prefix elsewhere).
_VENDOR_PREFIX = re.compile(
    r"^(?:(?:us|eu|apac|global)-)?"
    r"(?:amazon|anthropic|openai|google|mistralai|microsoft|c4ai|parasail|moonshotai|x-ai|xai|ibm|"
    r"meta(?=-llama)|nvidia(?=-(?:llama|nemotron)))-(?=[a-z])"
)
# API suffixes of a first version: "-v1:0" (normalised "-v1-0"), "-v1.0", "-v1"; and after a
# full date any Bedrock listing version ("claude-3-5-sonnet-20241022-v2:0"): the date names it.
_API_SUFFIX = re.compile(r"-v1(?:[.-]0)?$|(?<=\d{8})-v\d+(?:-0)?$")
# Claude's tiers and the version that goes with them.
_CLAUDE_VERSION_TIER = re.compile(r"^claude-(\d+(?:\.\d+)?)-(opus|sonnet|haiku)(?=-|$)")
_CLAUDE_TIER_VERSION = re.compile(r"^claude-(opus|sonnet|haiku)-(\d+(?:\.\d+)?)(?=-|$)")
# "preview" before a checkpoint tag (MM-DD or MM-YYYY) at the end or before more tokens.
_PREVIEW_TAG = re.compile(r"-preview(?=-(?:0[1-9]|1[0-2])-(?:\d{2}|20\d{2})(?:-|$))")
# "-base" right after a full date (YYYYMMDD or YYYY-MM-DD) at the end.
_DATED_BASE = re.compile(r"(?<=-)(\d{8}|\d{4}-\d{2}-\d{2})-base$")
# A thinking budget ("_12K", "(24K thinking)") right after a date or a checkpoint tag at the end:
# a budget of that release, never a context window (those come before any date: gpt-4-32k-0314).
_DATED_BUDGET = re.compile(r"(?<=-)(\d{8}|\d{4}-\d{2}-\d{2}|\d{2}-\d{2})-\d{1,3}k$")
# Hugging Face's "-hf" names the converted weights of the same checkpoint (Llama-2-70b-chat-hf).
_HF_SUFFIX = re.compile(r"-hf$")
# Aider's edit formats, written after the model in a few display names.
_EDIT_FORMAT = re.compile(r"\s+(?:diff|whole|udiff|diff-fenced|editor-diff|editor-whole)\s*$", re.IGNORECASE)


def _display_note(text: str) -> str:
    """Drop a display name's note after the first comma and an edit format before it.

    ``"Qwen3 235B A22B diff, no think, Alibaba API"`` -> ``"Qwen3 235B A22B"``. Only a
    spelling with a comma and a space is a display name; ids never hold ``", "``.
    """
    if ", " not in text:
        return text
    head = text.split(",", 1)[0]
    return _EDIT_FORMAT.sub("", head) or text


def canonicalise(key: str) -> str:
    """Rewrite a normalised key where publishers spell one model differently (see above).

    ``"meta-llama-3-70b-instruct"`` -> ``"llama-3-70b-instruct"``; ``"amazon-nova-pro-v1-0"``
    -> ``"nova-pro"``; ``"claude-4.1-opus-20250805-base"`` -> ``"claude-opus-4.1-20250805"``;
    ``"gemini-2.5-pro-preview-06-05"`` -> ``"gemini-2.5-pro-06-05"``. A fixed point, and the
    result matches ``KEY_PATTERN``; it never returns an empty key.
    """
    out = key
    for _ in range(len(key) + 1):  # each pass removes or reorders tokens; stop at the fixed point
        step = _canonical_pass(out)
        if step == out:
            break
        out = step
    return out or key


def _canonical_pass(key: str) -> str:
    out = _VENDOR_PREFIX.sub("", key)
    out = _API_SUFFIX.sub("", out) or out
    out = _HF_SUFFIX.sub("", out) or out
    out = _DATED_BASE.sub(r"\1", out)
    m = _CLAUDE_VERSION_TIER.match(out)
    if m and int(m.group(1).split(".")[0]) >= 4:
        out = f"claude-{m.group(2)}-{m.group(1)}" + out[m.end():]
    m = _CLAUDE_TIER_VERSION.match(out)
    if m and int(m.group(2).split(".")[0]) < 4:
        out = f"claude-{m.group(2)}-{m.group(1)}" + out[m.end():]
    return _PREVIEW_TAG.sub("", out) or key


def _fold_text(text: str) -> str:
    """Steps 1b-1e on a string without provider prefix; may return ''."""
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    lowered = ascii_text.lower()
    # Keep version dots by protecting them from the separator pass.
    parts = []
    pos = 0
    for m in _SEPARATORS.finditer(lowered):
        parts.append(lowered[pos : m.start()])
        parts.append("." if m.group("dot") else "-")
        pos = m.end()
    parts.append(lowered[pos:])
    folded = "".join(parts)
    folded = re.sub(r"-{2,}", "-", folded).strip("-")
    folded = _VERSION_HYPHEN.sub(".", folded)
    return folded


def _strip_provider(spelling: str, folding: FoldingConfig) -> str:
    text = spelling.strip()
    lowered = text.lower()
    for prefix in folding.provider_prefixes:
        if prefix and lowered.startswith(prefix.lower()):
            text = text[len(prefix) :]
            break
    # Any remaining route ("bedrock/us.anthropic...", "openrouter/x/y"): keep the last part.
    if "/" in text.rstrip("/"):
        text = text.rstrip("/").rsplit("/", 1)[1]
    return text


def normalise(spelling: str, folding: FoldingConfig) -> str:
    """Fold case, separators, provider prefixes and version hyphens (step 1).

    ``"Claude Opus 4.1"``, ``"anthropic/claude-opus-4-1"`` and ``"claude_opus_4.1"`` all
    give ``"claude-opus-4.1"``. The result matches ``KEY_PATTERN`` and is a fixed point:
    ``normalise(normalise(s)) == normalise(s)``. No effort, date or alias folding here.
    """
    folded = _fold_text(_display_note(_strip_provider(spelling, folding)))
    if not folded:
        # Nothing ASCII survives (e.g. a name in another script): still a stable, distinct key.
        digest = hashlib.sha256(spelling.encode("utf-8")).hexdigest()[:10]
        return f"model-{digest}"
    return folded


def _effort_tokens(folding: FoldingConfig) -> tuple[str, ...]:
    """Configured effort suffixes as normalised token tails, longest first."""
    return _effort_tails(tuple(folding.effort_suffixes))


@functools.lru_cache(maxsize=8)
def _effort_tails(suffixes: tuple[str, ...]) -> tuple[str, ...]:
    # folded once per suffix list, not once per spelling (a build splits thousands)
    tails = {_fold_text(s) for s in suffixes}
    return tuple(sorted((t for t in tails if t), key=lambda t: (-len(t), t)))


def split_effort(key: str, folding: FoldingConfig) -> tuple[str, str | None]:
    """Strip configured effort suffixes from the end of a normalised key.

    Returns ``(base, effort)``: ``effort`` is the stripped tail without its leading
    hyphen (``"thinking-64k-high"`` when two suffixes were stripped) or ``None``. A suffix
    matches whole tokens only (``-high`` strips from ``o3-high``, never from ``o3-xhigh``)
    and never leaves an empty base.
    """
    tails = _effort_tokens(folding)
    base = key
    stripped: list[str] = []
    changed = True
    while changed:
        changed = False
        for tail in tails:
            if base.endswith("-" + tail) and len(base) > len(tail) + 1:
                base = base[: -(len(tail) + 1)]
                stripped.insert(0, tail)
                changed = True
                break
    return base, ("-".join(stripped) if stripped else None)


def split_date(key: str) -> tuple[str, str | None]:
    """Split a full date suffix off a normalised key.

    Returns ``(base, "YYYY-MM-DD")`` when the key ends in ``-?\\d{4}-?\\d{2}-?\\d{2}`` that is
    a valid calendar date and leaves a non-empty base, else ``(key, None)``.
    ``"claude-opus-4.1-20250805"`` -> ``("claude-opus-4.1", "2025-08-05")``;
    ``"gpt-4-0613"`` and ``"qwen3-235b-a22b-2507"`` have no full date.
    """
    m = _DATE_SUFFIX.search(key)
    if not m:
        return key, None
    try:
        day = dt.date(int(m.group(1)), int(m.group(2)), int(m.group(3)))
    except ValueError:
        return key, None  # 8 digits that are no date: a checkpoint id, kept
    base = key[: m.start()].rstrip("-")
    if not base:
        return key, None
    return base, day.isoformat()


def _normalise_aliases(aliases: Mapping[str, str], folding: FoldingConfig) -> dict[str, str]:
    return dict(_normalised_table(tuple(aliases.items()), tuple(folding.provider_prefixes)))


@functools.lru_cache(maxsize=16)
def _normalised_table(items: tuple[tuple[str, str], ...], prefixes: tuple[str, ...]) -> tuple[tuple[str, str], ...]:
    # A build folds with the same table many times (once per lone spelling in places).
    # Each key is entered as written and canonicalised, so an entry for
    # "gemini-3-pro-preview-11-2025" also matches the canonical "gemini-3-pro-11-2025";
    # a key as written wins over another entry's canonical form.
    folding = FoldingConfig(provider_prefixes=list(prefixes))
    pairs = [(normalise(k, folding), normalise(v, folding)) for k, v in items]
    table = {canonicalise(k): v for k, v in pairs}
    table.update(pairs)
    return tuple(table.items())


@dataclass(frozen=True)
class _Folded:
    """One spelling half-way through ``identity_map``: pinned by an alias, or pending the date rule."""

    pinned: str | None
    no_effort: str = ""
    base: str = ""
    day: str | None = None


def _fold(spelling: str, folding: FoldingConfig, table: Mapping[str, str]) -> _Folded:
    key = normalise(spelling, folding)
    if key in table:
        return _Folded(table[key])
    canon = canonicalise(key)
    if canon in table:
        return _Folded(table[canon])
    no_effort, _ = split_effort(canon, folding)
    budgetless = _DATED_BUDGET.sub(r"\1", no_effort)
    if budgetless != no_effort:
        no_effort, _ = split_effort(budgetless, folding)
    if no_effort in table:
        return _Folded(table[no_effort])
    base, day = split_date(no_effort)
    return _Folded(None, no_effort, base, day)


def _releases(folded: Iterable[_Folded]) -> dict[str, set[str]]:
    out: dict[str, set[str]] = defaultdict(set)
    for f in folded:
        if f.pinned is None and f.day is not None:
            out[f.base].add(f.day)
    return out


def _finish(folded: Mapping[str, _Folded], releases: Mapping[str, set[str]],
            table: Mapping[str, str]) -> dict[str, str]:
    result: dict[str, str] = {}
    for spelling, f in folded.items():
        if f.pinned is not None:
            result[spelling] = f.pinned
            continue
        if f.day is None:
            key = f.no_effort
        elif len(releases.get(f.base, ())) == 1:
            key = f.base
        else:
            key = f"{f.base}-{f.day}"
        result[spelling] = table.get(key, key)
    return result


def identity_map(
    spellings: Iterable[str], folding: FoldingConfig, aliases: Mapping[str, str]
) -> dict[str, str]:
    """Map every spelling of ONE source to its identity key.

    ``spellings``: all model spellings the source published (any feed, any order,
    duplicates allowed). Returns ``{spelling: identity}`` with one entry per distinct
    spelling. The date rule counts distinct dated releases per base within this set only,
    after effort folding: ``claude-opus-4-20250514`` and ``claude-opus-4-20250514-thinking-16k``
    are one dated release of ``claude-opus-4``.
    """
    table = _normalise_aliases(aliases, folding)
    folded = {s: _fold(s, folding, table) for s in dict.fromkeys(spellings)}
    return _finish(folded, _releases(folded.values()), table)


def identity_maps(
    by_source: Mapping[str, Iterable[str]], folding: FoldingConfig, aliases: Mapping[str, str],
    rated: Iterable[str] | None = None,
) -> dict[str, dict[str, str]]:
    """Map the spellings of SEVERAL sources at once: ``{source: {spelling: identity}}``.

    The cross-source date rule: dated releases of a base are counted over the ``rated``
    sources (default: every source given), so a source's lone dated release folds into the
    base only when no rated source names another dated release of it. LMArena's
    ``claude-3-5-sonnet-20240620`` and ``-20241022`` keep Aider's lone
    ``claude-3-5-sonnet-20241022`` dated too, and the two meet; an undated base (``gpt-4.1``)
    joins a base whose one dated release another source names. A base that no rated source
    dates follows its own source's count. Price lists are not rated: a reseller's stray key
    (``anthropic.claude-3-7-sonnet-20240620-v1:0``) must not split the publishers' model.
    """
    table = _normalise_aliases(aliases, folding)
    folded = {src: {s: _fold(s, folding, table) for s in dict.fromkeys(names)} for src, names in by_source.items()}
    deciding = set(folded) if rated is None else set(rated)
    releases: dict[str, set[str]] = defaultdict(set)
    for src in deciding & set(folded):
        for base, days in _releases(folded[src].values()).items():
            releases[base] |= days
    out: dict[str, dict[str, str]] = {}
    for src, per_source in folded.items():
        own = _releases(per_source.values())
        counted = {base: releases.get(base) or days for base, days in own.items()}
        out[src] = _finish(per_source, counted, table)
    return out


def identity_of(spelling: str, folding: FoldingConfig, aliases: Mapping[str, str]) -> str:
    """Identity of a lone spelling (a source with just this one spelling)."""
    return identity_map([spelling], folding, aliases)[spelling]


# --------------------------------------------------------------------------- the registry

REGISTRY_FILE = Path(__file__).parent / "data" / "identities.yml"
"The shipped identity registry."
SITE_REGISTRY = "identities.yml"
"The operator's registry, beside ``site.yml``; adds to and overrides the shipped one."


@dataclass(frozen=True)
class RegistryEntry:
    """One curated model: its canonical id, the spellings that name it, and why."""

    id: str
    spellings: tuple[str, ...]
    reason: str
    link: str | None = None


def _entry(path: Path, i: int, item: Any) -> RegistryEntry:
    where = f"{path}: models[{i}]"
    if not isinstance(item, dict):
        raise UserError(f"{where}: expected a mapping with id, spellings and reason, got {type(item).__name__}")
    unknown = sorted(set(item) - {"id", "spellings", "reason", "link"})
    if unknown:
        raise UserError(f"{where}: unknown field {unknown[0]!r} (allowed: id, spellings, reason, link)")
    ident = item.get("id")
    if not isinstance(ident, str) or not KEY_PATTERN.match(ident) or ident != _fold_text(ident):
        raise UserError(f"{where}: id {ident!r} is not an identity key (lower case a-z, 0-9, '.', '-')")
    where = f"{path}: models[{i}] ({ident})"
    spellings = item.get("spellings")
    if (not isinstance(spellings, list) or not spellings
            or not all(isinstance(x, str | int | float) and str(x).strip() for x in spellings)):
        raise UserError(f"{where}: spellings must be a non-empty list of names")
    reason = item.get("reason")
    if not isinstance(reason, str) or not reason.strip():
        raise UserError(f"{where}: every entry needs a reason (why these spellings are this model)")
    link = item.get("link")
    if link is not None and (not isinstance(link, str) or not link.startswith(("https://", "http://"))):
        raise UserError(f"{where}: link {link!r} is not an http(s) URL")
    return RegistryEntry(ident, tuple(str(x) for x in spellings), reason.strip(), link)


def read_registry(path: Path) -> tuple[RegistryEntry, ...]:
    """Entries of one registry file (YAML: ``models: [{id, spellings, reason, link?}]``).

    A missing file has no entries. Bad input raises ``UserError`` with one line naming the
    file and the entry: invalid YAML, a missing reason, a spelling given two ids.
    """
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return ()
    except (OSError, UnicodeDecodeError) as exc:
        raise UserError(f"{path}: cannot read the identity registry: {exc}") from None
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"line {mark.line + 1}, column {mark.column + 1}: " if mark else ""
        raise UserError(f"{path}: {where}invalid YAML: {getattr(exc, 'problem', None) or exc}") from None
    if data is None:
        return ()
    if not isinstance(data, dict) or not isinstance(data.get("models", []), list) or set(data) - {"models"}:
        raise UserError(f"{path}: expected a mapping with one key, models: a list of entries")
    entries = tuple(_entry(path, i, item) for i, item in enumerate(data.get("models") or []))
    seen: dict[str, str] = {}
    for i, e in enumerate(entries):
        for spelling in e.spellings:
            key = _fold_text(spelling) or spelling
            if seen.get(key, e.id) != e.id:
                raise UserError(f"{path}: models[{i}] ({e.id}): spelling {spelling!r} is already "
                                f"given to {seen[key]!r}")
            seen[key] = e.id
    return entries


def registry_aliases(entries: Iterable[RegistryEntry]) -> dict[str, str]:
    """``{spelling: id}`` of registry entries; an id names itself too (it pins the id)."""
    out: dict[str, str] = {}
    for e in entries:
        out[e.id] = e.id
        for spelling in e.spellings:
            out[spelling] = e.id
    return out


@functools.lru_cache(maxsize=1)
def shipped_registry() -> tuple[RegistryEntry, ...]:
    """The registry that ships with ModelBoards (``builder/data/identities.yml``)."""
    return read_registry(REGISTRY_FILE)


def site_registry_path(cfg: SiteConfig) -> Path | None:
    """``identities.yml`` beside the config's ``site.yml`` (None for a config built in code)."""
    base = cfg.base_dir()
    return None if base is None else base / SITE_REGISTRY


def site_registry(cfg: SiteConfig) -> tuple[RegistryEntry, ...]:
    """The operator's registry entries (none when the file does not exist)."""
    path = site_registry_path(cfg)
    if path is None:
        return ()
    try:
        stamp = path.stat().st_mtime_ns
    except OSError:
        return ()
    return _read_registry_cached(path, stamp)


@functools.lru_cache(maxsize=8)
def _read_registry_cached(path: Path, stamp: int) -> tuple[RegistryEntry, ...]:
    # keyed by modification time: `identities --accept` rewrites the file within one process
    return read_registry(path)


def alias_table(cfg: SiteConfig) -> dict[str, str]:
    """Spelling -> identity for a site: the shipped registry, then the site's registry
    (``identities.yml`` beside ``site.yml``), then ``site.yml: aliases``; later ones win."""
    table = registry_aliases(shipped_registry())
    table.update(registry_aliases(site_registry(cfg)))
    table.update(cfg.aliases)
    return table


# --------------------------------------------------------------------------- review


@dataclass(frozen=True)
class Candidate:
    """An identity of another source that an unmatched spelling may be: fuzzy score 0-100."""

    identity: str
    score: float
    sources: tuple[str, ...]


@dataclass(frozen=True)
class Unmatched:
    """A spelling of one source whose identity no other source names, and its closest candidates."""

    source: str
    spelling: str
    identity: str
    candidates: tuple[Candidate, ...]


def unmatched_spellings(
    maps: Mapping[str, Mapping[str, str]], limit: int = 3, cutoff: float = 60.0
) -> dict[str, tuple[Unmatched, ...]]:
    """Per source, the spellings whose identity no other source names, with candidates.

    ``maps``: ``{source: {spelling: identity}}`` (``identity_maps``). Candidates are other
    sources' identities ranked by rapidfuzz's ``WRatio`` on the identity keys (best first,
    at most ``limit``, score at least ``cutoff``); ties keep the key order. Sources and
    spellings come out sorted.
    """
    from rapidfuzz import fuzz, process

    named_by: dict[str, set[str]] = defaultdict(set)
    for src, mapping in maps.items():
        for ident in mapping.values():
            named_by[ident].add(src)
    out: dict[str, tuple[Unmatched, ...]] = {}
    for src in sorted(maps):
        others = sorted(i for i, srcs in named_by.items() if srcs - {src})
        rows = []
        for spelling, ident in sorted(maps[src].items()):
            if named_by[ident] - {src}:
                continue
            found = process.extract(ident, others, scorer=fuzz.WRatio, limit=limit, score_cutoff=cutoff)
            cands = tuple(Candidate(c, round(float(score), 1), tuple(sorted(named_by[c] - {src})))
                          for c, score, _ in found)
            rows.append(Unmatched(src, spelling, ident, cands))
        out[src] = tuple(rows)
    return out


def accept_into_registry(path: Path, accepted: Mapping[str, str], reason: str) -> int:
    """Write ``{spelling: id}`` into the registry file at ``path`` (created when missing).

    A spelling joins the entry with that id (created with ``reason``), leaving every other
    entry as it was; a spelling already in another entry moves to the new id. Returns the
    number of spellings written. The file is validated before and after (``read_registry``).
    """
    existing = list(read_registry(path))
    ids = {}
    for spelling, ident in accepted.items():
        key = _fold_text(ident)
        if not key or key != ident.strip().lower() or not KEY_PATTERN.match(key):
            raise UserError(f"--accept {spelling}={ident}: {ident!r} is not an identity key "
                            "(lower case a-z, 0-9, '.', '-')")
        ids[spelling] = key
    entries: list[dict[str, Any]] = []
    for e in existing:
        keep = [s for s in e.spellings if s not in ids]
        if keep:
            item: dict[str, Any] = {"id": e.id, "spellings": keep, "reason": e.reason}
            if e.link:
                item["link"] = e.link
            entries.append(item)
    by_id = {item["id"]: item for item in entries}
    for spelling, ident in ids.items():
        if ident not in by_id:
            by_id[ident] = {"id": ident, "spellings": [], "reason": reason}
            entries.append(by_id[ident])
        by_id[ident]["spellings"].append(spelling)
    header = ("# This site's identity registry: adds to and overrides ModelBoards' shipped one\n"
              "# (builder/data/identities.yml). Entries: id, spellings, reason, link (optional).\n")
    text = header + yaml.safe_dump({"models": entries}, sort_keys=False, allow_unicode=True, width=100)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    read_registry(tmp)  # never replace a good file with one that does not load
    tmp.replace(path)
    return len(ids)
