"""Battles: the FastChat ``clean_battle`` schema and its integer-coded form.

Schema (one row per vote)::

    model_a, model_b : str        the two models shown to the voter
    winner           : str        "model_a" | "model_b" | "tie" | "tie (bothbad)", or "both_bad"
                                  (LMArena's newer vote dumps' spelling of "tie (bothbad)")
    tstamp           : float      Unix seconds, UTC (optional)
    anony            : bool       the vote was cast before the names were revealed (optional)
    language         : str        conversation language, e.g. "English" (optional)
    turn             : int        number of conversation turns (optional)
    dedup_tag        : {sampled: bool, ...}  FastChat's prompt de-duplication (optional)

Files are read by DuckDB (``builder.pairwise.scan.read_battles``): JSON arrays, JSON Lines, CSV and
Parquet, compressed or not. Model names become ``int32`` codes into ``Battles.models`` and
winners ``int8`` outcome codes, 17 bytes a battle.

Bad rows are counted by kind and dropped, never fatal: ``missing_model`` (a side empty,
null or not a string), ``same_model`` (one model on both sides), ``unknown_winner``
(anything outside ``WINNER_CODES``). Each row is counted under the first kind it matches, in
that order. Filters then run in a fixed order (anony, dedup, language, min_date, max_date,
min_turn, category) and each reports how many of the rows still present it removed. A file without
rows, without any row left, or without a required column is a ``UserError`` naming the file.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

from builder.util.io import compact_json

OUTCOMES: tuple[str, ...] = ("model_a", "model_b", "tie", "tie (bothbad)")
"Outcome codes are positions in this tuple: 0 A wins, 1 B wins, 2 tie, 3 tie (both bad)."
WIN_A, WIN_B, TIE, TIE_BOTHBAD = 0, 1, 2, 3

WINNER_CODES: Mapping[str, int] = {**{name: code for code, name in enumerate(OUTCOMES)}, "both_bad": TIE_BOTHBAD}
"""Winner text -> outcome code, as every fit reads it (exact match); anything else is unknown_winner.
``both_bad`` (LMArena's vote dumps) is the same outcome as FastChat's ``tie (bothbad)``."""

REQUIRED = ("model_a", "model_b", "winner")
OPTIONAL = ("tstamp", "anony", "language", "turn", "dedup_tag")
BAD_KINDS = ("missing_model", "same_model", "unknown_winner")
VOTER_COLUMNS = ("judge", "session_id", "sess_id", "voter", "user_id")
"Columns that name the voter in battle dumps (FastChat's ``judge``, a session id), first present wins."


@dataclass(frozen=True, slots=True)
class CategoryRule:
    """Which battles a category board counts: every criterion given holds (they are ANDed).

    ``tag``: keys from the top of the battle's ``category_tag`` object (LMArena's tags, e.g.
    ``("math_v0.1", "math")``); the value there must be JSON ``true``, or with
    ``tag_min_true`` an object with at least that many members equal to ``true`` (Hard
    Prompts: at least 6 of the 7 ``criteria_v0.1`` flags). ``language``: exact match;
    ``is_code``: the ``is_code`` flag (a missing flag is false); ``min_turn``: ``turn`` at
    least this (multi-turn: 2); ``min_user_tokens``: ``conv_metadata.sum_user_tokens`` at least
    this (Longer Query). A battle without the value a criterion reads is not in the category.
    """

    tag: tuple[str, ...] | None = None
    tag_min_true: int | None = None
    language: str | None = None
    is_code: bool | None = None
    min_turn: int | None = None
    min_user_tokens: float | None = None

    def columns(self) -> tuple[str, ...]:
        """Top-level battle columns the rule reads."""
        cols = []
        if self.tag is not None:
            cols.append("category_tag")
        if self.language is not None:
            cols.append("language")
        if self.is_code is not None:
            cols.append("is_code")
        if self.min_turn is not None:
            cols.append("turn")
        if self.min_user_tokens is not None:
            cols.append("conv_metadata")
        return tuple(cols)

    def describe(self) -> str:
        """The rule in words, for the page."""
        parts = []
        if self.tag is not None:
            path = "category_tag." + ".".join(self.tag)
            parts.append(f"at least {self.tag_min_true} flags true in {path}" if self.tag_min_true is not None
                         else f"{path} is true")
        if self.language is not None:
            parts.append(f"language is {self.language}")
        if self.is_code is not None:
            parts.append("is_code is " + ("true" if self.is_code else "false"))
        if self.min_turn is not None:
            parts.append(f"at least {self.min_turn} turns")
        if self.min_user_tokens is not None:
            parts.append(f"user prompt of at least {self.min_user_tokens:g} tokens (conv_metadata.sum_user_tokens)")
        return "; ".join(parts) or "every battle"


@dataclass(frozen=True, slots=True)
class BattleFilters:
    """Which votes to keep. Every filter is off by default.

    ``official``: LMArena's published method, applied where the file can say it: anonymous
    votes only when the file has an ``anony`` column, and duplicate-tagged prompts dropped
    (``dedup_tag.sampled`` not true) when it has a ``dedup_tag`` column. ``resolve`` turns it
    into the explicit filters for one file; the explicit ``anony_only`` / ``dedup_sampled``
    require their column.
    """

    anony_only: bool = False  # keep anonymous (blind) votes only
    dedup_sampled: bool = False  # keep rows whose dedup_tag.sampled is true
    language: str | None = None  # keep this conversation language only (exact match)
    min_date: dt.date | None = None  # keep votes on or after this UTC day
    max_date: dt.date | None = None  # keep votes on or before this UTC day (inclusive)
    min_turn: int | None = None  # keep conversations with at least this many turns
    official: bool = False  # anony_only and dedup_sampled wherever the file has the column
    category: CategoryRule | None = None  # keep one category's battles (runs after every other filter)
    models: str | None = None  # keep battles whose two model names both match this regular expression
    voter_daily_cap: int | None = None  # keep each voter's first N votes of each UTC day (file order)
    anomaly_fpr: float | None = None  # drop anomalous voters at this false-positive rate (see BattleScan)
    anomaly_min_votes: int = 20  # fewest decisive votes a voter needs to be tested
    voter_column: str | None = None  # the column naming the voter (resolve: the first of VOTER_COLUMNS present)

    def resolve(self, present: frozenset[str] | set[str]) -> BattleFilters:
        """The explicit filters for a file with columns ``present`` (``official`` folded in)."""
        out = self
        if (self.voter_daily_cap is not None or self.anomaly_fpr is not None) and self.voter_column is None:
            # the safeguards are off when the dump names no voter
            out = replace(out, voter_column=next((c for c in VOTER_COLUMNS if c in present), None))
        if not out.official:
            return out
        return replace(out, official=False, anony_only=self.anony_only or "anony" in present,
                       dedup_sampled=self.dedup_sampled or "dedup_tag" in present)

    def voter_columns(self) -> tuple[str, ...]:
        """Columns that may name the voter, when a voter safeguard is asked for."""
        if self.voter_daily_cap is None and not self.anomaly_fpr is not None:
            return ()
        return (self.voter_column,) if self.voter_column else VOTER_COLUMNS

    def official_columns(self) -> tuple[str, ...]:
        """Columns the official filters read when the file has them."""
        return ("anony", "dedup_tag") if self.official else ()

    def needed_columns(self) -> dict[str, str]:
        """Column -> the filter that needs it."""
        need: dict[str, str] = {}
        if self.anony_only:
            need["anony"] = "anony_only"
        if self.dedup_sampled:
            need["dedup_tag"] = "dedup_sampled"
        if self.language is not None:
            need["language"] = "language"
        if self.min_date is not None or self.max_date is not None:
            need["tstamp"] = "min_date/max_date"
        if self.min_turn is not None:
            need["turn"] = "min_turn"
        return need

    def to_json(self) -> dict[str, Any]:
        return {
            "anony_only": self.anony_only,
            "dedup_sampled": self.dedup_sampled,
            "language": self.language,
            "min_date": self.min_date.isoformat() if self.min_date else None,
            "max_date": self.max_date.isoformat() if self.max_date else None,
            "min_turn": self.min_turn,
            "official": self.official,
            "category": None if self.category is None else self.category.describe(),
            "models": self.models,
            "voter_daily_cap": self.voter_daily_cap,
            "voter_column": self.voter_column,
        }


@dataclass(frozen=True, slots=True)
class BattleReport:
    """What reading one battles file did: rows read, bad rows by kind, rows each filter removed."""

    source: str  # file name
    rows_read: int
    bad_rows: Mapping[str, int]  # kind -> rows (every kind in BAD_KINDS, zeros included)
    removed: Mapping[str, int]  # filter name -> rows removed (only the filters that ran)
    rows_kept: int

    def to_json(self) -> dict[str, Any]:
        return {
            "source": self.source,
            "rows_read": self.rows_read,
            "bad_rows": dict(self.bad_rows),
            "removed": dict(self.removed),
            "rows_kept": self.rows_kept,
        }


@dataclass(frozen=True, eq=False, slots=True)
class Battles:
    """Integer-coded battles, in file order.

    ``model_a``/``model_b``: int32 codes into ``models``, shape (n,); ``outcome``: int8
    codes into ``OUTCOMES``, shape (n,); ``tstamp``: float64 Unix seconds, shape (n,), NaN
    where a row had none, or None when the file has no timestamps.
    """

    models: tuple[str, ...]
    model_a: np.ndarray
    model_b: np.ndarray
    outcome: np.ndarray
    tstamp: np.ndarray | None
    report: BattleReport = field(
        default_factory=lambda: BattleReport("", 0, dict.fromkeys(BAD_KINDS, 0), {}, 0)
    )

    def __len__(self) -> int:
        return int(self.model_a.shape[0])

    def in_time_order(self) -> bool:
        """True when file order is already chronological (rows without a time last)."""
        if self.tstamp is None:
            return True
        return bool(_time_order_check()(np.ascontiguousarray(self.tstamp, dtype=np.float64)))

    def chronological(self) -> np.ndarray:
        """Row order by timestamp (stable: file order breaks ties and orders rows without one)."""
        if self.tstamp is None:
            return np.arange(len(self))
        key = np.where(np.isnan(self.tstamp), np.inf, self.tstamp)
        return np.argsort(key, kind="stable")

    def take(self, rows: np.ndarray) -> Battles:
        """The battles at ``rows`` (same model table and report)."""
        return Battles(
            self.models,
            self.model_a[rows],
            self.model_b[rows],
            self.outcome[rows],
            None if self.tstamp is None else self.tstamp[rows],
            self.report,
        )


def write_battles_jsonl(rows: Iterator[Mapping[str, Any]] | list[Mapping[str, Any]], path: str | Path) -> int:
    """Write battle dicts as compact JSON Lines (UTF-8); returns the number of rows."""
    path = Path(path)
    n = 0
    with path.open("w", encoding="utf-8") as f:
        for row in rows:
            f.write(compact_json(row))
            n += 1
    return n


__all__ = [
    "BAD_KINDS",
    "OUTCOMES",
    "WINNER_CODES",
    "BattleFilters",
    "BattleReport",
    "Battles",
    "CategoryRule",
    "write_battles_jsonl",
]


_compiled: list[Any] = []


def _time_order_check() -> Any:
    """The compiled ``_in_time_order`` (numba is imported on first use: reading and counting
    battles never needs it)."""
    if not _compiled:
        from numba import njit

        _compiled.append(njit(cache=True, nogil=True)(_in_time_order))  # the Elo fit runs it beside its own loop
    return _compiled[0]


def _in_time_order(t: np.ndarray) -> bool:  # pragma: no cover - compiled
    """Non-decreasing times, then only missing ones (NaN) to the end.

    Branch-free over the timed part (it vectorises: about 0.15 ms per million rows)."""
    m = t.shape[0]
    while m > 0 and np.isnan(t[m - 1]):
        m -= 1
    if m > 0 and np.isnan(t[0]):
        return False
    bad = 0
    for q in range(1, m):
        x = t[q]
        bad += (x < t[q - 1]) | (x != x)  # out of order, or missing before a time
    return bad == 0
