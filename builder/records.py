"""Typed records passed between the stages of the build.

Every stage takes and returns these frozen records; raw upstream JSON, CSV or YAML never
leaves a parser, and DataFrames never leave the function that builds them.

    fetch  -> Payload, FetchStatus
    parse  -> ParseResult (Observation, Price, BuildCheck, ModelInfo)
    select -> Observation with ``identity``, ``selected`` and ``reason`` filled in
    score  -> Snapshot (a plain JSON-able dict, see ``builder.snapshot``)
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Any


@dataclass(frozen=True, slots=True)
class Payload:
    """The raw bytes one source published, as fetched or as recorded.

    ``files`` maps a relative path (POSIX separators) to its bytes. Single-file sources
    have one entry named after the upstream file; folder-shaped sources (Terminal-Bench
    run folders, LiveBench table + categories) have one entry per file.
    """

    source: str
    files: Mapping[str, bytes]
    fetched_at: datetime
    origin: str  # URL or path the payload came from
    # Publication date from outside the payload (the upstream file's last commit) for kinds
    # whose payload carries none; None: unknown (never the fetch day).
    published: date | None = None


NOT_CONFIGURED_LIVE = "not configured for live builds (no url in site.yml)"
"""The error of a source a live build cannot fetch because it has no live URL: a setting,
not a failure (no warning; pages say "not configured for live builds")."""


@dataclass(frozen=True, slots=True)
class FetchStatus:
    """What happened when one source was fetched (stored beside its payload)."""

    source: str
    ok: bool
    http_status: int | None
    error: str | None
    bytes: int
    sha256: str | None
    fetched_at: datetime  # this attempt
    payload_fetched_at: datetime | None  # when the payload in use was fetched (None: no payload)
    origin: str
    live: bool

    def to_json(self) -> dict[str, Any]:
        return {
            "source": self.source,
            "status": "ok" if self.ok else "failed",
            "http_status": self.http_status,
            "error": self.error,
            "bytes": self.bytes,
            "sha256": self.sha256,
            "fetched_at": self.fetched_at.isoformat(),
            "payload_fetched_at": self.payload_fetched_at.isoformat() if self.payload_fetched_at else None,
            "origin": self.origin,
            "live": self.live,
        }

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> FetchStatus:
        pf = d.get("payload_fetched_at")
        return cls(
            source=d["source"],
            ok=d["status"] == "ok",
            http_status=d.get("http_status"),
            error=d.get("error"),
            bytes=int(d.get("bytes") or 0),
            sha256=d.get("sha256"),
            fetched_at=datetime.fromisoformat(d["fetched_at"]),
            payload_fetched_at=datetime.fromisoformat(pf) if pf else None,
            origin=d.get("origin", ""),
            live=bool(d.get("live", False)),
        )


@dataclass(frozen=True, slots=True)
class Observation:
    """One published score of one model on one feed.

    ``raw`` is in the feed's own unit (Arena scale for LMArena, percent for Aider, LiveBench
    and Terminal-Bench, ECI points for Epoch). ``identity`` is empty until selection folds
    the spelling. ``excluded`` is set by the parser when a row breaks a validation or run
    rule (the row is kept, never dropped); ``selected``/``reason`` are set by selection.
    """

    source: str  # site.yml source name, e.g. "livebench"
    feed: str  # e.g. "livebench/coding"; one per published category
    evaluator: str  # independent evaluator (publisher); LMArena text and coding share one
    model: str  # spelling as published
    raw: float | None  # None when the published value is not a usable number
    date: date | None  # publication or run date
    url: str
    release: str = ""  # release label for calibration grouping (e.g. "2026-01-08")
    percent: bool = False  # the raw score is a percentage and must lie in [0, 100]
    details: Mapping[str, Any] = field(default_factory=dict)  # effort, edit_format, test_cases, commit, agent, ...
    identity: str = ""
    excluded: str | None = None
    selected: bool = False
    reason: str = ""

    def replace(self, **changes: Any) -> Observation:
        return dataclasses.replace(self, **changes)


@dataclass(frozen=True, slots=True)
class Price:
    """A per-token price list entry (LiteLLM or OpenRouter), USD."""

    source: str  # "litellm" | "openrouter"
    key: str  # provider key exactly as published, e.g. "openai/gpt-5"
    model: str  # model spelling used for folding (provider prefix may remain; identity folding strips it)
    input_per_token: float | None
    output_per_token: float | None
    blended: float | None  # USD per million tokens: 1e6 * (0.75 input + 0.25 output)
    date: date | None
    identity: str = ""
    excluded: str | None = None

    def replace(self, **changes: Any) -> Price:
        return dataclasses.replace(self, **changes)


@dataclass(frozen=True, slots=True)
class BuildCheck:
    """One PirateBench job: did the model's build pass, at what list price (USD per build)."""

    source: str
    epoch: str
    scored: bool  # the epoch is scored (only the latest scored epoch counts)
    model: str
    passed: bool
    price: float | None
    date: date | None
    identity: str = ""
    excluded: str | None = None

    def replace(self, **changes: Any) -> BuildCheck:
        return dataclasses.replace(self, **changes)


@dataclass(frozen=True, slots=True)
class ModelInfo:
    """Facts about a model (curated YAML, LMArena catalog, Epoch rows)."""

    source: str
    model: str  # spelling as published
    maker: str | None = None
    licence: str | None = None
    open_weight: bool | None = None  # None: unknown; False: proprietary licence
    params_b: float | None = None  # total checkpoint parameters, billions (all experts)
    context_window: int | None = None  # tokens
    release_date: date | None = None
    lineage: str | None = None
    url: str | None = None
    identity: str = ""
    name: str | None = None  # display name as the catalog writes it ("GPT OSS 120B"); None: none given

    def replace(self, **changes: Any) -> ModelInfo:
        return dataclasses.replace(self, **changes)


@dataclass(frozen=True, slots=True)
class ParseResult:
    """Everything one payload yields."""

    observations: tuple[Observation, ...] = ()
    prices: tuple[Price, ...] = ()
    build_checks: tuple[BuildCheck, ...] = ()
    models: tuple[ModelInfo, ...] = ()
    published: date | None = None  # the payload's publication date, when it says


def known(value: float | None, what: str) -> float:
    """``value`` of a record already checked to have it (e.g. a usable observation's raw);
    a missing one is a bug in the caller, reported as ``ValueError`` naming ``what``."""
    if value is None:
        raise ValueError(f"{what} is missing")
    return float(value)
