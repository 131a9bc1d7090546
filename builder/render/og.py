"""Share previews: a 1200 x 630 PNG per board and model page, drawn at build time from SVG.

    og_card(w, rel, title, subtitle, lines, description) -> the page's ``og`` context
        (``og:title``, ``og:description``, ``og:image`` ... in ``base.html``)

The SVG is rasterised by ``resvg-py`` (resvg, self-contained) with the Roboto font from the
``font-roboto`` package (Apache License 2.0, its licence copied to ``og/FONT-LICENCE.txt``),
system fonts skipped, so a preview looks the same on every machine and needs no outside
service. Only what is needed is rendered: a PNG is cached under
``<site.yml folder>/.modelboards/og-cache/<sha256 of the SVG and the renderer>.png`` and
copied from there when the same card was drawn before (an unchanged board or model costs a
file copy). Text is XML-escaped; long lines are cut with an ellipsis.
"""

from __future__ import annotations

import hashlib
import re
import shutil
from collections.abc import Sequence
from html import escape
from pathlib import Path
from typing import Any

import font_roboto
import resvg_py

from builder.render.writer import SiteWriter

WIDTH, HEIGHT = 1200, 630
CACHE_DIR = Path(".modelboards") / "og-cache"
FONT_FILES = (font_roboto.font_files["Roboto"], font_roboto.font_files["RobotoBold"])
FONT_LICENCE = Path(font_roboto.font_files["Roboto"]).with_name("LICENSE")
RENDERER = f"resvg-py {resvg_py.__version__}; Roboto (font-roboto); v1"
"Part of the cache key: a new renderer or card layout draws every card again."


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


def render_png(svg: str) -> bytes:
    """Rasterise ``svg`` with the shipped font only."""
    return bytes(resvg_py.svg_to_bytes(svg_string=svg, skip_system_fonts=True, font_files=list(FONT_FILES),
                                       font_family="Roboto", sans_serif_family="Roboto"))


def write_png(w: SiteWriter, rel: str, svg: str) -> None:
    """``rel`` in the site from the cache, else rendered (and cached)."""
    key = hashlib.sha256(f"{RENDERER}\n{svg}".encode()).hexdigest()
    cache = w.base / CACHE_DIR / f"{key}.png"
    dst = w.out / rel
    dst.parent.mkdir(parents=True, exist_ok=True)
    if cache.is_file():
        shutil.copyfile(cache, dst)
        w.cache["og_cached"] = w.cache.get("og_cached", 0) + 1
        return
    png = render_png(svg)
    dst.write_bytes(png)
    w.cache["og_rendered"] = w.cache.get("og_rendered", 0) + 1
    try:
        cache.parent.mkdir(parents=True, exist_ok=True)
        tmp = cache.with_suffix(f".{key[:8]}.tmp")
        tmp.write_bytes(png)
        tmp.replace(cache)
    except OSError:
        pass  # a read-only checkout renders every card; the site is the same


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
