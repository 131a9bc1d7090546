"""The documents of the static API ``api/v1/``: pydantic models, the single description of every field.

Three kinds of document, each with a JSON Schema generated from its model and published
under ``api/v1/schema/``:

- ``api/v1/index.json`` (``IndexDoc``): the snapshot, the endpoints, every board (summary),
  every model (summary and search keys), the home-computer picks, the sources;
- ``api/v1/boards/{id}.json`` (``BoardDoc``): one board; its ``rows`` and ``new`` are the rows
  of the download ``data/boards/{id}.json``, field for field, with where each number came from;
- ``api/v1/models/{slug}.json`` (``ModelDoc``): one model: facts, calibrated values per family,
  its row and the ``explain`` arithmetic on every board it is on, prices, Arena fit, history.

Field names are stable within ``v1``: a field may be added, never renamed or removed (that
would be ``v2``). Dates are ISO strings (UTC), scores are on the Arena scale, prices are USD
(token prices per million tokens, 0.75 input + 0.25 output; build prices per build). Links
are absolute URLs: ``page``/``api``/``download`` fields point into the site, ``url`` fields
to the upstream source of a number (``null`` where the source is a local file).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final, Literal

from pydantic import BaseModel, ConfigDict, Field

API_VERSION: Final = "v1"

_PER_TYPE_KEYWORDS = frozenset({
    "type", "title", "description", "default", "examples", "format",
    "items", "prefixItems", "minItems", "maxItems", "uniqueItems",
    "properties", "required", "additionalProperties", "patternProperties", "minProperties", "maxProperties",
    "minLength", "maxLength", "pattern", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf",
})
"""Keywords that constrain only values of their own ``type`` (or only annotate): a branch made of
these alone may be merged."""


def _merged_branches(branches: list[Any]) -> dict[str, Any] | None:
    """One schema for an ``anyOf`` of single-type branches (``X | None``, ``int | str | None``), or None.

    ``{"anyOf": [{"type": "array", "items": S}, {"type": "null"}]}`` means the same as
    ``{"type": ["array", "null"], "items": S}``: ``items`` constrains arrays only. Merged only
    when every branch names one type, no two the same, and at most one branch has keywords
    besides ``type``, all of them per-type ones (an ``enum`` or ``$ref`` branch stays an ``anyOf``).
    """
    types: list[str] = []
    extra: dict[str, Any] = {}
    for b in branches:
        if not isinstance(b, dict) or not isinstance(b.get("type"), str) or b["type"] in types:
            return None
        if not _PER_TYPE_KEYWORDS.issuperset(b):
            return None
        rest = {k: v for k, v in b.items() if k != "type"}
        if rest and extra:
            return None
        extra = rest or extra
        types.append(b["type"])
    return {**extra, "type": types}


def _compact_unions(schema: Any) -> None:
    """Rewrite every mergeable ``anyOf`` below ``schema`` in place (see ``_merged_branches``)."""
    if isinstance(schema, dict):
        branches = schema.get("anyOf")
        merged = _merged_branches(branches) if isinstance(branches, list) else None
        if merged is not None and not (set(merged) - {"type"}) & set(schema):
            del schema["anyOf"]
            schema.update(merged)
        for value in schema.values():
            _compact_unions(value)
    elif isinstance(schema, list):
        for value in schema:
            _compact_unions(value)


def _json_schema_extra(schema: dict[str, Any], cls: type[Any]) -> None:
    # A nullable field as a list of types rather than an anyOf: the same documents are valid, and a
    # validator does one type check instead of trying branches (what an MCP client does with every
    # tool result, so it is most of the client's time on a large result).
    _compact_unions(schema.get("properties"))


class ApiModel(BaseModel):
    """Frozen, and strict about unknown fields: a document either matches its schema or fails."""

    model_config = ConfigDict(extra="forbid", frozen=True, json_schema_extra=_json_schema_extra)


# --------------------------------------------------------------------------- shared parts


class SnapshotRef(ApiModel):
    """The snapshot every number of a document comes from."""

    date: str = Field(description="Snapshot date, UTC (YYYY-MM-DD).")
    created_at: str | None = Field(description="When the snapshot was scored (ISO date-time, UTC).")
    method_id: str = Field(description="Scoring method id; a change of sources or weights changes it.")
    as_of: str | None = Field(description="Newest publication date among the credited sources.")
    stale: bool = Field(description="The Arena source failed at the last refresh (its last good data is in use).")
    demo: bool = Field(description="Built from the bundled demo payloads, not live sources.")
    download: str = Field(description="URL of the complete snapshot JSON (data/snapshots/{date}.json).")


class SourceInfo(ApiModel):
    """One credited source, as stored in the snapshot."""

    name: str
    title: str | None = None
    kind: str | None = None
    status: str | None = Field(default=None, description="'ok' or 'failed' at the last refresh.")
    error: str | None = Field(default=None, description="Why the last fetch failed (null when ok).")
    licence: str | None = None
    attribution: str | None = None
    homepage: str | None = None
    url: str | None = Field(default=None, description="Where the payload is fetched from.")
    published: str | None = Field(default=None, description="Publication or run date of the payload in use.")
    fetched_at: str | None = Field(default=None, description="Time of the last fetch attempt (UTC).")
    payload_fetched_at: str | None = Field(default=None, description="When the payload in use was fetched (UTC).")
    contributing: bool | None = Field(default=None, description="Whether any board number uses this source.")


class BoardRow(ApiModel):
    """One row of a board download (``data/boards/{id}.json`` ``rows``/``new``), the same fields
    in the same order."""

    rank: int | None = Field(description="Competition rank on unrounded R; null in the New strip.")
    model: str = Field(description="Model name as displayed.")
    identity: str = Field(description="Identity key (the model page is models/{slug}/).")
    score: int = Field(description="Displayed score: R rounded half to even.")
    r: float = Field(description="Unrounded weighted mean R over the families present, Arena scale.")
    partial: bool = Field(description="The row carries the partial label.")
    partial_reasons: list[str] | None = Field(description="Why the row is partial.")
    coverage: float | None = Field(description="Present preset weight / all preset weight, 0..1.")
    available_share: float | None = Field(
        description="Present preset weight / weight of the families available in the snapshot, 0..1.")
    movement: int | str | None = Field(
        description="Rank change since the previous snapshot (positive = up), 'new', or null.")
    evaluators: list[str] | None = Field(description="Independent evaluators contributing.")
    token_price: float | None = Field(description="Blended token price, USD per million tokens.")
    build_price: float | None = Field(description="PirateBench median build price, USD per build.")
    build_passed: bool | None = Field(description="PirateBench build check passed.")
    families: dict[str, float] | None = Field(description="Family mean of usable calibrated scores, Arena scale.")
    r_lo: float | None = Field(default=None, description="2.5 percentile of R over the board bootstrap's rounds, "
                               "Arena scale (null without a bootstrap).")
    r_hi: float | None = Field(default=None, description="97.5 percentile of R over those rounds.")
    rank_lo: int | None = Field(default=None, description="Best plausible rank (2.5 percentile of the rank).")
    rank_hi: int | None = Field(default=None, description="Worst plausible rank (97.5 percentile of the rank).")
    rank_ub: int | None = Field(default=None, description="Rank (UB): 1 + the ranked rows whose r_lo is above "
                                "this row's r_hi.")
    p_first: float | None = Field(default=None, description="Share of rounds in which the row ranks 1.")
    p_above: float | None = Field(default=None, description="Share of rounds in which the row directly above has "
                                  "a strictly greater R (null on the first row).")
    tied_above: bool | None = Field(default=None, description="p_above under the tie threshold: statistically tied "
                                    "with the row above.")
    tie_leader: str | None = Field(default=None, description="Identity of the leader of the row's tie group (null: "
                                   "the row leads its group).")
    p_leader: float | None = Field(default=None, description="Share of rounds in which the group leader has a "
                                   "strictly greater R (null for a leader).")


class ObservationRef(ApiModel):
    """One calibrated published number and where it came from."""

    source: str
    feed: str
    release: str | None = Field(description="Release (publication) the calibration was fitted on.")
    evaluator: str | None
    model: str = Field(description="The spelling the source published.")
    raw: float | None = Field(description="The published value.")
    calibrated: float = Field(description="Calibrated onto the Arena scale.")
    date: str | None = Field(description="Publication or run date of the value.")
    url: str | None = Field(description="URL of the published value.")


class PriceRef(ApiModel):
    """Where a price on a row came from."""

    source: str
    key: str | None = Field(description="The source's own name for the model (LiteLLM key, PirateBench model).")
    value: float
    url: str | None


Provenance = dict[str, list[str]]
"""Where the numbers of one board row came from: number -> URLs of the published values behind it.
Keys: each family of the row (its value is the mean of those calibrated values), ``token_price``
and ``build_price`` when the row has them. An empty list: a local source with no public URL."""


class BoardInfo(ApiModel):
    """A board's definition, as in the download's ``board`` object."""

    id: str
    title: str | None
    kind: str | None
    role: str | None
    description: str | None
    weights: dict[str, float]
    warning: str | None
    missing_families: list[str] | None


# --------------------------------------------------------------------------- index.json


class Endpoint(ApiModel):
    name: str
    path: str = Field(description="Path below the site root; {id} and {slug} are placeholders.")
    url: str = Field(description="Absolute URL (template for the placeholders).")
    description: str


class BoardSummary(ApiModel):
    id: str
    title: str | None
    kind: str | None
    role: str | None
    description: str | None
    weights: dict[str, float]
    ranked: int = Field(description="Number of ranked rows.")
    new: int = Field(description="Rows in the New, not enough ratings yet strip.")
    top: str | None = Field(description="Identity of the rank-1 row.")
    as_of: str | None
    warning: str | None
    missing_families: list[str] | None
    rule: str = Field(description="How the board's rows are chosen and ordered.")
    api: str
    download: str
    page: str


class ModelSummary(ApiModel):
    identity: str
    slug: str
    name: str
    maker: str | None
    licence: str | None
    open_weight: bool | None
    params_b: float | None
    spellings: list[str] = Field(description="Every spelling the sources published for this model.")
    aliases: list[str] = Field(description="Configured aliases (site.yml) that map to this identity.")
    boards: list[str] = Field(description="Ids of the boards the model is on (ranked or New strip).")
    api: str
    page: str


class MachineRow(BoardRow):
    """A home-computer pick: a board row plus the size that made it fit."""

    params_b: float = Field(description="Total parameters, billions (every expert counted).")
    memory_est_gb: float = Field(description="4-bit memory estimate, GB.")


class MachineSummary(ApiModel):
    id: str
    name: str | None
    memory_gb: float
    limit_gb: float = Field(description="The memory a pick's 4-bit estimate must fit in.")
    rule: str
    rows: list[MachineRow]
    page: str


class FamilyInfo(ApiModel):
    title: str
    feeds: list[str]


class ArenaInfo(ApiModel):
    """The Arena Bradley-Terry fit the compare tool reads win probabilities from."""

    source: str | None = Field(description="Battles file of the fit.")
    n_battles: int | None
    scale: float = Field(description="P(a beats b) = 1 / (1 + base ** ((r_b - r_a) / scale)).")
    base: float
    page: str


class SiteRef(ApiModel):
    title: str
    url: str


class IndexDoc(ApiModel):
    """``api/v1/index.json``."""

    api_version: Literal["v1"] = API_VERSION
    site: SiteRef
    snapshot: SnapshotRef
    licence: str = Field(description="Licence of the rating tables.")
    attribution: str
    endpoints: list[Endpoint]
    snapshots: list[str] = Field(description="Dates of the saved snapshots the history covers, oldest first.")
    boards: list[BoardSummary]
    models: list[ModelSummary]
    machines: list[MachineSummary]
    families: dict[str, FamilyInfo]
    sources: list[SourceInfo]
    arena: ArenaInfo | None


# --------------------------------------------------------------------------- boards/{id}.json


class PairwiseDoc(ApiModel):
    identities: list[str] = Field(description="The board's top ranked rows (at most 20), in board order.")
    p_greater: list[list[float]] = Field(description="p_greater[a][b]: share of rounds in which row a has a "
                                         "strictly greater R than row b.")


class BoardUncertaintyDoc(ApiModel):
    """The board bootstrap behind the rows' intervals, rank ranges and tie markers."""

    rounds: int = Field(description="Bootstrap rounds.")
    seed: int = Field(description="Seed of the draws (random.Random), so anyone can rerun them.")
    interval: list[float] = Field(description="Lower and upper percentile of the intervals, as fractions.")
    tie_threshold: float = Field(description="p_above under this marks a row as tied with the row above.")
    pairwise: PairwiseDoc


