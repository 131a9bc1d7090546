"""The evidence export under ``site/data/``: everything needed to rebuild every published
number with the standard library alone.

    evidence.json          the Capability Index (CC BY 4.0): models, rows, families, fusion
    boards-evidence.json   the role boards (CC BY-SA 4.0): calibrations, usable observations,
                           family means, R, displayed score, rank and labels per board; the
                           bootstrap's seed, Arena intervals, fit residuals and results
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

from builder.render.safety import csv_cell
from builder.scoring.uncertainty import DRAW_ORDER, ROW_FIELDS, fit_residual

RECOMPUTE = Path(__file__).with_name("recompute.py")
INDEX_LICENCE = "CC BY 4.0"
BOARDS_LICENCE = "CC BY-SA 4.0"


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
        f"  note         = {{Snapshot of {date}; data {INDEX_LICENCE if 'Index' in what else BOARDS_LICENCE}}}\n"
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


def _residuals(c: Mapping[str, Any], selected: list[Mapping[str, Any]], text_feed: str | None) -> list[float] | None:
    """Arena text rating minus calibrated value per overlap key of a used fit (the bootstrap's pool)."""
    if not c.get("used") or any(c.get(k) is None for k in ("mu", "sigma", "alpha", "beta")):
        return None
    arena = {o["identity"]: o["raw"] for o in selected if o["feed"] == text_feed}
    raws: dict[str, float] = {}
    for o in selected:
        if (o.get("source"), o["feed"], o["release"]) == (c["source"], c["feed"], c["release"]):
            raws[o["identity"]] = max(raws.get(o["identity"], o["raw"]), o["raw"])
    if not all(k in arena and k in raws for k in c["overlap"]):
        return None
    return [fit_residual(arena[k], raws[k], c["mu"], c["sigma"], c["alpha"], c["beta"]) for k in c["overlap"]]


def _uncertainty_settings(snapshot: Mapping[str, Any]) -> dict[str, Any] | None:
    u = snapshot.get("uncertainty")
    if not isinstance(u, Mapping) or not u.get("rounds"):
        return None
    return {"rounds": u["rounds"], "seed": u["seed"], "interval": list(u["interval"]),
            "tieThreshold": u["tie_threshold"], "pairwiseTop": u["pairwise_top"], "arenaSdDivisor": u["arena_sd_divisor"],
            "drawsPerRound": u.get("draws_per_round"), "drawOrder": list(DRAW_ORDER)}


def _board_row(row: Mapping[str, Any], keys: tuple[str, ...]) -> dict[str, Any]:
    unc = row.get("uncertainty") or {}
    return {**{k: row.get(k) for k in keys}, **{k: unc.get(k) for k in ROW_FIELDS}}


def compute_boards_evidence(snapshot: Mapping[str, Any], site_url: str) -> dict[str, Any]:
    """``boards-evidence.json``: enough to rebuild every role-board number exactly, the
    bootstrap's intervals, rank ranges and ties included (seed, Arena intervals, residuals)."""
    arena_feeds, text_feed = _arena_feeds(snapshot)
    selected = [o for o in snapshot["observations"] if o.get("selected") and not o.get("excluded") and o.get("raw") is not None]
    usable = [o for o in selected if o.get("calibrated") is not None]
    row_keys = ("identity", "model", "r", "score", "rank", "partial", "partial_reasons", "families", "evaluators", "coverage", "available_share")
    boards = []
    for b in snapshot["boards"]:
        boards.append({
            "id": b["id"], "title": b["title"], "role": b["role"], "weights": dict(b["weights"]),
            "rows": [_board_row(row, row_keys) for row in b["rows"]],
            "new": [_board_row(row, row_keys) for row in b.get("new", [])],
            "pairwise": (b.get("uncertainty") or {}).get("pairwise"),
        })
    arena = set(arena_feeds)

    def interval(o: Mapping[str, Any], key: str) -> Any:
        return (o.get("details") or {}).get(key) if o["feed"] in arena else None
    return {
        "generatedAt": snapshot["created_at"],
        "snapshotDate": snapshot["date"],
        "methodId": snapshot["method_id"],
        "licence": BOARDS_LICENCE,
        "attribution": _attribution(snapshot),
        "arenaFeeds": arena_feeds,
        "arenaTextFeed": text_feed,
        "families": {k: list(v["feeds"]) for k, v in snapshot["families"].items()},
        "calibrations": [
            {**{k: c.get(k) for k in ("source", "feed", "release", "n", "overlap", "mu", "sigma", "alpha", "beta",
                                      "used", "reason")},
             "residuals": _residuals(c, selected, text_feed)}
            for c in snapshot["calibration"]
        ],
        "selected": [{k: o.get(k) for k in ("identity", "model", "feed", "release", "raw")} for o in selected],
        "observations": [
            {**{k: o.get(k) for k in ("identity", "model", "source", "feed", "evaluator", "release", "raw",
                                      "calibrated", "date", "url")},
             "q025": interval(o, "rating_q025"), "q975": interval(o, "rating_q975")}
            for o in usable
        ],
        "uncertainty": _uncertainty_settings(snapshot),
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
| boards-evidence.json | the role boards: every calibration (feed, release, overlap models, mu, sigma, alpha, beta, residuals), every usable observation with raw and calibrated values (Arena ones with their published q025/q975), each board's family means, R, displayed score, rank and labels, and the bootstrap (rounds, seed, draw order) with each row's r_lo, r_hi, rank_lo, rank_hi, rank_ub, p_first, p_above, tied_above and each board's top-20 pairwise matrix | {BOARDS_LICENCE} |
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
