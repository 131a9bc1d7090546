"""Fetch every enabled source into the payload store (all network I/O of the build is here).

``fetch_all`` is the stage: for each enabled source it obtains a payload, checks that the
payload parses, and stores it with a status record (``builder.store``). Later stages read the
store only (``load_payloads``), so a build can be re-scored without the network.

Where a payload comes from:

* ``live=True``: the source's live URL, through its kind's fetch plan (below). A source
  without a URL fails with "no live URL configured"; ``--live`` never falls back to the
  recorded demo payloads.
* ``live=False``: the recorded payload bundled in the package (``SourceConfig.recorded``),
  copied into the store so later stages read one place.
* ``local: true`` sources and the ``metadata`` kind: the project's own file, in both modes.

Fetch plans, per kind:

* single-file kinds (lmarena, lmarena_catalog, epoch, aider, litellm, openrouter,
  piratebench): GET ``url``; the file is named after the URL's last path segment
  (OpenRouter's ``/api/v1/models`` is stored as ``models.json``).
* livebench: GET ``options.index_url`` (a GitHub contents-API listing), pick the latest
  ``table_YYYY_MM_DD.csv`` and the categories file of the same date (or else the latest one
  not newer than the table), GET both from ``url`` + file name.
* terminal_bench: GET ``url`` (a .tar.gz of the leaderboard repository at a pinned commit),
  read it in memory, keep ``results/**.json`` with the top folder stripped. Absolute
  member names, ``..`` components, links and special files are ignored, never extracted.

HTTP: one ``httpx.Client`` per run (User-Agent from ``fetch.user_agent``, redirects
followed), a timeout of ``source.timeout`` seconds per request, up to ``fetch.retries``
attempts per request with exponential backoff (``fetch.backoff`` seconds, doubling:
wait_n = backoff * 2**(n-1)) on connection errors, timeouts, incomplete bodies and 5xx
responses; 4xx responses and oversize bodies are not retried. The body is streamed and the
request aborted as soon as it exceeds ``source.max_bytes`` (a larger Content-Length aborts
before reading anything).

A failure of one source never stops the others and never touches its stored payload: its
status says failed, with the reason and the date of the payload kept. A stored payload is
used only in the mode it was fetched in (live or recorded), so a live run whose source fails
does not silently fall back to a demo payload copied by an earlier offline run.
"""

from __future__ import annotations

import contextlib
import io
import json
import logging
import re
import sys
import tarfile
import time
import zlib
from collections.abc import Callable, Iterator
from datetime import UTC, date, datetime
from pathlib import Path, PurePosixPath
from urllib.parse import urlsplit

import httpx
import tenacity

from builder.config import FetchSettings, SiteConfig, SourceConfig
from builder.errors import UserError
from builder.records import FetchStatus, Payload
from builder.store import (
    payload_digest,
    read_payload,
    read_payload_info,
    read_status,
    write_payload,
    write_status,
)

log = logging.getLogger(__name__)

SINGLE_FILE_KINDS = frozenset({"lmarena", "lmarena_catalog", "epoch", "aider", "litellm", "openrouter", "piratebench"})

# Indirection so tests can record the backoff delays instead of sleeping.
_sleep: Callable[[float], None] = time.sleep


class FetchError(Exception):
    """One source could not be fetched or its payload is unusable; the message is the reason.

    ``http_status`` is the HTTP status of the failing response (None when there was none),
    ``received`` the number of body bytes that arrived, ``retryable`` whether trying the same
    request again may help (connection errors, timeouts, 5xx).
    """

    def __init__(self, message: str, *, http_status: int | None = None, received: int = 0, retryable: bool = False):
        super().__init__(message)
        self.http_status = http_status
        self.received = received
        self.retryable = retryable


# --------------------------------------------------------------------------- HTTP


def make_client(settings: FetchSettings) -> httpx.Client:
    """The one HTTP client of a run (timeouts are given per request, per source)."""
    return httpx.Client(headers={"User-Agent": settings.user_agent}, follow_redirects=True)


