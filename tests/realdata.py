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
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SHARED_DATA = ROOT.parent / "shared" / "data"
REGISTRY = Path(__file__).resolve().parent / "data_registry.txt"
RAW_BASE = "https://raw.githubusercontent.com"
CACHE_ENV = "MODELBOARDS_TEST_DATA"
MIRROR_ENV = "MODELBOARDS_TEST_DATA_MIRROR"


class RealDataUnavailable(Exception):
    """The real files are not beside the clone and could not be downloaded (one-line message)."""


@dataclass(frozen=True)
class Entry:
    path: str  # relative to the data folder, POSIX
    sha256: str
    url: str


def registry(path: Path = REGISTRY) -> list[Entry]:
    """Every registered file, in registry order."""
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            rel, sha, url = line.split("\t")
            out.append(Entry(rel, sha, url))
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
            url = e.url if url_base is None else url_base.rstrip("/") + e.url.removeprefix(RAW_BASE)
            head, _, tail = url.partition("://")
            url = head + "://" + quote(tail, safe="/:")  # '@' and ':' in Terminal-Bench folder names
            target = dest / e.path
            try:
                pooch.retrieve(url, known_hash=f"sha256:{e.sha256}", fname=target.name, path=target.parent,
                               progressbar=False)
            except ValueError as exc:  # pooch: hash mismatch
                first = str(exc).splitlines()[0]
                raise RealDataUnavailable(how_to_get(f"{e.path}: sha256 mismatch from {url}: {first}")) from None
            except Exception as exc:  # network: refused, timeout, HTTP error
                first = str(exc).splitlines()[0] if str(exc) else ""
                raise RealDataUnavailable(how_to_get(f"{e.path} from {url}: {type(exc).__name__}: {first}")) from None
    return dest


def real_data_dir() -> Path:
    """``../shared/data`` when present, else the downloaded copy; raises RealDataUnavailable."""
    if SHARED_DATA.is_dir():
        return SHARED_DATA
    return fetch_real_data(cache_dir(), url_base=os.environ.get(MIRROR_ENV) or None)
