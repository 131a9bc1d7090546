"""``explain``: the printed arithmetic recomputes the row's numbers from the snapshot alone."""

from __future__ import annotations

import json
import math
from datetime import UTC, date, datetime

import click
import pytest
from click.testing import CliRunner

from builder.cli.context import Context, Group
from builder.cli.site import explain
from builder.config import SiteConfig
from builder.errors import UserError
from builder.evidence.explain import explain_model, format_explain
from builder.records import Observation
from builder.scoring.boards import ScoringInputs, compute_snapshot
from builder.snapshot import write_snapshot

FEEDS = {"epoch/eci": (100.0, 1.0), "livebench/global": (40.0, 2.0), "terminal-bench/accuracy": (20.0, 3.0)}


def cfg() -> SiteConfig:
    return SiteConfig.model_validate({
        "sources": [{"name": "arena", "kind": "lmarena"}, {"name": "epoch", "kind": "epoch"},
                    {"name": "livebench", "kind": "livebench"}, {"name": "terminal-bench", "kind": "terminal_bench"}],
        "families": {"reasoning": {"title": "Reasoning", "feeds": ["epoch/eci", "livebench/global"]},
                     "human_preference": {"title": "Human preference", "feeds": ["arena/text"]},
                     "terminal_work": {"title": "Terminal work", "feeds": ["terminal-bench/accuracy"]}},
        "roles": {"orchestrator": {"title": "Orchestrator",
                                   "weights": {"reasoning": 0.5, "human_preference": 0.3, "terminal_work": 0.2}}},
        "boards": [{"id": "orchestrator", "title": "Best orchestrator", "kind": "orchestrator",
                    "role": "orchestrator"}],
    })


def o(feed: str, ident: str, raw: float, model: str | None = None) -> Observation:
    source = feed.split("/")[0]
    return Observation(source, feed, "lmarena" if source == "arena" else source, model or ident, raw,
                       date(2026, 1, 1), "https://example.org", release="r1" if "livebench" in feed else "",
                       identity=ident, selected=True)


def snapshot() -> dict:
    rows = []
    for i in range(14):
        rows.append(o("arena/text", f"m{i:02}", 1300.0 + 10 * i + (7 if i % 3 == 0 else -3)))
        for feed, (base, step) in FEEDS.items():
            rows.append(o(feed, f"m{i:02}", base + step * i + (0.5 if i % 2 else 0.0)))
    rows += [o("arena/text", "claude-opus-5.5", 1507.0758687407206, "Claude-Opus-5.5"),
             o("epoch/eci", "claude-opus-5.5", 120.5), o("livebench/global", "claude-opus-5.5", 70.25),
             o("arena/text", "solo", 1400.0)]
    inputs = ScoringInputs(tuple(rows), (), (), (), {}, {})
    return compute_snapshot(inputs, cfg(), datetime(2026, 2, 1, tzinfo=UTC), None)


@pytest.fixture(scope="module")
def snap() -> dict:
    return snapshot()


def test_explain_recomputes_the_row(snap):
    d = explain_model(snap, "Claude-Opus-5.5")  # any published spelling resolves
    assert d["identity"] == "claude-opus-5.5" and d["missing_families"] == ["terminal_work"]
    fitted = [s for s in d["sources"] if not s["arena"]]
    assert {s["feed"] for s in fitted} == {"epoch/eci", "livebench/global"}
    for s in fitted:
        c = s["calibration"]
        assert c["alpha"] + c["beta"] * (s["raw"] - c["mu"]) / c["sigma"] == pytest.approx(s["calibrated"], abs=1e-9)
    for fam in d["families"].values():
        assert math.fsum(fam["scores"]) / len(fam["scores"]) == pytest.approx(fam["mean"], abs=1e-9)
    num = sum(f["weight"] * f["mean"] for f in d["families"].values())
    den = sum(f["weight"] for f in d["families"].values())
    assert num / den == pytest.approx(d["r"], abs=1e-9) and d["score"] == round(d["r"])
    assert d["rank"] >= 1 and not d["new"]


def test_format_prints_the_formulas(snap):
    d = explain_model(snap, "claude-opus-5.5")
    text = format_explain(d)
    epoch = next(s for s in d["sources"] if s["feed"] == "epoch/eci")
    c = epoch["calibration"]
    assert f"calibrated = {c['alpha']!r} + {c['beta']!r} * (120.5 - {c['mu']!r}) / {c['sigma']!r}" in text
    assert f"Reasoning = ({d['families']['reasoning']['scores'][0]!r} + " in text
    assert "Human preference = 1507.0758687407206" in text
    assert "R = (0.50 * " in text and "/ (0.50 + 0.30)" in text
    assert f"R = {d['r']!r}; displayed score = {d['score']}" in text
    assert f"Rank {d['rank']} of" in text
    assert "Terminal work: no usable score" in text


def test_new_strip_model_and_errors(snap):
    d = explain_model(snap, "solo")
    assert d["new"] and "New, not enough ratings yet" in format_explain(d)
    with pytest.raises(UserError, match="not in the snapshot"):
        explain_model(snap, "nobody")
    with pytest.raises(UserError, match="boards: orchestrator"):
        explain_model(snap, "solo", "rote")


@click.group(cls=Group)
@click.pass_context
def cli(ctx: click.Context) -> None:
    ctx.obj = Context("site.yml", 0)


cli.add_command(explain)


def test_explain_command(snap, tmp_path):
    path, _ = write_snapshot(snap, tmp_path)
    runner = CliRunner()
    res = runner.invoke(cli, ["explain", "claude-opus-5.5", "--snapshot", str(path)])
    assert res.exit_code == 0, res.output
    assert "displayed score" in res.output
    res = runner.invoke(cli, ["explain", "claude-opus-5.5", "--snapshot", str(path), "--format", "json"])
    assert json.loads(res.output)["identity"] == "claude-opus-5.5"
    res = runner.invoke(cli, ["explain", "nobody", "--snapshot", str(path)])
    assert res.exit_code == 2 and "not in the snapshot" in res.output
