"""Snapshot -> the static API documents (``api/v1/``), and their files.

    compute_api(snapshot, history, downloads=..., slug=..., settings=...) -> ApiDocuments
    render_api_files(docs)                                                 -> {path: text}
    render_schema_files(base_url)                                          -> {path: text} (the schemas)

Nothing is refitted: every number is read from the snapshot. A board document's rows are
the rows of the board download (``downloads[id]``, the document ``data/boards/{id}.json`` is
written from), so the two never disagree. The ``explain`` arithmetic of each model's board
rows is ``builder.evidence.explain.explain_row``, the function behind ``modelboards explain``,
called here at API-writing time (until the snapshot carries that data itself); that keeps
this module out of ``builder.render``. The cost is linear in the snapshot: observations are
grouped by identity once, and each row is explained from its own observations.
"""

from __future__ import annotations

import json
import re
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from builder.api.catalogue import endpoint_paths
from builder.api.models import (
    SCHEMAS,
    ApiDocuments,
    ArenaFlipInfo,
    ArenaInfo,
    BoardDoc,
    Endpoint,
    IndexDoc,
    ModelDoc,
    SnapshotRef,
    SourceInfo,
    document_text,
)
from builder.config import SiteConfig
from builder.evidence.explain import explain_row, format_explain
from builder.snapshot.models import ROW_UNCERTAINTY_FIELDS, BoardRow, Observation, Snapshot

Doc = Mapping[str, Any]
SOURCE_FIELDS = tuple(SourceInfo.model_fields)
JSON_SCHEMA_DIALECT = "https://json-schema.org/draft/2020-12/schema"


class ContentLike(Protocol):
    @property
    def body(self) -> str: ...


@dataclass(frozen=True)
class ApiSettings:
    """What the API needs besides the snapshot (from ``site.yml`` and ``content/``)."""

    base_url: str
    "Public base URL of the site, ending in '/'; every link in the documents starts with it."
    site_title: str
    licence: str
    "Licence of the rating tables."
    attribution: str
    "Credit line of the board downloads."
    aliases: Mapping[str, str] = field(default_factory=dict)
    "Configured aliases: spelling -> identity key."
    memory_fraction: float = 0.8
    "Home-computer picks: the share of a machine's memory a 4-bit estimate must fit in."
    gb_per_billion_params: float = 0.625
    "Home-computer picks: GB per billion parameters at 4 bits, overhead included."
    methodology: str | None = None
    "Markdown body of the methodology page (content/methodology.md), or None."



def _flat_row(row: Mapping[str, Any]) -> dict[str, Any]:
    """A snapshot row with its ``uncertainty`` object spread into flat fields (null without one)."""
    out = {k: v for k, v in row.items() if k != "uncertainty"}
    u = row.get("uncertainty") or {}
    return {**out, **{k: u.get(k) for k in ROW_UNCERTAINTY_FIELDS}}

def api_settings(cfg: SiteConfig, base_url: str, licence: str, attribution: str,
                 methodology: ContentLike | None) -> ApiSettings:
    """The settings from ``site.yml`` (and the methodology page, anything with a markdown ``body``)."""
    return ApiSettings(base_url=base_url, site_title=cfg.site.title, licence=licence, attribution=attribution,
                       aliases=dict(cfg.aliases), memory_fraction=cfg.prices.memory_fraction,
                       gb_per_billion_params=cfg.prices.bytes_per_param_4bit,
                       methodology=methodology.body if methodology is not None else None)


# --------------------------------------------------------------------------- helpers


def _source_infos(snapshot: Doc) -> list[SourceInfo]:
    return [SourceInfo.model_validate({k: s.get(k) for k in SOURCE_FIELDS if s.get(k) is not None})
            for s in snapshot.get("sources") or [] if isinstance(s, Mapping) and s.get("name")]


