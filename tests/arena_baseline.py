"""What the battles reader and the Arena stage produce on the bundled and real battle files,
as a fixture that later readers must reproduce exactly.

    python tests/arena_baseline.py     # rewrites tests/fixtures/arena_reader_baseline.json

The fixture was written by the streaming pyarrow reader this project had before the DuckDB
reader (commit 479c95d); ``tests/test_pairwise_reader_equivalence.py`` recomputes every
entry with today's code and requires the same values: per-battle arrays (as SHA-256 of their
bytes), model tables, bad-row and filter reports, and whole ``arena`` snapshot sections,
``arena fit`` tables and ``arena history`` slices, bootstrap intervals included.

The files read are the demo battles and the real GenAI-Arena dump, each as it is and
re-written in the other formats (JSON array, JSON Lines, CSV, Parquet) by ``write_variants``.
The demo battles are the ones the fixture was recorded on: the bundled file as it was before
it carried ``conv_metadata``, drawn again by ``arena simulate`` with its documented options
minus the style ones (``PRE_STYLE_DEMO``; the simulator without ``--style-effect`` draws
the same battles byte for byte).
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.csv as pcsv
import pyarrow.parquet as pq

ROOT = Path(__file__).resolve().parents[1]
PRE_STYLE_DEMO = ["--models-from", str(ROOT / "builder" / "data" / "demo" / "arena" / "leaderboard-text.json"),
                  "--n", "30000", "--seed", "7", "--start", "2026-05-01", "--end", "2026-11-25", "--debut-spread",
                  "0.6", "--anony-share", "0.85"]
GENAI = ROOT.parent / "shared" / "data" / "arena" / "genai-arena" / "clean_battle_20240220.json"
FIXTURE = ROOT / "tests" / "fixtures" / "arena_reader_baseline.json"

# name -> (filter arguments for BattleFilters, the same as `arena fit` options)
FILTERS: dict[str, dict[str, Any]] = {
    "none": {},
    "anony": {"anony_only": True},
    "dates": {"min_date": "2026-06-01", "max_date": "2026-09-30"},
    "anony_dates": {"anony_only": True, "min_date": "2024-02-01", "max_date": "2024-02-15"},
    "dates24": {"min_date": "2024-02-05", "max_date": "2024-02-18"},
}


def _rows(path: Path) -> list[dict[str, Any]]:
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".jsonl":
        return [json.loads(line) for line in text.splitlines() if line.strip()]
    return json.loads(text)


def write_variants(folder: Path) -> dict[str, Path]:
    """The demo and GenAI-Arena battles in every format, name -> path."""
    from click.testing import CliRunner

    from builder.cli.arena import arena

    folder.mkdir(parents=True, exist_ok=True)
    demo = folder / "pre-style" / "clean_battle_demo.jsonl"  # the bundled file's name, as recorded
    demo.parent.mkdir(exist_ok=True)
    res = CliRunner().invoke(arena, ["simulate", *PRE_STYLE_DEMO, "--output", str(demo)])
    assert res.exit_code == 0, res.output
    out: dict[str, Path] = {"demo.jsonl": demo, "genai.json": GENAI}
    for stem, src in (("demo", demo), ("genai", GENAI)):
        rows = _rows(src)
        if src.suffix != ".json":
            p = folder / f"{stem}.json"
            p.write_text("[\n" + ",\n".join(json.dumps(r) for r in rows) + "\n]\n", encoding="utf-8")
            out[p.name] = p
        if src.suffix != ".jsonl":
            p = folder / f"{stem}.jsonl"
            p.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
            out[p.name] = p
        table = pa.Table.from_pylist(rows)
        p = folder / f"{stem}.csv"
        pcsv.write_csv(table, p)
        out[p.name] = p
        p = folder / f"{stem}.parquet"
        pq.write_table(table, p)
        out[p.name] = p
    return out


def _digest(arr: np.ndarray | None) -> str | None:
    if arr is None:
        return None
    arr = np.ascontiguousarray(arr)
    return f"{arr.dtype.str}:{arr.shape[0]}:" + hashlib.sha256(arr.tobytes()).hexdigest()


def filters_of(name: str):
    from builder.pairwise.battles import BattleFilters

    spec = dict(FILTERS[name])
    for key in ("min_date", "max_date"):
        if key in spec:
            spec[key] = dt.date.fromisoformat(spec[key])
    return BattleFilters(**spec)


def describe_battles(b) -> dict[str, Any]:
    return {
        "models": list(b.models),
        "model_a": _digest(b.model_a),
        "model_b": _digest(b.model_b),
        "outcome": _digest(b.outcome),
        "tstamp": _digest(b.tstamp),
        "report": b.report.to_json(),
    }


def reader_cases(files: dict[str, Path], read: Callable) -> dict[str, Any]:
    """Every file variant under every filter: the reader's output, or its error text."""
    from builder.errors import UserError

    out: dict[str, Any] = {}
    for name, path in sorted(files.items()):
        for fname in FILTERS:
            try:
                out[f"{name}|{fname}"] = describe_battles(read(path, filters_of(fname)))
            except UserError as exc:
                out[f"{name}|{fname}"] = {"error": str(exc).replace(str(path.parent), "<dir>")}
    return out


