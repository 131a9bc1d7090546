"""``modelboards mcp`` tested with the official SDK's own client.

The server runs as a subprocess: over stdio (``initialize`` handshake), over streamable HTTP
on 127.0.0.1, and with ``--site`` against a local server serving a built site. Every tool is
called with good and bad arguments; answers are checked against the built site's board
downloads and API files, and the ``--site`` answers must equal the local ones.
"""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import anyio
import pytest
from conftest import serve_directory
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.shared.exceptions import MCPError

from builder.api.catalogue import RESOURCES, TOOLS

ROOT = Path(__file__).resolve().parents[1]
MODELBOARDS = str(Path(sys.executable).parent / "modelboards")
CONFIG = ["--config", str(ROOT / "site.yml")]
TOOL_NAMES = [t.name for t in TOOLS]

# (key, tool, arguments) answered by every mode; the same keys must give the same answers
GOOD_CALLS: list[tuple[str, str, dict[str, Any]]] = [
    ("list", "list_boards", {}),
    ("board", "get_board", {"board": "orchestrator"}),
    ("board_filtered", "get_board", {"board": "orchestrator", "top": 5, "open_weight_only": True,
                                     "max_blended_price": 2.0, "hide_partial": True}),
    ("board_mid_all", "get_board", {"board": "mid-tier", "top": 1000}),
    ("board_rote_all", "get_board", {"board": "ROTE", "top": 1000}),
    ("explain", "explain_model", {"model": "GPT 6"}),
    ("explain_mid", "explain_model", {"model": "claude-sonnet-5", "board": "mid-tier"}),
    ("compare", "compare_models", {"models": ["gpt-6", "claude-opus-5.5", "gemini-3-pro"]}),
    ("pick", "pick_model", {"board": "orchestrator"}),
    ("pick_filtered", "pick_model", {"board": "orchestrator", "max_blended_price": 1.0, "open_weight": True}),
    ("pick_none", "pick_model", {"board": "orchestrator", "max_blended_price": 0.0}),
    ("pick_machine", "pick_model", {"board": "rtx-3090"}),
    ("search", "search_models", {"query": "claude opus"}),
    ("search_spelling", "search_models", {"query": "GPT-6 (high)"}),
    ("search_similar", "search_models", {"query": "zzgpt-6x"}),
    ("history", "model_history", {"model": "gpt-6"}),
    ("sources", "sources", {}),
]

BAD_CALLS: list[tuple[str, str, dict[str, Any]]] = [
    ("unknown_board", "get_board", {"board": "orchestator"}),
    ("top_zero", "get_board", {"board": "orchestrator", "top": 0}),
    ("top_text", "get_board", {"board": "orchestrator", "top": "many"}),
    ("negative_price", "get_board", {"board": "orchestrator", "max_blended_price": -1}),
    ("no_board", "get_board", {}),
    ("unknown_model", "explain_model", {"model": "gtp-6"}),
    ("not_on_board", "explain_model", {"model": "claude-opus-5.5", "board": "rote"}),
    ("compare_one", "compare_models", {"models": ["gpt-6"]}),
    ("compare_six", "compare_models", {"models": ["a", "b", "c", "d", "e", "f"]}),
    ("compare_same", "compare_models", {"models": ["gpt-6", "GPT 6"]}),
    ("compare_unknown", "compare_models", {"models": ["gpt-6", "no-such-model"]}),
    ("pick_unknown", "pick_model", {"board": "rtx-9090"}),
    ("pick_bad_bool", "pick_model", {"board": "orchestrator", "open_weight": "maybe"}),
    ("search_empty", "search_models", {"query": ""}),
    ("history_unknown_board", "model_history", {"model": "gpt-6", "board": "nope"}),
    ("no_such_tool", "no_such_tool", {}),
]


def run_async(fn) -> Any:
    """``anyio.run(fn)`` on a thread of its own: a Playwright session fixture of the same test
    worker keeps an asyncio loop running on the main thread, where anyio refuses to start one."""
    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(anyio.run, fn).result()


def _dump(result) -> dict[str, Any]:
    return result.model_dump(mode="json", by_alias=True, exclude_none=True)


