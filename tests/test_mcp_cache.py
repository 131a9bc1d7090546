"""The MCP server's document cache: a hit answers exactly as a computation would, and a
stale file never answers.

In process: ``LocalBackend`` over a folder of two shipped snapshots with the cache in a
temporary folder; every input the documents depend on (the snapshot's bytes, a history file,
the methodology page, the configuration, the code) is changed in turn, and each change must
lead to a computation whose answer shows the change. Then ``modelboards mcp`` as a
subprocess, over the SDK's client: its second start answers from the cache it wrote, and the
first start after the snapshot file is replaced answers with the new snapshot.
"""

from __future__ import annotations

import json
import shutil
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import anyio
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from builder.api.build import render_api_files
from builder.config import load_config
from builder.mcp import local
from builder.mcp.cache import KEEP, DocumentCache
from builder.mcp.data import ApiStore, LocalBackend, compute_local_documents
from builder.mcp.local import read_inputs

ROOT = Path(__file__).resolve().parents[1]
OLDER, NEWER = ROOT / "snapshots" / "2026-11-22.json", ROOT / "snapshots" / "2026-11-29.json"
MODELBOARDS = str(Path(sys.executable).parent / "modelboards")


@pytest.fixture(scope="module")
def cfg():
    return load_config(ROOT / "site.yml")[0]


@pytest.fixture
def project(tmp_path):
    """A project folder: two snapshots, its own content/methodology.md, an empty cache folder."""
    (tmp_path / "snapshots").mkdir()
    for p in (OLDER, NEWER):
        shutil.copy(p, tmp_path / "snapshots" / p.name)
    (tmp_path / "content").mkdir()
    shutil.copy(ROOT / "content" / "methodology.md", tmp_path / "content" / "methodology.md")
    return tmp_path


def _backend(cfg, project: Path, cache: DocumentCache | None) -> LocalBackend:
    return LocalBackend(cfg, project, project / "snapshots", cache=cache)


def _files(docs) -> dict[str, str]:
    return render_api_files(docs)


def test_a_hit_answers_exactly_as_the_computation(cfg, project):
    cache = DocumentCache(project / "cache")
    first = _backend(cfg, project, cache)
    computed = first.load().docs
    assert first.computed == 1 and len(list((project / "cache").glob("api-*.json"))) == 1
    second = _backend(cfg, project, cache)
    cached = second.load().docs
    assert second.computed == 0  # read back, not computed
    assert cached == computed and _files(cached) == _files(computed)
    # and both are what the same computation gives without any cache
    assert _files(cached) == _files(compute_local_documents(cfg, project, project / "snapshots" / NEWER.name,
                                                            project / "snapshots"))


def _edit_snapshot(project: Path, cfg):
    path = project / "snapshots" / NEWER.name
    doc = json.loads(path.read_text(encoding="utf-8"))
    doc["created_at"] = "2026-11-29T23:59:00+00:00"
    path.write_text(json.dumps(doc), encoding="utf-8")
    return cfg, lambda docs: docs.index.snapshot.created_at == "2026-11-29T23:59:00+00:00"


def _replace_history(project: Path, cfg):
    (project / "snapshots" / OLDER.name).unlink()
    return cfg, lambda docs: docs.index.snapshots == ["2026-11-29"]


def _edit_methodology(project: Path, cfg):
    page = project / "content" / "methodology.md"
    page.write_text(page.read_text(encoding="utf-8") + "\nA sentence added after the cache was written.\n",
                    encoding="utf-8")
    return cfg, lambda docs: "A sentence added after the cache was written." in docs.methodology


def _edit_config(project: Path, cfg):
    changed = cfg.model_copy(update={"site": cfg.site.model_copy(update={"title": "Other Boards"})})
    return changed, lambda docs: docs.index.site.title == "Other Boards"


@pytest.mark.parametrize("change", [_edit_snapshot, _replace_history, _edit_methodology, _edit_config, "code"])
def test_a_changed_input_is_computed_again_and_answers_the_change(cfg, project, change, monkeypatch):
    cache = DocumentCache(project / "cache")
    before = _backend(cfg, project, cache).load().docs
    if change == "code":  # another version of builder/ (or of pydantic, Python, ...)
        monkeypatch.setattr(local, "code_fingerprint", lambda: "another version of the code")
        new_cfg, shows_change = cfg, lambda docs: True
    else:
        new_cfg, shows_change = change(project, cfg)
    backend = _backend(new_cfg, project, cache)
    after = backend.load().docs
    assert backend.computed == 1, "a stale cache file answered"
    assert shows_change(after) and not (change != "code" and shows_change(before))
    assert len(list((project / "cache").glob("api-*.json"))) == 2
    again = _backend(new_cfg, project, cache)  # the new documents are cached in turn
    assert _files(again.load().docs) == _files(after) and again.computed == 0


