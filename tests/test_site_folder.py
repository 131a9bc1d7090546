"""A site folder of one's own: ``modelboards new``, per-file overrides of the package's
templates, static files and content, and an evals-only site.

The installed-wheel path (a fresh virtual environment, no node_modules, the race animating in
Chromium) is ``tests/test_wheel_site_browser.py``.
"""

from __future__ import annotations

import json
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

import pytest
import yaml

from builder.cli.new import demo_snapshots, write_site_folder
from builder.config import load_config
from builder.errors import UserError
from builder.render.site import render_site
from builder.snapshot import validate_snapshot
from builder.util.dirs import layered_dirs, package_dir

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "tests" / "fixtures"
HARNESS = ROOT / "tests" / "data" / "harness"
NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)
EXE = Path(sys.executable).parent / "modelboards"


def _run(*args: str, cwd: Path, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(EXE), *args], cwd=cwd, capture_output=True, text=True, timeout=timeout)


def test_new_writes_a_site_folder_with_the_demo_sources_and_history(tmp_path):
    site = write_site_folder(tmp_path / "my-board", empty=False, title="My board")
    cfg, base = load_config(site / "site.yml")
    repo_cfg, _ = load_config(ROOT / "site.yml")
    assert cfg.site.title == "My board" and cfg.site.url == "https://example.github.io/my-board/"
    # the demo sources, families, roles and boards are the package's own
    assert [s.name for s in cfg.sources] == [s.name for s in repo_cfg.sources]
    assert cfg.method_id() == repo_cfg.method_id() and cfg.demo is True
    text = (site / "site.yml").read_text(encoding="utf-8")
    assert text.startswith("# ModelBoards site configuration (started by `modelboards new`)")
    assert "#    format: lm-eval-harness" in text
    # the demo history: every package snapshot marked demo, byte for byte
    copied = sorted(p.name for p in (site / "snapshots").glob("*.json"))
    assert copied == [p.name for p in demo_snapshots()] and len(copied) >= 2
    assert all(json.loads((site / "snapshots" / n).read_text(encoding="utf-8"))["demo"] is True for n in copied)
    assert (site / "templates").is_dir() and not [p for p in (site / "templates").rglob("*") if p.is_file()
                                                   and p.name != ".gitkeep"]
    assert (site / "content" / "about.md").read_text(encoding="utf-8").count("# About My board") == 1
    assert "/site/" in (site / ".gitignore").read_text(encoding="utf-8").splitlines()
    for wf in ("refresh.yml", "pages.yml"):
        doc = yaml.safe_load((site / ".github" / "workflows" / wf).read_text(encoding="utf-8"))
        assert doc["jobs"] and "@VERSION@" not in json.dumps(doc)
    assert "Publish your own evals" in (site / "README.md").read_text(encoding="utf-8")


def test_new_empty_is_a_valid_site_without_sources(tmp_path):
    site = write_site_folder(tmp_path / "evals-only", empty=True)
    cfg, _ = load_config(site / "site.yml")
    assert cfg.sources == [] and cfg.evals == [] and not cfg.arena.enabled
    assert not list((site / "snapshots").glob("*.json"))


def test_new_refuses_a_non_empty_folder_with_one_line(tmp_path):
    target = tmp_path / "taken"
    target.mkdir()
    (target / "notes.txt").write_text("mine")
    with pytest.raises(UserError, match=r"taken: not empty"):
        write_site_folder(target, empty=False)
    proc = _run("new", str(target), cwd=tmp_path)
    assert proc.returncode == 2
    assert proc.stderr.strip().splitlines() == [
        f"error: {target}: not empty; `modelboards new` writes only into a new or empty folder"]
    assert sorted(p.name for p in target.iterdir()) == ["notes.txt"]  # nothing written
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".taken")]  # no temporary left


def test_new_into_an_existing_empty_folder(tmp_path):
    (tmp_path / "here").mkdir()
    proc = _run("new", "here", "--empty", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "here" / "site.yml").is_file()


# --------------------------------------------------------------------------- per-file overrides


