"""The real-data tests run in a fresh clone without ../shared/data: the same files come from
their pinned upstream URLs (tests/data_registry.txt) through pooch, checked by sha256. The
download path is tested here against a mirror on 127.0.0.1; with neither the folder nor a
reachable source the tests fail with one line saying how to get the files."""

from __future__ import annotations

import http.server
import threading
from pathlib import Path
from urllib.parse import unquote

import pytest
import realdata
from conftest import QuietServer
from realdata import RAW_BASE, RealDataUnavailable, fetch_real_data, registry

SAMPLE = [
    "aider/polyglot_leaderboard.yml",
    "livebench/categories_2026_01_08.json",
    "terminal-bench/results/terminal-bench-core@0.1.1/20250902_orchestrator_qwen-3-coder-480B/results.json",
    "terminal-bench/results/terminal-bench-core:0.1.1/20250906_orchestrator_claude-4.1-opus/results.json",
]


def _sums(folder: Path) -> dict[str, str]:
    out = {}
    for line in (folder / "SHA256SUMS").read_text().splitlines():
        if line.strip():
            sha, path = line.split(None, 1)
            out[path.strip().removeprefix("./")] = sha
    return out


def test_registry_pins_every_manifest_file_with_its_sha256(shared_data):
    entries = registry()
    assert len({e.path for e in entries}) == len(entries)
    if (shared_data / "SHA256SUMS").is_file():
        assert {e.path: e.sha256 for e in entries} == _sums(shared_data)
    for e in entries:
        owner, repo, commit, *path = e.url.removeprefix(RAW_BASE + "/").split("/")
        assert e.url.startswith(RAW_BASE + "/") and owner and repo and path
        assert len(commit) >= 8 and all(c in "0123456789abcdef" for c in commit), e.url


class Mirror:
    """Serves the registry's URL paths from a data folder (``tamper``: wrong bytes)."""

    def __init__(self, data: Path) -> None:
        self.hits: list[str] = []
        self.tamper = False
        by_url = {e.url.removeprefix(RAW_BASE): data / e.path for e in registry()}
        outer = self

        class H(http.server.BaseHTTPRequestHandler):
            def log_message(self, *args) -> None:
                pass

            def do_GET(self) -> None:  # noqa: N802
                outer.hits.append(self.path)
                f = by_url.get(unquote(self.path))
                if f is None:
                    self.send_error(404)
                    return
                body = f.read_bytes() + (b" tampered" if outer.tamper else b"")
                self.send_response(200)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        self.httpd = QuietServer(("127.0.0.1", 0), H)
        self.base = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def mirror(shared_data):
    m = Mirror(shared_data)
    yield m
    m.close()


def _entries():
    return [e for e in registry() if e.path in SAMPLE]


def test_download_from_the_pinned_urls_checks_every_file(mirror, shared_data, tmp_path):
    got = fetch_real_data(tmp_path, _entries(), url_base=mirror.base)
    for rel in SAMPLE:
        assert (got / rel).read_bytes() == (shared_data / rel).read_bytes()
    assert len(mirror.hits) == len(SAMPLE) and any("%40" in h or "@" in h for h in mirror.hits)
    fetch_real_data(tmp_path, _entries(), url_base=mirror.base)
    assert len(mirror.hits) == len(SAMPLE)  # cached and verified: nothing fetched again


def test_a_file_with_the_wrong_sha256_is_refused(mirror, tmp_path):
    mirror.tamper = True
    with pytest.raises(RealDataUnavailable, match="sha256 mismatch") as err:
        fetch_real_data(tmp_path, _entries()[:1], url_base=mirror.base)
    assert "\n" not in str(err.value)
    assert not (tmp_path / SAMPLE[0]).exists()


def test_without_data_or_network_the_tests_fail_with_one_line(tmp_path, monkeypatch):
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        dead = f"http://127.0.0.1:{s.getsockname()[1]}"
    monkeypatch.setattr(realdata, "SHARED_DATA", tmp_path / "no-shared-data")
    monkeypatch.setenv(realdata.CACHE_ENV, str(tmp_path / "cache"))
    monkeypatch.setenv(realdata.MIRROR_ENV, dead)
    with pytest.raises(RealDataUnavailable) as err:
        realdata.real_data_dir()
    message = str(err.value)
    assert "\n" not in message and "no-shared-data" in message and "data_registry.txt" in message
    from conftest import require_shared_data

    with pytest.raises(pytest.fail.Exception) as failed:
        require_shared_data()
    assert str(failed.value) == message  # a failure, never a skip


def test_every_real_data_reader_goes_through_the_one_helper():
    tests = Path(__file__).resolve().parent
    needles = ('"shared" / "data"', "ALLOW_NO_" + "SHARED_DATA")
    offenders = [p.name for p in tests.glob("test_*.py") if p.name != "test_realdata.py"
                 and any(n in p.read_text(encoding="utf-8") for n in needles)]
    assert offenders == [], f"locate ../shared/data through conftest.require_shared_data in {offenders}"
