"""Calibration on the real upstream files (LMArena ``full`` ratings, Epoch ECI, LiveBench
2026-01-08), and ``modelboards score`` end to end on them in a temporary folder."""

from __future__ import annotations

import math
from datetime import UTC, datetime

import click
import pytest
import yaml
from click.testing import CliRunner
from conftest import require_shared_data

from builder.cli.context import Context, Group
from builder.cli.site import explain, score
from builder.config import SiteConfig
from builder.records import Payload
from builder.scoring.boards import ScoringInputs, compute_snapshot
from builder.scoring.calibrate import MIN_OVERLAP, compute_arena_anchor
from builder.snapshot import check_guards, load_snapshot

DATA = require_shared_data()  # ../shared/data, or the pinned files fetched (tests/realdata.py)
FILES = {
    "arena": ("lmarena", {"leaderboard-text.json": "arena/lmarena/leaderboard-text.json"}),
    "epoch": ("epoch", {"epoch_capabilities_index.csv": "epoch/epoch_capabilities_index.csv"}),
    "livebench": ("livebench", {"table_2026_01_08.csv": "livebench/table_2026_01_08.csv",
                                "categories_2026_01_08.json": "livebench/categories_2026_01_08.json"}),
}
FAMILIES = {
    "reasoning": {"title": "Reasoning", "feeds": ["epoch/eci", "livebench/global"]},
    "human_preference": {"title": "Human preference", "feeds": ["arena/text"]},
    "coding": {"title": "Coding", "feeds": ["arena/coding", "livebench/coding"]},
    "instruction_following": {"title": "Instruction following", "feeds": ["livebench/instruction_following"]},
    "data_analysis": {"title": "Data analysis", "feeds": ["livebench/data_analysis"]},
}
ROLES = {
    "orchestrator": {"title": "Orchestrator", "weights": {"reasoning": 0.5, "human_preference": 0.3}},
    "rote": {"title": "Rote", "weights": {"instruction_following": 0.4, "data_analysis": 0.3, "coding": 0.3}},
}
BOARDS = [{"id": "orchestrator", "title": "Best orchestrator", "kind": "orchestrator", "role": "orchestrator"}]


def config_dict(recorded: bool) -> dict:
    sources = []
    for name, (kind, files) in FILES.items():
        path = DATA / (next(iter(files.values())) if len(files) == 1 else "livebench")
        sources.append({"name": name, "kind": kind, **({"recorded": str(path)} if recorded else {}),
                        **({"date": "2025-12-11"} if name == "arena" else {})})
    return {"sources": sources, "families": FAMILIES, "roles": ROLES, "boards": BOARDS}


@pytest.fixture(scope="module")
def real():
    from builder.scoring.select import select_observations
    from builder.sources import parse_payload

    cfg = SiteConfig.model_validate(config_dict(recorded=False))
    now = datetime(2026, 1, 10, tzinfo=UTC)
    observations = []
    for name, (_, files) in FILES.items():
        payload = Payload(name, {k: (DATA / v).read_bytes() for k, v in files.items()}, now, "test")
        observations += parse_payload(payload, cfg.source(name)).observations
    selected = select_observations(observations, cfg)
    inputs = ScoringInputs(tuple(selected), (), (), (), {}, {})
    return cfg, selected, compute_snapshot(inputs, cfg, now, None).model_dump(mode="json")


def test_each_fit_reports_overlap_finite_parameters_and_positive_beta(real):
    _, selected, snap = real
    anchor = compute_arena_anchor(selected, {"arena/text"})
    fits = {(c["feed"], c["release"]): c for c in snap["calibration"]}
    assert ("epoch/eci", "") in fits and ("livebench/global", "2026-01-08") in fits
    assert not any(f.startswith("arena/") for f, _ in fits)  # Arena feeds are not refitted
    for c in fits.values():
        assert c["n"] == len(c["overlap"]) == len(set(c["overlap"]))
        assert set(c["overlap"]) <= set(anchor)
        if c["n"] >= MIN_OVERLAP:
            for k in ("mu", "sigma", "alpha", "beta"):
                assert math.isfinite(c[k]), (c["feed"], k)
            assert c["sigma"] > 0 and c["beta"] > 0 and c["used"], c
    assert fits[("epoch/eci", "")]["n"] >= 30


def test_real_boards_rank_and_calibrate(real):
    _, _, snap = real
    rows = snap["boards"][0]["rows"]
    assert len(rows) > 20
    assert [r["rank"] for r in rows] == sorted(r["rank"] for r in rows) and rows[0]["rank"] == 1
    for r in rows:
        assert len(r["evaluators"]) >= 2 and r["score"] == round(r["r"])
    calibrated = [o for o in snap["observations"] if o["calibrated"] is not None and o["feed"] == "epoch/eci"]
    fit = next(c for c in snap["calibration"] if c["feed"] == "epoch/eci")
    assert calibrated
    for o in calibrated:  # the saved parameters reproduce every calibrated value (no clipping)
        want = fit["alpha"] + fit["beta"] * (o["raw"] - fit["mu"]) / fit["sigma"]
        assert o["calibrated"] == pytest.approx(want, abs=1e-9)


@click.group(cls=Group)
@click.option("--config", required=True)
@click.pass_context
def cli(ctx: click.Context, config: str) -> None:
    ctx.obj = Context(config, 0)


cli.add_command(score)
cli.add_command(explain)


def test_score_command_writes_a_snapshot(tmp_path):
    from builder.config import load_config
    from builder.fetch import fetch_all

    conf = {**config_dict(recorded=True), "arena": {"enabled": False}, "index": {"enabled": False},
            "fetch": {"store": str(tmp_path / "store")}, "snapshots_dir": str(tmp_path / "repo-snapshots")}
    site = tmp_path / "site.yml"
    site.write_text(yaml.safe_dump(conf))
    cfg, base = load_config(site)
    assert all(s.ok for s in fetch_all(cfg, base, live=False, progress=False))
    runner = CliRunner()
    snaps = tmp_path / "snaps"
    res = runner.invoke(cli, ["--config", str(site), "score", "--date", "2026-01-10", "--snapshots-dir", str(snaps)])
    assert res.exit_code == 0, res.output
    assert "(written)" in res.output
    snap = load_snapshot(snaps / "2026-01-10.json")
    assert snap.date == "2026-01-10" and snap.as_of is not None
    assert check_guards(snap, datetime(2026, 1, 11, tzinfo=UTC)) == []
    assert not (tmp_path / "repo-snapshots").exists()
    res = runner.invoke(cli, ["--config", str(site), "score", "--date", "2026-01-10", "--snapshots-dir", str(snaps)])
    assert res.exit_code == 0 and "(kept)" in res.output
    top = snap.boards[0].rows[0].identity
    res = runner.invoke(cli, ["--config", str(site), "explain", top, "--snapshot", str(snaps / "2026-01-10.json")])
    assert res.exit_code == 0 and "displayed score" in res.output
    res = runner.invoke(cli, ["--config", str(site), "score", "--date", "2026-13-01"])
    assert res.exit_code == 2 and "--date" in res.output
