"""Build the real-data site through the live path: the real upstream files in ../shared/data
served from 127.0.0.1 as their publishers serve them (single files, LiveBench's contents-API
listing, Terminal-Bench's repository tarball), a site.yml with ``demo: false`` pointing there,
then ``modelboards build --live --out DIR``."""

from __future__ import annotations

import io
import json
import tarfile
from pathlib import Path

import yaml
from click.testing import CliRunner
from conftest import serve_directory

from builder.cli import main

ROOT = Path(__file__).resolve().parents[1]

# source name -> file under shared data, served at /<name>/<file name>
SINGLE = {
    "arena": "arena/lmarena/leaderboard-text.json",
    "arena-catalog": "arena/lmarena/scatterplot-data.json",
    "epoch": "epoch/epoch_capabilities_index.csv",
    "aider": "aider/polyglot_leaderboard.yml",
    "litellm": "litellm/model_prices_and_context_window.json",
    "openrouter": "openrouter/openrouter_models.json",
}
BATTLES = "arena/genai-arena/clean_battle_20240220.json"


def _lay_out(www: Path, shared: Path) -> None:
    """Upstream files as the publishers serve them (links to the shared files, not copies)."""
    for name, rel in SINGLE.items():
        (www / name).mkdir(parents=True)
        (www / name / Path(rel).name).symlink_to(shared / rel)
    lb = www / "livebench"
    lb.mkdir()
    names = sorted(p.name for p in (shared / "livebench").iterdir())
    for n in names:
        (lb / n).symlink_to(shared / "livebench" / n)
    (www / "livebench-index.json").write_text(json.dumps([{"name": n, "type": "file"} for n in names]))
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tar:
        tar.add(shared / "terminal-bench" / "results", arcname="terminal-bench-leaderboard-8e1925a3/results")
    (www / "terminal-bench.tar.gz").write_bytes(buf.getvalue())
    (www / "battles.json").symlink_to(shared / BATTLES)


def build_real_site(shared: Path, tmp: Path) -> Path:
    """The real-data site folder, built under ``tmp`` (``tmp/site``)."""
    www = tmp / "upstream"
    www.mkdir()
    _lay_out(www, shared)
    data = yaml.safe_load((ROOT / "site.yml").read_text())
    data["demo"] = False
    with serve_directory(www) as origin:
        sources = []
        for s in data["sources"]:
            s.pop("recorded", None)
            s.pop("recorded_date", None)
            if s["name"] in SINGLE:
                s["url"] = f"{origin}/{s['name']}/{Path(SINGLE[s['name']]).name}"
            elif s["kind"] == "livebench":
                s["url"] = f"{origin}/livebench/"
                s["options"]["index_url"] = f"{origin}/livebench-index.json"
            elif s["kind"] == "terminal_bench":
                s["url"] = f"{origin}/terminal-bench.tar.gz"
            elif s["kind"] == "metadata":
                s["recorded"] = "models.yml"
            else:
                continue  # no public file for it in the real data
            sources.append(s)
        data["sources"] = sources
        data["fetch"] = {"store": str(tmp / "store")}
        data["snapshots_dir"] = str(tmp / "snapshots")
        data["arena"]["live_url"] = f"{origin}/battles.json"
        data["arena"]["live_min_battles"] = 1000
        data["evals"] = []
        cfg = tmp / "site.yml"
        cfg.write_text(yaml.safe_dump(data, sort_keys=False))
        out = tmp / "site"
        result = CliRunner().invoke(main, ["--config", str(cfg), "build", "--live", "--out", str(out)])
    assert result.exit_code == 0, result.output
    return out