def _get_once(client: httpx.Client, url: str, timeout: float, max_bytes: int) -> tuple[bytes, int]:
    """One GET, body streamed under the size cap; raises FetchError."""
    try:
        with client.stream("GET", url, timeout=timeout) as resp:
            code = resp.status_code
            if code >= 500:
                raise FetchError(f"HTTP {code} from {url}", http_status=code, retryable=True)
            if code >= 400 or not 200 <= code < 300:
                raise FetchError(f"HTTP {code} from {url}", http_status=code)
            length = resp.headers.get("content-length", "")
            if length.isdigit() and int(length) > max_bytes:
                raise FetchError(
                    f"response too large: Content-Length {int(length)} bytes exceeds the cap of {max_bytes} bytes "
                    f"({url})",
                    http_status=code,
                )
            body = bytearray()
            for chunk in resp.iter_bytes():
                body += chunk
                if len(body) > max_bytes:
                    raise FetchError(
                        f"response too large: more than the cap of {max_bytes} bytes, aborted ({url})",
                        http_status=code,
                        received=len(body),
                    )
            return bytes(body), code
    except httpx.TimeoutException as exc:
        raise FetchError(f"timed out after {timeout:g} s ({type(exc).__name__}) fetching {url}",
                         retryable=True) from exc
    except httpx.ConnectError as exc:
        raise FetchError(f"connection failed to {url}: {exc}", retryable=True) from exc
    except httpx.RemoteProtocolError as exc:
        raise FetchError(f"incomplete response (truncated body) from {url}: {exc}", retryable=True) from exc
    except httpx.TransportError as exc:
        raise FetchError(f"network error fetching {url}: {type(exc).__name__}: {exc}", retryable=True) from exc
    except httpx.HTTPError as exc:
        raise FetchError(f"HTTP error fetching {url}: {type(exc).__name__}: {exc}") from exc


def fetch_url(client: httpx.Client, url: str, *, timeout: float, max_bytes: int,
              settings: FetchSettings) -> tuple[bytes, int]:
    """GET ``url`` with retries and backoff; return ``(body, HTTP status)`` or raise FetchError."""
    retrying = tenacity.Retrying(
        stop=tenacity.stop_after_attempt(settings.retries),
        wait=tenacity.wait_exponential(multiplier=settings.backoff),
        retry=tenacity.retry_if_exception(lambda e: isinstance(e, FetchError) and e.retryable),
        sleep=lambda seconds: _sleep(seconds),
        before_sleep=lambda rs: log.info("retrying %s (attempt %d failed: %s)", url, rs.attempt_number,
                                         rs.outcome.exception() if rs.outcome else None),
    )
    try:
        return retrying(_get_once, client, url, timeout, max_bytes)
    except tenacity.RetryError as err:
        last = err.last_attempt.exception()
        assert isinstance(last, FetchError)
        raise FetchError(
            f"{last} (gave up after {settings.retries} attempts)",
            http_status=last.http_status,
            received=last.received,
        ) from last


# --------------------------------------------------------------------------- fetch plans


def single_file_name(source: SourceConfig) -> str:
    """The payload file name of a single-file source: the URL's last path segment."""
    if source.kind == "openrouter":
        return "models.json"
    assert source.url is not None
    name = PurePosixPath(urlsplit(source.url).path).name
    return name or f"{source.name}.dat"


_TABLE = re.compile(r"^table_(\d{4})_(\d{2})_(\d{2})\.csv$")
_CATEGORIES = re.compile(r"^categories_(\d{4})_(\d{2})_(\d{2})\.json$")


def _dated(names: list[str], pattern: re.Pattern[str]) -> list[tuple[date, str]]:
    out = []
    for name in names:
        m = pattern.match(name)
        if m:
            try:
                out.append((date(int(m[1]), int(m[2]), int(m[3])), name))
            except ValueError:
                continue
    return sorted(out)


def pick_livebench_files(names: list[str]) -> tuple[str, str]:
    """``(table, categories)`` file names of the latest LiveBench release in a listing.

    The latest ``table_YYYY_MM_DD.csv``; the categories file of the same date, or else the
    latest ``categories_YYYY_MM_DD.json`` not newer than the table. Raises FetchError.
    """
    tables = _dated(names, _TABLE)
    if not tables:
        raise FetchError("LiveBench index lists no table_YYYY_MM_DD.csv file")
    table_date, table = tables[-1]
    cats = [(d, n) for d, n in _dated(names, _CATEGORIES) if d <= table_date]
    if not cats:
        raise FetchError(f"LiveBench index lists no categories file dated on or before {table}")
    return table, cats[-1][1]


