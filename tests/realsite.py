"""The live build on the real upstream files, offline: serve a ``../shared/data``-style folder
from 127.0.0.1 the way the upstream hosts publish it, point a ``demo: false`` site.yml at
that server, and run ``modelboards build --live``.

What the server answers (one ``ThreadingHTTPServer`` on a free port of 127.0.0.1):

* ``/raw/<path>``: a file of the data folder, as raw.githubusercontent.com serves it
  (LMArena leaderboard and catalog, Epoch ECI, Aider, LiteLLM, OpenRouter, LiveBench files);
* ``/api/repos/LiveBench/livebench.github.io/contents/public``: the GitHub contents-API
  listing of the LiveBench files in the folder;
* ``/api/repos/<owner>/<repo>/commits?path=<path>&per_page=1``: GitHub's commits API for
  one file: the pinned commit and its date (``../shared/data/MANIFEST.md``), 404 for a file
  it does not know;
* ``/codeload/terminal-bench.tar.gz``: the Terminal-Bench leaderboard repository as a
  tarball (``<repo>-<commit>/results/...``), made in memory from the folder;
* ``/codeload/models.dev.tar.gz``: the recorded models.dev repository tarball.

Used by the session fixture ``real_site`` (tests/conftest.py) and, as a script, by
``make real-site``::

    python tests/realsite.py [DATA_DIR] [OUT_DIR]

which builds the real-data site into OUT_DIR (default ``site-real``; its store and snapshots
go to ``OUT_DIR.work``) and prints where it is. DATA_DIR ``-`` or absent: ``real_data_dir()``.
"""

from __future__ import annotations

import contextlib
import http.server
import io
import json
import os
import subprocess
import sys
import tarfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import parse_qs, unquote, urlsplit

import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(Path(__file__).resolve().parent))

from realdata import registry  # noqa: E402
from serving import running  # noqa: E402

#: Commit date of each pinned upstream commit (``../shared/data/MANIFEST.md``), by commit prefix.
COMMIT_DATES = {
    "ea8297b5": "2025-12-11T00:00:00Z",  # lmarena/arena-catalog leaderboard-text.json
    "99f1eade": "2025-11-06T00:00:00Z",
    "a7ae8627": "2025-12-17T00:00:00Z",  # scatterplot-data.json
    "07356c21": "2025-11-07T00:00:00Z",  # Epoch ECI
    "cb6a152e": "2025-10-04T00:00:00Z",  # Aider polyglot
    "8442b939": "2026-07-24T00:00:00Z",  # LiteLLM (re-serialised copy)
    "ef05c3be": "2026-08-19T00:00:00Z",  # OpenRouter (kept copy)
    "8e1925a3": "2025-09-25T00:00:00Z",  # Terminal-Bench leaderboard
}
TERMINAL_BENCH_COMMIT = "8e1925a397d7ed859c027cc19b3a3d90c16ef8df"
MODELSDEV_COMMIT = "f3fc692299671838c7c65fd8126bf84d81a2e817"
LIVEBENCH_LISTING = "/api/repos/LiveBench/livebench.github.io/contents/public"


def _commits_index(data: Path) -> dict[tuple[str, str], tuple[str, str]]:
    """``(owner/repo, upstream path) -> (commit sha, ISO date)`` of every registered file
    whose commit date is known."""
    out: dict[tuple[str, str], tuple[str, str]] = {}
    for e in registry():
        if e.archive:
            continue  # a whole repository: no file path for the commits API
        when = COMMIT_DATES.get(e.commit[:8])
        key = (e.repo, unquote(e.upstream_path))
        if when is not None and (data / e.path).is_file() and (key not in out or out[key][1] < when):
            out[key] = (e.commit, when)  # the API answers with the newest commit of the path
    return out


def _tarball(folder: Path, prefix: str, under: str) -> bytes:
    """``folder/under/**`` as a .tar.gz whose members read ``<prefix>/<under>/...``."""
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tar:
        for f in sorted((folder / under).rglob("*")):
            if f.is_file():
                tar.add(f, arcname=f"{prefix}/{f.relative_to(folder).as_posix()}", recursive=False)
    return buf.getvalue()


