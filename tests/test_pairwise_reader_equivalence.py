"""The battles reader and everything fitted from it give exactly what the streaming pyarrow
reader gave (recorded in ``tests/fixtures/arena_reader_baseline.json`` by
``tests/arena_baseline.py`` at commit 479c95d), on the bundled demo battles and the real
GenAI-Arena dump in every format: model tables, per-battle arrays, reports and errors,
snapshot sections, ``arena fit`` tables and ``arena history`` slices."""

from __future__ import annotations

import json
from typing import Any

import arena_baseline as base
import pytest

from builder.pairwise.scan import read_battles


@pytest.fixture(scope="module")
def recorded():
    return json.loads(base.FIXTURE.read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def files(tmp_path_factory, shared_data):
    return base.write_variants(tmp_path_factory.mktemp("variants"))


def test_reader_matches_the_recorded_reader(files, recorded):
    now = base.reader_cases(files, read_battles)
    assert sorted(now) == sorted(recorded["reader"])
    for key, want in recorded["reader"].items():
        assert now[key] == want, key


def _plain(doc: Any) -> Any:
    """JSON values with null-valued keys dropped: the typed snapshot writes ``"lower": null``
    where the recorded dict had no key."""
    if hasattr(doc, "model_dump"):
        doc = doc.model_dump(mode="json")
    if isinstance(doc, dict):
        return {k: _plain(v) for k, v in doc.items() if v is not None}
    if isinstance(doc, list):
        return [_plain(v) for v in doc]
    return doc


def _recorded_keys(doc: Any, want: Any) -> Any:
    """``doc`` with only the dict keys ``want`` has (recursively): fields added to the outputs
    since the recording (the Arena section's ``changes``) are not the reader's to match."""
    if isinstance(doc, dict) and isinstance(want, dict):
        return {k: _recorded_keys(v, want[k]) for k, v in doc.items() if k in want}
    if isinstance(doc, list) and isinstance(want, list) and len(doc) == len(want):
        return [_recorded_keys(d, w) for d, w in zip(doc, want, strict=True)]
    return doc


# Unrounded numbers may differ by this much: every bootstrap round stops within ~1e-8 rating
# points of its maximum, and the refits' arithmetic may change below that. Rounded numbers,
# counts, names and structure must be equal.
_FLOAT_TOLERANCE = 1e-8


def _as_written_now(key: str, want: Any) -> Any:
    """The recorded output in today's format: ``arena history --output`` was recorded with its
    bootstrap bounds at full precision and now rounds them to two decimals, as the ratings."""
    if not key.startswith("history|") or not isinstance(want, list):
        return want
    return [{**s, "models": [{k: round(v, 2) if k in ("lower", "upper") and isinstance(v, float) else v
                              for k, v in m.items()} for m in s["models"]]} for s in want]


def _diff(got: Any, want: Any, where: str = "") -> str | None:
    """Where ``got`` and ``want`` differ (floats within ``_FLOAT_TOLERANCE``), else None."""
    if isinstance(got, dict) and isinstance(want, dict):
        if set(got) != set(want):
            return f"{where}: keys {sorted(set(got) ^ set(want))}"
        return next((d for k in want if (d := _diff(got[k], want[k], f"{where}.{k}"))), None)
    if isinstance(got, list) and isinstance(want, list):
        if len(got) != len(want):
            return f"{where}: {len(got)} items, recorded {len(want)}"
        return next((d for k, (g, w) in enumerate(zip(got, want, strict=True)) if (d := _diff(g, w, f"{where}[{k}]"))),
                    None)
    if isinstance(got, float) and isinstance(want, float):
        return None if abs(got - want) <= _FLOAT_TOLERANCE else f"{where}: {got!r}, recorded {want!r}"
    return None if type(got) is type(want) and got == want else f"{where}: {got!r}, recorded {want!r}"


def test_arena_outputs_match_the_recorded_ones(files, recorded, tmp_path):
    now = base.arena_cases(files, tmp_path)
    assert sorted(now) == sorted(recorded["arena"])
    for key, want in recorded["arena"].items():
        want = _as_written_now(key, _plain(want))
        got = _recorded_keys(_plain(json.loads(json.dumps(_plain(now[key])))), want)
        assert _diff(got, want) is None, (key, _diff(got, want))
