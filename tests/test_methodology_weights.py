"""The Methodology page shows the role weights and families of the snapshot it renders, not site.yml's."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from pathlib import Path

import yaml
from click.testing import CliRunner

from builder.cli import main
from builder.config import load_config
from builder.render.site import render_site

ROOT = Path(__file__).resolve().parents[1]
SNAPSHOT = ROOT / "snapshots" / "2026-11-29.json"


def _weight_rows(html: str, role_title: str) -> dict[str, tuple[str, str, str]]:
    """{family title: (feeds, weight, share)} of one role's table on the methodology page."""
    table = re.search(rf'aria-label="{re.escape(role_title)} weights".*?</table>', html, re.S)
    assert table, f"no weights table for {role_title}"
    cells = re.findall(r"<tr><td>([^<]*)</td><td>([^<]*)</td><td class=\"num\">([^<]*)</td>"
                       r"<td class=\"num\">([^<]*)</td></tr>", table.group(0))
    return {c[0]: (c[1], c[2], c[3]) for c in cells}


def test_old_snapshot_re_renders_with_its_own_weights(tmp_path):
    cfg = yaml.safe_load((ROOT / "site.yml").read_text(encoding="utf-8"))
    cfg["roles"]["orchestrator"]["weights"] = {"reasoning": 0.9, "human_preference": 0.1}
    cfg["roles"]["orchestrator"]["title"] = "Conductor"
    cfg["families"]["reasoning"]["title"] = "Thinking"
    cfg["snapshots_dir"] = str(tmp_path / "none")
    changed = tmp_path / "site.yml"
    changed.write_text(yaml.safe_dump(cfg, sort_keys=False), encoding="utf-8")

    out = tmp_path / "site"
    result = CliRunner().invoke(main, ["--config", str(changed), "render", "--snapshot", str(SNAPSHOT),
                                       "--out", str(out)])
    assert result.exit_code == 0, result.output
    html = (out / "methodology" / "index.html").read_text(encoding="utf-8")

    assert "The weights and families this snapshot was scored with." in html
    assert "Conductor" not in html and "Thinking" not in html
    rows = _weight_rows(html, "Orchestrator")
    assert rows == {
        "Reasoning": ("epoch/eci, livebench/global", "0.5", "50%"),
        "Human preference": ("arena/text", "0.3", "30%"),
        "Terminal work": ("terminal-bench/accuracy", "0.2", "20%"),
    }


def test_without_a_snapshot_the_page_shows_the_configuration(tmp_path):
    cfg = yaml.safe_load((ROOT / "site.yml").read_text(encoding="utf-8"))
    cfg["roles"]["orchestrator"]["weights"] = {"reasoning": 0.75, "human_preference": 0.25}
    cfg["snapshots_dir"] = str(tmp_path / "none")
    changed = tmp_path / "site.yml"
    changed.write_text(yaml.safe_dump(cfg, sort_keys=False), encoding="utf-8")
    loaded, base = load_config(changed)
    render_site(None, [], loaded, base, tmp_path / "site", now=datetime(2026, 11, 30, tzinfo=UTC))
    html = (tmp_path / "site" / "methodology" / "index.html").read_text(encoding="utf-8")
    assert "Generated from this site's configuration." in html
    rows = _weight_rows(html, "Orchestrator")
    assert {k: v[1:] for k, v in rows.items()} == {"Reasoning": ("0.75", "75%"), "Human preference": ("0.25", "25%")}
