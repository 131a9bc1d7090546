"""Hostile names and absurd values from upstream, on the real files: every name is cleaned at
parse time (controls, bidi, zero-width; look-alike spellings folded), and a value over a cap
of ``site.yml`` ``limits`` excludes its row or fails the source with the reason, never a
traceback, and a build with all of them at once goes on."""

from __future__ import annotations

import json
import shutil
from datetime import UTC, date, datetime
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner
from conftest import LIGHT_ARENA

from builder.cli import main
from builder.config import LimitsConfig, SourceConfig
from builder.records import Payload
from builder.sources import PayloadError, parse_payload
from builder.sources.validate import clean_name
from builder.util.confusables import fold_confusables

ROOT = Path(__file__).resolve().parents[1]
NOW = datetime(2026, 11, 30, 12, tzinfo=UTC)
ARENA = SourceConfig(name="arena", kind="lmarena", evaluator="lmarena", date=date(2025, 12, 11))
EPOCH = SourceConfig(name="epoch", kind="epoch")
OPENROUTER = SourceConfig(name="openrouter", kind="openrouter")
LITELLM = SourceConfig(name="litellm", kind="litellm")


def payload(source: str, name: str, data: bytes) -> Payload:
    return Payload(source=source, files={name: data}, fetched_at=NOW, origin=name)


def arena_with(shared_data: Path, extra: dict[str, float]) -> Payload:
    data = json.loads((shared_data / "arena/lmarena/leaderboard-text.json").read_bytes())
    for name, rating in extra.items():
        data["full"][name] = {"rating": rating, "rating_q975": rating + 5, "rating_q025": rating - 5}
    return payload("arena", "leaderboard-text.json", json.dumps(data).encode())


def rows(result, model: str):
    return [o for o in result.observations if o.model == model]


def test_control_bidi_and_zero_width_characters_are_removed(shared_data: Path):
    # case 2: a NUL, BEL or ESC in a name broke the SVG render after the snapshot was saved
    hostile = {"evil\x00-model": 1400.0, "bell\x07-model": 1401.0, "esc\x1b[31m-model": 1402.0,
               "rtl\u202e-model": 1403.0, "zw\u200bj\u2060-model\ufeff": 1404.0, "c1\x85-model": 1405.0}
    result = parse_payload(arena_with(shared_data, hostile), ARENA)
    names = {o.model for o in result.observations}
    for name in ("evil-model", "bell-model", "esc[31m-model", "rtl-model", "zwj-model", "c1-model"):
        assert rows(result, name) and all(o.excluded is None for o in rows(result, name)), name
    assert not any(ch in n for n in names for ch in "\x00\x07\x1b\u202e\u200b\ufeff\x85")
    assert clean_name("tab\tand\nnewline") == "tab and newline"
    only_controls = parse_payload(arena_with(shared_data, {"\x00\x01": 1400.0}), ARENA)
    assert rows(only_controls, "(empty name)")[0].excluded.startswith("model name is empty")


def test_a_control_character_in_a_real_epoch_csv_row(shared_data: Path):
    lines = (shared_data / "epoch/epoch_capabilities_index.csv").read_bytes().split(b"\n")
    lines.append(b"evil\x00\x1bmodel_high,150.5,2025-10-01,OpenAI,USA,API access,,Confident,evil,desc,Evil")
    result = parse_payload(payload("epoch", "epoch_capabilities_index.csv", b"\n".join(lines)), EPOCH)
    assert any(o.model == "evilmodel_high" and o.excluded is None for o in result.observations)
    assert not any("\x00" in o.model for o in result.observations)


def test_look_alike_spellings_fold_to_the_name_they_read_as(shared_data: Path):
    # case 15: U+2011 NON-BREAKING HYPHEN and U+0440 CYRILLIC SMALL LETTER ER
    assert fold_confusables("gpt\u20116") == "gpt-6"
    assert fold_confusables("g\u0440t-6") == "gpt-6"
    cyrillic = "\u0413\u0438\u0433\u0430\u0427\u0430\u0442"
    assert fold_confusables(cyrillic) == cyrillic
    assert fold_confusables("\u901a\u4e49\u5343\u95ee") == "\u901a\u4e49\u5343\u95ee"  # another script: kept
    result = parse_payload(arena_with(shared_data, {"gpt\u20116": 1400.0, "g\u0440t-6": 1401.0}), ARENA)
    assert len(rows(result, "gpt-6")) == 2


def test_a_rating_of_1e308_excludes_its_row(shared_data: Path):
    # case 3: OverflowError downstream
    result = parse_payload(arena_with(shared_data, {"huge-model": 1e308, "negative-model": -1e300}), ARENA)
    for name in ("huge-model", "negative-model"):
        (row,) = rows(result, name)
        assert row.excluded and "beyond the cap" in row.excluded and row.raw is None
    assert sum(o.excluded is None for o in result.observations) > 500  # the real rows stay


def test_an_openrouter_price_of_1e308_excludes_its_row(shared_data: Path):
    data = json.loads((shared_data / "openrouter/openrouter_models.json").read_bytes())
    first, second = [m for m in data["data"] if ":" not in m["id"]][:2]
    first["pricing"]["prompt"] = "1e308"
    second["pricing"]["completion"] = "1e308"
    result = parse_payload(payload("openrouter", "openrouter_models.json", json.dumps(data).encode()), OPENROUTER)
    bad = [p for p in result.prices if p.key in (first["id"], second["id"])]
    assert len(bad) == 2 and all(p.excluded and "beyond the cap" in p.excluded and p.blended is None for p in bad)
    assert sum(p.excluded is None for p in result.prices) > 300


