"""Computed API documents kept on disk, so a server start does not recompute them.

One file per key (``LocalInputs.key``: the sha256 of the snapshot, its history, the
methodology page, the configuration and the code, see ``builder.mcp.local``), named
``api-<key>.json`` in ``.modelboards/mcp-cache/`` beside site.yml. Rules:

- a file answers only for its own key: the key is in the file too and must match the name;
  anything else about it (unreadable, not JSON, a document that does not validate) and it is
  ignored, the documents are computed and the file is written again;
- files are written atomically (a reader sees a whole file or none); a cache that cannot be
  written is logged and the server goes on with the computed documents;
- the ``KEEP`` most recently used files stay, older ones are removed when a new one is written.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path
from typing import Final, Literal

from pydantic import ValidationError

from builder.api.models import ApiDocuments, ApiModel, BoardDoc, IndexDoc, ModelDoc
from builder.util.io import write_text_atomic

log = logging.getLogger(__name__)

FORMAT: Final = 1
"Version of the cache file's layout."
KEEP = 4
PREFIX = "api-"


class CacheFile(ApiModel):
    """The layout of one cache file."""

    format: Literal[1]
    key: str
    index: IndexDoc
    boards: dict[str, BoardDoc]
    models: dict[str, ModelDoc]
    methodology: str


class DocumentCache:
    """Documents by key in ``folder`` (created on the first write)."""

    def __init__(self, folder: Path, *, keep: int = KEEP) -> None:
        self.folder = folder
        self.keep = keep

    def path(self, key: str) -> Path:
        return self.folder / f"{PREFIX}{key}.json"

    def get(self, key: str) -> ApiDocuments | None:
        """The documents stored for ``key``, or None (no file, or one that does not answer for it)."""
        path = self.path(key)
        try:
            body = path.read_bytes()
        except FileNotFoundError:
            return None
        except OSError as exc:
            log.warning("cannot read the document cache %s: %s", path, exc)
            return None
        try:
            cached = CacheFile.model_validate_json(body)
        except ValidationError as exc:
            log.warning("ignoring the document cache %s: %s", path, exc.errors()[0]["msg"])
            return None
        if cached.key != key:
            log.warning("ignoring the document cache %s: it holds the documents of another key", path)
            return None
        try:
            os.utime(path)  # recently used: kept when older files are removed
        except OSError:
            pass
        return ApiDocuments(index=cached.index, boards=cached.boards, models=cached.models,
                            methodology=cached.methodology)

    def put(self, key: str, docs: ApiDocuments) -> None:
        """Store ``docs`` for ``key``, then remove all but the ``keep`` most recently used files."""
        text = CacheFile(format=FORMAT, key=key, index=docs.index, boards=docs.boards, models=docs.models,
                         methodology=docs.methodology).model_dump_json()
        try:
            write_text_atomic(self.path(key), text)
            self._prune()
        except OSError as exc:
            log.warning("cannot write the document cache in %s: %s", self.folder, exc)

    def _prune(self) -> None:
        entries = []
        for p in self.folder.glob(f"{PREFIX}*.json"):
            try:
                entries.append((p.stat().st_mtime_ns, p))
            except OSError:
                continue
        for _, p in sorted(entries, reverse=True)[self.keep:]:
            p.unlink(missing_ok=True)
