"""The MCP server's data layer: reloading newer snapshots, the ``--site`` HTTP client, name lookup.

In process (no SDK): ``ApiStore`` with a fake clock over a folder of snapshots, and
``SiteClient`` against local HTTP servers on 127.0.0.1 (ETag and Last-Modified revalidation,
size cap, the HTTPS-only rule on redirects).
"""

from __future__ import annotations

import json
import logging
import shutil
from pathlib import Path

import pytest
from conftest import serve_directory
from pytest_httpserver import HTTPServer
from werkzeug.wrappers import Response

from builder.config import load_config
from builder.errors import UserError
from builder.mcp.client import SiteClient, SiteError, allowed_url, normalise_site_url
from builder.mcp.data import ApiStore, LocalBackend, SiteBackend
from builder.mcp.tools import ToolFailure, Tools, fold, nearest
from builder.snapshot import list_snapshots

ROOT = Path(__file__).resolve().parents[1]
SHIPPED = list_snapshots(ROOT / "snapshots")


class Clock:
    def __init__(self) -> None:
        self.t = 1000.0

    def __call__(self) -> float:
        return self.t


@pytest.fixture
def httpserver():
    """A pytest-httpserver on 127.0.0.1 (the only host plain HTTP is allowed to)."""
    server = HTTPServer(host="127.0.0.1", port=0)
    server.start()
    yield server
    server.clear()
    server.stop()


@pytest.fixture(scope="module")
def cfg():
    return load_config(ROOT / "site.yml")


def test_a_newer_snapshot_is_loaded_on_a_call_30_s_after_the_last_check(tmp_path, cfg, caplog):
    folder = tmp_path / "snapshots"
    folder.mkdir()
    for p in SHIPPED[-3:-1]:
        shutil.copy(p, folder / p.name)
    clock = Clock()
    store = ApiStore(LocalBackend(cfg[0], cfg[1], folder), clock=clock)
    tools = Tools(store)
    first = SHIPPED[-2].name[:10]
    assert tools.list_boards().snapshot.date == first

    shutil.copy(SHIPPED[-1], folder / SHIPPED[-1].name)  # a newer snapshot appears
    clock.t += 29.9
    assert tools.list_boards().snapshot.date == first  # not yet: the last check was under 30 s ago
    clock.t += 0.1
    assert tools.list_boards().snapshot.date == SHIPPED[-1].name[:10]
    assert store.reloads == 1
    assert tools.model_history("gpt-6").snapshots[-1] == SHIPPED[-1].name[:10]

    clock.t += 30
    assert tools.list_boards().snapshot.date == SHIPPED[-1].name[:10] and store.reloads == 1  # nothing new

    (folder / "2099-01-01.json").write_text("{not json", encoding="utf-8")  # a broken newer file
    clock.t += 30
    with caplog.at_level(logging.WARNING, logger="builder.mcp.data"):
        assert tools.list_boards().snapshot.date == SHIPPED[-1].name[:10]  # the good one stays in use
    assert "reload check failed" in caplog.text and "2099-01-01.json" in caplog.text


def test_an_explicit_snapshot_reloads_when_its_file_changes(tmp_path, cfg):
    path = tmp_path / "pinned.json"
    shutil.copy(SHIPPED[-2], path)
    clock = Clock()
    store = ApiStore(LocalBackend(cfg[0], cfg[1], tmp_path / "none", path), clock=clock)
    assert store.current().index.snapshot.date == SHIPPED[-2].name[:10]
    shutil.copy(SHIPPED[-1], path)
    clock.t += 30
    assert store.current().index.snapshot.date == SHIPPED[-1].name[:10]


def test_no_snapshot_is_a_user_error(tmp_path, cfg):
    with pytest.raises(UserError, match="no snapshots"):
        ApiStore(LocalBackend(cfg[0], cfg[1], tmp_path))


