"""Upstream names with bidirectional control characters (U+202E RIGHT-TO-LEFT OVERRIDE and
friends) can make a row read as something else ("gpt-6" that is really "6-tpg..."). No page
of the site lets one through: the jinja environment neutralises them in every value it
prints, in one place (``builder.util.text.strip_bidi``), and the JSON the race and chart
scripts draw from carries every name as one bidi isolate (``builder.charts.script_json``;
the browser side is ``tests/test_bidi_browser.py``); the compare script's JSON carries none."""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import jinja2
from fixtures.make_snapshot import make_snapshot
from test_charts import _arena, _history

from builder.charts.script_json import dump_script_json, isolate_names
from builder.config import load_config
from builder.render.site import make_env, render_site
from builder.snapshot import validate_snapshot
from builder.util.text import BIDI_CONTROLS, FSI, PDI, isolate_bidi, strip_bidi

ROOT = Path(__file__).resolve().parents[1]
NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)
SPOOF = "claude-\u202eoidua-\u202c5"
BIDI = re.compile("[" + "".join(BIDI_CONTROLS) + "]")


def test_every_bidi_control_is_neutralised():
    for ch in BIDI_CONTROLS:
        assert strip_bidi(f"a{ch}b") == "ab"
    assert strip_bidi("مرحبا gpt-6") == "مرحبا gpt-6"  # right-to-left text itself is left alone


def test_the_environment_neutralises_every_printed_value(tmp_path):
    (tmp_path / "t.html").write_text('<p title="{{ name }}">{{ name }} {{ names | join(", ") }}</p>')
    env = make_env(tmp_path)
    html = env.get_template("t.html").render(name=SPOOF, names=[SPOOF, "x\u2067y"])
    assert not BIDI.search(html), html
    assert "claude-oidua-5" in html
    env2 = make_env(tmp_path)
    assert env2.from_string("{{ x }}").render(x=jinja2.filters.Markup("<b>ok</b>")) == "<b>ok</b>"


def test_no_page_of_the_site_carries_a_bidi_control(tmp_path):
    cfg = load_config(ROOT / "tests" / "fixtures" / "site.yml")[0]
    snap = make_snapshot(30, seed=11)
    victim = snap["boards"][0]["rows"][0]["identity"]
    snap["models"][victim]["name"] = SPOOF
    for b in snap["boards"]:
        for row in b["rows"] + b["new"]:
            if row["identity"] == victim:
                row["model"] = SPOOF + "\u2066"
    for o in snap["observations"]:
        if o["identity"] == victim:
            o["model"] = "\u200f" + SPOOF
    snap["sources"][0]["title"] = "LM\u202dArena"
    render_site(validate_snapshot(snap), [], cfg, ROOT, tmp_path, now=NOW)
    pages = list(tmp_path.rglob("*.html"))
    assert len(pages) > 10
    offenders = [p.relative_to(tmp_path).as_posix() for p in pages if BIDI.search(p.read_text(encoding="utf-8"))]
    assert offenders == []
    assert "claude-oidua-5" in (tmp_path / "index.html").read_text(encoding="utf-8")


def test_isolate_bidi_wraps_the_name_without_its_controls():
    assert isolate_bidi(SPOOF) == FSI + "claude-oidua-5" + PDI
    assert isolate_bidi(isolate_bidi(SPOOF)) == isolate_bidi(SPOOF)  # isolated once
    assert isolate_bidi("\u05d3\u05d2\u05dd 7") == FSI + "\u05d3\u05d2\u05dd 7" + PDI  # RTL letters stay
    assert isolate_bidi("") == FSI + PDI


def test_script_json_isolates_every_name_and_nothing_else():
    doc = {"id": "arena", "title": "Arena", "models": [{"identity": "a\u202eb", "key": "k", "name": SPOOF}],
           "bins": [{"lo": 1.0, "models": [SPOOF, "plain"], "count": 2}],
           "box": {"outliers": [{"name": "x\u202dy", "rating": 1.0}]}, "frames": [], "n": 3, "models_n": None}
    before = json.dumps(doc)
    out = isolate_names(doc)
    assert json.dumps(doc) == before  # the documents the build-time SVG and tables use are left alone
    assert out["models"][0] == {"identity": "a\u202eb", "key": "k", "name": FSI + "claude-oidua-5" + PDI}
    assert out["bins"][0]["models"] == [FSI + "claude-oidua-5" + PDI, FSI + "plain" + PDI]
    assert out["box"]["outliers"][0]["name"] == FSI + "xy" + PDI
    assert (out["title"], out["id"], out["frames"], out["n"]) == ("Arena", "arena", [], 3)
    assert json.loads(dump_script_json(doc)) == out and dump_script_json(doc).endswith("}\n")


def _names(doc, found):
    if isinstance(doc, dict):
        for k, v in doc.items():
            if k == "name" or (k == "models" and isinstance(v, list) and v and all(isinstance(x, str) for x in v)):
                found.extend(v if isinstance(v, list) else [v])
            else:
                _names(v, found)
    elif isinstance(doc, list):
        for x in doc:
            _names(x, found)
    return found


def spoofed_history(n: int) -> tuple[list[dict[str, Any]], str]:
    """``n`` chart-test snapshots (``test_charts._history``) whose newest board leader (the
    victim, returned too) is named ``SPOOF`` everywhere; the victim comes first in the newest
    ``models``, so its hand-made Arena section (intervals, history, distribution) rates it too."""
    snaps = _history(n)
    last = snaps[-1]
    victim = last["boards"][0]["rows"][0]["identity"]
    last["models"] = {victim: last["models"][victim], **{k: v for k, v in last["models"].items() if k != victim}}
    last["arena"] = _arena(last)
    for snap in snaps:
        if victim in snap["models"]:
            snap["models"][victim]["name"] = SPOOF
        for b in snap["boards"]:
            for row in b["rows"] + b["new"]:
                if row["identity"] == victim:
                    row["model"] = SPOOF
    return snaps, victim


def test_the_race_and_chart_json_carry_isolated_names_and_the_chart_pages_none(tmp_path):
    cfg = load_config(ROOT / "tests" / "fixtures" / "site.yml")[0]
    snaps, _ = spoofed_history(3)
    typed = [validate_snapshot(s) for s in snaps]
    render_site(typed[-1], typed[:-1], cfg, ROOT, tmp_path, now=NOW)
    files = sorted((tmp_path / "data" / "race").glob("*.json")) + sorted((tmp_path / "data" / "charts").glob("*.json"))
    assert len(files) == 6
    seen_victim = set()
    for f in files:
        text = f.read_text(encoding="utf-8")
        names = _names(json.loads(text), [])
        assert names, f.name
        for n in names:
            assert n.startswith(FSI) and n.endswith(PDI) and not BIDI.search(n[1:-1]), (f.name, n)
        if FSI + "claude-oidua-5" + PDI in names:
            seen_victim.add(f.name)
        assert "\u202e" not in text and "\u202c" not in text, f.name
    assert seen_victim == {f.name for f in files}  # every document names the victim
    offenders = [p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*.html")
                 if BIDI.search(p.read_text(encoding="utf-8"))]
    assert offenders == []  # the chart pages' build-time SVGs (the distribution's tooltips too)
    # the compare script's JSON puts names into table cells and its CSV: no control in any of it
    compare = sorted((tmp_path / "data" / "compare").glob("*.json"))
    assert len(compare) > 1 and any("claude-oidua-5" in f.read_text(encoding="utf-8") for f in compare)
    assert [f.name for f in compare if BIDI.search(f.read_text(encoding="utf-8"))] == []
