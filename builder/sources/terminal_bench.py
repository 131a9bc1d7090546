"""Terminal-Bench leaderboard run folders -> ``<source>/accuracy`` observations.

Payload: the leaderboard repository's files (laude-institute/terminal-bench-leaderboard at
the pinned commit ``options.commit``), keyed by repo-relative POSIX path::

    results/<dataset>@<version>/<submission>/<trial>/results.json   (+ run_metadata.json)
    results/<dataset>:<version>/<submission>/results.json           (+ run_metadata.json)
    results/<dataset>@<version>/<submission>/<stamp>_results.json   (loose trial files)

The dataset folder is spelled with ``@`` or ``:``; both mean the same benchmark version.
A submission folder is normally ``YYYYMMDD_<agent>_<model>``; folders that break the pattern
(``ob1-09-10-25``) take agent, model and date from their run metadata only.

Rules:

* only the latest benchmark version counts (versions compare numerically, ``0.10.0`` >
  ``0.9.1``); submissions of older versions are not read at all;
* one observation per submission folder; each ``*results.json`` directly in the folder or
  one level below is one trial, and

      raw = 100 * mean(accuracy of each trial)          (percent)

  where a trial's accuracy is ``results.json["accuracy"]``, else ``n_resolved / len(results)``,
  else (no ``n_resolved``) the share of ``results`` whose ``is_resolved`` is true
  (``is_resolved: null`` counts as unresolved);
* model spelling: the trials' ``run_metadata.json`` ``model_name`` when every trial that has
  metadata names the same one; otherwise (null, absent, or trials disagree) the ``<model>``
  part of the folder name; ``details["model_from"]`` says which;
* agent: the metadata ``agent_name`` when the trials agree, else the folder's ``<agent>``;
  agent version: metadata ``agent_version`` or ``agent_kwargs.version``/``agent_kwargs.agent_version``;
* date: the folder's ``YYYYMMDD``, else the latest trial ``start_time``;
* same-spelling submissions that name different agents or agent versions on the latest
  date for that spelling are incompatible: all of them are excluded with that reason.
  Other same-spelling submissions are all kept; selection picks the latest date, then URL.

A submission whose trials cannot be read (bad JSON, no accuracy and no results, a
non-finite or out-of-range accuracy) is kept as one excluded observation naming the file.

url = ``https://github.com/<owner>/<repo>/tree/<commit>/<submission path>`` when the
repository is known (``options.repository``, or the GitHub / codeload URL in ``url``);
release = the benchmark version (``0.1.1``).

Observation.details: ``agent``, ``agent_version``, ``trials`` (count), ``trial_accuracies``
(percent, sorted by trial path), ``commit`` (``options.commit``), ``benchmark_version``,
``dataset``, ``submission`` (folder name), ``model_from`` (``"metadata"`` | ``"folder"``).
"""

from __future__ import annotations

import json
import re
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import date, datetime
from pathlib import PurePosixPath
from statistics import fmean
from typing import Any
from urllib.parse import quote

from builder.config import SourceConfig
from builder.records import Observation, ParseResult, Payload
from builder.sources.base import PayloadError
from builder.sources.validate import check_score

_DATASET = re.compile(r"^(?P<name>[A-Za-z0-9][\w.-]*?)[@:](?P<version>\d+(?:\.\d+)*)$")
_SUBMISSION = re.compile(r"^(?P<date>\d{8})_(?P<agent>[^_]+)_(?P<model>.+)$")
_GITHUB = re.compile(r"^https?://(?:codeload\.)?github\.com/(?P<owner>[^/]+)/(?P<repo>[^/]+)")


def version_key(version: str) -> tuple[int, ...]:
    """``"0.1.10"`` -> ``(0, 1, 10)`` so versions compare as numbers, not strings."""
    return tuple(int(p) for p in version.split("."))


@dataclass
class _Trial:
    path: str  # results file path
    folder: str  # trial folder relative to the submission ("" = the submission folder itself)
    results: Any = None
    metadata: Any = None
    error: str | None = None


@dataclass
class _Submission:
    dataset_dir: str  # "results/terminal-bench-core@0.1.1"
    name: str  # "20250902_orchestrator_qwen-3-coder-480B"
    dataset: str
    version: str
    trials: dict[str, _Trial] = field(default_factory=dict)  # trial folder, or loose file path -> trial
    metadata: dict[str, Any] = field(default_factory=dict)  # trial dir -> parsed run_metadata (or error str)

    @property
    def path(self) -> str:
        return f"{self.dataset_dir}/{self.name}"


def _load_json(blob: bytes) -> tuple[Any, str | None]:
    try:
        return json.loads(blob.decode("utf-8-sig")), None
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        return None, f"not valid JSON ({exc})"


