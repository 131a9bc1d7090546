"""Category boards from the battles' own tags: one full board per configured category, each
equal to a fit on the rows that meet its rule, each with its own page, downloads and race."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from builder.config import ArenaCategoryConfig, ArenaConfig
from builder.errors import UserError
from builder.pairwise.arena import compute_arena_section

CATS = [
    ArenaCategoryConfig(id="math", title="Math", tag="math_v0.1/math"),
    ArenaCategoryConfig(id="hard", title="Hard Prompts", tag="criteria_v0.1", tag_min_true=6),
    ArenaCategoryConfig(id="english", title="English", language="English"),
    ArenaCategoryConfig(id="coding", title="Coding", is_code=True),
    ArenaCategoryConfig(id="multi-turn", title="Multi-Turn", min_turn=2),
    ArenaCategoryConfig(id="longer-query", title="Longer Query", min_user_tokens=500),
]
CRITERIA = ("specificity", "domain_knowledge", "complexity", "problem_solving", "creativity", "technical_accuracy",
            "real_world")


def _in(row, cat):
    """The category rule written out in Python, for the expected rows."""
    tag, meta = row.get("category_tag") or {}, row.get("conv_metadata") or {}
    return {
        "math": (tag.get("math_v0.1") or {}).get("math") is True,
        "hard": sum(v is True for v in (tag.get("criteria_v0.1") or {}).values()) >= 6,
        "english": row.get("language") == "English",
        "coding": row.get("is_code") is True,
        "multi-turn": (row.get("turn") or 0) >= 2,
        "longer-query": (meta.get("sum_user_tokens") or 0) >= 500,
    }[cat]


def _tagged_battles(n=3000, seed=1):
    rng = np.random.default_rng(seed)
    models = [f"m{k}" for k in range(6)]
    skill = rng.normal(0, 0.6, size=6)
    rows = []
    for k in range(n):
        a, b = rng.choice(6, size=2, replace=False)
        math, code = bool(rng.random() < 0.3), bool(rng.random() < 0.25)
        # in math battles the order of the models is reversed: the boards must differ
        d = (skill[a] - skill[b]) * (-1 if math else 1)
        r = rng.random()
        winner = "tie" if r < 0.1 else "model_a" if r < 0.1 + 0.9 / (1 + np.exp(-d)) else "model_b"
        row = {"model_a": models[a], "model_b": models[b], "winner": winner, "tstamp": 1.75e9 + 600 * k,
               "anony": bool(rng.random() < 0.9),
               "dedup_tag": {"high_freq": False, "sampled": bool(rng.random() < 0.95)},
               "language": str(rng.choice(["English", "German", "Chinese"])), "is_code": code,
               "turn": int(rng.choice([1, 1, 2, 3])),
               "conv_metadata": {"sum_user_tokens": int(rng.integers(10, 1200))},
               "category_tag": {"math_v0.1": {"math": math},
                                "criteria_v0.1": {c: bool(rng.random() < 0.75) for c in CRITERIA}}}
        if k % 97 == 0:
            row["category_tag"] = None  # untagged battles belong to no tag board
        rows.append(row)
    return rows


@pytest.fixture(scope="module")
def tagged(tmp_path_factory):
    folder = tmp_path_factory.mktemp("tagged")
    rows = _tagged_battles()
    path = folder / "battles.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    cfg = ArenaConfig(bootstrap=20, seed=4, history="month", categories=CATS)
    return folder, rows, path, cfg, compute_arena_section(path, cfg)


def test_one_board_per_category_each_equal_to_a_fit_on_its_rows(tagged):
    folder, rows, path, cfg, section = tagged
    assert [c.category.id for c in section.categories] == [c.id for c in CATS]
    official = [r for r in rows if r["anony"] and r["dedup_tag"]["sampled"]]
    assert section.n_battles == len(official)
    plain_cfg = ArenaConfig(bootstrap=20, seed=4, history="month")
    for cat, board in zip(CATS, section.categories, strict=True):
        mine = [r for r in official if _in(r, cat.id)]
        assert board.n_battles == len(mine) > 100, cat.id
        assert board.filters["category"] == len(official) - len(mine)
        sub = folder / f"{cat.id}.jsonl"
        sub.write_text("".join(json.dumps(r) + "\n" for r in mine), encoding="utf-8")
        alone = compute_arena_section(sub, plain_cfg)
        got = {m.model: m for m in board.models}
        want = {m.model: m for m in alone.models}
        assert set(got) == set(want)
        for name, m in want.items():
            g = got[name]
            # the maximum-likelihood fit is the same; the seeded bootstrap draws pairs in the
            # file's model order, which the other rows of the full file set, so only its
            # intervals' presence is compared
            assert (g.rating, g.rank, g.battles, g.wins, g.ties, g.elo) == \
                   (m.rating, m.rank, m.battles, m.wins, m.ties, m.elo), (cat.id, name)
            assert g.lower < g.rating < g.upper and g.rank_ub >= 1
        assert board.category.title == cat.title and board.history  # a full board, race frames included
    math = {m.model: m.rank for m in section.categories[0].models}
    main = {m.model: m.rank for m in section.models}
    assert math != main


def test_category_rule_on_parquet_reads_the_same_boards(tagged, tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    folder, rows, path, cfg, section = tagged
    pq.write_table(pa.Table.from_pylist(rows), tmp_path / "battles.parquet")
    again = compute_arena_section(tmp_path / "battles.parquet", cfg.model_copy(update={"bootstrap": 0}))
    for a, b in zip(again.categories, section.categories, strict=True):
        assert a.n_battles == b.n_battles and {m.model: m.rating for m in a.models} == \
            {m.model: m.rating for m in b.models}


def test_category_config_needs_a_criterion():
    with pytest.raises(ValueError, match="at least one criterion"):
        ArenaCategoryConfig(id="x", title="X")


def test_a_category_the_dump_does_not_tag_is_left_out(tmp_path, caplog):
    path = tmp_path / "plain.jsonl"
    path.write_text("".join(json.dumps({"model_a": a, "model_b": b, "winner": "model_a", "tstamp": 1.7e9 + k})
                            + "\n" for k, (a, b) in enumerate([("x", "y"), ("y", "z"), ("z", "x")] * 5)))
    section = compute_arena_section(path, ArenaConfig(bootstrap=0, categories=CATS[:1]))
    assert section.categories == () and "arena category math: no board" in caplog.text
    with pytest.raises(UserError):
        compute_arena_section(path, ArenaConfig(bootstrap=0), category=CATS[0])


def test_category_pages_downloads_and_race(tagged, tmp_path):
    from datetime import UTC, datetime

    from builder.config import load_config
    from builder.render.site import render_site
    from builder.snapshot import validate_snapshot

    root = Path(__file__).resolve().parents[1]
    folder, rows, path, cfg, section = tagged
    snap = json.loads(sorted((root / "snapshots").glob("20*.json"))[-1].read_text(encoding="utf-8"))
    snap["arena"] = section.model_dump(mode="json")
    first = next(iter(snap["models"]))
    snap["models"][first]["spellings"] += [f"m{k}" for k in range(6)]
    site_cfg, base = load_config(root / "site.yml")
    out = tmp_path / "site"
    render_site(validate_snapshot(snap), [], site_cfg, root, out, now=datetime(2026, 12, 1, tzinfo=UTC),
                base_url="https://example.org/mb/")
    main = (out / "arena" / "index.html").read_text(encoding="utf-8")
    for cat, board in zip(CATS, section.categories, strict=True):
        page = (out / "arena" / cat.id / "index.html").read_text(encoding="utf-8")
        assert f"Arena: {cat.title}" in page and f"{board.n_battles:,} votes" in page
        assert f'href="../../arena/{cat.id}/"' in main or f"arena/{cat.id}/" in main
        ratings = json.loads((out / "data" / "arena" / cat.id / "ratings.json").read_text(encoding="utf-8"))
        assert [r["model"] for r in ratings] == [m.model for m in board.models]
        race = json.loads((out / "data" / "race" / f"arena-{cat.id}.json").read_text(encoding="utf-8"))
        assert race["id"] == f"arena-{cat.id}" and len(race["frames"]) == len(board.history)
        assert f'value="arena-{cat.id}"' in (out / "race" / "index.html").read_text(encoding="utf-8")
