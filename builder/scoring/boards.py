"""Role boards, home-computer picks and stacks: the scoring stage, and the day's snapshot.

``compute_scored_boards`` is the whole scoring stage: calibrate (``calibrate``), combine and
label (``families``, ``rank``), qualify each board, price (``prices``), pick, stack, compare
with the previous snapshot and work the methodology's example. ``compute_snapshot`` adds the
Capability Index (``index``) and hands every part to ``builder.snapshot.assemble_snapshot``.
Both are pure: typed records and config in, typed snapshot parts out.

Board rules (all thresholds from ``site.yml``'s ``prices`` and ``flagship`` sections):

- orchestrator: every scored model;
- open_weight: an Arena catalog licence that is present and not proprietary;
- mid_tier / rote: not a flagship name; a build price, when present, takes precedence:
  rote needs build <= 0.25, mid-tier needs 0.25 < build < cheapest flagship build (no upper
  bound without a priced flagship); otherwise the blended token price: rote 0 < p <= 0.30,
  mid-tier 0.30 < p <= 3;
- build_prices: every model with a positive build price, by quality;
- home computers: open weight, known parameters, ``params_B * 0.5 * 1.25 GB <= 0.8 * memory``;
  order: non-partial first, then higher R, then spelling;
- value stack: OpenRouter blended price strictly below 5 / 1 / 0.30 USD per million tokens;
  ``day of work = 2 o + 10 m + 50 r`` (million tokens per role), only with all three roles.
"""

from __future__ import annotations

import dataclasses
import math
import re
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any, Literal

from pydantic import JsonValue

from builder.config import BoardConfig, FlagshipRule, MachineConfig, SiteConfig
from builder.identity import alias_table, identity_of
from builder.records import NOT_CONFIGURED_LIVE, BuildCheck, FetchStatus, ModelInfo, Observation, Price
from builder.scoring.calibrate import Calibration, compute_calibrated, fit_calibrations
from builder.scoring.families import (
    Contribution,
    available_families,
    compute_contributions,
)
from builder.scoring.index import compute_index_section
from builder.scoring.prices import (
    PRICE_DIGITS,
    BuildPrice,
    blended_price,
    compute_build_prices,
    positive_number,
    select_token_prices,
    valid_token_price,
)
from builder.scoring.rank import (
    PARTIAL_SHARE,
    ScoredModel,
    compute_movement,
    rank_by_key,
    rank_rows,
    score_model,
)
from builder.scoring.robustness import compute_snapshot_robustness
from builder.scoring.uncertainty import compute_snapshot_uncertainty
from builder.snapshot import models as snap
from builder.snapshot.assemble import ScoredBoards, assemble_snapshot
from builder.snapshot.worked import compute_worked_example
from builder.sources.licence import open_weight as licence_open
from builder.sources.registry import DEFAULT_INFO_PRIORITY, Role, SourceKindSpec, sources_with, spec_or_none
from builder.util.io import as_utc

STACK_KINDS = ("orchestrator", "mid_tier", "rote")
"Board kinds that make the best stack, in stack order."


@dataclass(frozen=True)
class ScoringInputs:
    """Everything scoring reads, produced by fetch -> parse -> select.

    ``observations`` carry identity/selected/reason; ``statuses`` maps every configured source
    name to its fetch status (None: never fetched); ``published`` maps source name to the
    payload's publication date when it states one.
    """

    observations: Sequence[Observation]
    prices: Sequence[Price]
    build_checks: Sequence[BuildCheck]
    models: Sequence[ModelInfo]
    statuses: Mapping[str, FetchStatus | None]
    published: Mapping[str, date | None]


# --------------------------------------------------------------------------- names and rules


def name_tokens(name: str) -> list[str]:
    """Lower-case alphanumeric tokens of a model name ('Claude-Opus 4.5' -> claude, opus, 4, 5)."""
    return [t for t in re.split(r"[^a-z0-9]+", name.casefold()) if t]


def is_flagship(name: str, rule: FlagshipRule) -> bool:
    """The flagship-name rule: a flagship token; a flagship prefix; Gemini with 'pro';
    Grok without one of ``rule.grok_unless``."""
    tokens = name_tokens(name)
    dashed = "-".join(tokens)
    if any(t in tokens for t in rule.tokens):
        return True
    if any(dashed.startswith("-".join(name_tokens(p))) for p in rule.prefixes):
        return True
    if rule.gemini_pro and "gemini" in tokens and "pro" in tokens:
        return True
    return "grok" in tokens and not any(t in tokens for t in rule.grok_unless)


def within_fraction(value: float, memory_gb: float, fraction: float) -> bool:
    """``value <= fraction * memory_gb``, compared at PRICE_DIGITS decimals (0.8 * 24 is 19.2)."""
    return round(value, PRICE_DIGITS) <= round(fraction * memory_gb, PRICE_DIGITS)


