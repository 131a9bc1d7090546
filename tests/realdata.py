"""Where the tests find the real upstream files: the one helper every test uses.

``real_data_dir()`` is ``../shared/data`` beside the clone when it is there. Otherwise (a
contributor's fresh clone of the public repository, or CI on GitHub) it is a local cache
filled with pooch from the pinned upstream URLs in ``tests/data_registry.txt`` (repository,
commit and path as ``../shared/data/MANIFEST.md`` names them), each file checked against its
sha256 from ``../shared/data/SHA256SUMS``. With neither the folder nor the network the tests
fail (they are never skipped) with one line saying how to get the files.

Environment: ``MODELBOARDS_TEST_DATA`` names the cache folder (default: the user cache dir,
``modelboards-test-data``); ``MODELBOARDS_TEST_DATA_MIRROR`` replaces
``https://raw.githubusercontent.com`` in every URL (a mirror with the same paths).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SHARED_DATA = ROOT.parent / "shared" / "data"
REGISTRY = Path(__file__).resolve().parent / "data_registry.txt"
RAW_BASE = "https://raw.githubusercontent.com"
CODELOAD_BASE = "https://codeload.github.com"
CACHE_ENV = "MODELBOARDS_TEST_DATA"
MIRROR_ENV = "MODELBOARDS_TEST_DATA_MIRROR"


class RealDataUnavailable(Exception):
    """The real files are not beside the clone and could not be downloaded (one-line message)."""


class RegistryError(RealDataUnavailable):
    """A line of the registry that pins nothing reliably (one-line message naming the line)."""


#: A registry URL: a file of a GitHub repository at one commit, named by its full 40-hex id
#: (a short id is unique only until the repository grows a second commit with that prefix).
PINNED_URL = re.compile(
    r"^https://raw\.githubusercontent\.com/(?P<repo>[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+)/(?P<commit>[^/]+)/(?P<path>.+)$")
#: A registry URL of a whole repository at one commit (GitHub's tarball download). Its sha256 is
#: the uncompressed tar's: GitHub's gzip bytes are not stable, the tar inside is ``git archive``'s.
ARCHIVE_URL = re.compile(
    r"^https://codeload\.github\.com/(?P<repo>[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+)/tar\.gz/(?P<commit>[^/]+)$")
FULL_COMMIT = re.compile(r"^[0-9a-f]{40}$")
SHA256 = re.compile(r"^[0-9a-f]{64}$")


@dataclass(frozen=True)
class Entry:
    path: str  # relative to the data folder, POSIX
    sha256: str
    url: str

    @property
    def repo(self) -> str:
        """``owner/name`` of the upstream repository."""
        return _url_part(self.url, "repo")

    @property
    def commit(self) -> str:
        return _url_part(self.url, "commit")

    @property
    def upstream_path(self) -> str:
        """The file's path inside the repository."""
        return _url_part(self.url, "path")

    @property
    def archive(self) -> bool:
        """A whole repository as a .tar.gz, pinned by the sha256 of its uncompressed tar."""
        return ARCHIVE_URL.match(self.url) is not None


def _url_part(url: str, part: str) -> str:
    m = PINNED_URL.match(url) or ARCHIVE_URL.match(url)
    if m is None or part not in m.groupdict():
        raise ValueError(f"not a pinned registry URL: {url}")
    return m.group(part)


def parse_registry_line(line: str, where: str) -> Entry | None:
    """One registry line as an Entry (None: a comment or blank line); RegistryError otherwise."""
    if not line.strip() or line.startswith("#"):
        return None
    fields = line.split("\t")
    if len(fields) != 3:
        raise RegistryError(f"{where}: expected path<TAB>sha256<TAB>url, got {len(fields)} field(s)")
    rel, sha, url = fields
    if not SHA256.match(sha):
        raise RegistryError(f"{where}: {rel}: {sha!r} is not a sha256 (64 lower-case hex digits)")
    m = PINNED_URL.match(url) or ARCHIVE_URL.match(url)
    if m is None:
        raise RegistryError(f"{where}: {url} is not a raw.githubusercontent.com URL of owner/repo/commit/path "
                            f"or a codeload.github.com URL of owner/repo/tar.gz/commit")
    if not FULL_COMMIT.match(m.group("commit")):
        raise RegistryError(f"{where}: {url} pins commit {m.group('commit')!r}, not a full 40-hex commit "
                            f"(a short SHA can become ambiguous)")
    return Entry(rel, sha, url)


