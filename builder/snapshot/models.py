"""The snapshot contract: frozen pydantic models of ``snapshots/YYYY-MM-DD.json``.

A snapshot is the one input of rendering. Every field is declared here once, with its
meaning, unit and scale in ``Field(description=...)`` so the published JSON Schema
(``data/snapshot.schema.json``, made by ``builder.snapshot.schema``) documents it too.

Conventions: field names are snake_case; dates are ISO strings (``YYYY-MM-DD``, UTC) and
times ISO 8601 with an offset; a number that does not exist (no fit, no interval, a value
that was not finite) is ``null``, never NaN; lists are tuples, so a loaded snapshot cannot
be changed by accident. Shape is checked by the models; references between the parts
(every model a board, pick, stack, the Capability Index, the Arena or the worked example
names exists in ``models``; ranks agree with the rows) by ``Snapshot``'s own validator,
which reports the JSON path of the first problem.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import date, datetime
from types import UnionType
from typing import Annotated, Any, Final, Literal, Union, get_args, get_origin

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, JsonValue, model_validator
from pydantic_core import PydanticCustomError

REFERENCE_ERROR = "snapshot_reference"
"Error type of a failed cross-reference (its context carries the JSON path)."

SCHEMA_VERSION: Final = 3
"The schema version this code writes; older versions are migrated on load (``builder.snapshot.migrate``)."


def _iso_date(value: str) -> str:
    date.fromisoformat(value)  # the pattern checks the shape, this the calendar (no 2026-02-30)
    return value


def _iso_datetime(value: str) -> str:
    parsed = datetime.fromisoformat(value)
    if parsed.tzinfo is None:
        raise ValueError("a time needs a UTC offset")
    return value


IsoDate = Annotated[str, Field(pattern=r"^\d{4}-\d{2}-\d{2}$"), AfterValidator(_iso_date)]
"A calendar date, ``YYYY-MM-DD`` (UTC)."
IsoDateTime = Annotated[str, Field(pattern=r"^\d{4}-\d{2}-\d{2}T"), AfterValidator(_iso_datetime)]
"A time, ISO 8601 with a UTC offset."
Slug = Annotated[str, Field(pattern=r"^[a-z0-9][a-z0-9-]*$")]
"A URL-safe id (it names a folder of the site)."
Share = Annotated[float, Field(ge=0, le=1)]
Movement = int | Literal["new"] | None


class SnapshotModel(BaseModel):
    """Base of every snapshot model: immutable, unknown keys refused, no NaN or infinity."""

    model_config = ConfigDict(frozen=True, extra="forbid", strict=True, allow_inf_nan=False)


# --------------------------------------------------------------------------- configuration echoes


class SiteInfo(SnapshotModel):
    """The site the snapshot was built for."""

    title: str = Field(description="Site title from site.yml.")
    url: str = Field(description="The site's public base URL.")


class Family(SnapshotModel):
    """A rating family: feeds whose calibrated scores are averaged into one family mean."""

    title: str = Field(description="Display title of the family.")
    feeds: tuple[str, ...] = Field(description="Feeds (``source/feed``) that belong to the family.")


class Role(SnapshotModel):
    """A role preset: family weights used by the boards of that role."""

    title: str = Field(description="Display title of the role.")
    weights: dict[str, float] = Field(description="Family id -> weight (the board's R is the weighted mean).")


class Source(SnapshotModel):
    """One configured, enabled upstream source, credited whether or not it contributed."""

    name: str = Field(description="Source name from site.yml.")
    title: str = Field(description="Display title of the source.")
    kind: str = Field(description="Parser kind (lmarena, epoch, aider, livebench, terminal_bench, litellm, ...).")
    status: Literal["ok", "failed", "missing", "not_configured"] = Field(
        description="ok: fetched and parsed; failed: the last fetch or parse failed (the last good payload is "
        "used); missing: never fetched; not_configured: a live build of a source with no live URL."
    )
    error: str | None = Field(description="Why the last fetch or parse failed; null when it did not.")
    licence: str | None = Field(description="The source's own licence, as stated in site.yml.")
    attribution: str | None = Field(description="Credit line required by the source.")
    homepage: str | None = Field(description="Human-readable page of the source.")
    url: str | None = Field(description="URL the payload is fetched from.")
    published: IsoDate | None = Field(description="Publication date of the payload in use, else its newest row date.")
    fetched_at: IsoDateTime | None = Field(description="Time of the last fetch attempt; null: never fetched.")
    payload_fetched_at: IsoDateTime | None = Field(description="When the payload in use was fetched.")
    contributing: bool = Field(description="Its evidence shows up on a published board, pick or stack.")
    models: int | None = Field(
        default=None,
        description="Distinct model identities with a counted observation of this source; null: a source "
        "without ratings (prices, metadata) or an older snapshot.",
    )
    arena_overlap: int | None = Field(
        default=None,
        description="Of ``models``, how many also have an Arena text rating (the identities that matched the "
        "Arena; a calibration fits on these); null for the Arena itself and where ``models`` is null.",
    )
    roles: tuple[str, ...] = Field(
        default=(), strict=False,  # the legacy fill below hands a Python list, in JSON mode too
        description="What its records do in the method, declared by its kind: arena (its text feed is the "
        "Arena scale), list_prices (token prices of the worker boards), market_prices (prices of the value "
        "stack), build_checks (build prices), curated (the operator's model facts), licences (open weights).",
    )

    @model_validator(mode="before")
    @classmethod
    def _legacy_roles(cls, data: object) -> object:
        # Snapshots written before sources recorded their roles: the built-in kinds' roles then.
        if isinstance(data, dict) and "roles" not in data and data.get("kind") in LEGACY_KIND_ROLES:
            return {**data, "roles": list(LEGACY_KIND_ROLES[data["kind"]])}
        return data


LEGACY_KIND_ROLES: Final[Mapping[str, tuple[str, ...]]] = {
    "lmarena": ("arena",), "litellm": ("list_prices",), "openrouter": ("market_prices",),
    "piratebench": ("build_checks",), "metadata": ("curated",), "lmarena_catalog": ("licences",),
}
"The roles of the built-in kinds, for snapshots that predate ``Source.roles`` (older files only)."


def sources_playing(sources: Sequence[Source], role: str) -> list[str]:
    """Names of the snapshot's sources whose kind plays ``role``, in snapshot order."""
    return [s.name for s in sources if role in s.roles]


# --------------------------------------------------------------------------- evidence


class Observation(SnapshotModel):
    """One published score of one model on one feed, with what selection and calibration did."""

    source: str = Field(description="Source name (site.yml).")
    feed: str = Field(description="Feed, ``source/category``; one per published category.")
    evaluator: str = Field(description="The independent evaluator that published the score.")
    model: str = Field(description="Model spelling exactly as published.")
    identity: str = Field(description="Identity key the spelling folds to (empty: it folds to none).")
    raw: float | None = Field(
        description="Published value in the feed's own unit (Arena scale, percent, ECI points); null when it "
        "is not a usable number."
    )
    calibrated: float | None = Field(description="Value on the Arena text scale; null when the feed is not calibrated.")
    date: IsoDate | None = Field(description="Publication or run date of the row.")
    url: str | None = Field(description="Where the row was published.")
    release: str = Field(description="Release label the calibration groups by (empty: one release).")
    selected: bool = Field(description="The row chosen for its identity on this feed.")
    reason: str = Field(description="Why the row was or was not selected.")
    excluded: str | None = Field(description="Validation rule the row broke (kept, never dropped); null: valid.")
    details: dict[str, JsonValue] = Field(description="Source-specific facts: effort, edit format, commit, agent, ...")


class Calibration(SnapshotModel):
    """One z-fit of a feed and release onto the Arena text scale: alpha + beta * (x - mu) / sigma."""

    source: str = Field(description="Source name.")
    feed: str = Field(description="Feed fitted.")
    release: str = Field(description="Release label fitted (empty: the only release).")
    n: int = Field(ge=0, description="Overlap keys: identities with a usable score here and an Arena text rating.")
    overlap: tuple[str, ...] = Field(description="The overlap identity keys.")
    mu: float | None = Field(description="Mean raw score of the overlap, feed unit; null without overlap.")
    sigma: float | None = Field(description="Population standard deviation of the overlap's raw scores, feed unit.")
    alpha: float | None = Field(description="Mean Arena text rating of the overlap, Arena scale.")
    beta: float | None = Field(description="Slope, Arena points per standard deviation of the raw score.")
    used: bool = Field(description="The fit may calibrate scores (n >= 10, sigma > 0, beta > 0).")
    reason: str = Field(description="Why the fit is used or not.")


class FactSources(SnapshotModel):
    """Which source supplied a model fact."""

    licence: str | None = Field(description="Source of the licence, null: none.")
    params_b: str | None = Field(description="Source of the parameter count, null: none.")
    name: str | None = Field(default=None, description="Catalog source of the display name; null: the most used "
                             "spelling among the rating sources (or a snapshot from before this record).")
    maker: str | None = Field(default=None, description="Source of the organisation, null: none.")
    open_weight: str | None = Field(default=None, description="Source of the open-weights status, null: none.")
    release_date: str | None = Field(default=None, description="Source of the release date, null: none.")
    context_window: str | None = Field(default=None, description="Source of the context window, null: none.")