async def _session(client: Client, *, full: bool) -> dict[str, Any]:
    """Everything one client session learns: handshake, listings, good and bad calls, resources."""
    out: dict[str, Any] = {"server": client.server_info.name if client.server_info else None,
                           "protocol": client.protocol_version}
    tools = await client.list_tools()
    out["tools"] = {t.name: t.model_dump(mode="json", by_alias=True, exclude_none=True) for t in tools.tools}
    for key, name, args in GOOD_CALLS:
        out[key] = _dump(await client.call_tool(name, args))
    if not full:
        return out
    for key, name, args in BAD_CALLS:
        out["bad_" + key] = _dump(await client.call_tool(name, args))
    out["alive"] = _dump(await client.call_tool("list_boards", {}))
    out["resources"] = [r.uri for r in (await client.list_resources()).resources]
    out["templates"] = [t.uri_template for t in (await client.list_resource_templates()).resource_templates]
    for uri in ("modelboards://snapshot/latest", "modelboards://boards/orchestrator", "modelboards://methodology"):
        res = await client.read_resource(uri)
        out[uri] = (res.contents[0].mime_type, res.contents[0].text)
    try:
        await client.read_resource("modelboards://boards/nope")
        out["bad_resource"] = None
    except MCPError as exc:
        out["bad_resource"] = str(exc)
    return out


def _stdio(*args: str) -> StdioServerParameters:
    return StdioServerParameters(command=MODELBOARDS, args=[*CONFIG, "mcp", *args], cwd=str(ROOT))


@pytest.fixture(scope="module")
def local(bundled_site) -> dict[str, Any]:
    async def run():
        async with Client(_stdio(), mode="legacy") as client:  # legacy: the initialize handshake
            return await _session(client, full=True)

    return run_async(run)


def _structured(answer: dict[str, Any]) -> dict[str, Any]:
    assert answer.get("isError") is not True, answer
    return answer["structuredContent"]


def _site_json(site: Path, rel: str) -> Any:
    return json.loads((site / rel).read_text(encoding="utf-8"))


# --------------------------------------------------------------------------- stdio, local snapshots


def test_initialize_and_listings(local):
    assert local["server"] == "modelboards"
    assert local["protocol"]  # negotiated by the initialize handshake
    assert list(local["tools"]) == TOOL_NAMES
    for spec in TOOLS:
        tool = local["tools"][spec.name]
        assert tool["description"] == spec.description
        props = tool["inputSchema"].get("properties", {})
        assert list(props) == [a.name for a in spec.args], spec.name
        for a in spec.args:
            assert props[a.name]["description"] == a.description
        assert tool["outputSchema"]["type"] == "object" and "snapshot" in tool["outputSchema"]["properties"]
    assert local["resources"] == [u for u, _, _ in RESOURCES if "{" not in u]
    assert local["templates"] == [u for u, _, _ in RESOURCES if "{" in u]


def test_every_result_carries_the_snapshot(local, bundled_site):
    index = _site_json(bundled_site, "api/v1/index.json")
    for key, _, _ in GOOD_CALLS:
        snap = _structured(local[key])["snapshot"]
        assert snap == index["snapshot"], key
        assert {"date", "method_id", "as_of", "download"} <= set(snap)


def test_get_board_equals_the_board_download(local, bundled_site):
    download = _site_json(bundled_site, "data/boards/orchestrator.json")
    got = _structured(local["board"])
    assert got["rows"] == download["rows"][:20]  # the default top=20, field for field
    assert [r["identity"] for r in got["rows"]] == [r["identity"] for r in download["rows"][:20]]  # same order
    assert got["matched"] == len(download["rows"])
    assert got["download"].endswith("data/boards/orchestrator.json")
    for row in got["rows"]:
        assert got["provenance"][row["identity"]].keys() >= row["families"].keys()
    for key, board in (("board_mid_all", "mid-tier"), ("board_rote_all", "rote")):
        dl = _site_json(bundled_site, f"data/boards/{board}.json")
        assert _structured(local[key])["rows"] == dl["rows"] and _structured(local[key])["new"] == dl["new"]


def test_get_board_filters(local, bundled_site):
    download = _site_json(bundled_site, "data/boards/orchestrator.json")
    models = {m["identity"]: m for m in _site_json(bundled_site, "api/v1/index.json")["models"]}
    want = [r for r in download["rows"] if models[r["identity"]]["open_weight"] is True
            and r["token_price"] is not None and r["token_price"] <= 2.0 and not r["partial"]]
    got = _structured(local["board_filtered"])
    assert want and got["rows"] == want[:5] and got["matched"] == len(want)
    assert got["filters"] == {"top": 5, "open_weight_only": True, "max_blended_price": 2.0, "hide_partial": True}


def test_explain_is_the_api_arithmetic(local, bundled_site):
    doc = _site_json(bundled_site, "api/v1/models/gpt-6.json")
    got = _structured(local["explain"])
    assert got["explain"] == next(p["explain"] for p in doc["boards"] if p["board"] == "orchestrator")
    assert got["explain"]["text"].startswith("gpt-6 (gpt-6) on Best orchestrator")
    assert _structured(local["explain_mid"])["explain"]["board"] == "mid-tier"


