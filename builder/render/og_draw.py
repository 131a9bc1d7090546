"""Drawing share cards, kept apart from the rest of rendering so the worker processes that
draw many new cards at once import only Pillow and the font.

A card is a list of shapes (``og.card_spec``): ``["rect", x0, y0, x1, y1, colour]`` and
``["text", x, baseline_y, size, bold, colour, text]``, drawn in order on a 1200 x 630 RGB
canvas with the Roboto font from the ``font-roboto`` package (no system font), Pillow's
basic text layout (the same glyphs on every machine, with or without libraqm), and saved as
PNG. Fonts are opened once per process, and Pillow's drawing modules are imported by the
first card drawn (a render whose cards all come from the cache never imports them).
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from functools import cache
from typing import TYPE_CHECKING, Any

import font_roboto
import PIL

if TYPE_CHECKING:
    from PIL import ImageFont

FONT_FILES = (font_roboto.font_files["Roboto"], font_roboto.font_files["RobotoBold"])
RENDERER = f"Pillow {PIL.__version__}; Roboto (font-roboto); basic layout; v2"
"Part of the card cache key: a new renderer or card layout draws every card again."

Shape = Sequence[Any]


@cache
def _font(size: int, bold: bool) -> ImageFont.FreeTypeFont:
    from PIL import ImageFont

    return ImageFont.truetype(FONT_FILES[1 if bold else 0], size, layout_engine=ImageFont.Layout.BASIC)


def render_png(shapes: Sequence[Shape], width: int = 1200, height: int = 630) -> bytes:
    """The card's PNG: ``shapes`` drawn in order on a black ``width`` x ``height`` canvas."""
    from PIL import Image, ImageDraw

    image = Image.new("RGB", (width, height))
    draw = ImageDraw.Draw(image)
    for shape in shapes:
        if shape[0] == "rect":
            _, x0, y0, x1, y1, colour = shape
            draw.rectangle((x0, y0, x1 - 1, y1 - 1), fill=colour)
        else:
            _, x, y, size, bold, colour, text = shape
            if text:
                draw.text((x, y), text, font=_font(size, bool(bold)), fill=colour, anchor="ls")
    out = io.BytesIO()
    image.save(out, "PNG")
    return out.getvalue()


def render_pngs(cards: Sequence[Sequence[Shape]]) -> list[bytes]:
    """``render_png`` of each card, in order (one task of a worker process)."""
    return [render_png(c) for c in cards]


__all__ = ["FONT_FILES", "RENDERER", "render_png", "render_pngs"]
