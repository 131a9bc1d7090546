"""The Models index and one page per model: its evidence, board positions, machines and prices."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from builder.render.writer import Snap, SiteWriter, boards_of, current
from builder.util.text import model_slug


@dataclass
class ModelIndex:
    """Everything about each identity, gathered once so each model page is O(its rows)."""

    identities: list[str]
    observations: dict[str, list[Mapping[str, Any]]]
    placements: dict[str, list[tuple[Mapping[str, Any], Mapping[str, Any], str]]]  # (board, row, ranked|new)
    machines: dict[str, list[tuple[Mapping[str, Any], Mapping[str, Any]]]]
    token_prices: dict[str, list[Mapping[str, Any]]]
    build_prices: dict[str, list[Mapping[str, Any]]]
    open_weight: dict[str, bool | None]
    names: dict[str, str]


def model_index(w: SiteWriter) -> ModelIndex:
    """The current snapshot's ``ModelIndex``, built once per render."""
    return w.cached("model_index", lambda: index_models(current(w)))


def index_models(snap: Snap) -> ModelIndex:
    models = snap.get("models") or {}
    obs: dict[str, list[Mapping[str, Any]]] = defaultdict(list)
    for o in snap.get("observations") or []:
        if o.get("identity"):
            obs[o["identity"]].append(o)
    placements: dict[str, list[tuple[Mapping[str, Any], Mapping[str, Any], str]]] = defaultdict(list)
    names: dict[str, str] = {}
    for b in boards_of(snap):
        for strip in ("rows", "new"):
            for r in b.get(strip) or []:
                if r.get("identity"):
                    placements[r["identity"]].append((b, r, "ranked" if strip == "rows" else "new"))
                    names.setdefault(r["identity"], r.get("model") or r["identity"])
    machines: dict[str, list[tuple[Mapping[str, Any], Mapping[str, Any]]]] = defaultdict(list)
    for m in snap.get("machines") or []:
        for r in m.get("rows") or []:
            if r.get("identity"):
                machines[r["identity"]].append((m, r))
    prices = snap.get("prices") or {}
    token = _by_identity(prices.get("token") or [])
    build = _by_identity(prices.get("build") or [])
    for ident, m in models.items():
        names[ident] = (m or {}).get("name") or names.get(ident) or ident
    for ident, rows in obs.items():
        names.setdefault(ident, rows[0].get("model") or ident)
    identities = sorted(set(models) | set(obs) | set(placements))
    open_weight = {i: (models.get(i) or {}).get("open_weight") for i in identities}
    return ModelIndex(identities, obs, placements, machines, token, build, open_weight, names)


def _by_identity(entries: list[Mapping[str, Any]]) -> dict[str, list[Mapping[str, Any]]]:
    out: dict[str, list[Mapping[str, Any]]] = defaultdict(list)
    for p in entries:
        if p.get("identity"):
            out[p["identity"]].append(p)
    return out


def render_models(w: SiteWriter) -> None:
    snap = current(w)
    idx = model_index(w)
    models = snap.get("models") or {}
    families = snap.get("families") or {}
    fits = {(c.get("source"), c.get("feed"), c.get("release")): c for c in snap.get("calibration") or []}
    orch = next((b for b in boards_of(snap) if b.get("kind") == "orchestrator"), None)
    orch_rank = {r.get("identity"): r for r in (orch or {}).get("rows") or []}
    w.page("models/index.html", "models.html", title="Models", section="models",
           description="Every model the snapshot knows, with links to its evidence.",
           identities=idx.identities, models=models, names=idx.names, obs=idx.observations,
           orch=orch, orch_rank=orch_rank, placements=idx.placements)
    for ident in idx.identities:
        w.page(f"models/{model_slug(ident)}/index.html", "model.html", title=idx.names[ident], section="models",
               description=f"Evidence and board positions for {idx.names[ident]}",
               identity=ident, facts=models.get(ident) or {}, name=idx.names[ident],
               observations=sorted(idx.observations.get(ident, []),
                                   key=lambda o: (str(o.get("feed")), not o.get("selected"), str(o.get("model")))),
               placements=idx.placements.get(ident, []), machines=idx.machines.get(ident, []),
               token_prices=idx.token_prices.get(ident, []), build_prices=idx.build_prices.get(ident, []),
               families=families, fits=fits)