class _Upstream(http.server.BaseHTTPRequestHandler):
    data: Path
    commits: dict[tuple[str, str], tuple[str, str]]
    blobs: dict[str, bytes]

    def log_message(self, *args: object) -> None:  # keep test output clean
        pass

    def _send(self, body: bytes, ctype: str = "application/octet-stream", code: int = 200) -> None:
        self.send_response(code)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self) -> None:  # noqa: N802 (http.server's name)
        parts = urlsplit(self.path)
        path = unquote(parts.path)
        if path.startswith("/raw/"):
            f = (self.data / path.removeprefix("/raw/")).resolve()
            if self.data.resolve() in f.parents and f.is_file():
                return self._send(f.read_bytes())
        elif path == LIVEBENCH_LISTING:
            names = sorted(p.name for p in (self.data / "livebench").iterdir() if p.is_file())
            listing = [{"name": n, "path": f"public/{n}", "type": "file"} for n in names]
            return self._send(json.dumps(listing).encode(), "application/json")
        elif path.startswith("/api/repos/") and path.endswith("/commits"):
            repo = path.removeprefix("/api/repos/").removesuffix("/commits")
            wanted = (parse_qs(parts.query).get("path") or [""])[0]
            hit = self.commits.get((repo, wanted))
            if hit is not None:
                sha, when = hit
                who = {"name": "upstream", "date": when}
                body = [{"sha": sha, "commit": {"author": who, "committer": who, "message": "recorded"}}]
                return self._send(json.dumps(body).encode(), "application/json")
            return self._send(b"[]", "application/json")
        elif path.startswith("/codeload/") and path.removeprefix("/codeload/") in self.blobs:
            return self._send(self.blobs[path.removeprefix("/codeload/")], "application/x-gzip")
        self._send(b'{"message": "Not Found"}', "application/json", 404)


class _Server(http.server.ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request, client_address):  # a dropped connection is not a failure
        if not isinstance(sys.exc_info()[1], (ConnectionResetError, BrokenPipeError)):
            super().handle_error(request, client_address)


@contextlib.contextmanager
def serve_upstream(data: Path) -> Iterator[str]:
    """Serve the real files of ``data`` as their upstream hosts do (module docstring); yields
    the origin ``http://127.0.0.1:PORT``; the server stops when the block ends."""
    blobs = {"terminal-bench.tar.gz": _tarball(data / "terminal-bench", f"terminal-bench-leaderboard-"
                                               f"{TERMINAL_BENCH_COMMIT}", "results")}
    modelsdev = sorted((data / "modelsdev").glob("models.dev-*.tar.gz"))
    if modelsdev:
        blobs["models.dev.tar.gz"] = modelsdev[-1].read_bytes()
    handler = type("Upstream", (_Upstream,), {"data": Path(data), "commits": _commits_index(Path(data)),
                                              "blobs": blobs})
    with running(_Server(("127.0.0.1", 0), handler)) as origin:
        yield origin


#: source name in site.yml -> the URL path its live payload is served at
LIVE_PATHS = {
    "arena": "/raw/arena/lmarena/leaderboard-text.json",
    "arena-catalog": "/raw/arena/lmarena/scatterplot-data.json",
    "epoch": "/raw/epoch/epoch_capabilities_index.csv",
    "aider": "/raw/aider/polyglot_leaderboard.yml",
    "livebench": "/raw/livebench/",
    "terminal-bench": "/codeload/terminal-bench.tar.gz",
    "litellm": "/raw/litellm/model_prices_and_context_window.json",
    "openrouter": "/raw/openrouter/openrouter_models.json",
    "modelsdev": "/codeload/models.dev.tar.gz",
}

#: the GenAI-Arena battles dump (FastChat clean_battle), served like raw.githubusercontent.com
GENAI_BATTLES = "/raw/arena/genai-arena/clean_battle_20240220.json"

#: source name -> ``owner/repo:path`` of the upstream file (its commit dates the payload)
UPSTREAM_FILES = {
    "arena": "lmarena/arena-catalog:data/leaderboard-text.json",
    "arena-catalog": "lmarena/arena-catalog:data/scatterplot-data.json",
    "epoch": "epoch-research/benchmark-stitching:data/website/epoch_capabilities_index.csv",
    "aider": "Aider-AI/aider:aider/website/_data/polyglot_leaderboard.yml",
    "litellm": "RoCry/llm-api-price:model_prices_and_context_window.json",
    "openrouter": "anuran-roy/unified-llm-pricing:openrouter_models.json",
}


