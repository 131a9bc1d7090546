"""Judge backends against fake vendor servers on 127.0.0.1, each speaking its vendor's wire
format: Anthropic Messages, OpenAI Chat Completions, OpenRouter (OpenAI-compatible under
/api/v1, with its own model ids). No test reaches a real API: every base URL variable points
at a local server or at a closed local port."""

from __future__ import annotations

import json
import re
import time
from http.server import BaseHTTPRequestHandler
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import QuietServer
from serving import serve_in_background

from builder.cli.arena import arena
from builder.errors import UserError
from builder.pairwise.backends import (
    BACKENDS,
    endpoint_for,
    openrouter_id,
    parse_overrides,
    read_default_prompts,
    resolve_backend,
)
from builder.pairwise.judge import JUDGE_SYSTEM

KEYS = {"anthropic": "sk-ant-test", "openai": "sk-openai-test", "openrouter": "sk-or-test"}
CLOSED = "http://127.0.0.1:9/v1"  # nothing listens on the discard port


class FakeVendor:
    """One vendor's endpoint. Candidates answer "answer from <model id>"; the judge prefers the
    answer whose model id sorts first, wherever it stands, so verdicts agree under the swap."""

    def __init__(self, vendor: str) -> None:
        self.vendor = vendor
        self.requests: list[tuple[str, dict[str, str], dict]] = []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def _send(self, status: int, payload: dict) -> None:
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["content-length"])))
                headers = {k.lower(): v for k, v in self.headers.items()}
                outer.requests.append((self.path, headers, body))
                status, payload = outer.answer(self.path, headers, body)
                self._send(status, payload)

        self.server = QuietServer(("127.0.0.1", 0), Handler)
        port = self.server.server_address[1]
        self.base = f"http://127.0.0.1:{port}" + ("/api/v1" if vendor == "openrouter" else "/v1")
        serve_in_background(self.server)

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    @staticmethod
    def reply(system: str | None, user: str, model: str) -> str:
        if system == JUDGE_SYSTEM:
            first = re.search(r"\[Answer A\]\nanswer from (\S+)", user).group(1)
            second = re.search(r"\[Answer B\]\nanswer from (\S+)", user).group(1)
            return "A" if first < second else "B"
        return f"answer from {model}"

    def answer(self, path: str, headers: dict[str, str], body: dict) -> tuple[int, dict]:
        if self.vendor == "anthropic":
            return self._anthropic(path, headers, body)
        return self._chat_completions(path, headers, body)

    def _anthropic(self, path, headers, body):
        if path != "/v1/messages":
            return 404, {"type": "error", "error": {"type": "not_found_error", "message": path}}
        if headers.get("x-api-key") != KEYS["anthropic"]:
            return 401, {"type": "error", "error": {"type": "authentication_error", "message": "invalid x-api-key"}}
        if not headers.get("anthropic-version") or "authorization" in headers:
            return 400, {"type": "error", "error": {"type": "invalid_request_error", "message": "headers"}}
        msgs = body.get("messages")
        if (not isinstance(body.get("max_tokens"), int) or not isinstance(msgs, list) or not msgs
                or any(m.get("role") not in ("user", "assistant") for m in msgs)):
            return 400, {"type": "error", "error": {"type": "invalid_request_error", "message": "body"}}
        text = self.reply(body.get("system"), msgs[-1]["content"], body["model"])
        return 200, {"id": "msg_01", "type": "message", "role": "assistant", "model": body["model"],
                     "content": [{"type": "text", "text": text}], "stop_reason": "end_turn", "stop_sequence": None,
                     "usage": {"input_tokens": 10, "output_tokens": 2}}

    def _chat_completions(self, path, headers, body):
        want = "/api/v1/chat/completions" if self.vendor == "openrouter" else "/v1/chat/completions"
        if path != want:
            return 404, {"error": {"message": f"no route {path}", "code": 404}}
        if headers.get("authorization") != f"Bearer {KEYS[self.vendor]}":
            return 401, {"error": {"message": "Incorrect API key provided", "type": "invalid_request_error",
                                   "code": "invalid_api_key"}}
        model = body.get("model", "")
        if self.vendor == "openrouter" and "/" not in model:
            return 400, {"error": {"message": f"{model} is not a valid model ID", "code": 400}}
        msgs = body.get("messages") or []
        system = msgs[0]["content"] if msgs and msgs[0]["role"] == "system" else None
        text = self.reply(system, msgs[-1]["content"], model)
        payload = {"id": "chatcmpl-1", "object": "chat.completion", "created": int(time.time()), "model": model,
                   "choices": [{"index": 0, "message": {"role": "assistant", "content": text},
                                "finish_reason": "stop"}],
                   "usage": {"prompt_tokens": 10, "completion_tokens": 2, "total_tokens": 12}}
        if self.vendor == "openrouter":
            payload["provider"] = "Anthropic"
        return 200, payload