class ModelFacts(SnapshotModel):
    """Merged facts about one identity, each from the first source that states it in the fact priority
    (the operator's curated metadata, models.dev, the Arena catalog, Epoch, then the rest)."""

    name: str = Field(description="Display spelling.")
    maker: str | None = Field(description="Organisation that made the model.")
    licence: str | None = Field(description="Licence as published.")
    open_weight: bool | None = Field(description="Weights published under a non-proprietary licence; null: unknown.")
    params_b: float | None = Field(description="Total checkpoint parameters, billions (all experts).")
    context_window: int | None = Field(description="Context window, tokens.")
    release_date: IsoDate | None = Field(description="Release date.")
    lineage: str | None = Field(description="Curated lineage (model family) key.")
    spellings: tuple[str, ...] = Field(description="Every spelling seen for the identity, sorted.")
    sources: FactSources = Field(description="Where the licence and parameter count came from.")


class TokenPrice(SnapshotModel):
    """One valid per-token price list entry of a snapshot model."""

    identity: str = Field(description="Identity key.")
    source: str = Field(description="Price source (litellm, openrouter).")
    key: str = Field(description="Provider key exactly as published.")
    input_per_token: float = Field(description="USD per input token.")
    output_per_token: float = Field(description="USD per output token.")
    blended: float = Field(description="USD per million tokens: 1e6 * (0.75 input + 0.25 output).")
    used: bool = Field(description="The entry chosen for the identity (cheapest, then first key).")


class BuildPrice(SnapshotModel):
    """One identity's PirateBench build check in the latest scored epoch."""

    identity: str = Field(description="Identity key.")
    model: str = Field(description="Spelling in the build check.")
    epoch: str = Field(description="The scored epoch the jobs belong to.")
    price: float | None = Field(description="Median list price, USD per build; null unless every job has a price.")
    passed: bool = Field(description="Every matching job passed.")
    jobs: int = Field(ge=0, description="Matching jobs.")


class Prices(SnapshotModel):
    """Token and build prices of the snapshot's models."""

    token: tuple[TokenPrice, ...] = Field(description="Valid token price entries, by identity, source and key.")
    build: tuple[BuildPrice, ...] = Field(description="Build-check summaries, by identity.")


# --------------------------------------------------------------------------- boards


class RowUncertainty(SnapshotModel):
    """How far one row's R and rank could move: the seeded bootstrap of the board arithmetic
    (Arena ratings drawn from their intervals, every fit refitted on a resampled overlap, a
    residual added to each calibrated score; see the Methodology page). Never changes the row."""

    r_lo: float | None = Field(
        description="2.5 percentile of R over the rounds in which the row has an R (linear interpolation), "
        "Arena scale; null when no round gave it one."
    )
    r_hi: float | None = Field(description="97.5 percentile of R over those rounds, Arena scale.")
    rank_lo: int | None = Field(
        ge=1, description="Best plausible rank: 2.5 percentile (lower value) of the row's competition rank among "
        "the board's ranked rows over the rounds; null in the new strip."
    )
    rank_hi: int | None = Field(ge=1, description="Worst plausible rank: 97.5 percentile (higher value) of the rank.")
    rank_ub: int | None = Field(
        ge=1, description="Rank (UB): 1 + the number of ranked rows whose r_lo is above this row's r_hi; null in "
        "the new strip."
    )
    p_first: Share | None = Field(description="Share of all rounds in which the row ranks 1; null in the new strip.")
    p_above: Share | None = Field(
        description="Share of all rounds in which the row directly above has a strictly greater R; null on the "
        "first row and in the new strip."
    )
    tied_above: bool | None = Field(
        description="p_above < tie threshold (0.95): statistically tied with the row above; null on the first row "
        "and in the new strip."
    )
    rounds_scored: int = Field(ge=0, description="Rounds in which the row had an R (a round can drop its feeds).")
    tie_leader: str | None = Field(
        default=None, description="Identity of the leader of the row's tie group: the nearest row above that leads a "
        "group, when it is ahead of this row in fewer than 95% of the rounds (p_leader < tie threshold); null when "
        "the row leads its own group, in the new strip, and in snapshots from before tie groups were anchored."
    )
    p_leader: Share | None = Field(
        default=None, description="Share of all rounds in which the group leader above has a strictly greater R "
        "than this row; null when the row leads its own group or is in the new strip."
    )


class BoardRow(SnapshotModel):
    """One model on a board (or in its "New, not enough ratings yet" strip).

    Its fields, in this order and with these descriptions, are the board's columns everywhere:
    the CSV and JSON downloads, the API rows and their schema, the MCP results and the table
    headers' tooltips (``board_row_columns``; ``uncertainty`` spreads into its flat fields).
    """

    rank: int | None = Field(ge=1, description="Competition rank on unrounded R (1, 2, 2, 4); null in the new strip.")
    model: str = Field(description="Model name as displayed.")
    identity: str = Field(description="Identity key; the model page is models/<identity>/.")
    score: int = Field(description="Displayed score: R rounded half to even.")
    r: float = Field(description="Weighted mean R over the families present, Arena scale, unrounded.")
    partial: bool = Field(description="The row carries the partial label.")
    partial_reasons: tuple[str, ...] = Field(description="Why the row is partial.")
    coverage: Share = Field(description="Present preset weight / all preset weight, 0..1.")
    available_share: Share = Field(
        description="Present preset weight / weight of the families available in the snapshot, 0..1.")
    uncertainty: RowUncertainty | None = Field(
        default=None,
        description="The row's bootstrap; null when the bootstrap was off, on home-computer picks, and in "
        "snapshots made before it existed.",
    )
    movement: Movement = Field(
        description="Places moved since the previous snapshot (positive = up), 'new' when it was not ranked "
        "then, null without a comparable previous snapshot."
    )
    evaluators: tuple[str, ...] = Field(description="Independent evaluators contributing.")
    loo_ranks: dict[str, int | None] = Field(
        default_factory=dict,
        description="Evaluator -> the row's rank with that independent evaluator's scores left out and the board "
        "recomputed by the published method (calibrations refitted, qualification and the New strip re-applied); "
        "null: without it the row loses its rank (one evaluator or no weighted family left). Empty in the New "
        "strip, on home-computer picks, when off, and in snapshots from before it existed.")
    depends_on: tuple[str, ...] = Field(
        default=(),
        description="Evaluators whose leaving out alone moves the row by more places than its rank range is wide "
        "(rank_hi - rank_lo of the bootstrap), counted among the rows that stay ranked.")
    depends_on_one: bool | None = Field(
        default=None,
        description="Depends on one evaluator: leaving out a single evaluator moves the row by more places than its "
        "rank range is wide (depends_on is not empty); null without leave-one-out ranks or without the bootstrap.")
    token_price: float | None = Field(
        description="Blended token price, USD per million tokens (0.75 input + 0.25 output).")
    build_price: float | None = Field(description="Median build price, USD per build.")
    build_passed: bool | None = Field(description="The build check passed; null: no build check.")
    families: dict[str, float] = Field(
        description="Family id -> family mean of usable calibrated scores, Arena scale (present families only).")


class MachineRow(BoardRow):
    """A home-computer pick: a board row plus the memory estimate."""

    params_b: float = Field(gt=0, description="Total parameters, billions.")
    memory_est_gb: float = Field(gt=0, description="4-bit memory estimate, GB: params_B * 0.5 * 1.25.")


ROW_UNCERTAINTY_FIELDS = ("r_lo", "r_hi", "rank_lo", "rank_hi", "rank_ub", "p_first", "p_above", "tied_above",
                          "tie_leader", "p_leader")
"The ``RowUncertainty`` fields the downloads and the API write flat in a row (all but ``rounds_scored``)."

ColumnType = Literal["text", "integer", "float", "boolean", "list", "map"]


@dataclass(frozen=True)
class RowColumn:
    """One flat column of a board row: its name, value type (``annotation``, as the row model
    declares it), type word for the data README, and its description."""

    name: str
    annotation: Any
    type: ColumnType
    description: str
    required: bool


def _column_type(annotation: Any) -> ColumnType:
    args = [a for a in get_args(annotation) if a is not type(None)]
    origin = get_origin(annotation)
    if origin is Annotated:
        return _column_type(args[0])
    if origin in (Union, UnionType):
        kinds = {_column_type(a) for a in args}
        return kinds.pop() if len(kinds) == 1 else "text"
    if origin in (tuple, list):
        return "list"
    if origin is dict:
        return "map"
    if origin is Literal:
        return "text"
    scalar: dict[Any, ColumnType] = {bool: "boolean", int: "integer", float: "float"}
    return scalar.get(annotation, "text")