def _livebench_plan(client: httpx.Client, source: SourceConfig, settings: FetchSettings) -> tuple[dict[str, bytes],
                                                                                                  int]:
    index_url = source.options.get("index_url")
    if not index_url:
        raise FetchError("livebench needs options.index_url (the GitHub contents-API listing of its public/ folder)")
    assert source.url is not None
    body, _ = fetch_url(client, index_url, timeout=source.timeout, max_bytes=source.max_bytes, settings=settings)
    try:
        listing = json.loads(body)
        if not isinstance(listing, list):
            raise TypeError(f"expected a JSON list, got {type(listing).__name__}")
        names = [entry["name"] for entry in listing if isinstance(entry, dict) and isinstance(entry.get("name"), str)]
    except (ValueError, TypeError, KeyError) as exc:
        raise FetchError(f"unreadable LiveBench index {index_url}: {exc}", received=len(body)) from exc
    table, categories = pick_livebench_files(names)
    base = source.url if source.url.endswith("/") else source.url + "/"
    files: dict[str, bytes] = {}
    code = 200
    for name in (table, categories):
        files[name], code = fetch_url(client, base + name, timeout=source.timeout, max_bytes=source.max_bytes,
                                      settings=settings)
    return files, code


def extract_results(blob: bytes, max_bytes: int) -> dict[str, bytes]:
    """The ``results/**.json`` files of a repository tarball, keyed by repo-relative path.

    The tarball's top folder (``<repo>-<commit>/``) is stripped. Members that are not regular
    files (links, devices, folders), or whose names are absolute or contain ``..``, are
    skipped. The kept files may total at most ``max_bytes`` once decompressed.
    """
    files: dict[str, bytes] = {}
    total = 0
    try:
        with tarfile.open(fileobj=io.BytesIO(blob), mode="r:*") as tar:
            for member in tar:
                name = member.name
                parts = name.split("/")
                if name.startswith("/") or "\\" in name or ".." in parts:
                    log.warning("tarball member %r ignored: unsafe name", name)
                    continue
                if not member.isfile():
                    continue
                rel = PurePosixPath(*[p for p in parts if p not in ("", ".")][1:]) if len(parts) > 1 else None
                if rel is None or not rel.parts or rel.parts[0] != "results" or rel.suffix != ".json":
                    continue
                total += member.size
                if total > max_bytes:
                    raise FetchError(f"tarball results exceed the cap of {max_bytes} bytes once decompressed")
                fh = tar.extractfile(member)
                if fh is None:
                    continue
                files[rel.as_posix()] = fh.read()
    except (tarfile.TarError, EOFError, zlib.error, OSError) as exc:
        raise FetchError(f"unreadable tarball: {type(exc).__name__}: {exc}", received=len(blob)) from exc
    if not files:
        raise FetchError("tarball holds no results/**.json files", received=len(blob))
    return files


def _fetch_plan(client: httpx.Client, source: SourceConfig, settings: FetchSettings) -> tuple[dict[str, bytes], int]:
    """Run the kind's fetch plan: ``({file: bytes}, HTTP status of the last response)``."""
    if not source.url:
        raise FetchError("no live URL configured")
    if source.kind == "livebench":
        return _livebench_plan(client, source, settings)
    if source.kind == "terminal_bench":
        blob, code = fetch_url(client, source.url, timeout=source.timeout, max_bytes=source.max_bytes,
                               settings=settings)
        return extract_results(blob, source.max_bytes), code
    if source.kind in SINGLE_FILE_KINDS:
        body, code = fetch_url(client, source.url, timeout=source.timeout, max_bytes=source.max_bytes,
                               settings=settings)
        return {single_file_name(source): body}, code
    raise FetchError(f"kind {source.kind!r} has no live fetch plan (mark the source local: true)")


# --------------------------------------------------------------------------- recorded payloads

_DATE_IN_NAME = re.compile(r"(?<!\d)(\d{4})[-_](\d{2})[-_](\d{2})(?!\d)")


def _recorded_date(source: SourceConfig, files: dict[str, bytes], mtimes: list[float]) -> datetime:
    """The date of a recorded payload (see ``read_recorded``)."""
    if source.recorded_date is not None:
        d = source.recorded_date
        return datetime(d.year, d.month, d.day, tzinfo=UTC)
    if source.date is not None:
        return datetime(source.date.year, source.date.month, source.date.day, tzinfo=UTC)
    found = []
    for key in files:
        for m in _DATE_IN_NAME.finditer(key):
            try:
                found.append(date(int(m[1]), int(m[2]), int(m[3])))
            except ValueError:
                continue
    if found:
        d = max(found)
        return datetime(d.year, d.month, d.day, tzinfo=UTC)
    return datetime.fromtimestamp(max(mtimes), tz=UTC).replace(microsecond=0)


