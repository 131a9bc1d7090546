"""``modelboards mcp``: the MCP server from the command line.

    mcp [--transport stdio|http] [--port N] [--snapshot FILE | --site URL]

The documents are loaded
before the server starts, so a missing snapshot or an unreachable site is one error line
(exit code 2), never a half-started server.
"""

from __future__ import annotations

import sys
from pathlib import Path

import click

from builder.cli.context import Context, pass_ctx
from builder.cli.options import snapshots_dir_option
from builder.errors import UserError


def _check_port(port: int) -> None:
    """One clear line when the port is taken (before the documents load, not as a server log)."""
    import socket

    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        try:
            sock.bind(("127.0.0.1", port))
        except OSError as exc:
            raise UserError(f"--port {port}: cannot listen on 127.0.0.1: {exc.strerror or exc}") from None


@click.command("mcp")
@click.option("--transport", type=click.Choice(["stdio", "http"]), default="stdio", show_default=True,
              help="stdio (for clients that start the server) or streamable HTTP on 127.0.0.1.")
@click.option("--port", type=click.IntRange(1, 65535), default=8000, show_default=True,
              help="Port for --transport http (the endpoint is http://127.0.0.1:PORT/mcp).")
@click.option("--snapshot", "snapshot_file", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Answer from this snapshot [default: the newest in snapshots_dir of site.yml].")
@click.option("--site", "site_url", default=None, metavar="URL",
              help="Answer from a published site's api/v1 over HTTPS (http only for 127.0.0.1).")
@snapshots_dir_option()
@pass_ctx
def mcp_cmd(obj: Context, transport: str, port: int, snapshot_file: Path | None, site_url: str | None,
            snapshots_dir: Path | None) -> None:
    """Serve the boards to AI agents over the Model Context Protocol.

    Tools: list_boards, get_board, explain_model, compare_models, pick_model, search_models,
    model_history, sources. Resources: modelboards://snapshot/latest, modelboards://boards/{id},
    modelboards://methodology. On a call at least 30 s after the last check it looks for a
    newer snapshot (or a changed site index) and reloads.
    """
    from builder.mcp.data import ApiStore, LocalBackend, SiteBackend

    if site_url is not None and (snapshot_file is not None or snapshots_dir is not None):
        raise UserError("--site answers from a published site: "
                        "it cannot be combined with --snapshot or --snapshots-dir")
    if site_url is not None:
        from builder.mcp.client import SiteClient

        backend: LocalBackend | SiteBackend = SiteBackend(SiteClient(site_url))
        where = site_url
    else:
        cfg, base = obj.load()
        from builder.pipeline import snapshots_path

        folder = snapshots_path(cfg, base, snapshots_dir)
        backend = LocalBackend(cfg, base, folder, snapshot_file)
        where = str(snapshot_file or folder)
    if transport == "http":
        _check_port(port)
    store = ApiStore(backend)
    from builder.mcp.server import create_server, run_server

    server = create_server(store)
    snap = store.current().index.snapshot
    endpoint = f" at http://127.0.0.1:{port}/mcp" if transport == "http" else " on stdio"
    # stdout is the protocol channel on stdio: every message for people goes to stderr
    click.echo(f"modelboards mcp: snapshot {snap.date} (method {snap.method_id}) from {where}{endpoint}", err=True)
    try:
        run_server(server, transport, port)
    except KeyboardInterrupt:
        pass
    sys.stderr.flush()
