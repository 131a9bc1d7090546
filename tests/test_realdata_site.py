"""The site a reader gets from the real upstream files, built through the live path
(``modelboards build --live`` against a server on 127.0.0.1, ``demo: false``): one shared
build per session (the ``real_site`` fixture, tests/realsite.py).

What it must never do: show a demo-roster model or a demo fact, date data by the fetch day,
show a price key or reseller route as a name, carry the demo history into a live site, or
tie a whole board together."""

from __future__ import annotations

import json
from collections import defaultdict
from datetime import date
from pathlib import Path

import pytest
import yaml

from builder.config import load_config
from builder.identity import identity_of
from builder.render.intervals import compute_tie_groups
from builder.snapshot.models import Snapshot
from builder.util.text import model_slug

ROOT = Path(__file__).resolve().parents[1]
#: The real files' publication dates: the upstream commit of each file (../shared/data/MANIFEST.md).
COMMIT_DAYS = {"arena": "2025-12-11", "arena-catalog": "2025-12-17", "epoch": "2025-11-07", "aider": "2025-10-04",
               "litellm": "2026-07-24", "openrouter": "2026-08-19"}


@pytest.fixture(scope="module")
def snap(real_snapshot) -> Snapshot:
    return real_snapshot


@pytest.fixture(scope="module")
def cfg(real_site):
    return load_config(real_site.config)[0]


def _row(board, identity):
    return next(r for r in board.rows if r.identity == identity)


def _board(snap: Snapshot, board_id: str):
    return next(b for b in snap.boards if b.id == board_id)


def _ident(cfg, spelling: str) -> str:
    return identity_of(spelling, cfg.folding, cfg.aliases)


def test_the_build_is_live_and_not_demo(snap, real_site):
    assert snap.demo is False
    assert "source piratebench failed" not in real_site.output  # no live URL is not a failure
    ok = {s.name for s in snap.sources if s.status == "ok"}
    assert {"arena", "arena-catalog", "epoch", "aider", "livebench", "terminal-bench", "litellm", "openrouter",
            "modelsdev"} <= ok


def test_no_page_and_no_fact_from_the_demo_roster(snap, cfg, real_site):
    roster = yaml.safe_load((ROOT / "builder" / "data" / "models.yml").read_text(encoding="utf-8"))
    assert "metadata" not in {s.name for s in snap.sources}  # the roster is not a source of a live site
    real = {o.identity for o in snap.observations} | {p.identity for p in snap.prices.token}
    invented = {_ident(cfg, e["model"]) for e in roster} - real
    assert len(invented) >= 20  # the roster's invented models (deepseek-v4, ...) are still invented
    pages = {p.name for p in (real_site.site / "models").iterdir()}
    assert not {model_slug(i) for i in invented} & pages
    assert not invented & set(snap.models)


def _catalog_facts(real_site, cfg) -> dict[str, dict[str, set]]:
    """identity -> fact -> every value a catalog source states for one of its spellings, read
    from the stored payloads by the project's own parsers."""
    from builder.pipeline import gather_inputs

    out: dict[str, dict[str, set]] = defaultdict(lambda: defaultdict(set))
    kinds = {s.name: s.kind for s in cfg.sources}
    for m in gather_inputs(cfg, real_site.config.parent).models:  # identities as the build gave them
        if kinds.get(m.source) in ("modelsdev", "lmarena_catalog", "epoch"):
            facts = out[m.identity]
            if m.release_date is not None:
                facts["release_date"].add(m.release_date.isoformat())
            if m.params_b is not None:
                facts["params_b"].add(m.params_b)
    return out