def board_row_columns(row_model: type[BoardRow] | None = None) -> tuple[RowColumn, ...]:
    """The flat columns of a board row, in field order: every field of ``row_model`` (default
    ``BoardRow``, read from the class, so a field added to it is a column everywhere), its
    ``uncertainty`` spread into ``ROW_UNCERTAINTY_FIELDS`` (with ``RowUncertainty``'s descriptions).

    Worked out once per class (a class's fields are fixed once it is built): every row of
    every board download asks for them."""
    return _row_columns(row_model or BoardRow)


@functools.cache
def _row_columns(model: type[BoardRow]) -> tuple[RowColumn, ...]:
    out: list[RowColumn] = []
    for name, info in model.model_fields.items():
        if name == "uncertainty":
            for sub in ROW_UNCERTAINTY_FIELDS:
                f = RowUncertainty.model_fields[sub]
                out.append(RowColumn(sub, f.annotation, _column_type(f.annotation),
                                     f"{f.description or ''} Null without the bootstrap.".strip(), False))
            continue
        out.append(RowColumn(name, info.annotation, _column_type(info.annotation), info.description or "",
                             info.is_required()))
    return tuple(out)


def board_row_values(row: BoardRow, columns: Sequence[RowColumn] | None = None) -> dict[str, Any]:
    """A row's flat values by column (``board_row_columns`` of its own class when not given);
    lists as lists, the bootstrap's fields null without one."""
    out: dict[str, Any] = {}
    for c in columns if columns is not None else board_row_columns(type(row)):
        if c.name in ROW_UNCERTAINTY_FIELDS:
            value = getattr(row.uncertainty, c.name) if row.uncertainty is not None else None
        else:
            value = getattr(row, c.name)
        out[c.name] = list(value) if isinstance(value, tuple) else (dict(value) if isinstance(value, dict) else value)
    return out


class BoardPairwise(SnapshotModel):
    """P(R_a > R_b) over the bootstrap rounds for a board's top ranked rows."""

    identities: tuple[str, ...] = Field(description="The top ranked rows (at most 20), in board order.")
    p_greater: tuple[tuple[float, ...], ...] = Field(
        description="p_greater[a][b]: share of rounds in which row a has a strictly greater R than row b "
        "(0 on the diagonal); one row and column per identity."
    )


class BoardUncertainty(SnapshotModel):
    """A board's part of the bootstrap beyond its rows."""

    pairwise: BoardPairwise = Field(description="The top rows' pairwise matrix (a download beside the board).")


class UncertaintySettings(SnapshotModel):
    """How the boards' bootstrap was run (``uncertainty`` in site.yml)."""

    rounds: int = Field(ge=0, description="Bootstrap rounds; 0: the bootstrap was off.")
    seed: int = Field(ge=0, description="Seed of the one random.Random(seed) stream every draw comes from.")
    interval: tuple[float, float] = Field(description="Lower and upper percentile of the intervals, as fractions.")
    tie_threshold: float = Field(description="A row is tied with the row above when P(R_above > R_row) is below it.")
    pairwise_top: int = Field(ge=0, description="Ranked rows per board in the pairwise matrix.")
    arena_sd_divisor: float = Field(description="An Arena rating is drawn with sd = (q975 - q025) / this.")
    draws_per_round: int | None = Field(description="Uniforms read per round; null when the bootstrap was off.")
    tie_groups: Literal["leader"] | None = Field(
        default=None, description="How rows carry tie groups: 'leader', anchored on each group's leader "
        "(tie_leader, p_leader); null in snapshots from before (groups were read from tied_above).")
    residual_draws: Literal["model", "source"] | None = Field(
        default=None, description="How residuals are drawn: 'source', one quantile per model and round shared "
        "by its calibrated scores, and one per model, source and round shared by one source's scores; 'model' "
        "(2026-12-01), one quantile per model and round shared by all its calibrated scores; null in snapshots "
        "from before (one residual per score, drawn independently).")
    residual_share: float | None = Field(
        default=None, ge=0, le=1, description="With residual_draws 'model' or 'source': the share c of rounds in "
        "which a model's scores take its one residual quantile (the median correlation of the fits' residuals, "
        "with 'source' over pairs of fits of different sources); null before.")
    residual_share_source: float | None = Field(
        default=None, ge=0, le=1, description="With residual_draws 'source': of the other rounds, the share s in "
        "which one source's scores of a model take their one quantile (c + (1 - c) s is the median correlation "
        "over pairs of fits of one source); null otherwise.")


class WeightContender(SnapshotModel):
    """A top-5 row other than #1 under the Dirichlet weight draws: how often it leads, and the
    draw nearest the published weights among those where it does."""

    identity: str = Field(description="Identity key of the row.")
    lead_share: Share = Field(description="Share of the draws in which the row ranks 1 (no row has a greater R).")
    draw: int | None = Field(
        ge=0, description="Index (from 0) of the nearest draw in which it leads; null: it leads in none.")
    weights: dict[str, float] | None = Field(
        description="Family id -> the nearest weights found under which it leads (summing to 1); null: none found.")
    distance: float | None = Field(
        ge=0, description="Euclidean distance of those weights from the published weights (normalised to sum 1).")
    found_in: Literal["draws", "grid"] | None = Field(
        default=None, description="'draws': the nearest of the Dirichlet draws where it leads; 'grid': it leads in "
        "no draw, and these are the nearest weights where it does on the grid of multiples of 1/grid_steps; null: "
        "none found.")


class WeightRobustness(SnapshotModel):
    """How the board's #1 fares under weight vectors near the published ones: ``draws`` vectors from
    a Dirichlet with parameters concentration * (published weight / sum of weights), seeded."""

    concentration: float = Field(gt=0, description="Dirichlet concentration: the sum of its parameters.")
    draws: int = Field(ge=1, description="Weight vectors drawn.")
    seed: int = Field(ge=0, description="Seed of the random.Random(seed) stream the draws come from.")
    grid_steps: int = Field(default=10, ge=1, description="The fallback grid's weights are multiples of 1/grid_steps.")
    hold_share: Share = Field(description="Share of the draws under which the published #1 still ranks 1.")
    contenders: tuple[WeightContender, ...] = Field(description="Ranked rows 2 to 5, in board order.")


class BoardRobustness(SnapshotModel):
    """The board's robustness to its evaluators and its weights (the rows carry their leave-one-out ranks)."""

    evaluators: tuple[str, ...] = Field(description="The independent evaluators left out in turn, ascending.")
    anchor: str | None = Field(
        description="The evaluator whose Arena text ratings are the calibration anchor: left out as evidence (its "
        "scores leave every family) while the calibrations keep their scale.")
    max_set: int = Field(ge=1, description="Largest set of evaluators searched for a change of #1.")
    leader_set: tuple[str, ...] | None = Field(
        description="The smallest set of evaluators whose leaving out changes #1 (first in ascending order among "
        "sets of that size); null when no set of up to max_set evaluators does.")
    leader_after: str | None = Field(
        description="Identity ranked first without leader_set; null when there is no such set or no row is left.")
    weights: WeightRobustness | None = Field(default=None, description="Weight robustness; null when off.")


class Board(SnapshotModel):
    """One role board: the qualified ranked rows and the new strip."""

    id: Slug = Field(description="Board id (``boards/<id>/``).")
    title: str = Field(description="Board title.")
    kind: str = Field(description="Qualification rule: orchestrator, open_weight, mid_tier, rote or build_prices.")
    role: str = Field(description="Role whose weights score the board.")
    description: str = Field(description="Paragraph shown above the table.")
    weights: dict[str, float] = Field(description="Family id -> weight used for R.")
    warning: str | None = Field(description="Shown when less than half the preset weight is available.")
    missing_families: tuple[str, ...] = Field(description="Weighted families with no usable score in the snapshot.")
    rows: tuple[BoardRow, ...] = Field(description="Ranked rows, best first.")
    new: tuple[BoardRow, ...] = Field(description="The New, not enough ratings yet strip (rank null).")
    uncertainty: BoardUncertainty | None = Field(
        default=None, description="The board's bootstrap (pairwise matrix); null when it was off or predates it."
    )
    empty_reason: str | None = Field(
        default=None, description="Why no model is ranked, one sentence; null when some model is (or in snapshots "
        "from before the reason was recorded)."
    )
    robustness: BoardRobustness | None = Field(
        default=None, description="Leave-one-evaluator-out and weight robustness of the board; null when off, "
        "when nothing is ranked, and in snapshots from before it existed."
    )


class Machine(SnapshotModel):
    """Home-computer picks for one machine."""

    id: Slug = Field(description="Machine id.")
    name: str = Field(description="Display name, e.g. 'RTX 3090'.")
    memory_gb: float = Field(gt=0, description="Memory available to the model, GB.")
    rows: tuple[MachineRow, ...] = Field(description="Models that fit, non-partial first, then by R.")
    new: tuple[MachineRow, ...] = Field(
        default=(), description="The New strip: models that fit but have a score from one evaluator only; "
        "unranked (rank and movement null), non-partial first, then by R (empty in older snapshots).")


