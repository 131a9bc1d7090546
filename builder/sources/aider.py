"""Aider polyglot leaderboard YAML -> ``<source>/polyglot`` observations.

Payload: one YAML file (``polyglot_leaderboard.yml`` in Aider-AI/aider), a list of runs
``{dirname, model, edit_format, editor_model?, reasoning_effort?, test_cases, total_tests,
pass_rate_2, pass_num_2, commit_hash, date, ...}``. Loaded with YAML *safe* loading, no
aliases and a size cap (``builder.sources.safe_yaml``: a 479-byte alias bomb would expand to
gigabytes).
The score is ``pass_rate_2`` in percent, kept exactly as published.

Run rules. A run counts only when it is a documented single-model run:

* ``edit_format`` is ``whole``, ``diff`` or ``diff-fenced`` (``architect`` is not), and no
  ``editor_model`` is named (architect/editor pairs are excluded);
* the model is not a combination (``"DeepSeek R1 + claude-3-5-sonnet"``);
* ``test_cases`` is 224 or 225;
* it has a commit and a date.

A run that breaks any rule is kept as an excluded observation whose reason lists every rule
it breaks. In the real file 65 of 69 runs pass (three architect runs and one 223-test run
fail).

Upstream quirks handled here:

* ``commit_hash`` is a bare YAML scalar, so an all-digit hash (``5318380``) loads as an int
  (and one with a leading zero could load as an octal int). The loader below keeps the
  scalar's *source text* for that key, so ``details["commit"]`` is the spelling as written.
  ``-dirty`` suffixes are kept; two hashes (``60d11a6, 93edbda``, or a YAML list) become one
  ``", "``-joined string.
* ``date`` loads as ``datetime.date`` (strings and datetimes are accepted too).
* When ``test_cases`` is 224 and ``total_tests`` 225, ``pass_rate_2`` was computed over 225;
  it is kept as published and both counts are recorded.

Same-spelling ties. Seed 004: "Aider first breaks same-spelling score ties by date, edit
format and commit spelling". Every observation carries
``details["tiebreak"] = [date_iso, edit_format, commit]`` (strings, "" when missing); among
same-spelling runs with the same ``raw``, selection prefers the greatest tiebreak list
(latest date, then greatest edit format, then greatest commit spelling), before the generic
spelling/URL tie-break.

Observation.details: ``dirname``, ``edit_format``, ``editor_model`` (None when absent),
``test_cases``, ``total_tests``, ``pass_num_2``, ``commit``, ``reasoning_effort``,
``thinking_tokens``, ``tiebreak``.
"""

from __future__ import annotations

from datetime import date, datetime
from typing import Any

import yaml

from builder.config import SourceConfig
from builder.records import Observation, ParseResult, Payload
from builder.sources.base import PayloadError, row_url
from builder.sources.safe_yaml import NoAliasLoader, check_yaml_size
from builder.sources.validate import check_score

SINGLE_MODEL_FORMATS = ("whole", "diff", "diff-fenced")
ALLOWED_TEST_CASES = (224, 225)


class _AiderLoader(NoAliasLoader):
    """Safe loader without aliases that keeps ``commit_hash`` scalars as their source text
    (``5318380`` stays a string)."""

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        mapping = super().construct_mapping(node, deep=deep)
        for key_node, value_node in node.value:
            if (
                isinstance(key_node, yaml.ScalarNode)
                and key_node.value == "commit_hash"
                and isinstance(value_node, yaml.ScalarNode)
                and value_node.tag != "tag:yaml.org,2002:null"
                and value_node.value.strip()
            ):
                mapping["commit_hash"] = value_node.value
        return mapping



def commit_spelling(value: Any) -> str | None:
    """Normalise a ``commit_hash`` value to one string: ``"a755079-dirty"``, ``"60d11a6, 93edbda"``."""
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, (list, tuple)):
        parts = [commit_spelling(v) for v in value]
        joined = ", ".join(p for p in parts if p)
        return joined or None
    text = str(value).strip()
    if not text:
        return None
    return ", ".join(p.strip() for p in text.split(",") if p.strip()) or None


def _run_date(value: Any) -> date | None:
    if isinstance(value, datetime):
        return value.date()
    if isinstance(value, date):
        return value
    if isinstance(value, str):
        try:
            return date.fromisoformat(value.strip()[:10])
        except ValueError:
            return None
    return None


