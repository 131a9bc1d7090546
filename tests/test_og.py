"""Share previews: Open Graph and Twitter card tags on every board and model page, PNGs drawn
at build time by Pillow with the shipped Roboto font, the font licence shipped, the cache
reused so an unchanged card is not drawn again."""

from __future__ import annotations

import struct
from datetime import UTC, datetime
from html.parser import HTMLParser
from pathlib import Path

import pytest

from builder.config import load_config
from builder.render import og, og_draw
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


def test_cards_use_the_shipped_font_only_and_draw_text_as_it_is():
    card = og.card_spec("Site", "<b>&title", "sub", ["1. a"], "foot")
    assert ["text", 72, 176, 68, True, "#ffffff", "<b>&title"] in card  # pixels: nothing to escape
    with_font = og.render_png(card)
    assert _png_size(with_font) == (og.WIDTH, og.HEIGHT)
    # text is drawn (the same card without its text differs), with the shipped font only
    blank = og.render_png(og.card_spec("", "", "", [], ""))
    assert with_font != blank
    assert (og_draw._font(34, False).path, og_draw._font(68, True).path) == og.FONT_FILES
    long = og.card_spec("Site", "x" * 80, "sub", [], "foot")
    assert ["text", 72, 176, 68, True, "#ffffff", "x" * 29 + "\u2026"] in long


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


def test_only_cards_whose_content_changed_are_drawn_again(built, tmp_path, monkeypatch):
    out, snap, cfg, base, cache = built
    drawn: list[int] = []
    real = og._draw
    monkeypatch.setattr(og, "_draw", lambda cards, workers: drawn.append(len(cards)) or real(cards, workers))
    ident = sorted(snap.models)[0]  # its maker is shown on its own card only
    facts = snap.models[ident].model_copy(update={"maker": "Another maker"})
    changed = snap.model_copy(update={"models": {**snap.models, ident: facts}})
    again = tmp_path / "changed"
    render_site(changed, [], cfg, base, again, now=NOW, base_url=BASE_URL)
    assert drawn == [1]  # that model's card only; every other card comes from the cache
    card = Path("og") / "models" / f"{model_slug(ident)}.png"
    assert (again / card).read_bytes() != (out / card).read_bytes()
    for b in snap.boards:
        card = Path("og") / "boards" / f"{b.id}.png"
        assert (again / card).read_bytes() == (out / card).read_bytes()


def test_many_new_cards_are_drawn_in_worker_processes_with_the_same_bytes(tmp_path):
    cards = [og.card_spec("Site", f"Board {k}", "sub", [f"{k}. model"], "foot") for k in range(5)]
    serial = og._draw(cards, 1)
    assert og._draw(cards, 2) == serial  # in order, byte for byte
    assert len(set(serial)) == 5


def test_pending_cards_shown_twice_are_drawn_once(tmp_path, monkeypatch):
    class W:
        base, out, cache = tmp_path, tmp_path / "site", {}

    monkeypatch.setattr(og, "CACHE_DIR", tmp_path / "cache")
    card = og.card_spec("Site", "Same card", "sub", [], "foot")
    og.write_png(W, "og/a.png", card)
    og.write_png(W, "og/b.png", card)
    assert og.draw_pending_cards(W) == 1
    assert (W.out / "og" / "a.png").read_bytes() == (W.out / "og" / "b.png").read_bytes()
    assert (tmp_path / "cache" / f"{og.card_key(card)}.png").is_file()
    assert og.draw_pending_cards(W) == 0
    og.write_png(W, "og/c.png", card)  # now in the cache: copied, nothing queued
    assert og.draw_pending_cards(W) == 0 and (W.out / "og" / "c.png").is_file()
