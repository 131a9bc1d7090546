"""LMArena leaderboard JSON -> Arena text and coding observations.

Payload: one JSON file (``leaderboard-text.json`` in lmarena/arena-catalog) shaped
``{category: {model: {"rating": float, "rating_q975": float, "rating_q025": float}}}``.
Ratings are on the Arena (Elo-like) scale, not percentages.

Feeds: category ``full`` -> ``<source>/text``, category ``coding`` -> ``<source>/coding``;
every other category (languages, ``hard_6``, ``if``, ...) is ignored. Both feeds belong to
one evaluator (the source's ``evaluator``).

The file carries no dates, vote counts or version: one file is one publication. Its date is
the ``date`` hint in ``site.yml`` when given (the commit date of the recorded file), else the
day the payload was fetched. "Latest publication per category" therefore means "the file in
the payload": a payload holding more than one leaderboard file is ambiguous and is refused,
except that style-control files (``*style*control*``), whose ratings differ from the plain
ones, are ignored in favour of the plain file.

Observation.details: ``category`` (upstream key), ``rating_q025``, ``rating_q975``
(the published 95% interval bounds, or None when absent / not numeric).
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

from builder.config import SourceConfig
from builder.records import Observation, ParseResult, Payload
from builder.sources import PayloadError, row_url
from builder.sources.validate import check_score

#: upstream category -> feed suffix
CATEGORY_FEEDS: dict[str, str] = {"full": "text", "coding": "coding"}

_STYLE_CONTROL = re.compile(r"style[-_ ]?control", re.IGNORECASE)


def _pick_file(payload: Payload) -> tuple[str, bytes]:
    names = [n for n in payload.files if n.lower().endswith(".json")]
    plain = [n for n in names if not _STYLE_CONTROL.search(n)]
    if len(plain) == 1:
        return plain[0], payload.files[plain[0]]
    if not plain:
        raise PayloadError(f"{payload.origin}: no plain (non style-control) leaderboard JSON file in the payload")
    raise PayloadError(f"{payload.origin}: {len(plain)} leaderboard files in one payload ({', '.join(sorted(plain))}); "
                       f"expected one")


def _bound(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value) if math.isfinite(value) else None




def parse(payload: Payload, source: SourceConfig) -> ParseResult:
    """Parse one LMArena leaderboard file into ``<source>/text`` and ``<source>/coding`` rows."""
    name, blob = _pick_file(payload)
    try:
        data = json.loads(blob.decode("utf-8-sig"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise PayloadError(f"{name}: not valid JSON ({exc})") from None
    if not isinstance(data, dict):
        raise PayloadError(f"{name}: expected an object of categories, got {type(data).__name__}")
    if not any(cat in data for cat in CATEGORY_FEEDS):
        raise PayloadError(f"{name}: neither a 'full' nor a 'coding' category")

    # no date inside: the configured one, else the upstream commit's (None: unknown, never the fetch day)
    published = source.date or payload.published
    release = source.release or (published.isoformat() if published else "undated")
    url = row_url(source, payload)
    observations: list[Observation] = []
    for category, suffix in CATEGORY_FEEDS.items():
        table = data.get(category)
        if table is None:
            continue
        if not isinstance(table, dict):
            raise PayloadError(f"{name}: category {category!r} is not an object of models")
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
            observations.append(
                Observation(
                    source=source.name,
                    feed=f"{source.name}/{suffix}",
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