def test_layered_dirs_put_the_site_first_then_the_package(tmp_path):
    assert layered_dirs(tmp_path, "templates") == [package_dir("templates")]
    (tmp_path / "templates").mkdir()
    assert layered_dirs(tmp_path, "templates") == [tmp_path / "templates", package_dir("templates")]
    assert layered_dirs(ROOT, "templates") == [package_dir("templates")]  # the repository is the package


@pytest.fixture(scope="module")
def overridden_site(tmp_path_factory) -> tuple[Path, Path]:
    """A site folder overriding board.html, one static file and about.md; rendered once."""
    base = tmp_path_factory.mktemp("own")
    (base / "templates" / "static").mkdir(parents=True)
    board = (package_dir("templates") / "board.html").read_text(encoding="utf-8")
    assert "{% block content %}" in board
    (base / "templates" / "board.html").write_text(
        board.replace("{% block content %}", '{% block content %}<p id="own-board">Our board template</p>', 1),
        encoding="utf-8")
    (base / "templates" / "static" / "favicon.svg").write_text('<svg xmlns="http://www.w3.org/2000/svg" id="own"/>')
    (base / "templates" / "static" / "extra.css").write_text("body { }\n")
    (base / "content").mkdir()
    (base / "content" / "about.md").write_text("---\ntitle: About\norder: 90\n---\n\n# About our own board\n")
    cfg, _ = load_config(FIXTURES / "site.yml")
    snap = validate_snapshot(json.loads((FIXTURES / "golden_snapshot.json").read_text(encoding="utf-8")))
    out = base / "out"
    render_site(snap, [], cfg, base, out, now=NOW, base_url="https://example.org/own/")
    return base, out


def test_one_overridden_template_and_the_rest_from_the_package(overridden_site):
    base, out = overridden_site
    boards = sorted(out.glob("boards/*/index.html"))
    assert boards and all('<p id="own-board">Our board template</p>' in p.read_text(encoding="utf-8")
                          for p in boards)
    # every other page is rendered, from the package's templates (which base.html they extend, too)
    front = (out / "index.html").read_text(encoding="utf-8")
    assert "own-board" not in front and '<nav' in front
    for page in ("methodology/index.html", "models/index.html", "data/index.html"):
        assert (out / page).is_file() and "own-board" not in (out / page).read_text(encoding="utf-8")


def test_static_and_content_are_overridden_per_file(overridden_site):
    base, out = overridden_site
    assert (out / "static" / "favicon.svg").read_text() == (base / "templates/static/favicon.svg").read_text()
    assert (out / "static" / "extra.css").is_file()
    package_static = package_dir("templates") / "static"
    assert (out / "static" / "site.css").read_bytes() == (package_static / "site.css").read_bytes()
    assert (out / "static" / "race.js").read_bytes() == (package_static / "race.js").read_bytes()
    assert "About our own board" in (out / "about" / "index.html").read_text(encoding="utf-8")
    # the package's other content pages are still there
    assert (out / "methodology" / "index.html").is_file() and (out / "api" / "index.html").is_file()


# --------------------------------------------------------------------------- an evals-only site


@pytest.mark.slow
def test_an_evals_only_site_builds_and_saves_its_snapshot(tmp_path):
    site = write_site_folder(tmp_path / "evals", empty=True, title="Our evals")
    results = site / "results"
    (results / "inspect").mkdir(parents=True)
    import shutil

    shutil.copytree(HARNESS / "lm-eval", results / "lm-eval")
    shutil.copyfile(next((HARNESS / "inspect").glob("*.eval")), results / "inspect" / "run.eval")
    text = (site / "site.yml").read_text(encoding="utf-8").replace("evals: []", (
        "evals:\n"
        "  - {id: lm, title: lm-eval suite, format: lm-eval-harness, paths: [results/lm-eval], bootstrap: 50}\n"
        "  - {id: agent, title: Agent suite, format: inspect, paths: [results/inspect], bootstrap: 50}\n"))
    (site / "site.yml").write_text(text, encoding="utf-8")
    proc = _run("build", cwd=site)
    assert proc.returncode == 0, proc.stderr
    snaps = list((site / "snapshots").glob("*.json"))
    assert len(snaps) == 1  # saved: the eval suites are its boards
    doc = json.loads(snaps[0].read_text(encoding="utf-8"))
    suites = {s["id"]: s for s in doc["evals"]["suites"]}
    assert {r["model_id"] for r in suites["lm"]["boards"]["acc"]["rows"]} == {"example/dummy-a", "example/dummy-b"}
    assert suites["agent"]["boards"]["includes"]["rows"][0]["mean_score"] == pytest.approx(0.25)
    page = (site / "site" / "evals" / "agent" / "index.html").read_text(encoding="utf-8")
    assert "mockllm/model" in page
    front = (site / "site" / "index.html").read_text(encoding="utf-8")  # the suites are the front page's boards
    assert 'href="evals/lm/"' in front and 'href="evals/agent/"' in front and "example/dummy-a" in front