def snapshot_ref(snapshot: Doc, base_url: str) -> SnapshotRef:
    return SnapshotRef(date=str(snapshot.get("date")), created_at=snapshot.get("created_at"),
                       method_id=str(snapshot.get("method_id")), as_of=snapshot.get("as_of"),
                       stale=bool(snapshot.get("stale")), demo=bool(snapshot.get("demo")),
                       download=f"{base_url}data/snapshots/{snapshot.get('date')}.json")


def _boards(snapshot: Doc) -> list[Doc]:
    return [b for b in snapshot.get("boards") or [] if isinstance(b, Mapping) and b.get("id")]


def board_rule(board: Doc) -> str:
    """The rule that picks and orders a board's rows, in words."""
    weights = board.get("weights") or {}
    mix = ", ".join(f"{f} {w:g}" for f, w in sorted(weights.items(), key=lambda kv: (-kv[1], kv[0])))
    desc = (board.get("description") or "").strip()
    return (f"{desc + ' ' if desc else ''}Rows are ranked by R, the weighted mean of the model's family values "
            f"on the Arena scale ({mix}; a missing family drops out and the rest renormalise), competition "
            "rank on the unrounded R. Models scored by only one independent evaluator are listed unranked "
            "in the New strip.")


def machine_rule(machine: Doc, settings: ApiSettings) -> tuple[float, str]:
    """(memory limit in GB, the home-computer pick rule in words) for one machine."""
    memory = float(machine.get("memory_gb") or 0)
    limit = round(settings.memory_fraction * memory, 6)
    return limit, (
        f"Open-weight models with a known total parameter count whose 4-bit memory estimate (billions of "
        f"parameters x {settings.gb_per_billion_params:g} GB, every expert included) is at most "
        f"{settings.memory_fraction:.0%} of {memory:g} GB, i.e. {limit:g} GB; picks are ordered non-partial "
        "first, then higher unrounded R, then spelling. Quality comes from API evaluations, not from runs "
        "on that hardware.")


def methodology_markdown(body: str | None, base_url: str) -> str:
    """The methodology markdown with site-absolute links made absolute and the generated
    tables (``[[slot]]`` paragraphs) replaced by a pointer to the page that shows them."""
    if not body:
        return f"# Methodology\n\nSee {base_url}methodology/\n"
    text = re.sub(r"\]\(/([^)\s]*)\)", lambda m: f"]({base_url}{m.group(1)})", body)
    text = re.sub(r"(?m)^\[\[([a-z0-9-]+)\]\]$",
                  lambda m: f"*(The {m.group(1).replace('-', ' ')} table is generated from the snapshot: "
                            f"see {base_url}methodology/)*", text)
    return text.strip() + "\n"


def _observation_ref(o: Doc) -> dict[str, Any]:
    return {k: o.get(k) for k in ("source", "feed", "release", "evaluator", "model", "raw", "calibrated",
                                  "date", "url")}


