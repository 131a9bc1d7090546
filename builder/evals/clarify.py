"""Clarification-quality metrics TKQR (turn-discounted key question rate) and ORA, and their EvalRun records.

A run record describes one coding task in which the model could ask clarifying questions
before writing code. With K annotated key questions and R model responses (the last one
is the code), the model asked n = R - 1 question rounds.

TKQR (turn-discounted key question rate), a normalised DCG over the hit sequence h (h_i = 1
when turn i asked a key question not covered before), padded with zeros up to R:

    DCG  = sum_{i=1..len(h)} h_i / log2(i + 1)
    IDCG = sum_{i=1..min(len(h), K)} 1 / log2(i + 1)
    TKQR = DCG / IDCG, and 0 when h is empty, K <= 0 or IDCG = 0;
    special case: K = 0 and R = 1 (coded at once, nothing to ask) scores 1.

ORA (optimal round adherence), a Gaussian penalty on asking more or fewer rounds than K:

    ORA = exp(-(n - K)^2 / (2 sigma^2)),  sigma = 0.425 K  (0.3 when K = 0)

(0.425 K ~ 0.5 K / sqrt(2 ln 2): ORA = 1/2 when |n - K| = K / 2.) Per record also
turns = n and diff = n - K.

Where the numbers come from in a record (JSON object, one per line of a ``.jsonl`` file):
- K: ``key_question_num`` when present and not null, else the length of ``qa_pairs``;
- R: ``turns`` when present and not null, else the length of ``response_contents``,
  else the number of ``messages`` with role ``assistant``, else the size of ``hit_dict``;
- h: ``hit_dict`` maps turn indices ("0", "1", ...) to 0/1; it is read for the indices
  0 .. len(hit_dict) - 1 that are present (so, as in the seed, keys outside that range
  are ignored), then padded with zeros to R.

The averages over a set of paths (files, or folders searched recursively for ``.jsonl``)
are plain means over every record, so repeated runs of the same tasks (``seed1.jsonl``,
``seed2.jsonl``, or one run directory per repetition) are averaged together; no record at
all is an error.

A record with more hits than key questions scores TKQR above 1 (DCG exceeds IDCG). It is
computed as the formula says and averaged like any other, and counted (``tkqr_above_one``)
so the report can flag it. The per-model TKQR / ORA boards (bootstrap over tasks, scores in
[0, 1]) take one score per model and task: the mean over its repeated runs, each run's TKQR
capped at 1 there.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from builder.errors import UserError
from builder.evals.records import ClarifyScore, ClarifySummary, EvalRun

ORA_SIGMA_PER_KEY = 0.425
ORA_SIGMA_NO_KEYS = 0.3
METRIC_TKQR = "tkqr"
METRIC_ORA = "ora"


# --------------------------------------------------------------------------- the two metrics


def compute_tkqr(hits: Sequence[int], key_questions: int) -> float:
    """TKQR of one hit sequence (0/1 per model response) against K key questions, in [0, 1]."""
    n = len(hits)
    if n == 0 or key_questions <= 0:
        return 0.0
    dcg = sum(h / math.log2(i + 2) for i, h in enumerate(hits))
    idcg = sum(1.0 / math.log2(i + 2) for i in range(min(n, key_questions)))
    return dcg / idcg if idcg else 0.0


def ora_sigma(key_questions: int) -> float:
    """Gaussian scale of ORA, in rounds: 0.425 K, or 0.3 when K <= 0."""
    return ORA_SIGMA_NO_KEYS if key_questions <= 0 else ORA_SIGMA_PER_KEY * key_questions


def compute_ora(rounds: int, key_questions: int, sigma: float | None = None) -> float:
    """ORA of asking ``rounds`` question rounds for K key questions, in (0, 1]; 1 when equal.

    Raises ValueError for negative counts or a non-positive sigma.
    """
    if rounds < 0 or key_questions < 0:
        raise ValueError("rounds and key questions must be non-negative")
    s = ora_sigma(key_questions) if sigma is None else sigma
    if s <= 0:
        raise ValueError("sigma must be positive")
    return math.exp(-((rounds - key_questions) ** 2) / (2.0 * s * s))


# --------------------------------------------------------------------------- one record


def response_count(record: Mapping[str, Any]) -> int:
    """R: the number of model responses, the final code turn included."""
    if record.get("turns") is not None:
        return int(record["turns"])
    if record.get("response_contents") is not None:
        return len(record["response_contents"])
    if "messages" in record:
        return sum(1 for m in record["messages"] or () if isinstance(m, Mapping) and m.get("role") == "assistant")
    return len(record.get("hit_dict") or {})


def key_question_count(record: Mapping[str, Any]) -> int:
    """K: ``key_question_num``, else the number of ``qa_pairs``."""
    if record.get("key_question_num") is not None:
        return int(record["key_question_num"])
    return len(record.get("qa_pairs") or [])


def hit_sequence(record: Mapping[str, Any]) -> list[int]:
    """The hit sequence read from ``hit_dict`` in turn order, padded with zeros to R."""
    hit_dict = record.get("hit_dict") or {}
    seq = [int(hit_dict[str(i)]) for i in range(len(hit_dict)) if str(i) in hit_dict]
    r = response_count(record)
    return seq + [0] * (r - len(seq)) if r > len(seq) else seq


def score_clarify_record(record: Mapping[str, Any]) -> dict[str, float]:
    """Seed 002's per-record numbers: ``{"tkqr", "ora", "turns", "diff"}``.

    Raises ValueError / TypeError for a record whose fields are not usable numbers
    (the reader turns it into a UserError naming file and line).
    """
    k = key_question_count(record)
    r = response_count(record)
    tkqr = compute_tkqr(hit_sequence(record), k)
    if k == 0 and r == 1:
        tkqr = 1.0  # nothing to ask and the model coded at once: a perfect score
    rounds = r - 1
    return {"tkqr": tkqr, "ora": compute_ora(rounds, k), "turns": float(rounds), "diff": float(rounds - k)}


# --------------------------------------------------------------------------- run directories


def find_clarify_files(paths: Iterable[str | Path]) -> list[tuple[Path, Path]]:
    """``[(file, run_root)]``: files as given, folders searched recursively (sorted) for ``.jsonl``.

    ``run_root`` is the folder the model name and fallback task ids are taken from (see
    ``read_clarify_scores``). A path that does not exist is an error.
    """
    out: list[tuple[Path, Path]] = []
    for p in map(Path, paths):
        if p.is_dir():
            for f in sorted(x for x in p.rglob("*.jsonl") if x.is_file()):
                rel = f.relative_to(p)
                # clarify/<model>/runs.jsonl given "clarify": the run directory is <model>.
                out.append((f, p / rel.parts[0] if len(rel.parts) > 1 else p))
        elif p.is_file():
            out.append((p, p.parent))
        else:
            raise UserError(f"{p}: no such file or folder")
    return out


def read_clarify_scores(paths: Iterable[str | Path], model: str | None = None) -> tuple[ClarifyScore, ...]:
    """Score every record under ``paths``.

    The model is ``model`` when given, else the run directory's name: the folder holding
    a file passed directly; for a folder passed, its immediate subfolder containing the
    file (``clarify/gpt-6/a.jsonl`` -> ``gpt-6``), or the folder itself for files directly
    inside it. The task id is the record's ``task_id`` (or ``id``), else
    ``"<file relative to the run directory>:<line>"``, which lines up across models that
    ran the same files. Raises UserError on bad JSON or an unusable record, and when no
    record is found.
    """
    paths = list(paths)
    files = find_clarify_files(paths)
    scores: list[ClarifyScore] = []
    for f, root in files:
        run_model = model or (root.resolve().name if root.name in ("", ".") else root.name)
        rel = f.relative_to(root).as_posix()
        scores.extend(_score_file(f, rel, run_model))
    if not scores:
        shown = ", ".join(str(p) for p in paths) or "(no paths)"
        raise UserError(f"{shown}: no clarification run records found")
    return tuple(scores)


def _score_file(path: Path, rel: str, model: str) -> list[ClarifyScore]:
    try:
        text = path.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError as exc:
        raise UserError(f"{path}: not UTF-8 text (byte {exc.start})") from None
    except OSError as exc:
        raise UserError(f"{path}: cannot read: {exc.strerror}") from None
    out = []
    for lineno, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        where = f"{path}: line {lineno}"
        try:
            rec = json.loads(line)
        except json.JSONDecodeError as exc:
            raise UserError(f"{where}: invalid JSON: {exc.msg} ({_short(line)})") from None
        if not isinstance(rec, Mapping):
            raise UserError(f"{where}: expected a JSON object, got {_short(line)}")
        try:
            s = score_clarify_record(rec)
            k, r = key_question_count(rec), response_count(rec)
        except (TypeError, ValueError, AttributeError) as exc:
            shown = {f: rec.get(f) for f in ("turns", "key_question_num", "hit_dict") if f in rec}
            raise UserError(f"{where}: unusable record ({exc}): {_short(json.dumps(shown))}") from None
        if not (math.isfinite(s["tkqr"]) and s["tkqr"] >= 0.0):
            # A negative or non-numeric hit has no meaning; more hits than key questions does (above 1).
            raise UserError(f"{where}: TKQR {s['tkqr']:.4g} is negative or not finite: hit_dict holds a hit "
                            f"below 0 ({_short(json.dumps(rec.get('hit_dict')))})")
        task = rec.get("task_id", rec.get("id"))
        task_id = str(task) if task is not None and str(task).strip() else f"{rel}:{lineno}"
        cat = rec.get("category")
        out.append(ClarifyScore(model, task_id, s["tkqr"], s["ora"], s["turns"], s["diff"], k, r, str(path),
                                where, cat if isinstance(cat, str) and cat else None))
    return out


# --------------------------------------------------------------------------- averages and records


def compute_clarify_summary(scores: Sequence[ClarifyScore]) -> ClarifySummary:
    """Seed 002's averages over ``scores`` (num_files counts distinct files). Needs >= 1 score."""
    if not scores:
        raise ValueError("no clarification scores to average")
    n = len(scores)
    return ClarifySummary(
        num_tasks=n,
        num_files=len({s.file for s in scores}),
        tkqr=sum(s.tkqr for s in scores) / n,
        ora=sum(s.ora for s in scores) / n,
        avg_turns=sum(s.turns for s in scores) / n,
        avg_diff=sum(s.diff for s in scores) / n,
        tkqr_above_one=sum(1 for s in scores if s.tkqr > 1.0),
    )


