"""Where the site's own folders (``content/``, ``templates/``) are found, with the standard library alone.

``builder.render.writer`` re-exports ``find_dir``; it lives here so that a caller that only
needs a path (the MCP server's start, to tell whether the methodology page changed) does not
import the renderer.
"""

from __future__ import annotations

from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]
"The source tree's root (where ``content/`` and ``templates/`` live in a checkout)."


def find_dir(base: Path, name: str) -> Path:
    """``base/name`` when it exists, else the repository's own (templates/, content/), else
    the copy an installed wheel carries (``builder._templates``, ``builder._content``)."""
    p = base / name
    if p.is_dir():
        return p
    if (REPO_ROOT / name).is_dir():
        return REPO_ROOT / name
    return Path(__file__).resolve().parents[1] / f"_{name}"
