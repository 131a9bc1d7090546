"""LMArena leaderboard JSON -> Arena text and coding observations.

Payload: one JSON file (``leaderboard-text.json`` in lmarena/arena-catalog) shaped
``{category: {model: {"rating": float, "rating_q975": float, "rating_q025": float}}}``.
Ratings are on the Arena (Elo-like) scale, not percentages.

Feeds: by default category ``full`` -> ``<source>/text``, category ``coding`` ->
``<source>/coding``; ``options.categories`` (``{feed suffix: upstream category}``, e.g.
``{text: full, hard: hard_6, math: math}``) picks any published category instead. Other
categories are ignored. Every feed belongs to one evaluator (the source's ``evaluator``).

Style control: LMArena's default view is style-controlled, published as a second file
(``leaderboard-text-style-control.json``, same shape). Its categories become the feeds
``<source>/<suffix>-style`` (``arena/text-style``), beside the plain file's when the payload
holds both; a source whose URL is the style-control file yields only those.

The file carries no dates, vote counts or version: one file is one publication. Its date is
the ``date`` hint in ``site.yml`` when given (the commit date of the recorded file), else the
day the payload was fetched. "Latest publication per category" therefore means "the file in
the payload": a payload holding more than one plain, or more than one style-control
(``*style*control*``), leaderboard file is ambiguous and is refused.

Observation.details: ``category`` (upstream key), ``rating_q025``, ``rating_q975``
(the published 95% interval bounds, or None when absent / not numeric), and
``style_control: true`` on the style-control file's rows.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

from builder.config import SourceConfig
from builder.records import Observation, ParseResult, Payload
from builder.sources.base import PayloadError, row_url
from builder.sources.validate import check_score

#: upstream category -> feed suffix
CATEGORY_FEEDS: dict[str, str] = {"full": "text", "coding": "coding"}

_STYLE_CONTROL = re.compile(r"style[-_ ]?control", re.IGNORECASE)


def _pick_files(payload: Payload) -> list[tuple[str, bytes, bool]]:
    """(name, bytes, style-controlled) of the payload's leaderboard files: at most one plain
    and one style-control file, at least one of them."""
    names = [n for n in payload.files if n.lower().endswith(".json")]
    out: list[tuple[str, bytes, bool]] = []
    for style in (False, True):
        group = [n for n in names if bool(_STYLE_CONTROL.search(n)) == style]
        if len(group) > 1:
            kind = "style-control" if style else "plain"
            raise PayloadError(f"{payload.origin}: {len(group)} leaderboard files in one payload "
                               f"({kind}: {', '.join(sorted(group))}); expected one")
        out += [(n, payload.files[n], style) for n in group]
    if not out:
        raise PayloadError(f"{payload.origin}: no plain or style-control leaderboard JSON file in the payload")
    return out


def category_feeds(source: SourceConfig) -> dict[str, str]:
    """Feed suffix -> upstream category, from ``options.categories`` (default ``CATEGORY_FEEDS``)."""
    raw = source.options.get("categories")
    if raw is None:
        return {suffix: category for category, suffix in CATEGORY_FEEDS.items()}
    if not isinstance(raw, dict) or not raw or not all(
            isinstance(k, str) and re.fullmatch(r"[a-z0-9][a-z0-9-]*", k) and isinstance(v, str) and v
            for k, v in raw.items()):
        raise PayloadError(f"source {source.name}: options.categories must map feed suffixes (a-z, 0-9, -) to "
                           f"LMArena category names, got {raw!r}")
    return {k: v for k, v in raw.items()}


def _bound(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value) if math.isfinite(value) else None




def parse(payload: Payload, source: SourceConfig) -> ParseResult:
    """Parse the payload's LMArena leaderboard file(s) into ``<source>/<suffix>`` rows (and
    ``<source>/<suffix>-style`` from a style-control file)."""
    feeds = category_feeds(source)
    # no date inside: the configured one, else the upstream commit's (None: unknown, never the fetch day)
    published = source.date or payload.published
    release = source.release or (published.isoformat() if published else "undated")
    url = row_url(source, payload)
    observations: list[Observation] = []
    for name, blob, style in _pick_files(payload):
        try:
            data = json.loads(blob.decode("utf-8-sig"))
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise PayloadError(f"{name}: not valid JSON ({exc})") from None
        if not isinstance(data, dict):
            raise PayloadError(f"{name}: expected an object of categories, got {type(data).__name__}")
        if not any(cat in data for cat in feeds.values()):
            raise PayloadError(f"{name}: none of the categories {', '.join(repr(c) for c in feeds.values())}")
        for suffix, category in feeds.items():
            table = data.get(category)
            if table is None:
                continue
            if not isinstance(table, dict):
                raise PayloadError(f"{name}: category {category!r} is not an object of models")
            feed = f"{source.name}/{suffix}-style" if style else f"{source.name}/{suffix}"
            for model, entry in table.items():
                if isinstance(entry, dict):
                    raw, problem = check_score(entry.get("rating"), percent=False)
                    details = {
                        "category": category,
                        "rating_q025": _bound(entry.get("rating_q025")),
                        "rating_q975": _bound(entry.get("rating_q975")),
                    }
                else:
                    raw, problem = None, f"entry is not an object ({entry!r})"
                    details = {"category": category, "rating_q025": None, "rating_q975": None}
                if style:
                    details["style_control"] = True
                observations.append(
                    Observation(
                        source=source.name,
                        feed=feed,
                        evaluator=source.evaluator_id,
                        model=str(model),
                        raw=raw,
                        date=published,
                        url=url,
                        release=release,
                        percent=False,
                        details=details,
                        excluded=f"{category}: {problem}" if problem else None,
                    )
                )
    return ParseResult(observations=tuple(observations), published=published)
