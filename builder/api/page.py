"""What the "API and MCP" page shows: endpoints, tools, resources, curl examples, client configuration.

``compute_api_page(base_url, example)`` gathers it as plain values; the page template only lays
them out. Examples name a real board and model of the snapshot when there is one
(``api_example``: the index's first board and its top model, found without building the API
documents, which a render writes in a forked copy of itself).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from builder.api.catalogue import RESOURCES, TOOLS, ToolSpec, endpoint_paths

if TYPE_CHECKING:
    from builder.snapshot.models import Snapshot


@dataclass(frozen=True)
class Example:
    title: str
    text: str
    note: str = ""


@dataclass(frozen=True)
class ApiPage:
    base_url: str
    snapshot_date: str | None
    "None: no snapshot, so no API files in this build."
    endpoints: list[tuple[str, str, str]]
    "(name, path below the site root, description)."
    tools: tuple[ToolSpec, ...]
    resources: tuple[tuple[str, str, str], ...]
    curl: list[Example]
    clients: list[Example]


@dataclass(frozen=True)
class ApiExample:
    """What the examples name: the index's first board and the slug of its top model (of the
    index's first model when the board ranks none), and the snapshot's date."""

    board: str
    model: str
    snapshot_date: str


def api_example(snapshot: Snapshot, downloads: Mapping[str, Mapping[str, Any]],
                slug: Callable[[str], str]) -> ApiExample:
    """The example of ``snapshot`` as its API index has it (``builder.api.build.compute_api``
    with the same board downloads and slugs): its boards in order, each board's top from the
    download's ranked rows, its models sorted by identity."""
    boards = [b for b in snapshot.boards if b.id]
    board = boards[0].id if boards else "orchestrator"
    rows = (downloads[board].get("rows") or []) if boards else []
    if rows:
        return ApiExample(board, slug(rows[0]["identity"]), snapshot.date)
    identities = ({*snapshot.models} | {o.identity for o in snapshot.observations if o.identity}
                  | {r.identity for b in boards for r in (*b.rows, *b.new)})
    return ApiExample(board, slug(min(identities)) if identities else "MODEL", snapshot.date)


def _json(doc: object) -> str:
    return json.dumps(doc, indent=2)


def compute_api_page(base_url: str, example: ApiExample | None) -> ApiPage:
    board = example.board if example else "orchestrator"
    slug = example.model if example else "MODEL"
    api = f"{base_url}api/v1/"
    curl = [
        Example("The index: snapshot, boards, models, sources", f"curl -s {api}index.json"),
        Example(f"One board ({board})", f"curl -s {api}boards/{board}.json"),
        Example("The top five rows with jq",
                f"curl -s {api}boards/{board}.json | jq '.rows[:5][] | {{rank, model, score}}'"),
        Example(f"One model ({slug}), with its explain arithmetic and history", f"curl -s {api}models/{slug}.json"),
        Example("Only download when it changed (the API files are static)",
                f"curl -s -z index.json -o index.json {api}index.json"),
    ]
    site_args = ["mcp", "--site", base_url]
    clients = [
        Example("Claude Desktop, Cursor, Windsurf and other clients with an mcpServers file",
                _json({"mcpServers": {"modelboards": {"command": "modelboards", "args": site_args}}}),
                "Answers from this site's API over HTTPS. Use the full path of the modelboards command if it "
                "is not on the client's PATH (in a clone: .venv/bin/modelboards)."),
        Example("The same, from your own snapshots (in a clone of the repository)",
                _json({"mcpServers": {"modelboards": {
                    "command": "/path/to/modelboards/.venv/bin/modelboards",
                    "args": ["--config", "/path/to/modelboards/site.yml", "mcp"]}}}),
                "Reads the newest snapshot in snapshots/ and reloads when a newer one appears."),
        Example("VS Code (.vscode/mcp.json)",
                _json({"servers": {"modelboards": {"type": "stdio", "command": "modelboards", "args": site_args}}})),
        Example("Over streamable HTTP: start the server, then point the client at its URL",
                "modelboards mcp --site " + base_url + " --transport http --port 8000\n\n"
                + _json({"mcpServers": {"modelboards": {"url": "http://127.0.0.1:8000/mcp"}}}),
                "The HTTP transport listens on 127.0.0.1 only."),
    ]
    return ApiPage(base_url=base_url, snapshot_date=example.snapshot_date if example else None,
                   endpoints=endpoint_paths(), tools=TOOLS, resources=RESOURCES, curl=curl, clients=clients)
