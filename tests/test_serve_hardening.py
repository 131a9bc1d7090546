"""``serve`` and ``render`` facing the operator's own machine: the preview server answers bad
paths with 4xx, never follows a symbolic link out of the site nor opens a FIFO, checks
``Host``, survives 200 connections at once, reports a busy port in one line and rebuilds
holding the project lock; ``render --snapshot`` refuses special files before reading them;
symbolic links in ``templates/static`` are never published."""

from __future__ import annotations

import functools
import json
import os
import shutil
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import render_cli
from fixtures.make_snapshot import make_snapshot
from serving import serve_in_background

from builder.cli.serve import _QuietHandler, bind_preview
from builder.errors import UserError

ROOT = Path(__file__).resolve().parents[1]
CONFIG = ROOT / "tests" / "fixtures" / "site.yml"


cli = render_cli()


@pytest.fixture
def served(tmp_path: Path):
    site = tmp_path / "site"
    site.mkdir()
    (site / "index.html").write_text("<p>home</p>")
    (site / "page").mkdir()
    (site / "page" / "index.html").write_text("<p>page</p>")
    (site / "passwd").symlink_to("/etc/passwd")
    (site / "etc").symlink_to("/etc")
    (site / "inside.html").symlink_to(site / "index.html")  # a link within the site is fine
    os.mkfifo(site / "pipe")
    server = bind_preview(0, functools.partial(_QuietHandler, directory=str(site)))
    serve_in_background(server)
    yield server.server_address[1]
    server.shutdown()
    server.server_close()


def get(port: int, path: str, host: str | None = None) -> tuple[int, bytes]:
    with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
        s.sendall(f"GET {path} HTTP/1.1\r\nHost: {host or f'127.0.0.1:{port}'}\r\nConnection: close\r\n\r\n".encode())
        data = b""
        while chunk := s.recv(65536):
            data += chunk
    status = int(data.split(b" ", 2)[1]) if data else 0
    return status, data.partition(b"\r\n\r\n")[2]


def test_bad_paths_get_4xx(served: int, capsys):
    assert get(served, "/index.html%00.txt")[0] == 400
    assert get(served, "/%2e%2e/%2e%2e/etc/passwd")[0] == 404
    assert get(served, "/index.html")[0] == 200
    assert "Traceback" not in capsys.readouterr().err


def test_symlinks_out_of_the_site_and_special_files_are_not_served(served: int):
    status, body = get(served, "/passwd")
    assert status == 404 and b"root:" not in body
    assert get(served, "/etc/passwd")[0] == 404
    assert get(served, "/etc/")[0] == 404
    assert get(served, "/inside.html") == (200, b"<p>home</p>")
    t0 = time.monotonic()
    assert get(served, "/pipe")[0] == 404 and time.monotonic() - t0 < 5  # never opened (it would block)


def test_host_is_checked(served: int):
    assert get(served, "/", host="evil.example")[0] == 421
    assert get(served, "/", host=f"evil.example:{served}")[0] == 421
    for host in ("127.0.0.1", f"localhost:{served}", f"[::1]:{served}"):
        assert get(served, "/", host=host)[0] == 200, host


