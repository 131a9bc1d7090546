"""The fault matrix: real ``modelboards build --live`` runs (subprocesses) against a hostile
upstream on 127.0.0.1.

After one good build, each case below runs one build in a copy of that project:

* for every fault kind (500, 404, timeout, slow drip, refused, truncated, invalid,
  empty-but-valid, oversize, redirect off-host, gzip bomb): every source faulted at once,
  the Arena battles dump included;
* for every source: one build with only that source empty-but-valid, one with it invalid;
* the YAML alias bomb for the YAML source (Aider).

Each build must exit 0; every faulted source shows as failed on the site with its reason;
its last good payload and every snapshot saved before the run are byte-identical; the other
sources are intact (fetched again, ok); and the build's peak memory (max RSS of the process,
from ``os.wait4``, through a small launcher) stays under 600 MB. The timeouts live in the
matrix's own site.yml: short for the cases that test them, patient for the others.
The good payloads are the project's bundled demo payloads.
"""

from __future__ import annotations

import contextlib
import gzip
import html
import io
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tarfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from pathlib import Path

import pytest
import yaml
from conftest import LIGHT_ARENA, QuietServer
from serving import serve_in_background

from builder.config import PACKAGE_DATA

ROOT = Path(__file__).resolve().parents[1]
DEMO = PACKAGE_DATA / "demo"
MODELBOARDS = Path(sys.executable).parent / "modelboards"
GOOD_AT = "2026-11-30T06:45:00+00:00"
FAULT_AT = "2026-11-30T12:45:00+00:00"
PEAK_MB = 600
MAX_BYTES = 4_000_000
BATTLES_MAX_BYTES = 16_000_000  # the battles dump's cap: the bundled demo battles carry conv_metadata (10.4 MB)
# Idle timeout and total deadline of the cases that test them (timeout, slow drip): short, so
# those builds end soon, with room for a loaded machine's test server.
TIMEOUT, DEADLINE = 1.5, 3.0
# Every other case (and the good build) waits longer: a server starved by the other builds on a
# loaded machine must not turn a healthy or an oversize response into a timeout.
PATIENT_TIMEOUT, PATIENT_DEADLINE = 15.0, 60.0
WAITING_FAULTS = frozenset({"timeout", "slow-drip"})

# source name -> (kind, payload file name, the file's good bytes); livebench and
# terminal-bench are multi-file and handled apart.
SINGLE = {
    "arena": ("lmarena", "leaderboard-text.json", DEMO / "arena" / "leaderboard-text.json"),
    "arena-catalog": ("lmarena_catalog", "scatterplot-data.json", DEMO / "arena-catalog" / "scatterplot-data.json"),
    "epoch": ("epoch", "epoch_capabilities_index.csv", DEMO / "epoch" / "epoch_capabilities_index.csv"),
    "aider": ("aider", "polyglot_leaderboard.yml", DEMO / "aider" / "polyglot_leaderboard.yml"),
    "litellm": ("litellm", "model_prices_and_context_window.json",
                DEMO / "litellm" / "model_prices_and_context_window.json"),
    "openrouter": ("openrouter", "models", DEMO / "openrouter" / "models.json"),
    "piratebench": ("piratebench", "piratebench.json", DEMO / "piratebench" / "piratebench.json"),
    "modelsdev": ("modelsdev", "api.json", DEMO / "modelsdev" / "api.json"),
}
UPSTREAM = [*SINGLE, "livebench", "terminal-bench", "arena-battles"]
TITLES = {}  # source name -> title on the site (filled from site.yml)

# The site's Sources table names the battles dump by this title (builder.pipeline.battles_source).
TITLES["arena-battles"] = "LMArena battles dump (Arena page)"


def _tarball(files: dict[str, bytes]) -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tar:
        for name, data in files.items():
            info = tarfile.TarInfo(f"terminal-bench-leaderboard-8e1925a3/{name}")
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return buf.getvalue()


