"""Share previews: a 1200 x 630 PNG per board and model page, drawn at build time from SVG.

    og_card(w, rel, title, subtitle, lines, description) -> the page's ``og`` context
        (``og:title``, ``og:description``, ``og:image`` ... in ``base.html``)

The SVG is rasterised by ``resvg-py`` (resvg, self-contained) with the Roboto font from the
``font-roboto`` package (Apache License 2.0, its licence copied to ``og/FONT-LICENCE.txt``),
system fonts skipped, so a preview looks the same on every machine and needs no outside
service (``builder.render.og_draw``). Only what changed is drawn: a card is keyed by what it
shows (the SHA-256 of its SVG text and the renderer), cached under
``<site.yml folder>/.modelboards/og-cache/<key>.png`` and copied from there when the same
card was drawn before (an unchanged board or model costs a file copy). New cards are drawn
once every page is written (``draw_pending_cards``): in worker processes, one per core, when
there are at least ``PARALLEL_MIN`` of them, else in this process; a card shown by several
pages is drawn once. Text is XML-escaped; long lines are cut with an ellipsis.
"""

from __future__ import annotations

import concurrent.futures as cf
import hashlib
import multiprocessing
import os
import re
import shutil
from collections.abc import Sequence
from html import escape
from pathlib import Path
from typing import Any

from builder.render.og_draw import FONT_FILES, RENDERER, render_png, render_pngs  # noqa: F401  (og.render_png)
from builder.render.writer import SiteWriter

WIDTH, HEIGHT = 1200, 630
CACHE_DIR = Path(".modelboards") / "og-cache"
FONT_LICENCE = Path(FONT_FILES[0]).with_name("LICENSE")
PARALLEL_MIN = 16
"New cards below this count are drawn in this process: starting workers costs more than it saves."
_PENDING = "og_pending"


_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")
"Characters XML 1.0 cannot hold: an SVG with one is refused by the rasteriser."


def _cut(text: str, n: int) -> str:
    text = _NOT_XML.sub("", text)  # a snapshot saved before names were cleaned may still hold one
    return text if len(text) <= n else text[: n - 1].rstrip() + "\u2026"


def card_svg(site: str, title: str, subtitle: str, lines: Sequence[str], footer: str) -> str:
    """The card as SVG text (every string XML-escaped)."""
    rows = "".join(
        f'<text x="72" y="{318 + 52 * i}" font-size="34" fill="#e8eefc">{escape(_cut(line, 58))}</text>'
        for i, line in enumerate(lines[:5])
    )
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{HEIGHT}" viewBox="0 0 {WIDTH} {HEIGHT}">'
        f'<rect width="{WIDTH}" height="{HEIGHT}" fill="#0f2747"/>'
        f'<rect x="0" y="0" width="16" height="{HEIGHT}" fill="#4f8cff"/>'
        f'<g font-family="Roboto">'
        f'<text x="72" y="92" font-size="30" fill="#9fb7e6">{escape(_cut(site, 60))}</text>'
        f'<text x="72" y="176" font-size="68" font-weight="700" fill="#ffffff">{escape(_cut(title, 30))}</text>'
        f'<text x="72" y="236" font-size="32" fill="#c9d6f2">{escape(_cut(subtitle, 62))}</text>'
        f"{rows}"
        f'<text x="72" y="{HEIGHT - 44}" font-size="26" fill="#9fb7e6">{escape(_cut(footer, 80))}</text>'
        "</g></svg>"
    )


def card_key(svg: str) -> str:
    """The cache key of a card: SHA-256 of the renderer and the SVG (what the card shows)."""
    return hashlib.sha256(f"{RENDERER}\n{svg}".encode()).hexdigest()


def write_png(w: SiteWriter, rel: str, svg: str) -> None:
    """``rel`` in the site from the cache, else queued for ``draw_pending_cards``."""
    key = card_key(svg)
    cache = w.base / CACHE_DIR / f"{key}.png"
    dst = w.out / rel
    dst.parent.mkdir(parents=True, exist_ok=True)
    if cache.is_file():
        shutil.copyfile(cache, dst)
        w.cache["og_cached"] = w.cache.get("og_cached", 0) + 1
        return
    pending: dict[str, tuple[str, list[Path]]] = w.cache.setdefault(_PENDING, {})
    pending.setdefault(key, (svg, []))[1].append(dst)


def _draw(svgs: list[str], workers: int) -> list[bytes]:
    """PNGs of ``svgs`` in order, in ``workers`` processes (this one when 1)."""
    if workers <= 1:
        return render_pngs(svgs)
    chunks = [svgs[k::workers] for k in range(workers)]  # interleaved: equal shares of work
    # spawn: a clean worker that imports only the rasteriser (no forked locks or threads)
    with cf.ProcessPoolExecutor(max_workers=workers, mp_context=multiprocessing.get_context("spawn")) as pool:
        parts = list(pool.map(render_pngs, chunks))
    out: list[bytes] = [b""] * len(svgs)
    for k, part in enumerate(parts):
        out[k::workers] = part
    return out


def draw_pending_cards(w: SiteWriter, workers: int | None = None) -> int:
    """Draw every card ``write_png`` queued, write each where its pages want it and into the
    cache; returns the number drawn. ``workers``: processes (default: one per core when at
    least ``PARALLEL_MIN`` cards are new, else none)."""
    pending: dict[str, tuple[str, list[Path]]] = w.cache.pop(_PENDING, {})
    if not pending:
        return 0
    keys = list(pending)
    if workers is None:
        workers = min(os.cpu_count() or 1, len(keys)) if len(keys) >= PARALLEL_MIN else 1
    pngs = _draw([pending[k][0] for k in keys], workers)
    for key, png in zip(keys, pngs, strict=True):
        for dst in pending[key][1]:
            dst.write_bytes(png)
        try:
            cache = w.base / CACHE_DIR / f"{key}.png"
            cache.parent.mkdir(parents=True, exist_ok=True)
            tmp = cache.with_suffix(f".{key[:8]}.tmp")
            tmp.write_bytes(png)
            tmp.replace(cache)
        except OSError:
            pass  # a read-only checkout draws every card; the site is the same
    w.cache["og_rendered"] = w.cache.get("og_rendered", 0) + len(keys)
    return len(keys)


def og_card(
    w: SiteWriter, rel: str, title: str, subtitle: str, lines: Sequence[str], description: str
) -> dict[str, Any]:
    """Write the card ``rel`` (``og/...png``) and return the page's Open Graph / Twitter context."""
    if "og_licence" not in w.cache:
        w.cache["og_licence"] = True
        if FONT_LICENCE.is_file():
            (w.out / "og").mkdir(parents=True, exist_ok=True)
            shutil.copyfile(FONT_LICENCE, w.out / "og" / "FONT-LICENCE.txt")
    snap = w.snap
    footer = (f"Snapshot {snap.date}" + (" \u00b7 demo data" if snap.demo else "")) if snap is not None else ""
    write_png(w, rel, card_svg(str(w.common["site_title"]), title, subtitle, lines, footer))
    alt = f"{title}: {subtitle}" + ("; " + "; ".join(lines[:5]) if lines else "")
    return {"title": title, "description": description, "image": f"{w.common['base_url']}{rel}",
            "width": WIDTH, "height": HEIGHT, "alt": alt}
