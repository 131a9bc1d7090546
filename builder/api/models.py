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

import functools
import operator
from dataclasses import dataclass
from types import UnionType
from typing import TYPE_CHECKING, Annotated, Any, Final, Literal, Union, get_args, get_origin

from pydantic import BaseModel, ConfigDict, Field, create_model

from builder.snapshot import models as snapshot_models

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
    as_of: str | None = Field(description="Newest publication date among the scored sources (price lists not counted).")
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
    roles: list[str] = Field(
        default_factory=list,
        description="What its records do in the method, declared by its kind (arena, list_prices, market_prices, "
        "build_checks, curated, licences).",
    )
    contributing: bool | None = Field(default=None, description="Whether any board number uses this source.")


def _api_annotation(annotation: Any) -> Any:
    """The JSON shape of a snapshot field's type: tuples as lists, literals as strings, constraints dropped."""
    origin, args = get_origin(annotation), get_args(annotation)
    if origin is Annotated:
        return _api_annotation(args[0])
    if origin in (Union, UnionType):
        return functools.reduce(operator.or_, dict.fromkeys(_api_annotation(a) for a in args))
    if origin in (tuple, list):
        return list[_api_annotation(args[0])]  # type: ignore[misc]
    if origin is Literal:
        return str
    return annotation


def board_row_model(row_model: type[snapshot_models.BoardRow] | None = None) -> type[ApiModel]:
    """The API's board row, made from the snapshot's ``BoardRow`` (``board_row_columns``): the
    same columns in the same order, with their descriptions; the bootstrap's fields null without one."""
    fields: dict[str, Any] = {}
    for c in snapshot_models.board_row_columns(row_model):
        annotation = _api_annotation(c.annotation)
        fields[c.name] = (annotation, Field(description=c.description)) if c.required else (
            annotation | None, Field(default=None, description=c.description))
    doc = ("One row of a board download (``data/boards/{id}.json`` ``rows``/``new``): the snapshot's "
           "board row, field for field, with its bootstrap's fields flat.")
    return create_model("BoardRow", __base__=ApiModel, __doc__=doc, __module__=__name__, **fields)


if TYPE_CHECKING:
    class BoardRow(ApiModel):
        """The API's board row (``board_row_model``); its fields are the snapshot's."""

        def __getattr__(self, name: str) -> Any: ...
else:
    BoardRow = board_row_model()


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


class ArenaFlipVotesInfo(ApiModel):
    """Votes of one pair and outcome removed in a flip budget."""

    model_a: str
    model_b: str
    outcome: str = Field(description="model_a (won), model_b (won) or tie.")
    count: int


class ArenaFlipInfo(ApiModel):
    """Vote flip budget of two adjacent Arena models: the fewest votes whose removal puts the lower one
    above (found by each vote's influence, verified by refitting)."""

    higher: str
    lower: str
    position: int = Field(description="Position of the higher model (1: the #1/#2 pair).")
    gap: float = Field(description="Rating gap, Arena points.")
    approx_votes: int | None = Field(description="Count the influence approximation predicts.")
    votes: int | None = Field(description="Verified count (null: no reversing list found).")
    flipped: bool
    minimal: bool = Field(description="One vote fewer was refitted and keeps the order.")
    upper_bound: bool
    checked_votes: int = Field(description="Votes removed in the longest refit (the bound when not flipped).")
    n_votes: int
    share: float | None = Field(description="votes / n_votes.")
    removed: list[ArenaFlipVotesInfo]


class ArenaInfo(ApiModel):
    """The Arena Bradley-Terry fit the compare tool reads win probabilities from."""

    source: str | None = Field(description="Battles file of the fit.")
    n_battles: int | None
    scale: float = Field(description="P(a beats b) = 1 / (1 + base ** ((r_b - r_a) / scale)).")
    base: float
    page: str
    flips: list[ArenaFlipInfo] = Field(default_factory=list,
                                       description="Vote flip budgets of the top-10 adjacent pairs, plain fit.")
    style_flips: list[ArenaFlipInfo] = Field(default_factory=list,
                                             description="The same for the style-controlled fit.")


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