class _Index:
    """Everything about each identity, gathered in one pass over the snapshot."""

    def __init__(self, snapshot: Doc, settings: ApiSettings) -> None:
        self.models: Mapping[str, Doc] = snapshot.get("models") or {}
        self.families: Mapping[str, Doc] = snapshot.get("families") or {}
        self.sources = _source_infos(snapshot)
        self.source_url = {s.name: s.url for s in self.sources}
        self.observations: dict[str, list[Doc]] = defaultdict(list)
        for o in snapshot.get("observations") or []:
            if isinstance(o, Mapping) and o.get("identity"):
                self.observations[o["identity"]].append(o)
        self.placements: dict[str, list[tuple[Doc, Doc, str]]] = defaultdict(list)
        self.names: dict[str, str] = {}
        for b in _boards(snapshot):
            for strip in ("rows", "new"):
                for r in b.get(strip) or []:
                    self.placements[r["identity"]].append((b, r, "ranked" if strip == "rows" else "new"))
                    self.names.setdefault(r["identity"], r.get("model") or r["identity"])
        self.machines: dict[str, list[tuple[Doc, Doc]]] = defaultdict(list)
        for m in snapshot.get("machines") or []:
            for r in m.get("rows") or []:
                self.machines[r["identity"]].append((m, r))
        prices = snapshot.get("prices") or {}
        self.token: dict[str, list[Doc]] = defaultdict(list)
        for p in prices.get("token") or []:
            self.token[p.get("identity")].append({**p, "url": self.source_url.get(p.get("source"))})
        build_sources = [s.name for s in self.sources if "build_checks" in s.roles]
        build_url = self.source_url.get(build_sources[0]) if build_sources else None
        self.build_source = build_sources[0] if build_sources else ""
        self.build: dict[str, list[Doc]] = defaultdict(list)
        for p in prices.get("build") or []:
            self.build[p.get("identity")].append({**p, "url": build_url})
        self.list_price_sources = {s.name for s in self.sources if "list_prices" in s.roles}
        for ident, meta in self.models.items():
            self.names[ident] = (meta or {}).get("name") or self.names.get(ident) or ident
        for ident, obs in self.observations.items():
            self.names.setdefault(ident, obs[0].get("model") or ident)
        self.identities = sorted(set(self.models) | set(self.observations) | set(self.placements))
        self.aliases: dict[str, list[str]] = defaultdict(list)
        for spelling, ident in sorted(settings.aliases.items()):
            self.aliases[ident].append(spelling)
        self.spelling_identity: dict[str, str] = {}
        for ident in self.identities:
            for s in self.spellings(ident):
                self.spelling_identity.setdefault(s, ident)
                self.spelling_identity.setdefault(s.casefold(), ident)

    def spellings(self, ident: str) -> list[str]:
        meta = self.models.get(ident) or {}
        found = set(meta.get("spellings") or []) | {o.get("model") for o in self.observations.get(ident, [])}
        found |= {r.get("model") for _, r, _ in self.placements.get(ident, [])}
        return sorted(s for s in found if isinstance(s, str) and s)

    def family_values(self, ident: str, family: str) -> list[dict[str, Any]]:
        feeds = set((self.families.get(family) or {}).get("feeds") or [])
        return [_observation_ref(o) for o in self.observations.get(ident, [])
                if o.get("calibrated") is not None and o.get("feed") in feeds]

    def provenance(self, row: Doc) -> dict[str, list[str]]:
        """Number of the row -> URLs of the published values behind it (see ``models.Provenance``)."""
        ident = row["identity"]
        out = {f: list(dict.fromkeys(v["url"] for v in self.family_values(ident, f) if v["url"]))
               for f in row.get("families") or {}}
        if row.get("token_price") is not None:
            hit = next((p for p in self.token.get(ident, []) if p.get("used") and p["source"] in self.list_price_sources
                        and p.get("blended") == row["token_price"]), None)
            out["token_price"] = [hit["url"]] if hit is not None and hit["url"] else []
        if row.get("build_price") is not None:
            hit = next((p for p in self.build.get(ident, []) if p.get("price") == row["build_price"]), None)
            out["build_price"] = [hit["url"]] if hit is not None and hit["url"] else []
        return out


def _history_view(s: Snapshot) -> Doc:
    """What the models' history reads of an earlier snapshot, in its JSON names and values
    (as ``model_dump(mode="json")`` has them, without dumping the rest of the snapshot)."""
    def points(rows: Sequence[BoardRow]) -> list[Doc]:
        return [{"identity": r.identity, "rank": r.rank, "score": r.score, "r": r.r} for r in rows]

    return {"date": s.date, "method_id": s.method_id,
            "boards": [{"id": b.id, "rows": points(b.rows), "new": points(b.new)} for b in s.boards]}


# --------------------------------------------------------------------------- documents



def _flip_infos(flips: Any) -> list[ArenaFlipInfo]:
    """The snapshot's Arena flip budgets (``arena.flips``, ``arena.style.flips``) for the API."""
    keys = ("higher", "lower", "position", "gap", "approx_votes", "votes", "flipped", "minimal", "upper_bound",
            "checked_votes", "n_votes", "share", "removed")
    return [ArenaFlipInfo.model_validate({k: f.get(k) for k in keys}) for f in flips or []
            if isinstance(f, Mapping)]