def test_no_invented_fact_release_dates_and_sizes_come_from_the_catalogs(snap, cfg, real_site):
    catalogs = {s.name for s in snap.sources if s.kind in ("modelsdev", "lmarena_catalog", "epoch")}
    stated = _catalog_facts(real_site, cfg)
    dated = 0
    for ident, m in snap.models.items():
        if m.release_date is not None:
            dated += 1
            assert m.sources.release_date in catalogs, (ident, m.sources)
            assert m.release_date in stated[ident]["release_date"], (ident, m.release_date)
        if m.params_b is not None:
            assert m.sources.params_b in catalogs, (ident, m.sources)
            assert m.params_b in stated[ident]["params_b"], (ident, m.params_b)
    assert dated >= 50


def test_the_model_page_says_where_each_fact_came_from(snap, real_site):
    m = snap.models["gpt-oss-120b"]
    assert m.release_date == "2025-08-05" and m.open_weight is True
    assert m.sources.release_date == "modelsdev" and m.sources.open_weight == "modelsdev"
    page = (real_site.site / "models" / "gpt-oss-120b" / "index.html").read_text(encoding="utf-8")
    assert "2025-08-05" in page and "models.dev" in page


def test_gpt_oss_and_qwen3_32b_are_on_the_open_weight_board(snap, cfg):
    board = _board(snap, "open-weight")
    on_board = {r.identity for r in [*board.rows, *board.new]}
    for spelling in ("gpt-oss-120b", "qwen3-32b"):
        assert _ident(cfg, spelling) in on_board, spelling


def test_no_display_name_is_a_price_key_or_reseller_route(snap):
    names = [m.name for m in snap.models.values()] + [r.model for b in snap.boards for r in [*b.rows, *b.new]]
    bad = [n for n in names if "/" in n or "@" in n]
    assert not bad, bad[:10]


def test_display_names_come_from_the_catalog(snap):
    assert snap.models["gpt-oss-120b"].name == "GPT OSS 120B"  # models.dev's name


def test_undated_payloads_are_dated_by_their_upstream_commit(snap, real_site):
    published = {s.name: s.published for s in snap.sources}
    for name, day in COMMIT_DAYS.items():
        assert published[name] == day, (name, published[name])
    today = date.fromisoformat(snap.date)
    assert all(p is None or date.fromisoformat(p) < today for p in published.values()), published
    assert snap.as_of is not None and snap.as_of < snap.date
    # the boards are dated by their newest scores (LiveBench's), not by the later price lists
    assert snap.as_of == published["livebench"] == "2026-01-08" < published["openrouter"]
    # a payload with no date of its own and no upstream commit (the models.dev tarball) is dated "unknown"
    assert published["modelsdev"] is None
    html = (real_site.site / "boards" / "orchestrator" / "index.html").read_text(encoding="utf-8")
    row = html.split("models.dev model catalog</a></td>", 1)[1].split("</tr>", 1)[0]
    assert "<td>unknown</td>" in row


def test_the_upstream_commit_date_is_asked_of_the_configured_github_api(real_site):
    store = real_site.config.parent / "store"
    manifest = json.loads((store / "aider" / "payload.json").read_text(encoding="utf-8"))
    assert manifest["published"] == "2025-10-04" and manifest["live"] is True
    assert manifest["fetched_at"][:10] != "2025-10-04"  # fetched today, published then


def test_a_first_live_snapshot_has_no_movement_and_no_new_flood(snap, real_site):
    assert snap.previous_date is None
    assert all(r.movement is None for b in snap.boards for r in b.rows)
    changes = (real_site.site / "changes" / "index.html").read_text(encoding="utf-8")
    assert "new models" not in changes and "board exits" not in changes
    feed = (real_site.site / "feed.xml").read_text(encoding="utf-8")
    assert "new models" not in feed