class BestStackEntry(SnapshotModel):
    """The best model of one role: first non-partial row of the role's board."""

    role: str = Field(description="Role id.")
    board: str = Field(description="Board the model comes from.")
    model: str = Field(description="Display name.")
    identity: str = Field(description="Identity key.")
    r: float = Field(description="R on that board, Arena scale.")
    score: int = Field(description="Displayed score.")
    partial: bool = Field(description="The row is partial.")


class ValueStackEntry(SnapshotModel):
    """The best model of one role under the role's OpenRouter price bound."""

    role: str = Field(description="Role id.")
    model: str = Field(description="Display name.")
    identity: str = Field(description="Identity key.")
    r: float = Field(description="R for the role, Arena scale.")
    score: int = Field(description="Displayed score.")
    partial: bool = Field(description="The row is partial.")
    price: float = Field(description="OpenRouter blended price, USD per million tokens.")


class ValueStackRole(SnapshotModel):
    """One role of the value stack: its price cap and its part of the day of work."""

    role: str = Field(description="Role id.")
    below: float = Field(description="The entry's OpenRouter blended price is strictly below this, USD per million "
                         "tokens.")
    tokens: float = Field(description="Million tokens of this role in the day of work.")


class ValueStack(SnapshotModel):
    """The value stack and the price of a day of work with it."""

    entries: tuple[ValueStackEntry, ...] = Field(description="One entry per role that has a model under its bound.")
    day_of_work: float | None = Field(
        description="USD for a day of work: each role's million tokens (``roles``; by default 2 orchestrator, 10 "
        "mid-tier, 50 rote) at its entry's price; null unless every role has an entry."
    )
    roles: tuple[ValueStackRole, ...] | None = Field(
        default=None,
        description="The stack's roles in order, each with its price cap and its tokens in the day of work; null in "
        "snapshots made before they were recorded.",
    )


class Stacks(SnapshotModel):
    """The best and the value stack."""

    best: tuple[BestStackEntry, ...] = Field(description="Best stack, in stack order.")
    value: ValueStack = Field(description="Value stack.")


# --------------------------------------------------------------------------- worked example


class FitParameters(SnapshotModel):
    """The saved calibration of one worked-example source."""

    n: int = Field(description="Overlap keys of the fit.")
    mu: float = Field(description="Mean raw score of the overlap, feed unit.")
    sigma: float = Field(description="Standard deviation of the overlap's raw scores, feed unit.")
    alpha: float = Field(description="Mean Arena rating of the overlap.")
    beta: float = Field(description="Slope, Arena points per standard deviation.")


class WorkedSource(SnapshotModel):
    """One usable observation of the worked example and how it reached the Arena scale."""

    source: str = Field(description="Source name.")
    feed: str = Field(description="Feed.")
    family: str = Field(description="Family the feed belongs to on the board.")
    model: str = Field(description="Spelling as published.")
    raw: float = Field(description="Published value, feed unit.")
    calibrated: float = Field(description="Saved calibrated value, Arena scale.")
    date: IsoDate | None = Field(description="Row date.")
    fit: FitParameters | None = Field(description="The calibration used; null for Arena feeds (used unchanged).")
    recomputed: float = Field(description="alpha + beta * (raw - mu) / sigma from the saved fit (raw for Arena feeds).")


class WorkedFamily(SnapshotModel):
    """One family mean of the worked example."""

    family: str = Field(description="Family id.")
    title: str = Field(description="Family title.")
    weight: float = Field(description="The board's weight of the family.")
    values: tuple[float, ...] = Field(description="Usable calibrated scores in the family, Arena scale.")
    mean: float = Field(description="Saved family mean.")


class WorkedExample(SnapshotModel):
    """The methodology's worked example: the #1 row of the first orchestrator board, recomputed at
    score time from the snapshot's own saved numbers (the arithmetic ``modelboards explain`` prints)."""

    board_id: str = Field(description="Board of the example.")
    identity: str = Field(description="Identity of the board's first ranked row.")
    sources: tuple[WorkedSource, ...] = Field(description="Usable observations, by family then feed.")
    families: tuple[WorkedFamily, ...] = Field(description="Family means, by weight (descending) then id.")
    r: float = Field(description="sum(weight * mean) / sum(weight) over the families present, recomputed.")
    score: int = Field(description="round(r), half to even.")
    agrees: bool = Field(description="Every recomputed step reproduces the saved value (within 1e-9 relative).")


# --------------------------------------------------------------------------- arena


class ArenaMethod(SnapshotModel):
    """How the Arena ratings were fitted."""

    name: str = Field(description="Method name (bradley-terry-mle).")
    scale: float = Field(description="Rating points per factor ``base`` in odds.")
    base: float = Field(description="Odds base of the rating scale.")
    init: float = Field(description="Mean rating of each connected component.")
    ties: str = Field(description="How ties count.")
    centring: str = Field(description="How ratings are anchored.")
    bootstrap: int = Field(ge=0, description="Bootstrap rounds for the intervals.")
    bootstrap_kind: str = Field(description="What the bootstrap resamples.")
    ci: float = Field(description="Coverage of the intervals (0.95).")
    seed: int = Field(description="Bootstrap seed.")
    degenerate_rounds: int = Field(ge=0, description="Bootstrap rounds that could not be fitted.")
    elo_k: float = Field(description="Online Elo K factor.")
    history_period: str = Field(description="History slice length: day, week or month.")
    history_bootstrap: int = Field(ge=0, description="Bootstrap rounds per history slice (0: no intervals).")
    min_pair_battles: int = Field(ge=0, description="Fewest battles a pair needs to count in the win-rate error.")
    anony_only: bool = Field(description="Only anonymous battles were used.")
    reweight: bool = Field(default=False, description="Each pair's battles weighted 1 / max(battles of the pair, 50).")
    official_filters: bool = Field(
        default=False, description="LMArena's official filters were on: anonymous votes only and duplicate-tagged "
                                   "prompts dropped, each where the battles file carries the column.")


class ArenaModel(SnapshotModel):
    """One rated battle spelling."""

    model: str = Field(description="Model spelling in the battles file.")
    rating: float = Field(description="Bradley-Terry maximum-likelihood rating, Arena scale.")
    median: float | None = Field(description="Bootstrap median rating.")
    lower: float | None = Field(description="Lower 95% bootstrap bound.")
    upper: float | None = Field(description="Upper 95% bootstrap bound.")
    rank: int = Field(ge=1, description="Rank by rating within the component.")
    rank_ub: int = Field(ge=1, description="1 + the number of models whose lower bound is above this upper bound.")
    battles: int = Field(ge=0, description="Battles played.")
    wins: int = Field(ge=0, description="Battles won (ties excluded).")
    ties: int = Field(ge=0, description="Battles tied.")
    win_rate: float | None = Field(description="(wins + ties / 2) / battles.")
    elo: float | None = Field(description="Online Elo after the last battle.")
    component: int = Field(ge=0, description="Index into ``components``.")


class ArenaComponent(SnapshotModel):
    """A connected component of the battle graph (ratings compare only inside one)."""

    models: tuple[str, ...] = Field(description="Spellings in the component.")
    n_battles: int = Field(ge=0, description="Battles inside the component.")


class ArenaUnrated(SnapshotModel):
    """Models left out because no finite rating exists for them."""

    models: tuple[str, ...] = Field(description="Spellings.")
    reason: str = Field(description="Why no finite rating exists.")


class ArenaWinrate(SnapshotModel):
    """Predicted against observed win rates of the top models of the main component."""

    models: tuple[str, ...] = Field(description="Row and column spellings, best first.")
    predicted: tuple[tuple[float | None, ...], ...] = Field(description="P(row beats column); null diagonal.")
    empirical: tuple[tuple[float | None, ...], ...] = Field(
        description="Observed share; null where the pair never met.")
    battles: tuple[tuple[int, ...], ...] = Field(description="Battles per pair.")
    mae: float | None = Field(description="Mean absolute error over rated pairs with enough battles.")
    pairs_used: int = Field(ge=0, description="Pairs in the error.")


class ArenaSliceModel(SnapshotModel):
    """One spelling in one history slice."""

    model: str = Field(description="Spelling.")
    rating: float | None = Field(description="Rating on the battles up to the slice's date.")
    rank: int = Field(ge=1, description="Rank in the slice.")
    elo: float | None = Field(description="Online Elo at the slice's date.")
    lower: float | None = Field(description="Lower bound (null without history bootstrap).")
    upper: float | None = Field(description="Upper bound (null without history bootstrap).")
    matches: int | None = Field(default=None, ge=0,
                                description="Battles of the spelling up to the slice's date (null in older snapshots).")
    wins: int | None = Field(default=None, ge=0, description="Decisive wins up to the date, ties excluded.")
    ties: int | None = Field(default=None, ge=0, description="Ties of either kind up to the date.")


class ArenaSlice(SnapshotModel):
    """Cumulative ratings at one history date."""

    date: IsoDate = Field(description="End of the slice.")
    n_battles: int = Field(ge=0, description="Battles up to the date.")
    models: tuple[ArenaSliceModel, ...] = Field(description="Rated spellings by component, then rating.")


