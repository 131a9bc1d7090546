"""The wheel is self-contained: built, installed into a fresh virtual environment with no
node_modules in reach, ``modelboards new`` + ``modelboards build`` give the full site, and the
race page animates in Chromium with the D3 the wheel carries.

One test, slow on purpose (the wheel's dependencies install from the pip cache into a plain
new venv, and a full offline build runs there): it is the only way to know
that nothing of the checkout (node_modules, templates/, snapshots/) is needed by a user.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import PageWatch, serve_directory

pytestmark = [pytest.mark.slow, pytest.mark.browser]

ROOT = Path(__file__).resolve().parents[1]
D3 = ROOT / "node_modules" / "d3"
_SKIP_COPY = shutil.ignore_patterns(".git", ".venv", "node_modules", "build", "dist", "site", ".modelboards",
                                    "*.egg-info", "__pycache__", ".pytest_cache", ".mypy_cache", ".ruff_cache",
                                    ".import_linter_cache", ".hypothesis", "tests")


def _run(cmd: list[str], cwd: Path, timeout: float) -> subprocess.CompletedProcess[str]:
    # as on a user's machine: bytecode written on first import (the install wrote none), no checkout in reach
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME", "PYTHONDONTWRITEBYTECODE")}
    proc = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    assert proc.returncode == 0, f"{' '.join(cmd)}\n{proc.stdout[-2000:]}\n{proc.stderr[-4000:]}"
    return proc


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> Path:
    """A plain new venv with the freshly built wheel installed; returns its bin/ folder."""
    assert (D3 / "dist" / "d3.min.js").is_file(), "run `npm ci`: the wheel's build step copies D3 from node_modules"
    tmp = tmp_path_factory.mktemp("wheel")
    src = tmp / "src"  # a clean copy: no stale build/ of the checkout can leak into the wheel
    shutil.copytree(ROOT, src, ignore=_SKIP_COPY)
    (src / "node_modules").mkdir()
    (src / "node_modules" / "d3").symlink_to(D3.resolve(), target_is_directory=True)
    _run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(tmp / "dist"), str(src)], tmp, 600)
    wheel = next((tmp / "dist").glob("modelboards-*.whl"))
    shutil.rmtree(src)  # nothing of the source (nor node_modules) stays in reach
    # A venv without pip of its own, filled by this interpreter's pip (``--python``): the same
    # resolution and files, without ensurepip; --no-compile: no bytecode for the thousands of
    # modules of the dependencies (most of the install's CPU), the build compiles what it imports.
    _run([sys.executable, "-m", "venv", "--without-pip", str(tmp / "venv")], tmp, 120)
    _run([sys.executable, "-m", "pip", "--python", str(tmp / "venv" / "bin" / "python"), "install", "-q",
          "--no-compile", str(wheel)], tmp, 900)
    return tmp / "venv" / "bin"


def test_installed_wheel_builds_a_new_site_whose_race_animates(installed, browser, tmp_path):
    where = _run([str(installed / "python"), "-c", "import builder; print(builder.__file__)"], tmp_path, 60)
    assert where.stdout.strip().startswith(str(installed.parent))  # the installed copy, not the checkout
    _run([str(installed / "modelboards"), "new", "mysite"], tmp_path, 120)
    site = tmp_path / "mysite"
    assert not any(p.name == "node_modules" for p in tmp_path.rglob("node_modules"))
    built = _run([str(installed / "modelboards"), "build"], site, 600)
    assert "D3 not found" not in built.stderr and "static SVGs only" not in built.stderr
    vendor = site / "site" / "static" / "vendor"
    assert (vendor / "d3.min.js").read_bytes() == (D3 / "dist" / "d3.min.js").read_bytes()
    assert "ISC" in (vendor / "d3.LICENSE.txt").read_text(encoding="utf-8")
    race = json.loads((site / "site" / "data" / "race" / "boards.json").read_text(encoding="utf-8"))
    frames = max(len(b["frames"]) for b in race["boards"])
    assert frames >= 3  # the demo history came along: the race plays from the first build
    with serve_directory(site / "site") as origin:
        context = browser.new_context(viewport={"width": 1100, "height": 900})
        page = context.new_page()
        watch = PageWatch(page, origin)
        page.goto(f"{origin}/race/")
        page.wait_for_function("() => document.getElementById('race').hasAttribute('data-frame')")
        assert page.evaluate("() => window.d3 && window.d3.version") == json.loads(
            (D3 / "package.json").read_text(encoding="utf-8"))["version"]
        page.click("#race-reset")
        before = page.eval_on_selector_all("#race-chart g.bar", "els => els.map(e => e.getAttribute('transform'))")
        page.select_option("#race-speed", "8")
        page.click("#race-play")
        page.wait_for_function("() => +document.getElementById('race').dataset.frame >= 2", timeout=20000)
        page.click("#race-pause")
        after = page.eval_on_selector_all("#race-chart g.bar", "els => els.map(e => e.getAttribute('transform'))")
        assert before and after != before  # the bars moved
        charts = context.new_page()
        charts.goto(f"{origin}/charts/history/")
        assert charts.evaluate("() => typeof window.d3") == "object"
        context.close()
    assert watch.errors == []
    assert any(u.endswith("/static/vendor/d3.min.js") for u in watch.urls)