class BoardDoc(ApiModel):
    """``api/v1/boards/{id}.json``."""

    api_version: Literal["v1"] = API_VERSION
    snapshot: SnapshotRef
    board: BoardInfo
    rule: str
    licence: str
    attribution: str
    download: str = Field(description="URL of data/boards/{id}.json, whose rows these are.")
    page: str
    rows: list[BoardRow]
    new: list[BoardRow]
    uncertainty: BoardUncertaintyDoc | None = Field(
        default=None, description="The board bootstrap (null when the snapshot has none).")
    provenance: dict[str, Provenance] = Field(
        description="Identity -> number (a family id, token_price, build_price) -> URLs of the published values "
                    "behind it (an empty list: a local source with no public URL).")
    sources: list[SourceInfo]


# --------------------------------------------------------------------------- models/{slug}.json


class ModelFacts(ApiModel):
    maker: str | None = None
    licence: str | None = None
    open_weight: bool | None = None
    params_b: float | None = None
    context_window: int | None = None
    release_date: str | None = None
    lineage: str | None = None


class FamilyValue(ApiModel):
    title: str
    mean: float | None = Field(description="The family value on the boards (null when no board row has it).")
    values: list[ObservationRef]


class ExplainCalibration(ApiModel):
    n: int | None
    mu: float | None
    sigma: float | None
    alpha: float | None
    beta: float | None