def registry(path: Path | None = None) -> list[Entry]:
    """Every registered file of ``path`` (default ``REGISTRY``), in registry order;
    RegistryError (one line) on a bad line."""
    path = REGISTRY if path is None else path
    out = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        entry = parse_registry_line(line, f"{path.name} line {n}")
        if entry is not None:
            out.append(entry)
    return out


def cache_dir() -> Path:
    if os.environ.get(CACHE_ENV):
        return Path(os.environ[CACHE_ENV])
    import pooch

    return Path(pooch.os_cache("modelboards-test-data"))


def how_to_get(reason: str) -> str:
    return (f"real upstream test data: {SHARED_DATA} is missing and downloading it failed ({reason}); "
            f"put the shared data folder beside the clone, or run the tests once with network access so "
            f"tests/realdata.py can fetch the pinned files listed in tests/data_registry.txt")


def fetch_real_data(dest: Path, entries: list[Entry] | None = None, *, url_base: str | None = None) -> Path:
    """Download ``entries`` (default: the whole registry) into ``dest`` with pooch, each checked
    against its sha256; files already there with the right hash are kept. ``url_base``
    replaces ``https://raw.githubusercontent.com`` (tests serve a mirror on 127.0.0.1).
    Raises RealDataUnavailable with a one-line reason."""
    import logging
    from urllib.parse import quote

    import pooch
    from filelock import FileLock

    logging.getLogger("pooch").setLevel(logging.WARNING)
    dest = Path(dest)
    dest.mkdir(parents=True, exist_ok=True)
    with FileLock(str(dest / ".download.lock")):  # parallel test workers fetch once
        for e in entries if entries is not None else registry():
            url = e.url if url_base is None else mirrored(e.url, url_base)
            head, _, tail = url.partition("://")
            url = head + "://" + quote(tail, safe="/:")  # '@' and ':' in Terminal-Bench folder names
            target = dest / e.path
            try:
                if e.archive:
                    _retrieve_archive(url, e, target)
                else:
                    pooch.retrieve(url, known_hash=f"sha256:{e.sha256}", fname=target.name, path=target.parent,
                                   progressbar=False)
            except ValueError as exc:  # pooch: hash mismatch
                first = str(exc).splitlines()[0]
                raise RealDataUnavailable(how_to_get(f"{e.path}: sha256 mismatch from {url}: {first}")) from None
            except Exception as exc:  # network: refused, timeout, HTTP error
                first = str(exc).splitlines()[0] if str(exc) else ""
                raise RealDataUnavailable(how_to_get(f"{e.path} from {url}: {type(exc).__name__}: {first}")) from None
    return dest


def mirrored(url: str, url_base: str) -> str:
    """``url`` on a mirror: raw files keep their path, archives go under ``/codeload``."""
    base = url_base.rstrip("/")
    if url.startswith(CODELOAD_BASE):
        return base + "/codeload" + url.removeprefix(CODELOAD_BASE)
    return base + url.removeprefix(RAW_BASE)


def tar_sha256(path: Path) -> str:
    """The sha256 of a .tar.gz's uncompressed bytes, read in blocks."""
    import gzip
    import hashlib

    digest = hashlib.sha256()
    with gzip.open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _retrieve_archive(url: str, entry: Entry, target: Path) -> None:
    """Download a repository tarball to ``target`` unless a copy with the pinned tar is there;
    ValueError (the same as pooch's hash mismatch) when the tar inside is not the pinned one."""
    import gzip
    import zlib

    import pooch

    def pinned(path: Path) -> bool:
        try:
            return tar_sha256(path) == entry.sha256
        except (OSError, EOFError, gzip.BadGzipFile, zlib.error):
            return False

    if target.is_file() and pinned(target):
        return
    target.unlink(missing_ok=True)
    part = target.with_name(target.name + ".part")
    part.unlink(missing_ok=True)
    pooch.retrieve(url, known_hash=None, fname=part.name, path=part.parent, progressbar=False)
    if not pinned(part):
        part.unlink(missing_ok=True)
        raise ValueError(f"the uncompressed tar does not have sha256 {entry.sha256}")
    part.replace(target)


def real_data_dir() -> Path:
    """``../shared/data`` when present, else the downloaded copy; raises RealDataUnavailable."""
    if SHARED_DATA.is_dir():
        return SHARED_DATA
    return fetch_real_data(cache_dir(), url_base=os.environ.get(MIRROR_ENV) or None)