class ArenaStyleMetadata(SnapshotModel):
    """How many battles carried usable style metadata (``conv_metadata``), and why the others did not."""

    usable: int = Field(ge=0, description="Battles with usable counts for every feature in use.")
    without_metadata: dict[str, int] = Field(
        description="no_metadata (absent or null) and incomplete_metadata (a count absent) -> battles.")
    malformed: dict[str, int] = Field(description="negative_count and non_numeric_count -> battles.")
    first_malformed: str | None = Field(description="``FILE: line N (kind)`` of the first malformed battle.")


class ArenaStyleMethod(SnapshotModel):
    """How the style-controlled ratings were fitted."""

    name: str = Field(description="Method name (style-controlled-bradley-terry).")
    features: tuple[str, ...] = Field(description="Style features in use (tokens, headers, bold, lists).")
    reg: float = Field(ge=0, description="lambda: the L2 penalty (lambda / 2) |beta|^2 on the coefficients.")
    reweight: bool = Field(description="Battles weighted 1 / max(battles of the pair, 50), scaled to mean 1.")
    min_pair_battles: int = Field(ge=0, description="The floor of the reweighting's pair count.")
    ci_kind: Literal["sandwich", "bootstrap"] | None = Field(description="Which intervals (null: none).")
    ci: float = Field(description="Coverage of the intervals (0.95).")
    hessian_reg: float | None = Field(description="Ridge on the sandwich's Hessian diagonal (1e-5).")
    bootstrap: int = Field(ge=0, description="Bootstrap rounds (0 for the sandwich).")
    seed: int | None = Field(description="Bootstrap seed (null for the sandwich).")
    degenerate_rounds: int = Field(ge=0, description="Bootstrap rounds without a finite fit for some model.")
    scale: float = Field(description="Rating points per factor ``base`` in odds.")
    base: float = Field(description="Odds base of the rating scale.")
    init: float = Field(description="Rating shown for a log-odds rating of 0 (each component's mean).")
    centring: str = Field(description="How ratings are anchored.")
    points_per_unit: float = Field(description="Rating points per log-odds unit: scale / ln(base).")
    n_battles: int = Field(ge=0, description="Battles fitted.")
    iterations: int = Field(ge=0, description="Newton iterations of the fit.")


class ArenaStyleCoefficient(SnapshotModel):
    """One style coefficient: log-odds per standard deviation of the feature, and in rating points."""

    feature: str = Field(description="tokens, headers, bold or lists.")
    beta: float = Field(description="Coefficient, log-odds per standard deviation of the feature.")
    lower: float | None = Field(description="Lower 95% bound of beta.")
    upper: float | None = Field(description="Upper 95% bound of beta.")
    mean: float = Field(description="Mean of the raw feature (x_A - x_B) / (x_A + x_B) over the fitted battles.")
    std: float = Field(description="Its population standard deviation (0 replaced by 1).")
    points: float = Field(description="beta in rating points (beta x scale / ln base).")
    points_lower: float | None = Field(description="Lower bound in rating points.")
    points_upper: float | None = Field(description="Upper bound in rating points.")


class ArenaStyleModel(SnapshotModel):
    """One model's style-controlled rating and its rank change against the plain fit."""

    model: str = Field(description="Model spelling in the battles file.")
    rating: float = Field(description="Style-controlled rating, Arena scale.")
    median: float | None = Field(description="Bootstrap median (the rating for the sandwich).")
    lower: float | None = Field(description="Lower 95% bound.")
    upper: float | None = Field(description="Upper 95% bound.")
    rank: int = Field(ge=1, description="Rank by styled rating within the component.")
    rank_ub: int = Field(ge=1, description="1 + the number of models whose lower bound is above this upper bound.")
    battles: int = Field(ge=0, description="Battles in the styled fit.")
    wins: int = Field(ge=0, description="Of those, won (ties excluded).")
    ties: int = Field(ge=0, description="Of those, tied.")
    win_rate: float | None = Field(description="(wins + ties / 2) / battles.")
    component: int = Field(ge=0, description="Component index in the styled fit.")
    plain_rating: float | None = Field(description="The plain Bradley-Terry rating (null if unrated there).")
    plain_rank: int | None = Field(description="The plain rank (null if unrated there).")
    rank_change: int | None = Field(description="plain_rank - rank: positive moves up under style control.")


class ArenaFlipVotes(SnapshotModel):
    """Votes of one pair-outcome cell in a flip budget's removal list."""

    model_a: str = Field(description="The pair's first model (in the fit's model order).")
    model_b: str = Field(description="The pair's second model.")
    outcome: Literal["model_a", "model_b", "tie"] = Field(
        description="model_a won, model_b won, or a tie of either kind.")
    count: int = Field(ge=1, description="Votes of the cell removed (for the styled fit: its first in file order).")


class ArenaFlip(SnapshotModel):
    """Vote flip budget of two adjacent models: how few votes would have to go for the lower one
    to rank above the higher one (influence by the fit's Hessian, then verified by refitting)."""

    higher: str = Field(description="The model ranked above, in the published fit.")
    lower: str = Field(description="The model ranked just below it.")
    position: int = Field(ge=1, description="Position of ``higher`` in the main component (1: the #1/#2 pair).")
    gap: float = Field(description="Rating of higher minus rating of lower, Arena points.")
    approx_votes: int | None = Field(
        description="Votes the influence approximation predicts are needed (null: not reachable by it).")
    votes: int | None = Field(
        description="Verified: removing these many votes (``removed``) and refitting puts lower above higher; "
        "null when no reversing list was found.")
    flipped: bool = Field(description="A verified refit reversed the pair.")
    checked_votes: int = Field(
        ge=0, description="Votes of the longest list refitted; when not flipped, removing them kept the order.")
    minimal: bool = Field(description="Removing one vote fewer (the last entry's count minus one) was refitted "
                          "and keeps higher above lower.")
    upper_bound: bool = Field(description="The count is an upper bound: one vote fewer was not shown to keep the "
                              "order.")
    n_votes: int = Field(ge=0, description="All votes of the fit.")
    share: float | None = Field(description="votes / n_votes.")
    gap_after: float | None = Field(description="Rating of lower minus rating of higher after the removal (points).")
    refits: int = Field(ge=0, description="Refits the search ran.")
    removed: tuple[ArenaFlipVotes, ...] = Field(
        description="The removed votes by cell, the list's last vote in the last entry.")


class ArenaPairCounts(SnapshotModel):
    """The plain fit's votes per unordered pair and outcome (the data a refit needs), shape (n_pairs,) each."""

    models: tuple[str, ...] = Field(description="Spellings; ``i`` and ``j`` index into them.")
    i: tuple[int, ...] = Field(description="First model of each pair (i < j).")
    j: tuple[int, ...] = Field(description="Second model of each pair.")
    wins_i: tuple[int, ...] = Field(description="Votes the first model won.")
    wins_j: tuple[int, ...] = Field(description="Votes the second model won.")
    ties: tuple[int, ...] = Field(description="Ties of either kind.")
    reweight: bool = Field(default=False, description="The fit weighted each vote 1 / max(votes of its pair, "
                           "min_pair) (LMArena's inverse-frequency weights).")
    min_pair: int = Field(default=50, ge=1, description="The floor of those weights' pair count.")


class ArenaStyleBattles(SnapshotModel):
    """The style-controlled fit's battles, published with its flip budgets so a refit without the
    removed votes can be rerun (``data/styled-battles-<board>.csv.gz`` among the evidence)."""

    models: tuple[str, ...] = Field(description="The fit's model order; the CSV's model codes index into it.")
    features: tuple[str, ...] = Field(description="The raw feature columns of the CSV, in the fit's order.")
    n_battles: int = Field(ge=0, description="Rows of the CSV: every battle the styled fit was given.")
    csv_gz: str = Field(
        description="Base64 of a gzip CSV, header model_a,model_b,outcome,<feature>...: per battle in file order "
        "the two model codes, the outcome 0 (model_a won), 1 (model_b won) or 2 (a tie of either kind) and each "
        "raw feature value before standardisation.")


class ArenaStyle(SnapshotModel):
    """The Arena page's Style control view: Bradley-Terry with covariates for how answers look."""

    features: tuple[str, ...] = Field(description="Style features in use.")
    n_battles: int = Field(ge=0, description="Battles fitted.")
    metadata: ArenaStyleMetadata = Field(description="Style metadata accounting.")
    method: ArenaStyleMethod = Field(description="Fit settings.")
    coefficients: tuple[ArenaStyleCoefficient, ...] = Field(description="One per feature, in feature order.")
    models: tuple[ArenaStyleModel, ...] = Field(description="Rated spellings by component, then styled rank.")
    unrated: tuple[ArenaUnrated, ...] = Field(description="Spellings without a finite styled rating.")
    flips: tuple[ArenaFlip, ...] = Field(
        default=(), description="Vote flip budgets of the adjacent pairs in the styled top 10, #1/#2 first.")


