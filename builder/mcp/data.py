"""The one data layer the MCP tools answer from: the ``api/v1`` documents.

Two backends give the same documents:

- ``LocalBackend``: computed from a saved snapshot (and the earlier ones beside it) by the
  same code the site's API files are written with (``builder.api.build.compute_api``);
- ``SiteBackend``: the published files, fetched from a site with ``SiteClient`` (each
  board and model document on first use, then kept for that snapshot).

``ApiStore`` holds the current documents. On a call at least ``interval`` seconds (30) after
its last check it asks the backend for newer ones: a newer (or changed) snapshot file, or a
changed site index. A check that fails keeps the documents in use (and is logged); it never
ends the server.
"""

from __future__ import annotations

import logging
import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol, TypeVar

from pydantic import ValidationError

from builder.api.build import ApiDocuments, api_settings, compute_api, document_text
from builder.api.models import ApiModel, BoardDoc, IndexDoc, ModelDoc
from builder.config import SiteConfig
from builder.errors import UserError
from builder.mcp.client import SiteClient, SiteError
from builder.snapshot.models import Snapshot

log = logging.getLogger(__name__)

RELOAD_INTERVAL_S = 30.0
SAFE_NAME = re.compile(r"^[a-z0-9][a-z0-9._-]*$")
"Board ids and model slugs as the API writes them (a site's index is not trusted further)."
M = TypeVar("M", bound=ApiModel)


class DataError(Exception):
    """A document could not be read (site unreachable, invalid document); the message says why."""


class ApiData(Protocol):
    """The documents of one snapshot."""

    @property
    def index(self) -> IndexDoc: ...

    def board(self, board_id: str) -> BoardDoc: ...

    def model(self, slug: str) -> ModelDoc: ...

    def methodology(self) -> str: ...


@dataclass(frozen=True)
class LocalData:
    """Every document in memory (computed from a snapshot)."""

    docs: ApiDocuments
    source: str
    "Which snapshot file the documents come from."

    @property
    def index(self) -> IndexDoc:
        return self.docs.index

    def board(self, board_id: str) -> BoardDoc:
        return self.docs.boards[board_id]

    def model(self, slug: str) -> ModelDoc:
        return self.docs.models[slug]

    def methodology(self) -> str:
        return self.docs.methodology


@dataclass
class SiteData:
    """The index of a site, and its board and model documents fetched on first use."""

    index: IndexDoc
    client: SiteClient
    _docs: dict[str, ApiModel] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def _get(self, path: str, model: type[M]) -> M:
        name = path.rsplit("/", 1)[-1].removesuffix(".json")
        if not SAFE_NAME.match(name) or ".." in name:
            raise DataError(f"refusing to fetch {path!r}: not a board id or model slug")
        with self._lock:
            hit = self._docs.get(path)
        if hit is not None:
            return hit  # type: ignore[return-value]
        try:
            body, _ = self.client.get(path)
            doc = model.model_validate_json(body)
        except SiteError as exc:
            raise DataError(str(exc)) from None
        except ValidationError as exc:
            raise DataError(f"{self.client.url(path)}: not a valid {model.__name__}: "
                            f"{exc.errors()[0]['msg']} at {'.'.join(map(str, exc.errors()[0]['loc']))}") from None
        with self._lock:
            self._docs[path] = doc
        return doc

    def board(self, board_id: str) -> BoardDoc:
        return self._get(f"api/v1/boards/{board_id}.json", BoardDoc)

    def model(self, slug: str) -> ModelDoc:
        return self._get(f"api/v1/models/{slug}.json", ModelDoc)

    def methodology(self) -> str:
        try:
            body, _ = self.client.get("api/v1/methodology.md")
        except SiteError as exc:
            raise DataError(str(exc)) from None
        return body.decode("utf-8", errors="replace")


class Backend(Protocol):
    def load(self) -> ApiData:
        """The current documents; raises ``UserError`` when there are none to serve."""

    def newer(self, current: ApiData) -> ApiData | None:
        """Documents newer than ``current``, or None when nothing changed."""


# --------------------------------------------------------------------------- local snapshots


def read_history(folders: list[Path], before: str, exclude: Path) -> list[Snapshot]:
    """Readable snapshots dated strictly before ``before`` in ``folders`` (the first folder wins a
    date); an unreadable one is left out, as the site's archive does."""
    from builder.snapshot import list_snapshots, load_snapshot

    seen: dict[str, Snapshot] = {}
    for folder in folders:
        for p in list_snapshots(folder):
            day = p.name[:10]
            if day in seen or day >= before or p.resolve() == exclude.resolve():
                continue
            try:
                seen[day] = load_snapshot(p)
            except UserError:
                continue
    return [seen[d] for d in sorted(seen)]