def qualifies_rote(build: float | None, token: float | None, cfg: SiteConfig) -> bool:
    """Rote worker price rule; the build price takes precedence over the token price."""
    if build is not None:
        return build <= cfg.prices.rote_build_max
    return token is not None and 0 < token <= cfg.prices.rote_token_max


def qualifies_mid_tier(
    build: float | None, token: float | None, cheapest_flagship_build: float | None, cfg: SiteConfig
) -> bool:
    """Mid-tier worker price rule; the build price takes precedence over the token price."""
    if build is not None:
        below_flagship = cheapest_flagship_build is None or build < cheapest_flagship_build
        return build > cfg.prices.mid_build_min and below_flagship
    return token is not None and cfg.prices.mid_token_min < token <= cfg.prices.mid_token_max


def memory_estimate_gb(params_b: float, cfg: SiteConfig) -> float:
    """4-bit weights with 25% overhead, GB: params_B * 0.5 * 1.25 (all experts counted)."""
    return params_b * cfg.prices.bytes_per_param_4bit


# --------------------------------------------------------------------------- inputs


def source_specs(cfg: SiteConfig) -> dict[str, SourceKindSpec]:
    """Source name -> the spec of its kind (sources of an unavailable kind left out)."""
    return {s.name: spec for s in cfg.sources if (spec := spec_or_none(s)) is not None}


def compute_arena_feeds(observations: Iterable[Observation], cfg: SiteConfig) -> tuple[set[str], set[str]]:
    """(Arena text feeds, all Arena feeds): feeds of the enabled sources whose kind plays the
    ``arena`` role; text ends '/text'."""
    arena = sources_with(cfg, "arena")
    text = {f"{name}/text" for name in arena}
    every = {o.feed for o in observations if o.source in arena} | text
    return text, every


def _info_rank(
    info: ModelInfo, specs: Mapping[str, SourceKindSpec], rated: Iterable[str] = (),
) -> tuple[int, str, bool, str]:
    """Fact priority of the source's kind (its ``info_priority``: the operator's curated file,
    then models.dev, LMArena's catalog, Epoch's columns, any other kind after them), then the
    source; within one source the entry for a spelling a rating source uses (the checkpoint
    rated, ``claude-opus-4-5-20251101``) before an alias folded into it (``claude-opus-4-5``)."""
    spec = specs.get(info.source)
    return (spec.info_priority if spec is not None else DEFAULT_INFO_PRIORITY, info.source, info.model not in rated,
            info.model)


def _plays(specs: Mapping[str, SourceKindSpec], source: str, role: Role) -> bool:
    spec = specs.get(source)
    return spec is not None and role in spec.roles


def is_route(spelling: str) -> bool:
    """A price key or reseller route (``azure/eu/gpt-5.5``, ``cloudflare/@cf/...``): never a display name."""
    return "/" in spelling or "@" in spelling


def display_spelling(spellings: Mapping[str, int], arena_name: str | None, identity: str) -> str:
    """The most used spelling among the rating sources (``spelling -> number of rating sources
    that write it``), ties to the Arena text spelling, then the shorter, then the first in
    order; never a route. With only routes, the last segment of the shortest one."""
    plain = [s for s in spellings if s and not is_route(s)]
    if plain:
        return min(plain, key=lambda s: (-spellings[s], s != arena_name, len(s), s))
    for s in sorted(spellings, key=lambda s: (len(s), s)) or [identity]:
        tail = s.rsplit("/", 1)[-1].replace("@", "").strip()
        if tail:
            return tail
    return identity.replace("/", "-").replace("@", "")


