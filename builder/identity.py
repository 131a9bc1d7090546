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

The date rule needs a source's whole set of spellings, so ``identity_map`` folds the
spellings of ONE source at a time.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import re
import unicodedata
from collections import defaultdict
from collections.abc import Iterable, Mapping

from builder.config import FoldingConfig

KEY_PATTERN = re.compile(r"^[a-z0-9.-]+$")
"Every identity key matches this."

# A dot survives only between two digits; everything else outside [a-z0-9] is a separator.
_SEPARATORS = re.compile(r"(?P<dot>(?<=\d)\.(?=\d))|[^a-z0-9]+")
# The version rule (step 1d): "-<digit>-<digit>" where both digits stand alone.
_VERSION_HYPHEN = re.compile(r"(?:(?<=^\d)|(?<=-\d))-(?=\d(?:-|$))")
# Step 4. The lookbehind keeps "x120250101" (a digit run) from being read as x1 + a date.
_DATE_SUFFIX = re.compile(r"-?(?<!\d)(\d{4})-?(\d{2})-?(\d{2})$")


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
    folded = _fold_text(_strip_provider(spelling, folding))
    if not folded:
        # Nothing ASCII survives (e.g. a name in another script): still a stable, distinct key.
        digest = hashlib.sha256(spelling.encode("utf-8")).hexdigest()[:10]
        return f"model-{digest}"
    return folded


def _effort_tokens(folding: FoldingConfig) -> list[str]:
    """Configured effort suffixes as normalised token tails, longest first."""
    tails = {_fold_text(s) for s in folding.effort_suffixes}
    return sorted((t for t in tails if t), key=lambda t: (-len(t), t))


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
    return {normalise(k, folding): normalise(v, folding) for k, v in aliases.items()}


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
    pinned: dict[str, str] = {}
    pending: dict[str, tuple[str, str, str | None]] = {}  # spelling -> (effort-folded, base, date)
    for spelling in dict.fromkeys(spellings):
        key = normalise(spelling, folding)
        if key in table:
            pinned[spelling] = table[key]
            continue
        no_effort, _ = split_effort(key, folding)
        if no_effort in table:
            pinned[spelling] = table[no_effort]
            continue
        base, day = split_date(no_effort)
        pending[spelling] = (no_effort, base, day)

    releases: dict[str, set[str]] = defaultdict(set)
    for _, base, day in pending.values():
        if day is not None:
            releases[base].add(day)

    result = dict(pinned)
    for spelling, (no_effort, base, day) in pending.items():
        if day is None:
            key = no_effort
        elif len(releases[base]) == 1:
            key = base
        else:
            key = f"{base}-{day}"
        result[spelling] = table.get(key, key)
    return result


def identity_of(spelling: str, folding: FoldingConfig, aliases: Mapping[str, str]) -> str:
    """Identity of a lone spelling (a source with just this one spelling)."""
    return identity_map([spelling], folding, aliases)[spelling]