def read_recorded(source: SourceConfig, base: Path) -> Payload:
    """The recorded payload of ``source`` (``source.recorded_path(base)``); raises FetchError.

    A file gives ``{file name: bytes}``; a folder gives every file under it keyed by its
    relative POSIX path. ``fetched_at`` is deterministic where it can be: the source's
    ``recorded_date``, else its ``date`` hint if set, else the newest ``YYYY-MM-DD`` / ``YYYY_MM_DD`` date in the file
    names (LiveBench tables, Terminal-Bench run files), else the newest file modification
    time (UTC, whole seconds).
    """
    path = source.recorded_path(base)
    if path is None:
        raise FetchError("no recorded payload configured")
    files: dict[str, bytes] = {}
    mtimes: list[float] = []
    try:
        if path.is_file():
            files[path.name] = path.read_bytes()
            mtimes.append(path.stat().st_mtime)
        elif path.is_dir():
            for f in sorted(path.rglob("*")):
                if f.is_file():
                    files[f.relative_to(path).as_posix()] = f.read_bytes()
                    mtimes.append(f.stat().st_mtime)
        else:
            raise FetchError(f"recorded payload not found: {path}")
    except OSError as exc:
        raise FetchError(f"recorded payload unreadable: {path}: {exc.strerror or exc}") from exc
    if not files:
        raise FetchError(f"recorded payload folder is empty: {path}")
    return Payload(source=source.name, files=files, fetched_at=_recorded_date(source, files, mtimes), origin=str(path))


# --------------------------------------------------------------------------- payload check


def check_payload(payload: Payload, source: SourceConfig) -> None:
    """Raise FetchError("unparseable payload: ...") unless the kind's parser reads the payload.

    A ``UserError`` from the parser of a local source (the operator's own file, e.g. the
    curated metadata) propagates: it is the operator's mistake, reported as one line.
    """
    if not payload.files:
        raise FetchError("unparseable payload: no files")
    size = sum(len(b) for b in payload.files.values())
    try:
        from builder.sources import parse_payload

        parse_payload(payload, source)
    except UserError as exc:
        if _is_local(source):  # the operator's own file: one clear line, exit code 2
            raise
        raise FetchError(f"unparseable payload: {exc}", received=size) from exc
    except Exception as exc:  # the parser's verdict, whatever its exception type
        raise FetchError(f"unparseable payload: {type(exc).__name__}: {exc}", received=size) from exc


# --------------------------------------------------------------------------- the stage


def store_path(cfg: SiteConfig, base: Path) -> Path:
    """The payload store folder (``fetch.store``, relative to the site.yml folder)."""
    return base / cfg.fetch.store


def _is_local(source: SourceConfig) -> bool:
    return source.local or source.kind == "metadata"


def _usable(stored_live: bool, live: bool, source: SourceConfig) -> bool:
    """A stored payload serves a run of the same mode (local files serve both)."""
    return _is_local(source) or stored_live == live


def _fetch_one(
    client: httpx.Client, source: SourceConfig, settings: FetchSettings, base: Path, store_dir: Path, live: bool,
    now: datetime
) -> FetchStatus:
    local = _is_local(source)
    origin = source.url if (live and not local) else str(source.recorded_path(base) or "")
    code: int | None = None
    try:
        if live and not local:
            files, code = _fetch_plan(client, source, settings)
            payload = Payload(source=source.name, files=files, fetched_at=now, origin=origin or "")
        else:
            payload = read_recorded(source, base)
        check_payload(payload, source)
    except UserError:
        raise
    except Exception as exc:
        if isinstance(exc, FetchError):
            # an unparseable body still says which HTTP status delivered it
            error, received = str(exc), exc.received
            http_status = exc.http_status if exc.http_status is not None else code
        else:  # a bug must not stop the other sources; keep the traceback in the debug log
            log.debug("fetching %s failed", source.name, exc_info=True)
            error, http_status, received = f"{type(exc).__name__}: {exc}", None, 0
        kept = read_payload_info(store_dir, source.name)
        kept_at = kept.fetched_at if kept is not None and _usable(kept.live, live, source) else None
        status = FetchStatus(
            source=source.name, ok=False, http_status=http_status, error=error, bytes=received, sha256=None,
            fetched_at=now, payload_fetched_at=kept_at, origin=origin or "", live=live,
        )  # fmt: skip
        write_status(store_dir, status)
        log.warning("%s: failed: %s", source.name, error)
        return status
    nbytes, digest = payload_digest(payload.files)
    status = FetchStatus(
        source=source.name, ok=True, http_status=code, error=None, bytes=nbytes, sha256=digest,
        fetched_at=now, payload_fetched_at=payload.fetched_at, origin=payload.origin, live=live,
    )  # fmt: skip
    write_payload(store_dir, payload, status)
    return status


