"""The live battles dump: streamed to disk, resumed with Range after a dropped connection,
capped, and never replacing the last complete dump with a partial one. Against a real HTTP
server on 127.0.0.1 that honours Range and drops connections on request."""

from __future__ import annotations

import hashlib
import http.server
from datetime import UTC, datetime

import pytest
from conftest import QuietServer
from serving import serve_in_background

import builder.fetch as fetch_module
from builder.config import ArenaConfig, FetchSettings
from builder.fetch_battles import battles_dir, fetch_battles, read_battles_status, stored_battles

BODY = b"".join(b'{"model_a": "m%d", "model_b": "m%d", "winner": "model_a"}\n' % (i % 7, (i + 1) % 7)
                for i in range(20000))
NOW = datetime(2026, 11, 30, 6, 45, tzinfo=UTC)


class Server:
    """Serves BODY at /clean_battle.jsonl with Range support; ``drop_after`` makes the next
    response stop after that many bytes (the connection closes mid-body)."""

    def __init__(self) -> None:
        self.requests: list[str | None] = []
        self.drop_after: list[int] = []
        self.ignore_range = False
        self.status = 200
        self.body = BODY
        self.redirect_to: str | None = None
        self.drip = 0.0  # seconds between bytes (0: all at once)
        self.validators = True  # send an ETag and honour If-Range, as the real hosts do
        self.ignore_if_range = False
        self.if_ranges: list[str | None] = []
        outer = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def do_GET(self):
                rng = self.headers.get("Range")
                outer.requests.append(rng)
                BODY = outer.body
                if outer.redirect_to and self.path == "/clean_battle.jsonl":
                    self.send_response(302)
                    self.send_header("Location", outer.redirect_to)
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                if outer.status != 200:
                    self.send_response(outer.status)
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                start = 0
                etag = f'"{hashlib.sha256(BODY).hexdigest()[:16]}"'
                outer.if_ranges.append(self.headers.get("If-Range"))
                if_range = self.headers.get("If-Range")
                if rng and if_range is not None and if_range != etag and not outer.ignore_if_range:
                    rng = None  # the file changed since that part: the whole new file
                if rng and not outer.ignore_range:
                    start = int(rng.removeprefix("bytes=").rstrip("-"))
                    if start >= len(BODY):
                        self.send_response(416)
                        self.send_header("Content-Range", f"bytes */{len(BODY)}")
                        self.send_header("Content-Length", "0")
                        self.end_headers()
                        return
                    self.send_response(206)
                    self.send_header("Content-Range", f"bytes {start}-{len(BODY) - 1}/{len(BODY)}")
                else:
                    self.send_response(200)
                body = BODY[start:]
                if outer.validators:
                    self.send_header("ETag", etag)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                if outer.drop_after:
                    cut = outer.drop_after.pop(0)
                    self.wfile.write(body[:cut])
                    self.wfile.flush()
                    self.close_connection = True
                    return
                if outer.drip:
                    import time

                    for i in range(len(body)):
                        self.wfile.write(body[i : i + 1])
                        self.wfile.flush()
                        time.sleep(outer.drip)
                    return
                self.wfile.write(body)

        self.httpd = QuietServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/clean_battle.jsonl"
        serve_in_background(self.httpd)

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def server(monkeypatch):
    monkeypatch.setattr(fetch_module, "_sleep", lambda s: None)
    s = Server()
    yield s
    s.close()


def _arena(url: str, cap: int = 10_000_000) -> ArenaConfig:
    return ArenaConfig(live_url=url, live_max_bytes=cap)


SETTINGS = FetchSettings(retries=3, backoff=0.01)


def test_complete_download(server, tmp_path):
    status = fetch_battles(_arena(server.url), SETTINGS, tmp_path, now=NOW)
    assert status.ok and status.bytes == len(BODY)
    assert stored_battles(_arena(server.url), tmp_path).read_bytes() == BODY
    assert read_battles_status(tmp_path).sha256 == status.sha256
    assert server.requests == [None]


def test_dropped_connection_resumes_with_range(server, tmp_path):
    server.drop_after = [300_000]
    status = fetch_battles(_arena(server.url), SETTINGS, tmp_path, now=NOW)
    assert status.ok, status.error
    assert stored_battles(_arena(server.url), tmp_path).read_bytes() == BODY
    assert server.requests[0] is None and server.requests[1].startswith("bytes=") and server.requests[1] != "bytes=0-"
    assert not list(battles_dir(tmp_path).glob("*.part"))


def test_resume_across_runs_keeps_the_part_file(server, tmp_path):
    server.drop_after = [100_000, 50_000, 50_000]  # every attempt of the first run drops
    first = fetch_battles(_arena(server.url), SETTINGS, tmp_path, now=NOW)
    assert not first.ok and "resume" in first.error
    part = next(battles_dir(tmp_path).glob("*.part"))
    assert part.stat().st_size == 200_000 and stored_battles(_arena(server.url), tmp_path) is None
    second = fetch_battles(_arena(server.url), SETTINGS, tmp_path, now=NOW)
    assert second.ok and stored_battles(_arena(server.url), tmp_path).read_bytes() == BODY
    assert server.requests[-1] == "bytes=200000-"


