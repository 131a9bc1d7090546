"""Where the site's own folders (``content/``, ``templates/``) are found, with the standard library alone.

A site folder overrides the package PER FILE, the way mkdocs' ``custom_dir`` works: a site's
``templates/board.html`` replaces that one template and every other template, static asset
and content page comes from the package. ``layered_dirs(base, name)`` gives the folders to
look in, the site's first; the package's own is the repository's (a checkout) or the copy an
installed wheel carries (``builder._templates``, ``builder._content``).

``builder.render.writer`` re-exports ``find_dir``; it lives here so that a caller that only
needs a path (the MCP server's start, to tell whether the methodology page changed) does not
import the renderer.
"""

from __future__ import annotations

from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]
"The source tree's root (where ``content/`` and ``templates/`` live in a checkout)."

PACKAGE_DIR = Path(__file__).resolve().parents[1]
"The ``builder`` package folder (an installed wheel carries ``_templates``, ``_content``, ``_vendor`` here)."


def package_dir(name: str) -> Path:
    """The package's own ``name`` folder: the repository's in a checkout, else the wheel's ``builder/_name``."""
    if (REPO_ROOT / name).is_dir() and (REPO_ROOT / "pyproject.toml").is_file():
        return REPO_ROOT / name
    return PACKAGE_DIR / f"_{name}"


def find_dir(base: Path, name: str) -> Path:
    """``base/name`` when it exists, else the package's own (see ``package_dir``)."""
    p = base / name
    if p.is_dir():
        return p
    return package_dir(name)


def layered_dirs(base: Path | None, name: str) -> list[Path]:
    """The folders a file named under ``name`` is looked up in, first match wins: the site's
    ``base/name`` (when it exists and is not the package's own), then the package's."""
    own = package_dir(name)
    site = Path(base) / name if base is not None else None
    if site is not None and site.is_dir() and site.resolve() != own.resolve():
        return [site, own]
    return [own]


def find_file(base: Path | None, name: str, rel: str) -> Path:
    """``rel`` under the first of ``layered_dirs(base, name)`` that has it (else the package's path)."""
    dirs = layered_dirs(base, name)
    for d in dirs:
        if (d / rel).is_file():
            return d / rel
    return dirs[-1] / rel