@pytest.fixture(scope="module")
def vendors():
    servers = {v: FakeVendor(v) for v in ("anthropic", "openai", "openrouter")}
    yield servers
    for s in servers.values():
        s.close()


@pytest.fixture(autouse=True)
def local_only(monkeypatch, vendors):
    """Every vendor URL variable points at its fake; no key is set unless a test sets it."""
    for name, b in BACKENDS.items():
        monkeypatch.setenv(b.base_env, vendors[name].base)
        monkeypatch.delenv(b.key_env, raising=False)
    for s in vendors.values():
        s.requests.clear()


@pytest.fixture(autouse=True)
def in_tmp(monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)  # the default output lands here


def judge(*args):
    """Run ``arena judge`` in the current folder; return the result and the rows it wrote
    (the output file is removed, so the next call starts clean)."""
    res = CliRunner().invoke(arena, ["judge", *map(str, args)])
    rows = []
    for name in ("judge-battles.jsonl", "out.jsonl"):
        path = Path(name)
        if path.exists():
            rows = [json.loads(line) for line in path.read_text().splitlines()]
            path.unlink()
    return res, rows


def test_anthropic_with_a_key_alone(monkeypatch, vendors, tmp_path):
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEYS["anthropic"])
    res, rows = judge()  # defaults: backend auto, candidates, judge, prompts, output
    assert res.exit_code == 0, res.output
    prompts = read_default_prompts()
    assert len(prompts) >= 5
    assert len(rows) == len(prompts)  # one pair (the two default candidates) per prompt
    assert {(r["model_a"], r["model_b"]) for r in rows} == {("claude-opus-4-8", "claude-haiku-4-5")}
    assert all(r["winner"] == "model_b" and r["judge"] == "llm:claude-opus-4-8" for r in rows)  # "haiku" < "opus"
    reqs = vendors["anthropic"].requests
    assert len(reqs) == len(prompts) * 4 and {p for p, _, _ in reqs} == {"/v1/messages"}
    assert {b["model"] for _, _, b in reqs} == {"claude-opus-4-8", "claude-haiku-4-5"}
    judged = [b for _, _, b in reqs if b.get("system") == JUDGE_SYSTEM]
    assert len(judged) == len(prompts) * 2 and all(b["model"] == "claude-opus-4-8" for b in judged)
    assert not vendors["openrouter"].requests and not vendors["openai"].requests
    assert "Anthropic at http://127.0.0.1" in res.output


def test_openai_by_option_and_api_alias(monkeypatch, vendors, tmp_path):
    monkeypatch.setenv("OPENAI_API_KEY", KEYS["openai"])
    monkeypatch.setenv("OPENAI_BASE_URL", CLOSED)  # the option beats the variable
    prompts = tmp_path / "p.txt"
    prompts.write_text("one\ntwo\n")
    for flag in ("--judge-backend", "--api"):
        vendors["openai"].requests.clear()
        res, rows = judge(flag, "openai", "--base-url", vendors["openai"].base, "--candidates", "gpt-b,gpt-a,gpt-c",
                          "--judge", "gpt-j", "--prompts", prompts, "--output", "out.jsonl")
        assert res.exit_code == 0, res.output
        assert len(rows) == 2 * 3
        assert {(r["model_a"], r["model_b"], r["winner"]) for r in rows} == {
            ("gpt-b", "gpt-a", "model_b"), ("gpt-b", "gpt-c", "model_a"), ("gpt-a", "gpt-c", "model_a")}
        reqs = vendors["openai"].requests
        assert {p for p, _, _ in reqs} == {"/v1/chat/completions"} and len(reqs) == 2 * (3 + 3 * 2)
        assert all(h["authorization"] == "Bearer sk-openai-test" for _, h, _ in reqs)
    res, _ = judge("--judge-backend", "openai", "--candidates", "a,b", "--prompts", prompts)
    assert res.exit_code == 2 and "127.0.0.1:9" in res.output and res.output.strip().count("\n") <= 1


def test_openrouter_maps_model_ids(monkeypatch, vendors, tmp_path):
    monkeypatch.setenv("OPENROUTER_API_KEY", KEYS["openrouter"])
    prompts = tmp_path / "p.json"
    prompts.write_text(json.dumps(["only prompt"]))
    res, rows = judge("--judge-backend", "openrouter", "--candidates", "claude-haiku-4-5,openai/gpt-5.6-luna,my-model",
                      "--openrouter-id", "my-model=acme/my-model-v2", "--prompts", prompts)
    assert res.exit_code == 0, res.output
    reqs = vendors["openrouter"].requests
    assert {p for p, _, _ in reqs} == {"/api/v1/chat/completions"}
    assert {b["model"] for _, _, b in reqs} == {"anthropic/claude-haiku-4.5", "openai/gpt-5.6-luna",
                                                "acme/my-model-v2", "anthropic/claude-opus-4.8"}
    assert all(h["authorization"] == "Bearer sk-or-test" and h["x-title"] == "ModelBoards" for _, h, _ in reqs)
    # rows keep the names the user gave; the judge saw OpenRouter ids: "acme/..." < "anthropic/..." < "openai/..."
    assert [(r["model_a"], r["model_b"], r["winner"]) for r in rows] == [
        ("claude-haiku-4-5", "openai/gpt-5.6-luna", "model_a"), ("claude-haiku-4-5", "my-model", "model_b"),
        ("openai/gpt-5.6-luna", "my-model", "model_b")]


