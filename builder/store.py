"""The payload store: the last good payload of every source and the status of its latest fetch.

The store is git-ignored; its folder is ``fetch.store`` in ``site.yml``, relative to the
folder ``site.yml`` lives in. Layout, one folder per source::

    <store>/<source>/payload/<relative/posix/path>   the last GOOD payload, one file per entry
    <store>/<source>/payload.json                    its manifest: fetched_at, origin, live,
                                                     bytes, sha256 and {path: {bytes, sha256}}
    <store>/<source>/status.json                     FetchStatus.to_json() of the latest attempt

Writes are atomic with respect to a crash of the process:

* ``write_payload`` builds a complete new source folder (payload, manifest, status) in a
  temporary folder next to it, then swaps it in with two renames (old -> ``.<source>.old``,
  new -> ``<source>``). A crash between the renames leaves ``.<source>.old`` complete, and
  every reader falls back to it; the next write restores it before swapping again.
* ``write_status`` writes a temporary file and ``os.replace``-s ``status.json``; it never
  touches ``payload/`` (a failed fetch keeps the last good payload byte for byte).

The payload digest (``sha256`` in statuses and manifests): for a single-file payload, the
SHA-256 of that file's bytes (what ``sha256sum`` prints for the upstream file); for a
multi-file payload, the SHA-256 of the UTF-8 text made of one ``<sha256 of file>  <path>\\n``
line per file in path order (the ``sha256sum`` listing of the folder).
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import shutil
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date, datetime
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any

from builder.records import FetchStatus, Payload
from builder.util.io import write_text_atomic
from builder.util.testhooks import pause_point

if TYPE_CHECKING:
    from builder.config import SiteConfig

log = logging.getLogger(__name__)

def store_path(cfg: SiteConfig, base: Path) -> Path:
    """The payload store folder (``fetch.store``, relative to the site.yml folder)."""
    return base / cfg.fetch.store


PAYLOAD_DIR = "payload"
MANIFEST = "payload.json"
STATUS = "status.json"


@dataclass(frozen=True, slots=True)
class PayloadInfo:
    """The manifest of a stored payload (what ``payload.json`` says), without the bytes."""

    source: str
    fetched_at: datetime
    origin: str
    live: bool  # fetched from the live URL (False: copied from the recorded payload)
    bytes: int  # total over all files
    sha256: str  # payload digest (see the module docstring)
    files: Mapping[str, Mapping[str, Any]]  # path -> {"bytes": int, "sha256": str}
    published: date | None = None  # the upstream file's commit date, for payloads that carry none


def payload_digest(files: Mapping[str, bytes]) -> tuple[int, str]:
    """``(total bytes, payload digest)`` of a payload's files (digest rule: module docstring)."""
    total = sum(len(b) for b in files.values())
    if len(files) == 1:
        (only,) = files.values()
        return total, hashlib.sha256(only).hexdigest()
    listing = "".join(f"{hashlib.sha256(files[k]).hexdigest()}  {k}\n" for k in sorted(files))
    return total, hashlib.sha256(listing.encode("utf-8")).hexdigest()


def safe_key(key: str) -> PurePosixPath:
    """A payload file key as a relative path that cannot leave the payload folder."""
    p = PurePosixPath(key)
    if not key or "\\" in key or p.is_absolute() or any(part in ("", ".", "..") for part in key.split("/")):
        raise ValueError(f"unsafe payload file name {key!r}")
    return p


def _source_dir(store_dir: Path, source: str) -> Path | None:
    """The folder holding ``source``'s store, recovering from a crash mid-swap."""
    current = store_dir / source
    if current.is_dir():
        return current
    old = store_dir / f".{source}.old"
    if old.is_dir():
        return old
    return None


def _recover(store_dir: Path, source: str) -> Path:
    """Put a folder left at ``.<source>.old`` by a crash back in place; return ``<store>/<source>``."""
    current = store_dir / source
    old = store_dir / f".{source}.old"
    if not current.exists() and old.is_dir():
        os.replace(old, current)
    return current


def _write_json_atomic(path: Path, data: Any) -> None:
    write_text_atomic(path, json.dumps(data, indent=2, sort_keys=True) + "\n")


def _manifest(payload: Payload, live: bool) -> dict[str, Any]:
    total, digest = payload_digest(payload.files)
    return {
        "source": payload.source,
        "fetched_at": payload.fetched_at.isoformat(),
        "origin": payload.origin,
        "published": payload.published.isoformat() if payload.published else None,
        "live": live,
        "bytes": total,
        "sha256": digest,
        "files": {
            k: {"bytes": len(b), "sha256": hashlib.sha256(b).hexdigest()} for k, b in sorted(payload.files.items())
        },
    }


