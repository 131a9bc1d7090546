"""Share previews: a 1200 x 630 PNG per board and model page, drawn at build time.

    og_card(w, rel, title, subtitle, lines, description) -> the page's ``og`` context
        (``og:title``, ``og:description``, ``og:image`` ... in ``base.html``)

A card is a short list of shapes (``card_spec``: rectangles and lines of text), drawn by
Pillow with the Roboto font from the ``font-roboto`` package (Apache License 2.0, its licence
copied to ``og/FONT-LICENCE.txt``), system fonts never used, so a preview looks the same on
every machine and needs no outside service (``builder.render.og_draw``; about 18 ms of CPU a
card). Only what changed is drawn: a card is keyed by what it shows (the SHA-256 of its
shapes and the renderer), cached under
``<site.yml folder>/.modelboards/og-cache/<key>.png`` and copied from there when the same
card was drawn before (an unchanged board or model costs a file copy). New cards are drawn
once every page is written (``draw_pending_cards``): in worker processes, one per core, when
there are at least ``PARALLEL_MIN`` of them, else in this process; a card shown by several
pages is drawn once. Text is drawn as pixels (nothing to escape); control characters are
dropped and long lines cut with an ellipsis.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from builder.render.og_draw import FONT_FILES, RENDERER, Shape, render_png, render_pngs  # noqa: F401  (og.render_png)
from builder.render.writer import SiteWriter

WIDTH, HEIGHT = 1200, 630
CACHE_DIR = Path(".modelboards") / "og-cache"
FONT_LICENCE = Path(FONT_FILES[0]).with_name("LICENSE")
PARALLEL_MIN = 16
"New cards below this count are drawn in this process: starting workers costs more than it saves."
PENDING_CARDS = "og_pending"
"The ``SiteWriter.cache`` key of the cards ``write_png`` queued (card key -> the card, where it goes)."


_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")
"Control characters and lone surrogates: nothing a card can draw (a font shows them as boxes)."


def _cut(text: str, n: int) -> str:
    text = _NOT_XML.sub("", text)  # a snapshot saved before names were cleaned may still hold one
    return text if len(text) <= n else text[: n - 1].rstrip() + "\u2026"


def card_spec(site: str, title: str, subtitle: str, lines: Sequence[str], footer: str) -> list[Shape]:
    """The card as shapes for ``og_draw.render_png``: the background, the accent bar, the site,
    the title, the subtitle, up to five lines and the footer (text cut to fit)."""
    def text(x: int, y: int, size: int, colour: str, value: str, n: int, bold: bool = False) -> Shape:
        return ["text", x, y, size, bold, colour, _cut(value, n)]

    return [
        ["rect", 0, 0, WIDTH, HEIGHT, "#0f2747"],
        ["rect", 0, 0, 16, HEIGHT, "#4f8cff"],
        text(72, 92, 30, "#9fb7e6", site, 60),
        text(72, 176, 68, "#ffffff", title, 30, bold=True),
        text(72, 236, 32, "#c9d6f2", subtitle, 62),
        *(text(72, 318 + 52 * i, 34, "#e8eefc", line, 58) for i, line in enumerate(lines[:5])),
        text(72, HEIGHT - 44, 26, "#9fb7e6", footer, 80),
    ]


def card_key(card: Sequence[Shape]) -> str:
    """The cache key of a card: SHA-256 of the renderer and the shapes (what the card shows)."""
    return hashlib.sha256(f"{RENDERER}\n{json.dumps(card, ensure_ascii=False)}".encode()).hexdigest()


def write_png(w: SiteWriter, rel: str, card: Sequence[Shape]) -> None:
    """``rel`` in the site from the cache, else queued for ``draw_pending_cards``."""
    key = card_key(card)
    cache = w.base / CACHE_DIR / f"{key}.png"
    dst = w.out / rel
    dst.parent.mkdir(parents=True, exist_ok=True)
    if cache.is_file():
        shutil.copyfile(cache, dst)
        w.cache["og_cached"] = w.cache.get("og_cached", 0) + 1
        return
    pending: dict[str, tuple[Sequence[Shape], list[Path]]] = w.cache.setdefault(PENDING_CARDS, {})
    pending.setdefault(key, (card, []))[1].append(dst)


def _draw(cards: list[Sequence[Shape]], workers: int) -> list[bytes]:
    """PNGs of ``cards`` in order, in ``workers`` processes (this one when 1)."""
    if workers <= 1:
        return render_pngs(cards)
    import concurrent.futures as cf
    import multiprocessing

    chunks = [cards[k::workers] for k in range(workers)]  # interleaved: equal shares of work
    # spawn: a clean worker that imports only Pillow and the font (no forked locks or threads)
    with cf.ProcessPoolExecutor(max_workers=workers, mp_context=multiprocessing.get_context("spawn")) as pool:
        parts = list(pool.map(render_pngs, chunks))
    out: list[bytes] = [b""] * len(cards)
    for k, part in enumerate(parts):
        out[k::workers] = part
    return out


def draw_pending_cards(w: SiteWriter, workers: int | None = None) -> int:
    """Draw every card ``write_png`` queued, write each where its pages want it and into the
    cache; returns the number drawn. ``workers``: processes (default: one per core when at
    least ``PARALLEL_MIN`` cards are new, else none)."""
    pending: dict[str, tuple[Sequence[Shape], list[Path]]] = w.cache.pop(PENDING_CARDS, {})
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
    write_png(w, rel, card_spec(str(w.common["site_title"]), title, subtitle, lines, footer))
    alt = f"{title}: {subtitle}" + ("; " + "; ".join(lines[:5]) if lines else "")
    return {"title": title, "description": description, "image": f"{w.common['base_url']}{rel}",
            "width": WIDTH, "height": HEIGHT, "alt": alt}
