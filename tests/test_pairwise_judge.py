"""The LLM judge against a fake judge server on 127.0.0.1: swap-and-agree for every verdict
pattern, both API kinds, keys, retries and errors."""

from __future__ import annotations

import itertools
import json
import re
from http.server import BaseHTTPRequestHandler

import pytest
from click.testing import CliRunner
from conftest import QuietServer
from serving import serve_in_background

from builder.cli.arena import arena
from builder.errors import UserError
from builder.pairwise.judge import (
    JUDGE_SYSTEM,
    ChatClient,
    Endpoint,
    combine_verdicts,
    parse_verdict,
    run_judge_battles,
)


class FakeJudge:
    """Serves /v1/chat/completions and /v1/messages. Candidates answer "answer from <model>";
    the judge's reply for (first-slot model, second-slot model) comes from ``script``."""

    def __init__(self) -> None:
        self.script: dict[tuple[str, str], str] = {}
        self.requests: list[tuple[str, dict, dict]] = []
        self.fail: list[int] = []  # status codes to return before succeeding
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):  # keep test output quiet
                pass

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["content-length"])))
                outer.requests.append((self.path, {k.lower(): v for k, v in self.headers.items()}, body))
                if outer.fail:
                    self.send_response(outer.fail.pop(0))
                    self.end_headers()
                    self.wfile.write(b'{"error": "overloaded"}')
                    return
                if self.path == "/v1/chat/completions":
                    msgs = body["messages"]
                    system = msgs[0]["content"] if msgs[0]["role"] == "system" else None
                    user = msgs[-1]["content"]
                elif self.path == "/v1/messages":
                    system, user = body.get("system"), body["messages"][-1]["content"]
                else:
                    self.send_response(404)
                    self.end_headers()
                    return
                if system == JUDGE_SYSTEM:
                    first = re.search(r"\[Answer A\]\nanswer from (\S+)", user).group(1)
                    second = re.search(r"\[Answer B\]\nanswer from (\S+)", user).group(1)
                    text = outer.script[(first, second)]
                else:
                    text = f"answer from {body['model']}"
                if self.path == "/v1/chat/completions":
                    payload = {"choices": [{"message": {"role": "assistant", "content": text}}]}
                else:
                    payload = {"content": [{"type": "text", "text": text}], "role": "assistant"}
                data = json.dumps(payload).encode()
                self.send_response(200)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.server = QuietServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"
        serve_in_background(self.server)

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture(scope="module")
def fake():
    server = FakeJudge()
    yield server
    server.close()


@pytest.fixture(autouse=True)
def keys(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-openai")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test-anthropic")


# verdict on (A, B), verdict on (B, A) -> winner
PATTERNS = {
    ("A", "B"): "model_a",  # both say model A
    ("B", "A"): "model_b",  # both say model B
    ("A", "A"): "tie",  # always the first slot: position bias
    ("B", "B"): "tie",  # always the second slot
    ("A", "tie"): "tie",
    ("tie", "B"): "tie",
    ("B", "tie"): "tie",
    ("tie", "A"): "tie",
    ("tie", "tie"): "tie",
}


@pytest.mark.parametrize("api", ["openai", "anthropic"])
@pytest.mark.parametrize("verdicts", list(PATTERNS))
def test_swap_and_agree_every_pattern(fake, api, verdicts):
    fake.script = {("m1", "m2"): verdicts[0], ("m2", "m1"): verdicts[1]}
    fake.requests.clear()
    with ChatClient(Endpoint.of(api, fake.url), retries=1) as client:
        rows = run_judge_battles(["m1", "m2"], ["What is 2+2?"], "judge-x", client, clock=lambda: 1.5e9)
    assert rows == [{"model_a": "m1", "model_b": "m2", "winner": PATTERNS[verdicts], "judge": "llm:judge-x",
                     "anony": True, "tstamp": 1.5e9,
                     "verdicts": [parse_verdict(verdicts[0]), parse_verdict(verdicts[1])]}]
    paths = {p for p, _, _ in fake.requests}
    assert paths == {"/v1/chat/completions" if api == "openai" else "/v1/messages"}
    assert len(fake.requests) == 4  # two answers, two judgements
    headers = fake.requests[0][1]
    if api == "openai":
        assert headers["authorization"] == "Bearer sk-test-openai"
    else:
        assert headers["x-api-key"] == "sk-test-anthropic" and headers["anthropic-version"]


