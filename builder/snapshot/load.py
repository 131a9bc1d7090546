"""Read a snapshot: JSON, migration to the current schema, shape and cross-reference checks.

Whatever is wrong with a snapshot file ends in one ``UserError`` line that names the file
and the JSON path of the first problem, e.g.::

    snapshots/2026-11-29.json: index.boards.all_versions[3]: model 'ghost' is not in the snapshot's models

never a traceback: the caller (``render``, ``explain``, ``verify``, the build's read of the
previous day) exits with code 2 and leaves what was saved before untouched.
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
import weakref
from pathlib import Path
from typing import Any

from pydantic import ValidationError
from pydantic_core import ErrorDetails

from builder.errors import UserError
from builder.snapshot.migrate import UnknownVersion, migrate
from builder.snapshot.models import REFERENCE_ERROR, SCHEMA_VERSION, Snapshot


def json_path(loc: tuple[int | str, ...], data: Any, *, missing: bool = False) -> str:
    """A pydantic error location as a JSON path (``boards[0].rows[2].rank``).

    The location is walked along ``data`` so that pydantic's union-member tags (``int``,
    ``literal['new']``) are left out; ``missing`` keeps a last key that ``data`` lacks
    (a required field that is absent).
    """
    out = ""
    node = data
    for k, part in enumerate(loc):
        if isinstance(node, list) and isinstance(part, int) and 0 <= part < len(node):
            out += f"[{part}]"
            node = node[part]
        elif isinstance(node, dict) and isinstance(part, str) and (part in node or (missing and k == len(loc) - 1)):
            out += (f".{part}" if part.isidentifier() else f"[{json.dumps(part)}]") if out else (
                part if part.isidentifier() else f"[{json.dumps(part)}]")
            node = node.get(part)
        # else: a union-member tag, not a place in the document
    return out or "(top level)"


def describe_error(error: ErrorDetails, data: Any) -> str:
    """``path: message`` for one pydantic error."""
    if error["type"] == REFERENCE_ERROR:
        ctx = error.get("ctx") or {}
        return f"{ctx.get('path')}: {ctx.get('message')}"
    path = json_path(tuple(error["loc"]), data, missing=error["type"] == "missing")
    message = error["msg"]
    if error["type"] == "extra_forbidden":
        message = "unknown field"
    return f"{path}: {message}"


def parse_snapshot(text: str, origin: str = "<snapshot>") -> Snapshot:
    """Parse, migrate and validate snapshot JSON; every problem is one ``UserError`` line.
    ``source_sha256`` tells the SHA-256 of ``text`` from the snapshot returned, and
    ``source_text`` the text itself when it validated as it is (the current schema)."""
    snapshot, as_is = _parse(text, origin)
    key = id(snapshot)
    digest = hashlib.sha256(text.encode()).hexdigest()
    # gone with the snapshot
    _SOURCES[key] = (weakref.ref(snapshot, lambda _: _SOURCES.pop(key, None)), digest, text if as_is else None)
    if as_is:
        _VALIDATED.add(digest)
    return snapshot


_SOURCES: dict[int, tuple[weakref.ref[Snapshot], str, str | None]] = {}
"""Per snapshot parsed in this process (while it lives): the SHA-256 of the text it was parsed
from, and the text when it validated as it is."""
_VALIDATED: set[str] = set()
"The SHA-256 of every text that validated as a snapshot of the current schema, as it is, in this process."


def source_sha256(snapshot: Snapshot) -> str | None:
    """The SHA-256 (hex) of the text ``snapshot`` was parsed from, so what is computed from a
    saved day alone can be kept by its text's digest instead of serialising the snapshot
    again (the snapshot is a function of its text and the code); None for a snapshot built,
    copied or validated from an object in this process."""
    entry = _SOURCES.get(id(snapshot))
    return entry[1] if entry is not None and entry[0]() is snapshot else None


def source_text(snapshot: Snapshot) -> str | None:
    """The text ``snapshot`` was parsed from, when it validated as it is (in the current
    schema, nothing migrated): the saved file, byte for byte. None otherwise (an older schema,
    or a snapshot not parsed from a text)."""
    entry = _SOURCES.get(id(snapshot))
    return entry[2] if entry is not None and entry[0]() is snapshot else None


def validated_here(digest: str) -> bool:
    """A text of this SHA-256 (hex) validated as a snapshot of the current schema, as it is, in
    this process: under this code it loads, so loading it again would tell nothing new."""
    return digest in _VALIDATED


def _parse(text: str, origin: str) -> tuple[Snapshot, bool]:
    """The snapshot, and whether ``text`` validated as it is (the current schema)."""
    try:
        # A snapshot in the current schema validates straight from its text, in one parse (the
        # same validation as below); an older version, bad JSON or a problem to name takes the
        # full path, which migrates and words the error.
        return Snapshot.model_validate_json(text), True
    except ValidationError:
        pass
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise UserError(f"{origin}: line {exc.lineno}, column {exc.colno}: invalid JSON: {exc.msg}") from None
    if not isinstance(data, dict):
        raise UserError(f"{origin}: expected a JSON object at the top level, got {type(data).__name__}")
    return validate_snapshot(data, origin, text=text), False


def validate_snapshot(data: dict[str, Any], origin: str = "<snapshot>", *, text: str | None = None) -> Snapshot:
    """A snapshot from its JSON object (any known schema version); one ``UserError`` line on failure.

    ``text``, when given, is ``data`` as JSON text (saves serialising it again).
    """
    version = data.get("schema_version")
    try:
        current = migrate(data)
        if current is not data or text is None:
            text = json.dumps(current)  # NaN written as NaN: the models refuse it, naming its path
        return Snapshot.model_validate_json(text)
    except UnknownVersion as exc:
        raise UserError(f"{origin}: {exc}") from None
    except ValidationError as exc:
        where = data if version == SCHEMA_VERSION else _migrated_or(data)
        raise UserError(f"{origin}: {describe_error(exc.errors()[0], where)}") from None
    except ValueError as exc:  # a value JSON cannot hold (NaN) in a migrated object
        raise UserError(f"{origin}: {exc}") from None


def _migrated_or(data: dict[str, Any]) -> dict[str, Any]:
    """The migrated object (to name paths in it), else the original when migration itself failed."""
    try:
        return migrate(data)
    except (UnknownVersion, ValidationError):
        return data


def load_snapshot(path: Path) -> Snapshot:
    """Read one snapshot file; a missing file, bad JSON, unknown version or bad content is one line."""
    path = Path(path)
    try:
        info = os.stat(path)  # follows a symlink: its target is what would be read
        if not stat.S_ISREG(info.st_mode):  # a FIFO blocks forever, /dev/zero never ends: refused unread
            raise UserError(f"{path}: not a regular file (a FIFO, device or folder): refused")
        if info.st_size > MAX_SNAPSHOT_BYTES:
            raise UserError(f"{path}: {info.st_size} bytes, over the snapshot cap of {MAX_SNAPSHOT_BYTES} bytes")
        with open(path, "rb") as fh:
            data = fh.read(MAX_SNAPSHOT_BYTES + 1)
        if len(data) > MAX_SNAPSHOT_BYTES:  # it grew while being read
            raise UserError(f"{path}: over the snapshot cap of {MAX_SNAPSHOT_BYTES} bytes")
        text = data.decode("utf-8")
    except FileNotFoundError:
        raise UserError(f"{path}: snapshot not found") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise UserError(f"{path}: cannot read snapshot: {exc}") from None
    return parse_snapshot(text, str(path))


MAX_SNAPSHOT_BYTES = 64 * 1024 * 1024
"""The largest snapshot file read (a day's snapshot is about 0.5 MB; the caps on upstream names and
models keep a real one far below this)."""