class ArenaChange(SnapshotModel):
    """Rating-change statistics of one spelling over the saved history slices."""

    model: str = Field(description="Spelling.")
    slices: int = Field(ge=1, description="History slices in which the spelling has a finite rating.")
    first_date: IsoDate = Field(description="Date of its first rated slice.")
    last_date: IsoDate = Field(description="Date of its last rated slice.")
    initial: float = Field(description="Rating in the first rated slice, Arena scale.")
    final: float = Field(description="Rating in the last rated slice.")
    change: float = Field(description="final - initial.")
    highest: float = Field(description="Highest rating over the slices.")
    lowest: float = Field(description="Lowest rating over the slices.")
    volatility: float | None = Field(
        description="Sample standard deviation of the spelling's ratings over its rated slices; null with fewer "
        "than two slices."
    )
    total_matches: int | None = Field(
        default=None, ge=0, description="Battles of the spelling up to its last rated slice (null in older snapshots).")


class ArenaCategory(SnapshotModel):
    """Which battles a category board counts (from the battles' own tags)."""

    id: str = Field(description="Slug of the board (its page is arena/<id>/).")
    title: str = Field(description="The board's title.")
    criterion: str = Field(description="The rule in words, e.g. 'category_tag.math_v0.1.math is true'.")


class ArenaVoters(SnapshotModel):
    """The voter safeguards that ran (present only when the battles file names the voter)."""

    column: str = Field(description="The column naming the voter.")
    daily_cap: int | None = Field(default=None, description="Votes kept per voter and UTC day (null: no cap).")
    capped_rows: int = Field(default=0, ge=0, description="Votes removed by the daily cap.")
    fpr: float | None = Field(default=None, description="False-positive rate of the anomalous-voter test (null: off).")
    min_votes: int | None = Field(default=None, description="Fewest decisive votes a voter needs to be tested.")
    voters: int | None = Field(default=None, description="Distinct voters among the battles tested.")
    tested: int | None = Field(default=None, description="Voters with enough votes to be tested.")
    flagged: int | None = Field(default=None, description="Voters flagged as anomalous and removed.")
    flagged_rows: int | None = Field(default=None, description="Their votes, removed.")


class Arena(SnapshotModel):
    """The Arena page: Bradley-Terry ratings fitted on a battles file."""

    source: str = Field(description="Battles file name.")
    rows_read: int = Field(ge=0, description="Rows in the file.")
    n_battles: int = Field(ge=0, description="Battles fitted, after bad rows and filters.")
    filters: dict[str, int] = Field(description="Filter -> rows it removed.")
    bad_rows: dict[str, int] = Field(description="Kind of bad row -> count.")
    method: ArenaMethod = Field(description="Fit settings.")
    models: tuple[ArenaModel, ...] = Field(description="Rated spellings by component, then rank.")
    components: tuple[ArenaComponent, ...] = Field(description="Connected components, most battles first.")
    unrated: tuple[ArenaUnrated, ...] = Field(description="Spellings without a finite rating.")
    winrate: ArenaWinrate = Field(description="Win-rate matrices.")
    history: tuple[ArenaSlice, ...] = Field(description="Rating history, oldest first (empty without timestamps).")
    style: ArenaStyle | None = Field(
        default=None, description="The style-controlled view (null when no battle carries usable conv_metadata).")
    default_view: Literal["plain", "style"] = Field(default="plain", description="The view the Arena page opens with.")
    changes: tuple[ArenaChange, ...] = Field(
        default=(), description="Rating-change statistics per spelling over ``history``, by spelling."
    )
    arena_id: str | None = Field(default=None, description="For one more arena: its slug (page arenas/<id>/).")
    title: str | None = Field(default=None, description="For one more arena: its name.")
    voters: ArenaVoters | None = Field(
        default=None, description="The voter safeguards (null when off or when the file names no voter).")
    category: ArenaCategory | None = Field(
        default=None, description="For a category board: which battles it counts (null for the main board).")
    categories: tuple[Arena, ...] = Field(
        default=(),
        description="Category boards, each a full Arena section on its category's battles, in site.yml order.")
    flips: tuple[ArenaFlip, ...] = Field(
        default=(), description="Vote flip budgets of the adjacent pairs in the top 10 (plain fit), #1/#2 first.")
    pair_counts: ArenaPairCounts | None = Field(
        default=None, description="The plain fit's pair-outcome counts, published with the flip budgets so a "
        "refit without the removed votes can be rerun (null without flip budgets).")
    style_battles: ArenaStyleBattles | None = Field(
        default=None, description="The style-controlled fit's battles, published with its flip budgets so a "
        "refit without the removed votes can be rerun (null without styled flip budgets).")


# --------------------------------------------------------------------------- evals


class EvalRow(SnapshotModel):
    """One model's line on an eval-suite board."""

    model_id: str = Field(description="Model id as in the eval files.")
    mean_score: float = Field(description="Mean score, the metric's [0, 1] scale.")
    mean_ci_lo: float = Field(description="Lower bootstrap bound of the mean.")
    mean_ci_hi: float = Field(description="Upper bootstrap bound of the mean.")
    win_rate: float = Field(description="Share of its tasks the model won (ties split), 0..1.")
    tasks_completed: int = Field(ge=0, description="Tasks with a score.")
    categories: dict[str, float] = Field(description="Category -> mean score on its tasks.")


class EvalPair(SnapshotModel):
    """Paired bootstrap difference of two models over their common tasks."""

    model_a: str = Field(description="Higher-ranked model.")
    model_b: str = Field(description="Lower-ranked model.")
    diff: float | None = Field(description="Mean per-task score difference a - b; null without common tasks.")
    ci_lo: float | None = Field(description="Lower bootstrap bound of the difference.")
    ci_hi: float | None = Field(description="Upper bootstrap bound of the difference.")
    n_tasks: int = Field(ge=0, description="Common tasks.")
    significant: bool = Field(description="The interval excludes zero.")


class EvalBoard(SnapshotModel):
    """One metric's board of a suite."""

    n_tasks: int = Field(ge=0, description="Distinct tasks any model has for the metric.")
    categories: tuple[str, ...] = Field(description="Task categories, sorted (may be empty).")
    rows: tuple[EvalRow, ...] = Field(description="Rows, best mean first.")
    pairwise: tuple[EvalPair, ...] = Field(description="Every pair, the higher-ranked model first.")
    markdown: str = Field(description="The rows as a markdown table.")


class ClarifySummary(SnapshotModel):
    """Clarification metrics over a set of run records."""

    num_tasks: int = Field(ge=0, description="Records.")
    num_files: int = Field(ge=0, description="Run files.")
    tkqr: float = Field(description="Mean key-question recall (TKQR), 0..1.")
    ora: float = Field(description="Mean outcome-relevant accuracy (ORA), 0..1.")
    avg_turns: float = Field(description="Mean question rounds.")
    avg_diff: float = Field(description="Mean question rounds minus key questions.")
    tkqr_above_one: int = Field(
        default=0, ge=0, description="Records with more hits than key questions (TKQR above 1, averaged as computed).")


class ClarifyResults(SnapshotModel):
    """A clarify suite's summaries."""

    overall: ClarifySummary = Field(description="Over every record.")
    models: dict[str, ClarifySummary] = Field(description="Model -> its summary.")


class EvalSuite(SnapshotModel):
    """One eval suite from site.yml, aggregated."""

    id: Slug = Field(description="Suite id (``evals/<id>/``).")
    title: str = Field(description="Suite title.")
    kind: Literal["aggregate", "clarify"] = Field(description="aggregate: eval runs; clarify: TKQR/ORA runs.")
    description: str = Field(description="Shown above the suite's table.")
    metric: str = Field(description="Metric shown first (a key of ``boards``).")
    metrics: tuple[str, ...] = Field(description="Every metric found, in order of first appearance.")
    bootstrap: int = Field(ge=1, description="Bootstrap rounds.")
    alpha: float = Field(description="1 - interval coverage.")
    seed: int = Field(description="Bootstrap seed.")
    inputs: tuple[str, ...] = Field(description="Input paths as configured.")
    boards: dict[str, EvalBoard] = Field(description="Metric -> its board.")
    clarify: ClarifyResults | None = Field(description="Clarify suites: TKQR/ORA summaries; null otherwise.")

    @property
    def shown(self) -> EvalBoard:
        """The board of the metric shown first."""
        return self.boards[self.metric]

    @property
    def rows(self) -> tuple[EvalRow, ...]:
        return self.shown.rows

    @property
    def pairwise(self) -> tuple[EvalPair, ...]:
        return self.shown.pairwise

    @property
    def markdown(self) -> str:
        return self.shown.markdown

    @property
    def n_tasks(self) -> int:
        return self.shown.n_tasks

    @property
    def n_models(self) -> int:
        return len(self.shown.rows)

    @property
    def categories(self) -> tuple[str, ...]:
        return self.shown.categories


class Evals(SnapshotModel):
    """The operator's own eval suites."""

    suites: tuple[EvalSuite, ...] = Field(description="Suites in site.yml order.")


# --------------------------------------------------------------------------- capability index


