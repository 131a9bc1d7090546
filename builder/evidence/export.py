"""The evidence export under ``site/data/``: everything needed to rebuild every published
number with the standard library alone.

    evidence.json          the Capability Index (CC BY 4.0): models, rows, families, fusion
    boards-evidence.json   the role boards (CC BY-SA 4.0): calibrations, usable observations,
                           family means, R, displayed score, rank and labels per board
    index-current.csv, index-all-versions.csv   the two index boards
    README.md              what each file holds, licences and attribution
    recompute.py           the stdlib-only rebuild (also as recompute.ipynb)

Published index numbers carry one decimal; role-board numbers are unrounded floats (JSON
round-trips them exactly), so the role boards rebuild exactly and the index within
``method.tolerance``.
"""

from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path
from typing import Any, Mapping

from builder.util.formats import INDEX_LICENCE, RATING_LICENCE
from builder.util.text import csv_cell

RECOMPUTE = Path(__file__).with_name("recompute.py")


def _attribution(snapshot: Mapping[str, Any]) -> str:
    credits = [f"{s.get('title') or s['name']} ({s.get('licence', 'unknown')})" for s in snapshot.get("sources", [])]
    return "Derived from: " + "; ".join(credits) if credits else ""


def compute_citation(snapshot: Mapping[str, Any], site_url: str, what: str) -> str:
    date = snapshot["date"]
    key = re.sub(r"[^a-z0-9]", "", what.lower())[:24]
    return (
        f"@misc{{modelboards-{key}-{date},\n"
        f"  title        = {{ModelBoards {what}, snapshot {date}}},\n"
        f"  author       = {{{{ModelBoards}}}},\n"
        f"  year         = {{{date[:4]}}},\n"
        f"  howpublished = {{\\url{{{site_url}}}}},\n"
        f"  note         = {{Snapshot of {date}; data {INDEX_LICENCE if 'Index' in what else RATING_LICENCE}}}\n"
        f"}}"
    )


def compute_index_evidence(snapshot: Mapping[str, Any], site_url: str) -> dict[str, Any]:
    """``evidence.json``: the Capability Index with every row behind every score."""
    index = snapshot["index"]
    settings = index["settings"]
    models = []
    for m in index["models"]:
        fusion = None
        if m.get("fusion"):
            fusion = {"terms": [{"channel": t["channel"], "mean": t["mean"], "sigma": t["sigma"],
                                 **({"from": t["from"]} if "from" in t else {})}
                                for t in m["fusion"]["terms"]]}
        models.append({
            "name": m["name"],
            "identityKey": m["identity"],
            "maker": m.get("maker"),
            "basis": m["basis"],
            "score": m["score"],
            "confidence": m["confidence"],
            "rank": dict(m["rank"]),
            "families": dict(m["families"]),
            "observations": [
                {k: o[k] for k in ("family", "board", "sourceScore", "share", "confidence", "url", "date")}
                for o in m["observations"]
            ],
            "fusion": fusion,
        })
    return {
        "generatedAt": snapshot["created_at"],
        "snapshotDate": snapshot["date"],
        "licence": INDEX_LICENCE,
        "attribution": _attribution(snapshot),
        "methodology": {
            "indexMethodId": index["method_id"],
            "evidenceAdmissionMethodId": snapshot["method_id"],
        },
        "method": {
            "tolerance": settings["tolerance"],
            "specialistDeltaBound": settings["delta_bound"],
            "familyWeights": dict(settings["family_weights"]),
            "sigmas": dict(settings["sigmas"]),
            "confidencePerSigma": settings["confidence_per_sigma"],
        },
        "models": models,
        "citation": {"bibtex": compute_citation(snapshot, site_url, "Capability Index")},
    }


def _arena_feeds(snapshot: Mapping[str, Any]) -> tuple[list[str], str | None]:
    kinds = {s["name"]: s.get("kind") for s in snapshot.get("sources", [])}
    feeds = sorted({o["feed"] for o in snapshot.get("observations", []) if kinds.get(o["source"]) == "lmarena"})
    text = next((f for f in feeds if f.endswith("/text")), None)
    return feeds, text


def compute_boards_evidence(snapshot: Mapping[str, Any], site_url: str) -> dict[str, Any]:
    """``boards-evidence.json``: enough to rebuild every role-board number exactly."""
    arena_feeds, text_feed = _arena_feeds(snapshot)
    selected = [o for o in snapshot["observations"] if o.get("selected") and not o.get("excluded") and o.get("raw") is not None]
    usable = [o for o in selected if o.get("calibrated") is not None]
    row_keys = ("identity", "model", "r", "score", "rank", "partial", "partial_reasons", "families", "evaluators", "coverage", "available_share")
    boards = []
    for b in snapshot["boards"]:
        boards.append({
            "id": b["id"], "title": b["title"], "role": b["role"], "weights": dict(b["weights"]),
            "rows": [{k: row.get(k) for k in row_keys} for row in b["rows"]],
            "new": [{k: row.get(k) for k in row_keys} for row in b.get("new", [])],
        })
    return {
        "generatedAt": snapshot["created_at"],
        "snapshotDate": snapshot["date"],
        "methodId": snapshot["method_id"],
        "licence": RATING_LICENCE,
        "attribution": _attribution(snapshot),
        "arenaFeeds": arena_feeds,
        "arenaTextFeed": text_feed,
        "families": {k: list(v["feeds"]) for k, v in snapshot["families"].items()},
        "calibrations": [
            {k: c.get(k) for k in ("source", "feed", "release", "n", "overlap", "mu", "sigma", "alpha", "beta", "used", "reason")}
            for c in snapshot["calibration"]
        ],
        "selected": [{k: o.get(k) for k in ("identity", "model", "feed", "release", "raw")} for o in selected],
        "observations": [
            {k: o.get(k) for k in ("identity", "model", "source", "feed", "evaluator", "release", "raw", "calibrated", "date", "url")}
            for o in usable
        ],
        "boards": boards,
        "citation": {"bibtex": compute_citation(snapshot, site_url, "role boards")},
    }