def compute_models(
    observations: Sequence[Observation], infos: Sequence[ModelInfo], cfg: SiteConfig,
    extra: Iterable[str] = (), extra_spellings: Mapping[str, Iterable[str]] | None = None,
) -> dict[str, snap.ModelFacts]:
    """Identity -> merged facts for every identity with an observation, in ``extra``, or in
    ``extra_spellings`` (identity -> spellings other stages name it by: Arena battles, eval runs).

    Each fact comes from the first source that states it, in the order of its kind's ``info_priority``, and
    ``sources`` records which one (the model page shows it). ``open_weight`` and ``licence``
    come from the same source where it states both.

    ``name`` is the display name: the curated spelling, else the catalogs' name (models.dev,
    then the Arena catalog), else the most used spelling among the rating sources
    (``display_spelling``); never a price key or reseller route.
    """
    specs = source_specs(cfg)
    named = {k: set(v) for k, v in (extra_spellings or {}).items()}
    extra = set(extra) | set(named)
    text_feeds, _ = compute_arena_feeds(observations, cfg)
    spellings: dict[str, set[str]] = {}
    arena_name: dict[str, str] = {}
    rated: dict[str, dict[str, set[str]]] = {}  # identity -> spelling -> rating sources writing it
    for o in observations:
        if o.identity:
            spellings.setdefault(o.identity, set()).add(o.model)
            rated.setdefault(o.identity, {}).setdefault(o.model, set()).add(o.source)
            if o.feed in text_feeds and o.selected:
                arena_name[o.identity] = o.model
    by_id: dict[str, list[ModelInfo]] = {}
    for info in infos:
        # Only models with evidence: price lists describe thousands of models never rated.
        if info.identity in spellings or info.identity in extra:
            by_id.setdefault(info.identity, []).append(info)
    for ident in extra:
        spellings.setdefault(ident, set())
    for ident, names in named.items():
        spellings[ident] |= names
    for ident, rows in by_id.items():
        spellings[ident] |= {i.model for i in rows}
    out: dict[str, snap.ModelFacts] = {}
    for identity in sorted(spellings):
        rows = sorted(by_id.get(identity, []), key=lambda i: _info_rank(i, specs, rated.get(identity, {})))

        def first(attr: str, rows: list[ModelInfo] = rows) -> tuple[Any, str | None]:
            for i in rows:
                v = getattr(i, attr)
                if v is not None and v != "":
                    return v, i.source
            return None, None

        curated = [i for i in rows if _plays(specs, i.source, "curated")]
        catalog_name = next(((i.name, i.source) for i in rows if _plays(specs, i.source, "catalog")
                             and i.name and not is_route(i.name)), (None, None))
        observed = sorted(s for s in spellings[identity] if s)
        if curated:
            name, name_source = curated[0].model, curated[0].source
        elif catalog_name[0]:
            name, name_source = catalog_name
        else:
            counts = {s: len(v) for s, v in rated.get(identity, {}).items()} or {s: 0 for s in observed}
            name, name_source = display_spelling(counts, arena_name.get(identity), identity), None
        # a source's open-weights status: stated, else read from its licence (builder.sources.licence)
        stated = ((i, i.open_weight if i.open_weight is not None else licence_open(i.licence)) for i in rows)
        ow_row, ow = next(((i, v) for i, v in stated if v is not None), (None, None))
        licence, licence_source = (ow_row.licence, ow_row.source) if ow_row is not None and ow_row.licence else \
            first("licence")
        params, params_source = first("params_b")
        if params is not None and not positive_number(params):
            params, params_source = None, None
        release, release_source = first("release_date")
        maker, maker_source = first("maker")
        window, window_source = first("context_window")
        out[identity] = snap.ModelFacts(
            name=name,
            maker=maker,
            licence=licence,
            open_weight=ow,
            params_b=float(params) if params is not None else None,
            context_window=window,
            release_date=release.isoformat() if isinstance(release, date) else release,
            lineage=first("lineage")[0],
            spellings=tuple(observed),
            sources=snap.FactSources(licence=licence_source, params_b=params_source, name=name_source,
                                     maker=maker_source, open_weight=ow_row.source if ow_row is not None else None,
                                     release_date=release_source, context_window=window_source),
        )
    return out


# --------------------------------------------------------------------------- scoring


def score_role(
    weights: Mapping[str, float],
    contributions: Mapping[str, Sequence[Contribution]],
    names: Mapping[str, str],
    available: set[str],
) -> list[ScoredModel]:
    """Every model with at least one usable weighted family, scored under ``weights``."""
    out = []
    for identity in sorted(contributions):
        scored = score_model(identity, names.get(identity, identity), contributions[identity], weights, available)
        if scored is not None:
            out.append(scored)
    return out


def comparable(previous: snap.Snapshot | None, method_id: str) -> snap.Snapshot | None:
    """The previous snapshot when movement applies to it (same method), else None."""
    return previous if previous is not None and previous.method_id == method_id else None


def previous_ranks(rows: Iterable[snap.BoardRow]) -> dict[str, int]:
    """Identity -> rank of the ranked rows of a previous board or machine."""
    return {r.identity: r.rank for r in rows if r.rank is not None}


def previous_board_ranks(previous: snap.Snapshot | None, board_id: str) -> dict[str, int] | None:
    """Ranks on the previous snapshot's board ``board_id`` ({} when it had none); None: no movement."""
    if previous is None:
        return None
    return next((previous_ranks(b.rows) for b in previous.boards if b.id == board_id), {})


def previous_machine_ranks(previous: snap.Snapshot | None, machine_id: str) -> dict[str, int] | None:
    """Ranks on the previous snapshot's machine ``machine_id`` ({} when it had none); None: no movement."""
    if previous is None:
        return None
    return next((previous_ranks(m.rows) for m in previous.machines if m.id == machine_id), {})


@dataclass(frozen=True)
class PriceBook:
    """Prices per identity: LiteLLM token (USD/M), OpenRouter token (USD/M), build checks."""

    token: Mapping[str, tuple[Price, float]]
    openrouter: Mapping[str, tuple[Price, float]]
    build: Mapping[str, BuildPrice]
    build_sources: frozenset[str] = frozenset()  # sources of the build checks in use

    def token_price(self, identity: str) -> float | None:
        hit = self.token.get(identity)
        return hit[1] if hit else None

    def build_price(self, identity: str) -> float | None:
        hit = self.build.get(identity)
        return hit.price if hit else None