def test_compare_models(local, bundled_site):
    got = _structured(local["compare"])
    assert [m["identity"] for m in got["models"]] == ["gpt-6", "claude-opus-5.5", "gemini-3-pro"]
    download = _site_json(bundled_site, "data/boards/orchestrator.json")
    ranks = {r["identity"]: r["rank"] for r in download["rows"]}
    for m in got["models"]:
        on = {b["board"]: b for b in m["boards"]}
        assert on["orchestrator"]["rank"] == ranks[m["identity"]]
        assert m["facts"]["licence"] and m["families"]
        fam = m["families"]["reasoning"]
        assert len(fam["calibrated"]) == len(fam["urls"]) and fam["mean"] is not None
        assert m["token_price"]["url"].startswith("https://")
    arena = _site_json(bundled_site, "data/snapshots/" + got["snapshot"]["date"] + ".json")["arena"]
    wr = arena["winrate"]
    pairs = got["arena_pairs"]
    assert pairs and {(p["a"], p["b"]) for p in pairs} <= {("gpt-6", "claude-opus-5.5"), ("gpt-6", "gemini-3-pro"),
                                                           ("claude-opus-5.5", "gemini-3-pro")}
    checked = 0
    for p in pairs:
        if p["a_model"] in wr["models"] and p["b_model"] in wr["models"]:
            i, j = wr["models"].index(p["a_model"]), wr["models"].index(p["b_model"])
            # the fitted ratings' prediction agrees with the fit's own matrix (ratings rounded to 0.01)
            assert p["p_a_beats_b"] == pytest.approx(wr["predicted"][i][j], abs=2e-4)
            assert p["observed_battles"] == (wr["battles"][i][j] or None)
            if wr["battles"][i][j]:
                assert p["observed_a_win_rate"] == wr["empirical"][i][j]
            checked += 1
    assert checked


def test_pick_model(local, bundled_site):
    download = _site_json(bundled_site, "data/boards/orchestrator.json")
    models = {m["identity"]: m for m in _site_json(bundled_site, "api/v1/index.json")["models"]}
    pick = _structured(local["pick"])
    assert pick["pick"] == download["rows"][0] and pick["runner_up"] == download["rows"][1]
    assert pick["target"]["kind"] == "board" and "No filters." in pick["rule"]
    ok = [r for r in download["rows"] if r["token_price"] is not None and r["token_price"] <= 1.0
          and models[r["identity"]]["open_weight"] is True]
    filtered = _structured(local["pick_filtered"])
    assert filtered["pick"] == ok[0] and filtered["passed"] == len(ok)
    assert "higher row(s) failed a filter" in filtered["reason"] and "Filters:" in filtered["rule"]
    assert _structured(local["pick_none"])["pick"] is None
    machine = _structured(local["pick_machine"])
    index = _site_json(bundled_site, "api/v1/index.json")
    rtx = next(m for m in index["machines"] if m["id"] == "rtx-3090")
    assert machine["target"]["kind"] == "machine" and machine["pick"] == rtx["rows"][0]
    assert machine["rule"].startswith(rtx["rule"]) and machine["pick"]["memory_est_gb"] <= rtx["limit_gb"]


def test_search_models(local):
    got = _structured(local["search"])["matches"]
    assert "claude-opus-5.5" in [m["identity"] for m in got]
    spelled = _structured(local["search_spelling"])["matches"]
    assert spelled[0]["identity"] == "gpt-6" and spelled[0]["how"] == "spelling"
    similar = _structured(local["search_similar"])["matches"]
    assert similar and all(m["how"] == "similar" for m in similar)


def test_model_history_and_sources(local, bundled_site):
    doc = _site_json(bundled_site, "api/v1/models/gpt-6.json")
    got = _structured(local["history"])
    assert got["points"] == doc["history"]["orchestrator"]
    assert got["snapshots"] == _site_json(bundled_site, "api/v1/index.json")["snapshots"]
    assert set(got["absent"]) | {p["date"] for p in got["points"]} == set(got["snapshots"])
    snap = _site_json(bundled_site, "data/snapshots/" + got["snapshot"]["date"] + ".json")
    sources = _structured(local["sources"])["sources"]
    assert [s["name"] for s in sources] == [s["name"] for s in snap["sources"]]
    assert all(s["status"] for s in sources)