def test_every_pair_and_prompt(fake):
    fake.script = {(x, y): "A" if x < y else "B" for x, y in itertools.permutations(["a1", "b2", "c3"], 2)}
    with ChatClient(Endpoint.of("openai", fake.url), retries=1) as client:
        rows = run_judge_battles(["a1", "b2", "c3"], ["p1", "p2"], "j", client)
    assert [(r["model_a"], r["model_b"], r["winner"]) for r in rows] == [
        ("a1", "b2", "model_a"), ("a1", "c3", "model_a"), ("b2", "c3", "model_a")] * 2


def test_verdict_parsing_and_combination():
    assert parse_verdict("A") == "first" and parse_verdict("**b**.") == "second"
    assert parse_verdict("Tie") == "tie" and parse_verdict("") == "invalid"
    assert parse_verdict("I prefer A") == "invalid"
    assert combine_verdicts("invalid", "first") == "tie"
    for (v1, v2), want in PATTERNS.items():
        assert combine_verdicts(parse_verdict(v1), parse_verdict(v2)) == want


def test_missing_key_is_a_user_error(monkeypatch):
    monkeypatch.delenv("ANTHROPIC_API_KEY")
    with pytest.raises(UserError, match="ANTHROPIC_API_KEY is not set"):
        ChatClient(Endpoint.of("anthropic", "http://127.0.0.1:9/v1"))
    with pytest.raises(UserError, match="MY_KEY is not set"):
        ChatClient(Endpoint.of("openai", "http://127.0.0.1:9/v1", key_env="MY_KEY"))


def test_retries_then_clear_error(fake):
    fake.script = {("m1", "m2"): "A", ("m2", "m1"): "B"}
    fake.fail = [429, 503]
    with ChatClient(Endpoint.of("openai", fake.url), retries=3, backoff=0.0) as client:
        assert client.chat("m1", "hi") == "answer from m1"
    fake.fail = [500, 500]
    with (ChatClient(Endpoint.of("openai", fake.url), retries=2, backoff=0.0) as client,
          pytest.raises(UserError, match=r"chat/completions: HTTP 500")):
        client.chat("m1", "hi")
    fake.fail = [400]
    with (ChatClient(Endpoint.of("anthropic", fake.url), retries=3, backoff=0.0) as client,
          pytest.raises(UserError, match=r"/v1/messages: HTTP 400")):
        client.chat("m1", "hi")
    assert fake.fail == []


def test_cli_judge_then_fit(fake, tmp_path):
    fake.script = {("m1", "m2"): "A", ("m2", "m1"): "B"}
    prompts = tmp_path / "prompts.txt"
    prompts.write_text("# comment\nfirst question\n\nsecond question\n")
    out = tmp_path / "judged.jsonl"
    runner = CliRunner()
    res = runner.invoke(arena, ["judge", "--candidates", "m1,m2", "--judge", "j", "--prompts", str(prompts),
                                "--api", "openai", "--base-url", fake.url, "--output", str(out)])
    assert res.exit_code == 0, res.output
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(rows) == 2 and all(r["winner"] == "model_a" for r in rows)
    res = runner.invoke(arena, ["judge", "--candidates", "m1,m2", "--judge", "j", "--prompts", str(prompts),
                                "--api", "anthropic", "--api-key-env", "NOPE_KEY", "--base-url", fake.url,
                                "--output", str(tmp_path / "x.jsonl")])
    assert res.exit_code == 2 and "NOPE_KEY is not set" in res.output
    assert not (tmp_path / "x.jsonl").exists()
