"""The fetch stage against a real HTTP server on 127.0.0.1, and the payload store.

The server serves the real upstream files of ``../shared/data`` at the same paths as the
live URLs in ``site.yml`` (only the scheme and host are swapped), and injects failures per
path: 5xx, 404, a timeout, a refused connection, a truncated body, invalid JSON and CSV, and
bodies over the size cap with and without Content-Length.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import socket
import sys
import tarfile
import time
from collections.abc import Callable
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from conftest import QuietServer, require_shared_data
from serving import serve_in_background

import builder.fetch as fetch_mod
import builder.store as store_mod
from builder.config import SiteConfig, load_config
from builder.fetch import (
    FetchError,
    extract_results,
    fetch_all,
    format_status_table,
    load_payloads,
    read_recorded,
)
from builder.records import NOT_CONFIGURED_LIVE, FetchStatus, Payload
from builder.sources.livebench import pick_release_files as pick_livebench_files
from builder.store import payload_digest, read_payload, read_status, write_payload, write_status

ROOT = Path(__file__).resolve().parents[1]
DATA = require_shared_data()  # ../shared/data, or the pinned files fetched (tests/realdata.py)
TB = DATA / "terminal-bench"
UA = "ModelBoards-test/1.0 (+https://example.test)"
T1 = datetime(2026, 11, 1, 6, 0, tzinfo=UTC)
T2 = datetime(2026, 11, 2, 6, 0, tzinfo=UTC)
T3 = datetime(2026, 11, 3, 6, 0, tzinfo=UTC)

# Real upstream files served for each single-file kind (by kind, so renaming a source in
# site.yml does not break the test).
SINGLE = {
    "lmarena": DATA / "arena/lmarena/leaderboard-text.json",
    "lmarena_catalog": DATA / "arena/lmarena/scatterplot-data.json",
    "epoch": DATA / "epoch/epoch_capabilities_index.csv",
    "aider": DATA / "aider/polyglot_leaderboard.yml",
    "litellm": DATA / "litellm/model_prices_and_context_window.json",
    "openrouter": DATA / "openrouter/openrouter_models.json",
    "modelsdev": next((DATA / "modelsdev").glob("models.dev-*.tar.gz"), DATA / "modelsdev" / "missing.tar.gz"),
}
LIVEBENCH = ["table_2025_12_23.csv", "categories_2025_12_23.json", "table_2026_01_08.csv", "categories_2026_01_08.json"]
TB_FOLDERS = [
    "results/terminal-bench-core@0.1.1/20250902_orchestrator_qwen-3-coder-480B",
    "results/terminal-bench-core@0.1.1/20250829_goose_claude-4-opus",
    "results/terminal-bench-core:0.1.1/20250906_orchestrator_claude-4.1-opus",
]


# --------------------------------------------------------------------------- the server

Handler = Callable[[BaseHTTPRequestHandler], None]


def send(body: bytes, status: int = 200, *, length: int | None = -1,
         ctype: str = "application/octet-stream") -> Handler:
    """A response; ``length=None`` sends no Content-Length (body ends when the connection closes),
    a number sends that Content-Length whatever the body's size (truncation)."""

    def handle(h: BaseHTTPRequestHandler) -> None:
        h.send_response(status)
        h.send_header("Content-Type", ctype)
        if length is not None:
            h.send_header("Content-Length", str(len(body) if length == -1 else length))
        h.end_headers()
        for i in range(0, len(body), 16384):
            h.wfile.write(body[i : i + 16384])
        h.wfile.flush()
        h.close_connection = True

    return handle


def slow(seconds: float, body: bytes) -> Handler:
    def handle(h: BaseHTTPRequestHandler) -> None:
        time.sleep(seconds)
        send(body)(h)

    return handle


def in_turn(*handlers: Handler) -> Handler:
    """The n-th request gets the n-th handler (the last one repeats)."""
    calls = iter(range(10**6))

    def handle(h: BaseHTTPRequestHandler) -> None:
        handlers[min(next(calls), len(handlers) - 1)](h)

    return handle


