"""The API documents of a local snapshot: every input file read once, its key, the documents.

The documents of one snapshot depend on exactly these inputs, so ``LocalInputs.key`` hashes
all of them (sha256) and nothing else decides whether cached documents may answer:

- the snapshot file's bytes;
- every other snapshot file the history could be read from (the snapshot's own folder, then
  ``snapshots_dir``), in that order: name and bytes (a file that cannot be read: its name);
- the methodology page's bytes (``content/methodology.md``), or that there is none;
- the whole configuration (``SiteConfig`` as JSON: base URL, title, aliases, price settings...);
- the code: every ``builder/**/*.py`` file's bytes, the Python version, the pydantic and
  pydantic-core versions (they serialize the documents) and PyYAML's (it reads site.yml);
- ``API_VERSION`` and ``INPUTS_FORMAT`` (bumped when this list changes).

The documents are computed from the same bytes that were hashed (never by reading a file a
second time), so a file replaced during a start cannot give one snapshot's documents another
snapshot's key.
"""

from __future__ import annotations

import functools
import hashlib
import json
import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import pydantic
import pydantic_core
import yaml

from builder.api.models import API_VERSION, ApiDocuments
from builder.config import SiteConfig
from builder.errors import UserError
from builder.util.dirs import find_file
from builder.util.snapshot_files import list_snapshots

if TYPE_CHECKING:
    from builder.snapshot.models import Snapshot

INPUTS_FORMAT = 1
"Version of the key's recipe (the list in the module docstring)."
PACKAGE_ROOT = Path(__file__).resolve().parents[1]
"The ``builder`` package whose code computes the documents."


@dataclass(frozen=True)
class InputFile:
    path: Path
    data: bytes | None
    "The file's bytes; None when it could not be read."

    @property
    def digest(self) -> str | None:
        return hashlib.sha256(self.data).hexdigest() if self.data is not None else None


@dataclass(frozen=True)
class LocalInputs:
    """Everything the documents of one snapshot file are computed from, read once."""

    snapshot: InputFile
    history: tuple[InputFile, ...]
    "Candidate history files, the snapshot's own folder first; the snapshot itself left out."
    methodology: InputFile | None
    config: str
    "The configuration as JSON."

    @functools.cached_property
    def key(self) -> str:
        """sha256 (hex) of every input, the code and its versions."""
        material = {
            "format": INPUTS_FORMAT,
            "api_version": API_VERSION,
            "code": code_fingerprint(),
            "config": self.config,
            "snapshot": self.snapshot.digest,
            "history": [[f.path.name, f.digest] for f in self.history],
            "methodology": self.methodology.digest if self.methodology is not None else None,
        }
        return hashlib.sha256(json.dumps(material, sort_keys=True).encode()).hexdigest()


@functools.cache
def code_fingerprint() -> str:
    """sha256 of the ``builder`` package's source files and of the versions that shape the
    documents (computed once per process: the code a running process uses does not change)."""
    h = hashlib.sha256()
    versions = [sys.version, pydantic.VERSION, pydantic_core.__version__, getattr(yaml, "__version__", "")]
    h.update(json.dumps(versions).encode())
    for p in sorted(PACKAGE_ROOT.rglob("*.py")):
        h.update(p.relative_to(PACKAGE_ROOT).as_posix().encode() + b"\0")
        h.update(hashlib.sha256(p.read_bytes()).digest())
    return h.hexdigest()


def _read(path: Path) -> InputFile:
    try:
        return InputFile(path, path.read_bytes())
    except OSError:
        return InputFile(path, None)


def read_inputs(cfg: SiteConfig, base: Path, snapshot_path: Path, snapshots_dir: Path) -> LocalInputs:
    """Read the snapshot, its history candidates and the methodology page; a missing or
    unreadable snapshot is a ``UserError``."""
    try:
        snapshot = InputFile(snapshot_path, snapshot_path.read_bytes())
    except FileNotFoundError:
        raise UserError(f"{snapshot_path}: snapshot not found") from None
    except OSError as exc:
        raise UserError(f"{snapshot_path}: cannot read snapshot: {exc}") from None
    own = snapshot_path.resolve()
    seen: set[Path] = set()
    history = []
    for folder in (snapshot_path.parent, snapshots_dir):
        for p in list_snapshots(folder):
            resolved = p.resolve()
            if resolved == own or resolved in seen:  # the same file twice reads the same way twice
                continue
            seen.add(resolved)
            history.append(_read(p))
    methodology_path = find_file(base, "content", "methodology.md")
    methodology = _read(methodology_path) if methodology_path.is_file() else None
    return LocalInputs(snapshot=snapshot, history=tuple(history), methodology=methodology,
                       config=cfg.model_dump_json())


def select_history(files: Iterable[tuple[str, Callable[[], Snapshot]]], before: str) -> list[Snapshot]:
    """The history from (file name, loader) pairs: per date the first file that loads, dates
    strictly before ``before`` only, oldest first; a file that does not load is left out, as the
    site's archive does."""
    seen: dict[str, Snapshot] = {}
    for name, load in files:
        day = name[:10]
        if day in seen or day >= before:
            continue
        try:
            seen[day] = load()
        except UserError:
            continue
    return [seen[d] for d in sorted(seen)]


def _text(f: InputFile, what: str) -> str:
    """The file's text as ``Path.read_text(encoding="utf-8")`` gives it (universal newlines)."""
    if f.data is None:
        raise UserError(f"{f.path}: cannot read {what}")
    try:
        text = f.data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise UserError(f"{f.path}: cannot read {what}: {exc}") from None
    return text.replace("\r\n", "\n").replace("\r", "\n")


def _parse(f: InputFile) -> Snapshot:
    from builder.snapshot import parse_snapshot

    return parse_snapshot(_text(f, "snapshot"), str(f.path))


def compute_documents(cfg: SiteConfig, inputs: LocalInputs) -> ApiDocuments:
    """The API documents of ``inputs``, exactly as ``render`` writes them."""
    from builder.api.build import api_settings, compute_api
    from builder.render.exports import board_attribution, board_download
    from builder.render.markdown import read_content_page
    from builder.util.formats import RATING_LICENCE
    from builder.util.text import model_slug

    snapshot = _parse(inputs.snapshot)
    base_url = cfg.site.url if cfg.site.url.endswith("/") else cfg.site.url + "/"
    attribution = board_attribution(cfg.site.title, base_url)
    history = select_history(((f.path.name, functools.partial(_parse, f)) for f in inputs.history), snapshot.date)
    downloads = {b.id: board_download(b, snapshot, attribution) for b in snapshot.boards}
    methodology = None
    if inputs.methodology is not None:
        methodology = read_content_page(inputs.methodology.path, text=_text(inputs.methodology, "the methodology page"))
    settings = api_settings(cfg, base_url, RATING_LICENCE, attribution, methodology)
    return compute_api(snapshot, history, downloads=downloads, slug=model_slug, settings=settings)
