"""Choose one configuration per source, feed and model: one observation counts per model.

For every (source, feed, identity) the selected observation is the one that maximises

    (raw, date, model spelling, URL)            compared in that order, greater wins

among the rows that are not excluded: the highest published raw score rather than an
average over reasoning efforts; on a raw tie the latest publication date, then the
lexicographically greatest spelling (as published, before folding), then the greatest URL.
Rows that compare equal on all four keep input order (the first wins). Identities come
from ``builder.identity.identity_maps`` over every source at once (with the shipped and the
site's identity registry and ``site.yml: aliases``), so effort suffixes fold into the base,
a lone dated release folds into the base when no source names another dated release of it,
and versions, tiers, sizes and checkpoint ids stay apart. The chosen spelling can differ
between sources.

Two per-source steps run before that rule, within one spelling:

* Aider: rows of one spelling with the same raw score are first decided by the parser's
  ``details["tiebreak"]`` (a list of strings, e.g. ``[date, edit_format, commit]``, compared
  lexicographically, greater wins).
* kinds that declare the ``latest_run`` selection step (Terminal-Bench): among rows of one
  spelling the latest date wins, then the greatest URL ("the latest date and URL win before
  configuration selection"). Same-spelling runs naming different agents or agent versions
  on the latest date are already excluded by the parser.

Selection is pure: observations in, the same observations out (same order, same count),
each with ``identity``, ``selected`` and ``reason`` filled in. Every row that does not
count says why, naming the row that won; this is what ``modelboards select`` prints.
"""

from __future__ import annotations

import csv
import datetime as dt
import json
import math
from collections import defaultdict
from collections.abc import Iterable, Sequence
from typing import Any, TextIO, TypeVar

from builder.config import SiteConfig
from builder.errors import UserError
from builder.identity import alias_table, identity_maps
from builder.records import Observation
from builder.sources.registry import spec_or_none
from builder.util.text import neutralise_formula

SELECT_COLUMNS = (
    "source", "feed", "evaluator", "model", "identity", "raw", "date", "url", "selected", "reason",
)
"Columns of ``modelboards select``, in order."

R = TypeVar("R")


# --------------------------------------------------------------------------- identities


def spellings(*groups: Iterable[Any]) -> list[tuple[str, str]]:
    """``(source, spelling)`` of every record in ``groups``: the context of ``identify``."""
    return [(r.source, r.model) for g in groups for r in g]


def identify(records: Iterable[R], cfg: SiteConfig, context: Iterable[tuple[str, str]] = ()) -> list[R]:
    """Set ``identity`` on Price / BuildCheck / ModelInfo / Observation records.

    Any record with ``.source``, ``.model`` and ``.replace(identity=...)`` works. Folding
    runs per source; the date rule counts dated releases across these records' sources, or,
    when ``context`` is given (``(source, spelling)`` of the build's rated observations),
    across the context's sources, so one build folds prices and ratings alike. Returns a new
    list in input order.
    """
    items = list(records)
    pairs = list(context)
    by_source: dict[str, list[str]] = defaultdict(list)
    for r in items:
        by_source[r.source].append(r.model)  # type: ignore[attr-defined]
    for source, spelling in pairs:
        by_source[source].append(spelling)
    rated = {source for source, _ in pairs} if pairs else None
    maps = identity_maps(by_source, cfg.folding, alias_table(cfg), rated)
    return [r.replace(identity=maps[r.source][r.model]) for r in items]  # type: ignore[attr-defined]


# --------------------------------------------------------------------------- selection


def _day(o: Observation) -> dt.date:
    return o.date or dt.date.min


def _rank_key(o: Observation) -> tuple[float, dt.date, str, str]:
    assert o.raw is not None
    return (o.raw, _day(o), o.model, o.url)


def _fmt_raw(x: float | None) -> str:
    return "none" if x is None else repr(float(x))


def _fmt_day(d: dt.date | None) -> str:
    return d.isoformat() if d else "no date"