def compute_price_book(inputs: ScoringInputs, cfg: SiteConfig) -> PriceBook:
    def of_role(role: Role) -> list[Price]:
        names = sources_with(cfg, role)
        return [p for p in inputs.prices if p.source in names]

    checkers = sources_with(cfg, "build_checks")
    checks = [c for c in inputs.build_checks if c.source in checkers]
    return PriceBook(select_token_prices(of_role("list_prices")), select_token_prices(of_role("market_prices")),
                     compute_build_prices(checks), frozenset(c.source for c in checks))


def cheapest_flagship_build(book: PriceBook, names: Mapping[str, str], rule: FlagshipRule) -> float | None:
    """Lowest positive build price among flagship names (None: no priced flagship)."""
    prices = [
        b.price for ident, b in book.build.items()
        if b.price is not None and (is_flagship(ident, rule) or is_flagship(names.get(ident, b.model), rule))
    ]
    return min(prices) if prices else None


def qualifies(
    board: BoardConfig,
    s: ScoredModel,
    models: Mapping[str, snap.ModelFacts],
    book: PriceBook,
    flagship_build: float | None,
    cfg: SiteConfig,
) -> bool:
    """Does model ``s`` belong on ``board``? (The board's kind picks the rule.)"""
    if board.kind == "orchestrator":
        return True
    if board.kind == "open_weight":
        facts = models.get(s.identity)
        return facts is not None and facts.open_weight is True
    if board.kind == "build_prices":
        return book.build_price(s.identity) is not None
    if is_flagship(s.identity, cfg.flagship) or is_flagship(s.model, cfg.flagship):
        return False
    build, token = book.build_price(s.identity), book.token_price(s.identity)
    if board.kind == "rote":
        return qualifies_rote(build, token, cfg)
    return qualifies_mid_tier(build, token, flagship_build, cfg)


def _row_fields(s: ScoredModel, rank: int | None, movement: snap.Movement, book: PriceBook) -> dict[str, Any]:
    build = book.build.get(s.identity)
    return {
        "rank": rank,
        "model": s.model,
        "identity": s.identity,
        "r": s.r,
        "score": s.score,
        "partial": s.partial,
        "partial_reasons": tuple(s.partial_reasons),
        "families": dict(s.families),
        "evaluators": tuple(s.evaluators),
        "coverage": s.coverage,
        "available_share": s.available_share,
        "movement": movement,
        "token_price": book.token_price(s.identity),
        "build_price": build.price if build else None,
        "build_passed": build.passed if build else None,
    }


def compute_row(s: ScoredModel, rank: int | None, movement: snap.Movement, book: PriceBook) -> snap.BoardRow:
    """One board row of a scored model."""
    return snap.BoardRow(**_row_fields(s, rank, movement, book))


def board_warning(
    weights: Mapping[str, float], available: set[str], titles: Mapping[str, str]
) -> tuple[str | None, list[str]]:
    """(warning or None, missing family ids): warn when < 50% of the preset weight is available."""
    total = sum(weights.values())
    missing = [f for f in weights if f not in available]
    share = sum(w for f, w in weights.items() if f in available) / total if total > 0 else 0.0
    if share >= PARTIAL_SHARE:
        return None, missing
    names = ", ".join(titles.get(f, f) for f in missing)
    return f"Only {share:.0%} of this board's family weight is available; missing: {names}.", missing


def compute_board(
    board: BoardConfig,
    field: Sequence[ScoredModel],
    cfg: SiteConfig,
    models: Mapping[str, snap.ModelFacts],
    book: PriceBook,
    flagship_build: float | None,
    available: set[str],
    prev: Mapping[str, int] | None,
    statuses: Mapping[str, FetchStatus | None] | None = None,
) -> snap.Board:
    """One board: qualified ranked rows (competition ranks on unrounded R) and the "new" strip;
    when nothing is ranked, why (``board_empty_reason``)."""
    chosen = [s for s in field if qualifies(board, s, models, book, flagship_build, cfg)]
    ranked = rank_rows([s for s in chosen if not s.new], lambda s: s.r, lambda s: s.model)
    strip = rank_rows([s for s in chosen if s.new], lambda s: s.r, lambda s: s.model)
    weights = dict(cfg.roles[board.role].weights)
    warning, missing = board_warning(weights, available, {k: v.title for k, v in cfg.families.items()})
    return snap.Board(
        id=board.id,
        title=board.title,
        kind=board.kind,
        role=board.role,
        description=board.description,
        weights=weights,
        warning=warning,
        missing_families=tuple(missing),
        rows=tuple(compute_row(s, rank, compute_movement(s.identity, rank, prev), book) for rank, s in ranked),
        new=tuple(compute_row(s, None, None, book) for _, s in strip),
        empty_reason=None if ranked else board_empty_reason(board, field, bool(strip), book, cfg, statuses or {}),
    )