def test_bad_arguments_are_tool_errors_and_the_server_stays_up(local):
    for key, _, _ in BAD_CALLS:
        answer = local["bad_" + key]
        assert answer["isError"] is True, key
        assert answer["content"][0]["text"], key
    text = {key: local["bad_" + key]["content"][0]["text"] for key, _, _ in BAD_CALLS}
    assert "the 5 nearest names: orchestrator" in text["unknown_board"]
    nearest = text["unknown_model"].split("nearest names: ")[1].split(", ")
    assert len(nearest) == 5 and nearest[0] == "gpt-6"
    assert "not on board 'rote'" in text["not_on_board"]
    assert "same model" in text["compare_same"] and "no-such-model" in text["compare_unknown"]
    assert "rtx-3090" in text["pick_unknown"]
    assert "top" in text["top_zero"] and "max_blended_price" in text["negative_price"]
    assert _structured(local["alive"])["boards"]


def test_resources(local, bundled_site):
    mime, text = local["modelboards://snapshot/latest"]
    assert mime == "application/json" and json.loads(text) == _site_json(bundled_site, "api/v1/index.json")
    mime, text = local["modelboards://boards/orchestrator"]
    assert json.loads(text) == _site_json(bundled_site, "api/v1/boards/orchestrator.json")
    mime, text = local["modelboards://methodology"]
    assert mime == "text/markdown" and text == (bundled_site / "api/v1/methodology.md").read_text(encoding="utf-8")
    assert local["bad_resource"] and "nope" in local["bad_resource"]


# --------------------------------------------------------------------------- --site, HTTP transport


def test_site_mode_answers_like_local_mode(local, bundled_site):
    with serve_directory(bundled_site) as origin:
        async def run():
            async with Client(_stdio("--site", origin + "/")) as client:
                return await _session(client, full=False)

        remote = run_async(run)
    assert remote["tools"] == local["tools"]
    for key, _, _ in GOOD_CALLS:
        assert remote[key]["structuredContent"] == local[key]["structuredContent"], key
        assert remote[key]["content"] == local[key]["content"], key


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_streamable_http_on_localhost(local):
    port = _free_port()
    proc = subprocess.Popen([MODELBOARDS, *CONFIG, "mcp", "--transport", "http", "--port", str(port)],
                            cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            assert proc.poll() is None, proc.stderr.read() if proc.stderr else ""
            with socket.socket() as s:
                if s.connect_ex(("127.0.0.1", port)) == 0:
                    break
            time.sleep(0.2)

        async def run():
            async with Client(f"http://127.0.0.1:{port}/mcp") as client:
                tools = [t.name for t in (await client.list_tools()).tools]
                good = _dump(await client.call_tool("get_board", {"board": "orchestrator"}))
                bad = _dump(await client.call_tool("get_board", {"board": "nope"}))
                again = _dump(await client.call_tool("pick_model", {"board": "rtx-3090"}))
                return tools, good, bad, again

        tools, good, bad, again = run_async(run)
    finally:
        proc.terminate()
        proc.wait(timeout=30)
    assert tools == TOOL_NAMES
    for got, want in ((good, local["board"]), (again, local["pick_machine"])):
        assert (got["structuredContent"], got["content"]) == (want["structuredContent"], want["content"])
    assert bad["isError"] is True and "nearest names" in bad["content"][0]["text"]


@pytest.mark.parametrize("args,message", [
    (["--site", "http://example.org/"], "--site: must be an https:// URL"),
    (["--site", "ftp://example.org/"], "--site: must be an https:// URL"),
    (["--snapshot", "no-such-snapshot.json"], "snapshot not found"),
    (["--site", "https://example.org/", "--snapshot", "x.json"], "cannot be combined"),
])
def test_user_errors_are_one_line_and_exit_code_2(args, message, tmp_path):
    res = subprocess.run([MODELBOARDS, *CONFIG, "mcp", *args], cwd=tmp_path, capture_output=True, text=True,
                         timeout=120, stdin=subprocess.DEVNULL)
    assert res.returncode == 2, res.stderr
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and message in lines[0], res.stderr


def test_unreachable_site_and_taken_port_are_user_errors(tmp_path):
    port = _free_port()
    res = subprocess.run([MODELBOARDS, "mcp", "--site", f"http://127.0.0.1:{port}/"], cwd=tmp_path,
                         capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL)
    assert res.returncode == 2 and res.stderr.startswith("error: --site: cannot fetch"), res.stderr
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        taken = s.getsockname()[1]
        res = subprocess.run([MODELBOARDS, *CONFIG, "mcp", "--transport", "http", "--port", str(taken)],
                             cwd=tmp_path, capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL)
    assert res.returncode == 2 and f"--port {taken}" in res.stderr and len(res.stderr.strip().splitlines()) == 1