SECTIONS: dict[str, tuple[str, dict[str, Any], int]] = {
    # name -> (file, ArenaConfig fields, history bootstrap rounds)
    "demo_month": ("demo.jsonl", {"bootstrap": 40, "seed": 3, "history": "month"}, 0),
    "demo_anony_week": ("demo.jsonl", {"bootstrap": 20, "seed": 5, "history": "week", "anony_only": True}, 4),
    "genai_week": ("genai.json", {"bootstrap": 30, "history": "week"}, 0),
    "genai_anony_day": ("genai.json", {"bootstrap": 10, "history": "day", "anony_only": True}, 3),
}

FITS: dict[str, list[str]] = {
    # name -> `arena fit` arguments after --input FILE
    "demo_bt100": ["demo.jsonl", "--bootstrap", "100", "--seed", "1"],
    "demo_anony_dates": ["demo.jsonl", "--bootstrap", "20", "--anony-only", "--min-date", "2026-06-01",
                         "--max-date", "2026-10-15"],
    "demo_elo": ["demo.jsonl", "--method", "elo", "--bootstrap", "5"],
    "genai_bt": ["genai.json", "--bootstrap", "50", "--anony-only"],
    "genai_parquet_bt": ["genai.parquet", "--bootstrap", "50"],
    "demo_csv_bt": ["demo.csv", "--bootstrap", "10"],
}

HISTORIES: dict[str, list[str]] = {
    "demo_week": ["demo.jsonl", "--period", "week"],
    "demo_month_boot": ["demo.json", "--period", "month", "--bootstrap", "5", "--anony-only"],
    "genai_day": ["genai.json", "--period", "day"],
}


def arena_cases(files: dict[str, Path], tmp: Path) -> dict[str, Any]:
    """Snapshot sections, ``arena fit`` tables and ``arena history`` slices."""
    from click.testing import CliRunner

    from builder.cli.arena import arena
    from builder.config import ArenaConfig
    from builder.pairwise.arena import compute_arena_section

    out: dict[str, Any] = {}
    for name, (fname, fields, hboot) in SECTIONS.items():
        # the recorded reader had no official filters (every vote) and a top-20 heatmap, as recorded
        out[f"section|{name}"] = compute_arena_section(files[fname], ArenaConfig(all_votes=True, top_heatmap=20,
                                                                                 **fields),
                                                       history_bootstrap=hboot,
                                                       workers=1)
    for name, args in FITS.items():
        dest = tmp / f"fit-{name}.json"
        res = CliRunner().invoke(arena, ["fit", "--input", str(files[args[0]]), *args[1:], "--all-votes", "--output",
                                         str(dest)])
        assert res.exit_code == 0, res.output
        out[f"fit|{name}"] = json.loads(dest.read_text())
    for name, args in HISTORIES.items():
        dest = tmp / f"history-{name}.json"
        res = CliRunner().invoke(arena, ["history", "--input", str(files[args[0]]), *args[1:], "--all-votes",
                                         "--workers", "1",
                                         "--output", str(dest)])
        assert res.exit_code == 0, res.output
        out[f"history|{name}"] = json.loads(dest.read_text())
    return out


def main() -> None:
    import tempfile

    sys.path.insert(0, str(ROOT))
    from builder.pairwise.scan import read_battles

    with tempfile.TemporaryDirectory() as tmp:
        files = write_variants(Path(tmp))
        data = {"reader": reader_cases(files, read_battles), "arena": arena_cases(files, Path(tmp))}
    FIXTURE.write_text(json.dumps(data, sort_keys=True, separators=(",", ":")) + "\n", encoding="utf-8")
    print(f"{FIXTURE}: {len(data['reader'])} reader cases, {len(data['arena'])} arena cases")


if __name__ == "__main__":
    main()