class Server:
    """A threaded HTTP server on 127.0.0.1 with a mutable route table and a request log."""

    def __init__(self) -> None:
        self.routes: dict[str, Handler] = {}
        self.log: list[tuple[str, str]] = []  # (path, User-Agent)
        server = self

        class H(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802
                server.log.append((self.path, self.headers.get("User-Agent", "")))
                route = server.routes.get(self.path, send(b"not found", 404))
                try:
                    route(self)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (timeout, size cap): expected

            def log_message(self, *args) -> None:
                pass

        self.httpd = QuietServer(("127.0.0.1", 0), H)
        self.base = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        serve_in_background(self.httpd)

    def hits(self, path: str) -> int:
        return sum(p == path for p, _ in self.log)

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def local(url: str, base: str) -> str:
    """The live URL with its scheme and host replaced by the local server's."""
    parts = urlsplit(url)
    return base + parts.path + (f"?{parts.query}" if parts.query else "")


def tarball(extra: list[tuple[tarfile.TarInfo, bytes | None]] = ()) -> tuple[bytes, dict[str, bytes]]:
    """A codeload-style .tar.gz of a few real Terminal-Bench run folders, plus hostile members.

    Returns (blob, the files the fetch must keep: repo-relative path -> bytes).
    """
    top = "terminal-bench-leaderboard-8e1925a3"
    keep: dict[str, bytes] = {}
    buf = io.BytesIO()

    def add(name: str, data: bytes | None, **kw) -> None:
        info = tarfile.TarInfo(name)
        for k, v in kw.items():
            setattr(info, k, v)
        if data is not None:
            info.size = len(data)
        tar.addfile(info, io.BytesIO(data) if data is not None else None)

    with tarfile.open(fileobj=buf, mode="w:gz") as tar:
        add(f"{top}/", None, type=tarfile.DIRTYPE)
        add(f"{top}/README.md", b"# leaderboard\n")
        for folder in TB_FOLDERS:
            for f in sorted((TB / folder).rglob("*.json")):
                rel = f.relative_to(TB).as_posix()
                keep[rel] = f.read_bytes()
                add(f"{top}/{rel}", keep[rel])
        add(f"{top}/results/notes.txt", b"not json\n")
        add(f"{top}/docs/results/x.json", b"{}")  # results/ not at the repo root
        add("../x.json", b'{"evil": 1}')  # escapes the extraction folder
        add(f"{top}/results/../../y.json", b'{"evil": 2}')
        add("/abs/results/z.json", b'{"evil": 3}')
        add(f"{top}/results/link.json", None, type=tarfile.SYMTYPE, linkname="/etc/passwd")
        add(f"{top}/results/hard.json", None, type=tarfile.LNKTYPE, linkname=f"{top}/README.md")
        for info, data in extra:
            tar.addfile(info, io.BytesIO(data) if data is not None else None)
    return buf.getvalue(), keep


@pytest.fixture(scope="module")
def server():
    srv = Server()
    yield srv
    srv.close()


@pytest.fixture(scope="module")
def tb_tarball() -> tuple[bytes, dict[str, bytes]]:
    return tarball()


@pytest.fixture
def no_sleep(monkeypatch) -> list[float]:
    """Record the backoff delays instead of sleeping."""
    delays: list[float] = []
    monkeypatch.setattr(fetch_mod, "_sleep", delays.append)
    return delays


@pytest.fixture
def live(server, tb_tarball, tmp_path, no_sleep):
    """(SiteConfig pointing at the local server, its base folder, server, expected payloads).

    Built from the project's site.yml: same sources, same URL paths, host swapped; the
    curated metadata is a tmp file (local: read in both modes, never the network).
    """
    cfg0, _ = load_config(ROOT / "site.yml")
    data = cfg0.model_dump(mode="json")
    data["fetch"].update(user_agent=UA, retries=3, backoff=0.01, store=str(tmp_path / "store"))
    server.routes.clear()
    server.log.clear()
    expected: dict[str, dict[str, bytes]] = {}
    models_yml = tmp_path / "models.yml"
    models_yml.write_text("- model: test-model-1\n  maker: Test\n  licence: MIT\n", encoding="utf-8")
    for s in data["sources"]:
        s["timeout"] = 0.25
        kind = s["kind"]
        if kind == "metadata" or s.get("local"):
            s["recorded"] = str(models_yml)
            expected[s["name"]] = {"models.yml": models_yml.read_bytes()}
        elif not s.get("url"):
            continue  # no live URL: must fail in live mode
        elif kind in SINGLE:
            s["url"] = local(s["url"], server.base)
            body = SINGLE[kind].read_bytes()
            server.routes[urlsplit(s["url"]).path] = send(body)
            name = "models.json" if kind == "openrouter" else urlsplit(s["url"]).path.rsplit("/", 1)[-1]
            expected[s["name"]] = {name: body}
        elif kind == "livebench":
            s["url"] = local(s["url"], server.base)
            s["options"]["index_url"] = local(s["options"]["index_url"], server.base)
            listing = [{"name": "README.md", "type": "file"}, {"name": "images", "type": "dir"}]
            for name in LIVEBENCH + ["table_2026_01_08.csv.bak"]:
                listing.append({"name": name, "path": f"public/{name}", "type": "file",
                                "download_url": s["url"] + name})  # fmt: skip
                path = urlsplit(s["url"]).path + name
                server.routes[path] = send((DATA / "livebench" / name.removesuffix(".bak")).read_bytes())
            server.routes[urlsplit(s["options"]["index_url"]).path] = send(json.dumps(listing).encode())
            expected[s["name"]] = {n: (DATA / "livebench" / n).read_bytes() for n in LIVEBENCH[2:]}
        elif kind == "terminal_bench":
            s["url"] = local(s["url"], server.base)
            server.routes[urlsplit(s["url"]).path] = send(tb_tarball[0], ctype="application/x-gzip")
            expected[s["name"]] = tb_tarball[1]
    cfg = SiteConfig.model_validate(data)
    return cfg, tmp_path, server, expected


def path_of(cfg: SiteConfig, name: str, *, index: bool = False) -> str:
    s = cfg.source(name)
    return urlsplit(s.options["index_url"] if index else s.url).path


def by_kind(cfg: SiteConfig, kind: str) -> str:
    return next(s.name for s in cfg.sources if s.kind == kind and s.enabled)


def stored_files(cfg: SiteConfig, base: Path, name: str) -> dict[str, bytes]:
    folder = base / cfg.fetch.store / name / "payload"
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in folder.rglob("*") if p.is_file()}


# --------------------------------------------------------------------------- live mode


