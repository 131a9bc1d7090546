"""Drawing share cards (SVG -> PNG), kept apart from the rest of rendering so the worker
processes that draw many new cards at once import only the rasteriser and the font.

The SVG is rasterised by ``resvg-py`` (resvg, self-contained) with the Roboto font from the
``font-roboto`` package, system fonts skipped, so a card looks the same on every machine.
"""

from __future__ import annotations

from collections.abc import Sequence

import font_roboto
import resvg_py

FONT_FILES = (font_roboto.font_files["Roboto"], font_roboto.font_files["RobotoBold"])
RENDERER = f"resvg-py {resvg_py.__version__}; Roboto (font-roboto); v1"
"Part of the card cache key: a new renderer or card layout draws every card again."


def render_png(svg: str) -> bytes:
    """Rasterise ``svg`` with the shipped font only."""
    return bytes(resvg_py.svg_to_bytes(svg_string=svg, skip_system_fonts=True, font_files=list(FONT_FILES),
                                       font_family="Roboto", sans_serif_family="Roboto"))


def render_pngs(svgs: Sequence[str]) -> list[bytes]:
    """``render_png`` of each SVG, in order (one task of a worker process)."""
    return [render_png(s) for s in svgs]


__all__ = ["FONT_FILES", "RENDERER", "render_png", "render_pngs"]