def board_empty_reason(board: BoardConfig, field: Sequence[ScoredModel], in_strip: bool, book: PriceBook,
                       cfg: SiteConfig, statuses: Mapping[str, FetchStatus | None]) -> str:
    """One sentence saying why a board ranks no model: no score for its role, every candidate
    in the New strip, no build-check source delivering (and why), or no model passing its rule."""
    if not field:
        return "No model has a score in this role's families in this snapshot."
    if in_strip:
        return "Every model that qualifies has a single independent evaluator so far: they wait in the New strip."
    if board.kind == "build_prices" and not book.build:
        playing = sources_with(cfg, "build_checks")
        checks = [s for s in cfg.sources if s.name in playing]
        if not checks:
            return "No model has a measured build price: no build-check source is configured."
        parts = []
        for s in checks:
            st = statuses.get(s.name)
            title = s.title or s.name
            if st is not None and st.error == NOT_CONFIGURED_LIVE:
                parts.append(f"{title} is not configured for live builds (it has no public URL)")
            elif st is not None and not st.ok:
                parts.append(f"{title} failed to fetch ({st.error})")
            else:
                parts.append(f"{title} has no build check of a scored model")
        return "No model has a measured build price: " + "; ".join(parts) + "."
    rules = {
        "open_weight": "no scored model has open weights according to the model catalogs",
        "mid_tier": "no scored model has a token or build price inside the mid-tier band",
        "rote": "no scored model has a token or build price inside the rote band",
        "build_prices": "no model with a build price has a score in this role's families",
    }
    return f"No model qualifies: {rules.get(board.kind, 'no scored model passes this board rule')}."


def pick_order(s: ScoredModel) -> tuple[bool, float, str]:
    """Non-partial first, then higher unrounded R, then spelling."""
    return (s.partial, -s.r, s.model)


def compute_machine(
    machine: MachineConfig,
    field: Sequence[ScoredModel],
    cfg: SiteConfig,
    models: Mapping[str, snap.ModelFacts],
    book: PriceBook,
    prev: Mapping[str, int] | None,
) -> snap.Machine:
    """Home-computer picks: open-weight, known parameters, 4-bit estimate within the memory fraction.

    Models that fit but have a score from one evaluator only (``new``) go to the machine's New
    strip, unranked, as on the boards."""
    fits: list[tuple[ScoredModel, float]] = []
    strip: list[tuple[ScoredModel, float]] = []
    for s in field:
        facts = models.get(s.identity)
        if facts is None or facts.open_weight is not True or facts.params_b is None:
            continue
        if within_fraction(memory_estimate_gb(facts.params_b, cfg), machine.memory_gb, cfg.prices.memory_fraction):
            (strip if s.new else fits).append((s, facts.params_b))
    fits.sort(key=lambda f: pick_order(f[0]))
    strip.sort(key=lambda f: pick_order(f[0]))
    ranks = rank_by_key(fits, lambda f: (f[0].partial, -f[0].r))
    rows = tuple(
        snap.MachineRow(**_row_fields(s, rank, compute_movement(s.identity, rank, prev), book),
                        params_b=params, memory_est_gb=memory_estimate_gb(params, cfg))
        for rank, (s, params) in zip(ranks, fits, strict=True)
    )
    new = tuple(
        snap.MachineRow(**_row_fields(s, None, None, book), params_b=params,
                        memory_est_gb=memory_estimate_gb(params, cfg))
        for s, params in strip
    )
    return snap.Machine(id=machine.id, name=machine.name, memory_gb=machine.memory_gb, rows=rows, new=new)


def compute_best_stack(boards: Sequence[snap.Board]) -> tuple[snap.BestStackEntry, ...]:
    """First non-partial row (else the first row) of the first board of each stack kind."""
    out = []
    for kind in STACK_KINDS:
        board = next((b for b in boards if b.kind == kind), None)
        if board is None or not board.rows:
            continue
        row = next((r for r in board.rows if not r.partial), board.rows[0])
        out.append(snap.BestStackEntry(role=board.role, board=board.id, model=row.model, identity=row.identity,
                                       r=row.r, score=row.score, partial=row.partial))
    return tuple(out)


def compute_value_stack(
    fields: Mapping[str, Sequence[ScoredModel]], book: PriceBook, cfg: SiteConfig
) -> snap.ValueStack:
    """Per role, the best ranked model whose OpenRouter blended price is strictly below the role's bound."""
    entries = []
    for role, bound in cfg.prices.value_stack_max.items():
        candidates = [
            s for s in fields.get(role, ())
            if not s.new and s.identity in book.openrouter and book.openrouter[s.identity][1] < bound
        ]
        if not candidates:
            continue
        s = min(candidates, key=pick_order)
        entries.append(snap.ValueStackEntry(role=role, model=s.model, identity=s.identity, r=s.r, score=s.score,
                                            partial=s.partial, price=book.openrouter[s.identity][1]))
    priced = {e.role: e.price for e in entries}
    roles = list(cfg.prices.value_stack_max)
    day = None
    if roles and all(r in priced for r in roles):
        day = round(sum(cfg.prices.day_of_work.get(r, 0) * priced[r] for r in roles), PRICE_DIGITS)
    caps = tuple(snap.ValueStackRole(role=r, below=cfg.prices.value_stack_max[r],
                                     tokens=float(cfg.prices.day_of_work.get(r, 0))) for r in roles)
    return snap.ValueStack(entries=tuple(entries), day_of_work=day, roles=caps)


