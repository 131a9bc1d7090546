"""The ``--site`` HTTP client: a published site's ``api/v1`` files over HTTPS, cached.

Rules:

- HTTPS only; plain HTTP is accepted for 127.0.0.1 alone (a local copy, for tests). The rule
  is checked on every request, redirects included, so a redirect cannot downgrade it;
- the same timeout and size cap per response as ``builder.fetch`` uses for a source (the
  ``SourceConfig`` defaults): the body is streamed and the request aborted past the cap;
- every response is kept with its ``ETag`` and ``Last-Modified``; asking again sends
  ``If-None-Match`` / ``If-Modified-Since``, and a 304 answers from the cache.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from urllib.parse import urljoin, urlsplit

import httpx

from builder.config import FetchSettings, SourceConfig
from builder.errors import UserError

TIMEOUT_S: float = SourceConfig.model_fields["timeout"].default
MAX_BYTES: int = SourceConfig.model_fields["max_bytes"].default
LOCAL_HTTP_HOSTS = frozenset({"127.0.0.1"})


class SiteError(Exception):
    """A request to the site failed; the message says which URL and why."""


def allowed_url(url: str) -> bool:
    """HTTPS with a host, or HTTP to 127.0.0.1."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return False
    if not parts.hostname:
        return False
    if parts.scheme == "https":
        return True
    return parts.scheme == "http" and parts.hostname in LOCAL_HTTP_HOSTS


def normalise_site_url(url: str) -> str:
    """The site root for ``--site`` (ending in '/'); a URL of ``api/v1/`` or its index is cut back
    to the root. A ``UserError`` for anything but HTTPS (or HTTP to 127.0.0.1)."""
    if not allowed_url(url):
        raise UserError(f"--site: must be an https:// URL (http:// only for 127.0.0.1), got {url!r}")
    parts = urlsplit(url)
    path = parts.path or "/"
    for tail in ("api/v1/index.json", "api/v1/", "api/v1"):
        if path.endswith(tail):
            path = path[: -len(tail)]
            break
    if not path.endswith("/"):
        path += "/"
    return parts._replace(path=path, query="", fragment="").geturl()


@dataclass(frozen=True)
class Cached:
    body: bytes
    etag: str | None
    last_modified: str | None


class SiteClient:
    """GET files below one site root, with conditional requests against a per-URL cache.

    Thread-safe (the MCP server runs tool calls on worker threads).
    """

    def __init__(self, site_url: str, *, timeout: float = TIMEOUT_S, max_bytes: int = MAX_BYTES,
                 transport: httpx.BaseTransport | None = None) -> None:
        self.root = normalise_site_url(site_url)
        self.timeout = timeout
        self.max_bytes = max_bytes
        self._cache: dict[str, Cached] = {}
        self._lock = threading.Lock()
        self._http = httpx.Client(
            headers={"User-Agent": FetchSettings().user_agent, "Accept": "application/json, text/markdown, */*"},
            follow_redirects=True, timeout=timeout, transport=transport,
            event_hooks={"request": [self._check_request]},
        )

    def _check_request(self, request: httpx.Request) -> None:
        if not allowed_url(str(request.url)):
            raise SiteError(f"refusing {request.url}: only https:// (or http://127.0.0.1) is allowed")

    def url(self, path: str) -> str:
        return urljoin(self.root, path)

    def get(self, path: str) -> tuple[bytes, bool]:
        """(body, changed): ``changed`` is False when the server answered 304 or sent the body
        the cache already had. Raises ``SiteError``."""
        url = self.url(path)
        with self._lock:
            cached = self._cache.get(url)
        headers = {}
        if cached is not None:
            if cached.etag:
                headers["If-None-Match"] = cached.etag
            if cached.last_modified:
                headers["If-Modified-Since"] = cached.last_modified
        try:
            with self._http.stream("GET", url, headers=headers) as resp:
                if resp.status_code == 304 and cached is not None:
                    return cached.body, False
                if not 200 <= resp.status_code < 300:
                    raise SiteError(f"HTTP {resp.status_code} from {url}")
                length = resp.headers.get("content-length", "")
                if length.isdigit() and int(length) > self.max_bytes:
                    raise SiteError(f"{url}: Content-Length {length} bytes exceeds the cap of {self.max_bytes} bytes")
                body = bytearray()
                for chunk in resp.iter_bytes():
                    body += chunk
                    if len(body) > self.max_bytes:
                        raise SiteError(f"{url}: response larger than the cap of {self.max_bytes} bytes, aborted")
                entry = Cached(bytes(body), resp.headers.get("etag"), resp.headers.get("last-modified"))
        except httpx.TimeoutException:
            raise SiteError(f"timed out after {self.timeout:g} s fetching {url}") from None
        except httpx.HTTPError as exc:
            raise SiteError(f"cannot fetch {url}: {type(exc).__name__}: {exc}") from None
        with self._lock:
            self._cache[url] = entry
        return entry.body, cached is None or cached.body != entry.body

    def close(self) -> None:
        self._http.close()