def _good_files() -> dict[str, dict[str, bytes]]:
    """source -> {path under the source's URL prefix: bytes}."""
    out = {name: {fname: path.read_bytes()} for name, (_, fname, path) in SINGLE.items()}
    lb = DEMO / "livebench"
    out["livebench"] = {p.name: p.read_bytes() for p in sorted(lb.iterdir())}
    out["livebench"]["index"] = json.dumps([{"name": p.name, "type": "file"} for p in sorted(lb.iterdir())]).encode()
    tb = DEMO / "terminal-bench"
    out["terminal-bench"] = {"leaderboard.tar.gz": _tarball(
        {p.relative_to(tb).as_posix(): p.read_bytes() for p in sorted(tb.rglob("*.json"))})}
    out["arena-battles"] = {"clean_battle.jsonl": (DEMO / "battles" / "clean_battle_demo.jsonl").read_bytes()}
    return out


GOOD = _good_files()


def _empty(source: str, path: str) -> bytes:
    """A well-formed payload with nothing in it, as a broken upstream job publishes it."""
    if source == "livebench":
        if path == "index":
            return GOOD["livebench"]["index"]
        return GOOD["livebench"][path].split(b"\n", 1)[0] + b"\n" if path.endswith(".csv") else b"{}"
    if source == "terminal-bench":
        return _tarball({"results/x/run/results.json": b'{"accuracy": 0, "n_resolved": 0, "results": []}'})
    if source == "epoch":
        return GOOD["epoch"][path].split(b"\n", 1)[0] + b"\n"  # the header only
    return {"arena": b"{}", "arena-catalog": b"[]", "aider": b"[]\n", "litellm": b"{}",
            "openrouter": b'{"data": []}', "piratebench": b'{"benchmark": "PirateBench", "version": 1, "epochs": []}',
            "arena-battles": b"[]", "modelsdev": b"{}"}[source]


ALIAS_BOMB = ("a: &a [x, x, x, x, x, x, x, x, x]\n" + "".join(
    f"{'bcdefghi'[i]}: &{'bcdefghi'[i]} [" + ", ".join([f"*{'abcdefghi'[i]}"] * 9) + "]\n" for i in range(8))).encode()
GZIP_BOMB = gzip.compress(b"\0" * 200_000_000, compresslevel=9)

# fault kind -> the reasons the site may show for it, one of which it must (for the battles
# dump where they differ: its body is read as it arrives, never content-decoded)
REASONS = {
    "http-500": ("HTTP 500",), "http-404": ("HTTP 404",), "timeout": ("timed out",), "slow-drip": ("deadline",),
    "refused": ("connection failed",), "truncated": ("incomplete response",),
    "invalid": ("unparseable payload", "unreadable livebench index", "unreadable tarball"),
    "empty": ("implausible payload", "unparseable payload"), "oversize": ("too large",),
    "redirect-off-host": ("redirect to another host",), "gzip-bomb": ("too large",), "alias-bomb": ("alias",),
}
BATTLES_REASONS = {"invalid": ("battles dump refused",), "empty": ("battles dump refused",),
                   "gzip-bomb": ("battles dump refused",)}


# --------------------------------------------------------------------------- the hostile server