class ExplainSource(ApiModel):
    source: str
    feed: str
    release: str | None
    family: str
    evaluator: str | None
    model: str
    raw: float | None
    calibrated: float
    date: str | None
    arena: bool = Field(description="An Arena rating, used unchanged (no calibration).")
    calibration: ExplainCalibration | None
    url: str | None = Field(description="URL of the published value.")


class ExplainFamily(ApiModel):
    title: str
    scores: list[float]
    mean: float
    weight: float


class Explain(ApiModel):
    """The arithmetic of ``modelboards explain`` for one model on one board (and its text)."""

    model: str
    identity: str
    board: str
    board_title: str | None
    role: str | None
    weights: dict[str, float]
    date: str | None
    method_id: str | None
    sources: list[ExplainSource]
    families: dict[str, ExplainFamily]
    missing_families: list[str]
    family_titles: dict[str, str]
    r: float
    score: int
    rank: int | None
    ranked_rows: int
    new: bool
    partial: bool
    partial_reasons: list[str] | None
    evaluators: list[str] | None
    coverage: float | None
    available_share: float | None
    movement: int | str | None
    text: str = Field(description="The same arithmetic as plain text, one formula per line.")


class Placement(ApiModel):
    board: str
    title: str | None
    strip: Literal["ranked", "new"]
    row: BoardRow
    explain: Explain


