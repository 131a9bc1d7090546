"""Which folders a site may be written into: the ``--out`` guard of ``render``, ``build`` and ``serve``.

The site swap renames the target folder away and deletes it, so ``--out`` must name a site
this tool wrote, never anything else. Every site carries ``SITE_MARKER`` at its root; a
folder is accepted as ``--out`` when it is missing, empty, or holds that marker (or is a
site written before the marker existed: ``sitemap.xml``, ``robots.txt`` and ``static/`` and
no ``site.yml``). Whatever it holds, the filesystem root, ``$HOME``, the project folder,
the snapshots folder and the payload store (and any folder holding one of them, or inside
the store) are refused.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

from builder.errors import UserError

SITE_MARKER = ".modelboards-site"
"The file every site this tool writes carries at its root."

MARKER_TEXT = "This folder is a site written by ModelBoards; the next build replaces it whole.\n"
"The marker's content (fixed: a render's output depends only on its inputs)."


def write_marker(site: Path) -> None:
    """Mark ``site`` (a freshly built folder) as one this tool wrote."""
    (Path(site) / SITE_MARKER).write_text(MARKER_TEXT, encoding="utf-8")


def _is_site(folder: Path) -> bool:
    if (folder / SITE_MARKER).is_file():
        return True
    # a site written before the marker existed
    return ((folder / "sitemap.xml").is_file() and (folder / "robots.txt").is_file()
            and (folder / "static").is_dir() and not (folder / "site.yml").exists())


def _within(path: Path, folder: Path) -> bool:
    return path == folder or folder in path.parents


def check_out_dir(out: Path, *, protected: Iterable[tuple[str, Path]] = (),
                  inside: Iterable[tuple[str, Path]] = ()) -> Path:
    """Refuse (``UserError``, one line) an output folder the site swap must not replace.

    ``protected``: (what, folder) pairs the output may neither be nor contain (the project
    folder, the snapshots folder, the store); ``inside``: (what, folder) pairs the output may
    not lie within (the snapshots folder, the store). The filesystem root and ``$HOME`` are
    always protected. Returns the resolved folder.
    """
    target = Path(out).expanduser().resolve()
    guarded: list[tuple[str, Path]] = [("the filesystem root", Path(target.anchor or "/"))]
    home = os.environ.get("HOME")
    if home:
        guarded.append(("your home folder ($HOME)", Path(home).expanduser().resolve()))
    guarded += [(what, Path(p).resolve()) for what, p in protected]
    for what, folder in guarded:
        if _within(folder, target):
            relation = "is" if folder == target else "holds"
            raise UserError(f"--out {out}: refused, it {relation} {what} ({folder}); "
                            "the site swap would delete it (use a folder of its own, e.g. site/)")
    for what, folder in inside:
        if _within(target, Path(folder).resolve()):
            raise UserError(f"--out {out}: refused, it is inside {what} ({Path(folder).resolve()}); "
                            "use a folder of its own, e.g. site/")
    if target.is_symlink() or (target.exists() and not target.is_dir()):
        raise UserError(f"--out {out}: refused, it is not a folder")
    if target.is_dir() and any(target.iterdir()) and not _is_site(target):
        raise UserError(f"--out {out}: refused, the folder is not empty and is not a site this tool wrote "
                        f"(no {SITE_MARKER} file); the site swap would delete its content")
    return target