def test_a_4_mb_name_excludes_its_row_and_is_cut(shared_data: Path):
    # case 4: one 4 MB name made a 46 MB snapshot and a 311 MB site
    long = "x" * 4_000_000
    result = parse_payload(arena_with(shared_data, {long: 1400.0}), ARENA)
    (row,) = [o for o in result.observations if o.model.startswith("xxxx")]
    assert "max_name_length" in row.excluded and len(row.model) <= 201
    assert max(len(o.model) for o in result.observations) <= 201


def test_200000_models_fail_the_source(shared_data: Path):
    # case 5: 200,000 models had not finished after 19 minutes
    data = {"full": {f"model-{i}": {"rating": 1000.0 + i % 500} for i in range(200_000)}}
    with pytest.raises(PayloadError, match="200000 distinct model names, more than limits.max_models"):
        parse_payload(payload("arena", "leaderboard-text.json", json.dumps(data).encode()), ARENA)
    small = LimitsConfig(max_models=100)
    with pytest.raises(PayloadError, match="max_models"):
        parse_payload(arena_with(shared_data, {}), ARENA, small)


def test_a_litellm_date_of_9999_12_31_fails_the_source(shared_data: Path):
    # case 16: the front page said "Boards as of 9999-12-31"
    data = json.loads((shared_data / "litellm/model_prices_and_context_window.json").read_bytes())
    data["last_updated"] = "9999-12-31T00:00:00+00:00"
    with pytest.raises(PayloadError, match="publication date 9999-12-31 is in the future"):
        parse_payload(payload("litellm", "model_prices.json", json.dumps(data).encode()), LITELLM)


def test_a_future_row_date_excludes_the_row(shared_data: Path):
    lines = (shared_data / "epoch/epoch_capabilities_index.csv").read_bytes().split(b"\n")
    lines.append(b"future-model_high,150.5,9999-12-31,OpenAI,USA,API access,,Confident,f,desc,F")
    result = parse_payload(payload("epoch", "epoch_capabilities_index.csv", b"\n".join(lines)), EPOCH)
    (row,) = [o for o in result.observations if o.model == "future-model_high"]
    assert row.excluded and "in the future" in row.excluded


def test_a_build_with_every_hostile_value_at_once_goes_on(tmp_path: Path):
    """The live cases above through one offline build of the shipped site: exit 0, no
    traceback, a small snapshot, clean names on every page, LiteLLM failed with its reason."""
    demo = ROOT / "builder" / "data" / "demo"
    arena = json.loads((demo / "arena/leaderboard-text.json").read_bytes())
    for name, rating in {"evil\x00\x07\x1b-model": 1300.0, "huge-model": 1e308, "x" * 4_000_000: 1300.0,
                         "g\u0440t\u20116": 1300.0}.items():
        arena["full"][name] = {"rating": rating, "rating_q975": rating, "rating_q025": rating}
    (tmp_path / "arena.json").write_text(json.dumps(arena))
    router = json.loads((demo / "openrouter/models.json").read_bytes())
    [m for m in router["data"] if ":" not in m["id"]][0]["pricing"]["prompt"] = "1e308"
    (tmp_path / "openrouter.json").write_text(json.dumps(router))
    lite = json.loads((demo / "litellm/model_prices_and_context_window.json").read_bytes())
    lite["last_updated"] = "9999-12-31T00:00:00+00:00"
    (tmp_path / "litellm.json").write_text(json.dumps(lite))
    cfg = yaml.safe_load((ROOT / "site.yml").read_text())
    for s in cfg["sources"]:
        if s["name"] in ("arena", "openrouter", "litellm"):
            s["recorded"] = str(tmp_path / f"{s['name']}.json")
    cfg["fetch"] = {"store": str(tmp_path / "store")}
    cfg["snapshots_dir"] = str(tmp_path / "snapshots")
    cfg["arena"].update(LIGHT_ARENA)
    (tmp_path / "site.yml").write_text(yaml.safe_dump(cfg))
    shutil.copytree(ROOT / "content", tmp_path / "content")
    res = CliRunner().invoke(main, ["--config", str(tmp_path / "site.yml"), "build", "--now", NOW.isoformat(),
                                    "--out", str(tmp_path / "site")])
    assert res.exit_code == 0, res.output
    assert "Traceback" not in res.output
    assert "source litellm failed" in res.stderr and "9999-12-31" in res.stderr
    (snap,) = (tmp_path / "snapshots").glob("2026-11-30.json")
    assert snap.stat().st_size < 5_000_000
    text = snap.read_text(encoding="utf-8")
    assert "\\u0000" not in text and "\u0440" not in text and "9999-12-31" not in text.split('"sources"')[0]
    front = (tmp_path / "site" / "index.html").read_text(encoding="utf-8")
    assert "9999" not in front
    site_bytes = sum(p.stat().st_size for p in (tmp_path / "site").rglob("*") if p.is_file())
    assert site_bytes < 60_000_000


def test_a_saved_name_with_a_nul_still_renders_its_card():
    """A snapshot saved before names were cleaned may hold a NUL: the card drops it."""
    from builder.render.og import card_spec, render_png

    card = card_spec("ModelBoards", "evil\x00\x07\x1bmodel\ud800", "sub", ["1. evil\x00model"], "footer")
    assert "\x00" not in str(card) and "\ud800" not in "".join(str(s[-1]) for s in card)
    assert render_png(card).startswith(b"\x89PNG")
