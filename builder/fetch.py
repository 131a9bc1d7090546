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
* ``local: true`` sources and kinds whose fetch plan is ``local`` (the curated metadata): the
  project's own file, in both modes.

Fetch plans: each kind declares its plan in ``builder.sources.registry`` (``FetchPlan``):

* ``file`` (lmarena, lmarena_catalog, modelsdev, epoch, aider, litellm, openrouter, piratebench,
  table):
  GET ``url``; the file is named by the plan's ``file_name`` (OpenRouter's ``/api/v1/models``
  is stored as ``models.json``), else after the URL's last path segment.
* ``index`` (livebench): GET ``options.index_url`` (a GitHub contents-API listing), let the
  kind pick the file names from it (LiveBench: the latest ``table_YYYY_MM_DD.csv`` and the
  categories file of the same date, or else the latest one not newer than the table), GET
  each from ``url`` + file name.
* ``tarball`` (terminal_bench): GET ``url`` (a .tar.gz of the leaderboard repository at a
  pinned commit), read it in memory, keep ``results/**.json`` with the top folder stripped.
  Absolute member names, ``..`` components, links and special files are ignored, never extracted.

HTTP: one ``httpx.Client`` per run (User-Agent from ``fetch.user_agent``), an idle timeout
of ``source.timeout`` seconds (to connect, and between two reads) and a total deadline of
``source.deadline`` seconds per download (connect, headers and the whole body: a server
that drips one byte at a time is cut off there), up to ``fetch.retries`` attempts per request
with exponential backoff (``fetch.backoff`` seconds, doubling: wait_n = backoff * 2**(n-1))
on connection errors, idle timeouts, incomplete bodies and 5xx responses; 4xx responses,
oversize bodies, refused redirects and downloads cut off by the deadline are not retried.
The body is streamed and the request aborted as soon as it exceeds ``source.max_bytes``
after content decoding (a larger Content-Length aborts before reading anything; a gzip bomb
stops at the cap).

The upstream sources are fetched ``fetch.concurrency`` at once (the operator's own local
files first, one by one), all under one build-wide budget of ``fetch.budget`` seconds: no
download's deadline, retries included, runs past it, and a source not started when it is
spent fails with that reason, so slow upstreams cannot hold a build longer than the budget.

Redirects are followed by hand, at most ``MAX_REDIRECTS``, and only to the URL's own host or
to a host listed in ``source.redirect_hosts``, never from https down to http; the final URL
is what the payload's ``origin`` records. Requests to ``https://api.github.com`` carry the
``GITHUB_TOKEN`` environment variable as a bearer token when it is set (GitHub limits
anonymous API calls to 60 an hour per address); no other host ever sees it.

Plausibility: a payload is accepted only if its kind's parser reads it *and* it yields at
least ``source.min_records`` usable records (``builder.sources.plausible``), so an empty
``{}``, ``[]`` or header-only CSV from a broken upstream job fails the source instead of
replacing its last good payload.

Dry run: a payload that parses and is plausible is accepted only if ``dry_run`` (given by the
pipeline) finds nothing a later stage would refuse in its records (``builder.pipeline.dry_run``:
the snapshot's own models and their JSON encoding); else the source fails with that reason.

A failure of one source never stops the others and never touches its stored payload: its
status says failed, with the reason and the date of the payload kept. A stored payload is
used only in the mode it was fetched in (live or recorded), so a live run whose source fails
does not silently fall back to a demo payload copied by an earlier offline run.
"""

from __future__ import annotations

import contextlib
import contextvars
import io
import json
import logging
import os
import re
import socket
import sys
import tarfile
import threading
import time
import zlib
from collections.abc import Callable, Iterator
from datetime import UTC, date, datetime
from pathlib import Path, PurePosixPath
from typing import Any
from urllib.parse import quote, urljoin, urlsplit

import httpx
import tenacity

from builder.config import FetchSettings, LimitsConfig, SiteConfig, SourceConfig
from builder.errors import UserError
from builder.records import NOT_CONFIGURED_LIVE, FetchStatus, ParseResult, Payload
from builder.sources.registry import FetchPlan, kind_of, spec_or_none
from builder.store import (
    payload_digest,
    read_payload,
    read_payload_info,
    read_status,
    store_path,
    write_payload,
    write_status,
)

log = logging.getLogger(__name__)

# Indirection so tests can record the backoff delays instead of sleeping.
_sleep: Callable[[float], None] = time.sleep

DryRun = Callable[[ParseResult, SourceConfig], str | None]
"""The later stages' own checks of one source's checked parse result, run before its payload is
accepted: why a later stage could not use it (one line naming the stage), or None. The pipeline
passes ``builder.pipeline.dry_run`` (fetch sits below scoring and may not call it itself)."""


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

MAX_REDIRECTS = 5
REDIRECT_CODES = frozenset({301, 302, 303, 307, 308})
GITHUB_API_HOST = "api.github.com"
TOKEN_ENV = "GITHUB_TOKEN"


def make_client(settings: FetchSettings, transport: httpx.BaseTransport | None = None) -> httpx.Client:
    """The one HTTP client of a run (timeouts are given per request, per source).

    Redirects are not followed by httpx (``open_stream`` follows the allowed ones); no
    connection is kept alive, so every request opens its own socket and the total deadline
    can always reach it.
    """
    return httpx.Client(
        headers={"User-Agent": settings.user_agent, "Accept-Encoding": "gzip, deflate"},  # what ContentDecoder reads
        follow_redirects=False, transport=transport,
        limits=httpx.Limits(max_keepalive_connections=0),
    )  # fmt: skip


def auth_headers(url: str) -> dict[str, str]:
    """``Authorization`` for a request to the GitHub API over https when ``GITHUB_TOKEN`` is set; else none."""
    token = os.environ.get(TOKEN_ENV, "").strip()
    parts = urlsplit(url)
    if token and parts.scheme == "https" and (parts.hostname or "").lower() == GITHUB_API_HOST:
        return {"Authorization": f"Bearer {token}"}
    return {}


_BUDGET_END: contextvars.ContextVar[float | None] = contextvars.ContextVar("fetch_budget_end", default=None)
"""When the build-wide fetch budget ends (``time.monotonic()``), in the thread fetching a source: no
download's deadline runs past it, retries included."""


class Deadline:
    """The total time one download may take. ``trace`` (an httpcore trace hook) remembers the
    sockets the request opens; when the time is up a timer shuts them down, which ends any
    read in progress, however slowly the server drips bytes or headers."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        start = time.monotonic()
        self.end = start + seconds
        budget_end = _BUDGET_END.get()
        self.budget = budget_end is not None and budget_end < self.end  # the build-wide budget ends first
        if budget_end is not None and self.budget:
            self.end = budget_end
        self.expired = False
        self._sockets: list[socket.socket] = []
        self._lock = threading.Lock()
        self._timer = threading.Timer(max(0.0, self.end - start), self._expire)
        self._timer.daemon = True

    def __enter__(self) -> Deadline:
        self._timer.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._timer.cancel()

    def remaining(self) -> float:
        return self.end - time.monotonic()

    def timeout(self, idle: float) -> httpx.Timeout:
        """Per-request timeouts: the idle timeout, never beyond the deadline."""
        return httpx.Timeout(max(0.001, min(idle, self.remaining())))

    def check(self, url: str) -> None:
        if self.expired or self.remaining() <= 0:
            self.expired = True
            raise self.error(url)

    def error(self, url: str) -> FetchError:
        if self.budget:
            return FetchError(f"the build-wide fetch budget (fetch.budget) ran out fetching {url} (servers too slow)")
        return FetchError(f"exceeded the total deadline of {self.seconds:g} s fetching {url} (server too slow)")

    def trace(self, name: str, info: dict[str, Any]) -> None:
        if name not in ("connection.connect_tcp.complete", "connection.connect_unix_socket.complete"):
            return
        stream = info.get("return_value")
        sock = stream.get_extra_info("socket") if stream is not None else None
        if isinstance(sock, socket.socket):
            with self._lock:
                self._sockets.append(sock)
                if self.expired:
                    _shutdown(sock)

    def _expire(self) -> None:
        with self._lock:
            self.expired = True
            for sock in self._sockets:
                _shutdown(sock)


def _shutdown(sock: socket.socket) -> None:
    with contextlib.suppress(OSError):
        sock.shutdown(socket.SHUT_RDWR)


def check_redirect(start: str, current: str, target: str, allowed_hosts: list[str] | tuple[str, ...]) -> None:
    """Raise FetchError unless a redirect from ``current`` to ``target`` may be followed: an
    http(s) URL on the starting URL's own host or a listed one, never https -> http."""
    t, c = urlsplit(target), urlsplit(current)
    if t.scheme not in ("http", "https") or not t.hostname:
        raise FetchError(f"redirect to a non-http(s) URL refused: {target!r} (from {current})")
    if c.scheme == "https" and t.scheme == "http":
        raise FetchError(f"redirect from https to plain http refused: {target} (from {current})")
    host = t.hostname.lower()
    own = (urlsplit(start).hostname or "").lower()
    if host != own and host not in {h.lower() for h in allowed_hosts}:
        raise FetchError(
            f"redirect to another host refused: {target} (from {current}); "
            f"list {host!r} in the source's redirect_hosts to allow it"
        )


@contextlib.contextmanager
def open_stream(
    client: httpx.Client, url: str, *, timeout: float, deadline: Deadline,
    allowed_hosts: list[str] | tuple[str, ...] = (), headers: dict[str, str] | None = None,
) -> Iterator[tuple[httpx.Response, str]]:
    """GET ``url``, following allowed redirects; yields ``(response, final URL)``, body unread.

    Raises FetchError for a refused redirect or too many of them; httpx errors pass through.
    """
    current = url
    for _ in range(MAX_REDIRECTS + 1):
        deadline.check(current)
        with client.stream(
            "GET", current, timeout=deadline.timeout(timeout), headers={**(headers or {}), **auth_headers(current)},
            extensions={"trace": deadline.trace},
        ) as resp:  # fmt: skip
            location = resp.headers.get("location")
            if resp.status_code in REDIRECT_CODES and location:
                target = urljoin(current, location)
                check_redirect(url, current, target, allowed_hosts)
                current = target
                continue
            yield resp, current
            return
    raise FetchError(f"too many redirects (more than {MAX_REDIRECTS}) from {url}")


def _get_once(
    client: httpx.Client, url: str, timeout: float, max_bytes: int, deadline_s: float = 300.0,
    allowed_hosts: list[str] | tuple[str, ...] = (),
) -> tuple[bytes, int, str]:
    """One GET, redirects checked, body streamed under the size cap and the total deadline;
    returns ``(body, HTTP status, final URL)``; raises FetchError."""
    deadline = Deadline(deadline_s)
    try:
        with deadline, open_stream(client, url, timeout=timeout, deadline=deadline, allowed_hosts=allowed_hosts) as (
            resp, final,
        ):  # fmt: skip
            code = resp.status_code
            if code >= 500:
                raise FetchError(f"HTTP {code} from {final}", http_status=code, retryable=True)
            if code >= 400 or not 200 <= code < 300:
                raise FetchError(f"HTTP {code} from {final}", http_status=code)
            length = resp.headers.get("content-length", "")
            if length.isdigit() and int(length) > max_bytes:
                raise FetchError(
                    f"response too large: Content-Length {int(length)} bytes exceeds the cap of {max_bytes} bytes "
                    f"({final})",
                    http_status=code,
                )
            body = bytearray()
            decoder = ContentDecoder(resp.headers.get("content-encoding", ""), final)
            # (a response built in memory, as by httpx.MockTransport, has its body already read)
            for raw in [resp.content] if resp.is_stream_consumed else resp.iter_raw():
                chunk, overflow = decoder.feed(raw, max_bytes - len(body) + 1)
                body += chunk
                if overflow or len(body) > max_bytes:
                    raise FetchError(
                        f"response too large: more than the cap of {max_bytes} bytes, aborted ({final})",
                        http_status=code,
                        received=len(body),
                    )
                deadline.check(final)
            deadline.check(final)
            return bytes(body), code, final
    except httpx.HTTPError as exc:
        if deadline.expired:
            raise deadline.error(url) from exc
        raise _transport_error(exc, url, timeout) from exc


class ContentDecoder:
    """Undo the response's Content-Encoding (gzip or deflate) with bounded output: ``feed``
    never returns more than the room left under the size cap, so a gzip bomb costs memory
    up to the cap, never its expanded size (httpx's own decoder expands a whole chunk)."""

    def __init__(self, encoding: str, url: str) -> None:
        coding = encoding.strip().lower()
        if coding in ("", "identity"):
            self._d = None
        elif coding in ("gzip", "x-gzip"):
            self._d = zlib.decompressobj(16 + zlib.MAX_WBITS)
        elif coding == "deflate":
            self._d = zlib.decompressobj(zlib.MAX_WBITS)
        else:
            raise FetchError(f"unsupported Content-Encoding {encoding!r} from {url}")
        self.url = url

    def feed(self, data: bytes, room: int) -> tuple[bytes, bool]:
        """``(decoded bytes, True when more than room would come out)``."""
        if self._d is None:
            return data[:room], len(data) > room
        try:
            out = self._d.decompress(data, max(1, room))
        except zlib.error as exc:
            raise FetchError(f"corrupt compressed body from {self.url}: {exc}") from exc
        return out, bool(self._d.unconsumed_tail) or len(out) > room


def _transport_error(exc: httpx.HTTPError, url: str, timeout: float) -> FetchError:
    """The FetchError for an httpx error (all retryable but protocol misuse)."""
    if isinstance(exc, httpx.TimeoutException):
        return FetchError(f"timed out after {timeout:g} s ({type(exc).__name__}) fetching {url}", retryable=True)
    if isinstance(exc, httpx.ConnectError):
        return FetchError(f"connection failed to {url}: {exc}", retryable=True)
    if isinstance(exc, httpx.RemoteProtocolError):
        return FetchError(f"incomplete response (truncated body) from {url}: {exc}", retryable=True)
    if isinstance(exc, httpx.TransportError):
        return FetchError(f"network error fetching {url}: {type(exc).__name__}: {exc}", retryable=True)
    return FetchError(f"HTTP error fetching {url}: {type(exc).__name__}: {exc}")


def fetch_url(
    client: httpx.Client, url: str, *, timeout: float, max_bytes: int, settings: FetchSettings,
    deadline: float = 300.0, allowed_hosts: list[str] | tuple[str, ...] = (),
) -> tuple[bytes, int, str]:
    """GET ``url`` with retries and backoff; return ``(body, HTTP status, final URL)`` or raise FetchError."""
    retrying = tenacity.Retrying(
        stop=tenacity.stop_after_attempt(settings.retries),
        wait=tenacity.wait_exponential(multiplier=settings.backoff),
        retry=tenacity.retry_if_exception(lambda e: isinstance(e, FetchError) and e.retryable),
        sleep=lambda seconds: _sleep(seconds),
        before_sleep=lambda rs: log.info("retrying %s (attempt %d failed: %s)", url, rs.attempt_number,
                                         rs.outcome.exception() if rs.outcome else None),
    )
    try:
        return retrying(_get_once, client, url, timeout, max_bytes, deadline, allowed_hosts)
    except tenacity.RetryError as err:
        last = err.last_attempt.exception()
        assert isinstance(last, FetchError)
        raise FetchError(
            f"{last} (gave up after {settings.retries} attempts)",
            http_status=last.http_status,
            received=last.received,
        ) from last


def _fetch_source_url(
    client: httpx.Client, source: SourceConfig, url: str, settings: FetchSettings
) -> tuple[bytes, int, str]:
    """``fetch_url`` with the source's timeout, deadline, size cap and allowed redirect hosts."""
    return fetch_url(client, url, timeout=source.timeout, max_bytes=source.max_bytes, settings=settings,
                     deadline=source.deadline, allowed_hosts=source.redirect_hosts)


# --------------------------------------------------------------------------- fetch plans


def single_file_name(source: SourceConfig) -> str:
    """The payload file name of a single-file source: its plan's ``file_name``, else the URL's last path segment."""
    name = kind_of(source).fetch.file_name
    if name:
        return name
    assert source.url is not None
    return PurePosixPath(urlsplit(source.url).path).name or f"{source.name}.dat"


def _index_plan(
    client: httpx.Client, source: SourceConfig, settings: FetchSettings, plan: FetchPlan
) -> tuple[dict[str, bytes], int, str]:
    """GET the listing at ``options[plan.index_option]``, let the kind pick file names, GET each from ``url``."""
    index_url = source.options.get(plan.index_option)
    if not index_url:
        raise FetchError(f"{source.kind} needs options.{plan.index_option} "
                         "(the GitHub contents-API listing of its folder)")
    assert source.url is not None and plan.pick is not None
    body, _, _ = _fetch_source_url(client, source, index_url, settings)
    try:
        listing = json.loads(body)
        if not isinstance(listing, list):
            raise TypeError(f"expected a JSON list, got {type(listing).__name__}")
        names = [entry["name"] for entry in listing if isinstance(entry, dict) and isinstance(entry.get("name"), str)]
    except (ValueError, TypeError, KeyError) as exc:
        raise FetchError(f"unreadable {source.kind} index {index_url}: {exc}", received=len(body)) from exc
    try:
        wanted = plan.pick(names)
    except ValueError as exc:
        raise FetchError(str(exc)) from exc
    base = source.url if source.url.endswith("/") else source.url + "/"
    files: dict[str, bytes] = {}
    code, final = 200, base
    for name in wanted:
        files[name], code, final = _fetch_source_url(client, source, base + name, settings)
    return files, code, final


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


def _fetch_plan(
    client: httpx.Client, source: SourceConfig, settings: FetchSettings
) -> tuple[dict[str, bytes], int, str]:
    """Run the kind's fetch plan: ``({file: bytes}, HTTP status of the last response, its final URL)``."""
    if not source.url:
        raise FetchError("no live URL configured")
    plan = kind_of(source).fetch
    if plan.shape == "index":
        return _index_plan(client, source, settings, plan)
    if plan.shape == "tarball":
        blob, code, final = _fetch_source_url(client, source, source.url, settings)
        return extract_results(blob, source.max_bytes), code, final
    if plan.shape == "file":
        body, code, final = _fetch_source_url(client, source, source.url, settings)
        return {single_file_name(source): body}, code, final
    raise FetchError(f"kind {source.kind!r} has no live fetch plan (mark the source local: true)")


# --------------------------------------------------------------------------- publication dates

_RAW_GITHUB = re.compile(r"^https://raw\.githubusercontent\.com/([^/]+/[^/]+)/[^/]+/(.+)$")
COMMIT_DATE_MAX_BYTES = 1_000_000


def upstream_file(source: SourceConfig) -> tuple[str, str] | None:
    """``(owner/repo, path)`` of the GitHub file a source's payload is: ``upstream_file`` when
    set, else read from a raw.githubusercontent.com URL; None when neither says."""
    if source.upstream_file:
        repo, _, path = source.upstream_file.partition(":")
        return repo, path
    m = _RAW_GITHUB.match(source.url or "")
    return (m[1], m[2]) if m else None


def fetch_commit_date(client: httpx.Client, source: SourceConfig, settings: FetchSettings) -> date | None:
    """The date (UTC) of the last upstream commit of the source's file, from GitHub's commits
    API (``GET {github_api}/repos/{owner}/{repo}/commits?path=P&per_page=1``); None when the
    file is not on GitHub or the API does not answer (the date then shows as unknown).

    It dates payloads that carry no date of their own: the day a file was published, never
    the day it was fetched. One small request, under the source's timeouts."""
    target = upstream_file(source)
    if target is None or target[1].endswith("/"):  # a folder: its files carry their own dates
        return None
    repo, path = target
    url = f"{settings.github_api.rstrip('/')}/repos/{repo}/commits?path={quote(path, safe='/')}&per_page=1"
    try:
        body, _, _ = fetch_url(client, url, timeout=source.timeout, max_bytes=COMMIT_DATE_MAX_BYTES,
                               settings=settings, deadline=min(source.deadline, 60.0))
        rows = json.loads(body)
        when = rows[0]["commit"]["committer"]["date"]
        return datetime.fromisoformat(str(when).replace("Z", "+00:00")).astimezone(UTC).date()
    except (FetchError, ValueError, KeyError, IndexError, TypeError) as exc:
        log.info("%s: no upstream commit date (%s): the publication date stays unknown", source.name, exc)
        return None


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
    time (UTC, whole seconds). ``published`` is that day: a recording is dated by what it records.
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
    at = _recorded_date(source, files, mtimes)
    return Payload(source=source.name, files=files, fetched_at=at, origin=str(path), published=at.date())


# --------------------------------------------------------------------------- payload check


def check_payload(payload: Payload, source: SourceConfig, limits: LimitsConfig | None = None) -> ParseResult:
    """Raise FetchError("unparseable payload: ...") unless the kind's parser reads the payload,
    or FetchError("implausible payload: ...") unless it yields ``source.min_records`` usable records.

    A ``UserError`` from the parser of a local source (the operator's own file, e.g. the
    curated metadata) propagates: it is the operator's mistake, reported as one line.
    """
    if not payload.files:
        raise FetchError("unparseable payload: no files")
    size = sum(len(b) for b in payload.files.values())
    try:
        from builder.sources import parse_payload

        result = parse_payload(payload, source, limits)
    except UserError as exc:
        if _is_local(source):  # the operator's own file: one clear line, exit code 2
            raise
        raise FetchError(f"unparseable payload: {exc}", received=size) from exc
    except Exception as exc:  # the parser's verdict, whatever its exception type
        raise FetchError(f"unparseable payload: {type(exc).__name__}: {exc}", received=size) from exc
    if not _is_local(source):  # the operator's own file may be as short as they like
        from builder.sources.plausible import check_plausible

        problem = check_plausible(result, source)
        if problem is not None:
            raise FetchError(f"implausible payload: {problem}", received=size)
    return result


# --------------------------------------------------------------------------- the stage


def _is_local(source: SourceConfig) -> bool:
    spec = spec_or_none(source)
    return source.local or (spec is not None and spec.local)


def _usable(stored_live: bool, live: bool, source: SourceConfig) -> bool:
    """A stored payload serves a run of the same mode (local files serve both)."""
    return _is_local(source) or stored_live == live


def _fetch_one(
    client: httpx.Client, source: SourceConfig, settings: FetchSettings, base: Path, store_dir: Path, live: bool,
    now: datetime, limits: LimitsConfig | None = None, dry_run: DryRun | None = None
) -> FetchStatus:
    local = _is_local(source)
    origin = source.url if (live and not local) else str(source.recorded_path(base) or "")
    code: int | None = None
    if live and not local and not source.url:
        # a setting, not a failure: nothing to fetch, nothing to warn about on every build
        status = FetchStatus(source=source.name, ok=False, http_status=None, error=NOT_CONFIGURED_LIVE, bytes=0,
                             sha256=None, fetched_at=now, payload_fetched_at=None, origin="", live=True)
        try:
            write_status(store_dir, status)
        except OSError as exc:  # a store that is a plain file: nothing was to be fetched anyway
            log.warning("%s: cannot write the status: %s", source.name, exc)
        log.info("%s: %s", source.name, NOT_CONFIGURED_LIVE)
        return status
    try:
        if live and not local:
            files, code, origin = _fetch_plan(client, source, settings)
            # dated by its upstream commit, never by today (parsers prefer a date inside the payload)
            payload = Payload(source=source.name, files=files, fetched_at=now, origin=origin,
                              published=fetch_commit_date(client, source, settings))
        else:
            payload = read_recorded(source, base)
        result = check_payload(payload, source, limits)
        problem = dry_run(result, source) if dry_run is not None else None
        if problem is not None:  # a later stage would refuse it: the last good payload stays
            raise FetchError(problem, received=sum(len(b) for b in payload.files.values()))
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
        error = " ".join(error.split())  # one line, whatever the server or a library said
        kept = None
        with contextlib.suppress(OSError):
            kept = read_payload_info(store_dir, source.name)
        kept_at = kept.fetched_at if kept is not None and _usable(kept.live, live, source) else None
        status = FetchStatus(
            source=source.name, ok=False, http_status=http_status, error=error, bytes=received, sha256=None,
            fetched_at=now, payload_fetched_at=kept_at, origin=origin or "", live=live,
        )  # fmt: skip
        try:
            write_status(store_dir, status)
        except OSError as exc:  # a store that cannot be written: the status of this run only
            log.warning("%s: cannot write the status: %s", source.name, exc)
        log.warning("%s: failed: %s", source.name, error)
        return status
    nbytes, digest = payload_digest(payload.files)
    status = FetchStatus(
        source=source.name, ok=True, http_status=code, error=None, bytes=nbytes, sha256=digest,
        fetched_at=now, payload_fetched_at=payload.fetched_at, origin=payload.origin, live=live,
    )  # fmt: skip
    try:
        write_payload(store_dir, payload, status)
    except OSError as exc:  # a full disk, a store (or its source folder) that is a plain file
        where = exc.filename or store_dir / source.name
        return _fail(source, store_dir, live, now, f"cannot store the payload: {where}: {exc.strerror or exc}")
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
              now: datetime | None = None, dry_run: DryRun | None = None) -> list[FetchStatus]:
    """Fetch every enabled source into the store; return their statuses in config order.

    ``base`` is the folder of site.yml (the store and config-relative recorded paths are
    resolved from it). ``now`` fixes the attempt time (UTC) for reproducible tests.
    ``dry_run`` checks each new payload's records against the later stages before it is stored.
    """
    store_dir = store_path(cfg, base)
    with contextlib.suppress(OSError):  # a store that cannot be made fails each source with the path
        store_dir.mkdir(parents=True, exist_ok=True)
    sources = [s for s in cfg.sources if s.enabled]
    # The operator's own files first, one by one: a mistake in one of them (exit 2) stops the
    # run before anything upstream has been written to the store. Then the upstream sources,
    # ``fetch.concurrency`` at once, all under one build-wide budget (``fetch.budget``).
    local = [s for s in sources if _is_local(s)]
    remote = [s for s in sources if not _is_local(s)]
    by_name: dict[str, FetchStatus] = {}
    budget = Budget(cfg.fetch.budget)
    with make_client(cfg.fetch) as client, _progress(progress, len(sources)) as advance:

        def one(source: SourceConfig) -> FetchStatus:
            advance(source.name, True)
            attempt_at = now or datetime.now(UTC)
            token = _BUDGET_END.set(budget.end if live and not _is_local(source) else None)
            try:
                if live and not _is_local(source) and budget.remaining() <= 0:
                    return _fail(source, store_dir, live, attempt_at, budget.spent_error())
                return _fetch_one(client, source, cfg.fetch, base, store_dir, live, attempt_at, cfg.limits,
                                  dry_run)
            finally:
                _BUDGET_END.reset(token)
                advance(source.name, False)

        for source in local:
            by_name[source.name] = one(source)
        if remote:
            import concurrent.futures as cf

            with cf.ThreadPoolExecutor(max_workers=min(cfg.fetch.concurrency, len(remote)),
                                       thread_name_prefix="fetch") as pool:
                for source, status in zip(remote, pool.map(one, remote), strict=True):
                    by_name[source.name] = status
    return [by_name[s.name] for s in sources]


class Budget:
    """The build-wide fetch budget: seconds left for all sources' downloads together."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.end = time.monotonic() + seconds

    def remaining(self) -> float:
        return self.end - time.monotonic()

    def spent_error(self) -> str:
        return (f"not fetched: the build-wide fetch budget (fetch.budget = {self.seconds:g} s) was spent "
                "by the other sources; the last good payload stays")


def _fail(source: SourceConfig, store_dir: Path, live: bool, now: datetime, error: str) -> FetchStatus:
    """A failed attempt's status (written to the store when it can be), the stored payload kept."""
    kept = None
    with contextlib.suppress(OSError):
        kept = read_payload_info(store_dir, source.name)
    kept_at = kept.fetched_at if kept is not None and _usable(kept.live, live, source) else None
    origin = source.url or "" if live else str(source.recorded or "")
    status = FetchStatus(source=source.name, ok=False, http_status=None, error=error, bytes=0, sha256=None,
                         fetched_at=now, payload_fetched_at=kept_at, origin=origin, live=live)
    try:
        write_status(store_dir, status)
    except OSError as exc:
        log.warning("%s: cannot write the status: %s", source.name, exc)
    log.warning("%s: failed: %s", source.name, error)
    return status


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
            ("ok" if s.ok else "not configured" if s.error == NOT_CONFIGURED_LIVE else "FAILED")
            + (" (live)" if s.live else ""),
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
    n_off = sum(s.error == NOT_CONFIGURED_LIVE for s in statuses)
    n_failed = sum(not s.ok for s in statuses) - n_off
    lines.append(f"{len(statuses) - n_failed - n_off} ok, {n_failed} failed"
                 + (f", {n_off} not configured for live builds" if n_off else ""))
    return "\n".join(lines)
