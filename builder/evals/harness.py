"""Eval results as the tools write them: lm-evaluation-harness output folders and Inspect AI logs.

Each reader turns one tool's per-sample records into ``EvalRun`` records, one per model and
sample, so the aggregator resamples the items themselves (a whole-task average would leave
it one number per task and no interval):

    EvalRun(model_id, task_id="<task>/<sample id>", metric_name, score in [0, 1], category="<task>")

**lm-evaluation-harness** (``lm_eval ... --output_path OUT --log_samples``): ``OUT/<model>/``
holds ``results_<time>.json`` and, per task, ``samples_<task>_<time>.jsonl`` (one JSON object
per document: ``doc_id``, ``filter``, ``metrics`` (the metric names) and each metric's value).
The model is the results file's ``model_name``, else ``config.model_args``' ``pretrained`` /
``model``, else ``config.model``. One metric per task: the suite's ``metric`` when the task
has it, else the first of ``DEFAULT_LM_EVAL_METRICS`` it has, else the first metric whose
per-sample values are numbers. A task logged under several filters (``strict-match`` and
``flexible-extract``) is read under the first one its file lists; the metric is then named
``<metric>,<filter>`` as in the results file. Corpus-level metrics (``f1``, ``bleu``) have no
per-sample number and cannot be read per item.

**Inspect AI** (``.eval`` zip archives and ``.json`` logs): the model is ``eval.model``, the
task ``eval.task``; each scorer is a metric. A sample's score value is mapped to [0, 1] as
Inspect's own ``value_to_float`` does: ``C`` (correct) 1, ``I`` (incorrect) 0, ``P``
(partial) 0.5, ``N`` (no answer) 0; ``yes``/``true`` 1, ``no``/``false`` 0; booleans 1/0;
numbers as they are, which must lie in [0, 1]. A dict value (a scorer with several values)
gives one metric per key, ``<scorer>.<key>``. Epochs are averaged per sample; a sample
without a score (an error, a cancelled run) is left out.

A file that is not what its format says raises ``UserError`` with one line naming the file
(and the line or sample).
"""

from __future__ import annotations

import json
import math
import re
import struct
import zipfile
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, Literal

from builder.errors import UserError
from builder.evals.io import iter_json_lines, read_eval_text
from builder.evals.records import EvalRun

EvalFormat = Literal["modelboards", "lm-eval-harness", "inspect"]
EVAL_FORMATS: tuple[str, ...] = ("modelboards", "lm-eval-harness", "inspect")

DEFAULT_LM_EVAL_METRICS: tuple[str, ...] = ("acc", "exact_match", "acc_norm", "pass@1", "mc2", "em")
"The metric read per lm-eval task when the suite names none (or one the task lacks): the first present."

INSPECT_LETTERS = {"C": 1.0, "I": 0.0, "P": 0.5, "N": 0.0}
"Inspect's score letters: correct, incorrect, partial, no answer."
_INSPECT_WORDS = {"yes": 1.0, "true": 1.0, "no": 0.0, "false": 0.0}
_INDEX_FILES = {"logs.json", "eval-set.json", "listing.json"}
"JSON files Inspect writes beside its logs that are not logs (skipped when a folder is read)."

_RESULTS = re.compile(r"^results_(?P<ts>.+)\.json$")
_SAMPLES = re.compile(r"^samples_(?P<task>.+)_(?P<ts>\d{4}-\d{2}-\d{2}T[^_]+)\.jsonl$")


# --------------------------------------------------------------------------- lm-evaluation-harness


def read_lm_eval_runs(paths: Iterable[Path], metric: str | None = None) -> tuple[EvalRun, ...]:
    """Every ``results_*.json`` under ``paths`` (files or folders, searched recursively), with the
    ``samples_<task>_*.jsonl`` files of the same run beside it, as EvalRun records."""
    results = _find(paths, lambda p: bool(_RESULTS.match(p.name)), "lm-evaluation-harness results_*.json")
    runs: list[EvalRun] = []
    for path in results:
        runs.extend(parse_lm_eval_results(path, metric))
    return tuple(runs)


