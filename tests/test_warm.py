"""``modelboards warm``: every kernel Python calls is compiled ahead, for the argument types
the build passes, so a build after it compiles nothing (numba's cache in a folder of the
test's own, ``NUMBA_CACHE_DIR``, so the checkout's cache plays no part)."""

from __future__ import annotations

import importlib
import os
import re
import subprocess
import sys
from pathlib import Path

import yaml
from numba.core.registry import CPUDispatcher

from builder.cli.warm import INNER, kernels

ROOT = Path(__file__).resolve().parents[1]
MODELBOARDS = Path(sys.executable).parent / "modelboards"


def _kernel_modules() -> list[str]:
    """Every module of builder/ that compiles a kernel with numba."""
    found = []
    for path in sorted((ROOT / "builder").rglob("*.py")):
        if re.search(r"\bnjit\b", path.read_text(encoding="utf-8")) and path.name != "warm.py":
            found.append(".".join(path.relative_to(ROOT).with_suffix("").parts))
    return found


def test_every_kernel_is_warmed_or_only_called_by_kernels():
    warmed = {id(d) for _, d, _ in kernels()}
    names = {name for name, _, _ in kernels()}
    signatures = {(id(d), args) for _, d, args in kernels()}
    assert len(names) == len(signatures) == len(kernels())  # a kernel may be warmed for several types
    modules = _kernel_modules()
    assert {"builder.scoring.uncertainty", "builder.pairwise.elo", "builder.pairwise.battles"} <= set(modules)
    missing = []
    for name in modules:
        module = importlib.import_module(name)
        inner = INNER.get(name, ())
        for attr in inner:
            assert isinstance(getattr(module, attr, None), CPUDispatcher), f"{name}.{attr} in INNER is no kernel"
        for attr, value in vars(module).items():
            if isinstance(value, CPUDispatcher) and id(value) not in warmed and attr not in inner:
                missing.append(f"{name}.{attr}")
    assert not missing, f"kernels neither warmed (builder.cli.warm.kernels) nor listed in INNER: {missing}"


def _env(cache: Path) -> dict[str, str]:
    env = {**os.environ, "NUMBA_CACHE_DIR": str(cache)}
    env.pop("NUMBA_DISABLE_JIT", None)
    return env


def _cache_files(cache: Path) -> dict[str, tuple[int, int]]:
    return {p.relative_to(cache).as_posix(): (p.stat().st_mtime_ns, p.stat().st_size)
            for p in cache.rglob("*") if p.is_file()}


def test_a_score_after_warm_compiles_no_kernel(tmp_path):
    """Warm into an empty cache (every kernel compiled), then fetch and score the bundled demo
    (every kernel of a build runs: the board bootstrap, the Arena's Elo, the
    time-order check): the cache is left as warm wrote it. About 10 CPU seconds, most of them
    numba compiling: the one check that the warmed types are the ones a build passes."""
    cache = tmp_path / "numba-cache"
    env = _env(cache)
    n = len(kernels())

    def run(*args: str) -> str:
        proc = subprocess.run([str(MODELBOARDS), *args], cwd=tmp_path, env=env, capture_output=True, text=True,
                              timeout=600)
        assert proc.returncode == 0, proc.stderr[-3000:]
        return proc.stdout

    first = run("warm", "--each")
    assert f"warm: {n} kernel(s) compiled, 0 already cached" in first, first
    assert first.count(" compiled ") == n
    warmed = _cache_files(cache)
    assert warmed
    data = yaml.safe_load((ROOT / "site.yml").read_text(encoding="utf-8"))
    data["fetch"] = {"store": ".modelboards/store"}
    data["snapshots_dir"] = "snapshots"
    data["evals"] = []
    (tmp_path / "site.yml").write_text(yaml.safe_dump(data), encoding="utf-8")
    run("fetch")
    assert "snapshot" in run("score", "--date", "2026-11-30")
    after = _cache_files(cache)
    assert after == warmed, f"the build compiled: {sorted(set(after.items()) - set(warmed.items()))}"