def _collect(payload: Payload) -> list[_Submission]:
    subs: dict[str, _Submission] = {}
    for key in sorted(payload.files):
        parts = PurePosixPath(key).parts
        idx = next((i for i, p in enumerate(parts) if _DATASET.match(p)), None)
        if idx is None or len(parts) - idx not in (3, 4):  # dataset/submission/[trial/]file
            continue
        m = _DATASET.match(parts[idx])
        assert m is not None
        sub_name = parts[idx + 1]
        rest = parts[idx + 2 :]
        filename = rest[-1]
        trial_dir = rest[0] if len(rest) == 2 else ""
        is_results = filename.endswith("results.json")
        is_meta = filename == "run_metadata.json"
        if not (is_results or is_meta):
            continue
        dataset_dir = "/".join(parts[: idx + 1])
        sub = subs.setdefault(
            f"{dataset_dir}/{sub_name}",
            _Submission(dataset_dir=dataset_dir, name=sub_name, dataset=m["name"], version=m["version"]),
        )
        data, error = _load_json(payload.files[key])
        if is_meta:
            sub.metadata[trial_dir] = data if error is None else f"{key}: {error}"
        else:
            trial_id = trial_dir if filename == "results.json" else "/".join(rest)
            sub.trials[trial_id] = _Trial(
                path=key, folder=trial_dir, results=data, error=f"{key}: {error}" if error else None
            )
    for sub in subs.values():
        for trial in sub.trials.values():
            trial.metadata = sub.metadata.get(trial.folder)  # run_metadata.json beside the results file
    return [s for s in subs.values() if s.trials]


def _trial_accuracy(trial: _Trial) -> tuple[float | None, str | None]:
    """Accuracy of one trial as a fraction in [0, 1], or a reason it has none."""
    if trial.error:
        return None, trial.error
    data = trial.results
    if not isinstance(data, dict):
        return None, f"{trial.path}: expected an object"
    if "accuracy" in data and data["accuracy"] is not None:
        value, problem = check_score(data["accuracy"], percent=False)
    else:
        results = data.get("results")
        if not isinstance(results, list) or not results:
            return None, f"{trial.path}: no accuracy and no results"
        n_resolved = data.get("n_resolved")
        if n_resolved is None:
            n_resolved = sum(1 for r in results if isinstance(r, dict) and r.get("is_resolved") is True)
        count, problem = check_score(n_resolved, percent=False)
        value = None if problem else count / len(results)  # type: ignore[operator]
    if problem:
        return None, f"{trial.path}: accuracy {problem}"
    if not 0.0 <= value <= 1.0:  # type: ignore[operator]
        return None, f"{trial.path}: accuracy {value!r} outside [0, 1]"
    return value, None


def _agreed(values: list[Any]) -> Any:
    """The single non-empty value every trial names, else None."""
    distinct = {v for v in values if v not in (None, "")}
    return distinct.pop() if len(distinct) == 1 else None


def _start_date(meta: Any) -> date | None:
    if not isinstance(meta, dict) or not isinstance(meta.get("start_time"), str):
        return None
    try:
        return datetime.fromisoformat(meta["start_time"].replace("Z", "+00:00")).date()
    except ValueError:
        return None


def _agent_version(meta: Any) -> str | None:
    if not isinstance(meta, dict):
        return None
    kwargs = meta.get("agent_kwargs")
    kwargs = kwargs if isinstance(kwargs, dict) else {}
    for value in (meta.get("agent_version"), kwargs.get("version"), kwargs.get("agent_version")):
        if value not in (None, ""):
            return str(value)
    return None


def _repo_base(source: SourceConfig) -> str | None:
    repo = source.options.get("repository")
    if isinstance(repo, str) and repo.startswith(("http://", "https://")):
        return repo.rstrip("/")
    m = _GITHUB.match(source.url or "")
    if m:
        return f"https://github.com/{m['owner']}/{m['repo']}"
    return None


def _url(source: SourceConfig, payload: Payload, sub_path: str, commit: str | None) -> str:
    base = _repo_base(source)
    if base:
        return f"{base}/tree/{commit or 'main'}/{quote(sub_path, safe='/@:')}"
    for candidate in (source.homepage, source.url, payload.origin):
        if candidate and candidate.startswith(("http://", "https://")):
            return candidate
    return ""