def test_auto_prefers_anthropic_then_openrouter_then_says_what_it_looked_for(monkeypatch, vendors, tmp_path):
    prompts = tmp_path / "p.txt"
    prompts.write_text("q\n")
    monkeypatch.setenv("OPENROUTER_API_KEY", KEYS["openrouter"])
    res, rows = judge("--prompts", prompts)
    assert res.exit_code == 0, res.output
    assert vendors["openrouter"].requests and not vendors["anthropic"].requests
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEYS["anthropic"])
    vendors["openrouter"].requests.clear()
    res, rows = judge("--prompts", prompts)
    assert res.exit_code == 0 and vendors["anthropic"].requests and not vendors["openrouter"].requests
    monkeypatch.delenv("ANTHROPIC_API_KEY")
    monkeypatch.delenv("OPENROUTER_API_KEY")
    res, _ = judge("--prompts", prompts)
    assert res.exit_code == 2 and res.output.strip().count("\n") == 0
    assert "ANTHROPIC_API_KEY" in res.output and "OPENROUTER_API_KEY" in res.output


def test_wrong_key_is_one_line_and_writes_nothing(monkeypatch, vendors, tmp_path):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-wrong")
    res, rows = judge("--retries", 1)
    assert res.exit_code == 2 and "HTTP 401" in res.output and "authentication_error" in res.output
    assert rows == [] and res.output.strip().count("\n") <= 1


def test_openrouter_id_rule():
    assert openrouter_id("claude-opus-4-8") == "anthropic/claude-opus-4.8"
    assert openrouter_id("claude-haiku-4-5") == "anthropic/claude-haiku-4.5"
    assert openrouter_id("claude-sonnet-4-5-20250929") == "anthropic/claude-sonnet-4.5"
    assert openrouter_id("claude-3-5-haiku-latest") == "anthropic/claude-3.5-haiku"
    assert openrouter_id("claude-opus-4") == "anthropic/claude-opus-4"
    assert openrouter_id("claude-sonnet-4-0") == "anthropic/claude-sonnet-4"  # the override table
    assert openrouter_id("openai/gpt-5.6-luna") == "openai/gpt-5.6-luna"
    assert openrouter_id("gpt-5-mini") == "openai/gpt-5-mini"
    assert openrouter_id("o3-mini") == "openai/o3-mini"
    assert openrouter_id("gemini-2.5-pro") == "google/gemini-2.5-pro"
    assert openrouter_id("qwen3-235b-a22b") == "qwen/qwen3-235b-a22b"
    assert openrouter_id("grok-4") == "x-ai/grok-4"
    assert openrouter_id("house-model") == "house-model"  # unknown vendor: unchanged
    assert openrouter_id("x", {"x": "y/x"}) == "y/x"
    assert parse_overrides(["a=b/c"]) == {"a": "b/c"}
    with pytest.raises(UserError, match="NAME=ID"):
        parse_overrides(["nope"])


def test_resolution_and_urls():
    assert resolve_backend("auto", {"ANTHROPIC_API_KEY": "k", "OPENROUTER_API_KEY": "k"}).name == "anthropic"
    assert resolve_backend("auto", {"ANTHROPIC_API_KEY": " ", "OPENROUTER_API_KEY": "k"}).name == "openrouter"
    assert resolve_backend("openai", {}).name == "openai"  # explicit: the key is checked when the client starts
    with pytest.raises(UserError, match="no API key found"):
        resolve_backend("auto", {"OPENAI_API_KEY": "k"})
    b = BACKENDS["openrouter"]
    assert endpoint_for(b, env={}).base_url == "https://openrouter.ai/api/v1"
    assert endpoint_for(b, env={"OPENROUTER_BASE_URL": "http://127.0.0.1:1/x/"}).base_url == "http://127.0.0.1:1/x"
    assert endpoint_for(b, "http://127.0.0.1:2", env={"OPENROUTER_BASE_URL": "http://h"}).base_url == "http://127.0.0.1:2"
    assert endpoint_for(BACKENDS["anthropic"], env={}).api == "anthropic"
    with pytest.raises(UserError, match="not an http"):
        endpoint_for(b, "ftp://x")