def test_200_concurrent_connections(served: int, capsys):
    results: list[int] = []
    lock = threading.Lock()
    barrier = threading.Barrier(200)

    def one() -> None:
        barrier.wait()
        try:
            status = get(served, "/page/")[0]
        except OSError:
            status = -1
        with lock:
            results.append(status)

    threads = [threading.Thread(target=one) for _ in range(200)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert results.count(200) == 200, sorted(set(results))
    err = capsys.readouterr().err
    assert "Traceback" not in err and "BrokenPipe" not in err


def test_a_busy_port_is_one_line(tmp_path: Path):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        port = s.getsockname()[1]
        with pytest.raises(UserError, match=f"port {port} on 127.0.0.1 is in use"):
            bind_preview(port, _QuietHandler)
        res = CliRunner().invoke(cli, ["serve", "--port", str(port), "--out", str(tmp_path / "p")])
    assert res.exit_code == 2 and len(res.output.strip().splitlines()) == 1 and "in use" in res.output, res.output


SERVE_SCRIPT = """
import sys
sys.path[:0] = [{root!r}, {tests!r}]
from test_serve_hardening import cli
cli(sys.argv[1:])
"""


def test_serve_rebuilds_holding_the_project_lock(tmp_path: Path):
    """A build holding the lock: serve's rebuild waits for it instead of writing beside it."""
    from builder.util.lock import project_lock

    (tmp_path / "site.yml").write_text(CONFIG.read_text(encoding="utf-8"), encoding="utf-8")
    snaps = tmp_path / "snapshots"
    snaps.mkdir()
    snap = snaps / "2026-11-29.json"
    snap.write_text(json.dumps(make_snapshot(12, seed=1, day="2026-11-29")), encoding="utf-8")
    script = SERVE_SCRIPT.format(root=str(ROOT), tests=str(ROOT / "tests"))
    preview = tmp_path / "preview"
    with project_lock(tmp_path, 5):
        proc = subprocess.Popen(
            [sys.executable, "-c", script, "--config", str(tmp_path / "site.yml"), "serve", "--port", "0",
             "--out", str(preview), "--snapshot", str(snap)],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        try:
            assert proc.stdout is not None
            line = proc.stdout.readline()
            assert "waiting" in line, line  # it says it waits for the lock, and writes nothing
            time.sleep(1.0)
            assert not preview.exists()
        except BaseException:
            proc.kill()
            raise
    try:
        for line in proc.stdout:
            if line.startswith("serving "):
                break
        assert (preview / "index.html").is_file()
    finally:
        proc.terminate()
        proc.wait(timeout=10)


@pytest.mark.parametrize("kind", ["fifo", "dev-zero"])
def test_render_refuses_special_snapshot_files(tmp_path: Path, kind: str):
    path = tmp_path / "2026-11-29.json"
    if kind == "fifo":
        os.mkfifo(path)
    else:
        path.symlink_to("/dev/zero")
    script = (f"import sys; sys.path[:0] = [{str(ROOT)!r}, {str(ROOT / 'tests')!r}]\n"
              "from test_serve_hardening import cli; cli(sys.argv[1:])")
    proc = subprocess.run([sys.executable, "-c", script, "render", "--snapshot", str(path), "--out",
                           str(tmp_path / "site")], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2 and "not a regular file" in proc.stderr, proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1


def test_snapshot_reads_are_size_capped(tmp_path: Path, monkeypatch):
    import builder.snapshot.load as load

    monkeypatch.setattr(load, "MAX_SNAPSHOT_BYTES", 1000)
    path = tmp_path / "2026-11-29.json"
    path.write_text(json.dumps(make_snapshot(12, seed=1, day="2026-11-29")), encoding="utf-8")
    with pytest.raises(UserError, match="over the snapshot cap"):
        load.load_snapshot(path)


def test_symlinks_in_templates_static_are_not_published(tmp_path: Path):
    project = tmp_path / "proj"
    project.mkdir()
    (project / "site.yml").write_text(CONFIG.read_text(encoding="utf-8"), encoding="utf-8")
    shutil.copytree(ROOT / "templates", project / "templates")
    (project / "templates" / "static" / "passwd.txt").symlink_to("/etc/passwd")
    (project / "templates" / "static" / "etc").symlink_to("/etc")
    snap = project / "snapshots" / "2026-11-29.json"
    snap.parent.mkdir()
    snap.write_text(json.dumps(make_snapshot(12, seed=1, day="2026-11-29")), encoding="utf-8")
    res = CliRunner().invoke(cli, ["--config", str(project / "site.yml"), "render", "--snapshot", str(snap),
                                   "--out", str(tmp_path / "site")])
    assert res.exit_code == 0, res.output
    static = tmp_path / "site" / "static"
    assert static.is_dir() and not (static / "passwd.txt").exists() and not (static / "etc").exists()
    assert not any("root:x:0:0" in p.read_text(errors="ignore") for p in static.rglob("*") if p.is_file())
    assert "passwd.txt is a symbolic link" in res.output
