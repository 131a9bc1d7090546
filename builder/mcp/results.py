"""The typed results of the MCP tools (the SDK publishes each as the tool's output schema).

Every result carries ``snapshot`` (date, method id, as-of date, created time, download URL);
numbers carry their source's URL (``provenance``, ``url`` fields). The parts shared with the
static API are the API's own models (``builder.api.models``), so a board row is the same
object in a tool result, an API file and a board download.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from builder.api.models import (
    ApiModel,
    ArenaInfo,
    BoardInfo,
    BoardRow,
    Explain,
    HistoryPoint,
    MachineRow,
    ModelFacts,
    PriceRef,
    Provenance,
    SnapshotRef,
    SourceInfo,
)


class ListedBoard(ApiModel):
    id: str
    title: str | None
    kind: str | None
    role: str | None
    weights: dict[str, float]
    ranked: int
    new: int
    top: str | None = Field(description="Identity of the rank-1 row.")
    as_of: str | None
    warnings: list[str]
    page: str
    api: str
    download: str


class ListBoardsResult(ApiModel):
    snapshot: SnapshotRef
    boards: list[ListedBoard]
    warnings: list[str] = Field(description="Snapshot-wide: demo data, stale Arena source.")
    machines: list[str] = Field(description="Home-computer machine ids (pick_model accepts them as a board).")


class BoardFilters(ApiModel):
    top: int
    open_weight_only: bool
    max_blended_price: float | None
    hide_partial: bool


class GetBoardResult(ApiModel):
    snapshot: SnapshotRef
    board: BoardInfo
    rule: str
    filters: BoardFilters
    matched: int = Field(description="Ranked rows that pass the filters (before `top`).")
    rows: list[BoardRow] = Field(description="The first `top` ranked rows that pass the filters, in board order.")
    new: list[BoardRow] = Field(description="The New strip (unranked), same filters, at most `top`.")
    provenance: dict[str, Provenance] = Field(
        description="Identity -> number (a family id, token_price, build_price) -> URLs of the published values "
                    "behind it (an empty list: a local source with no public URL).")
    page: str
    api: str
    download: str = Field(description="The board download whose rows these are.")
    licence: str
    attribution: str
    sources: list[SourceInfo]


class ExplainResult(ApiModel):
    snapshot: SnapshotRef
    explain: Explain
    page: str
    api: str


class ComparedBoard(ApiModel):
    board: str
    title: str | None
    strip: Literal["ranked", "new"]
    rank: int | None
    score: int
    r: float
    partial: bool


class ComparedFamily(ApiModel):
    title: str
    mean: float | None = Field(description="The family value on the boards, Arena scale.")
    calibrated: list[float] = Field(description="The calibrated values whose mean it is.")
    feeds: list[str] = Field(description="Their feeds, in the same order.")
    urls: list[str | None] = Field(description="Their published sources, in the same order.")


class ComparedModel(ApiModel):
    identity: str
    name: str
    page: str
    api: str
    facts: ModelFacts
    token_price: PriceRef | None = Field(description="Blended LiteLLM token price the boards use.")
    build_price: PriceRef | None
    build_passed: bool | None
    families: dict[str, ComparedFamily]
    boards: list[ComparedBoard]


class ArenaPair(ApiModel):
    """Two compared models' entries in the Arena Bradley-Terry fit."""

    a: str = Field(description="Identity of the first model.")
    b: str = Field(description="Identity of the second model.")
    a_model: str = Field(description="The first model's spelling in the fit.")
    b_model: str
    a_rating: float | None
    b_rating: float | None
    p_a_beats_b: float | None = Field(
        description="1 / (1 + base ** ((b_rating - a_rating) / scale)); null across components of the battle graph.")
    observed_battles: int | None = Field(description="Battles between them (null: the pair is outside the "
                                                      "fit's win-rate matrix or never met).")
    observed_a_win_rate: float | None = Field(description="(a's wins + ties / 2) / battles.")
    note: str


class CompareResult(ApiModel):
    snapshot: SnapshotRef
    models: list[ComparedModel]
    arena: ArenaInfo | None
    arena_pairs: list[ArenaPair]


class PickTarget(ApiModel):
    kind: Literal["board", "machine"]
    id: str
    title: str | None
    page: str


class PickFilters(ApiModel):
    max_blended_price: float | None
    open_weight: bool | None


class PickResult(ApiModel):
    snapshot: SnapshotRef
    target: PickTarget
    rule: str = Field(description="The board's (or machine's) rule, then the filters.")
    filters: PickFilters
    pick: MachineRow | BoardRow | None
    runner_up: MachineRow | BoardRow | None
    reason: str
    considered: int = Field(description="Ranked rows looked at.")
    passed: int = Field(description="Rows that pass the filters.")
    provenance: dict[str, Provenance] = Field(description="As in get_board, for the pick and the runner-up.")


How = Literal["identity", "name", "spelling", "alias", "folded", "contains", "similar"]
"""How a search matched: exactly (by which kind of name), folded (case and punctuation ignored),
as a part of a name, or only as one of the closest names."""


class SearchMatch(ApiModel):
    identity: str
    name: str
    slug: str
    matched: str = Field(description="The name, spelling or alias that matched.")
    how: How
    boards: list[str]
    page: str
    api: str


class SearchResult(ApiModel):
    snapshot: SnapshotRef
    query: str
    matches: list[SearchMatch]


class HistoryResult(ApiModel):
    snapshot: SnapshotRef
    identity: str
    name: str
    board: str
    board_title: str | None
    points: list[HistoryPoint] = Field(description="Every saved snapshot with the model on the board, oldest first.")
    snapshots: list[str] = Field(description="Every saved snapshot date considered.")
    absent: list[str] = Field(description="Dates on which the model was not on the board.")


class SourcesResult(ApiModel):
    snapshot: SnapshotRef
    sources: list[SourceInfo]