def test_server_that_ignores_range_restarts_cleanly(server, tmp_path):
    server.drop_after = [100_000]
    server.ignore_range = True
    status = fetch_battles(_arena(server.url), SETTINGS, tmp_path, now=NOW)
    assert status.ok and stored_battles(_arena(server.url), tmp_path).read_bytes() == BODY


def test_size_cap_discards_and_keeps_previous_dump(server, tmp_path):
    assert fetch_battles(_arena(server.url), SETTINGS, tmp_path, now=NOW).ok
    before = stored_battles(_arena(server.url), tmp_path).read_bytes()
    status = fetch_battles(_arena(server.url, cap=1000), SETTINGS, tmp_path, now=NOW)
    assert not status.ok and "cap" in status.error
    assert status.payload_fetched_at == NOW  # the earlier complete dump stays in use
    assert stored_battles(_arena(server.url), tmp_path).read_bytes() == before
    assert not list(battles_dir(tmp_path).glob("*.part"))


def test_http_errors_fail_with_reason(server, tmp_path):
    server.status = 404
    status = fetch_battles(_arena(server.url), SETTINGS, tmp_path, now=NOW)
    assert not status.ok and status.http_status == 404 and len(server.requests) == 1
    server.status = 503
    status = fetch_battles(_arena(server.url), SETTINGS, tmp_path, now=NOW)
    assert not status.ok and "gave up after 3 attempts" in status.error


def test_no_live_url(tmp_path):
    status = fetch_battles(ArenaConfig(live_url=None), SETTINGS, tmp_path, now=NOW)
    assert not status.ok and "no live URL" in status.error


def test_live_builds_fit_the_stored_dump_never_the_bundled_file(server, tmp_path):
    from pathlib import Path

    from builder.config import load_config
    from builder.pipeline import battles_path

    root = Path(__file__).resolve().parents[1]
    cfg, base = load_config(root / "site.yml")
    cfg = cfg.model_copy(update={
        "fetch": cfg.fetch.model_copy(update={"store": str(tmp_path / "store")}),
        "arena": cfg.arena.model_copy(update={"live_url": server.url}),
    })
    assert battles_path(cfg, base, live=False).name == "clean_battle_demo.jsonl"
    assert battles_path(cfg, base, live=True) is None  # nothing fetched yet: no Arena, no demo
    assert fetch_battles(cfg.arena, SETTINGS, tmp_path / "store", now=NOW).ok
    assert battles_path(cfg, base, live=True).read_bytes() == BODY


# --------------------------------------------------------------------------- a hostile upstream

BAD_DUMPS = {
    "invalid-jsonl": b'{"model_a": "m1", "model_b": "m2", "winner": "model_a"}\n{"model_a": "m1", "model_b\n' * 50,
    "raw-gzip": __import__("gzip").compress(BODY),
    "empty-array": b"[]",
    "empty-object-lines": b"{}\n{}\n",
    "mostly-bad-rows": b"".join(b'{"model_a": "m1", "model_b": "m1", "winner": "model_a"}\n' for _ in range(90))
    + b"".join(b'{"model_a": "m1", "model_b": "m2", "winner": "model_a"}\n' for _ in range(10)),
    "html-error-page": b"<html><body>rate limited</body></html>",
}


@pytest.mark.parametrize("case", sorted(BAD_DUMPS))
def test_a_bad_dump_never_replaces_the_last_good_one(server, tmp_path, case):
    assert fetch_battles(_arena(server.url), SETTINGS, tmp_path, now=NOW).ok
    good = stored_battles(_arena(server.url), tmp_path)
    before = good.read_bytes()
    server.body = BAD_DUMPS[case]
    later = datetime(2026, 11, 30, 12, 45, tzinfo=UTC)
    status = fetch_battles(_arena(server.url), SETTINGS, tmp_path, now=later)
    assert not status.ok and "battles dump refused" in status.error, status.error
    assert status.payload_fetched_at == NOW  # the earlier dump stays in use
    assert stored_battles(_arena(server.url), tmp_path).read_bytes() == before
    assert sorted(p.name for p in battles_dir(tmp_path).iterdir()) == [good.name, "status.json"]
    server.body = BODY  # upstream recovers: the next fetch is accepted again
    assert fetch_battles(_arena(server.url), SETTINGS, tmp_path, now=later).ok


def test_bad_row_share_threshold_comes_from_the_config(server, tmp_path):
    server.body = BAD_DUMPS["mostly-bad-rows"]
    lax = ArenaConfig(live_url=server.url, live_max_bad_share=0.95)
    assert fetch_battles(lax, SETTINGS, tmp_path, now=NOW).ok
    strict = ArenaConfig(live_url=server.url, live_min_battles=11, live_max_bad_share=0.95)
    status = fetch_battles(strict, SETTINGS, tmp_path, now=NOW)
    assert not status.ok and "10 valid battles" in status.error


