"""The battle rules, defined once and rendered as SQL in two dialects: DuckDB and Spark SQL.

A battle's *fate* is the first filter that removes it, in this fixed order (0: none)::

    anony      NOT flag(anony)                                   (FastChat: anonymous votes only)
    dedup      NOT dedup_tag.sampled                             (prompt de-duplication)
    language   text(language) IS DISTINCT FROM the language
    min_date   NOT coalesce(t >= the day's first second, false)  (t: tstamp as a number)
    max_date   NOT coalesce(t < the next day's first second, false)
    min_turn   coalesce(integer(turn), -1) < the minimum
    models     NOT coalesce(both names match the regular expression, false)
    category   NOT coalesce(the category's criteria, ANDed, false)  (``CategoryRule``)

and after these the voter safeguards that need the whole file: the daily cap (of each
voter's votes still kept on one UTC day, the first N in file order stay: ``voter_cap_rank``)
and, on the DuckDB reader, the anomalous-voter test.

What a value *is* depends on the engine and the file (a JSON number, a Parquet integer, a
CSV field); a ``Dialect`` renders the primitives: ``text`` (a string, else NULL), ``number``
(a finite or infinite number, never text read as one), ``integer`` (a number truncated
towards zero), ``flag`` (true only for a true boolean, or for text ``true``/``1`` where the
file has no booleans), ``sampled`` (``dedup_tag.sampled`` true), ``tag_true`` /
``tag_true_members`` (a ``category_tag`` value is true / how many members of an object are
true) and ``meta_number`` (a number in ``conv_metadata``). The rules above are written once
here over those primitives: the DuckDB reader (``builder.pairwise.scan``) and the Spark
reader (``builder.pairwise.spark``) each bring a dialect and run the same rules.
"""

from __future__ import annotations

from typing import Protocol

from builder.errors import UserError
from builder.pairwise.battles import REQUIRED, BattleFilters, CategoryRule

FILTER_STATUS: dict[str, int] = {
    "anony": 4,
    "dedup": 5,
    "language": 6,
    "min_date": 7,
    "max_date": 8,
    "min_turn": 9,
    "category": 10,
    "voter_cap": 11,
    "anomalous_voter": 12,
    "models": 13,
}
"Row fate code of each filter (after the bad kinds 1-3), in the order the filters run."


class Dialect(Protocol):
    """One engine's SQL for the primitive readings of a battle's columns (see the module docstring)."""

    def text(self, name: str) -> str: ...
    def number(self, name: str) -> str: ...
    def integer(self, name: str) -> str: ...
    def flag(self, name: str) -> str: ...
    def sampled(self) -> str: ...
    def tag_true(self, path: tuple[str, ...]) -> str: ...
    def tag_true_members(self, path: tuple[str, ...]) -> str: ...
    def meta_number(self, key: str) -> str: ...
    def regex(self, expr: str, pattern: str) -> str: ...
    def string(self, value: str) -> str: ...


def sql_string(value: str) -> str:
    """A single-quoted SQL string literal (both dialects double the quote)."""
    return "'" + value.replace("'", "''") + "'"