class IndexBoardSetting(SnapshotModel):
    """One upstream board of the Capability Index."""

    feed: str = Field(description="Feed (``source/feed``) or eval suite (``evals/<id>``).")
    family: Literal["general", "coding", "agent", "reasoning"] = Field(description="Index family.")
    share: float = Field(description="The board's share of its family.")
    confidence: float = Field(description="Trust in the board, 0-100.")


class IndexSettings(SnapshotModel):
    """The Capability Index settings the numbers were computed with (site.yml ``index``)."""

    version: str = Field(description="Method name.")
    boards: tuple[IndexBoardSetting, ...] = Field(description="Upstream boards.")
    family_weights: dict[str, float] = Field(description="Specialist family -> weight, percent.")
    delta_bound: float = Field(description="Largest move of a specialist family, index points.")
    sigmas: dict[str, float] = Field(description="Fusion channel -> standard deviation, index points.")
    confidence_per_sigma: float = Field(description="Confidence lost per fused sigma point.")
    tolerance: float = Field(description="A rebuilt number must land within this of the published one.")
    lineages: dict[str, str] = Field(description="Identity -> lineage overrides.")


class IndexObservation(SnapshotModel):
    """One row behind a Capability Index score."""

    family: str = Field(description="Index family.")
    board: str = Field(description="Upstream board (feed).")
    source_score: float = Field(description="Mid-rank percentile of the raw score on the board, 0-100, one decimal.")
    share: float = Field(description="The board's share of its family.")
    confidence: float = Field(description="The board's confidence, 0-100.")
    url: str | None = Field(description="Where the row was published.")
    date: IsoDate | None = Field(description="Row date.")
    raw: float = Field(description="The raw score ranked.")


class FusionTerm(SnapshotModel):
    """One term of a fused estimate."""

    channel: Literal["measured-specialist", "lineage", "maker-prior"] = Field(description="Fusion channel.")
    mean: float = Field(description="The term's estimate, index points.")
    sigma: float = Field(description="The channel's standard deviation, index points.")
    from_identity: str | None = Field(description="lineage: the measured version it inherits from; else null.")


class Fusion(SnapshotModel):
    """A precision-weighted estimate for a model without a general row."""

    terms: tuple[FusionTerm, ...] = Field(description="The terms fused.")
    sigma: float = Field(description="Fused standard deviation, 1 / sqrt(sum 1 / sigma_t^2).")


class IndexRank(SnapshotModel):
    """A model's place on the two index boards."""

    current: int | None = Field(ge=1, description="Rank among the newest version of each lineage; null: not current.")
    all_versions: int | None = Field(ge=1, description="Rank among every scored model.")


class IndexModel(SnapshotModel):
    """One model's Capability Index score."""

    identity: str = Field(description="Identity key.")
    name: str = Field(description="Display name.")
    maker: str | None = Field(description="Maker.")
    lineage: str = Field(description="Lineage key (identity without versions and dates).")
    release_date: IsoDate | None = Field(description="Release date.")
    families: dict[str, float] = Field(description="Index family -> family score, 0-100.")
    observations: tuple[IndexObservation, ...] = Field(description="Rows behind the score.")
    fusion: Fusion | None = Field(description="Fused estimate; null for measured models.")
    basis: Literal["measured", "estimated", "inherited"] = Field(description="How the score was obtained.")
    score: float = Field(description="Published score, 0-100, one decimal.")
    confidence: float = Field(description="Confidence, 0-100, one decimal.")
    rank: IndexRank = Field(description="Ranks on the two boards.")


class IndexBoards(SnapshotModel):
    """The two Capability Index boards, best first."""

    current: tuple[str, ...] = Field(description="Identities of the newest version of each lineage.")
    all_versions: tuple[str, ...] = Field(description="Identities of every scored model.")


class CapabilityIndex(SnapshotModel):
    """The Capability Index: a second ranking on a 0-100 scale."""

    method_id: str = Field(description="Index method id (version plus a hash of the settings).")
    settings: IndexSettings = Field(description="Settings used.")
    models: tuple[IndexModel, ...] = Field(description="Scored models, by identity.")
    boards: IndexBoards = Field(description="The two boards.")


# --------------------------------------------------------------------------- backfill


class LmarenaDrift(SnapshotModel):
    """The invented drift of the undated LMArena ratings in the demo history."""

    formula: str = Field(description="The drift rule.")
    points: float = Field(description="Largest drift, Arena points.")
    days: int = Field(description="Days over which the drift fades.")
    final_date: IsoDate | None = Field(description="Date of the LMArena file (no drift on and after it).")
    note: str = Field(description="Why the drift exists.")


class Backfill(SnapshotModel):
    """How a demo-history snapshot was made."""

    command: str = Field(description="The command that wrote it.")
    demo: bool = Field(description="Always true: demo data.")
    rules: str = Field(description="How the bundled payloads were cut to the day.")
    lmarena_drift: LmarenaDrift = Field(description="The LMArena drift rule.")


# --------------------------------------------------------------------------- the snapshot


class SnapshotMethod(SnapshotModel):
    """Dated rules of the method this snapshot was scored under."""

    single_source_rule: bool = Field(
        description="True: models with one contributing independent evaluator were moved to the New strip and "
        "off the picks when scored. A snapshot without this record predates that rule."
    )


class Snapshot(SnapshotModel):
    """One dated snapshot: everything the site shows for that day."""

    schema_version: Literal[3] = Field(description="Version of this schema.")
    date: IsoDate = Field(description="The UTC day the snapshot belongs to (its file name).")
    created_at: IsoDateTime = Field(description="Build time.")
    method_id: str = Field(description="Scoring method id: version plus a hash of the scoring configuration.")
    method: SnapshotMethod | None = Field(
        default=None, description="Dated method rules it was scored under; null: from before the single-source rule."
    )
    demo: bool = Field(description="Built from the bundled demo data.")
    as_of: IsoDate | None = Field(
        description="Newest publication date among the scored sources (price lists not counted).")
    stale: bool = Field(description="The Arena source failed at the last refresh.")
    previous_date: IsoDate | None = Field(
        description="Date of the earlier snapshot the movement column compares with; null when there is none, "
        "its method differs, or the snapshot was migrated from schema 1."
    )
    site: SiteInfo = Field(description="The site.")
    sources: tuple[Source, ...] = Field(description="Every enabled source, in site.yml order.")
    families: dict[str, Family] = Field(description="Family id -> its feeds.")
    roles: dict[str, Role] = Field(description="Role id -> its family weights.")
    observations: tuple[Observation, ...] = Field(description="Every published row of the enabled sources.")
    calibration: tuple[Calibration, ...] = Field(description="Every z-fit, per feed and release.")
    models: dict[str, ModelFacts] = Field(description="Identity -> facts, for every identity the snapshot names.")
    prices: Prices = Field(description="Token and build prices.")
    boards: tuple[Board, ...] = Field(description="Role boards, in site.yml order.")
    machines: tuple[Machine, ...] = Field(description="Home-computer picks, in site.yml order.")
    stacks: Stacks = Field(description="Best and value stacks.")
    uncertainty: UncertaintySettings | None = Field(
        default=None, description="How the boards' bootstrap was run; null in snapshots made before it existed."
    )
    worked_example: WorkedExample | None = Field(description="The methodology's worked example; null: no ranked row.")
    arena: Arena | None = Field(description="The Arena section; null when disabled or without battles.")
    arenas: tuple[Arena, ...] = Field(
        default=(), description="More arenas (site.yml ``arenas``), each a full Arena section with its id and title.")
    evals: Evals | None = Field(description="The eval suites; null when none is configured.")
    index: CapabilityIndex | None = Field(description="The Capability Index; null when disabled.")
    backfill: Backfill | None = Field(description="Demo history only: how the snapshot was made.")

    @model_validator(mode="after")
    def _references_agree(self) -> Snapshot:
        problem = next(iter(reference_problems(self)), None)
        if problem is not None:
            path, message = problem
            raise PydanticCustomError(REFERENCE_ERROR, "{path}: {message}", {"path": path, "message": message})
        return self

    def board(self, board_id: str) -> Board | None:
        """The board with this id, or None."""
        return next((b for b in self.boards if b.id == board_id), None)


# --------------------------------------------------------------------------- cross-references

Problem = tuple[str, str]
"(JSON path, what is wrong there)."