def _why_lost(loser: Observation, winner: Observation) -> str:
    """Why ``loser`` ranks below ``winner`` under (raw, date, spelling, URL)."""
    assert loser.raw is not None and winner.raw is not None
    if loser.raw != winner.raw:
        return f"lower raw than {winner.model} ({_fmt_raw(loser.raw)} < {_fmt_raw(winner.raw)})"
    if _day(loser) != _day(winner):
        return (f"same raw as {winner.model} ({_fmt_raw(winner.raw)}), older date "
                f"({_fmt_day(loser.date)} < {_fmt_day(winner.date)})")
    if loser.model != winner.model:
        return (f"same raw and date as {winner.model}, lexicographically smaller spelling "
                f"({loser.model!r} < {winner.model!r})")
    if loser.url != winner.url:
        return (f"same raw, date and spelling as {winner.model} at {winner.url}, smaller URL "
                f"({loser.url!r} < {winner.url!r})")
    return f"duplicate of the selected {winner.model} row (same raw, date, spelling and URL)"


def _latest_run_step(
    rows: list[int], obs: list[Observation], verdict: dict[int, tuple[bool, str]]
) -> list[int]:
    """Per spelling, the latest date wins, then the greatest URL (before configuration selection).

    Incompatible runs (different agents or agent versions on a spelling's latest date) are
    excluded by the parser (``builder.sources.terminal_bench``) and never reach this step.
    Returns the surviving row indices (one per spelling).
    """
    by_spelling: dict[str, list[int]] = defaultdict(list)
    for i in rows:
        by_spelling[obs[i].model].append(i)
    survivors: list[int] = []
    for spelling, idx in by_spelling.items():
        win = idx[0]
        for i in idx[1:]:
            if (_day(obs[i]), obs[i].url) > (_day(obs[win]), obs[win].url):
                win = i
        survivors.append(win)
        w = obs[win]
        for i in idx:
            if i == win:
                continue
            if _day(obs[i]) != _day(w):
                why = (f"older run of the same spelling than {w.url} "
                       f"({_fmt_day(obs[i].date)} < {_fmt_day(w.date)}); the latest run wins "
                       f"before configuration selection")
            elif obs[i].url != w.url:
                why = (f"same spelling and date as {w.url}, smaller URL "
                       f"({obs[i].url!r} < {w.url!r}); the latest run wins before configuration selection")
            else:
                why = f"duplicate of the {spelling} run at {w.url}"
            verdict[i] = (False, why)
    return sorted(survivors)


def _tiebreak_step(
    rows: list[int], obs: list[Observation], verdict: dict[int, tuple[bool, str]]
) -> list[int]:
    """Aider: same spelling and same raw -> greatest ``details["tiebreak"]`` wins."""
    groups: dict[tuple[str, float], list[int]] = defaultdict(list)
    for i in rows:
        groups[(obs[i].model, float(obs[i].raw))].append(i)  # type: ignore[arg-type]
    survivors: list[int] = []
    for (spelling, raw), idx in groups.items():
        if len(idx) == 1 or not any("tiebreak" in obs[i].details for i in idx):
            survivors.extend(idx)
            continue

        def tb(i: int) -> list[str]:
            return [str(v) for v in obs[i].details.get("tiebreak") or []]

        win = idx[0]
        for i in idx[1:]:
            if tb(i) > tb(win):
                win = i
        survivors.append(win)
        for i in idx:
            if i == win:
                continue
            if tb(i) == tb(win):
                # Equal tiebreaks too: leave both to the general rule (date, URL).
                survivors.append(i)
                continue
            verdict[i] = (False, (
                f"same raw as the {spelling} run at {obs[win].url} ({_fmt_raw(raw)}); loses the "
                f"Aider same-spelling tiebreak (date, edit format, commit): {tb(i)} < {tb(win)}"
            ))
    return sorted(survivors)


_SELECT_STEPS = {"latest_run": _latest_run_step}
"The selection steps a kind may declare (``SourceKindSpec.select_step``), by name."


def _select_step(cfg: SiteConfig, name: str) -> str | None:
    """The selection step the kind of source ``name`` declares (None: none, or no such source)."""
    try:
        spec = spec_or_none(cfg.source(name))
    except KeyError:
        return None
    return spec.select_step if spec is not None else None


