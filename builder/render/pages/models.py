"""The Models index and one page per model: its evidence, board positions, machines and prices."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Protocol, TypeVar

from builder.render.og import og_card
from builder.render.writer import SiteWriter, Snap, current
from builder.snapshot.models import Board, BoardRow, BuildPrice, Machine, MachineRow, Observation, TokenPrice
from builder.util.text import model_slug


@dataclass
class ModelIndex:
    """Everything about each identity, gathered once so each model page is O(its rows)."""

    identities: list[str]
    observations: dict[str, list[Observation]]
    placements: dict[str, list[tuple[Board, BoardRow, str]]]  # (board, row, ranked|new)
    machines: dict[str, list[tuple[Machine, MachineRow]]]
    token_prices: dict[str, list[TokenPrice]]
    build_prices: dict[str, list[BuildPrice]]
    open_weight: dict[str, bool | None]
    names: dict[str, str]


def model_index(w: SiteWriter) -> ModelIndex:
    """The current snapshot's ``ModelIndex``, built once per render."""
    return w.cached("model_index", lambda: index_models(current(w)))


def index_models(snap: Snap) -> ModelIndex:
    models = snap.models
    obs: dict[str, list[Observation]] = defaultdict(list)
    for o in snap.observations:
        if o.identity:
            obs[o.identity].append(o)
    placements: dict[str, list[tuple[Board, BoardRow, str]]] = defaultdict(list)
    names: dict[str, str] = {}
    for b in snap.boards:
        for strip, rows in (("ranked", b.rows), ("new", b.new)):
            for r in rows:
                placements[r.identity].append((b, r, strip))
                names.setdefault(r.identity, r.model or r.identity)
    machines: dict[str, list[tuple[Machine, MachineRow]]] = defaultdict(list)
    for m in snap.machines:
        for mr in m.rows:
            machines[mr.identity].append((m, mr))
    token = _by_identity(snap.prices.token)
    build = _by_identity(snap.prices.build)
    for ident, facts in models.items():
        names[ident] = facts.name or names.get(ident) or ident
    for ident, rows_of in obs.items():
        names.setdefault(ident, rows_of[0].model or ident)
    identities = sorted(set(models) | set(obs) | set(placements))
    open_weight = {i: models[i].open_weight if i in models else None for i in identities}
    return ModelIndex(identities, obs, placements, machines, token, build, open_weight, names)


class _Keyed(Protocol):
    @property
    def identity(self) -> str: ...


K = TypeVar("K", bound=_Keyed)


def _by_identity(entries: Iterable[K]) -> dict[str, list[K]]:
    out: dict[str, list[K]] = defaultdict(list)
    for p in entries:
        if p.identity:
            out[p.identity].append(p)
    return out


def render_models(w: SiteWriter) -> None:
    snap = current(w)
    idx = model_index(w)
    models = snap.models
    fits = {(c.source, c.feed, c.release): c for c in snap.calibration}
    orch = next((b for b in snap.boards if b.kind == "orchestrator"), None)
    orch_rank = {r.identity: r for r in orch.rows} if orch else {}
    w.page("models/index.html", "models.html", title="Models", section="models",
           description="Every model the snapshot knows, with links to its evidence.",
           identities=idx.identities, models=models, names=idx.names, obs=idx.observations,
           orch=orch, orch_rank=orch_rank, placements=idx.placements)
    for ident in idx.identities:
        name = idx.names[ident]
        facts = models.get(ident)
        placed = [f"{b.title}: " + (f"#{r.rank} ({r.score})" if kind == "ranked" else f"new ({r.score})")
                  for b, r, kind in idx.placements.get(ident, [])]
        subtitle = " · ".join(x for x in ((facts.maker if facts else None), (facts.licence if facts else None))
                                   if x) or "model"
        og = og_card(w, f"og/models/{model_slug(ident)}.png", name, subtitle, placed or ["not on any board"],
                     f"Evidence and board positions for {name}")
        w.page(f"models/{model_slug(ident)}/index.html", "model.html", title=idx.names[ident], section="models", og=og,
               description=f"Evidence and board positions for {idx.names[ident]}",
               identity=ident, facts=models.get(ident), name=idx.names[ident],
               observations=sorted(idx.observations.get(ident, []),
                                   key=lambda o: (o.feed, not o.selected, o.model)),
               placements=idx.placements.get(ident, []), machines=idx.machines.get(ident, []),
               token_prices=idx.token_prices.get(ident, []), build_prices=idx.build_prices.get(ident, []),
               families=snap.families, fits=fits, source_titles={s.name: s.title for s in snap.sources})
