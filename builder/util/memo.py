"""Results of pure functions of content, kept across processes (as the share images are).

    code_fingerprint()                    -> hex: the package's Python sources and the versions
                                             of Python, pydantic and pydantic-core
    memo_key(*parts)                      -> hex: SHA-256 of the parts and the code fingerprint
    Memo(base, name).get(key) / .put(key, text) / .text(key, make) / .prune()
        ``<site.yml folder>/.modelboards/<name>/<key>``: a text kept by the key of everything
        it was computed from; ``prune`` keeps what this process used and at most as many
        others again (the most recently used), so a memo never outgrows a few renders
    .get_texts(key) / .put_texts(key, {name: text})   several texts as one entry

A memo is only for a function whose result depends on nothing but what its key covers: its
input's content (hashed in full) and the code (``code_fingerprint``: any change to any module
of the package, or to the library versions, is a new key, so nothing computed by other code
is ever read back). An entry that cannot be written is skipped (a read-only checkout
computes every time, with the same result); one that cannot be read, or whose text no longer
matches the SHA-256 written with it (a damaged file), is computed again.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import sys
from collections.abc import Callable, Mapping
from pathlib import Path

from builder.util.dirs import PACKAGE_DIR

MEMO_ROOT = Path(".modelboards")
"Beside site.yml: the folder of every memo (``<name>/`` in it)."


@functools.cache
def code_fingerprint() -> str:
    """SHA-256 of every ``.py`` file of the package (path and bytes) and the library versions."""
    import pydantic
    import pydantic_core

    h = hashlib.sha256(f"{sys.version}\n{pydantic.VERSION}\n{pydantic_core.__version__}\n".encode())
    for path in sorted(PACKAGE_DIR.rglob("*.py")):
        data = path.read_bytes()
        h.update(f"{path.relative_to(PACKAGE_DIR).as_posix()}\n{len(data)}\n".encode())
        h.update(data)
    return h.hexdigest()


def memo_key(*parts: str | bytes) -> str:
    """The key of a result computed from ``parts`` (each hashed in full, length-prefixed) by this code."""
    h = hashlib.sha256(code_fingerprint().encode())
    for part in parts:
        data = part.encode() if isinstance(part, str) else part
        h.update(f"\n{len(data)}\n".encode())
        h.update(data)
    return h.hexdigest()


class Memo:
    """The texts of one memo, under ``<base>/.modelboards/<name>/``."""

    def __init__(self, base: Path, name: str) -> None:
        self.folder = Path(base) / MEMO_ROOT / name
        self.used: set[str] = set()

    def get(self, key: str) -> str | None:
        """The text kept under ``key``; None when absent, unreadable or damaged."""
        self.used.add(key)
        path = self.folder / key
        try:
            stored = path.read_text(encoding="utf-8")
            os.utime(path)  # most recently used: the last ``prune`` removes
        except (OSError, UnicodeDecodeError):
            return None
        digest, _, text = stored.partition("\n")
        return text if digest == hashlib.sha256(text.encode()).hexdigest() else None

    def get_texts(self, key: str) -> dict[str, str] | None:
        """The texts ``put_texts`` kept under ``key``; None when absent, unreadable or damaged."""
        text = self.get(key)
        if text is None:
            return None
        head, _, body = text.partition("\n")
        try:
            parts = json.loads(head)
        except ValueError:
            return None
        if not isinstance(parts, list) or not all(
                isinstance(p, list) and len(p) == 2 and isinstance(p[0], str) and isinstance(p[1], int) and p[1] >= 0
                for p in parts) or sum(p[1] for p in parts) != len(body):
            return None
        texts, at = {}, 0
        for name, size in parts:
            texts[name] = body[at:at + size]
            at += size
        return texts

    def put_texts(self, key: str, texts: Mapping[str, str]) -> None:
        # one line naming the texts and their lengths, then the texts one after the other:
        # read back by slicing (texts inside a JSON string took longer to decode than to use)
        head = json.dumps([[name, len(text)] for name, text in texts.items()], ensure_ascii=False)
        self.put(key, head + "\n" + "".join(texts.values()))

    def put(self, key: str, text: str) -> None:
        self.used.add(key)
        path = self.folder / key
        tmp = path.with_name(f".{key[:16]}.{os.getpid()}.tmp")
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            tmp.write_text(f"{hashlib.sha256(text.encode()).hexdigest()}\n{text}", encoding="utf-8")
            tmp.replace(path)  # whole or absent: a reader never sees half of it
        except OSError:
            try:
                tmp.unlink(missing_ok=True)
            except OSError:
                pass

    def text(self, key: str, make: Callable[[], str]) -> str:
        """The entry ``key``, else ``make()`` (kept under ``key``)."""
        text = self.get(key)
        if text is None:
            text = make()
            self.put(key, text)
        return text

    def prune(self) -> None:
        """Delete the entries this process did not use, but the ``len(used)`` most recently used."""
        try:
            others = [(e.stat().st_mtime, e.path) for e in os.scandir(self.folder)
                      if e.name not in self.used and e.is_file(follow_symlinks=False)]
        except OSError:
            return
        others.sort(reverse=True)
        for _, path in others[len(self.used):]:
            try:
                os.unlink(path)
            except OSError:
                pass