def test_off_host_redirect_of_the_dump_is_refused(server, tmp_path):
    other = server.url.replace("127.0.0.1", "localhost").replace("clean_battle.jsonl", "other.jsonl")
    server.redirect_to = other
    status = fetch_battles(_arena(server.url), SETTINGS, tmp_path, now=NOW)
    assert not status.ok and "redirect to another host" in status.error
    allowed = ArenaConfig(live_url=server.url, live_redirect_hosts=["localhost"])
    status = fetch_battles(allowed, SETTINGS, tmp_path, now=NOW)
    assert status.ok and status.origin == other


def test_slow_drip_dump_is_cut_off_by_the_deadline(server, tmp_path):
    import time

    server.drip = 0.01
    t0 = time.monotonic()
    arena = ArenaConfig(live_url=server.url, live_timeout=0.5, live_deadline=1.0)
    status = fetch_battles(arena, SETTINGS, tmp_path, now=NOW)
    assert not status.ok and "deadline" in status.error
    assert time.monotonic() - t0 < 8


def test_resume_sends_if_range_with_the_etag(server, tmp_path):
    server.drop_after = [300_000]
    assert fetch_battles(_arena(server.url), SETTINGS, tmp_path, now=NOW).ok
    assert server.if_ranges[0] is None and server.if_ranges[1] == f'"{hashlib.sha256(BODY).hexdigest()[:16]}"'


def test_a_dump_changed_between_runs_restarts_from_zero(server, tmp_path):
    server.drop_after = [100_000, 50_000, 50_000]
    assert not fetch_battles(_arena(server.url), SETTINGS, tmp_path, now=NOW).ok  # 200,000 bytes of the old dump
    new = BODY.replace(b'"winner": "model_a"', b'"winner": "model_b"')
    server.body = new
    status = fetch_battles(_arena(server.url), SETTINGS, tmp_path, now=NOW)
    assert status.ok and stored_battles(_arena(server.url), tmp_path).read_bytes() == new  # never half old, half new


def test_a_server_ignoring_if_range_with_another_etag_restarts(server, tmp_path):
    server.drop_after = [100_000, 50_000, 50_000]
    assert not fetch_battles(_arena(server.url), SETTINGS, tmp_path, now=NOW).ok
    new = BODY.replace(b'"winner": "model_a"', b'"winner": "model_b"')
    server.body, server.ignore_if_range = new, True  # answers 206 with the new file's ETag
    status = fetch_battles(_arena(server.url), SETTINGS, tmp_path, now=NOW)
    assert status.ok and stored_battles(_arena(server.url), tmp_path).read_bytes() == new


def test_a_part_without_a_validator_is_not_resumed(server, tmp_path):
    server.validators = False
    server.drop_after = [100_000, 50_000, 50_000]
    assert not fetch_battles(_arena(server.url), SETTINGS, tmp_path, now=NOW).ok
    server.body = new = BODY.replace(b'"winner": "model_a"', b'"winner": "model_b"')
    status = fetch_battles(_arena(server.url), SETTINGS, tmp_path, now=NOW)
    assert status.ok and stored_battles(_arena(server.url), tmp_path).read_bytes() == new
    assert server.requests[-1] is None


def test_a_full_disk_fails_the_dump_not_the_build(server, tmp_path, monkeypatch):
    """ENOSPC while the dump streams to disk: the source fails naming the file; nothing raises."""
    import builtins
    import errno

    real_open = builtins.open

    class FullFile:
        def __init__(self, fh):
            self.fh = fh

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            self.fh.close()

        def write(self, data):
            raise OSError(errno.ENOSPC, "No space left on device")

    def full_open(file, mode="r", *args, **kwargs):
        fh = real_open(file, mode, *args, **kwargs)
        return FullFile(fh) if str(file).endswith(".part") and "b" in mode and ("a" in mode or "w" in mode) else fh

    monkeypatch.setattr(builtins, "open", full_open)
    status = fetch_battles(_arena(server.url), SETTINGS, tmp_path, now=NOW)
    assert not status.ok and "No space left on device" in status.error and ".part" in status.error
    assert read_battles_status(tmp_path).error == status.error


def test_a_store_that_is_a_file_fails_the_dump(server, tmp_path):
    store = tmp_path / "store"
    store.write_text("a restored cache entry that is a file")
    status = fetch_battles(_arena(server.url), SETTINGS, store, now=NOW)
    assert not status.ok and "cannot write" in status.error
    (tmp_path / "store2").mkdir()
    (tmp_path / "store2" / "battles").write_text("a file where the folder should be")
    status = fetch_battles(_arena(server.url), SETTINGS, tmp_path / "store2", now=NOW)
    assert not status.ok and "cannot write" in status.error
