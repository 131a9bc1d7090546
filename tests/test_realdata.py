"""The real-data tests run in a fresh clone without ../shared/data: the same files come from
their pinned upstream URLs (tests/data_registry.txt) through pooch, checked by sha256. The
download path is tested here against a mirror on 127.0.0.1; with neither the folder nor a
reachable source the tests fail with one line saying how to get the files."""

from __future__ import annotations

import http.server
import re
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote

import pytest
import realdata
from conftest import QuietServer
from realdata import (
    CODELOAD_BASE,
    FULL_COMMIT,
    RAW_BASE,
    RealDataUnavailable,
    RegistryError,
    fetch_real_data,
    mirrored,
    registry,
    tar_sha256,
)
from serving import serve_in_background

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
    files = [e for e in entries if not e.archive]
    if (shared_data / "SHA256SUMS").is_file():
        assert {e.path: e.sha256 for e in files} == _sums(shared_data)
    for e in files:
        assert e.url == f"{RAW_BASE}/{e.repo}/{e.commit}/{e.upstream_path}"
        assert FULL_COMMIT.match(e.commit), e.url  # a full 40-hex commit, never a short SHA


def test_the_models_dev_tarball_is_pinned_by_its_tar(shared_data):
    """The catalog tarball: GitHub's download of the commit its README names, checked by the
    sha256 of the uncompressed tar that README gives (GitHub's gzip bytes can differ)."""
    [e] = [e for e in registry() if e.archive]
    assert e.url == f"{CODELOAD_BASE}/{e.repo}/tar.gz/{e.commit}" and FULL_COMMIT.match(e.commit)
    assert e.path == f"modelsdev/models.dev-{e.commit}.tar.gz" and e.repo == "anomalyco/models.dev"
    readme = shared_data / "modelsdev" / "README.md"
    if readme.is_file():
        text = readme.read_text(encoding="utf-8")
        assert e.commit in text and f"sha256 of the uncompressed tar: {e.sha256}" in text
    assert tar_sha256(shared_data / e.path) == e.sha256


@dataclass(frozen=True)
class Pin:
    """One file (or folder prefix, ending in /) of MANIFEST.md's table and where it came from."""

    local: str
    repo: str
    path: str | None  # the upstream file, a folder (ending in /), or None: the local path less its first folder
    commit: str  # as MANIFEST.md writes it (a short id)

    def upstream_path(self, local: str) -> str:
        if self.path is None:
            return local.split("/", 1)[1]
        return self.path + local.rsplit("/", 1)[-1] if self.path.endswith("/") else self.path


def _locals(cell: str) -> list[str]:
    """``a/{x,y}_z.csv`` -> a/x_z.csv, a/y_z.csv; ``a/x.csv, y.json`` -> a/x.csv, a/y.json;
    ``a/b/...`` -> the prefix a/b/."""
    brace = re.fullmatch(r"(.*)\{(.*)\}(.*)", cell)
    if brace:
        return [brace.group(1) + alt + brace.group(3) for alt in brace.group(2).split(",")]
    first, *rest = [c.strip() for c in cell.split(",")]
    folder = first.rsplit("/", 1)[0] + "/"
    return [first.removesuffix("...")] + [folder + r for r in rest]


def manifest_pins(text: str) -> list[Pin]:
    """The table of ../shared/data/MANIFEST.md as pins: ``same``, ``same repo`` and ``same path``
    refer to the row above; ``@ a / b`` gives the commits of the row's files in order."""
    pins: list[Pin] = []
    repo = path = None
    rows = [line for line in text.splitlines() if line.startswith("| ")][1:]  # after the header
    for row in rows:
        cells = [c.strip().strip("`") for c in row.strip("|").split("|")]
        files, src = _locals(cells[0]), cells[1]
        commits = re.search(r"@ ([0-9a-f]{7,40})(?: / ([0-9a-f]{7,40}))?", src)
        assert commits, row
        if src.startswith("same path"):
            pass  # the row above's repository and path
        elif src.startswith("same repo @"):
            path = path.rsplit("/", 1)[0] + "/"  # the row above's folder
        else:
            if not src.startswith("same"):
                named = re.search(r"([A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+)(?= : | @ )", src)
                assert named, row
                repo = named.group(1)
            path = src.split(" : ", 1)[1].split(" @ ", 1)[0] if " : " in src.split(" @ ", 1)[0] else None
        ids = [c for c in commits.groups() if c]
        for k, f in enumerate(files):
            pins.append(Pin(f, repo, path, ids[k] if len(ids) == len(files) else ids[0]))
    return pins