def test_site_url_rules():
    assert allowed_url("https://user.github.io/modelboards/")
    assert allowed_url("http://127.0.0.1:8000/")
    for bad in ("http://example.org/", "http://localhost/", "ftp://example.org/", "https://", "javascript:x", "x"):
        assert not allowed_url(bad), bad
    assert normalise_site_url("https://h.example/repo") == "https://h.example/repo/"
    assert normalise_site_url("https://h.example/repo/api/v1/index.json") == "https://h.example/repo/"
    assert normalise_site_url("https://h.example/api/v1/?q=1#x") == "https://h.example/"
    with pytest.raises(UserError, match="https://"):
        normalise_site_url("http://example.org/")


def test_site_client_revalidates_with_etag(httpserver):
    calls = []

    def handler(request):
        calls.append(request.headers.get("If-None-Match"))
        if request.headers.get("If-None-Match") == '"v1"':
            return Response(status=304)
        return Response(b'{"a": 1}', headers={"ETag": '"v1"'}, content_type="application/json")

    httpserver.expect_request("/site/api/v1/index.json").respond_with_handler(handler)
    client = SiteClient(httpserver.url_for("/site/"))
    assert client.get("api/v1/index.json") == (b'{"a": 1}', True)
    assert client.get("api/v1/index.json") == (b'{"a": 1}', False)  # 304: from the cache
    assert calls == [None, '"v1"']


def test_site_client_revalidates_with_last_modified(bundled_site):
    with serve_directory(bundled_site) as origin:
        client = SiteClient(origin + "/")
        body, changed = client.get("api/v1/index.json")
        assert changed and json.loads(body)["api_version"] == "v1"
        assert client.get("api/v1/index.json") == (body, False)  # If-Modified-Since -> 304


def test_site_client_size_cap_http_errors_and_redirects(httpserver):
    httpserver.expect_request("/big.json").respond_with_data(b"x" * 2000)
    httpserver.expect_request("/missing.json").respond_with_data("no", status=404)
    httpserver.expect_request("/away.json").respond_with_data("", status=302,
                                                             headers={"Location": "http://example.org/x.json"})
    client = SiteClient(httpserver.url_for("/"), max_bytes=1000)
    with pytest.raises(SiteError, match="cap of 1000 bytes"):
        client.get("big.json")
    with pytest.raises(SiteError, match="HTTP 404"):
        client.get("missing.json")
    with pytest.raises(SiteError, match="refusing http://example.org/x.json"):
        client.get("away.json")


def test_site_backend_reloads_only_when_the_index_changes(tmp_path, bundled_site):
    www = tmp_path / "www"
    shutil.copytree(bundled_site / "api", www / "api")
    with serve_directory(www) as origin:
        clock = Clock()
        store = ApiStore(SiteBackend(SiteClient(origin + "/")), clock=clock)
        tools = Tools(store)
        assert tools.get_board("orchestrator", top=1).rows[0].identity == "claude-opus-5.5"
        clock.t += 30
        store.current()
        assert store.reloads == 0  # 304 on the index
        index = json.loads((www / "api/v1/index.json").read_text(encoding="utf-8"))
        index["snapshot"]["created_at"] = "2026-11-29T18:45:00+00:00"
        (www / "api/v1/index.json").write_text(json.dumps(index), encoding="utf-8")
        import os

        os.utime(www / "api/v1/index.json", (2e9, 2e9))  # a newer Last-Modified
        clock.t += 30
        assert store.current().index.snapshot.created_at == "2026-11-29T18:45:00+00:00" and store.reloads == 1
        (www / "api/v1/boards/orchestrator.json").unlink()
        with pytest.raises(ToolFailure, match="cannot read board 'orchestrator'.*HTTP 404"):
            tools.get_board("orchestrator")  # a new snapshot generation fetches its documents afresh
        (www / "api/v1/index.json").write_text("{}", encoding="utf-8")
        os.utime(www / "api/v1/index.json", (2.1e9, 2.1e9))
        clock.t += 30
        assert store.current().index.snapshot.created_at == "2026-11-29T18:45:00+00:00"  # bad index: kept


def test_fold_and_nearest():
    assert fold("GPT 6 (high)") == fold("gpt-6-high") == "gpt6high"
    assert nearest("orchestator", ["rote", "orchestrator", "mid-tier"], n=2) == ["orchestrator", "rote"]
    assert len(nearest("x", [f"m{i}" for i in range(9)])) == 5