def tkqr_above_one(scores: Iterable[ClarifyScore]) -> list[ClarifyScore]:
    """The records whose TKQR is above 1 (more hits than key questions), in input order."""
    return [s for s in scores if s.tkqr > 1.0]


def compute_clarify_summaries(scores: Sequence[ClarifyScore]) -> dict[str, ClarifySummary]:
    """Averages per model, models sorted by name."""
    by_model: dict[str, list[ClarifyScore]] = {}
    for s in scores:
        by_model.setdefault(s.model, []).append(s)
    return {m: compute_clarify_summary(by_model[m]) for m in sorted(by_model)}


def clarify_eval_runs(scores: Iterable[ClarifyScore]) -> tuple[EvalRun, ...]:
    """Two EvalRun records per model and task: metric ``tkqr`` and metric ``ora``, each the
    mean over the task's repeated runs (TKQR capped at 1 per run, the boards' score range).

    Order: first appearance of each (model, task); origin and category are the first run's.
    """
    runs: dict[tuple[str, str], list[ClarifyScore]] = {}
    for s in scores:
        runs.setdefault((s.model, s.task_id), []).append(s)
    out = []
    for (model, task), group in runs.items():
        first, n = group[0], len(group)
        origin = first.origin if n == 1 else f"{first.origin} (mean of {n} runs)"
        tkqr = sum(min(g.tkqr, 1.0) for g in group) / n
        ora = sum(g.ora for g in group) / n
        out.append(EvalRun(model, task, METRIC_TKQR, tkqr, first.category, None, origin=origin))
        out.append(EvalRun(model, task, METRIC_ORA, ora, first.category, None, origin=origin))
    return tuple(out)


def _short(s: str, limit: int = 60) -> str:
    s = " ".join(s.split())
    return s if len(s) <= limit else s[: limit - 3] + "..."