def test_the_largest_tie_group_on_the_orchestrator_board_is_under_a_quarter(snap):
    board = _board(snap, "orchestrator")
    groups = compute_tie_groups(board.rows)
    largest = max((len(g.identities) for g in groups), default=1)
    assert len(board.rows) >= 40
    assert largest < len(board.rows) / 4, (largest, len(board.rows))
    # every member is tied with its group's leader, and each next leader is clearly behind the one before
    above: set[str] = set()
    for row in board.rows:
        u = row.uncertainty
        assert u is not None and (u.tie_leader is None or (u.tie_leader in above and u.p_leader < 0.95))
        above.add(row.identity)
    assert all(_row(board, g.identities[0]).uncertainty.tie_leader is None for g in groups)


def test_the_front_page_separates_the_leaders_from_the_field(real_site, snap):
    board = _board(snap, "orchestrator")
    groups = compute_tie_groups(board.rows)
    assert len(groups) >= 3  # no single group swallows the board
    top = next((g for g in groups if g.identities[0] == board.rows[0].identity), None)
    assert top is None or len(top.identities) < len(board.rows) / 4
    html = (real_site.site / "index.html").read_text(encoding="utf-8")
    assert f"ranks 1–{len(board.rows)}" not in html
    # a tied row names the leader it is tied with
    tied = [r for r in board.rows[:5] if r.uncertainty and r.uncertainty.tie_leader]
    for r in tied:
        leader = snap.models[r.uncertainty.tie_leader].name
        assert f"statistically tied with {leader}" in html


def test_a_source_without_a_live_url_is_not_configured_not_failed(snap, real_site):
    pirate = next(s for s in snap.sources if s.name == "piratebench")
    assert pirate.status == "not_configured"
    html = (real_site.site / "boards" / "orchestrator" / "index.html").read_text(encoding="utf-8")
    assert "not configured for live builds" in html  # its sources disclosure
    board = _board(snap, "build-prices")
    assert not board.rows and board.empty_reason and "PirateBench" in board.empty_reason


def test_a_feed_that_cannot_calibrate_is_named_on_the_boards_it_would_feed(snap, real_site):
    weak = [c for c in snap.calibration if not c.used and c.n < 10]
    assert weak, "some real feed has an Arena overlap under 10 (Terminal-Bench)"
    feeds = {c.feed for c in weak}
    for b in snap.boards:
        fed = {f for fam, w in b.weights.items() if w > 0 for f in snap.families[fam].feeds}
        if fed & feeds:
            html = (real_site.site / "boards" / b.id / "index.html").read_text(encoding="utf-8")
            for c in weak:
                if c.feed in fed:
                    assert c.feed in html and f"overlap {c.n}" in html, (b.id, c.feed)


def test_gemini_3_pro_is_ranked_on_the_orchestrator_board(snap, cfg):
    ranked = {r.identity for r in _board(snap, "orchestrator").rows}
    assert _ident(cfg, "gemini-3-pro") in ranked


def test_every_arena_top_20_text_model_with_two_evaluators_is_ranked(snap):
    """Two independent evaluators in the board's own families (the single-source rule counts
    those): Aider's coding runs, say, do not count for the orchestrator, whose families are
    reasoning, human preference and terminal work."""
    board = _board(snap, "orchestrator")
    feeds = {f for fam in board.weights for f in snap.families[fam].feeds}
    text = sorted((o for o in snap.observations if o.feed == "arena/text" and o.selected),
                  key=lambda o: -float(o.raw))[:20]
    evaluators: dict[str, set[str]] = defaultdict(set)
    for o in snap.observations:
        if o.selected and o.excluded is None and o.feed in feeds:
            evaluators[o.identity].add(o.evaluator)
    ranked = {r.identity for r in board.rows}
    counted = [o.identity for o in text if len(evaluators[o.identity]) >= 2]
    assert len(counted) >= 8, counted  # the test is not vacuous: many of the top 20 have a second evaluator
    missing = [i for i in counted if i not in ranked]
    assert not missing, missing


def test_the_snapshot_json_round_trips(real_site):
    data = json.loads(real_site.snapshot.read_text(encoding="utf-8"))
    assert data["demo"] is False and data["schema_version"] == 3
