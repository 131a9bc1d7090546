"""The one data layer the MCP tools answer from: the ``api/v1`` documents.

Two backends give the same documents:

- ``LocalBackend``: computed from a saved snapshot (and the earlier ones beside it) by the
  same code the site's API files are written with (``builder.api.build.compute_api``), or
  read back from the document cache when the same inputs were computed before
  (``builder.mcp.cache``; the key is the sha256 of every input, ``builder.mcp.local``);
- ``SiteBackend``: the published files, fetched from a site with ``SiteClient`` (each
  board and model document on first use, then kept for that snapshot).

``ApiStore`` holds the current documents. On a call at least ``interval`` seconds (30) after
its last check it asks the backend for newer ones: a newer (or changed) snapshot file, or a
changed site index. A check that fails keeps the documents in use (and is logged); it never
ends the server.
"""

from __future__ import annotations

import functools
import logging
import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Protocol, TypeVar

from pydantic import ValidationError

from builder.api.models import ApiDocuments, ApiModel, BoardDoc, IndexDoc, ModelDoc, document_text
from builder.config import SiteConfig
from builder.errors import UserError
from builder.mcp.cache import DocumentCache
from builder.mcp.client import SiteClient, SiteError
from builder.mcp.local import compute_documents, read_inputs, select_history
from builder.util.snapshot_files import list_snapshots

if TYPE_CHECKING:  # the snapshot models load only when documents are computed
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
    from builder.snapshot import load_snapshot

    own = exclude.resolve()
    files = [(p.name, functools.partial(load_snapshot, p)) for folder in folders for p in list_snapshots(folder)
             if p.resolve() != own]
    return select_history(files, before)


def compute_local_documents(cfg: SiteConfig, base: Path, snapshot_path: Path, snapshots_dir: Path) -> ApiDocuments:
    """The API documents of one snapshot file, exactly as ``render`` writes them."""
    return compute_documents(cfg, read_inputs(cfg, base, snapshot_path, snapshots_dir))


@dataclass
class LocalBackend:
    """Documents from ``snapshot`` when given, else from the newest snapshot in ``snapshots_dir``.

    With a ``cache``, documents computed once for the same inputs (see ``builder.mcp.local``)
    are read back instead of computed again."""

    cfg: SiteConfig
    base: Path
    snapshots_dir: Path
    snapshot: Path | None = None
    cache: DocumentCache | None = None
    _stamp: tuple[str, int, int] | None = None
    computed: int = 0
    "How many times the documents were computed (not read from the cache)."

    def _pick(self) -> Path:
        if self.snapshot is not None:
            return self.snapshot
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
        inputs = read_inputs(self.cfg, self.base, path, self.snapshots_dir)
        docs = self.cache.get(inputs.key) if self.cache is not None else None
        if docs is None:
            docs = compute_documents(self.cfg, inputs)
            self.computed += 1
            if self.cache is not None:
                self.cache.put(inputs.key, docs)
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