def write_real_config(origin: str, work: Path, *, uncertainty_rounds: int | None = None) -> Path:
    """A ``demo: false`` site.yml in ``work`` from the project's own site.yml, every source with
    a live payload pointed at ``origin``; the store and the snapshots in ``work``; no text Arena
    battles (no real dump of text battles is recorded) but GenAI-Arena's text-to-image battles
    as one more arena (``arenas/text-to-image/``), and no eval suites (the bundled ones are
    demo runs). Returns its path."""
    data = yaml.safe_load((ROOT / "site.yml").read_text(encoding="utf-8"))
    data["demo"] = False
    for s in data["sources"]:
        if s["name"] in LIVE_PATHS:
            s["url"] = origin + LIVE_PATHS[s["name"]]
        if s["name"] in UPSTREAM_FILES:
            s["upstream_file"] = UPSTREAM_FILES[s["name"]]
        if s["name"] == "livebench":
            s.setdefault("options", {})["index_url"] = origin + LIVEBENCH_LISTING
        if s.get("recorded") and not Path(s["recorded"]).is_absolute():
            s["recorded"] = str(ROOT / "builder" / "data" / s["recorded"])
    data.setdefault("fetch", {})
    data["fetch"]["store"] = str(work / "store")
    data["fetch"]["github_api"] = origin + "/api"
    data["snapshots_dir"] = str(work / "snapshots")
    data["arena"] = {"enabled": False}
    # The one real battles dump (GenAI-Arena's text-to-image votes) as one more arena, fetched live
    # from the test server like every other source.
    data["arenas"] = [{"id": "text-to-image", "title": "Text-to-Image (GenAI-Arena)", "models": "_generation$",
                       "all_votes": True, "live_url": origin + GENAI_BATTLES}]
    data["evals"] = []
    if uncertainty_rounds is not None:
        data["uncertainty"] = {**data.get("uncertainty", {}), "rounds": uncertainty_rounds}
    path = work / "site.yml"
    work.mkdir(parents=True, exist_ok=True)
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return path


@dataclass(frozen=True)
class RealSite:
    """One live build of the real files: the site folder, its snapshot, its config and the
    build's output (stdout and stderr)."""

    site: Path
    snapshot: Path
    config: Path
    output: str


def build_real_site(data: Path, work: Path, *, out: Path | None = None, now: str | None = None) -> RealSite:
    """Serve ``data`` on 127.0.0.1 and run ``modelboards build --live`` against it in a child
    process (as an operator would). Raises RuntimeError with the build's output when it fails."""
    work.mkdir(parents=True, exist_ok=True)
    out = out or work / "site"
    env = {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    env.pop("GITHUB_TOKEN", None)  # never sent to a test server anyway; keep the run the same everywhere
    with serve_upstream(data) as origin:
        config = write_real_config(origin, work)
        cmd = [sys.executable, "-c", "from builder.cli import main; main()", "--config", str(config), "build",
               "--live", "--out", str(out)]
        if now is not None:
            cmd += ["--now", now]
        proc = subprocess.run(cmd, cwd=work, env=env, capture_output=True, text=True, timeout=900)
    output = proc.stdout + proc.stderr
    if proc.returncode != 0:
        raise RuntimeError(f"modelboards build --live exited {proc.returncode}:\n{output}")
    snaps = sorted((work / "snapshots").glob("*.json"))
    if not snaps:
        raise RuntimeError(f"the live build wrote no snapshot:\n{output}")
    return RealSite(site=out, snapshot=snaps[-1], config=config, output=output)


def main(argv: list[str]) -> int:
    from realdata import real_data_dir

    data = Path(argv[0]) if argv and argv[0] != "-" else real_data_dir()
    out = Path(argv[1] if len(argv) > 1 else "site-real").resolve()
    work = out.parent / (out.name + ".work")
    try:
        built = build_real_site(data, work, out=out)
    except RuntimeError as exc:
        print(exc, file=sys.stderr)
        return 1
    print(built.output.rstrip())
    print(f"real-data site: {built.site} (snapshot {built.snapshot}); serve it with "
          f"python -m http.server -d {built.site} -b 127.0.0.1")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