# --------------------------------------------------------------------------- sources and evidence


def json_value(value: Any) -> JsonValue:
    """A record detail as JSON: dates as ISO strings, sequences as lists, non-finite numbers as null."""
    if isinstance(value, (date, datetime)):
        return value.isoformat()
    if isinstance(value, Mapping):
        return {str(k): json_value(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        return [json_value(v) for v in value]
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    return str(value)


def finite_or_none(value: float | None) -> float | None:
    """``value`` when it is a finite number, else None (the snapshot holds no NaN)."""
    return value if value is not None and math.isfinite(value) else None


def compute_observation(o: Observation, calibrated: float | None) -> snap.Observation:
    """One observation as the snapshot records it."""
    details = json_value(dict(o.details))
    assert isinstance(details, dict)
    return snap.Observation(
        source=o.source, feed=o.feed, evaluator=o.evaluator, model=o.model, identity=o.identity,
        raw=finite_or_none(o.raw), calibrated=finite_or_none(calibrated),
        date=o.date.isoformat() if o.date else None, url=o.url, release=o.release, selected=o.selected,
        reason=o.reason, excluded=o.excluded, details=details,
    )


def compute_calibration(c: Calibration) -> snap.Calibration:
    return snap.Calibration(source=c.source, feed=c.feed, release=c.release, n=c.n, overlap=tuple(c.overlap),
                            mu=c.mu, sigma=c.sigma, alpha=c.alpha, beta=c.beta, used=c.used, reason=c.reason)


def source_dates(inputs: ScoringInputs) -> dict[str, date]:
    """Source name -> its publication date, else the newest date among its records."""
    newest: dict[str, date] = {}
    records: Iterable[Observation | Price | BuildCheck] = [*inputs.observations, *inputs.prices, *inputs.build_checks]
    for rec in records:
        if rec.date is not None:
            newest[rec.source] = max(newest.get(rec.source, rec.date), rec.date)
    for name, d in inputs.published.items():
        if d is not None:
            newest[name] = d
    return newest


def compute_sources(
    inputs: ScoringInputs, cfg: SiteConfig, dates: Mapping[str, date], contributing: set[str]
) -> tuple[snap.Source, ...]:
    """Every enabled configured source, credited whether or not it contributed, with its
    rated models and how many of them matched an Arena text rating (the overlap)."""
    text_feeds, _ = compute_arena_feeds(inputs.observations, cfg)
    rated: dict[str, set[str]] = defaultdict(set)
    arena: set[str] = set()
    for o in inputs.observations:
        if o.selected and o.identity and o.excluded is None and o.raw is not None:
            rated[o.source].add(o.identity)
            if o.feed in text_feeds:
                arena.add(o.identity)
    out = []
    for s in cfg.sources:
        if not s.enabled:
            continue
        st = inputs.statuses.get(s.name)
        status: Literal["ok", "failed", "missing", "not_configured"] = (
            "missing" if st is None else "ok" if st.ok else "not_configured" if st.error == NOT_CONFIGURED_LIVE
            else "failed")
        roles = tuple(sorted(spec.roles)) if (spec := spec_or_none(s)) is not None else ()
        out.append(snap.Source(
            name=s.name, title=s.title or s.name, kind=s.kind, status=status,
            roles=roles,
            error=st.error if st is not None else None, licence=s.licence, attribution=s.attribution,
            homepage=s.homepage, url=s.url,
            published=dates[s.name].isoformat() if s.name in dates else None,
            fetched_at=st.fetched_at.isoformat() if st is not None else None,
            payload_fetched_at=st.payload_fetched_at.isoformat() if st is not None and st.payload_fetched_at else None,
            contributing=s.name in contributing,
            models=len(rated[s.name]) if s.name in rated else None,
            arena_overlap=len(rated[s.name] & arena) if s.name in rated and "arena" not in roles else None,
        ))
    return tuple(out)


def compute_contributing(
    boards: Sequence[snap.Board],
    machines: Sequence[snap.Machine],
    value: snap.ValueStack,
    contributions: Mapping[str, Sequence[Contribution]],
    models: Mapping[str, snap.ModelFacts],
    book: PriceBook,
    cfg: SiteConfig,
) -> set[str]:
    """Sources whose evidence shows up on a published board, pick or stack."""
    used: set[str] = set()
    for b in boards:
        weights = cfg.roles[b.role].weights
        for row in [*b.rows, *b.new]:
            ident = row.identity
            used |= {c.source for c in contributions.get(ident, ()) if weights.get(c.family, 0) > 0}
            if row.token_price is not None:
                used.add(book.token[ident][0].source)
            if row.build_price is not None or row.build_passed is not None:
                used |= book.build_sources
            facts = models.get(ident)
            fact_source = facts.sources.open_weight or facts.sources.licence if facts is not None else None
            if b.kind == "open_weight" and fact_source:
                used.add(fact_source)
    for m in machines:
        for mrow in m.rows:
            facts = models.get(mrow.identity)
            if facts is not None and facts.sources.params_b:
                used.add(facts.sources.params_b)
    for e in value.entries:
        used.add(book.openrouter[e.identity][0].source)
    return used


def compute_prices(book: PriceBook, prices: Sequence[Price], identities: set[str]) -> snap.Prices:
    """Token entries for the snapshot's models (all valid entries, ``used`` marks the chosen one)."""
    chosen = {id(p) for p, _ in [*book.token.values(), *book.openrouter.values()]}
    token = [
        snap.TokenPrice(identity=p.identity, source=p.source, key=p.key, input_per_token=float(p.input_per_token),
                        output_per_token=float(p.output_per_token),
                        blended=blended_price(float(p.input_per_token), float(p.output_per_token)),
                        used=id(p) in chosen)
        for p in prices
        if p.identity in identities and valid_token_price(p) and p.input_per_token is not None
        and p.output_per_token is not None
    ]
    token.sort(key=lambda t: (t.identity, t.source, t.key))
    build = tuple(snap.BuildPrice(identity=b.identity, model=b.model, epoch=b.epoch, price=b.price, passed=b.passed,
                                  jobs=b.jobs) for _, b in sorted(book.build.items()))
    return snap.Prices(token=tuple(token), build=build)


# --------------------------------------------------------------------------- the stage


def compute_scored_boards(
    inputs: ScoringInputs,
    cfg: SiteConfig,
    now: datetime,
    previous: snap.Snapshot | None,
    extra_spellings: Mapping[str, Iterable[str]] | None = None,
) -> ScoredBoards:
    """Score everything the role boards show. Pure: no I/O.

    ``now`` is the build time (UTC; a naive time is taken as UTC); ``previous`` is the
    previous day's snapshot, used only for movement (and only under the same method).
    ``extra_spellings`` (identity -> spellings) names models other stages show, so that they
    have facts in ``models`` (see ``compute_models``).
    """
    now = as_utc(now)
    method_id = cfg.method_id()
    earlier = comparable(previous, method_id)
    enabled = {s.name for s in cfg.sources if s.enabled}
    configured = {s.name for s in cfg.sources}
    observations = [o for o in inputs.observations if o.source in enabled or o.source not in configured]
    text_feeds, arena_feeds = compute_arena_feeds(observations, cfg)
    calibrations: list[Calibration] = fit_calibrations(observations, text_feeds, arena_feeds)
    calibrated = compute_calibrated(observations, calibrations, arena_feeds)
    contributions = compute_contributions(observations, calibrated, {k: v.feeds for k, v in cfg.families.items()})
    available = available_families(contributions)
    book = compute_price_book(inputs, cfg)
    # Curated models count even before any evaluation (the Capability Index may inherit
    # a score for them through their lineage); price lists' thousands of entries do not.
    curated_sources = sources_with(cfg, "curated")
    curated = {i.identity for i in inputs.models if i.source in curated_sources and i.identity}
    models = compute_models(observations, inputs.models, cfg, extra=set(book.build) | curated,
                            extra_spellings=extra_spellings)
    names = {k: v.name for k, v in models.items()}
    fields = {role: score_role(rc.weights, contributions, names, available) for role, rc in cfg.roles.items()}
    flagship_build = cheapest_flagship_build(book, names, cfg.flagship)
    boards = tuple(
        compute_board(b, fields[b.role], cfg, models, book, flagship_build, available,
                      previous_board_ranks(earlier, b.id), inputs.statuses)
        for b in cfg.boards
    )
    uncertainty, boards = compute_snapshot_uncertainty(
        observations, calibrated, calibrations, arena_feeds, text_feeds,
        {k: v.feeds for k, v in cfg.families.items()}, boards, cfg.uncertainty.rounds, cfg.uncertainty.seed)
    boards = compute_snapshot_robustness(observations, contributions, text_feeds, boards, cfg.robustness)
    pick_role = next((b.role for b in cfg.boards if b.kind == "open_weight"), "orchestrator")
    machines = tuple(
        compute_machine(m, fields.get(pick_role, []), cfg, models, book, previous_machine_ranks(earlier, m.id))
        for m in cfg.machines
    )
    value = compute_value_stack(fields, book, cfg)
    contributing = compute_contributing(boards, machines, value, contributions, models, book, cfg)
    dates = source_dates(inputs)
    sources = compute_sources(inputs, cfg, dates, contributing)
    # The boards' date is their scores' date: a price list fetched later does not make a ranking newer.
    scored = {o.source for o, c in zip(observations, calibrated, strict=True) if c is not None}
    credited = [dates[s.name] for s in sources if s.name in dates and s.name in scored]
    arena_names = sources_with(cfg, "arena")
    stale = any((st := inputs.statuses.get(n)) is not None and not st.ok for n in arena_names)
    families = {k: snap.Family(title=v.title, feeds=tuple(v.feeds)) for k, v in cfg.families.items()}
    snap_observations = tuple(compute_observation(o, c) for o, c in zip(observations, calibrated, strict=True))
    snap_calibration = tuple(compute_calibration(c) for c in calibrations)
    return ScoredBoards(
        date=now.date().isoformat(),
        created_at=now.isoformat(),
        method_id=method_id,
        as_of=max(credited).isoformat() if credited else None,
        stale=stale,
        previous_date=earlier.date if earlier is not None else None,
        site=snap.SiteInfo(title=cfg.site.title, url=cfg.site.url),
        sources=sources,
        families=families,
        roles={k: snap.Role(title=v.title, weights=dict(v.weights)) for k, v in cfg.roles.items()},
        observations=snap_observations,
        calibration=snap_calibration,
        models=models,
        prices=compute_prices(book, inputs.prices, set(models)),
        boards=boards,
        machines=machines,
        stacks=snap.Stacks(best=compute_best_stack(boards), value=value),
        uncertainty=uncertainty,
        worked_example=compute_worked_example(boards, families, snap_observations, snap_calibration, sources),
    )


def named_elsewhere(
    cfg: SiteConfig, arena: snap.Arena | None, evals: snap.Evals | None
) -> dict[str, set[str]]:
    """Identity -> spellings of the models the Arena section and the index's eval suites name.

    Arena battle spellings fold to identities as every observation does; an eval suite that
    feeds the Capability Index names its models by their ids, which the index uses as
    identities.
    """
    out: dict[str, set[str]] = {}
    if arena is not None:
        spellings = {m.model for m in arena.models} | {n for c in arena.components for n in c.models}
        spellings |= {n for u in arena.unrated for n in u.models} | set(arena.winrate.models)
        spellings |= {m.model for s in arena.history for m in s.models}
        table = alias_table(cfg)
        for name in spellings:
            out.setdefault(identity_of(name, cfg.folding, table), set()).add(name)
    if evals is not None and cfg.index.enabled:
        feeds = {b.feed for b in cfg.index.boards}
        for suite in evals.suites:
            if f"evals/{suite.id}" in feeds:
                for row in suite.rows:
                    out.setdefault(row.model_id, set()).add(row.model_id)
    return out


EVALS_SOURCE = "evals"
"The source name of the observations an eval suite gives a family (feed ``evals/<suite id>``)."


def eval_suite_observations(cfg: SiteConfig, evals: snap.Evals | None, day: date) -> list[Observation]:
    """One observation per model of each eval suite a family names (``evals/<suite id>``): the
    model's mean score on the suite's shown metric, in percent (0-100), dated ``day``. They
    are calibrated and weighed like any source's rows (identity and selection included)."""
    from builder.scoring.select import select_observations

    wanted = {f for fam in cfg.families.values() for f in fam.feeds if f.startswith(f"{EVALS_SOURCE}/")}
    out: list[Observation] = []
    for suite in evals.suites if evals is not None else ():
        feed = f"{EVALS_SOURCE}/{suite.id}"
        if feed not in wanted:
            continue
        for row in suite.rows:
            out.append(Observation(
                source=EVALS_SOURCE, feed=feed, evaluator=f"{EVALS_SOURCE}:{suite.id}", model=row.model_id,
                raw=100.0 * row.mean_score, date=day, url="", percent=True,
                details={"metric": suite.metric, "tasks": row.tasks_completed}))
    return select_observations(out, cfg) if out else []


def with_eval_observations(
    inputs: ScoringInputs, cfg: SiteConfig, evals: snap.Evals | None, day: date
) -> ScoringInputs:
    """``inputs`` with the eval-suite observations the families ask for added (the same when none)."""
    extra = eval_suite_observations(cfg, evals, day)
    if not extra:
        return inputs
    return dataclasses.replace(inputs, observations=(*inputs.observations, *extra))


def compute_snapshot(
    inputs: ScoringInputs,
    cfg: SiteConfig,
    now: datetime,
    previous: snap.Snapshot | None,
    *,
    arena: snap.Arena | None = None,
    evals: snap.Evals | None = None,
    demo: bool | None = None,
    backfill: snap.Backfill | None = None,
) -> snap.Snapshot:
    """The day's complete snapshot: the scored boards, the Capability Index over them, and the
    given Arena and eval-suite sections, joined by ``assemble_snapshot``. Pure: no I/O.

    ``demo`` defaults to ``cfg.demo``; ``backfill`` describes a demo-history day.
    """
    inputs = with_eval_observations(inputs, cfg, evals, as_utc(now).date())
    scored = compute_scored_boards(inputs, cfg, now, previous, named_elsewhere(cfg, arena, evals))
    index = compute_index_section(scored.observations, scored.models, evals, scored.date, cfg.index) \
        if cfg.index.enabled else None
    return assemble_snapshot(scored, demo=cfg.demo if demo is None else demo, arena=arena, evals=evals,
                             index=index, backfill=backfill)