def select_observations(observations: Sequence[Observation], cfg: SiteConfig,
                        context: Iterable[tuple[str, str]] = ()) -> list[Observation]:
    """Fill in ``identity``, ``selected`` and ``reason`` on every observation.

    ``observations``: every parsed observation, any sources and feeds, excluded rows
    included. Returns a list of the same length and order. Within each (source, feed,
    identity) at most one row has ``selected=True`` (none when every row is excluded).
    A selected row's reason says how many rows it was chosen from; every other row's
    reason says why it does not count: its exclusion, or which row beat it and on which
    key. ``context``: the rated ``(source, spelling)`` pairs for the date rule (``identify``).
    """
    obs = identify(observations, cfg, context)
    groups: dict[tuple[str, str, str], list[int]] = defaultdict(list)
    for i, o in enumerate(obs):
        groups[(o.source, o.feed, o.identity)].append(i)

    verdict: dict[int, tuple[bool, str]] = {}  # row index -> (selected, reason)
    for (source, _feed, _identity), idx in groups.items():
        rows: list[int] = []
        for i in idx:
            o = obs[i]
            if o.excluded:
                verdict[i] = (False, f"excluded: {o.excluded}")
            elif o.raw is None or not math.isfinite(o.raw):
                verdict[i] = (False, "no usable raw score")
            else:
                rows.append(i)
        step = _select_step(cfg, source)
        if step is not None:
            rows = _SELECT_STEPS[step](rows, obs, verdict)
        rows = _tiebreak_step(rows, obs, verdict)
        if not rows:
            continue
        win = rows[0]
        for i in rows[1:]:
            if _rank_key(obs[i]) > _rank_key(obs[win]):
                win = i
        for i in rows:
            if i != win:
                verdict[i] = (False, _why_lost(obs[i], obs[win]))
        n = len(idx)
        verdict[win] = (True, "selected: only row for this identity" if n == 1 else
                        f"selected: best of {n} rows for {obs[win].identity} in {obs[win].feed}")

    return [o.replace(selected=verdict[i][0], reason=verdict[i][1]) for i, o in enumerate(obs)]


# --------------------------------------------------------------------------- the select table


def select_rows(observations: Iterable[Observation]) -> list[dict[str, Any]]:
    """The rows of ``modelboards select``: one dict per observation, keys ``SELECT_COLUMNS``.

    ``raw`` is a float in the feed's unit, or None when missing or not finite (the reason
    then quotes the published value); ``date`` is ISO ``YYYY-MM-DD`` or None; ``selected``
    is a bool.
    """
    rows = []
    for o in observations:
        raw = o.raw if o.raw is not None and math.isfinite(o.raw) else None
        rows.append({
            "source": o.source,
            "feed": o.feed,
            "evaluator": o.evaluator,
            "model": o.model,
            "identity": o.identity,
            "raw": raw,
            "date": o.date.isoformat() if o.date else None,
            "url": o.url,
            "selected": bool(o.selected),
            "reason": o.reason,
        })
    return rows


def write_select(rows: Sequence[dict[str, Any]], fmt: str, stream: TextIO) -> None:
    """Write select rows as ``json`` (an array of objects) or ``csv`` (header + rows).

    CSV writes booleans as ``true``/``false``, None as an empty cell, and text that a
    spreadsheet would run as a formula with a leading apostrophe (as the site's CSVs do).
    """
    if fmt == "json":
        json.dump([{k: r[k] for k in SELECT_COLUMNS} for r in rows], stream, indent=2,
                  ensure_ascii=False, allow_nan=False)
        stream.write("\n")
    elif fmt == "csv":
        writer = csv.writer(stream, lineterminator="\n")
        writer.writerow(SELECT_COLUMNS)
        for r in rows:
            cells = []
            for k in SELECT_COLUMNS:
                v = r[k]
                if isinstance(v, str):  # upstream text: never a formula for a spreadsheet
                    v = neutralise_formula(v)
                cells.append("true" if v is True else "false" if v is False else "" if v is None else v)
            writer.writerow(cells)
    else:
        raise UserError(f"--format: unknown select format {fmt!r} (expected json or csv)")