def test_live_fetch_stores_every_source_with_status(live):
    cfg, base, server, expected = live
    statuses = fetch_all(cfg, base, live=True, progress=False, now=T1)
    by = {s.source: s for s in statuses}
    assert [s.source for s in statuses] == [s.name for s in cfg.sources if s.enabled]
    for name, files in expected.items():
        st = by[name]
        assert st.ok, (name, st.error)
        assert st.live and st.fetched_at == T1 and st.error is None
        assert (st.bytes, st.sha256) == payload_digest(files)
        assert stored_files(cfg, base, name) == files  # byte for byte, keyed by relative path
        payload, status = load_payloads(cfg, base)[name]
        assert dict(payload.files) == files and status == st
        assert read_status(base / cfg.fetch.store, name) == st
    for s in cfg.sources:  # a source without URL is not configured in live mode, no demo fallback
        if s.enabled and s.name not in expected:
            assert not by[s.name].ok and by[s.name].error == NOT_CONFIGURED_LIVE
            assert load_payloads(cfg, base)[s.name] == (None, by[s.name])
    single = by[by_kind(cfg, "aider")]
    assert single.http_status == 200 and single.sha256 == payload_digest(expected[single.source])[1]
    # every request carried the configured User-Agent; the closed demo payloads were never read
    assert server.log and all(ua == UA for _, ua in server.log)
    table = format_status_table(statuses).splitlines()
    assert len(table) == len(statuses) + 2 and table[0].split()[:2] == ["source", "status"]
    n_ok = sum(s.ok for s in statuses)
    assert table[-1] == f"{n_ok} ok, {len(statuses) - n_ok - 1} failed, 1 not configured for live builds"


def test_terminal_bench_tarball_keeps_only_safe_results_json(live):
    cfg, base, server, expected = live
    name = by_kind(cfg, "terminal_bench")
    fetch_all(cfg, base, live=True, progress=False, now=T1)
    files = stored_files(cfg, base, name)
    assert files == expected[name]
    assert all(k.startswith("results/") and k.endswith(".json") for k in files)
    assert not any("evil" in v.decode() for v in files.values())
    assert not (base / "x.json").exists() and not (base.parent / "x.json").exists()
    assert "results/terminal-bench-core:0.1.1/20250906_orchestrator_claude-4.1-opus/results.json" in files


