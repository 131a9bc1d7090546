"""Epoch AI Capabilities Index CSV -> ``<source>/eci`` observations and model facts.

Payload: one CSV (``epoch_capabilities_index.csv`` in epoch-research/benchmark-stitching)
with columns ``Model version, ECI Score, Release date, Organization, Country,
Model accessibility, ...``. Some Epoch CSVs start with a UTF-8 byte-order mark, so the file
is decoded as ``utf-8-sig``. ECI scores are index points (roughly 100-170), not percentages.

Run rule: Epoch uses rows with an ECI score. A row without one is kept as an
excluded observation with reason ``"no ECI score"``; most rows of the real file are such
(284 of 426).

Spelling: ``Model version`` exactly as published (``gpt-5-2025-08-07_high``). An effort
suffix after the last underscore (``_high``, ``_medium``, ``_low``, ``_minimal``, ``_xhigh``,
``_thinking`` or a thinking budget such as ``_32K``) is recorded in ``details["effort"]``;
folding it is selection's job. Date: ``Release date`` (the model's release), read from ISO
(``2025-08-07``) or Epoch's long form (``17 November 2025 4:28pm``); an unreadable or empty
date leaves ``date=None`` without excluding the score.

Observation.details: ``effort`` (str | None), ``organization``, ``accessibility``,
``model_name`` (Epoch's ``Model name`` column; None when absent).

Every row with a ``Model version`` also yields a ``ModelInfo``: maker = ``Organization``,
release_date, open_weight from ``Model accessibility`` ("Open weights ..." -> True,
"API access" / "Hosted access ..." -> False, anything else -> None).
"""

from __future__ import annotations

import csv
import io
import re
from datetime import date, datetime

from builder.config import SourceConfig
from builder.records import ModelInfo, Observation, ParseResult, Payload
from builder.sources.base import PayloadError, row_url
from builder.sources.validate import check_score

REQUIRED_COLUMNS = ("Model version", "ECI Score")

_EFFORT = re.compile(r"_(minimal|low|medium|high|xhigh|max|thinking|\d+[kK])$", re.IGNORECASE)
_LONG_DATE_FORMATS = ("%d %B %Y %I:%M%p", "%d %B %Y %H:%M", "%d %B %Y", "%B %d, %Y", "%d %b %Y")


def parse_date(text: str | None) -> date | None:
    """``"2025-08-07"``, ``"2025-08-07T10:00:00Z"`` or ``"17 November 2025 4:28pm"`` -> date."""
    if not text or not text.strip():
        return None
    s = text.strip()
    if re.match(r"^\d{4}-\d{2}-\d{2}", s):
        try:
            return date.fromisoformat(s[:10])
        except ValueError:
            return None
    compact = re.sub(r"\s+", " ", s)
    for fmt in _LONG_DATE_FORMATS:
        try:  # strptime matches month names and am/pm case-insensitively
            return datetime.strptime(compact, fmt).date()
        except ValueError:
            continue
    return None


def effort_of(version: str) -> str | None:
    """The reasoning-effort suffix of an Epoch model version (``_high`` -> ``"high"``), else None."""
    m = _EFFORT.search(version)
    return m.group(1) if m else None


def open_weight_of(accessibility: str | None) -> bool | None:
    """Epoch ``Model accessibility`` -> open weights? (True / False / None = unknown)."""
    a = (accessibility or "").strip().lower()
    if a.startswith("open weights"):
        return True
    if a.startswith("api access") or a.startswith("hosted access"):
        return False
    return None




def _clean(value: str | None) -> str | None:
    return value.strip() or None if value is not None else None


def parse(payload: Payload, source: SourceConfig) -> ParseResult:
    """Parse the ECI CSV: one observation per row (excluded when it has no score)."""
    csv_names = [n for n in payload.files if n.lower().endswith(".csv")] or list(payload.files)
    if len(csv_names) != 1:
        raise PayloadError(f"{payload.origin}: expected one ECI CSV, found {len(csv_names)} files")
    name = csv_names[0]
    try:
        text = payload.files[name].decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise PayloadError(f"{name}: not UTF-8 text ({exc})") from None
    reader = csv.DictReader(io.StringIO(text, newline=""))
    header = [h.strip() for h in (reader.fieldnames or [])]
    missing = [c for c in REQUIRED_COLUMNS if c not in header]
    if missing:
        raise PayloadError(f"{name}: missing column(s) {', '.join(missing)}")
    reader.fieldnames = header

    url = row_url(source, payload)
    release = source.release or ""
    observations: list[Observation] = []
    models: list[ModelInfo] = []
    for lineno, row in enumerate(reader, start=2):
        version = _clean(row.get("Model version"))
        if version is None:
            continue  # a blank line or a row naming no model carries nothing to keep
        released = parse_date(row.get("Release date"))
        organization = _clean(row.get("Organization"))
        accessibility = _clean(row.get("Model accessibility"))
        raw: float | None
        problem: str | None
        if None in row:  # csv puts surplus cells of a ragged row under the key None
            raw, problem = None, f"row {lineno}: {len(header) + len(row[None])} fields, header has {len(header)}"
        elif row.get("ECI Score") is None:
            raw, problem = None, f"row {lineno}: too few fields"
        elif not row["ECI Score"].strip():
            raw, problem = None, "no ECI score"
        else:
            raw, problem = check_score(row["ECI Score"], percent=False)
        observations.append(
            Observation(
                source=source.name,
                feed=f"{source.name}/eci",
                evaluator=source.evaluator_id,
                model=version,
                raw=raw,
                date=released,
                url=url,
                release=release,
                percent=False,
                details={
                    "effort": effort_of(version),
                    "organization": organization,
                    "accessibility": accessibility,
                    "model_name": _clean(row.get("Model name")),
                },
                excluded=problem,
            )
        )
        models.append(
            ModelInfo(
                source=source.name,
                model=version,
                maker=organization,
                open_weight=open_weight_of(accessibility),
                release_date=released,
                url=source.homepage or (url or None),
            )
        )
    return ParseResult(observations=tuple(observations), models=tuple(models))
