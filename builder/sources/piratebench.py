"""PirateBench build checks (ModelBoards' own JSON format, see content/piratebench-format.md)
-> ``BuildCheck`` records.

Payload shape (format version 1)::

    {"benchmark": "PirateBench", "version": 1,
     "epochs": [{"id": "2026-11", "date": "2026-11-20", "scored": true,
                 "jobs": [{"model": "gpt-6-mini", "passed": true, "price_usd": 0.42,
                           "job": "todo-api"?}, ...]}, ...]}

Every job of every epoch becomes one record carrying its epoch's ``scored`` flag; the
scorer keeps the latest scored epoch. ``price_usd`` is the list price of that build in USD;
it must be a finite, positive number that is not a boolean. A job whose price breaks that
rule keeps ``price=None`` and an ``excluded`` reason: it is not dropped, because a model's
build price is absent when any matching job lacks a positive numeric price
(the build price is the median of the job prices only when all of them are usable).

A payload that is not this format (not JSON, wrong ``benchmark``/``version``, an epoch
without ``id``/``date``/``scored``/``jobs``) raises ``PayloadError``: the format is ours, so a
structural fault is a broken file, not a bad row.
"""

from __future__ import annotations

from datetime import date
from typing import Any

from builder.config import SourceConfig
from builder.records import BuildCheck, ParseResult, Payload
from builder.sources.litellm import check_price, load_json

FORMAT_VERSION = 1


def parse(payload: Payload, source: SourceConfig) -> ParseResult:
    """PirateBench JSON -> ``ParseResult(build_checks=..., published=newest epoch date)``."""
    from builder.sources.base import PayloadError

    name, doc = load_json(payload, "piratebench.json")
    if not isinstance(doc, dict) or doc.get("benchmark") != "PirateBench":
        raise PayloadError(f"{name}: not a PirateBench file (expected \"benchmark\": \"PirateBench\")")
    if doc.get("version") != FORMAT_VERSION or isinstance(doc.get("version"), bool):
        raise PayloadError(f"{name}: unsupported format version {doc.get('version')!r} (expected {FORMAT_VERSION})")
    epochs = doc.get("epochs")
    if not isinstance(epochs, list):
        raise PayloadError(f"{name}: 'epochs' must be a list")

    checks: list[BuildCheck] = []
    dates: list[date] = []
    seen: set[str] = set()
    for i, epoch in enumerate(epochs):
        where = f"{name}: epochs[{i}]"
        if not isinstance(epoch, dict):
            raise PayloadError(f"{where}: expected an object")
        epoch_id = epoch.get("id")
        if not isinstance(epoch_id, str) or not epoch_id.strip():
            raise PayloadError(f"{where}: 'id' must be a non-empty string ({epoch_id!r})")
        if epoch_id in seen:
            raise PayloadError(f"{where}: epoch id {epoch_id!r} appears twice")
        seen.add(epoch_id)
        epoch_date = _date(epoch.get("date"))
        if epoch_date is None:
            raise PayloadError(f"{where}: 'date' must be YYYY-MM-DD ({epoch.get('date')!r})")
        scored = epoch.get("scored")
        if not isinstance(scored, bool):
            raise PayloadError(f"{where}: 'scored' must be true or false ({scored!r})")
        jobs = epoch.get("jobs")
        if not isinstance(jobs, list):
            raise PayloadError(f"{where}: 'jobs' must be a list")
        dates.append(epoch_date)
        for j, job in enumerate(jobs):
            checks.append(_check(source, epoch_id, scored, epoch_date, job, f"jobs[{j}]"))
    return ParseResult(build_checks=tuple(checks), published=max(dates) if dates else None)


def _date(value: Any) -> date | None:
    if isinstance(value, date):
        return value
    if not isinstance(value, str):
        return None
    try:
        return date.fromisoformat(value.strip())
    except ValueError:
        return None


def _check(source: SourceConfig, epoch: str, scored: bool, when: date, job: Any, where: str) -> BuildCheck:
    """One job -> one record; the first broken rule becomes ``excluded``."""
    if not isinstance(job, dict):
        return BuildCheck(source.name, epoch, scored, "", False, None, when,
                          excluded=f"{where}: job is not an object ({job!r})")
    model = job.get("model")
    reasons: list[str] = []
    if not isinstance(model, str) or not model.strip():
        reasons.append(f"model is missing ({model!r})")
        model = ""
    passed = job.get("passed")
    if not isinstance(passed, bool):
        reasons.append(f"passed is not true/false ({passed!r})")
        passed = False
    price, bad = check_price(job.get("price_usd"), "price_usd")
    if bad:
        reasons.append(bad)
        price = None
    return BuildCheck(
        source=source.name,
        epoch=epoch,
        scored=scored,
        model=model.strip(),
        passed=passed,
        price=price,
        date=when,
        excluded="; ".join(reasons) or None,
    )