def test_extract_results_caps_decompressed_size_and_rejects_garbage(tb_tarball):
    blob, keep = tb_tarball
    assert extract_results(blob, 10**9) == keep
    with pytest.raises(FetchError, match="exceed the cap"):
        extract_results(blob, sum(map(len, keep.values())) - 1)
    with pytest.raises(FetchError, match="unreadable tarball"):
        extract_results(b"this is not a tarball", 10**6)
    with pytest.raises(FetchError, match="unreadable tarball"):
        extract_results(blob[: len(blob) // 2], 10**9)  # truncated gzip stream


def test_livebench_picks_latest_table_and_matching_categories():
    assert pick_livebench_files(LIVEBENCH) == ("table_2026_01_08.csv", "categories_2026_01_08.json")
    # no categories for the latest table: the latest not newer than it; a newer one is ignored
    names = ["table_2025_12_23.csv", "categories_2025_12_23.json", "table_2026_01_08.csv",
             "categories_2026_02_01.json", "categories_2025_11_30.json"]  # fmt: skip
    assert pick_livebench_files(names) == ("table_2026_01_08.csv", "categories_2025_12_23.json")
    assert pick_livebench_files(["table_2026_13_40.csv", "table_2025_12_23.csv", "categories_2025_12_23.json"]) == (
        "table_2025_12_23.csv", "categories_2025_12_23.json")  # fmt: skip
    with pytest.raises(ValueError, match="no table"):
        pick_livebench_files(["categories_2026_01_08.json", "table_latest.csv"])
    with pytest.raises(ValueError, match="no categories"):
        pick_livebench_files(["table_2025_12_23.csv", "categories_2026_01_08.json"])


def test_livebench_bad_index_fails_with_reason(live):
    cfg, base, server, _ = live
    name = by_kind(cfg, "livebench")
    server.routes[path_of(cfg, name, index=True)] = send(b'{"message": "API rate limit exceeded"}')
    st = {s.source: s for s in fetch_all(cfg, base, live=True, progress=False, now=T1)}[name]
    assert not st.ok and "unreadable livebench index" in st.error and "expected a JSON list" in st.error


# The failures a source can meet, each with the reason its status must give.
# (kind of the victim, how to break it, reason, http_status, requests expected)
FAILURES = {
    "http-500": ("lmarena", lambda p, body: send(b"oops", 500), "HTTP 500", 500, 3),
    "http-404": ("lmarena_catalog", lambda p, body: send(b"gone", 404), "HTTP 404", 404, 1),
    "timeout": ("aider", lambda p, body: slow(1.0, body), "timed out after 0.25 s", None, 3),
    "truncated": ("openrouter", lambda p, body: send(body[:1000], length=len(body)), "incomplete response", None, 3),
    "invalid-json": ("litellm", lambda p, body: send(body[: len(body) // 2]), "unparseable payload", 200, 1),
    "invalid-csv": ("epoch", lambda p, body: send(b"\xff\xfe<html>\x00 rate limited\n"), "unparseable payload", 200, 1),
    "cap-with-length": ("lmarena", lambda p, body: send(body), "Content-Length", 200, 1),
    "cap-no-length": ("lmarena", lambda p, body: send(body, length=None), "more than the cap", 200, 1),
    "tarball-cap": ("terminal_bench", lambda p, body: send(body, length=None), "more than the cap", 200, 1),
}


@pytest.mark.parametrize("case", sorted(FAILURES))
def test_failed_source_keeps_earlier_payload_and_others_succeed(live, tb_tarball, case):
    cfg, base, server, expected = live
    kind, breaker, reason, http_status, n_requests = FAILURES[case]
    victim = by_kind(cfg, kind)
    first = {s.source: s for s in fetch_all(cfg, base, live=True, progress=False, now=T1)}
    assert first[victim].ok
    before = stored_files(cfg, base, victim)
    before_status = (base / cfg.fetch.store / victim / "payload.json").read_bytes()

    path = path_of(cfg, victim)
    body = tb_tarball[0] if kind == "terminal_bench" else next(iter(expected[victim].values()))
    server.routes[path] = breaker(path, body)
    if "cap" in case:
        cfg = cfg.model_copy(deep=True)
        cfg.source(victim).max_bytes = len(body) // 2
    server.log.clear()
    statuses = fetch_all(cfg, base, live=True, progress=False, now=T2)
    by = {s.source: s for s in statuses}

    st = by[victim]
    assert not st.ok and reason in st.error, st.error
    assert st.http_status == http_status and st.sha256 is None and st.live
    assert st.fetched_at == T2 and st.payload_fetched_at == T1  # the date of the payload kept
    assert server.hits(path) == n_requests
    # the earlier payload survives byte for byte and stays in use, with the failed status
    assert stored_files(cfg, base, victim) == before
    assert (base / cfg.fetch.store / victim / "payload.json").read_bytes() == before_status
    payload, status = load_payloads(cfg, base)[victim]
    assert dict(payload.files) == before and payload.fetched_at == T1 and status == st
    # the others still succeed
    for name in expected:
        if name != victim:
            assert by[name].ok, (name, by[name].error)
            assert by[name].fetched_at == T2
    table = format_status_table(statuses)
    assert f"{victim} " in table and "FAILED" in table and reason in table


def test_connection_refused_fails_without_stopping_others(live, no_sleep):
    cfg, base, server, expected = live
    victim = by_kind(cfg, "livebench")
    fetch_all(cfg, base, live=True, progress=False, now=T1)
    cfg = cfg.model_copy(deep=True)
    src = cfg.source(victim)
    src.options["index_url"] = f"http://127.0.0.1:{closed_port()}/repos/index"
    no_sleep.clear()
    by = {s.source: s for s in fetch_all(cfg, base, live=True, progress=False, now=T2)}
    assert not by[victim].ok
    assert "connection failed" in by[victim].error and "gave up after 3 attempts" in by[victim].error
    assert by[victim].payload_fetched_at == T1
    assert no_sleep == pytest.approx([0.01, 0.02])  # exponential backoff: backoff * 2**(n-1)
    assert all(by[n].ok for n in expected if n != victim)
    assert dict(load_payloads(cfg, base)[victim][0].files) == expected[victim]


def test_retries_back_off_and_recover_from_a_transient_5xx(live, no_sleep):
    cfg, base, server, expected = live
    name = by_kind(cfg, "aider")
    path = path_of(cfg, name)
    body = next(iter(expected[name].values()))
    server.routes[path] = in_turn(send(b"busy", 503), send(b"busy", 502), send(body))
    by = {s.source: s for s in fetch_all(cfg, base, live=True, progress=False, now=T1)}
    assert by[name].ok and by[name].http_status == 200
    assert server.hits(path) == 3
    assert no_sleep == pytest.approx([0.01, 0.02])


def test_4xx_is_not_retried(live, no_sleep):
    cfg, base, server, _ = live
    name = by_kind(cfg, "epoch")
    server.routes[path_of(cfg, name)] = send(b"forbidden", 403)
    by = {s.source: s for s in fetch_all(cfg, base, live=True, progress=False, now=T1)}
    assert not by[name].ok and by[name].http_status == 403 and "gave up" not in by[name].error
    assert server.hits(path_of(cfg, name)) == 1 and no_sleep == []


def test_failure_without_earlier_payload_contributes_nothing(live):
    cfg, base, server, _ = live
    name = by_kind(cfg, "litellm")
    server.routes[path_of(cfg, name)] = send(b"{not json")
    by = {s.source: s for s in fetch_all(cfg, base, live=True, progress=False, now=T1)}
    assert not by[name].ok and by[name].payload_fetched_at is None and by[name].bytes == 9
    assert load_payloads(cfg, base)[name] == (None, by[name])
    assert not (base / cfg.fetch.store / name / "payload").exists()


def test_live_failure_never_falls_back_to_a_recorded_payload(live, tmp_path):
    cfg, base, server, expected = live
    name = by_kind(cfg, "aider")
    rec = tmp_path / "rec" / "polyglot_leaderboard.yml"
    rec.parent.mkdir()
    rec.write_bytes(SINGLE["aider"].read_bytes())
    cfg = cfg.model_copy(deep=True)
    cfg.source(name).recorded = str(rec)
    cfg.source(name).date = T1.date()
    offline = {s.source: s for s in fetch_all(cfg, base, live=False, progress=False, now=T1)}
    assert offline[name].ok and not offline[name].live
    server.routes[path_of(cfg, name)] = send(b"down", 500)
    by = {s.source: s for s in fetch_all(cfg, base, live=True, progress=False, now=T2)}
    assert not by[name].ok and by[name].payload_fetched_at is None  # no earlier LIVE payload
    assert load_payloads(cfg, base)[name] == (None, by[name])
    assert read_payload(base / cfg.fetch.store, name) is not None  # not deleted, just not used live
    # and an offline run uses it again
    fetch_all(cfg, base, live=False, progress=False, now=T3)
    assert load_payloads(cfg, base)[name][0].files == {rec.name: rec.read_bytes()}


# --------------------------------------------------------------------------- recorded mode


def test_recorded_mode_reads_bundled_demo_payloads(tmp_path):
    """The project's site.yml offline: every bundled payload present is stored byte for byte."""
    cfg, base = load_config(ROOT / "site.yml")
    data = cfg.model_dump(mode="json")
    data["fetch"]["store"] = str(tmp_path / "store")
    for s in data["sources"]:  # any network use would hit a closed port and fail
        if s.get("url"):
            s["url"] = f"http://127.0.0.1:{closed_port()}/x"
    cfg = SiteConfig.model_validate(data)
    present = [s for s in cfg.sources if s.enabled and s.recorded_path(base) and s.recorded_path(base).exists()]
    assert present, "no bundled demo payloads under builder/data/demo"
    by = {s.source: s for s in fetch_all(cfg, base, live=False, progress=False, now=T1)}
    stored = load_payloads(cfg, base)
    for s in present:
        assert by[s.name].ok, (s.name, by[s.name].error)
        assert not by[s.name].live and by[s.name].http_status is None
        assert dict(stored[s.name][0].files) == dict(read_recorded(s, base).files)


def test_recorded_mode_from_a_folder_and_a_file(tmp_path):
    rec = tmp_path / "recorded"
    (rec / "livebench").mkdir(parents=True)
    for n in LIVEBENCH:
        (rec / "livebench" / n).write_bytes((DATA / "livebench" / n).read_bytes())
    (rec / "aider.yml").write_bytes(SINGLE["aider"].read_bytes())
    os.utime(rec / "aider.yml", (1_700_000_000, 1_700_000_000))
    dead = f"http://127.0.0.1:{closed_port()}/"
    cfg = SiteConfig.model_validate({
        "sources": [
            {"name": "livebench", "kind": "livebench", "url": dead, "recorded": str(rec / "livebench"),
             "options": {"index_url": dead + "index"}},
            {"name": "aider", "kind": "aider", "url": dead + "a.yml", "recorded": str(rec / "aider.yml")},
            {"name": "aider-dated", "kind": "aider", "recorded": str(rec / "aider.yml"), "date": "2025-10-04"},
            {"name": "missing", "kind": "epoch", "recorded": str(rec / "nope.csv")},
            {"name": "unrecorded", "kind": "epoch", "url": dead + "e.csv"},
            {"name": "off", "kind": "epoch", "recorded": str(rec / "nope.csv"), "enabled": False},
        ],
        "families": {}, "roles": {}, "boards": [],
        "fetch": {"store": "store"},
    })  # fmt: skip
    by = {s.source: s for s in fetch_all(cfg, tmp_path, live=False, progress=False, now=T1)}
    assert set(by) == {"livebench", "aider", "aider-dated", "missing", "unrecorded"}
    lb = load_payloads(cfg, tmp_path)["livebench"][0]
    assert sorted(lb.files) == sorted(LIVEBENCH)  # every file of the folder, both releases
    assert lb.fetched_at == datetime(2026, 1, 8, tzinfo=UTC)  # newest date in the names
    aider = load_payloads(cfg, tmp_path)["aider"][0]
    assert list(aider.files) == ["aider.yml"] and aider.origin == str(rec / "aider.yml")
    assert aider.fetched_at == datetime.fromtimestamp(1_700_000_000, tz=UTC)  # mtime fallback
    assert load_payloads(cfg, tmp_path)["aider-dated"][0].fetched_at == datetime(2025, 10, 4, tzinfo=UTC)
    assert not by["missing"].ok and "recorded payload not found" in by["missing"].error
    assert not by["unrecorded"].ok and by["unrecorded"].error == "no recorded payload configured"
    assert (tmp_path / "store" / "livebench" / "payload" / "table_2026_01_08.csv").is_file()


def test_local_metadata_is_read_in_live_mode_and_user_errors_propagate(tmp_path):
    yml = tmp_path / "models.yml"
    yml.write_text("- model: m1\n  maker: Test\n", encoding="utf-8")
    cfg = SiteConfig.model_validate({
        "sources": [{"name": "metadata", "kind": "metadata", "recorded": str(yml), "local": True}],
        "families": {}, "roles": {}, "boards": [], "fetch": {"store": "store"},
    })  # fmt: skip
    (st,) = fetch_all(cfg, tmp_path, live=True, progress=False, now=T1)
    assert st.ok and st.live and st.origin == str(yml)
    fetch_all(cfg, tmp_path, live=False, progress=False, now=T2)
    assert load_payloads(cfg, tmp_path)["metadata"][0].files == {"models.yml": yml.read_bytes()}


# --------------------------------------------------------------------------- the store


def _payload(files: dict[str, bytes], at: datetime = T1, source: str = "src") -> tuple[Payload, FetchStatus]:
    n, digest = payload_digest(files)
    st = FetchStatus(source, True, 200, None, n, digest, at, at, "http://x", True)
    return Payload(source, files, at, "http://x"), st


def test_store_roundtrip_replaces_the_whole_payload(tmp_path):
    p1, s1 = _payload({"a.json": b"1", "dir/b.json": b"2"})
    write_payload(tmp_path, p1, s1)
    assert read_payload(tmp_path, "src") == p1 and read_status(tmp_path, "src") == s1
    p2, s2 = _payload({"a.json": b"3"}, T2)
    write_payload(tmp_path, p2, s2)
    assert read_payload(tmp_path, "src") == p2
    assert not (tmp_path / "src" / "payload" / "dir").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["src"]  # no temp folders left behind
    assert s2.sha256 == hashlib.sha256(b"3").hexdigest()  # single file: its own sha256


def test_store_write_is_atomic_on_crash(tmp_path, monkeypatch):
    p1, s1 = _payload({"a.json": b"good"})
    write_payload(tmp_path, p1, s1)
    p2, s2 = _payload({"a.json": b"new"}, T2)

    real_write = Path.write_bytes

    def crash_writing(self, data):
        real_write(self, data[:1])
        raise OSError("disk full")

    monkeypatch.setattr(Path, "write_bytes", crash_writing)
    with pytest.raises(OSError):
        write_payload(tmp_path, p2, s2)
    monkeypatch.undo()
    assert read_payload(tmp_path, "src") == p1
    assert sorted(p.name for p in tmp_path.iterdir()) == ["src"]

    real_replace = os.replace
    calls = []

    def crash_between_renames(a, b):
        calls.append((a, b))
        if Path(b).name == "src" and Path(a).name.startswith(".src.new-"):
            raise OSError("killed")
        return real_replace(a, b)

    monkeypatch.setattr(store_mod.os, "replace", crash_between_renames)
    with pytest.raises(OSError):
        write_payload(tmp_path, p2, s2)
    monkeypatch.undo()
    assert not (tmp_path / "src").exists()  # the crash left only .src.old
    assert read_payload(tmp_path, "src") == p1 and read_status(tmp_path, "src") == s1
    write_payload(tmp_path, p2, s2)  # the next write recovers and swaps
    assert read_payload(tmp_path, "src") == p2
    assert sorted(p.name for p in tmp_path.iterdir()) == ["src"]


def test_status_write_never_touches_the_payload(tmp_path):
    p1, s1 = _payload({"a.json": b"good"})
    write_payload(tmp_path, p1, s1)
    failed = FetchStatus("src", False, 500, "HTTP 500", 0, None, T2, T1, "http://x", True)
    write_status(tmp_path, failed)
    assert read_payload(tmp_path, "src") == p1 and read_status(tmp_path, "src") == failed


def test_store_rejects_tampering_and_unsafe_names(tmp_path):
    p1, s1 = _payload({"a.json": b"good"})
    write_payload(tmp_path, p1, s1)
    (tmp_path / "src" / "payload" / "a.json").write_bytes(b"edited")
    assert read_payload(tmp_path, "src") is None
    for bad in ("../x", "/etc/x", "a//b", "a\\b", ""):
        p, s = _payload({bad: b"x"})
        with pytest.raises(ValueError):
            write_payload(tmp_path, p, s)
    assert read_payload(tmp_path, "nothing") is None and read_status(tmp_path, "nothing") is None


def test_progress_display_only_on_a_terminal(tmp_path, monkeypatch):
    yml = tmp_path / "models.yml"
    yml.write_text("- model: m1\n", encoding="utf-8")
    cfg = SiteConfig.model_validate({
        "sources": [{"name": "metadata", "kind": "metadata", "recorded": str(yml), "local": True}],
        "families": {}, "roles": {}, "boards": [], "fetch": {"store": "store"},
    })  # fmt: skip

    class Stream(io.StringIO):
        def __init__(self, tty: bool) -> None:
            super().__init__()
            self.tty = tty

        def isatty(self) -> bool:
            return self.tty

    for tty, shown in ((True, True), (False, False)):
        err = Stream(tty)
        monkeypatch.setattr(sys, "stderr", err)
        (st,) = fetch_all(cfg, tmp_path, live=False, progress=True, now=T1)
        monkeypatch.undo()
        assert st.ok and ("1/1" in err.getvalue()) is shown
    err = Stream(True)
    monkeypatch.setattr(sys, "stderr", err)
    fetch_all(cfg, tmp_path, live=False, progress=False, now=T1)
    monkeypatch.undo()
    assert err.getvalue() == ""


# --------------------------------------------------------------------------- hostile upstreams


def redirect(location: str, status: int = 302) -> Handler:
    def handle(h: BaseHTTPRequestHandler) -> None:
        h.send_response(status)
        h.send_header("Location", location)
        h.send_header("Content-Length", "0")
        h.end_headers()
        h.close_connection = True

    return handle


def drip(body: bytes, every: float) -> Handler:
    """Headers at once, then one byte every ``every`` seconds (never idle long enough to time out)."""

    def handle(h: BaseHTTPRequestHandler) -> None:
        h.send_response(200)
        h.send_header("Content-Length", str(len(body)))
        h.end_headers()
        for i in range(len(body)):
            h.wfile.write(body[i : i + 1])
            h.wfile.flush()
            time.sleep(every)

    return handle


def gzip_bomb(decoded_size: int) -> Handler:
    import gzip

    blob = gzip.compress(b"\0" * decoded_size, compresslevel=9)

    def handle(h: BaseHTTPRequestHandler) -> None:
        h.send_response(200)
        h.send_header("Content-Encoding", "gzip")
        h.send_header("Content-Length", str(len(blob)))
        h.end_headers()
        h.wfile.write(blob)

    return handle


# A well-formed payload with nothing in it, per kind (what a broken upstream job publishes).
EMPTY = {
    "lmarena": [b"{}", b"[]", b'{"full": {}}'],
    "lmarena_catalog": [b"[]", b"{}"],
    "epoch": [SINGLE["epoch"].read_bytes().split(b"\n", 1)[0] + b"\n"],  # header only
    "aider": [b"[]\n", b"{}\n"],
    "litellm": [b"{}", b'{"sample_spec": {}}'],
    "openrouter": [b'{"data": []}', b"{}", b"[]"],
}


@pytest.mark.parametrize("kind,index", [(k, i) for k, bodies in sorted(EMPTY.items()) for i in range(len(bodies))])
def test_empty_but_valid_payload_never_replaces_the_last_good_one(live, kind, index):
    cfg, base, server, expected = live
    victim = by_kind(cfg, kind)
    assert {s.source: s for s in fetch_all(cfg, base, live=True, progress=False, now=T1)}[victim].ok
    before = stored_files(cfg, base, victim)
    server.routes[path_of(cfg, victim)] = send(EMPTY[kind][index])
    st = {s.source: s for s in fetch_all(cfg, base, live=True, progress=False, now=T2)}[victim]
    assert not st.ok, f"{kind}: empty payload {EMPTY[kind][index][:40]!r} accepted"
    assert "implausible payload" in st.error or "unparseable payload" in st.error, st.error
    assert st.payload_fetched_at == T1 and stored_files(cfg, base, victim) == before


def test_empty_livebench_table_and_terminal_bench_tarball_are_refused(live, tb_tarball):
    cfg, base, server, expected = live
    lb, tb = by_kind(cfg, "livebench"), by_kind(cfg, "terminal_bench")
    fetch_all(cfg, base, live=True, progress=False, now=T1)
    before = {n: stored_files(cfg, base, n) for n in (lb, tb)}
    header = (DATA / "livebench" / "table_2026_01_08.csv").read_bytes().split(b"\n", 1)[0] + b"\n"
    server.routes[path_of(cfg, lb) + "table_2026_01_08.csv"] = send(header)
    empty_runs = io.BytesIO()
    with tarfile.open(fileobj=empty_runs, mode="w:gz") as tar:
        info = tarfile.TarInfo("repo-1/results/x/run/results.json")
        data = b'{"accuracy": 0, "n_resolved": 0, "results": []}'
        info.size = len(data)
        tar.addfile(info, io.BytesIO(data))
    server.routes[path_of(cfg, tb)] = send(empty_runs.getvalue())
    by = {s.source: s for s in fetch_all(cfg, base, live=True, progress=False, now=T2)}
    for name in (lb, tb):
        assert not by[name].ok and by[name].payload_fetched_at == T1, (name, by[name].error)
        assert stored_files(cfg, base, name) == before[name]


def test_min_records_threshold_comes_from_site_yml(live):
    cfg, base, server, expected = live
    victim = by_kind(cfg, "aider")
    cfg = cfg.model_copy(deep=True)
    cfg.source(victim).min_records = 10_000  # more runs than the real file has
    st = {s.source: s for s in fetch_all(cfg, base, live=True, progress=False, now=T1)}[victim]
    assert not st.ok and "implausible payload" in st.error and "10000" in st.error


def test_redirect_to_another_host_is_refused(live):
    cfg, base, server, expected = live
    victim = by_kind(cfg, "aider")
    path = path_of(cfg, victim)
    fetch_all(cfg, base, live=True, progress=False, now=T1)
    before = stored_files(cfg, base, victim)
    other = server.base.replace("127.0.0.1", "localhost")  # same server, another host name
    server.routes[path] = redirect(f"{other}/evil.yml")
    server.routes["/evil.yml"] = send(b"- model: evil\n")
    st = {s.source: s for s in fetch_all(cfg, base, live=True, progress=False, now=T2)}[victim]
    assert not st.ok and "redirect to another host" in st.error and "localhost" in st.error
    assert server.hits("/evil.yml") == 0
    assert stored_files(cfg, base, victim) == before


def test_same_host_redirect_is_followed_and_the_final_url_recorded(live):
    cfg, base, server, expected = live
    victim = by_kind(cfg, "aider")
    path = path_of(cfg, victim)
    body = next(iter(expected[victim].values()))
    server.routes[path] = redirect("/moved/polyglot_leaderboard.yml", 301)
    server.routes["/moved/polyglot_leaderboard.yml"] = send(body)
    st = {s.source: s for s in fetch_all(cfg, base, live=True, progress=False, now=T1)}[victim]
    assert st.ok and st.origin == server.base + "/moved/polyglot_leaderboard.yml"
    manifest = json.loads((base / cfg.fetch.store / victim / "payload.json").read_text())
    assert manifest["origin"] == server.base + "/moved/polyglot_leaderboard.yml"
    assert stored_files(cfg, base, victim) == expected[victim]


def test_redirect_to_a_listed_host_is_followed(live):
    cfg, base, server, expected = live
    victim = by_kind(cfg, "aider")
    body = next(iter(expected[victim].values()))
    other = server.base.replace("127.0.0.1", "localhost")
    server.routes[path_of(cfg, victim)] = redirect(f"{other}/mirror.yml")
    server.routes["/mirror.yml"] = send(body)
    cfg = cfg.model_copy(deep=True)
    cfg.source(victim).redirect_hosts = ["localhost"]
    st = {s.source: s for s in fetch_all(cfg, base, live=True, progress=False, now=T1)}[victim]
    assert st.ok, st.error
    assert st.origin == f"{other}/mirror.yml"


def test_slow_drip_is_cut_off_by_the_total_deadline(live):
    cfg, base, server, expected = live
    victim = by_kind(cfg, "aider")
    server.routes[path_of(cfg, victim)] = drip(next(iter(expected[victim].values())), 0.02)
    cfg = cfg.model_copy(deep=True)
    cfg.source(victim).deadline = 1.0
    t0 = time.monotonic()
    st = {s.source: s for s in fetch_all(cfg, base, live=True, progress=False, now=T1)}[victim]
    assert not st.ok and "deadline" in st.error, st.error
    assert server.hits(path_of(cfg, victim)) == 1  # a download cut off by the deadline is not retried
    assert time.monotonic() - t0 < 8


def test_gzip_bomb_stops_at_the_size_cap(live):
    cfg, base, server, expected = live
    victim = by_kind(cfg, "litellm")
    server.routes[path_of(cfg, victim)] = gzip_bomb(200_000_000)
    cfg = cfg.model_copy(deep=True)
    cfg.source(victim).max_bytes = 5_000_000
    st = {s.source: s for s in fetch_all(cfg, base, live=True, progress=False, now=T1)}[victim]
    assert not st.ok and "more than the cap" in st.error


def test_yaml_alias_bomb_is_refused_quickly(live):
    cfg, base, server, expected = live
    victim = by_kind(cfg, "aider")
    fetch_all(cfg, base, live=True, progress=False, now=T1)
    before = stored_files(cfg, base, victim)
    bomb = ["a: &a [x, x, x, x, x, x, x, x, x]"]
    for i in range(1, 9):
        bomb.append(f"{'abcdefghij'[i]}: &{'abcdefghij'[i]} [" + ", ".join([f"*{'abcdefghij'[i - 1]}"] * 9) + "]")
    server.routes[path_of(cfg, victim)] = send(("\n".join(bomb) + "\n").encode())
    t0 = time.monotonic()
    st = {s.source: s for s in fetch_all(cfg, base, live=True, progress=False, now=T2)}[victim]
    assert time.monotonic() - t0 < 10
    assert not st.ok and "alias" in st.error, st.error
    assert stored_files(cfg, base, victim) == before


def test_github_token_goes_to_api_github_com_only(monkeypatch):
    import httpx

    from builder.config import FetchSettings
    from builder.fetch import fetch_url, make_client

    monkeypatch.setenv("GITHUB_TOKEN", "ghs_test_token")
    seen: dict[str, str | None] = {}

    def respond(request: httpx.Request) -> httpx.Response:
        seen[str(request.url)] = request.headers.get("authorization")
        if request.url.host == "api.github.com" and request.url.path == "/hop":
            return httpx.Response(302, headers={"Location": "https://api.github.com/listing"})
        return httpx.Response(200, content=b"[]")

    settings = FetchSettings(retries=1)
    with make_client(settings, transport=httpx.MockTransport(respond)) as client:
        for url in ("https://api.github.com/hop", "https://raw.githubusercontent.com/x/y", "http://api.github.com/z",
                    "https://api.github.com.evil.example/w"):
            fetch_url(client, url, timeout=5, max_bytes=1000, settings=settings)
    assert seen["https://api.github.com/hop"] == "Bearer ghs_test_token"
    assert seen["https://api.github.com/listing"] == "Bearer ghs_test_token"
    assert seen["https://raw.githubusercontent.com/x/y"] is None
    assert seen["http://api.github.com/z"] is None  # never in clear text
    assert seen["https://api.github.com.evil.example/w"] is None
    monkeypatch.delenv("GITHUB_TOKEN")
    with make_client(settings, transport=httpx.MockTransport(respond)) as client:
        fetch_url(client, "https://api.github.com/listing", timeout=5, max_bytes=1000, settings=settings)
    assert seen["https://api.github.com/listing"] is None


def test_dripping_upstreams_share_one_build_wide_budget(live):
    """Every upstream drips (each within its own 30 s deadline): the build-wide budget ends
    them all together, concurrently, instead of one deadline after another."""
    cfg, base, server, expected = live
    assert all(fetch_all(cfg, base, live=True, progress=False, now=T1)[i].ok for i in range(2))
    before = {name: stored_files(cfg, base, name) for name in expected}
    for path in list(server.routes):
        server.routes[path] = drip(b"x" * 100_000, 0.05)
    cfg = cfg.model_copy(deep=True)
    for s in cfg.sources:
        s.deadline = 30.0
    cfg.fetch.budget, cfg.fetch.concurrency = 2.0, 4
    t0 = time.monotonic()
    statuses = {s.source: s for s in fetch_all(cfg, base, live=True, progress=False, now=T1)}
    took = time.monotonic() - t0
    remote = [s for s in cfg.sources if s.enabled and s.url and not s.local and s.kind != "metadata"]
    assert len(remote) >= 8
    for s in remote:
        st = statuses[s.name]
        assert not st.ok and "fetch budget" in st.error, (s.name, st.error)
        assert stored_files(cfg, base, s.name) == before[s.name]  # the last good payload stays
    assert took < 10, took  # one 2 s budget, not nine 30 s deadlines in a row


def test_sources_are_fetched_concurrently(live):
    cfg, base, server, expected = live
    for path, handler in list(server.routes.items()):
        server.routes[path] = (lambda h, handler=handler: (time.sleep(0.6), handler(h)))
    cfg = cfg.model_copy(deep=True)
    cfg.fetch.concurrency = 8
    for s in cfg.sources:
        s.timeout = 5.0
    t0 = time.monotonic()
    statuses = fetch_all(cfg, base, live=True, progress=False, now=T1)
    took = time.monotonic() - t0
    assert all(s.ok for s in statuses if s.source in expected), [s.error for s in statuses if not s.ok]
    assert took < 0.6 * len(server.routes) * 0.6, took  # far from one after another


def test_a_store_that_is_a_plain_file_fails_each_source(live):
    """A restored cache whose store, or one source's folder, is a plain file: failed sources
    with the path, never a traceback."""
    cfg, base, server, expected = live
    store = base / "store"
    store.write_text("not a folder")
    statuses = fetch_all(cfg, base, live=True, progress=False, now=T1)
    for st in statuses:
        if st.source in expected and not cfg.source(st.source).local:
            assert not st.ok and "cannot store the payload" in st.error and str(store) in st.error, st.error
    store.unlink()
    store.mkdir()
    victim = by_kind(cfg, "aider")
    (store / victim).write_text("not a folder")
    server.routes[path_of(cfg, victim)] = send(b"down", 500)  # its status must be written beside a file
    statuses = {s.source: s for s in fetch_all(cfg, base, live=True, progress=False, now=T1)}
    assert not statuses[victim].ok and "HTTP 500" in statuses[victim].error
    assert all(s.ok for n, s in statuses.items() if n != victim and n in expected)
    assert load_payloads(cfg, base)[victim][0] is None
    server.routes[path_of(cfg, victim)] = send(next(iter(expected[victim].values())))
    statuses = {s.source: s for s in fetch_all(cfg, base, live=True, progress=False, now=T1)}
    assert statuses[victim].ok and stored_files(cfg, base, victim) == expected[victim]  # the file is replaced