def test_the_registry_pins_what_the_manifest_names():
    """Every registry URL names the repository, path and (expanded) commit MANIFEST.md gives
    for that file, and every file the manifest names is registered."""
    manifest = realdata.SHARED_DATA / "MANIFEST.md"
    if not manifest.is_file():
        pytest.skip(f"{manifest} is not beside this clone: nothing to compare the registry with")
    pins = manifest_pins(manifest.read_text(encoding="utf-8"))
    assert len(pins) >= 15
    entries = [e for e in registry() if not e.archive]  # archives: their own README, tested above
    for e in entries:
        hits = [p for p in pins if e.path == p.local or (p.local.endswith("/") and e.path.startswith(p.local))]
        assert len(hits) == 1, (e.path, hits)
        pin = hits[0]
        assert e.repo == pin.repo, (e.path, e.repo, pin.repo)
        assert e.commit.startswith(pin.commit), (e.path, e.commit, pin.commit)
        assert e.upstream_path == pin.upstream_path(e.path), (e.path, e.upstream_path)
    registered = {e.path for e in entries}
    assert {p.local for p in pins if not p.local.endswith("/")} <= registered
    assert all(any(r.startswith(p.local) for r in registered) for p in pins if p.local.endswith("/"))


def test_a_short_sha_in_the_registry_is_refused_with_one_line(tmp_path, monkeypatch):
    lines = realdata.REGISTRY.read_text(encoding="utf-8").splitlines()
    n, line = next((k, x) for k, x in enumerate(lines, start=1) if x and not x.startswith("#"))
    entry = realdata.parse_registry_line(line, "here")
    short = line.replace(f"/{entry.commit}/", f"/{entry.commit[:8]}/")
    bad = tmp_path / "data_registry.txt"
    bad.write_text("\n".join([*lines[: n - 1], short, *lines[n:]]) + "\n", encoding="utf-8")
    with pytest.raises(RegistryError) as err:
        registry(bad)
    message = str(err.value)
    assert "\n" not in message and message.startswith(f"data_registry.txt line {n}: ")
    assert f"/{entry.commit[:8]}/" in message and "not a full 40-hex commit" in message
    # a fresh clone (no ../shared/data) fails the real-data tests with that line, before any download
    monkeypatch.setattr(realdata, "SHARED_DATA", tmp_path / "no-shared-data")
    monkeypatch.setattr(realdata, "REGISTRY", bad)
    monkeypatch.setenv(realdata.CACHE_ENV, str(tmp_path / "cache"))
    with pytest.raises(RegistryError, match="not a full 40-hex commit"):
        realdata.real_data_dir()
    assert not (tmp_path / "cache" / entry.path).exists()
    for broken, why in ((line.replace("\t", " "), "expected path<TAB>sha256<TAB>url"),
                        (line.replace(entry.sha256, entry.sha256[:12]), "is not a sha256"),
                        (line.replace(RAW_BASE, "https://example.org"), "not a raw.githubusercontent.com URL")):
        with pytest.raises(RegistryError, match=why):
            realdata.parse_registry_line(broken, "x")


class Mirror:
    """Serves the registry's URL paths from a data folder (``tamper``: wrong bytes)."""

    def __init__(self, data: Path) -> None:
        self.hits: list[str] = []
        self.tamper = False
        by_url = {mirrored(e.url, ""): data / e.path for e in registry()}
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
        serve_in_background(self.httpd)

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


def test_the_catalog_tarball_downloads_and_is_checked_by_its_tar(mirror, shared_data, tmp_path):
    [e] = [e for e in registry() if e.archive]
    got = fetch_real_data(tmp_path, [e], url_base=mirror.base)
    assert tar_sha256(got / e.path) == e.sha256 and mirror.hits == [f"/codeload/{e.repo}/tar.gz/{e.commit}"]
    fetch_real_data(tmp_path, [e], url_base=mirror.base)
    assert len(mirror.hits) == 1  # kept: its tar is the pinned one
    (got / e.path).unlink()
    mirror.tamper = True
    with pytest.raises(RealDataUnavailable, match="sha256 mismatch") as err:
        fetch_real_data(tmp_path, [e], url_base=mirror.base)
    assert "\n" not in str(err.value) and not (got / e.path).exists()
    assert not list((got / "modelsdev").glob("*.part"))


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
