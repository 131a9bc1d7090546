"""What the "API and MCP" page shows: endpoints, tools, resources, curl examples, client configuration.

``compute_api_page(base_url, index)`` gathers it as plain values; the page template only lays
them out. Examples name a real board and model of the snapshot when there is one.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from builder.api.build import endpoint_paths
from builder.api.catalogue import RESOURCES, TOOLS, ToolSpec
from builder.api.models import IndexDoc


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


def _json(doc: object) -> str:
    return json.dumps(doc, indent=2)


def compute_api_page(base_url: str, index: IndexDoc | None) -> ApiPage:
    board = index.boards[0].id if index and index.boards else "orchestrator"
    top = index.boards[0].top if index and index.boards and index.boards[0].top else None
    slug = next((m.slug for m in index.models if m.identity == top), None) if index and top else None
    slug = slug or (index.models[0].slug if index and index.models else "MODEL")
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
    return ApiPage(base_url=base_url, snapshot_date=index.snapshot.date if index else None,
                   endpoints=endpoint_paths(), tools=TOOLS, resources=RESOURCES, curl=curl, clients=clients)
