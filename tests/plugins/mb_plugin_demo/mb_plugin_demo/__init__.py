"""A third-party source kind, ``scoresheet``: ``{"published": "YYYY-MM-DD", "scores": {model: score}}``,
one feed ``<source>/score`` on a 0-100 scale."""

from __future__ import annotations

import json
from datetime import date

from builder.records import Observation, ParseResult
from builder.sources import PayloadError
from builder.sources.registry import SourceKindSpec
from builder.sources.validate import check_score


def parse(payload, source):
    if len(payload.files) != 1:
        raise PayloadError(f"{payload.origin}: expected one scoresheet file")
    name, data = next(iter(payload.files.items()))
    try:
        doc = json.loads(data)
    except ValueError as exc:
        raise PayloadError(f"{name}: not JSON ({exc})") from None
    if not isinstance(doc, dict) or not isinstance(doc.get("scores"), dict):
        raise PayloadError(f"{name}: expected {{'scores': {{model: score}}}}")
    published = date.fromisoformat(doc["published"]) if doc.get("published") else None
    observations = []
    for model, value in doc["scores"].items():
        raw, why = check_score(value, percent=True)
        observations.append(Observation(
            source=source.name, feed=f"{source.name}/score", evaluator=source.evaluator_id, model=model,
            raw=raw, date=published, url=source.url or "", percent=True, excluded=why))
    return ParseResult(observations=tuple(observations), published=published)


SPEC = SourceKindSpec(name="scoresheet", parse=parse, summary="a JSON object of model -> score (test plugin)",
                      yields=frozenset({"scores"}))