def parse(payload: Payload, source: SourceConfig) -> ParseResult:
    """One observation per submission folder of the latest benchmark version."""
    subs = _collect(payload)
    if not subs:
        raise PayloadError(
            f"{payload.origin}: no results files under a <dataset>@<version>/<submission>/ folder "
            f"({len(payload.files)} files)"
        )
    latest = max(subs, key=lambda s: version_key(s.version)).version
    subs = [s for s in subs if version_key(s.version) == version_key(latest)]
    commit = source.options.get("commit")
    commit = str(commit) if commit not in (None, "") else None

    observations: list[Observation] = []
    for sub in sorted(subs, key=lambda s: s.path):
        trials = [sub.trials[k] for k in sorted(sub.trials)]
        metas = [t.metadata for t in trials if isinstance(t.metadata, dict)]
        folder = _SUBMISSION.match(sub.name)
        folder_date: date | None = None
        if folder:
            try:
                folder_date = datetime.strptime(folder["date"], "%Y%m%d").date()
            except ValueError:
                folder_date = None
        meta_model = _agreed([m.get("model_name") for m in metas])
        if meta_model is not None:
            model, model_from = str(meta_model), "metadata"
        elif folder:
            model, model_from = folder["model"], "folder"
        else:
            model, model_from = sub.name, "folder"
        agent = _agreed([m.get("agent_name") for m in metas]) or (folder["agent"] if folder else None)
        starts = [d for d in (_start_date(m) for m in metas) if d is not None]
        when = folder_date or (max(starts) if starts else None)

        accuracies: list[float] = []
        problems: list[str] = []
        for trial in trials:
            value, problem = _trial_accuracy(trial)
            if problem:
                problems.append(problem)
            else:
                accuracies.append(value)  # type: ignore[arg-type]
        bad_meta = [m for m in sub.metadata.values() if isinstance(m, str)]
        problems.extend(bad_meta)
        if not folder and meta_model is None:
            problems.append(f"{sub.name}: folder name is not YYYYMMDD_<agent>_<model> and run_metadata names no model")
        if names_its_agent(model, agent):
            problems.append(f"{sub.name}: model_name {model!r} names the agent ({agent!r}), not a model")
        if problems:
            raw, problem = None, "; ".join(problems)
        else:
            raw, problem = check_score(100.0 * fmean(accuracies), percent=True)
        observations.append(
            Observation(
                source=source.name,
                feed=f"{source.name}/accuracy",
                evaluator=source.evaluator_id,
                model=model,
                raw=raw,
                date=when,
                url=_url(source, payload, sub.path, commit),
                release=latest,
                percent=True,
                details={
                    "agent": agent,
                    "agent_version": _agreed([_agent_version(m) for m in metas]),
                    "trials": len(trials),
                    "trial_accuracies": [100.0 * a for a in accuracies],
                    "commit": commit,
                    "benchmark_version": latest,
                    "dataset": sub.dataset,
                    "submission": sub.name,
                    "model_from": model_from,
                },
                excluded=problem,
            )
        )
    return ParseResult(observations=tuple(_exclude_incompatible(observations)))


_PRODUCT_WORDS = frozenset({"agent", "sdk", "cli", "api"})
"Words that say what kind of product a name is, not which one (``ob1-agent``, ``ob1-sdk``)."


def names_its_agent(model: str, agent: str | None) -> bool:
    """A submission's ``model_name`` that is its agent's own product name, not a model: the
    same words as the agent's name once the product words (agent, sdk, cli, api) are left out
    (``ob1-sdk`` run by ``ob1-agent``, an agent whose model is not disclosed). Such a row would
    put an agent on the boards as if it were a model; ``claude-sonnet-5`` run by Claude Code
    is a model."""
    if not agent:
        return False

    def words(name: str) -> list[str]:
        return [w for w in re.split(r"[-_ ./:@]+", name.strip().lower()) if w and w not in _PRODUCT_WORDS]

    return bool(words(model)) and words(model) == words(agent)


def _exclude_incompatible(observations: list[Observation]) -> list[Observation]:
    """Exclude same-spelling submissions on that spelling's latest date that name different agents/versions."""
    by_model: dict[str, list[int]] = defaultdict(list)
    for i, o in enumerate(observations):
        if o.excluded is None and o.date is not None:
            by_model[o.model].append(i)
    out = list(observations)
    for idxs in by_model.values():
        last = max(d for i in idxs if (d := observations[i].date) is not None)
        on_last = [i for i in idxs if observations[i].date == last]
        configs = {(observations[i].details["agent"], observations[i].details["agent_version"]) for i in on_last}
        if len(configs) > 1:
            named = ", ".join(sorted(f"{a or '?'}{' ' + v if v else ''}" for a, v in configs))
            for i in on_last:
                out[i] = observations[i].replace(
                    excluded=f"incompatible same-spelling submissions on {last.isoformat()}: agents {named}"
                )
    return out