def compute_api(
    typed: Snapshot,
    typed_history: Sequence[Snapshot],
    *,
    downloads: Mapping[str, Doc],
    slug: Callable[[str], str],
    settings: ApiSettings,
) -> ApiDocuments:
    """Every ``api/v1`` document for ``snapshot``.

    ``history``: earlier snapshots (any order; one per date, those dated before ``snapshot``
    are used) for the models' history. ``downloads``: board id -> the board download
    document (``data/boards/{id}.json``). ``slug``: identity -> the model page's folder name.
    """
    # the documents are assembled from the snapshot's JSON form (the names the API publishes)
    snapshot: Doc = typed.model_dump(mode="json")
    history = [_history_view(h) for h in typed_history if h.date < typed.date]
    typed_obs: dict[str, list[Observation]] = defaultdict(list)
    for o in typed.observations:
        typed_obs[o.identity].append(o)
    typed_rows = {(tb.id, tr.identity): (tb, tr) for tb in typed.boards for tr in (*tb.rows, *tb.new)}
    base = settings.base_url
    ref = snapshot_ref(snapshot, base)
    idx = _Index(snapshot, settings)
    sources = idx.sources
    day = ref.date
    earlier: dict[str, Doc] = {}
    for h in history:
        d = h.get("date")
        if isinstance(d, str) and d < day:
            earlier[d] = h
    timeline = [earlier[d] for d in sorted(earlier)] + [snapshot]

    def model_api(ident: str) -> str:
        return f"{base}api/v1/models/{slug(ident)}.json"

    def model_page(ident: str) -> str:
        return f"{base}models/{slug(ident)}/"

    # boards
    download_rows = {(bid, r["identity"]): r for bid, dl in downloads.items()
                     for r in [*(dl.get("rows") or []), *(dl.get("new") or [])]}
    board_docs: dict[str, BoardDoc] = {}
    summaries = []
    for b in _boards(snapshot):
        bid = b["id"]
        dl = downloads[bid]
        rows, new = list(dl.get("rows") or []), list(dl.get("new") or [])
        rule = board_rule(b)
        urls = {"api": f"{base}api/v1/boards/{bid}.json", "download": f"{base}data/boards/{bid}.json",
                "page": f"{base}boards/{bid}/"}
        board_docs[bid] = BoardDoc.model_validate({
            "snapshot": ref, "board": dl["board"], "rule": rule, "licence": dl.get("licence") or settings.licence,
            "attribution": dl.get("attribution") or settings.attribution, "download": urls["download"],
            "page": urls["page"], "rows": rows, "new": new, "uncertainty": dl.get("uncertainty"),
            "provenance": {r["identity"]: idx.provenance(r) for r in rows + new}, "sources": sources,
        })
        summaries.append({
            **{k: b.get(k) for k in ("id", "title", "kind", "role", "description", "warning", "missing_families")},
            "weights": b.get("weights") or {}, "ranked": len(rows), "new": len(new),
            "top": rows[0]["identity"] if rows else None, "as_of": snapshot.get("as_of"), "rule": rule, **urls,
        })

    machines = []
    for m in snapshot.get("machines") or []:
        limit, rule = machine_rule(m, settings)
        machines.append({"id": m.get("id"), "name": m.get("name"), "memory_gb": m.get("memory_gb"),
                         "limit_gb": limit, "rule": rule, "rows": [_flat_row(r) for r in m.get("rows") or []],
                         "page": f"{base}picks/#machine-{m.get('id')}"})

    # arena fit: spellings -> identities, ratings and the observed win-rate matrix
    arena = snapshot.get("arena") if isinstance(snapshot.get("arena"), Mapping) else None
    arena_entries: dict[str, list[dict[str, Any]]] = defaultdict(list)
    head_to_head: dict[str, list[dict[str, Any]]] = defaultdict(list)
    arena_info = None
    if arena:
        method = arena.get("method") or {}
        style = arena.get("style") if isinstance(arena.get("style"), Mapping) else {}
        arena_info = ArenaInfo(source=arena.get("source"), n_battles=arena.get("n_battles"),
                               scale=float(method.get("scale") or 400.0), base=float(method.get("base") or 10.0),
                               page=f"{base}arena/", flips=_flip_infos(arena.get("flips")),
                               style_flips=_flip_infos(style.get("flips")))

        def arena_identity(spelling: Any) -> str | None:
            if not isinstance(spelling, str):
                return None
            return idx.spelling_identity.get(spelling) or idx.spelling_identity.get(spelling.casefold())

        for a in arena.get("models") or []:
            ident = arena_identity(a.get("model"))
            if ident is not None:
                arena_entries[ident].append({k: a.get(k) for k in ("model", "rating", "lower", "upper", "rank",
                                                                   "battles", "wins", "ties", "win_rate",
                                                                   "component")})
        wr = arena.get("winrate") or {}
        names = wr.get("models") or []
        battles, empirical = wr.get("battles") or [], wr.get("empirical") or []
        for i, a in enumerate(names):
            ident = arena_identity(a)
            if ident is None:
                continue
            for j, opp in enumerate(names):
                n = battles[i][j] if i < len(battles) and j < len(battles[i]) else 0
                if i != j and n:
                    head_to_head[ident].append({"model": a, "opponent": opp, "opponent_identity": arena_identity(opp),
                                                "battles": int(n), "win_rate": empirical[i][j]})

    # history: one pass over the saved snapshots
    wanted = set(idx.identities)
    history_points: dict[str, dict[str, list[dict[str, Any]]]] = defaultdict(lambda: defaultdict(list))
    for s in timeline:
        d = str(s.get("date"))
        for b in _boards(s):
            for strip in ("rows", "new"):
                for r in b.get(strip) or []:
                    if r.get("identity") in wanted:
                        history_points[r["identity"]][b["id"]].append({
                            "date": d, "method_id": s.get("method_id"), "strip": "ranked" if strip == "rows" else "new",
                            "rank": r.get("rank"), "score": r.get("score"), "r": r.get("r"),
                            "download": f"{base}data/snapshots/{d}.json"})

    # models
    model_docs: dict[str, ModelDoc] = {}
    model_summaries = []
    fam_titles = {f: (spec or {}).get("title") or f for f, spec in idx.families.items()}
    for ident in idx.identities:
        meta = idx.models.get(ident) or {}
        placed = idx.placements.get(ident, [])
        families: dict[str, Any] = {}
        for fam in idx.families:
            values = idx.family_values(ident, fam)
            if values:
                mean = next(((r.get("families") or {}).get(fam) for _, r, _ in placed
                             if fam in (r.get("families") or {})), None)
                families[fam] = {"title": fam_titles[fam], "mean": mean, "values": values}
        own_obs = idx.observations.get(ident, [])
        boards = []
        for b, _row, strip in placed:
            typed_board, typed_row = typed_rows[(b["id"], ident)]
            ex = explain_row(typed, typed_board, typed_row, typed_obs.get(ident, []))
            obs_url: dict[tuple[Any, ...], Any] = {(o.get("source"), o.get("feed"), o.get("release"), o.get("model")):
                                                   o.get("url") for o in own_obs}
            for src in ex["sources"]:
                src["url"] = obs_url.get((src["source"], src["feed"], src["release"], src["model"]))
            ex["text"] = format_explain(ex)
            row = download_rows[(b["id"], ident)]
            boards.append({"board": b["id"], "title": b.get("title"), "strip": strip, "row": row, "explain": ex})
        slug_ = slug(ident)
        doc = {
            "snapshot": ref, "identity": ident, "slug": slug_, "name": idx.names[ident], "page": model_page(ident),
            "facts": {k: meta.get(k) for k in ("maker", "licence", "open_weight", "params_b", "context_window",
                                               "release_date", "lineage")},
            "spellings": idx.spellings(ident), "aliases": idx.aliases.get(ident, []), "families": families,
            "boards": boards,
            "machines": [{"machine": m.get("id"), "name": m.get("name"), "rank": r.get("rank"),
                          "memory_est_gb": r.get("memory_est_gb")} for m, r in idx.machines.get(ident, [])],
            "token_prices": [{k: p.get(k) for k in ("source", "key", "input_per_token", "output_per_token",
                                                    "blended", "used", "url")} for p in idx.token.get(ident, [])],
            "build_prices": [{k: p.get(k) for k in ("model", "epoch", "price", "passed", "jobs", "url")}
                             for p in idx.build.get(ident, [])],
            "arena": arena_entries.get(ident, []), "head_to_head": head_to_head.get(ident, []),
            "history": {bid: pts for bid, pts in history_points.get(ident, {}).items()},
        }
        model_docs[slug_] = ModelDoc.model_validate(doc)
        model_summaries.append({
            "identity": ident, "slug": slug_, "name": idx.names[ident], "maker": meta.get("maker"),
            "licence": meta.get("licence"), "open_weight": meta.get("open_weight"), "params_b": meta.get("params_b"),
            "spellings": doc["spellings"], "aliases": doc["aliases"],
            "boards": list(dict.fromkeys(b["id"] for b, _, _ in placed)),
            "api": model_api(ident), "page": model_page(ident),
        })

    index = IndexDoc.model_validate({
        "site": {"title": settings.site_title, "url": base}, "snapshot": ref, "licence": settings.licence,
        "attribution": settings.attribution,
        "endpoints": [Endpoint(name=n, path=p, url=base + p, description=d) for n, p, d in endpoint_paths()],
        "snapshots": [str(s.get("date")) for s in timeline], "boards": summaries, "models": model_summaries,
        "machines": machines,
        "families": {f: {"title": fam_titles[f], "feeds": list((spec or {}).get("feeds") or [])}
                     for f, spec in idx.families.items()},
        "sources": sources, "arena": arena_info,
    })
    return ApiDocuments(index=index, boards=board_docs, models=model_docs,
                        methodology=methodology_markdown(settings.methodology, base))


