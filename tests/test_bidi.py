"""Upstream names with bidirectional control characters (U+202E RIGHT-TO-LEFT OVERRIDE and
friends) can make a row read as something else ("gpt-6" that is really "6-tpg..."). No page
of the site lets one through: the jinja environment neutralises them in every value it
prints, in one place (``builder.util.text.strip_bidi``)."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from pathlib import Path

import jinja2
from fixtures.make_snapshot import make_snapshot

from builder.config import load_config
from builder.render.site import make_env, render_site
from builder.snapshot import validate_snapshot
from builder.util.text import BIDI_CONTROLS, strip_bidi

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
