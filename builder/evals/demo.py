"""The bundled demo eval data, generated deterministically (no real model was run).

    python -m builder.evals.demo [OUT]      # default OUT: builder/data/demo/evals

writes ``coding-suite.jsonl`` (EvalRun records) and ``clarify/<model>/batch-{1,2}.jsonl``
(clarification run records). ``tests/test_evals_section.py`` checks the bundled files are exactly
what this module writes, so edit the generator, rerun it and commit both.

Coding suite model: each demo model m has a skill theta_m and a per-category offset; each
task t a difficulty d_t and a number of hidden tests n_t (1 = plain pass/fail). A test
passes with probability p = 1 / (1 + exp(-1.7 (theta_m + offset_mc - d_t))); the score is
the share of tests passed, so n_t = 1 gives 0 or 1 and larger n_t gives partial credit.
Two smaller models skip a few tasks (time-outs), so their task counts are lower.

Clarification runs: each task has K key questions (0-4). A model asks about
K * eagerness_m + noise rounds; each round covers a new key question with probability
precision_m while any remain. The records rotate through every format ``read_clarify_scores`` reads
(``turns``; ``qa_pairs`` + ``response_contents``; assistant ``messages``; ``id``).
"""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path
from typing import Any

import numpy as np

DEMO_SEED = 20261010
CATEGORIES = ("algorithms", "bug-fixing", "refactoring", "sql")
TASKS_PER_CATEGORY = 30
TEST_COUNTS = (1, 1, 1, 5, 8, 10, 12)  # hidden tests per task: 3 in 7 tasks are pass/fail

# identity key: (skill, offsets per category in CATEGORIES order, tasks skipped)
CODING_MODELS: dict[str, tuple[float, tuple[float, float, float, float], int]] = {
    "claude-opus-5.5": (1.55, (0.1, 0.2, 0.3, -0.1), 0),
    "gpt-6": (1.50, (0.3, 0.0, -0.1, 0.2), 0),
    "gemini-3-pro": (1.35, (0.2, -0.1, 0.0, 0.3), 0),
    "claude-sonnet-5": (1.25, (0.0, 0.2, 0.3, -0.2), 0),
    "qwen4-coder-480b-a35b": (1.00, (0.1, 0.1, -0.1, 0.0), 0),
    "deepseek-v4": (0.95, (0.2, -0.1, 0.0, 0.0), 0),
    "kimi-k3": (0.85, (0.0, 0.1, -0.2, 0.1), 0),
    "gpt-6-mini": (0.70, (0.1, 0.0, -0.1, 0.2), 0),
    "llama-5-70b": (0.10, (-0.2, 0.0, 0.1, 0.0), 7),
    "gemma-4-27b": (-0.15, (0.0, -0.2, 0.1, 0.0), 12),
}

# identity key: (eagerness: rounds asked per key question, precision: chance a round hits)
CLARIFY_MODELS: dict[str, tuple[float, float]] = {
    "claude-opus-5.5": (1.05, 0.85),
    "gpt-6": (1.30, 0.75),
    "gemini-3-pro": (0.80, 0.70),
    "deepseek-v4": (0.60, 0.60),
    "gpt-6-mini": (1.60, 0.45),
}
CLARIFY_TASKS = 24


def make_coding_suite(seed: int = DEMO_SEED) -> list[dict[str, Any]]:
    """EvalRun records (dicts) of the demo coding suite, sorted by model then task."""
    rng = np.random.default_rng(seed)
    tasks = []
    for c, cat in enumerate(CATEGORIES):
        for i in range(TASKS_PER_CATEGORY):
            difficulty = float(rng.normal(0.6, 1.1))
            n_tests = int(TEST_COUNTS[rng.integers(0, len(TEST_COUNTS))])
            tasks.append((f"{cat[:3]}-{i + 1:03d}", cat, c, difficulty, n_tests))
    out = []
    for model, (skill, offsets, skipped) in CODING_MODELS.items():
        skip = set(rng.choice(len(tasks), size=skipped, replace=False).tolist()) if skipped else set()
        for j, (task_id, cat, c, difficulty, n_tests) in enumerate(tasks):
            p = 1.0 / (1.0 + math.exp(-1.7 * (skill + offsets[c] - difficulty)))
            passed = int(rng.binomial(n_tests, p))
            if j in skip:
                continue
            out.append({"model_id": model, "task_id": task_id, "metric_name": "pass_rate",
                        "score": round(passed / n_tests, 4), "category": cat})
    return sorted(out, key=lambda r: (r["model_id"], r["task_id"]))


def make_clarify_runs(seed: int = DEMO_SEED) -> dict[str, dict[str, list[dict[str, Any]]]]:
    """``{model: {file name: [run record, ...]}}`` in the clarification run record format."""
    rng = np.random.default_rng(seed + 2)
    keys = [int(k) for k in rng.choice([0, 1, 2, 2, 3, 3, 4], size=CLARIFY_TASKS)]
    out: dict[str, dict[str, list[dict[str, Any]]]] = {}
    for model, (eagerness, precision) in CLARIFY_MODELS.items():
        files: dict[str, list[dict[str, Any]]] = {"batch-1.jsonl": [], "batch-2.jsonl": []}
        for t, k in enumerate(keys):
            rounds = max(0, round(k * eagerness + float(rng.normal(0.0, 0.6))))
            hits, left = [], k
            for _ in range(rounds):
                h = int(left > 0 and rng.random() < precision)
                hits.append(h)
                left -= h
            files["batch-1.jsonl" if t < CLARIFY_TASKS // 2 else "batch-2.jsonl"].append(
                _clarify_record(t, k, hits))
        out[model] = files
    return out


def _clarify_record(t: int, k: int, hits: list[int]) -> dict[str, Any]:
    task_id = f"clarify-{t + 1:03d}"
    responses = len(hits) + 1  # the questions, then the code
    rec: dict[str, Any] = {"task_id": task_id}
    style = t % 4
    if style == 1:  # K from qa_pairs, responses from response_contents
        del rec["task_id"]
        rec["id"] = task_id
        rec["qa_pairs"] = [{"question": f"key question {q + 1}?", "answer": f"answer {q + 1}"} for q in range(k)]
        rec["response_contents"] = [f"question {i + 1}?" for i in range(len(hits))] + ["```python\n...\n```"]
    else:
        rec["key_question_num"] = k
        if style == 2:  # responses counted from the assistant messages
            msgs = [{"role": "user", "content": "task description"}]
            for i in range(len(hits)):
                msgs += [{"role": "assistant", "content": f"question {i + 1}?"},
                         {"role": "user", "content": f"reply {i + 1}"}]
            msgs.append({"role": "assistant", "content": "```python\n...\n```"})
            rec["messages"] = msgs
        else:
            rec["turns"] = responses
    rec["hit_dict"] = {str(i): h for i, h in enumerate(hits)}
    return rec


def write_demo_evals(out_dir: Path) -> list[Path]:
    """Write every demo file under ``out_dir``; returns the paths written."""
    written = []
    suite = out_dir / "coding-suite.jsonl"
    suite.parent.mkdir(parents=True, exist_ok=True)
    suite.write_text("".join(json.dumps(r) + "\n" for r in make_coding_suite()), encoding="utf-8")
    written.append(suite)
    for model, files in make_clarify_runs().items():
        for name, records in files.items():
            p = out_dir / "clarify" / model / name
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
            written.append(p)
    return written


if __name__ == "__main__":  # pragma: no cover - the documented regeneration command
    target = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parents[1] / "data/demo/evals"
    for path in write_demo_evals(target):
        print(path)