def test_new_sites_workflows_pass_actionlint(tmp_path):
    from test_workflows import _actionlint

    site = write_site_folder(tmp_path / "lint", empty=False)
    files = sorted((site / ".github" / "workflows").glob("*.yml"))
    assert [f.name for f in files] == ["pages.yml", "refresh.yml"]
    assert _actionlint(*files) == []


# --------------------------------------------------------------------------- an eval suite as a family's source


def test_a_family_feed_names_an_eval_suite_or_is_refused(tmp_path):
    text = (ROOT / "site.yml").read_text(encoding="utf-8")
    bad = text.replace("feeds: [arena/coding, aider/polyglot, livebench/coding]",
                       "feeds: [arena/coding, aider/polyglot, livebench/coding, evals/no-such-suite]")
    assert bad != text
    (tmp_path / "site.yml").write_text(bad, encoding="utf-8")
    with pytest.raises(UserError, match=r"'evals/no-such-suite' names no configured eval suite"):
        load_config(tmp_path / "site.yml")


def test_eval_suite_observations_are_the_suites_means_in_percent():
    from datetime import date

    from builder.evals.section import compute_evals_section
    from builder.scoring.boards import eval_suite_observations

    cfg, base = load_config(ROOT / "site.yml")
    coding = cfg.families["coding"].model_copy(update={"feeds": [*cfg.families["coding"].feeds, "evals/demo-suite"]})
    cfg = cfg.model_copy(update={"families": {**cfg.families, "coding": coding}})
    suite = next(s for s in cfg.evals if s.id == "demo-suite").model_copy(update={"bootstrap": 20})
    evals = compute_evals_section([suite], base)
    obs = eval_suite_observations(cfg, evals, date(2026, 11, 30))
    rows = {r.model_id: r.mean_score for r in evals.suites[0].rows}
    assert {o.model: o.raw for o in obs} == pytest.approx({m: 100 * v for m, v in rows.items()})
    assert all(o.feed == "evals/demo-suite" and o.percent and o.selected and o.identity for o in obs)
    # a suite no family names gives no observation
    assert eval_suite_observations(load_config(ROOT / "site.yml")[0], evals, date(2026, 11, 30)) == []


@pytest.mark.slow
def test_an_eval_suite_feeds_a_role_board_family_in_a_build(tmp_path):
    site = write_site_folder(tmp_path / "fam", empty=False)
    text = (site / "site.yml").read_text(encoding="utf-8")
    (site / "site.yml").write_text(text.replace(
        "feeds: [arena/coding, aider/polyglot, livebench/coding]",
        "feeds: [arena/coding, aider/polyglot, livebench/coding, evals/demo-suite]"), encoding="utf-8")
    proc = _run("build", cwd=site)
    assert proc.returncode == 0, proc.stderr
    snap = json.loads(max((site / "snapshots").glob("*.json")).read_text(encoding="utf-8"))
    fit = next(c for c in snap["calibration"] if c["feed"] == "evals/demo-suite")
    assert fit["used"] and len(fit["overlap"]) >= 10
    board = next(b for b in snap["boards"] if b["id"] == "mid-tier")
    assert any("evals:demo-suite" in r["evaluators"] for r in board["rows"])