def fate_sql(d: Dialect, filters: BattleFilters, t_min: float | None, t_max: float | None, t: str) -> str:
    """``CASE WHEN ... THEN code ... ELSE 0 END``: the first filter that removes the row (``t``:
    the row's time in Unix seconds, NULL when it has none)."""
    fates = []
    if filters.anony_only:
        fates.append(f"WHEN NOT {d.flag('anony')} THEN {FILTER_STATUS['anony']}")
    if filters.dedup_sampled:
        fates.append(f"WHEN NOT {d.sampled()} THEN {FILTER_STATUS['dedup']}")
    if filters.language is not None:
        fates.append(f"WHEN NOT coalesce({d.text('language')} = {d.string(filters.language)}, false) "
                     f"THEN {FILTER_STATUS['language']}")
    if t_min is not None:
        fates.append(f"WHEN NOT coalesce({t} >= {t_min!r}, false) THEN {FILTER_STATUS['min_date']}")
    if t_max is not None:
        fates.append(f"WHEN NOT coalesce({t} < {t_max!r}, false) THEN {FILTER_STATUS['max_date']}")
    if filters.min_turn is not None:
        fates.append(f"WHEN coalesce({d.integer('turn')}, -1) < {int(filters.min_turn)} "
                     f"THEN {FILTER_STATUS['min_turn']}")
    if filters.models is not None:
        fates.append(f"WHEN NOT coalesce({d.regex(d.text('model_a'), filters.models)} "
                     f"AND {d.regex(d.text('model_b'), filters.models)}, false) THEN {FILTER_STATUS['models']}")
    if filters.category is not None:
        fates.append(f"WHEN NOT coalesce({category_sql(d, filters.category)}, false) "
                     f"THEN {FILTER_STATUS['category']}")
    return f"CASE {' '.join(fates)} ELSE 0 END" if fates else "0"


def category_sql(d: Dialect, rule: CategoryRule) -> str:
    """SQL true for a battle in the category (``CategoryRule``), NULL or false otherwise."""
    conds = []
    if rule.tag is not None:
        if rule.tag_min_true is not None:
            conds.append(f"{d.tag_true_members(rule.tag)} >= {int(rule.tag_min_true)}")
        else:
            conds.append(d.tag_true(rule.tag))
    if rule.language is not None:
        conds.append(f"{d.text('language')} = {d.string(rule.language)}")
    if rule.is_code is not None:
        conds.append(f"{d.flag('is_code')} = {'true' if rule.is_code else 'false'}")
    if rule.min_turn is not None:
        conds.append(f"{d.integer('turn')} >= {int(rule.min_turn)}")
    if rule.min_user_tokens is not None:
        conds.append(f"{d.meta_number('sum_user_tokens')} >= {float(rule.min_user_tokens)!r}")
    return "(" + " AND ".join(conds) + ")" if conds else "true"


def voter_cap_rank(pos: str, voter: str = "v", t: str = "t") -> str:
    """The rank of a vote among its voter's kept votes of the same UTC day, in file order
    (``pos``); votes without a time form one more "day". Ranks past the cap get the ``voter_cap``
    fate; votes without a voter are not capped."""
    return f"row_number() OVER (PARTITION BY {voter}, floor({t} / 86400.0) ORDER BY {pos})"


def enabled_filters(filters: BattleFilters) -> list[str]:
    """The filters that run (report keys), in ``FILTER_STATUS`` order of the report."""
    on = []
    if filters.anony_only:
        on.append("anony")
    if filters.dedup_sampled:
        on.append("dedup")
    if filters.language is not None:
        on.append("language")
    if filters.min_date is not None:
        on.append("min_date")
    if filters.max_date is not None:
        on.append("max_date")
    if filters.min_turn is not None:
        on.append("min_turn")
    if filters.category is not None:
        on.append("category")
    if filters.models is not None:
        on.append("models")
    if filters.voter_column is not None and filters.voter_daily_cap is not None:
        on.append("voter_cap")
    return on


__all__ = ["FILTER_STATUS", "Dialect", "category_sql", "enabled_filters", "fate_sql", "sql_string",
           "voter_cap_rank"]


def check_columns(where: str, present: frozenset[str], filters: BattleFilters) -> None:
    """UserError (one line, ``where`` first) when the dump lacks a column every battle needs or
    one an enabled filter reads; the same check for every engine."""
    for col in REQUIRED:
        if col not in present:
            raise UserError(f"{where} has no column {col!r} (needs model_a, model_b, winner)")
    for col, flt in filters.needed_columns().items():
        if col not in present:
            raise UserError(f"{where} has no column {col!r}, which the {flt} filter needs")