@contextlib.contextmanager
def _progress(enabled: bool, total: int) -> Iterator[Callable[[str, bool], None]]:
    """A rich progress bar on stderr when it is a terminal; a no-op otherwise."""
    if not (enabled and sys.stderr.isatty()):
        yield lambda name, started: None
        return
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    with Progress(
        TextColumn("fetch {task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
        console=Console(stderr=True), transient=False,
    ) as bar:  # fmt: skip
        task = bar.add_task("", total=total)

        def advance(name: str, started: bool) -> None:
            if started:
                bar.update(task, description=name)
            else:
                bar.advance(task)

        yield advance
        bar.update(task, description="done")


def fetch_all(cfg: SiteConfig, base: Path, *, live: bool, progress: bool,
              now: datetime | None = None) -> list[FetchStatus]:
    """Fetch every enabled source into the store; return their statuses in config order.

    ``base`` is the folder of site.yml (the store and config-relative recorded paths are
    resolved from it). ``now`` fixes the attempt time (UTC) for reproducible tests.
    """
    store_dir = store_path(cfg, base)
    store_dir.mkdir(parents=True, exist_ok=True)
    sources = [s for s in cfg.sources if s.enabled]
    # The operator's own files first: a mistake in one of them (exit 2) stops the run
    # before anything upstream has been written to the store.
    order = sorted(sources, key=lambda s: not _is_local(s))
    by_name: dict[str, FetchStatus] = {}
    with make_client(cfg.fetch) as client, _progress(progress, len(sources)) as advance:
        for source in order:
            advance(source.name, True)
            attempt_at = now or datetime.now(UTC)
            by_name[source.name] = _fetch_one(client, source, cfg.fetch, base, store_dir, live, attempt_at)
            advance(source.name, False)
    return [by_name[s.name] for s in sources]


def load_payloads(cfg: SiteConfig, base: Path) -> dict[str, tuple[Payload | None, FetchStatus | None]]:
    """For every enabled source: ``(payload in use or None, status of the latest fetch or None)``.

    Reads the store only. The payload in use is the last good one stored, provided it was
    fetched in the mode of the latest attempt (live or recorded; local files in both).
    """
    store_dir = store_path(cfg, base)
    out: dict[str, tuple[Payload | None, FetchStatus | None]] = {}
    for source in cfg.sources:
        if not source.enabled:
            continue
        status = read_status(store_dir, source.name)
        info = read_payload_info(store_dir, source.name)
        payload = None
        if info is not None and (status is None or _usable(info.live, status.live, source)):
            payload = read_payload(store_dir, source.name)
        out[source.name] = (payload, status)
    return out


def format_status_table(statuses: list[FetchStatus]) -> str:
    """A plain-text table of fetch statuses, one row per source, for the CLI to print."""
    header = ("source", "status", "http", "bytes", "sha256", "payload date", "error")
    rows = [header]
    for s in statuses:
        rows.append((
            s.source,
            ("ok" if s.ok else "FAILED") + (" (live)" if s.live else ""),
            str(s.http_status) if s.http_status is not None else "-",
            f"{s.bytes:,}" if s.ok else "-",
            s.sha256[:12] if s.sha256 else "-",
            s.payload_fetched_at.date().isoformat() if s.payload_fetched_at else "none",
            s.error or "",
        ))  # fmt: skip
    widths = [max(len(r[i]) for r in rows) for i in range(len(header) - 1)]
    lines = []
    for r in rows:
        cells = [r[i].ljust(widths[i]) for i in range(len(widths))] + [r[-1]]
        lines.append("  ".join(cells).rstrip())
    n_failed = sum(not s.ok for s in statuses)
    lines.append(f"{len(statuses) - n_failed} ok, {n_failed} failed")
    return "\n".join(lines)
