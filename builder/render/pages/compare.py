"""``compare/?m=a,b,c``: two to five models side by side, from files the site serves itself.

    data/compare/index.json        the picker: every model's slug and name, the boards, the
                                   families, the sources, the Arena's rating scale
    data/compare/<slug>.json       one model: facts, prices, per source the selected row (raw
                                   value, configuration, date, calibrated value), family means,
                                   per board rank and score, its Arena ratings with intervals and
                                   observed records against the models of the win-rate matrix

``static/compare.js`` reads the slugs from the URL, loads those files and draws the tables; it
offers the comparison as CSV and JSON. The Arena's predicted win probability of a over b is
``1 / (1 + base ** ((rating_b - rating_a) / scale))`` from the best-rated spelling of each
(same connected component only); the observed record is the win-rate matrix's share and
battle count for that pair of spellings, when the pair is in it. Family means are the
published board rows' (the same on every board that weights the family).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from builder.render.pages.models import ModelIndex, index_models, model_index
from builder.render.writer import SiteWriter, current
from builder.snapshot.models import ArenaModel, Snapshot
from builder.util.text import model_slug, strip_bidi

MAX_MODELS = 5
MIN_MODELS = 2
_NUMBERS = frozenset({int, float, bool, type(None)})


def _plain_text(doc: Any) -> Any:
    """``doc`` with the bidi controls removed from every string, as the HTML pages show
    upstream text (``builder.util.text.strip_bidi``): the compare script puts these strings
    into table cells and the CSV it offers, so a U+202E in a name never reorders them."""
    if isinstance(doc, str):
        return strip_bidi(doc)
    if type(doc) in _NUMBERS:  # before the slower ``Mapping`` test
        return doc
    if isinstance(doc, Mapping):
        return {strip_bidi(k): _plain_text(v) for k, v in doc.items()}
    if isinstance(doc, (list, tuple)):
        return [_plain_text(v) for v in doc]
    return doc


def _dump(doc: Mapping[str, Any]) -> str:
    return json.dumps(_plain_text(doc), ensure_ascii=False, allow_nan=False, separators=(",", ":"),
                      sort_keys=True) + "\n"


def _arena_by_identity(snap: Snapshot) -> dict[str, list[ArenaModel]]:
    """Identity -> its rated Arena spellings, best rating first."""
    if snap.arena is None:
        return {}
    spelling_of = {s: ident for ident, facts in snap.models.items() for s in facts.spellings}
    out: dict[str, list[ArenaModel]] = {}
    for m in snap.arena.models:
        ident = m.model if m.model in snap.models else spelling_of.get(m.model)
        if ident is not None:
            out.setdefault(ident, []).append(m)
    for rows in out.values():
        rows.sort(key=lambda m: -m.rating)
    return out


def _records(snap: Snapshot) -> dict[str, dict[str, dict[str, Any]]]:
    """Spelling -> opponent spelling -> observed record from the win-rate matrix (pairs that met)."""
    if snap.arena is None:
        return {}
    wr = snap.arena.winrate
    out: dict[str, dict[str, dict[str, Any]]] = {}
    for i, a in enumerate(wr.models):
        for j, b in enumerate(wr.models):
            if i != j and wr.battles[i][j] > 0:
                out.setdefault(a, {})[b] = {"battles": wr.battles[i][j], "share": wr.empirical[i][j],
                                            "predicted": wr.predicted[i][j]}
    return out


def compute_compare_model(snap: Snapshot, identity: str, arena: Mapping[str, list[ArenaModel]],
                          records: Mapping[str, Mapping[str, Any]], idx: ModelIndex | None = None) -> dict[str, Any]:
    """Everything the compare page shows for one model (JSON-able).

    ``idx``: the render's ``ModelIndex`` (rows, observations and prices by identity, built
    once), so each model costs O(its own rows); built here when not given."""
    if idx is None:
        idx = index_models(snap)
    facts = snap.models.get(identity)
    fams: dict[str, float] = {}
    boards = []
    for b, r, strip in idx.placements.get(identity, ()):
        fams.update(r.families)
        boards.append({"board": b.id, "strip": strip, "rank": r.rank, "score": r.score, "r": r.r,
                       "partial": r.partial, "interval": None})
    sources = [{"source": o.source, "feed": o.feed, "evaluator": o.evaluator, "spelling": o.model, "raw": o.raw,
                "calibrated": o.calibrated, "date": o.date, "details": o.details, "url": o.url}
               for o in idx.observations.get(identity, ()) if o.selected]
    sources.sort(key=lambda s: str(s["feed"]))
    token = [{"source": p.source, "key": p.key, "blended": p.blended, "used": p.used}
             for p in idx.token_prices.get(identity, ())]
    build = next(({"price": p.price, "passed": p.passed, "epoch": p.epoch, "jobs": p.jobs}
                  for p in idx.build_prices.get(identity, ())), None)
    rated = arena.get(identity, [])
    return {
        "identity": identity, "slug": model_slug(identity), "name": facts.name if facts else identity,
        "facts": {"maker": facts.maker, "licence": facts.licence, "open_weight": facts.open_weight,
                  "params_b": facts.params_b, "context_window": facts.context_window,
                  "release_date": facts.release_date} if facts else {},
        "sources": sources, "families": fams, "boards": boards,
        "prices": {"token": token, "build": build},
        "arena": [{"model": m.model, "rating": m.rating, "lower": m.lower, "upper": m.upper, "rank": m.rank,
                   "component": m.component, "battles": m.battles, "records": records.get(m.model, {})}
                  for m in rated],
    }


def _compare_models(w: SiteWriter) -> list[dict[str, str]]:
    """Every model the page offers (slug, name, identity), in the index's order."""
    idx = model_index(w)
    return [{"slug": model_slug(ident), "name": idx.names[ident], "identity": ident} for ident in idx.identities]


def render_compare_data(w: SiteWriter) -> None:
    """``data/compare/``: one file per model and the index the page reads: files only (``Page.beside``)."""
    snap = current(w)
    idx = model_index(w)
    arena, records = _arena_by_identity(snap), _records(snap)
    models = _compare_models(w)
    for m in models:
        w.file(f"data/compare/{m['slug']}.json", _dump(compute_compare_model(snap, m["identity"], arena, records, idx)))
    method = snap.arena.method if snap.arena is not None else None
    w.file("data/compare/index.json", _dump({
        "date": snap.date, "method_id": snap.method_id, "demo": snap.demo, "licence": w.common["licence"],
        "min": MIN_MODELS, "max": MAX_MODELS, "models": models,
        "boards": [{"id": b.id, "title": b.title} for b in snap.boards],
        "families": {f: fam.title for f, fam in snap.families.items()},
        "arena": {"scale": method.scale, "base": method.base} if method else None,
    }))


def render_compare(w: SiteWriter) -> None:
    snap = current(w)
    idx = model_index(w)
    models = _compare_models(w)
    # one-click starting points: each board's current top three (ranked rows, board order)
    suggestions = []
    for b in snap.boards:
        top = [r for r in (b.rows or ()) if r.identity and r.rank is not None][:3]
        if len(top) >= MIN_MODELS:
            suggestions.append({"id": b.id, "board": b.title or b.id,
                                "slugs": ",".join(model_slug(r.identity) for r in top),
                                "names": [idx.names.get(r.identity, r.model) for r in top]})
    w.page("compare/index.html", "compare.html", title="Compare models", section="compare",
           description="Two to five models side by side: sources, family means, boards, prices and the Arena.",
           min_models=MIN_MODELS, max_models=MAX_MODELS, models=models, suggestions=suggestions)