# --------------------------------------------------------------------------- files


def dump_document(doc: Any) -> str:
    """Readable JSON text (the schemas): UTF-8, one-space indent, keys in order, trailing newline."""
    return json.dumps(doc, ensure_ascii=False, allow_nan=False, indent=1) + "\n"


def compute_schemas(base_url: str) -> dict[str, dict[str, Any]]:
    """Schema stem -> JSON Schema (draft 2020-12) of that document kind."""
    out = {}
    for stem, model in SCHEMAS.items():
        schema = model.model_json_schema()
        out[stem] = {"$schema": JSON_SCHEMA_DIALECT, "$id": f"{base_url}api/v1/schema/{stem}.json", **schema}
    return out


def render_schema_files(base_url: str) -> dict[str, str]:
    """Path below the site root -> text of every document kind's schema (``api/v1/schema/``)."""
    return {f"api/v1/schema/{stem}.json": dump_document(schema) for stem, schema in compute_schemas(base_url).items()}


def render_api_files(docs: ApiDocuments, schema_files: Mapping[str, str] | None = None) -> dict[str, str]:
    """Path below the site root -> file text, for every document, schema and the methodology.

    ``schema_files`` is ``render_schema_files`` of the site's URL when the caller has it already."""
    files = {"api/v1/index.json": document_text(docs.index)}
    for bid, b in docs.boards.items():
        files[f"api/v1/boards/{bid}.json"] = document_text(b)
    for slug, m in docs.models.items():
        files[f"api/v1/models/{slug}.json"] = document_text(m)
    files.update(schema_files if schema_files is not None else render_schema_files(docs.index.site.url))
    files["api/v1/methodology.md"] = docs.methodology
    return files