def test_a_replaced_snapshot_file_is_never_answered_from_the_cache(cfg, project):
    """The first start after a new snapshot (same file name, other bytes) answers the new one."""
    pinned = project / "pinned.json"
    shutil.copy(OLDER, pinned)
    cache = DocumentCache(project / "cache")
    LocalBackend(cfg, project, project / "none", pinned, cache=cache).load()
    shutil.copy(NEWER, pinned)
    backend = LocalBackend(cfg, project, project / "none", pinned, cache=cache)
    docs = backend.load().docs
    assert backend.computed == 1 and docs.index.snapshot.date == "2026-11-29"
    assert _files(docs) == _files(compute_local_documents(cfg, project, pinned, project / "none"))


def test_a_reload_after_a_newer_snapshot_computes_its_documents(cfg, project):
    class Clock:
        t = 0.0

        def __call__(self) -> float:
            return self.t

    (project / "snapshots" / NEWER.name).unlink()
    cache = DocumentCache(project / "cache")
    clock = Clock()
    backend = _backend(cfg, project, cache)
    store = ApiStore(backend, clock=clock)
    assert store.current().index.snapshot.date == "2026-11-22"
    shutil.copy(NEWER, project / "snapshots" / NEWER.name)
    clock.t += 30
    assert store.current().index.snapshot.date == "2026-11-29" and backend.computed == 2


def test_a_cache_file_that_does_not_answer_for_its_key_is_ignored_and_rewritten(cfg, project, caplog):
    cache = DocumentCache(project / "cache")
    old_key = read_inputs(cfg, project, project / "snapshots" / NEWER.name, project / "snapshots").key
    _backend(cfg, project, cache).load()
    _edit_snapshot(project, cfg)
    new_key = read_inputs(cfg, project, project / "snapshots" / NEWER.name, project / "snapshots").key
    assert new_key != old_key
    # the old documents under the new key's name: the key inside the file does not match
    shutil.copy(cache.path(old_key), cache.path(new_key))
    assert cache.get(new_key) is None and "another key" in caplog.text
    backend = _backend(cfg, project, cache)
    assert backend.load().docs.index.snapshot.created_at == "2026-11-29T23:59:00+00:00" and backend.computed == 1
    assert cache.get(new_key) is not None  # rewritten with the right documents
    for garbage in (b"", b"{not json", b'{"format": 1, "key": "' + new_key.encode() + b'"}'):
        cache.path(new_key).write_bytes(garbage)
        backend = _backend(cfg, project, cache)
        assert backend.load().docs.index.snapshot.created_at == "2026-11-29T23:59:00+00:00"
        assert backend.computed == 1


def test_a_cache_that_cannot_be_written_does_not_stop_the_server(cfg, project, caplog):
    (project / "cache").write_text("a file where the cache folder should be", encoding="utf-8")
    backend = _backend(cfg, project, DocumentCache(project / "cache"))
    assert backend.load().docs.index.snapshot.date == "2026-11-29"
    assert "cannot write the document cache" in caplog.text


def test_only_the_most_recently_used_files_are_kept(cfg, project):
    cache = DocumentCache(project / "cache")
    docs = _backend(cfg, project, None).load().docs
    for i in range(KEEP + 2):
        cache.put(f"{i:064x}", docs)
    kept = sorted(p.name for p in (project / "cache").glob("api-*.json"))
    assert kept == [f"api-{i:064x}.json" for i in range(2, KEEP + 2)]


# --------------------------------------------------------------------------- the command


def _start(project: Path) -> dict:
    params = StdioServerParameters(command=MODELBOARDS, args=["--config", str(project / "site.yml"), "mcp"],
                                   cwd=str(project))

    async def run():
        async with Client(params, mode="legacy") as client:
            res = await client.call_tool("get_board", {"board": "orchestrator", "top": 3})
            assert not res.is_error, res.content
            return res.structured_content

    # on a thread of its own: a Playwright fixture of the same worker may hold an asyncio loop on this one
    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(anyio.run, run).result()


def test_the_command_answers_from_its_cache_and_never_from_a_stale_one(project):
    shutil.copy(ROOT / "site.yml", project / "site.yml")
    (project / "snapshots" / NEWER.name).unlink()
    cache = project / ".modelboards" / "mcp-cache"
    first = _start(project)
    [path] = cache.glob("api-*.json")
    assert first["snapshot"]["date"] == "2026-11-22"
    # mark the cached board document: the next start shows the mark only if it reads the cache
    doc = json.loads(path.read_text(encoding="utf-8"))
    doc["boards"]["orchestrator"]["attribution"] = "read from the cache"
    path.write_text(json.dumps(doc), encoding="utf-8")
    second = _start(project)
    assert second["attribution"] == "read from the cache"
    assert {**second, "attribution": first["attribution"]} == first
    shutil.copy(NEWER, project / "snapshots" / OLDER.name)  # the file's bytes change, its name stays
    third = _start(project)
    assert third["snapshot"]["date"] == "2026-11-29" and third["attribution"] == first["attribution"]
    assert len(list(cache.glob("api-*.json"))) == 2