def parse_lm_eval_results(path: Path, metric: str | None = None) -> list[EvalRun]:
    """One results file and its samples files (the same timestamp, the same folder)."""
    doc = _load_json(path, "lm-evaluation-harness results file")
    if not isinstance(doc, Mapping) or not isinstance(doc.get("results"), Mapping):
        raise UserError(f"{path}: not an lm-evaluation-harness results file (no \"results\" object)")
    model = lm_eval_model_name(doc)
    if model is None:
        raise UserError(f"{path}: no model name (neither model_name nor config.model_args nor config.model)")
    m = _RESULTS.match(path.name)
    ts = m.group("ts") if m else ""
    samples = sorted(p for p in path.parent.glob(f"samples_*_{ts}.jsonl") if p.is_file())
    if not samples:
        raise UserError(f"{path}: no samples_<task>_{ts}.jsonl beside it (run lm_eval with --log_samples)")
    runs: list[EvalRun] = []
    for sp in samples:
        sm = _SAMPLES.match(sp.name)
        task = sm.group("task") if sm else sp.name[len("samples_"):-len(f"_{ts}.jsonl")]
        runs.extend(parse_lm_eval_samples(sp, model, task, metric))
    return runs


def lm_eval_model_name(doc: Mapping[str, Any]) -> str | None:
    """The model a results file is about: ``model_name``, else ``config.model_args``' ``pretrained``
    (or ``model``; a dict, or lm-eval's ``key=value,key=value`` string), else ``config.model``."""
    name = doc.get("model_name")
    if isinstance(name, str) and name.strip():
        return name.strip()
    raw_config = doc.get("config")
    config: Mapping[str, Any] = raw_config if isinstance(raw_config, Mapping) else {}
    args = config.get("model_args")
    if isinstance(args, str):
        args = dict(part.split("=", 1) for part in args.split(",") if "=" in part)
    if isinstance(args, Mapping):
        for key in ("pretrained", "model", "model_name", "engine"):
            v = args.get(key)
            if isinstance(v, str) and v.strip():
                return v.strip()
    v = config.get("model")
    return v.strip() if isinstance(v, str) and v.strip() else None


def parse_lm_eval_samples(path: Path, model: str, task: str, metric: str | None = None) -> list[EvalRun]:
    """One ``samples_<task>_*.jsonl`` file: one EvalRun per document under the chosen metric."""
    rows: list[tuple[int, Mapping[str, Any]]] = []
    for lineno, rec in _jsonl(path):
        if not isinstance(rec, Mapping) or "doc_id" not in rec or not isinstance(rec.get("metrics"), list):
            raise UserError(f"{path}: line {lineno}: not an lm-evaluation-harness sample "
                            "(expected doc_id and metrics)")
        rows.append((lineno, rec))
    if not rows:
        raise UserError(f"{path}: no samples")
    first_filter = rows[0][1].get("filter", "none")
    rows = [(n, r) for n, r in rows if r.get("filter", "none") == first_filter]
    chosen = _choose_lm_metric(path, [r for _, r in rows], metric)
    name = chosen if first_filter in (None, "none") else f"{chosen},{first_filter}"
    runs: list[EvalRun] = []
    seen: dict[str, int] = {}
    for lineno, rec in rows:
        doc_id = str(rec["doc_id"])
        if doc_id in seen:
            raise UserError(f"{path}: line {lineno}: doc_id {doc_id} again (first on line {seen[doc_id]})")
        seen[doc_id] = lineno
        where = f"{path}: line {lineno}"
        score = _unit_number(rec.get(chosen), f"{where}: {chosen}")
        runs.append(EvalRun(model, f"{task}/{doc_id}", name, score, task, None, origin=where))
    return runs


def _choose_lm_metric(path: Path, rows: Sequence[Mapping[str, Any]], wanted: str | None) -> str:
    names: list[str] = []
    for r in rows:
        for n in r["metrics"]:
            if isinstance(n, str) and n not in names:
                names.append(n)
    numeric = [n for n in names if all(_is_number(r.get(n)) or isinstance(r.get(n), bool)
                                       for r in rows if n in r["metrics"])]
    for n in ([wanted] if wanted else []) + list(DEFAULT_LM_EVAL_METRICS) + numeric:
        if n in numeric:
            return n
    raise UserError(f"{path}: no per-sample metric with a number per document (have {', '.join(names) or 'none'}; "
                    "corpus-level metrics such as f1 or bleu cannot be read per item)")


