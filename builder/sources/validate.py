"""Validation shared by every parser: scores, names and caps (the same rules for every source).

Numeric scores must be finite and cannot be booleans; percentage scores must lie in
[0, 100] inclusive. A value that breaks a rule is kept as an excluded observation with the
reason this function returns.

Every parse result then passes ``check_result`` (``builder.sources.parse_payload`` calls it):
each model name is cleaned of control, bidi and zero-width characters and its look-alike
spellings folded, and the caps of ``site.yml`` ``limits`` exclude absurd rows or fail the
payload, so nothing a later stage cannot use is accepted into the store.
"""

from __future__ import annotations

import datetime as dt
import math
import re
from dataclasses import replace
from typing import Any

from builder.config import LimitsConfig
from builder.records import ParseResult
from builder.util.confusables import fold_confusables


def check_score(value: Any, *, percent: bool) -> tuple[float | None, str | None]:
    """Return ``(score, None)`` for a valid score, else ``(score_or_None, reason)``.

    Numeric strings (as CSV cells arrive) are accepted; empty cells are "missing".
    """
    if isinstance(value, bool):
        return None, f"score is a boolean ({value!r})"
    if value is None or (isinstance(value, str) and not value.strip()):
        return None, "score is missing"
    if isinstance(value, (int, float)):
        x = float(value)
    elif isinstance(value, str):
        try:
            x = float(value.strip())
        except ValueError:
            return None, f"score is not a number ({value!r})"
    else:
        return None, f"score is not a number ({value!r})"
    if not math.isfinite(x):
        return x, f"score is not finite ({value!r})"
    if percent and not 0.0 <= x <= 100.0:
        return x, f"percentage score out of [0, 100] ({x!r})"
    return x, None


# --------------------------------------------------------------------------- names and caps

# C0 and C1 controls (DEL included), bidirectional controls, zero-width and other invisible
# format characters: none has a place in a model name; each would reach a page, an SVG (where
# an XML parser refuses a NUL) or a CSV cell. Whitespace controls (tab, newline) become a space.
_INVISIBLE = re.compile(
    "[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f"
    "\u061c\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb\u00ad\u180e]"
)
_BREAKS = re.compile("[\t\n\r\u2028\u2029]+")


def clean_name(name: str) -> str:
    """A published model name without controls, bidi and zero-width characters, its runs of
    whitespace as one space, and look-alike spellings folded (``builder.util.confusables``)."""
    if name.isascii() and name.isprintable():
        return name  # the usual case, nothing to clean
    text = _BREAKS.sub(" ", _INVISIBLE.sub("", name))
    return fold_confusables(text) if text.strip() else ""


def check_result(result: ParseResult, limits: LimitsConfig, today: dt.date) -> tuple[ParseResult, str | None]:
    """Clean every record's name and apply ``limits`` (``site.yml`` ``limits``).

    Returns the result with each name cleaned and each row over a cap excluded with its reason
    (its absurd value dropped), and ``None``; or, when the payload as a whole is impossible
    (more models than ``max_models``, a publication date in the future), the reason the source
    fails.
    """
    latest = today + dt.timedelta(days=limits.future_days)
    if result.published is not None and result.published > latest:
        return result, f"publication date {result.published.isoformat()} is in the future (after {latest.isoformat()})"
    names = {r.model for rows in (result.observations, result.prices, result.build_checks, result.models) for r in rows}
    if len(names) > limits.max_models:
        return result, (f"{len(names)} distinct model names, more than limits.max_models ({limits.max_models}) "
                        "in site.yml")

    def name_of(model: str) -> tuple[str, str | None]:
        cleaned = clean_name(model)
        if not cleaned:
            return "(empty name)", f"model name is empty after removing control characters ({model[:40]!r})"
        if len(cleaned) > limits.max_name_length:
            return (cleaned[: limits.max_name_length] + "…",
                    f"model name is {len(cleaned)} characters, over limits.max_name_length ({limits.max_name_length})")
        return cleaned, None

    def too_late(day: dt.date | None) -> str | None:
        return f"date {day.isoformat()} is in the future (after {latest.isoformat()})" if day and day > latest else None

    def over(value: float | None, cap: float, what: str) -> str | None:
        if value is None or isinstance(value, bool):
            return None
        return None if math.isfinite(value) and abs(value) <= cap else f"{what} {value!r} is beyond the cap ({cap:g})"

    observations = []
    for o in result.observations:
        model, bad = name_of(o.model)
        bad = bad or over(o.raw, limits.max_rating, "score") or too_late(o.date)
        if bad:  # a row the parser already excluded keeps its reason, never its absurd value
            o = replace(o, model=model, raw=None, date=None if too_late(o.date) else o.date,
                        excluded=o.excluded or bad)
        elif model != o.model:
            o = replace(o, model=model)
        observations.append(o)
    prices = []
    for p in result.prices:
        model, bad = name_of(p.model)
        bad = (bad or over(None if p.input_per_token is None else p.input_per_token * 1e6, limits.max_price,
                           "input price (USD per million tokens)")
               or over(None if p.output_per_token is None else p.output_per_token * 1e6, limits.max_price,
                       "output price (USD per million tokens)")
               or over(p.blended, limits.max_price, "blended price (USD per million tokens)") or too_late(p.date))
        if bad:
            p = replace(p, model=model, key=clean_name(p.key)[: limits.max_name_length], input_per_token=None,
                        output_per_token=None, blended=None, date=None if too_late(p.date) else p.date,
                        excluded=p.excluded or bad)
        elif model != p.model or p.key != clean_name(p.key):
            p = replace(p, model=model, key=clean_name(p.key)[: limits.max_name_length])
        prices.append(p)
    checks = []
    for c in result.build_checks:
        model, bad = name_of(c.model)
        bad = bad or over(c.price, limits.max_price, "price (USD)") or too_late(c.date)
        if bad:
            c = replace(c, model=model, price=None, date=None if too_late(c.date) else c.date,
                        excluded=c.excluded or bad)
        elif model != c.model:
            c = replace(c, model=model)
        checks.append(c)
    models = []
    for m in result.models:
        model, bad = name_of(m.model)
        if bad:
            continue  # facts about an unusable name are simply left out
        m = replace(m, model=model, release_date=None if too_late(m.release_date) else m.release_date,
                    params_b=None if over(m.params_b, limits.max_rating, "") else m.params_b)
        models.append(m)
    return replace(result, observations=tuple(observations), prices=tuple(prices), build_checks=tuple(checks),
                   models=tuple(models)), None
