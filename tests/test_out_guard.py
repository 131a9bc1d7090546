"""``--out`` never replaces a folder this tool did not write: the project, the snapshots, the
store, ``$HOME``, ``/`` or any non-empty folder without the site marker (one line, exit 2)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import click
import pytest
from click.testing import CliRunner
from fixtures.make_snapshot import make_snapshot

from builder.cli import Context, Group
from builder.cli.render import render_cmd
from builder.cli.serve import serve_cmd
from builder.cli.site import build
from builder.util.outdir import SITE_MARKER

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def project(tmp_path: Path) -> Path:
    proj = tmp_path / "proj"
    proj.mkdir()
    shutil.copy(ROOT / "tests" / "fixtures" / "site.yml", proj / "site.yml")
    snaps = proj / "snapshots"
    snaps.mkdir()
    snap = make_snapshot(12, seed=1, day="2026-11-29")
    (snaps / "2026-11-29.json").write_text(json.dumps(snap), encoding="utf-8")
    (snaps / "attempts").mkdir()
    store = proj / ".modelboards" / "store"
    store.mkdir(parents=True)
    (store / "keep.txt").write_text("payload")
    return proj


def tree(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def invoke(project: Path, *args: str):
    @click.group(cls=Group)
    @click.pass_context
    def cli(ctx: click.Context) -> None:
        ctx.obj = Context(str(project / "site.yml"), 0)

    cli.add_command(render_cmd)
    cli.add_command(serve_cmd)
    cli.add_command(build)
    return CliRunner().invoke(cli, list(args))


def render(project: Path, out: str | Path):
    return invoke(project, "render", "--snapshot", str(project / "snapshots" / "2026-11-29.json"), "--out", str(out))


@pytest.mark.parametrize("where", ["project", "snapshots", "store", "home", "root", "parent", "inside-store"])
def test_render_refuses_folders_it_did_not_write(project: Path, where: str, monkeypatch, tmp_path: Path):
    home = tmp_path / "home"
    home.mkdir()
    (home / ".bashrc").write_text("x")
    monkeypatch.setenv("HOME", str(home))
    out = {"project": project, "snapshots": project / "snapshots", "store": project / ".modelboards" / "store",
           "home": home, "root": Path("/"), "parent": tmp_path,
           "inside-store": project / ".modelboards" / "store" / "site"}[where]
    before = tree(project)
    res = render(project, out)
    assert res.exit_code == 2, res.output
    assert "refused" in res.output and len(res.output.strip().splitlines()) == 1, res.output
    assert "Traceback" not in res.output
    assert tree(project) == before
    assert not list(Path("/").glob("..new-*")) and not list(tmp_path.glob(".*.new-*"))


def test_non_empty_folder_without_marker_is_refused(project: Path, tmp_path: Path):
    other = tmp_path / "docs"
    other.mkdir()
    (other / "thesis.tex").write_text("years of work")
    res = render(project, other)
    assert res.exit_code == 2 and "not a site this tool wrote" in res.output
    assert (other / "thesis.tex").read_text() == "years of work"
    plain = tmp_path / "file.txt"
    plain.write_text("x")
    res = render(project, plain)
    assert res.exit_code == 2 and "Traceback" not in res.output and plain.read_text() == "x"


def test_empty_missing_and_own_sites_are_accepted(project: Path, tmp_path: Path):
    empty = tmp_path / "empty"
    empty.mkdir()
    assert render(project, empty).exit_code == 0
    assert (empty / SITE_MARKER).is_file()
    res = render(project, empty)  # a site it wrote: replaced
    assert res.exit_code == 0, res.output
    missing = tmp_path / "new" / "site"
    assert render(project, missing).exit_code == 0 and (missing / "index.html").is_file()


def test_build_refuses_the_snapshots_folder(project: Path):
    before = tree(project)
    res = invoke(project, "build", "--out", str(project / "snapshots"))
    assert res.exit_code == 2 and "snapshots folder" in res.output, res.output
    assert tree(project) == before


def test_serve_refuses_the_project(project: Path):
    res = invoke(project, "serve", "--port", "0", "--out", str(project))
    assert res.exit_code == 2 and "refused" in res.output, res.output