def reference_problems(snap: Snapshot) -> Iterator[Problem]:
    """Every disagreement between the parts of ``snap``, in document order (lazily).

    Names: every identity a board, pick, stack, price, observation, fit, the Capability
    Index or the worked example uses is a key of ``models``; every Arena spelling is an
    identity or a recorded spelling of one. Ranks: board rows carry competition ranks on R
    (best first), picks competition ranks on (partial, -R), index ranks are positions on
    the index boards, and the worked example is the first row of its board.
    """
    known = snap.models
    yield from _observation_problems(snap.observations, snap.calibration, known)
    for i, price in enumerate(snap.prices.token):
        yield from _known(f"prices.token[{i}].identity", price.identity, known)
    for i, build in enumerate(snap.prices.build):
        yield from _known(f"prices.build[{i}].identity", build.identity, known)
    for i, board in enumerate(snap.boards):
        yield from _board_problems(f"boards[{i}]", board, snap.roles, snap.families, known)
    for i, machine in enumerate(snap.machines):
        yield from _machine_problems(f"machines[{i}]", machine, known)
    yield from _stack_problems(snap.stacks, snap.boards, known)
    if snap.worked_example is not None:
        yield from _example_problems(snap.worked_example, snap.boards)
    if snap.index is not None:
        yield from _index_problems(snap.index, known)
    if snap.arena is not None:
        yield from _arena_problems(snap.arena, known)
    if snap.evals is not None:
        yield from _evals_problems(snap.evals)


def _known(path: str, identity: str, known: Mapping[str, ModelFacts]) -> Iterator[Problem]:
    if identity not in known:
        yield path, f"model {identity!r} is not in the snapshot's models"


def _observation_problems(
    observations: Sequence[Observation], fits: Sequence[Calibration], known: Mapping[str, ModelFacts]
) -> Iterator[Problem]:
    for i, o in enumerate(observations):
        if o.identity:
            yield from _known(f"observations[{i}].identity", o.identity, known)
    for i, c in enumerate(fits):
        for j, ident in enumerate(c.overlap):
            yield from _known(f"calibration[{i}].overlap[{j}]", ident, known)


def _board_problems(
    path: str, board: Board, roles: Mapping[str, Role], families: Mapping[str, Family],
    known: Mapping[str, ModelFacts],
) -> Iterator[Problem]:
    if board.role not in roles:
        yield f"{path}.role", f"role {board.role!r} is not in the snapshot's roles"
    for fam in board.weights:
        if fam not in families:
            yield f"{path}.weights", f"family {fam!r} is not in the snapshot's families"
    for j, row in enumerate(board.rows):
        yield from _known(f"{path}.rows[{j}].identity", row.identity, known)
        expected = j + 1 if j == 0 or row.r != board.rows[j - 1].r else board.rows[j - 1].rank
        if j and row.r > board.rows[j - 1].r:
            yield f"{path}.rows[{j}].r", f"R {row.r!r} is above the row before it (rows go best first)"
        elif row.rank != expected:
            yield f"{path}.rows[{j}].rank", f"rank {row.rank!r} disagrees with the rows (expected {expected})"
    for j, row in enumerate(board.new):
        yield from _known(f"{path}.new[{j}].identity", row.identity, known)
        if row.rank is not None:
            yield f"{path}.new[{j}].rank", "a row of the new strip has no rank"
        if row.uncertainty is not None and row.uncertainty.rank_lo is not None:
            yield f"{path}.new[{j}].uncertainty.rank_lo", "a row of the new strip has no rank range"
    if board.uncertainty is not None:
        pair = board.uncertainty.pairwise
        for j, ident in enumerate(pair.identities):
            yield from _known(f"{path}.uncertainty.pairwise.identities[{j}]", ident, known)
        n = len(pair.identities)
        if len(pair.p_greater) != n or any(len(line) != n for line in pair.p_greater):
            yield f"{path}.uncertainty.pairwise.p_greater", f"not a {n} x {n} matrix (one per identity)"


def _machine_problems(path: str, machine: Machine, known: Mapping[str, ModelFacts]) -> Iterator[Problem]:
    for j, row in enumerate(machine.rows):
        yield from _known(f"{path}.rows[{j}].identity", row.identity, known)
        key = (row.partial, -row.r)
        if j == 0:
            expected: int | None = 1
        else:
            before = machine.rows[j - 1]
            if key < (before.partial, -before.r):
                yield f"{path}.rows[{j}]", "picks go non-partial first, then by R"
                continue
            expected = before.rank if key == (before.partial, -before.r) else j + 1
        if row.rank != expected:
            yield f"{path}.rows[{j}].rank", f"rank {row.rank!r} disagrees with the rows (expected {expected})"
    for j, row in enumerate(machine.new):
        yield from _known(f"{path}.new[{j}].identity", row.identity, known)
        if row.rank is not None:
            yield f"{path}.new[{j}].rank", "a row of the new strip has no rank"


def _stack_problems(stacks: Stacks, boards: Sequence[Board], known: Mapping[str, ModelFacts]) -> Iterator[Problem]:
    by_id = {b.id: b for b in boards}
    for i, e in enumerate(stacks.best):
        yield from _known(f"stacks.best[{i}].identity", e.identity, known)
        board = by_id.get(e.board)
        if board is None:
            yield f"stacks.best[{i}].board", f"board {e.board!r} is not in the snapshot's boards"
        elif not any(r.identity == e.identity for r in board.rows):
            yield f"stacks.best[{i}].identity", f"{e.identity!r} is not ranked on board {e.board!r}"
    for i, v in enumerate(stacks.value.entries):
        yield from _known(f"stacks.value.entries[{i}].identity", v.identity, known)


def _example_problems(example: WorkedExample, boards: Sequence[Board]) -> Iterator[Problem]:
    board = next((b for b in boards if b.id == example.board_id), None)
    if board is None:
        yield "worked_example.board_id", f"board {example.board_id!r} is not in the snapshot's boards"
    elif not board.rows or board.rows[0].identity != example.identity:
        yield "worked_example.identity", f"{example.identity!r} is not the first row of board {board.id!r}"
    elif example.agrees and abs(example.r - board.rows[0].r) > 1e-9 * max(1.0, abs(board.rows[0].r)):
        yield "worked_example.r", (f"R {example.r!r} is said to agree with the board, which saved "
                                   f"{board.rows[0].r!r}")


def _index_problems(index: CapabilityIndex, known: Mapping[str, ModelFacts]) -> Iterator[Problem]:
    scored = {m.identity for m in index.models}
    for i, m in enumerate(index.models):
        yield from _known(f"index.models[{i}].identity", m.identity, known)
        for j, term in enumerate(m.fusion.terms if m.fusion else ()):
            if term.from_identity is not None:
                yield from _known(f"index.models[{i}].fusion.terms[{j}].from_identity", term.from_identity, known)
    rank_of = {m.identity: (i, m.rank) for i, m in enumerate(index.models)}
    for board in ("current", "all_versions"):
        listed: tuple[str, ...] = getattr(index.boards, board)
        for pos, ident in enumerate(listed):
            if ident not in scored:
                yield f"index.boards.{board}[{pos}]", f"model {ident!r} is not in the index's models"
                continue
            i, rank = rank_of[ident]
            if getattr(rank, board) != pos + 1:
                yield f"index.models[{i}].rank.{board}", (
                    f"rank {getattr(rank, board)!r} disagrees with index.boards.{board} (position {pos + 1})")
        on_board = set(listed)
        for ident, (i, rank) in rank_of.items():
            if getattr(rank, board) is not None and ident not in on_board:
                yield f"index.models[{i}].rank.{board}", f"{ident!r} has a rank but is not on index.boards.{board}"


def _arena_problems(arena: Arena, known: Mapping[str, ModelFacts]) -> Iterator[Problem]:
    names = set(known) | {s for facts in known.values() for s in facts.spellings}

    def check(path: str, name: str) -> Iterator[Problem]:
        if name not in names:
            yield path, f"Arena model {name!r} is neither an identity nor a spelling in the snapshot's models"

    for i, m in enumerate(arena.models):
        yield from check(f"arena.models[{i}].model", m.model)
        if m.component >= len(arena.components):
            yield f"arena.models[{i}].component", f"component {m.component} does not exist"
    for i, c in enumerate(arena.components):
        for j, name in enumerate(c.models):
            yield from check(f"arena.components[{i}].models[{j}]", name)
    for i, u in enumerate(arena.unrated):
        for j, name in enumerate(u.models):
            yield from check(f"arena.unrated[{i}].models[{j}]", name)
    for j, name in enumerate(arena.winrate.models):
        yield from check(f"arena.winrate.models[{j}]", name)
    n = len(arena.winrate.models)
    for key in ("predicted", "empirical", "battles"):
        matrix = getattr(arena.winrate, key)
        if len(matrix) != n or any(len(row) != n for row in matrix):
            yield f"arena.winrate.{key}", f"not a {n} x {n} matrix (one row and column per winrate model)"
    for i, sl in enumerate(arena.history):
        for j, entry in enumerate(sl.models):
            yield from check(f"arena.history[{i}].models[{j}].model", entry.model)


def _evals_problems(evals: Evals) -> Iterator[Problem]:
    for i, suite in enumerate(evals.suites):
        if suite.metric not in suite.boards:
            yield f"evals.suites[{i}].metric", f"metric {suite.metric!r} has no board"
        for metric, board in suite.boards.items():
            models = {r.model_id for r in board.rows}
            for j, pair in enumerate(board.pairwise):
                for side in (pair.model_a, pair.model_b):
                    if side not in models:
                        yield f"evals.suites[{i}].boards.{metric}.pairwise[{j}]", f"model {side!r} has no row"