# --------------------------------------------------------------------------- Inspect AI


def read_inspect_runs(paths: Iterable[Path]) -> tuple[EvalRun, ...]:
    """Every Inspect log (``.eval`` archive or ``.json`` log) under ``paths`` as EvalRun records."""
    logs = _find(paths, lambda p: p.suffix.lower() in (".eval", ".json") and p.name not in _INDEX_FILES,
                 "Inspect .eval or .json log")
    runs: list[EvalRun] = []
    for path in logs:
        runs.extend(parse_inspect_log(path))
    return tuple(runs)


def parse_inspect_log(path: Path) -> list[EvalRun]:
    """One Inspect log: per sample and scorer, the mean over epochs of the value mapped to [0, 1]."""
    header, samples = _inspect_eval_archive(path) if path.suffix.lower() == ".eval" else _inspect_json_log(path)
    spec = header.get("eval")
    if not isinstance(spec, Mapping) or not isinstance(spec.get("task"), str) or not isinstance(spec.get("model"), str):
        raise UserError(f"{path}: not an Inspect log (no eval.task and eval.model)")
    task, model = spec["task"], spec["model"]
    values: dict[tuple[str, str], list[float]] = {}
    first: dict[tuple[str, str], str] = {}
    for where, sample in samples:
        if not isinstance(sample, Mapping) or "id" not in sample:
            raise UserError(f"{path}: {where}: not an Inspect sample (no id)")
        scores = sample.get("scores")
        if not scores:
            continue  # an errored or cancelled sample: no score to read
        if not isinstance(scores, Mapping):
            raise UserError(f"{path}: {where}: scores is not an object")
        sid = str(sample["id"])
        for scorer, score in scores.items():
            value = score.get("value") if isinstance(score, Mapping) else None
            at = f"{path}: {where}: sample {sid!r}, scorer {scorer!r}"
            for name, x in _inspect_values(str(scorer), value, at):
                values.setdefault((sid, name), []).append(x)
                first.setdefault((sid, name), at)
    if not values:
        raise UserError(f"{path}: no scored samples in this Inspect log")
    return [EvalRun(model, f"{task}/{sid}", name, math.fsum(xs) / len(xs), task, None, origin=first[(sid, name)])
            for (sid, name), xs in values.items()]


def inspect_value(value: Any, where: str) -> float | None:
    """A scorer's value mapped to [0, 1] (see the module docstring); None for no value."""
    if value is None:
        return None
    if isinstance(value, bool):
        return 1.0 if value else 0.0
    if isinstance(value, str):
        s = value.strip()
        if s in INSPECT_LETTERS:
            return INSPECT_LETTERS[s]
        if s.lower() in _INSPECT_WORDS:
            return _INSPECT_WORDS[s.lower()]
        try:
            return _unit_number(float(s), where)
        except ValueError:
            raise UserError(f"{where}: score value {value!r} is not C/I/P/N, yes/no or a number") from None
    return _unit_number(value, where)


def _inspect_values(scorer: str, value: Any, where: str) -> Iterator[tuple[str, float]]:
    if isinstance(value, Mapping):
        for key, v in value.items():
            x = inspect_value(v, f"{where}, key {key!r}")
            if x is not None:
                yield f"{scorer}.{key}", x
        return
    if isinstance(value, list):
        raise UserError(f"{where}: a list score value cannot be mapped to 0-1 ({_short(value)})")
    x = inspect_value(value, where)
    if x is not None:
        yield scorer, x


def _inspect_eval_archive(path: Path) -> tuple[Mapping[str, Any], list[tuple[str, Any]]]:
    try:
        with zipfile.ZipFile(path) as z:
            names = z.namelist()
            head_name = next((n for n in ("header.json", "_journal/start.json") if n in names), None)
            if head_name is None:
                raise UserError(f"{path}: not an Inspect .eval log (no header.json or _journal/start.json inside)")
            header = _zip_json(z, path, head_name)
            samples = [(n, _zip_json(z, path, n)) for n in sorted(names, key=_sample_order)
                       if n.startswith("samples/") and n.endswith(".json")]
    except zipfile.BadZipFile:
        raise UserError(f"{path}: not an Inspect .eval log (not a zip archive)") from None
    except OSError as exc:
        raise UserError(f"{path}: cannot read: {exc.strerror}") from None
    if not isinstance(header, Mapping):
        raise UserError(f"{path}: not an Inspect .eval log (its header is not an object)")
    return header, samples