class Upstream:
    """``/<case>/<source>/<path>``: the good payload, or the fault set for (case, source)."""

    def __init__(self) -> None:
        self.faults: dict[tuple[str, str], str] = {}
        outer = self

        class H(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args) -> None:
                pass

            def do_GET(self) -> None:  # noqa: N802
                try:
                    outer.handle(self)
                except (BrokenPipeError, ConnectionResetError):
                    pass

        self.httpd = QuietServer(("127.0.0.1", 0), H)
        self.port = self.httpd.server_address[1]
        self.base = f"http://127.0.0.1:{self.port}"
        serve_in_background(self.httpd)

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    @staticmethod
    def _send(h: BaseHTTPRequestHandler, body: bytes, status: int = 200, headers: dict[str, str] | None = None,
              length: int | None = None) -> None:
        h.send_response(status)
        for k, v in (headers or {}).items():
            h.send_header(k, v)
        h.send_header("Content-Length", str(len(body) if length is None else length))
        h.send_header("Connection", "close")
        h.end_headers()
        h.wfile.write(body)
        h.wfile.flush()
        h.close_connection = True

    def handle(self, h: BaseHTTPRequestHandler) -> None:
        parts = h.path.lstrip("/").split("/", 2)
        if len(parts) != 3 or parts[1] not in GOOD or parts[2] not in GOOD[parts[1]]:
            return self._send(h, b"not found", 404)
        case, source, path = parts
        body = GOOD[source][path]
        fault = self.faults.get((case, source))
        if fault is None or (source == "livebench" and path == "index" and fault in ("empty", "alias-bomb")):
            return self._send(h, body)
        if fault == "http-500":
            return self._send(h, b"internal error", 500)
        if fault == "http-404":
            return self._send(h, b"gone", 404)
        if fault == "timeout":
            time.sleep(TIMEOUT * 4)
            return self._send(h, body)
        if fault == "slow-drip":
            h.send_response(200)
            h.send_header("Content-Length", str(len(body)))
            h.end_headers()
            for i in range(min(len(body), int(DEADLINE / 0.05) + 40)):  # never idle, never done in time
                h.wfile.write(body[i : i + 1])
                h.wfile.flush()
                time.sleep(0.05)
            h.close_connection = True
            return None
        if fault == "truncated":
            return self._send(h, body[: max(1, len(body) // 3)], length=len(body))
        if fault == "invalid":
            return self._send(h, b"\x00\xffthis is not the payload <html>rate limited</html>\n" * 20)
        if fault == "empty":
            return self._send(h, _empty(source, path))
        if fault == "oversize":  # the whole length announced, the body streamed past the cap
            cap = BATTLES_MAX_BYTES if source == "arena-battles" else MAX_BYTES
            pad, chunk = cap * 5 + 1, b" " * 65536
            h.send_response(200)
            h.send_header("Content-Length", str(len(body) + pad))
            h.send_header("Connection", "close")
            h.end_headers()
            try:
                h.wfile.write(body)
                for k in range(0, pad, len(chunk)):
                    h.wfile.write(chunk[: min(len(chunk), pad - k)])
            except (BrokenPipeError, ConnectionResetError):  # the client stopped reading at its cap
                pass
            h.close_connection = True
            return None
        if fault == "redirect-off-host":
            return self._send(h, b"", 302, {"Location": f"http://localhost:{self.port}/{case}/{source}/{path}"})
        if fault == "gzip-bomb":
            return self._send(h, GZIP_BOMB, headers={"Content-Encoding": "gzip"})
        if fault == "alias-bomb":
            return self._send(h, ALIAS_BOMB)
        raise AssertionError(fault)


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# --------------------------------------------------------------------------- the project


def _site_yml(base: str, case: str, refused: set[str], *, short: bool = False) -> dict:
    """The matrix's site.yml: the shipped one, every source live on the local server, small
    caps, few bootstrap rounds (Arena and boards), a light Arena (``LIGHT_ARENA``), no eval
    suites (operator files, not upstream); short timeouts when ``short`` (the case tests them),
    else patient ones."""
    timeout, deadline = (TIMEOUT, DEADLINE) if short else (PATIENT_TIMEOUT, PATIENT_DEADLINE)
    data = yaml.safe_load((ROOT / "site.yml").read_text())
    dead = f"http://127.0.0.1:{_closed_port()}"

    def url(source: str, path: str) -> str:
        return f"{dead if source in refused else base}/{case}/{source}/{path}"

    for s in data["sources"]:
        TITLES.setdefault(s["name"], s.get("title") or s["name"])
        s.update(timeout=timeout, deadline=deadline, max_bytes=MAX_BYTES)
        if s["name"] in SINGLE:
            s["url"] = url(s["name"], SINGLE[s["name"]][1])
        elif s["name"] == "livebench":
            s["url"] = url("livebench", "")
            s["options"]["index_url"] = url("livebench", "index")
        elif s["name"] == "terminal-bench":
            s["url"] = url("terminal-bench", "leaderboard.tar.gz")
    data["arena"].update(live_url=url("arena-battles", "clean_battle.jsonl"), live_max_bytes=BATTLES_MAX_BYTES,
                         live_timeout=timeout, live_deadline=deadline, live_min_battles=100,
                         bootstrap=3, **LIGHT_ARENA)
    data["uncertainty"]["rounds"] = 100
    data["evals"] = []
    data["fetch"] = {"store": ".modelboards/store", "retries": 1, "backoff": 0.01}
    data["snapshots_dir"] = "snapshots"
    return data


def _write_config(folder: Path, data: dict) -> Path:
    path = folder / "site.yml"
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return path


@dataclass
class Run:
    rc: int
    peak_mb: float
    seconds: float  # wall clock
    cpu: float  # user + system CPU seconds of the build process
    stdout: str
    stderr: str


# Linux keeps a process's peak RSS across exec, so a build started straight from this (large)
# test process would report this process's size. A small launcher forks the build from
# itself and writes the build's own rusage (from ``os.wait4``) and exit code to the file it is
# given (written whole, then renamed into place).
_LAUNCH = """
import os, sys

def launch(usage, cwd, argv, run):
    pid = os.fork()
    if pid == 0:
        os.chdir(cwd)
        run(argv)
    _, status, ru = os.wait4(pid, 0)
    with open(usage + ".part", "w") as f:
        f.write(f"{ru.ru_maxrss} {ru.ru_utime + ru.ru_stime} {os.waitstatus_to_exitcode(status)}")
    os.replace(usage + ".part", usage)
    return os.waitstatus_to_exitcode(status)
"""
_LAUNCHER = _LAUNCH + """
sys.exit(launch(sys.argv[1], os.getcwd(), sys.argv[2:], lambda argv: os.execv(argv[0], argv)))
"""

# The cases' builds are forked from one process per module that has imported what a build
# imports (``PRELOAD``): each case is still ``modelboards build --live`` (``builder.cli:main``
# with that command line) in a process of its own, with its own files, exit code, rusage and
# normal interpreter exit, without paying the interpreter start and the imports (1 to 1.6 CPU
# seconds of a case's 4.5) 34 times over, nor numba's loading of the kernels from its cache
# (about 0.4 CPU seconds a process, most of it setting up its CPU target). Such a build's peak
# RSS leaves out the pages of the preloaded libraries it never touches (30 to 40 MB less than
# an exec'd build: the matrix's largest was 256 against 288 MB, under the 600 MB limit). The
# good build before them is exec'd, cold.
PRELOAD = ["builder.cli", "builder.pipeline", "builder.fetch", "builder.fetch_battles", "builder.sources.registry",
           "builder.pairwise.arena", "builder.pairwise.arena_style", "builder.render.site", "builder.evidence.verify",
           "duckdb", "numba", "jinja2", "scipy.optimize", "httpx"]
_ZYGOTE = _LAUNCH + """
import importlib, json, signal
for name in json.loads(sys.argv[1]):
    importlib.import_module(name)
from builder.cli.warm import warm_kernels
warm_kernels()  # numba's machine code loaded (and its CPU target set up) once, not in every build


def run(argv):
    # the build: its own session's output files, no input, and the CLI's own exit
    null = os.open(os.devnull, os.O_RDONLY)
    out, err = (os.open(p, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644) for p in argv[:2])
    for fd, to in ((null, 0), (out, 1), (err, 2)):
        os.dup2(fd, to)
        os.close(fd)
    sys.argv = ["modelboards", *argv[2:]]
    from builder.cli import main
    main()  # raises SystemExit: the process ends as a started one does (atexit, threads joined)


signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # launchers reap themselves
print("ready", flush=True)
for line in sys.stdin:
    usage, cwd, argv = json.loads(line)
    pid = os.fork()
    if pid == 0:
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        os.setsid()
        os._exit(launch(usage, cwd, argv, run))
    print(pid, flush=True)
"""


class Launcher:
    """The process the cases' builds are forked from (``_ZYGOTE``); ``start`` returns a
    launcher's pid (its process group), whose usage file appears when its build has ended."""

    def __init__(self) -> None:
        self.proc = subprocess.Popen([sys.executable, "-c", _ZYGOTE, json.dumps(PRELOAD)], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, text=True)
        self.lock = threading.Lock()
        assert self.proc.stdout is not None and self.proc.stdout.readline() == "ready\n"

    def start(self, usage: Path, cwd: Path, argv: list[str]) -> int:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        with self.lock:
            self.proc.stdin.write(json.dumps([str(usage), str(cwd), argv]) + "\n")
            self.proc.stdin.flush()
            return int(self.proc.stdout.readline())

    def close(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        self.proc.wait(30)


def _run_build(cfg: Path, now: str, launcher: Launcher | None = None) -> Run:
    """One ``modelboards build --live`` in its own process (exec'd, or forked by ``launcher``);
    its peak memory, CPU and exit code from ``os.wait4``."""
    out, err, usage = cfg.parent / "build.out", cfg.parent / "build.err", cfg.parent / "build.usage"
    args = ["--config", str(cfg), "build", "--live", "--now", now]
    usage.unlink(missing_ok=True)  # a copied project holds the good build's
    t0 = time.monotonic()
    if launcher is None:
        with open(out, "w") as fo, open(err, "w") as fe:
            proc = subprocess.Popen([sys.executable, "-c", _LAUNCHER, str(usage), str(MODELBOARDS), *args],
                                    cwd=cfg.parent, stdout=fo, stderr=fe, stdin=subprocess.DEVNULL,
                                    start_new_session=True)
            timer = threading.Timer(150, lambda: os.killpg(proc.pid, 9))
            timer.start()
            try:
                proc.wait()
            finally:
                timer.cancel()
        rc = proc.returncode
    else:
        group = launcher.start(usage, cfg.parent, [str(out), str(err), *args])
        while not usage.is_file() and time.monotonic() - t0 < 180:
            if time.monotonic() - t0 > 150:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(group, 9)
            time.sleep(0.05)
        rc = int(usage.read_text().split()[2]) if usage.is_file() else -9
    maxrss_kb, cpu = (float(x) for x in usage.read_text().split()[:2]) if usage.is_file() else (0.0, 0.0)
    return Run(rc, maxrss_kb / 1024, time.monotonic() - t0, cpu, out.read_text(), err.read_text())


def _tree(folder: Path) -> dict[str, bytes]:
    if not folder.exists():
        return {}
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def _kept(base: Path, source: str) -> dict[str, bytes]:
    """What must survive a failure of ``source`` byte for byte: its payload and manifest."""
    store = base / ".modelboards" / "store"
    if source == "arena-battles":
        return {p.name: p.read_bytes() for p in (store / "battles").glob("*.jsonl")}
    return {**_tree(store / source / "payload"), "payload.json": (store / source / "payload.json").read_bytes()}


def _site_statuses(base: Path) -> dict[str, str]:
    """Source title -> its Status cell, from the orchestrator board's Sources table."""
    page = (base / "site" / "boards" / "orchestrator" / "index.html").read_text(encoding="utf-8")
    table = page[page.index('<details class="sources">'):]
    out = {}
    for row in re.findall(r"<tr>(.*?)</tr>", table, flags=re.S):
        cells = [html.unescape(re.sub(r"<[^>]+>", "", c)).strip() for c in re.findall(r"<td>(.*?)</td>", row, re.S)]
        if len(cells) >= 6:
            out[cells[0]] = cells[5]
    return out


# --------------------------------------------------------------------------- the matrix


@dataclass(frozen=True)
class Case:
    id: str
    faults: dict[str, str] = field(hash=False)  # source -> fault kind


FAULT_KINDS = ["http-500", "http-404", "timeout", "slow-drip", "refused", "truncated", "invalid", "empty",
               "oversize", "redirect-off-host", "gzip-bomb"]
CASES = (
    [Case(f"all-{k}", dict.fromkeys(UPSTREAM, k)) for k in FAULT_KINDS]
    + [Case(f"{s}-{k}", {s: k}) for s in UPSTREAM for k in ("empty", "invalid")]
    + [Case("aider-alias-bomb", {"aider": "alias-bomb"})]
)


@pytest.fixture(scope="module")
def upstream():
    srv = Upstream()
    yield srv
    srv.close()


@pytest.fixture(scope="module")
def launcher():
    lau = Launcher()
    yield lau
    lau.close()


@pytest.fixture(scope="module")
def good(upstream, tmp_path_factory) -> Path:
    """The project after one good live build (every case starts from a copy of it)."""
    base = tmp_path_factory.mktemp("matrix-good")
    cfg = _write_config(base, _site_yml(upstream.base, "good", set()))
    run = _run_build(cfg, GOOD_AT)
    assert run.rc == 0, run.stderr
    statuses = _site_statuses(base)
    for source in UPSTREAM:
        assert statuses[TITLES[source]] == "ok", (source, statuses)
    return base


def _one_case(upstream: Upstream, launcher: Launcher, good: Path, root: Path,
              case: Case) -> tuple[Case, Run, Path, dict, dict]:
    base = root / case.id
    shutil.copytree(good, base)
    for source, fault in case.faults.items():
        upstream.faults[(case.id, source)] = fault
    refused = {s for s, f in case.faults.items() if f == "refused"}
    short = any(f in WAITING_FAULTS for f in case.faults.values())
    cfg = _write_config(base, _site_yml(upstream.base, case.id, refused, short=short))
    kept = {s: _kept(base, s) for s in case.faults}
    snapshots = _tree(base / "snapshots")
    snapshots = {k: v for k, v in snapshots.items() if not k.startswith("attempts/")}
    return case, _run_build(cfg, FAULT_AT, launcher), base, kept, snapshots


# Builds at once: one per core and one more, since the timeout and slow-drip builds mostly
# wait on the server (each build is one process, about 5 CPU seconds and 400 MB at most).
WORKERS = (os.cpu_count() or 2) + 1


def test_fault_matrix(upstream, launcher, good, tmp_path):
    t0 = time.monotonic()
    with ThreadPoolExecutor(max_workers=WORKERS) as pool:
        results = list(pool.map(lambda c: _one_case(upstream, launcher, good, tmp_path, c), CASES))
    problems: list[str] = []
    for case, run, base, kept, snapshots in results:
        where = f"[{case.id}]"
        if run.rc != 0:
            problems.append(f"{where} exit {run.rc}: {run.stderr.strip()[-400:]}")
            continue
        if run.peak_mb >= PEAK_MB:
            problems.append(f"{where} peak memory {run.peak_mb:.0f} MB")
        statuses = _site_statuses(base)
        for source, fault in case.faults.items():
            reasons = BATTLES_REASONS.get(fault, REASONS[fault]) if source == "arena-battles" else REASONS[fault]
            shown = statuses.get(TITLES[source], "(not on the site)")
            if not shown.startswith("failed") or not any(r in shown for r in reasons):
                problems.append(f"{where} {source}: site says {shown[:160]!r}, expected failed with {reasons}")
            if _kept(base, source) != kept[source]:
                problems.append(f"{where} {source}: last good payload changed")
        for source in UPSTREAM:
            if source not in case.faults and statuses.get(TITLES[source]) != "ok":
                problems.append(f"{where} {source} (not faulted): site says {statuses.get(TITLES[source])!r}")
        now_snapshots = _tree(base / "snapshots")
        for name, data in snapshots.items():
            if now_snapshots.get(name) != data:
                problems.append(f"{where} snapshot {name} changed")
    assert not problems, "\n".join(problems)
    slowest = sorted(results, key=lambda r: -r[1].seconds)[:3]
    print(f"\n{len(CASES)} builds ({WORKERS} at once) in {time.monotonic() - t0:.0f} s wall, "
          f"{sum(r[1].cpu for r in results):.0f} CPU s; slowest "
          + ", ".join(f"{r[0].id} {r[1].seconds:.1f} s ({r[1].cpu:.1f} CPU s)" for r in slowest)
          + f"; peak memory {max(r[1].peak_mb for r in results):.0f} MB")


def test_the_matrix_covers_every_fault_kind_and_source():
    kinds = {f for c in CASES for f in c.faults.values()}
    assert kinds == set(FAULT_KINDS) | {"alias-bomb"}
    for k in FAULT_KINDS:
        assert any(set(c.faults) == set(UPSTREAM) and set(c.faults.values()) == {k} for c in CASES)
    for s in UPSTREAM:
        for k in ("empty", "invalid"):
            assert any(c.faults == {s: k} for c in CASES)
    configured = {s["name"] for s in yaml.safe_load((ROOT / "site.yml").read_text())["sources"] if s.get("url")}
    assert configured <= set(UPSTREAM)  # every upstream source of the shipped config is in the matrix
