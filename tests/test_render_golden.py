"""Golden files: every page type of the site, and the board CSV/JSON downloads.

Two fixed inputs, each rendered at a fixed time and base URL:

- the synthetic fixture ``tests/fixtures/golden_snapshot.json`` with ``tests/fixtures/site.yml``:
  a board page, a model page and the board downloads;
- the shipped demo history ``snapshots/`` (the 2026-11-29 snapshot, the earlier ones as its
  history) with the repository's ``site.yml``: every other page type (front, boards, Arena,
  both eval suites, Capability Index, Evidence, each chart page, Race, Methodology, a model
  page, Excluded, Stacks, Picks, Data, Archive, Changelog), so these goldens change when
  ``make snapshots`` does.

After an intended change to the templates, content, exports or the demo history,
regenerate every golden with ONE command and review the diff:

    make golden      # MODELBOARDS_REGEN_GOLDEN=1 python -m pytest tests/test_render_golden.py
"""

from __future__ import annotations

import functools
import os
from datetime import UTC, datetime
from pathlib import Path

import pytest

from builder.config import load_config
from builder.history.diff import compute_change_log
from builder.render.site import render_site
from builder.snapshot import list_snapshots, load_snapshot

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "tests" / "fixtures"
GOLDEN = ROOT / "tests" / "golden"
REGEN = os.environ.get("MODELBOARDS_REGEN_GOLDEN") == "1"
BASE_URL = "https://user.github.io/modelboards/"
DEMO_DAY = "2026-11-29"
DEMO_NOW = datetime(2026, 11, 29, 13, 0, tzinfo=UTC)

# (path in the built site, golden file name) of the synthetic fixture's site
FILES = [
    ("boards/orchestrator/index.html", "board-orchestrator.html"),
    ("models/helix-sol-24/index.html", "model-helix-sol-24.html"),
    ("data/boards/orchestrator.csv", "orchestrator.csv"),
    ("data/boards/orchestrator.json", "orchestrator.json"),
    ("data/boards/mid-tier.csv", "mid-tier.csv"),
]

# ... and of the demo history's site (golden files under tests/golden/demo/)
DEMO_FILES = [
    ("index.html", "front.html"),
    ("boards/index.html", "boards.html"),
    ("boards/open-weight/index.html", "board-open-weight.html"),
    ("arena/index.html", "arena.html"),
    ("evals/index.html", "evals.html"),
    ("evals/demo-suite/index.html", "evals-demo-suite.html"),
    ("evals/demo-clarify/index.html", "evals-demo-clarify.html"),
    ("capability-index/index.html", "capability-index.html"),
    ("evidence/index.html", "evidence.html"),
    ("charts/index.html", "charts.html"),
    ("charts/price-quality/index.html", "charts-price-quality.html"),
    ("charts/history/index.html", "charts-history.html"),
    ("charts/ranks/index.html", "charts-ranks.html"),
    ("charts/spread/index.html", "charts-spread.html"),
    ("race/index.html", "race.html"),
    ("methodology/index.html", "methodology.html"),
    ("models/gpt-6/index.html", "model-gpt-6.html"),
    ("excluded/index.html", "excluded.html"),
    ("stacks/index.html", "stacks.html"),
    ("picks/index.html", "picks.html"),
    ("data/index.html", "data.html"),
    ("archive/index.html", "archive.html"),
    ("changelog/index.html", "changelog.html"),
    ("api/index.html", "api.html"),
    ("data/snapshot.schema.json", "snapshot.schema.json"),
    ("data/README.md", "evidence-README.md"),
    ("changes/index.html", "changes.html"),
    ("changes/2026-11-22/index.html", "changes-2026-11-22.html"),
    ("feed.xml", "feed.xml"),
    ("compare/index.html", "compare.html"),
    ("data/identities.csv", "identities.csv"),
]


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Path:
    cfg, _ = load_config(FIXTURES / "site.yml")
    snapshot = load_snapshot(FIXTURES / "golden_snapshot.json")
    out = tmp_path_factory.mktemp("golden-site")
    render_site(snapshot, [], cfg, ROOT, out, now=datetime(2026, 11, 30, 12, tzinfo=UTC), base_url=BASE_URL)
    return out


@pytest.fixture(scope="module")
def built_demo(tmp_path_factory) -> Path:
    cfg, base = load_config(ROOT / "site.yml")
    paths = list_snapshots(ROOT / "snapshots")
    current = next(p for p in paths if p.stem == DEMO_DAY)
    history = [load_snapshot(p) for p in paths if p != current]
    out = tmp_path_factory.mktemp("golden-demo-site")
    render_site(load_snapshot(current), history, cfg, base, out, now=DEMO_NOW, base_url=BASE_URL,
                change_log=functools.partial(compute_change_log, threshold=cfg.changes.score_threshold))
    return out


def check(site: Path, site_path: str, golden: Path) -> None:
    got = (site / site_path).read_bytes()
    if REGEN:
        golden.parent.mkdir(parents=True, exist_ok=True)
        golden.write_bytes(got)
        return
    assert golden.is_file(), f"missing {golden}; run `make golden`"
    assert got == golden.read_bytes(), (
        f"{site_path} differs from {golden}; if the change is intended, regenerate with `make golden` "
        "(MODELBOARDS_REGEN_GOLDEN=1 python -m pytest tests/test_render_golden.py) and review the diff"
    )


@pytest.mark.parametrize("site_path,golden_name", FILES)
def test_output_matches_golden(built, site_path, golden_name):
    check(built, site_path, GOLDEN / golden_name)


@pytest.mark.parametrize("site_path,golden_name", DEMO_FILES)
def test_every_page_type_matches_its_golden(built_demo, site_path, golden_name):
    check(built_demo, site_path, GOLDEN / "demo" / golden_name)


def test_the_goldens_cover_every_page_type(built_demo):
    """Each page kind the site writes has a golden (one page per kind, every kind)."""
    kinds = {p.relative_to(built_demo).parts[0] for p in built_demo.rglob("index.html") if p.parent != built_demo}
    covered = {path.split("/")[0] for path, _ in [*FILES, *DEMO_FILES]}
    content_pages = {"about", "piratebench-format"}  # markdown from content/, one template
    assert kinds - covered <= content_pages, kinds - covered