def compute_local_documents(cfg: SiteConfig, base: Path, snapshot_path: Path, snapshots_dir: Path) -> ApiDocuments:
    """The API documents of one snapshot file, exactly as ``render`` writes them."""
    from builder.render.exports import board_attribution, board_download
    from builder.render.markdown import read_content_page
    from builder.render.writer import find_dir
    from builder.snapshot import load_snapshot
    from builder.util.formats import RATING_LICENCE
    from builder.util.text import model_slug

    snapshot = load_snapshot(snapshot_path)
    base_url = cfg.site.url if cfg.site.url.endswith("/") else cfg.site.url + "/"
    attribution = board_attribution(cfg.site.title, base_url)
    history = read_history([snapshot_path.parent, snapshots_dir], snapshot.date, snapshot_path)
    downloads = {b.id: board_download(b, snapshot, attribution) for b in snapshot.boards}
    methodology_path = find_dir(base, "content") / "methodology.md"
    methodology = read_content_page(methodology_path) if methodology_path.is_file() else None
    settings = api_settings(cfg, base_url, RATING_LICENCE, attribution, methodology)
    return compute_api(snapshot, history, downloads=downloads, slug=model_slug, settings=settings)


@dataclass
class LocalBackend:
    """Documents from ``snapshot`` when given, else from the newest snapshot in ``snapshots_dir``."""

    cfg: SiteConfig
    base: Path
    snapshots_dir: Path
    snapshot: Path | None = None
    _stamp: tuple[str, int, int] | None = None

    def _pick(self) -> Path:
        if self.snapshot is not None:
            return self.snapshot
        from builder.snapshot import list_snapshots

        found = list_snapshots(self.snapshots_dir)
        if not found:
            raise UserError(f"{self.snapshots_dir}: no snapshots (run `modelboards score` first, or pass --snapshot)")
        return found[-1]

    @staticmethod
    def _stamp_of(path: Path) -> tuple[str, int, int]:
        try:
            st = path.stat()
        except OSError:
            raise UserError(f"{path}: snapshot not found") from None
        return str(path.resolve()), st.st_mtime_ns, st.st_size

    def load(self) -> LocalData:
        path = self._pick()
        stamp = self._stamp_of(path)
        docs = compute_local_documents(self.cfg, self.base, path, self.snapshots_dir)
        self._stamp = stamp
        return LocalData(docs, str(path))

    def newer(self, current: ApiData) -> LocalData | None:
        if self._stamp_of(self._pick()) == self._stamp:
            return None
        return self.load()


# --------------------------------------------------------------------------- a published site


INDEX_PATH = "api/v1/index.json"


@dataclass
class SiteBackend:
    """Documents from a published site's ``api/v1`` (see ``SiteClient`` for the HTTP rules)."""

    client: SiteClient

    def _index(self, body: bytes) -> IndexDoc:
        try:
            return IndexDoc.model_validate_json(body)
        except ValidationError as exc:
            first = exc.errors()[0]
            raise DataError(f"{self.client.url(INDEX_PATH)}: not a ModelBoards API index: {first['msg']} at "
                            f"{'.'.join(map(str, first['loc']))}") from None

    def load(self) -> SiteData:
        try:
            body, _ = self.client.get(INDEX_PATH)
            return SiteData(self._index(body), self.client)
        except (SiteError, DataError) as exc:
            raise UserError(f"--site: {exc}") from None

    def newer(self, current: ApiData) -> SiteData | None:
        body, changed = self.client.get(INDEX_PATH)
        if not changed:
            return None
        index = self._index(body)
        if index == current.index:
            return None
        return SiteData(index, self.client)


# --------------------------------------------------------------------------- the store


class ApiStore:
    """The current documents, reloaded from the backend on a call ``interval`` s after the last check."""

    def __init__(self, backend: Backend, *, interval: float = RELOAD_INTERVAL_S,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.backend = backend
        self.interval = interval
        self.clock = clock
        self._lock = threading.Lock()
        self._data = backend.load()
        self._checked = clock()
        self.reloads = 0
        "How many times newer documents replaced the ones in use."

    def current(self) -> ApiData:
        with self._lock:
            now = self.clock()
            if now - self._checked >= self.interval:
                self._checked = now
                try:
                    fresh = self.backend.newer(self._data)
                except (UserError, SiteError, DataError, OSError, ValueError) as exc:
                    log.warning("reload check failed, keeping snapshot %s: %s", self._data.index.snapshot.date, exc)
                    fresh = None
                if fresh is not None:
                    log.info("reloaded: snapshot %s -> %s", self._data.index.snapshot.date, fresh.index.snapshot.date)
                    self._data = fresh
                    self.reloads += 1
            return self._data


def dump_model(doc: ApiModel) -> str:
    """A document as the JSON text the site publishes for it."""
    return document_text(doc)