ZIP_ZSTANDARD = 93
"The zip compression method of Zstandard, which Inspect writes (Python's zipfile reads it from 3.14)."


def _sample_order(name: str) -> tuple[str, int]:
    """``samples/<id>_epoch_<n>.json`` in id then epoch order (epoch 10 after epoch 9)."""
    m = re.match(r"^(.*)_epoch_(\d+)\.json$", name)
    return (m.group(1), int(m.group(2))) if m else (name, 0)


def _zip_member(z: zipfile.ZipFile, path: Path, name: str) -> bytes:
    """One member's bytes; Zstandard members are read raw from the archive and decompressed here."""
    info = z.getinfo(name)
    if info.compress_type != ZIP_ZSTANDARD:
        return z.read(info)
    import zstandard

    with open(path, "rb") as fh:
        fh.seek(info.header_offset)
        local = fh.read(30)
        if len(local) != 30 or local[:4] != b"PK\x03\x04":
            raise UserError(f"{path}: {name}: damaged archive (no local header)")
        name_len, extra_len = struct.unpack("<HH", local[26:30])
        fh.seek(info.header_offset + 30 + name_len + extra_len)
        raw = fh.read(info.compress_size)
    try:
        return zstandard.ZstdDecompressor().decompress(raw, max_output_size=max(info.file_size, 1))
    except zstandard.ZstdError as exc:
        raise UserError(f"{path}: {name}: damaged Zstandard data ({exc})") from None


def _zip_json(z: zipfile.ZipFile, path: Path, name: str) -> Any:
    try:
        return json.loads(_zip_member(z, path, name).decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise UserError(f"{path}: {name}: invalid JSON ({exc})") from None
    except NotImplementedError:  # another compression method zipfile cannot read
        raise UserError(f"{path}: {name}: unsupported zip compression") from None


def _inspect_json_log(path: Path) -> tuple[Mapping[str, Any], list[tuple[str, Any]]]:
    doc = _load_json(path, "Inspect log")
    if not isinstance(doc, Mapping) or "eval" not in doc:
        raise UserError(f"{path}: not an Inspect log (no \"eval\" object)")
    samples = doc.get("samples")
    if not isinstance(samples, list):
        raise UserError(f"{path}: this Inspect log has no samples (was it written with --no-log-samples?)")
    return doc, [(f"samples[{i}]", s) for i, s in enumerate(samples)]


# --------------------------------------------------------------------------- shared


def _find(paths: Iterable[Path], match: Any, what: str) -> list[Path]:
    """Files as given; folders searched recursively (sorted) for files ``match`` accepts."""
    out: list[Path] = []
    for p in map(Path, paths):
        if p.is_dir():
            found = sorted(f for f in p.rglob("*") if f.is_file() and match(f))
            if not found:
                raise UserError(f"{p}: no {what} in this folder")
            out.extend(found)
        elif p.is_file():
            out.append(p)
        else:
            raise UserError(f"{p}: no such eval file or folder")
    return out


def _load_json(path: Path, what: str) -> Any:
    text = read_eval_text(path, what)
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise UserError(f"{path}: not a {what} (invalid JSON at line {exc.lineno}: {exc.msg})") from None


def _jsonl(path: Path) -> Iterator[tuple[int, Any]]:
    return iter_json_lines(path, read_eval_text(path, "lm-evaluation-harness samples file"))


def _is_number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def _unit_number(v: Any, where: str) -> float:
    if isinstance(v, bool):
        return 1.0 if v else 0.0
    if not _is_number(v):
        raise UserError(f"{where}: score is not a finite number ({_short(v)})")
    x = float(v)
    if not 0.0 <= x <= 1.0:
        raise UserError(f"{where}: score {x!r} is outside [0, 1]")
    return x


def _short(v: Any, limit: int = 60) -> str:
    s = " ".join(json.dumps(v, default=str).split())
    return s if len(s) <= limit else s[: limit - 3] + "..."
