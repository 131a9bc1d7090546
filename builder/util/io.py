"""Small I/O helpers every layer uses: atomic file writes, compact JSON text and UTC times.

    write_atomic(path, write)      a temporary file in the same folder, renamed into place
    write_text_atomic(path, text)  the same for a string
    compact_json(doc)              one line of JSON (no spaces), finite numbers only, newline
    as_utc(t)                      an aware UTC datetime (a naive one is taken as UTC)
    parse_utc(text, what)          an ISO date/time as UTC, or one UserError line naming ``what``
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TextIO

from builder.errors import UserError


def write_atomic(path: Path, write: Callable[[TextIO], object], *, newline: str | None = "\n",
                 durable: bool = False) -> None:
    """Call ``write(fh)`` on a temporary file beside ``path``, then rename it to ``path``.

    Readers see the old file or the new one, never a part. Any exception removes the
    temporary file and leaves ``path`` untouched. The file gets the usual mode (0666 less
    the umask), not the 0600 of a temporary file. ``durable`` flushes it to disk first.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline=newline) as fh:
            write(fh)
            if durable:
                fh.flush()
                os.fsync(fh.fileno())
        os.chmod(tmp, 0o666 & ~_umask())
        os.replace(tmp, path)
    except OSError as exc:
        Path(tmp).unlink(missing_ok=True)
        raise with_path(exc, path) from exc
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def with_path(exc: OSError, path: Path | str) -> OSError:
    """``exc`` naming ``path`` when it names no file (a failed ``write`` of a full disk names none)."""
    if exc.filename is not None:
        return exc
    return type(exc)(exc.errno, exc.strerror or str(exc), str(path))


def write_text_atomic(path: Path, text: str, *, durable: bool = False) -> None:
    """Write ``text`` to ``path`` atomically (see ``write_atomic``)."""
    write_atomic(path, lambda fh: fh.write(text), durable=durable)


def compact_json(doc: Any, *, sort_keys: bool = False) -> str:
    """``doc`` as compact JSON text: no spaces, UTF-8 characters kept, a trailing newline.

    NaN and infinities raise ``ValueError`` (they are not JSON).
    """
    return json.dumps(doc, ensure_ascii=False, allow_nan=False, separators=(",", ":"), sort_keys=sort_keys) + "\n"


def as_utc(t: datetime) -> datetime:
    """``t`` in UTC: an aware time is converted, a naive one is taken to be UTC already."""
    return t.replace(tzinfo=UTC) if t.tzinfo is None else t.astimezone(UTC)


def parse_utc(text: str, what: str) -> datetime:
    """An ISO date or date/time as an aware UTC datetime (no offset: UTC).

    A value that is not ISO is one ``UserError`` line naming ``what`` (e.g. ``--now``).
    """
    try:
        return as_utc(datetime.fromisoformat(text))
    except (TypeError, ValueError):
        raise UserError(f"{what}: not an ISO date/time: {text!r}") from None


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask
