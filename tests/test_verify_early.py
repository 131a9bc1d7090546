"""The verify starts as soon as the render has written recompute.py and its downloads, runs
beside the pages, still gates the swap, and is stopped when the render fails; the memos of
what a render computes again from unchanged input (``builder.util.memo``)."""

from __future__ import annotations

import os
import shutil
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from builder.api import build as api_build
from builder.errors import CheckFailed, UserError
from builder.evidence import verify
from builder.pipeline import render_verified
from builder.render.pages import archive
from builder.render.pages import compare as compare_page
from builder.render.pages import data as data_page
from builder.util import beside
from builder.util.memo import Memo, memo_key


def _site(tmp_path: Path, script: str) -> Path:
    site = tmp_path / "site"
    (site / "data").mkdir(parents=True)
    (site / "data" / "recompute.py").write_text(script, encoding="utf-8")
    return site


def _wait_for(path: Path, seconds: float = 30.0) -> None:
    end = time.monotonic() + seconds
    while not path.is_file():
        if time.monotonic() > end:
            raise AssertionError(f"{path} never appeared")
        time.sleep(0.02)


def test_the_script_runs_while_the_pages_render(tmp_path: Path):
    started = tmp_path / "started"
    site = _site(tmp_path, f"import pathlib\npathlib.Path({str(started)!r}).write_text('x')\n"
                           "print('everything rebuilt')\n")
    seen = []

    def render(after):
        after("first")  # recompute.py is there: it starts now
        _wait_for(started)  # ... and runs before the render has returned
        seen.append("pages")
        after("home")
        return ["a warning"]

    assert render_verified(site, render) == ["a warning"]
    assert seen == ["pages"]


def test_a_miss_still_stops_the_swap(tmp_path: Path):
    site = _site(tmp_path, "import sys\nprint('MISS board x')\nprint('1 number(s) did not rebuild')\nsys.exit(1)\n")
    with pytest.raises(CheckFailed, match="MISS board x"):
        render_verified(site, lambda after: after("first"))


def test_a_failed_render_stops_the_script(tmp_path: Path):
    pid_file = tmp_path / "pid"
    script = (f"import os, pathlib, time\ntmp = pathlib.Path({str(pid_file)!r} + '.tmp')\n"
              f"tmp.write_text(str(os.getpid()))\nos.replace(tmp, {str(pid_file)!r})\ntime.sleep(60)\n")
    site = _site(tmp_path, script)  # the pid file appears whole

    def render(after):
        after("first")
        _wait_for(pid_file)
        raise RuntimeError("a page failed")

    with pytest.raises(RuntimeError, match="a page failed"):
        render_verified(site, render)
    with pytest.raises(ProcessLookupError):  # killed and reaped, not left running
        os.kill(int(pid_file.read_text()), 0)


def test_a_site_without_the_script_is_not_verified(tmp_path: Path):
    site = tmp_path / "site"
    site.mkdir()
    assert render_verified(site, lambda after: (after("first"), after("home"), "done")[2]) == "done"


def test_a_published_snapshot_that_loaded_is_not_loaded_again(tmp_path: Path, monkeypatch):
    snaps = tmp_path / "site" / "data" / "snapshots"
    snaps.mkdir(parents=True)
    (snaps / "2026-11-29.json").write_text("{}", encoding="utf-8")
    loads = []
    monkeypatch.setattr(verify, "load_snapshot", lambda path: loads.append(path.name))
    memo = Memo(tmp_path, verify.SNAPSHOT_CHECK_MEMO)
    verify.check_published_snapshots(tmp_path / "site", memo)
    verify.check_published_snapshots(tmp_path / "site", Memo(tmp_path, verify.SNAPSHOT_CHECK_MEMO))
    assert loads == ["2026-11-29.json"]
    (snaps / "2026-11-29.json").write_text('{"changed": 1}', encoding="utf-8")  # another text: loaded again
    verify.check_published_snapshots(tmp_path / "site", Memo(tmp_path, verify.SNAPSHOT_CHECK_MEMO))
    assert loads == ["2026-11-29.json", "2026-11-29.json"]


def test_a_snapshot_that_does_not_load_is_never_remembered(tmp_path: Path):
    snaps = tmp_path / "site" / "data" / "snapshots"
    snaps.mkdir(parents=True)
    (snaps / "2026-11-29.json").write_text("{not json", encoding="utf-8")
    for _ in range(2):
        with pytest.raises(UserError, match="2026-11-29.json"):
            verify.check_published_snapshots(tmp_path / "site", Memo(tmp_path, verify.SNAPSHOT_CHECK_MEMO))
    assert not list((tmp_path / ".modelboards" / verify.SNAPSHOT_CHECK_MEMO).glob("*"))


def test_memo_keys_cover_every_part_and_the_code():
    assert memo_key("a", "bc") != memo_key("ab", "c")  # parts are length-prefixed
    assert memo_key("a", b"b") == memo_key("a", "b")
    assert len(memo_key()) == 64


def test_memo_prune_keeps_what_was_used_and_as_many_recent(tmp_path: Path):
    memo = Memo(tmp_path, "m")
    for n in range(6):
        memo.put(f"k{n}", str(n))
        os.utime(memo.folder / f"k{n}", (1000 + n, 1000 + n))
    later = Memo(tmp_path, "m")
    assert later.text("k0", lambda: "never") == "0"  # read back, not made again
    later.prune()
    assert sorted(p.name for p in memo.folder.iterdir()) == ["k0", "k5"]  # used, and the newest other


def test_a_damaged_memo_entry_is_computed_again(tmp_path: Path):
    memo = Memo(tmp_path, "m")
    memo.put_texts("k", {"data/x.csv": "a,b\n"})
    assert Memo(tmp_path, "m").get_texts("k") == {"data/x.csv": "a,b\n"}
    entry = memo.folder / "k"
    entry.write_text(entry.read_text(encoding="utf-8").replace("a,b", "a,c"), encoding="utf-8")
    assert Memo(tmp_path, "m").get_texts("k") is None  # the text no longer matches its SHA-256
    texts = {"data/a.json": '{"x": "\\"quoted\\"\n"}\n', "data/é.csv": "ü,\u202e\n\n", "data/empty": ""}
    memo.put_texts("k", texts)
    assert Memo(tmp_path, "m").get_texts("k") == texts  # newlines, quotes, any characters, empty texts
    memo.put("k", '["a list"]\nbody')
    assert Memo(tmp_path, "m").get_texts("k") is None
    memo.put("k", '[["data/x.csv", 5]]\nabc')  # lengths that do not add up to the body
    assert Memo(tmp_path, "m").get_texts("k") is None
    memo.put("k", '{"data/x.csv": 1}')
    assert Memo(tmp_path, "m").get_texts("k") is None
    assert Memo(tmp_path, "m").text("k", lambda: "made") == '{"data/x.csv": 1}'
    entry.write_text("spoiled", encoding="utf-8")
    assert Memo(tmp_path, "m").text("k", lambda: "made") == "made"


def _tree(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def _fixture_render(tmp_path: Path) -> Callable[[str], dict[str, bytes]]:
    """A site with three days of snapshots; the function renders the newest into ``tmp_path/<out>``."""
    import json
    import shutil

    from click.testing import CliRunner
    from fixtures.make_snapshot import make_snapshot

    from builder.cli import main

    config = tmp_path / "site.yml"
    shutil.copy(Path(__file__).parent / "fixtures" / "site.yml", config)
    snaps = tmp_path / "snaps"
    snaps.mkdir()
    for n, day in enumerate(("2026-11-15", "2026-11-22", "2026-11-29")):
        doc = make_snapshot(10 + n, seed=n, day=day)
        if n == 0:  # the first day saved under schema 2: migrated on load, published as a build saves it
            doc = _as_schema_2(doc)
        (snaps / f"{day}.json").write_text(json.dumps(doc), encoding="utf-8")

    def render(out: str) -> dict[str, bytes]:
        res = CliRunner().invoke(main, ["--config", str(config), "render", "--snapshot",
                                        str(snaps / "2026-11-29.json"), "--out", str(tmp_path / out)])
        assert res.exit_code == 0, res.output
        return _tree(tmp_path / out)

    return render


def _as_schema_2(doc: dict[str, Any]) -> dict[str, Any]:
    """A schema-3 snapshot as schema 2 saved it (no uncertainty anywhere)."""
    doc = {k: v for k, v in doc.items() if k != "uncertainty"}
    doc["schema_version"] = 2
    for b in doc["boards"]:
        b.pop("uncertainty", None)
        for row in [*b["rows"], *b["new"]]:
            row.pop("uncertainty", None)
    for m in doc["machines"]:
        for row in m["rows"]:
            row.pop("uncertainty", None)
    return doc


def test_a_render_is_the_same_with_its_memos_cold_warm_or_spoiled(tmp_path: Path):
    render = _fixture_render(tmp_path)
    cold = render("cold")
    memos = tmp_path / ".modelboards"
    assert len(list((memos / "archive-downloads").iterdir())) == 2  # the two earlier days
    assert render("warm") == cold
    for memo in ("archive-downloads", "api-schemas", "snapshot-schema", "snapshot-loads"):
        for entry in (memos / memo).iterdir():
            entry.write_text("{spoiled", encoding="utf-8")
    assert render("spoiled") == cold


# what a first render does beside its pages (the Page.beside entries), by a function only that work calls
# (the API documents too: the API page names its examples without them)
BESIDE = ((archive, "archived_downloads"), (data_page, "render_json_schema"), (api_build, "render_schema_files"),
          (api_build, "render_api_files"), (api_build, "compute_api"), (compare_page, "compute_compare_model"))


def test_a_first_render_does_its_files_only_work_beside_the_pages(tmp_path: Path, monkeypatch):
    """The earlier days' downloads (one day saved under schema 2, migrated on load), both
    schemas, the API documents and the compare data are done by a forked process while the
    pages are written (none
    of it falls back to the render's own process: each Page.beside entry writes files only),
    and the site is the one a render without them writes; no folder of theirs is left."""
    monkeypatch.setattr(beside.threading, "active_count", lambda: 1)  # whatever threads pytest keeps
    monkeypatch.delenv("MODELBOARDS_NO_FORK", raising=False)
    log = tmp_path / "calls"

    def logged(name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
        def call(*args: Any, **kwargs: Any) -> Any:
            with open(log, "a", encoding="utf-8") as fh:
                fh.write(f"{name} {os.getpid()}\n")
            return fn(*args, **kwargs)
        return call

    for module, name in BESIDE:
        monkeypatch.setattr(module, name, logged(name, getattr(module, name)))
    render = _fixture_render(tmp_path)
    forked = render("forked")
    calls = [line.split() for line in log.read_text(encoding="utf-8").splitlines()]
    assert {name for name, _ in calls} == {name for _, name in BESIDE}
    here = [call for call in calls if int(call[1]) == os.getpid()]
    assert here == []  # none of it in the render's own process
    assert render("again") == forked  # the memos read back: only the files written beside again
    again = [line.split() for line in log.read_text(encoding="utf-8").splitlines()][len(calls):]
    assert {name for name, _ in again} == {"render_api_files", "compute_api", "compute_compare_model"}
    assert all(int(pid) != os.getpid() for _, pid in again), again
    shutil.rmtree(tmp_path / ".modelboards")
    log.unlink()
    monkeypatch.setenv("MODELBOARDS_NO_FORK", "1")
    assert render("alone") == forked
    pids = {pid for _, pid in (line.split() for line in log.read_text(encoding="utf-8").splitlines())}
    assert pids == {str(os.getpid())}  # no fork: the render computed it all itself
    assert sorted(p.name for p in tmp_path.iterdir() if "aside" in p.name) == []


def test_a_child_that_fails_leaves_its_work_to_the_render(tmp_path: Path, monkeypatch):
    monkeypatch.setattr(beside.threading, "active_count", lambda: 1)
    monkeypatch.delenv("MODELBOARDS_NO_FORK", raising=False)
    render = _fixture_render(tmp_path)
    expected = render("expected")
    shutil.rmtree(tmp_path / ".modelboards")
    parent = os.getpid()

    def fails_in_a_child(fn: Callable[..., Any]) -> Callable[..., Any]:
        def call(*args: Any, **kwargs: Any) -> Any:
            if os.getpid() != parent:
                raise RuntimeError("the child fails")
            return fn(*args, **kwargs)
        return call

    for module, name in BESIDE:
        monkeypatch.setattr(module, name, fails_in_a_child(getattr(module, name)))
    assert render("failed") == expected
    assert len(list((tmp_path / ".modelboards" / "archive-downloads").iterdir())) == 2  # the render's own
    assert sorted(p.name for p in tmp_path.iterdir() if "aside" in p.name) == []


def test_a_page_beside_that_writes_more_than_files_is_rendered_in_the_process(tmp_path: Path, monkeypatch):
    """A Page.beside entry that adds a page (or a warning) is caught in the copy, which fails: the
    render's own process renders it, so nothing it adds is lost."""
    from dataclasses import replace

    from builder.render import pages as page_list
    from builder.render.site import render_site

    monkeypatch.setattr(beside.threading, "active_count", lambda: 1)
    monkeypatch.delenv("MODELBOARDS_NO_FORK", raising=False)
    render = _fixture_render(tmp_path)
    expected = render("expected")

    def schema_and_a_page(w: Any) -> None:
        data_page.render_snapshot_schema(w)
        w.page("extra/index.html", "page.html", title="Extra", section="", description="", body="")
        w.warnings.append("an extra warning")

    pages = tuple(replace(p, render=schema_and_a_page) if p.key == "snapshot-schema" else p for p in page_list.PAGES)
    monkeypatch.setitem(render_site.__wrapped__.__kwdefaults__, "pages", pages)
    got = render("extra")
    assert (tmp_path / "extra" / "extra" / "index.html").is_file()
    assert b"/extra/</loc>" in got["sitemap.xml"]
    assert {k: v for k, v in got.items() if not k.startswith("extra/") and k != "sitemap.xml"} == {
        k: v for k, v in expected.items() if k != "sitemap.xml"}


def test_a_run_that_rebuilt_everything_is_read_back_for_the_same_inputs(tmp_path: Path):
    runs = tmp_path / "runs"
    script = (f"import pathlib\np = pathlib.Path({str(runs)!r})\n"
              "p.write_text(p.read_text() + 'x' if p.exists() else 'x')\nprint('everything rebuilt')\n")
    site = _site(tmp_path, script)
    (site / "data" / "boards-evidence.json").write_text("{}", encoding="utf-8")

    def render(after):
        after("first")
        return "done"

    for _ in range(2):
        assert render_verified(site, render, tmp_path) == "done"
    assert runs.read_text() == "x"  # the second render read the first one's report
    assert verify.verify_site(site).ok and runs.read_text() == "xx"  # the verify command always runs it
    (site / "data" / "boards-evidence.json").write_text('{"changed": 1}', encoding="utf-8")
    render_verified(site, render, tmp_path)
    assert runs.read_text() == "xxx"  # another input: run again
    (site / "data" / "boards-evidence.json").write_text("{}", encoding="utf-8")
    for entry in (tmp_path / ".modelboards" / verify.VERDICT_MEMO).iterdir():
        entry.write_text("spoiled", encoding="utf-8")
    render_verified(site, render, tmp_path)
    assert runs.read_text() == "xxxx"  # a damaged report: run again


def test_a_run_that_missed_is_never_remembered(tmp_path: Path):
    runs = tmp_path / "runs"
    script = (f"import pathlib, sys\np = pathlib.Path({str(runs)!r})\n"
              "p.write_text(p.read_text() + 'x' if p.exists() else 'x')\n"
              "print('MISS board x')\nprint('1 number(s) did not rebuild')\nsys.exit(1)\n")
    site = _site(tmp_path, script)
    for n in range(2):
        with pytest.raises(CheckFailed, match="MISS board x"):
            render_verified(site, lambda after: after("first"), tmp_path)
        assert runs.read_text() == "x" * (n + 1)
    assert not list((tmp_path / ".modelboards" / verify.VERDICT_MEMO).glob("*"))


def test_a_render_runs_the_script_compiled_once_per_text(tmp_path: Path):
    script = "import sys\nprint('compiled' if __file__.endswith('.pyc') else 'source', sys.argv[1:])\n" \
             "print('everything rebuilt')\n"
    site = _site(tmp_path, script)
    code = tmp_path / ".modelboards" / verify.CODE_MEMO
    first = verify.compiled_script(site / "data" / "recompute.py", code)
    assert first.suffix == ".pyc" and first.parent == code
    assert verify.compiled_script(site / "data" / "recompute.py", code) == first  # read back, not compiled again
    verdicts = Memo(tmp_path, verify.VERDICT_MEMO)
    code_, out, _ = verify.RecomputeRun(site, (verdicts, "key")).wait()
    assert code_ == 0 and out.startswith(f"compiled ['{site / 'data'}']")  # the same arguments as the script
    assert verify.verify_site(site).output.startswith("source")  # the verify command runs the script itself
    first.write_bytes(first.read_bytes()[:-7] + b"damaged")
    again = verify.compiled_script(site / "data" / "recompute.py", code)
    assert again.name == first.name and not again.read_bytes().endswith(b"damaged")  # compiled again
    (site / "data" / "recompute.py").write_text(script + "print('another text')\n", encoding="utf-8")
    other = verify.compiled_script(site / "data" / "recompute.py", code)
    assert other != first and first.is_file()  # another text, another file; the earlier one stays (a few are kept)


def test_an_unwritable_code_folder_runs_the_script(tmp_path: Path):
    site = _site(tmp_path, "print('everything rebuilt')\n")
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("", encoding="utf-8")
    assert verify.compiled_script(site / "data" / "recompute.py", blocker / "code") == site / "data" / "recompute.py"
