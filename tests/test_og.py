"""Share previews: Open Graph and Twitter card tags on every board and model page, PNGs drawn
at build time by resvg-py with the shipped Roboto font, the font licence shipped, the cache
reused so an unchanged card is not drawn again."""

from __future__ import annotations

import struct
from datetime import UTC, datetime
from html.parser import HTMLParser
from pathlib import Path

import pytest

from builder.config import load_config
from builder.render import og
from builder.render.site import render_site
from builder.snapshot import load_snapshot
from builder.util.text import model_slug

ROOT = Path(__file__).resolve().parents[1]
NOW = datetime(2026, 11, 29, 13, tzinfo=UTC)
BASE_URL = "https://example.org/mb/"


class Meta(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: dict[str, str] = {}

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "meta" and (a.get("property") or a.get("name")):
            self.tags[a.get("property") or a["name"]] = a.get("content") or ""


def _meta(path: Path) -> dict[str, str]:
    p = Meta()
    p.feed(path.read_text(encoding="utf-8"))
    return p.tags


def _png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    return struct.unpack(">II", data[16:24])


@pytest.fixture(scope="module")
def built(tmp_path_factory, monkeypatch_module):
    cache = tmp_path_factory.mktemp("og-cache")
    monkeypatch_module.setattr(og, "CACHE_DIR", cache)  # absolute: base / CACHE_DIR is CACHE_DIR
    cfg, base = load_config(ROOT / "site.yml")
    snap = load_snapshot(ROOT / "snapshots" / "2026-11-29.json")
    out = tmp_path_factory.mktemp("og-site") / "s"
    render_site(snap, [], cfg, base, out, now=NOW, base_url=BASE_URL)
    return out, snap, cfg, base, cache


@pytest.fixture(scope="module")
def monkeypatch_module():
    mp = pytest.MonkeyPatch()
    yield mp
    mp.undo()


def test_board_and_model_pages_carry_cards(built):
    out, snap, *_ = built
    pages = [(f"boards/{b.id}/index.html", f"og/boards/{b.id}.png", b.title) for b in snap.boards]
    pages += [(f"models/{model_slug(i)}/index.html", f"og/models/{model_slug(i)}.png", None) for i in snap.models]
    for page, png, title in pages:
        tags = _meta(out / page)
        for key in ("og:title", "og:description", "og:image", "twitter:card", "twitter:image"):
            assert tags.get(key), (page, key)
        assert tags["og:image"] == BASE_URL + png and tags["twitter:card"] == "summary_large_image"
        if title:
            assert tags["og:title"] == title
        assert _png_size((out / png).read_bytes()) == (og.WIDTH, og.HEIGHT)
    assert "og:image" not in _meta(out / "methodology" / "index.html")
    assert "Apache License" in (out / "og" / "FONT-LICENCE.txt").read_text()


def test_cards_use_the_shipped_font_only_and_escape_text():
    svg = og.card_svg("Site", "<b>&title", "sub", ["1. a"], "foot")
    assert "&lt;b&gt;&amp;title" in svg
    with_font = og.render_png(svg)
    assert _png_size(with_font) == (og.WIDTH, og.HEIGHT)
    # text is drawn (the same card without its text differs), with no system font involved
    blank = og.render_png(og.card_svg("", "", "", [], ""))
    assert with_font != blank


def test_unchanged_cards_come_from_the_cache(built, tmp_path):
    out, snap, cfg, base, cache = built
    n = len(list(cache.glob("*.png")))
    assert n == len(snap.boards) + len(snap.models)
    again = tmp_path / "again"
    render_site(snap, [], cfg, base, again, now=NOW, base_url=BASE_URL)
    assert len(list(cache.glob("*.png"))) == n  # nothing new drawn
    for b in snap.boards:
        card = Path("og") / "boards" / f"{b.id}.png"
        assert (again / card).read_bytes() == (out / card).read_bytes()
