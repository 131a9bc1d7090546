"""The MCP server: the ``Tools`` and three resources on the official SDK's ``MCPServer``.

Arguments are typed (``Annotated`` with pydantic ``Field`` constraints), so the SDK publishes
their JSON Schema and rejects a bad argument as a tool error before the tool runs; results
are pydantic models (``builder.mcp.results``), published as each tool's output schema. A
``ToolFailure`` becomes an SDK ``ToolError`` (a result with ``isError``); any other exception
is caught by the SDK as well. Nothing a client sends ends the server.
"""

from __future__ import annotations

from collections.abc import Callable
from importlib.metadata import PackageNotFoundError, version
from typing import Annotated, Any, TypeVar

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ResourceError, ResourceNotFoundError, ToolError
from pydantic import Field

from builder.api.catalogue import RESOURCES, TOOLS_BY_NAME
from builder.mcp.data import ApiStore, DataError, dump_model
from builder.mcp.results import (
    CompareResult,
    ExplainResult,
    GetBoardResult,
    HistoryResult,
    ListBoardsResult,
    PickResult,
    SearchResult,
    SourcesResult,
)
from builder.mcp.tools import ToolFailure, Tools

T = TypeVar("T")
INSTRUCTIONS = (
    "ModelBoards ranks AI models for roles (orchestrator, mid-tier and rote workers, open-weight, home computers) "
    "from public evaluations calibrated onto the Arena scale. Start with list_boards or search_models; get_board "
    "and pick_model answer 'which model', explain_model shows the arithmetic, compare_models puts models side by "
    "side. Every result names its snapshot date, method id and the URL of each number's source."
)


def _spec(name: str) -> str:
    return TOOLS_BY_NAME[name].description


def _arg(tool: str, name: str) -> str:
    return TOOLS_BY_NAME[tool].arg(name)


def _call(fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    try:
        return fn(*args, **kwargs)
    except ToolFailure as exc:
        raise ToolError(str(exc)) from None


def _package_version() -> str:
    try:
        return version("modelboards")
    except PackageNotFoundError:  # running from a source tree without an install
        return "0"


Name = Annotated[str, Field(min_length=1, max_length=200)]


def create_server(store: ApiStore) -> MCPServer:
    """The server over ``store`` (the tools read ``store.current()`` on every call)."""
    tools = Tools(store)
    server: MCPServer = MCPServer("modelboards", title="ModelBoards", instructions=INSTRUCTIONS,
                                  version=_package_version(), log_level="WARNING")

    @server.tool(name="list_boards", description=_spec("list_boards"))
    def list_boards() -> ListBoardsResult:
        return _call(tools.list_boards)

    @server.tool(name="get_board", description=_spec("get_board"))
    def get_board(
        board: Annotated[str, Field(min_length=1, max_length=200, description=_arg("get_board", "board"))],
        top: Annotated[int, Field(ge=1, le=1000, description=_arg("get_board", "top"))] = 20,
        open_weight_only: Annotated[bool, Field(description=_arg("get_board", "open_weight_only"))] = False,
        max_blended_price: Annotated[
            float | None, Field(ge=0, allow_inf_nan=False, description=_arg("get_board", "max_blended_price"))
        ] = None,
        hide_partial: Annotated[bool, Field(description=_arg("get_board", "hide_partial"))] = False,
    ) -> GetBoardResult:
        return _call(tools.get_board, board, top, open_weight_only, max_blended_price, hide_partial)

    @server.tool(name="explain_model", description=_spec("explain_model"))
    def explain_model(
        model: Annotated[str, Field(min_length=1, max_length=200, description=_arg("explain_model", "model"))],
        board: Annotated[str, Field(min_length=1, max_length=200,
                                    description=_arg("explain_model", "board"))] = "orchestrator",
    ) -> ExplainResult:
        return _call(tools.explain_model, model, board)

    @server.tool(name="compare_models", description=_spec("compare_models"))
    def compare_models(
        models: Annotated[list[Name], Field(min_length=2, max_length=5,
                                            description=_arg("compare_models", "models"))],
    ) -> CompareResult:
        return _call(tools.compare_models, models)

    @server.tool(name="pick_model", description=_spec("pick_model"))
    def pick_model(
        board: Annotated[str, Field(min_length=1, max_length=200, description=_arg("pick_model", "board"))],
        max_blended_price: Annotated[
            float | None, Field(ge=0, allow_inf_nan=False, description=_arg("pick_model", "max_blended_price"))
        ] = None,
        open_weight: Annotated[bool | None, Field(description=_arg("pick_model", "open_weight"))] = None,
    ) -> PickResult:
        return _call(tools.pick_model, board, max_blended_price, open_weight)

    @server.tool(name="search_models", description=_spec("search_models"))
    def search_models(
        query: Annotated[str, Field(min_length=1, max_length=200, description=_arg("search_models", "query"))],
    ) -> SearchResult:
        return _call(tools.search_models, query)

    @server.tool(name="model_history", description=_spec("model_history"))
    def model_history(
        model: Annotated[str, Field(min_length=1, max_length=200, description=_arg("model_history", "model"))],
        board: Annotated[str, Field(min_length=1, max_length=200,
                                    description=_arg("model_history", "board"))] = "orchestrator",
    ) -> HistoryResult:
        return _call(tools.model_history, model, board)

    @server.tool(name="sources", description=_spec("sources"))
    def sources() -> SourcesResult:
        return _call(tools.sources)

    (latest_uri, latest_mime, latest_desc), (board_uri, board_mime, board_desc), (meth_uri, meth_mime, meth_desc) = (
        RESOURCES)

    @server.resource(latest_uri, name="snapshot-latest", mime_type=latest_mime, description=latest_desc)
    def snapshot_latest() -> str:
        return dump_model(store.current().index)

    @server.resource(board_uri, name="board", mime_type=board_mime, description=board_desc)
    def board_resource(id: str) -> str:  # noqa: A002 - the URI template's variable
        data = store.current()
        if id not in {b.id for b in data.index.boards}:
            raise ResourceNotFoundError(f"unknown board {id!r}; boards: {', '.join(b.id for b in data.index.boards)}")
        try:
            return dump_model(data.board(id))
        except DataError as exc:  # a site that stopped answering: say so, keep serving
            raise ResourceError(f"cannot read board {id!r}: {exc}") from None

    @server.resource(meth_uri, name="methodology", mime_type=meth_mime, description=meth_desc)
    def methodology() -> str:
        try:
            return store.current().methodology()
        except DataError as exc:
            raise ResourceError(f"cannot read the methodology: {exc}") from None

    return server


def run_server(server: MCPServer, transport: str, port: int) -> None:
    """Serve until the client closes stdio, or until interrupted (HTTP on 127.0.0.1 only)."""
    if transport == "stdio":
        server.run("stdio")
    else:
        server.run("streamable-http", host="127.0.0.1", port=port)