class MachinePlacement(ApiModel):
    machine: str
    name: str | None
    rank: int | None
    memory_est_gb: float


class TokenPriceEntry(ApiModel):
    source: str
    key: str | None
    input_per_token: float | None
    output_per_token: float | None
    blended: float | None
    used: bool | None
    url: str | None


class BuildPriceEntry(ApiModel):
    model: str | None
    epoch: str | None
    price: float | None
    passed: bool | None
    jobs: int | None
    url: str | None


class ArenaEntry(ApiModel):
    """One spelling of the model in the Arena Bradley-Terry fit."""

    model: str
    rating: float | None
    lower: float | None
    upper: float | None
    rank: int | None
    battles: int | None
    wins: int | None
    ties: int | None
    win_rate: float | None
    component: int | None = Field(description="Connected component of the battle graph; ratings compare within one.")


class HeadToHead(ApiModel):
    """Observed record against one opponent, from the fit's win-rate matrix (its top models only)."""

    model: str
    opponent: str
    opponent_identity: str | None
    battles: int
    win_rate: float | None = Field(description="(wins + ties / 2) / battles for ``model``.")


class HistoryPoint(ApiModel):
    date: str
    method_id: str | None
    strip: Literal["ranked", "new"]
    rank: int | None
    score: int | None
    r: float | None
    download: str = Field(description="URL of that day's snapshot.")


class ModelDoc(ApiModel):
    """``api/v1/models/{slug}.json``."""

    api_version: Literal["v1"] = API_VERSION
    snapshot: SnapshotRef
    identity: str
    slug: str
    name: str
    page: str
    facts: ModelFacts
    spellings: list[str]
    aliases: list[str]
    families: dict[str, FamilyValue]
    boards: list[Placement]
    machines: list[MachinePlacement]
    token_prices: list[TokenPriceEntry]
    build_prices: list[BuildPriceEntry]
    arena: list[ArenaEntry]
    head_to_head: list[HeadToHead]
    history: dict[str, list[HistoryPoint]] = Field(
        description="Board id -> the model's row on that board in every saved snapshot it appears in, oldest first.")


SCHEMAS: dict[str, type[ApiModel]] = {"index": IndexDoc, "board": BoardDoc, "model": ModelDoc}
"Schema file stem (api/v1/schema/{stem}.json) -> document model."


@dataclass(frozen=True)
class ApiDocuments:
    """Every document of ``api/v1`` for one snapshot."""

    index: IndexDoc
    boards: dict[str, BoardDoc]
    "Board id -> document."
    models: dict[str, ModelDoc]
    "Slug -> document."
    methodology: str
    "api/v1/methodology.md: the methodology page as markdown, links absolute."


def document_text(doc: ApiModel) -> str:
    """A document's file: compact UTF-8 JSON from pydantic's serializer (floats in their
    shortest round-trip form, keys in document order), trailing newline."""
    return doc.model_dump_json() + "\n"