def _int_or_none(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return None


def run_rule_problems(run: dict[str, Any], commit: str | None, when: date | None) -> list[str]:
    """Every seed-004 run rule this Aider run breaks (empty list: the run counts)."""
    problems: list[str] = []
    fmt = run.get("edit_format")
    model = str(run.get("model") or "")
    if run.get("editor_model") or fmt in ("architect", "editor") or run.get("editor_edit_format"):
        problems.append(f"architect/editor run (edit_format {fmt!r}, editor_model {run.get('editor_model')!r})")
    elif fmt not in SINGLE_MODEL_FORMATS:
        problems.append(f"edit_format {fmt!r} is not whole, diff or diff-fenced")
    if " + " in model:
        problems.append("combined-model run")
    test_cases = _int_or_none(run.get("test_cases"))
    if test_cases not in ALLOWED_TEST_CASES:
        problems.append(f"test_cases {run.get('test_cases')!r} is not 224 or 225")
    if commit is None:
        problems.append("no commit")
    if when is None:
        problems.append(f"no usable date ({run.get('date')!r})")
    return problems




def parse(payload: Payload, source: SourceConfig) -> ParseResult:
    """Parse the polyglot YAML: one observation per run, excluded unless it passes the run rules."""
    names = [n for n in payload.files if n.lower().endswith((".yml", ".yaml"))] or list(payload.files)
    if len(names) != 1:
        raise PayloadError(f"{payload.origin}: expected one polyglot YAML file, found {len(names)} files")
    name = names[0]
    try:
        check_yaml_size(payload.files[name], name)
    except ValueError as exc:
        raise PayloadError(str(exc)) from None
    try:
        runs = yaml.load(payload.files[name].decode("utf-8-sig"), Loader=_AiderLoader)  # noqa: S506 (a SafeLoader)
    except UnicodeDecodeError as exc:
        raise PayloadError(f"{name}: not UTF-8 text ({exc})") from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"line {mark.line + 1}: " if mark else ""
        raise PayloadError(f"{name}: {where}invalid YAML ({getattr(exc, 'problem', None) or exc})") from None
    if not isinstance(runs, list):
        raise PayloadError(f"{name}: expected a list of runs, got {type(runs).__name__}")

    url = row_url(source, payload)
    release = source.release or ""
    observations: list[Observation] = []
    for index, run in enumerate(runs, start=1):
        if not isinstance(run, dict) or not run.get("model"):
            observations.append(
                Observation(
                    source=source.name,
                    feed=f"{source.name}/polyglot",
                    evaluator=source.evaluator_id,
                    model=str(run.get("model") or f"(run {index})") if isinstance(run, dict) else f"(run {index})",
                    raw=None,
                    date=None,
                    url=url,
                    release=release,
                    percent=True,
                    details={"dirname": run.get("dirname") if isinstance(run, dict) else None},
                    excluded=f"run {index}: not a run record with a model",
                )
            )
            continue
        commit = commit_spelling(run.get("commit_hash"))
        when = _run_date(run.get("date"))
        fmt = run.get("edit_format")
        raw, problem = check_score(run.get("pass_rate_2"), percent=True)
        problems = run_rule_problems(run, commit, when)
        if problem:
            problems.append(f"pass_rate_2: {problem}")
        observations.append(
            Observation(
                source=source.name,
                feed=f"{source.name}/polyglot",
                evaluator=source.evaluator_id,
                model=str(run["model"]),
                raw=raw,
                date=when,
                url=url,
                release=release,
                percent=True,
                details={
                    "dirname": run.get("dirname"),
                    "edit_format": fmt,
                    "editor_model": run.get("editor_model"),
                    "test_cases": _int_or_none(run.get("test_cases")),
                    "total_tests": _int_or_none(run.get("total_tests")),
                    "pass_num_2": _int_or_none(run.get("pass_num_2")),
                    "commit": commit,
                    "reasoning_effort": run.get("reasoning_effort"),
                    "thinking_tokens": _int_or_none(run.get("thinking_tokens")),
                    "tiebreak": [when.isoformat() if when else "", str(fmt or ""), commit or ""],
                },
                excluded="; ".join(problems) if problems else None,
            )
        )
    return ParseResult(observations=tuple(observations))