INDEX_CSV_COLUMNS = ["rank", "identityKey", "name", "maker", "basis", "score", "confidence",
                     "general", "coding", "agent", "reasoning"]


def render_index_csv(evidence: Mapping[str, Any], board: str) -> str:
    rows = sorted((m for m in evidence["models"] if m["rank"][board] is not None), key=lambda m: m["rank"][board])
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(INDEX_CSV_COLUMNS)
    for m in rows:
        f = m["families"]
        w.writerow([m["rank"][board], csv_cell(m["identityKey"]), csv_cell(m["name"]), csv_cell(m.get("maker")), m["basis"],
                    f"{m['score']:.1f}", f"{m['confidence']:.1f}",
                    *(f"{f[k]:.1f}" if k in f else "" for k in ("general", "coding", "agent", "reasoning"))])
    return buf.getvalue()


def render_readme(snapshot: Mapping[str, Any], site_url: str) -> str:
    return f"""# ModelBoards evidence, snapshot {snapshot['date']}

Everything here rebuilds with Python's standard library alone:

    python recompute.py            # reads the JSON files beside it
    python recompute.py {site_url.rstrip('/')}/data/

| file | what it holds | licence |
|---|---|---|
| evidence.json | the Capability Index: every model's rows (board, family, sourceScore, share, confidence, link, date), family scores, fusion terms, score, confidence and ranks | {INDEX_LICENCE} |
| boards-evidence.json | the role boards: every calibration (feed, release, overlap models, mu, sigma, alpha, beta), every usable observation with raw and calibrated values, and each board's family means, R, displayed score, rank and labels | {RATING_LICENCE} |
| index-current.csv | the index board of current versions | {INDEX_LICENCE} |
| index-all-versions.csv | the index board of all versions | {INDEX_LICENCE} |
| recompute.py, recompute.ipynb | the rebuild script (the same code in notebook cells) | MIT |

The numbers are ModelBoards' normalisation and aggregation of public evaluations. Each
upstream source keeps its own licence and attribution:

{chr(10).join(f"- {s.get('title') or s['name']}: {s.get('licence', 'unknown')}. {s.get('attribution', '')}" for s in snapshot.get('sources', []))}

Raw upstream payloads are not redistributed here.
"""


def render_notebook(script: str) -> str:
    """The recompute script as notebook cells (split at its section rulers)."""
    parts = re.split(r"\n(?=# -{20,})", script)
    cells = [{"cell_type": "markdown", "metadata": {}, "source": [
        "# Rebuild ModelBoards' published numbers\n",
        "Standard library only. Run all cells; the last one prints what was reproduced.\n"]}]
    for part in parts:
        body = part.replace('if __name__ == "__main__":\n    sys.exit(main(sys.argv))', "main(['recompute', '.'])")
        cells.append({"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [],
                      "source": [line + "\n" for line in body.strip("\n").split("\n")]})
    nb = {"cells": cells, "metadata": {"kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
                                       "language_info": {"name": "python"}}, "nbformat": 4, "nbformat_minor": 5}
    return json.dumps(nb, indent=1) + "\n"


def compute_evidence_files(snapshot: Mapping[str, Any], site_url: str) -> dict[str, str]:
    """File name (under ``data/``) -> text of every evidence download."""
    files: dict[str, str] = {}
    files["boards-evidence.json"] = json.dumps(compute_boards_evidence(snapshot, site_url), indent=1, ensure_ascii=False) + "\n"
    if snapshot.get("index"):
        ev = compute_index_evidence(snapshot, site_url)
        files["evidence.json"] = json.dumps(ev, indent=1, ensure_ascii=False) + "\n"
        files["index-current.csv"] = render_index_csv(ev, "current")
        files["index-all-versions.csv"] = render_index_csv(ev, "allVersions")
    script = RECOMPUTE.read_text(encoding="utf-8")
    files["recompute.py"] = script
    files["recompute.ipynb"] = render_notebook(script)
    files["README.md"] = render_readme(snapshot, site_url)
    return files


def write_evidence(snapshot: Mapping[str, Any], data_dir: Path, site_url: str) -> list[Path]:
    """Write the evidence export into ``data_dir`` (normally ``site/data``)."""
    data_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for name, text in compute_evidence_files(snapshot, site_url).items():
        path = data_dir / name
        path.write_text(text, encoding="utf-8")
        written.append(path)
    return written
