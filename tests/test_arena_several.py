"""Several arenas from one build: GenAI-Arena's real battles (text-to-image and image editing
in one dump, told apart by model name) as two more arenas beside the text arena, each with its
page, downloads, API document and race; the text arena keeps its URLs."""

from __future__ import annotations

import csv
import functools
import http.server
import json
from datetime import UTC, datetime
from pathlib import Path

import pytest
from serving import serve_in_background

from builder.config import NamedArenaConfig, load_config
from builder.pairwise.arena import compute_arena_section

ROOT = Path(__file__).resolve().parents[1]
NOW = datetime(2026, 12, 1, 12, tzinfo=UTC)


def genai_arenas(battles: str | None = None, live_url: str | None = None) -> list[NamedArenaConfig]:
    # GenAI-Arena's published `full` ratings count every vote (not only anonymous ones)
    common = {"battles": battles, "live_url": live_url, "all_votes": True, "bootstrap": 20, "history": "day",
              "style_control": False}
    return [NamedArenaConfig(id="text-to-image", title="Text-to-Image", models=r"_generation$", **common),
            NamedArenaConfig(id="image-editing", title="Image Editing", models=r"_edition$", **common)]


def published(path: Path) -> dict[str, float]:
    with path.open(encoding="utf-8") as f:
        return {r["key"]: float(r["Arena Elo rating (full)"]) for r in csv.DictReader(f)}


def test_text_to_image_battles_reproduce_the_published_full_ratings(shared_data):
    folder = shared_data / "arena" / "genai-arena"
    section = compute_arena_section(folder / "clean_battle_20240220.json", genai_arenas()[0])
    want = published(folder / "t2i_generation_leaderboard.csv")
    got = {m.model.removeprefix("imagenhub_").removesuffix("_generation"): m.rating for m in section.models}
    assert set(got) == set(want)
    for key, rating in want.items():
        assert abs(got[key] - rating) <= 0.15, (key, got[key], rating)
    assert sorted(got, key=got.__getitem__) == sorted(want, key=want.__getitem__)
    assert section.arena_id == "text-to-image" and section.filters["models"] == 83  # the editing battles


@pytest.fixture(scope="module")
def built(tmp_path_factory, shared_data):
    from builder.pipeline import build

    tmp = tmp_path_factory.mktemp("several")
    cfg, base = load_config(ROOT / "site.yml")
    dump = str(shared_data / "arena" / "genai-arena" / "clean_battle_20240220.json")
    cfg = cfg.model_copy(update={"fetch": cfg.fetch.model_copy(update={"store": str(tmp / "store")}),
                                 "arenas": genai_arenas(battles=dump)})
    build(cfg, base, out=tmp / "site", now=NOW, snapshots_dir=tmp, base_url="https://example.org/mb/")
    snap = json.loads((tmp / f"{NOW.date().isoformat()}.json").read_text(encoding="utf-8"))
    return snap, tmp / "site"


def test_both_image_arenas_are_published_from_the_same_build(built):
    snap, site = built
    assert [a["arena_id"] for a in snap["arenas"]] == ["text-to-image", "image-editing"]
    assert (site / "arena" / "index.html").is_file() and (site / "data" / "arena" / "ratings.csv").is_file()
    listing = json.loads((site / "api" / "v1" / "arenas" / "index.json").read_text(encoding="utf-8"))
    assert [a["id"] for a in listing["arenas"]] == ["text", "text-to-image", "image-editing"]
    for a in snap["arenas"]:
        aid = a["arena_id"]
        page = (site / "arenas" / aid / "index.html").read_text(encoding="utf-8")
        assert f"Arena: {a['title']}" in page and 'href="../../arena/"' in page
        ratings = json.loads((site / "data" / "arenas" / aid / "ratings.json").read_text(encoding="utf-8"))
        assert [r["model"] for r in ratings] == [m["model"] for m in a["models"]]
        doc = json.loads((site / "api" / "v1" / "arenas" / f"{aid}.json").read_text(encoding="utf-8"))
        assert doc["n_battles"] == a["n_battles"] and len(doc["models"]) == len(a["models"])
        race = json.loads((site / "data" / "race" / f"arenas-{aid}.json").read_text(encoding="utf-8"))
        assert len(race["frames"]) == len(a["history"]) > 1
        assert f'value="arenas-{aid}"' in (site / "race" / "index.html").read_text(encoding="utf-8")
    edit = {m["model"] for m in snap["arenas"][1]["models"]}
    assert edit and all(m.endswith("_edition") for m in edit)
    assert "Arenas:" in (site / "arena" / "index.html").read_text(encoding="utf-8")


def test_the_live_path_fetches_each_arena_from_its_url(tmp_path, shared_data):
    from builder.fetch_battles import fetch_battles
    from builder.pipeline import arena_store, compute_more_arenas

    folder = shared_data / "arena" / "genai-arena"
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(folder))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    serve_in_background(server)
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}/clean_battle_20240220.json"
        cfg, base = load_config(ROOT / "site.yml")
        cfg = cfg.model_copy(update={"fetch": cfg.fetch.model_copy(update={"store": str(tmp_path / "store")}),
                                     "arenas": genai_arenas(live_url=url)})
        for a in cfg.arenas:
            status = fetch_battles(a, cfg.fetch, arena_store(cfg, base, a.id))
            assert status.ok, status.error
        sections = compute_more_arenas(cfg, base, live=True)
    finally:
        server.shutdown()
        server.server_close()
    assert [s.arena_id for s in sections] == ["text-to-image", "image-editing"]
    offline = compute_arena_section(folder / "clean_battle_20240220.json", cfg.arenas[0])
    assert [(m.model, m.rating) for m in sections[0].models] == [(m.model, m.rating) for m in offline.models]
