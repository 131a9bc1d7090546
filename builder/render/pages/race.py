"""The bar-chart race page (``/race/``): the race documents of ``builder.charts.race`` animated with D3.

The page writes ``data/race/boards.json`` and ``data/race/arena.json`` and copies D3 v7 into
``static/vendor/``; the chart pages use that copy. D3 comes from the copy an installed wheel
carries (``builder/_vendor/``, put there by the wheel's build step from the npm package at the
version package.json pins, with its licence), else from ``node_modules/d3`` (``npm ci``) beside
site.yml, else from the repository's ``node_modules``.
"""

from __future__ import annotations

import logging
import shutil
from collections.abc import Sequence
from pathlib import Path

from builder.charts.race import (
    ARENA_JSON,
    BOARDS_JSON,
    arena_race_path,
    compute_arena_board_races,
    compute_race_data,
    dump_race_doc,
    order_snapshots,
)
from builder.render.writer import SiteWriter, Snap

log = logging.getLogger(__name__)

REPO_ROOT = Path(__file__).resolve().parents[3]
D3_DIST = Path("node_modules") / "d3" / "dist" / "d3.min.js"
"D3 v7 from the npm package (``npm ci``); the build copies it into the site."
D3_VENDOR = Path(__file__).resolve().parents[2] / "_vendor" / "d3.min.js"
"The wheel's own copy of D3 (its licence beside it as ``d3.LICENSE``); absent in a checkout."
D3_SITE_PATH = "static/vendor/d3.min.js"



def find_d3(base: Path | None = None) -> Path | None:
    """The wheel's ``builder/_vendor/d3.min.js``, else ``node_modules/d3/dist/d3.min.js`` beside
    ``base`` (site.yml's folder), else the repository's; None when none exists."""
    if D3_VENDOR.is_file():
        return D3_VENDOR
    for root in ([Path(base)] if base is not None else []) + [REPO_ROOT]:
        p = root / D3_DIST
        if p.is_file():
            return p
    return None


def _d3_licence(src: Path) -> Path | None:
    """The ISC licence that travels with ``src``: the vendored ``d3.LICENSE`` or the npm package's."""
    for p in (src.with_name("d3.LICENSE"), src.parents[1] / "LICENSE"):
        if p.is_file():
            return p
    return None


def copy_d3(out_site_dir: Path, base: Path | None = None) -> Path | None:
    """Copy D3 (and its ISC licence) into ``static/vendor/``; None when ``npm ci`` has not run."""
    src = find_d3(base)
    if src is None:
        return None
    dst = Path(out_site_dir) / D3_SITE_PATH
    dst.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(src, dst)
    licence = _d3_licence(src)
    if licence is not None:
        shutil.copyfile(licence, dst.with_name("d3.LICENSE.txt"))
    return dst


def render_race_page(
    w: SiteWriter,
    snapshot: Snap | None,
    history: Sequence[Snap],
    *,
    base: Path | None = None,
) -> None:
    """Write ``race/index.html``, its two JSON downloads and the D3 copy through the site writer.

    ``snapshot`` is the current snapshot (None: history only), ``history`` the earlier ones.
    Without D3 (``npm ci`` not run) the page still renders its table, says why there is no
    animation, and a warning is logged.
    """
    boards_doc, arena_doc = compute_race_data(history, snapshot)
    w.file(BOARDS_JSON, dump_race_doc(boards_doc))
    w.file(ARENA_JSON, dump_race_doc(arena_doc))
    d3 = copy_d3(w.out, base)
    if d3 is None:
        log.warning("race page: D3 not found (neither in the package nor %s; run `npm ci`); "
                    "the page shows tables only", D3_DIST)
    choices = [{"id": b["id"], "title": b["title"], "frames": len(b["frames"])}
               for b in boards_doc["boards"] if b["frames"]]
    if arena_doc["frames"]:
        choices.append({"id": "arena", "title": arena_doc["title"], "frames": len(arena_doc["frames"])})
    # each Arena category board is a race of its own, in its own file (loaded when chosen)
    for doc in compute_arena_board_races(snapshot):
        w.file(arena_race_path(doc["id"]), dump_race_doc(doc))
        if doc["frames"]:
            choices.append({"id": doc["id"], "title": doc["title"], "frames": len(doc["frames"])})
    first = next((b for b in boards_doc["boards"] if b["frames"]), None)
    if first is None and arena_doc["frames"]:
        first = arena_doc
    frame = first["frames"][-1] if first else None
    demo_from = [s.date for s in order_snapshots([snapshot, *history]) if s.backfill]
    w.page("race/index.html", "race.html", title="Ranking race", section="race",
           description="How the boards' rankings changed, snapshot by snapshot, as an animated bar-chart race.",
           choices=choices, default=first, frame=frame, has_d3=d3 is not None,
           boards_json=BOARDS_JSON, arena_json=ARENA_JSON, race_dir="data/race/", d3_path=D3_SITE_PATH,
           backfilled=(demo_from[0], demo_from[-1]) if demo_from else None)


def render_race(w: SiteWriter) -> None:
    """The race of the writer's current and earlier snapshots."""
    render_race_page(w, w.snap, w.history)