def write_payload(store_dir: Path, payload: Payload, status: FetchStatus) -> None:
    """Store a good payload with the status of the fetch that produced it, atomically.

    The previous payload (if any) is replaced as a whole: the files of the new payload are
    exactly ``payload.files``. ``status.live`` is recorded in the manifest.
    """
    if status.source != payload.source:
        raise ValueError(f"status of {status.source!r} stored with payload of {payload.source!r}")
    if not payload.files:
        raise ValueError(f"{payload.source}: refusing to store an empty payload")
    keys = {k: safe_key(k) for k in payload.files}
    store_dir.mkdir(parents=True, exist_ok=True)
    current = _recover(store_dir, payload.source)
    for leftover in store_dir.glob(f".{payload.source}.new-*"):  # a killed write's (callers hold the lock)
        shutil.rmtree(leftover, ignore_errors=True)
    old = store_dir / f".{payload.source}.old"
    tmp = Path(tempfile.mkdtemp(prefix=f".{payload.source}.new-", dir=store_dir))
    try:
        for key, rel in keys.items():
            dest = tmp / PAYLOAD_DIR / rel
            dest.parent.mkdir(parents=True, exist_ok=True)
            dest.write_bytes(payload.files[key])
        _write_json_atomic(tmp / MANIFEST, _manifest(payload, status.live))
        _write_json_atomic(tmp / STATUS, status.to_json())
        if old.exists():
            shutil.rmtree(old)
        if current.exists():
            os.replace(current, old)
        pause_point("store-between-renames")
        os.replace(tmp, current)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    shutil.rmtree(old, ignore_errors=True)


def write_status(store_dir: Path, status: FetchStatus) -> None:
    """Replace ``status.json`` of ``status.source`` atomically; the stored payload is untouched."""
    current = _recover(store_dir, status.source)
    current.mkdir(parents=True, exist_ok=True)
    _write_json_atomic(current / STATUS, status.to_json())


def read_status(store_dir: Path, source_name: str) -> FetchStatus | None:
    """The status of the latest fetch attempt of ``source_name``, or None if never fetched."""
    folder = _source_dir(store_dir, source_name)
    if folder is None or not (folder / STATUS).is_file():
        return None
    try:
        return FetchStatus.from_json(json.loads((folder / STATUS).read_text(encoding="utf-8")))
    except (ValueError, KeyError, TypeError) as exc:
        log.warning("%s: unreadable status record, ignored: %s", folder / STATUS, exc)
        return None


def read_payload_info(store_dir: Path, source_name: str) -> PayloadInfo | None:
    """The manifest of the stored payload of ``source_name``, or None if there is none."""
    folder = _source_dir(store_dir, source_name)
    if folder is None or not (folder / MANIFEST).is_file():
        return None
    try:
        m = json.loads((folder / MANIFEST).read_text(encoding="utf-8"))
        return PayloadInfo(
            source=m["source"],
            fetched_at=datetime.fromisoformat(m["fetched_at"]),
            origin=m.get("origin", ""),
            live=bool(m.get("live", False)),
            bytes=int(m["bytes"]),
            sha256=m["sha256"],
            files=m["files"],
            published=date.fromisoformat(m["published"]) if m.get("published") else None,
        )
    except (ValueError, KeyError, TypeError) as exc:
        log.warning("%s: unreadable payload manifest, ignored: %s", folder / MANIFEST, exc)
        return None


def read_payload(store_dir: Path, source_name: str) -> Payload | None:
    """The last good payload of ``source_name``, or None if there is none.

    Every file is checked against the manifest's SHA-256; a store that was edited or damaged
    by hand reads as "no payload" (with a warning), never as a silently different payload.
    """
    info = read_payload_info(store_dir, source_name)
    if info is None:
        return None
    folder = _source_dir(store_dir, source_name)
    assert folder is not None
    files: dict[str, bytes] = {}
    for key, meta in info.files.items():
        try:
            data = (folder / PAYLOAD_DIR / safe_key(key)).read_bytes()
        except (OSError, ValueError) as exc:
            log.warning("%s: stored payload file %s unreadable, payload ignored: %s", source_name, key, exc)
            return None
        if hashlib.sha256(data).hexdigest() != meta.get("sha256"):
            log.warning("%s: stored payload file %s does not match its manifest, payload ignored", source_name, key)
            return None
        files[key] = data
    return Payload(source=info.source, files=files, fetched_at=info.fetched_at, origin=info.origin,
                   published=info.published)
