"""LLM-judged battles: candidates answer prompts, a judge compares each pair twice.

For every prompt each candidate answers once; for every pair (A, B) the judge is asked
which answer is better with A's answer in the first slot, then again with the slots
swapped. Each verdict is "A" (first slot), "B" (second slot) or "tie" (anything else is an
invalid verdict and counts as a tie). Translated back to models, the battle's winner is the
model both verdicts name; if they disagree (a position bias) or either is a tie, the battle
is a tie. The 3 x 3 verdict patterns therefore give:

    first \\ swapped    A (= B wins)   B (= A wins)   tie
    A (= A wins)       tie            model_a        tie
    B (= B wins)       model_b        tie            tie
    tie                tie            tie            tie

Endpoints: OpenAI-compatible ``POST {base_url}/chat/completions`` (Bearer key; OpenAI,
OpenRouter, vLLM, llama.cpp ...) and Anthropic ``POST {base_url}/messages`` (``x-api-key``,
``anthropic-version``), both over httpx with retries on 429/5xx and transport errors. Keys
come from environment variables only; a missing key is a ``UserError`` before any request.
Output rows follow the clean_battle schema (plus the two raw verdicts) so they feed
``read_battles`` and the fit like any other battles file.
"""

from __future__ import annotations

import itertools
import os
import re
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

import httpx
from tenacity import Retrying, retry_if_exception, stop_after_attempt, wait_exponential

from builder.errors import UserError

Api = Literal["openai", "anthropic"]
Verdict = Literal["first", "second", "tie", "invalid"]

DEFAULT_BASE = {"openai": "https://api.openai.com/v1", "anthropic": "https://api.anthropic.com/v1"}
DEFAULT_KEY_ENV = {"openai": "OPENAI_API_KEY", "anthropic": "ANTHROPIC_API_KEY"}
ANTHROPIC_VERSION = "2023-06-01"

JUDGE_SYSTEM = (
    "You are a strict, impartial judge. The user gives a question and two candidate answers, "
    "Answer A and Answer B. Judge only the quality of the answers; ignore their order and length. "
    "Reply with exactly one word: A, B or tie."
)


@dataclass(frozen=True, slots=True)
class Endpoint:
    """Where to send chat requests and which environment variable holds the key."""

    api: Api
    base_url: str
    key_env: str

    @classmethod
    def of(cls, api: Api, base_url: str | None = None, key_env: str | None = None) -> Endpoint:
        if api not in DEFAULT_BASE:
            raise UserError(f"judge: unknown API {api!r} (use openai or anthropic)")
        return cls(api, (base_url or DEFAULT_BASE[api]).rstrip("/"), key_env or DEFAULT_KEY_ENV[api])

    def key(self) -> str:
        """The API key from the environment; ``UserError`` when unset or empty."""
        value = os.environ.get(self.key_env, "").strip()
        if not value:
            raise UserError(f"judge: environment variable {self.key_env} is not set (API key for {self.api} at "
                            f"{self.base_url})")
        return value


class ChatClient:
    """A small synchronous chat client over httpx for one endpoint."""

    def __init__(self, endpoint: Endpoint, *, timeout: float = 120.0, retries: int = 3, backoff: float = 0.5,
                 http: httpx.Client | None = None, model_id: Callable[[str], str] | None = None,
                 headers: Mapping[str, str] | None = None) -> None:
        """``model_id`` turns a model name into the id the endpoint knows (OpenRouter's
        ``vendor/model``); ``headers`` are sent with every request."""
        self.endpoint = endpoint
        self._key = endpoint.key()
        self.retries = max(1, retries)
        self.backoff = backoff
        self.model_id = model_id or (lambda m: m)
        self.extra_headers = dict(headers or {})
        self.http = http or httpx.Client(timeout=timeout, headers={"user-agent": "ModelBoards-judge/0.1"})

    def close(self) -> None:
        self.http.close()

    def __enter__(self) -> ChatClient:  # noqa: PYI034 - no subclasses; Self needs 3.11 typing
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def chat(self, model: str, user: str, *, system: str | None = None, max_tokens: int = 1024) -> str:
        """One single-turn chat; returns the reply text, stripped."""
        ep = self.endpoint
        model = self.model_id(model)
        if ep.api == "openai":
            url = f"{ep.base_url}/chat/completions"
            messages = ([{"role": "system", "content": system}] if system else []) + [{"role": "user", "content": user}]
            body: dict[str, Any] = {"model": model, "messages": messages, "max_tokens": max_tokens, "temperature": 0}
            headers = {"authorization": f"Bearer {self._key}"}
        else:
            url = f"{ep.base_url}/messages"
            body = {"model": model, "max_tokens": max_tokens, "messages": [{"role": "user", "content": user}],
                    "temperature": 0}
            if system:
                body["system"] = system
            headers = {"x-api-key": self._key, "anthropic-version": ANTHROPIC_VERSION}
        data = self._post(url, body, {**self.extra_headers, **headers})
        try:
            if ep.api == "openai":
                text = data["choices"][0]["message"]["content"] or ""
            else:
                text = "".join(b.get("text", "") for b in data["content"] if b.get("type") == "text")
        except (KeyError, IndexError, TypeError, AttributeError):
            raise UserError(f"judge: POST {url}: unexpected response shape for model {model!r}") from None
        return str(text).strip()

    def _post(self, url: str, body: dict[str, Any], headers: dict[str, str]) -> Any:
        def transient(exc: BaseException) -> bool:
            if isinstance(exc, httpx.TransportError):
                return True
            return isinstance(exc, httpx.HTTPStatusError) and (
                exc.response.status_code == 429 or exc.response.status_code >= 500
            )

        try:
            for attempt in Retrying(
                stop=stop_after_attempt(self.retries),
                wait=wait_exponential(multiplier=self.backoff, max=30),
                retry=retry_if_exception(transient),
                reraise=True,
            ):
                with attempt:
                    resp = self.http.post(url, json=body, headers=headers)
                    resp.raise_for_status()
                    return resp.json()
        except httpx.HTTPStatusError as exc:
            snippet = " ".join(exc.response.text.split())[:120]
            raise UserError(f"judge: POST {url}: HTTP {exc.response.status_code}: {snippet}") from None
        except httpx.TransportError as exc:
            raise UserError(f"judge: POST {url}: {type(exc).__name__}: {exc}") from None
        except ValueError:
            raise UserError(f"judge: POST {url}: response is not JSON") from None


def parse_verdict(text: str) -> Verdict:
    """'A' -> first, 'B' -> second, 'tie' -> tie (first word, case and punctuation ignored)."""
    words = re.findall(r"[a-z]+", text.lower())
    if not words:
        return "invalid"
    w = words[0]
    if w == "a":
        return "first"
    if w == "b":
        return "second"
    if w in ("tie", "draw", "equal"):
        return "tie"
    return "invalid"


def combine_verdicts(first_pass: Verdict, swapped_pass: Verdict) -> str:
    """Winner ("model_a" | "model_b" | "tie") from the verdict on (A, B) and on (B, A)."""
    w1 = {"first": "model_a", "second": "model_b"}.get(first_pass, "tie")
    w2 = {"first": "model_b", "second": "model_a"}.get(swapped_pass, "tie")
    return w1 if w1 == w2 else "tie"


def judge_prompt(question: str, answer_first: str, answer_second: str) -> str:
    return (
        f"Question:\n{question}\n\n[Answer A]\n{answer_first}\n[End of Answer A]\n\n"
        f"[Answer B]\n{answer_second}\n[End of Answer B]\n\nWhich answer is better? Reply A, B or tie."
    )


def judge_pair(client: ChatClient, judge_model: str, question: str, answer_a: str, answer_b: str) -> tuple[str,
                                                                                                           Verdict,
                                                                                                           Verdict]:
    """(winner, verdict on (A, B), verdict on (B, A)) with swap-and-agree."""
    v1 = parse_verdict(client.chat(judge_model, judge_prompt(question, answer_a, answer_b), system=JUDGE_SYSTEM,
                                   max_tokens=8))
    v2 = parse_verdict(client.chat(judge_model, judge_prompt(question, answer_b, answer_a), system=JUDGE_SYSTEM,
                                   max_tokens=8))
    return combine_verdicts(v1, v2), v1, v2


def run_judge_battles(
    candidates: list[str],
    prompts: list[str],
    judge_model: str,
    client: ChatClient,
    *,
    answer_client: ChatClient | None = None,
    max_tokens: int = 1024,
    clock: Any = time.time,
) -> list[dict[str, Any]]:
    """Every candidate answers every prompt; every pair is judged twice per prompt.

    Returns clean_battle rows: model_a, model_b, winner, judge ("llm:<judge>"), anony
    (true: the judge never sees model names), tstamp, verdicts [first, swapped].
    """
    if len(set(candidates)) < 2:
        raise UserError("judge: need at least 2 distinct candidate models")
    if not prompts:
        raise UserError("judge: no prompts")
    answer_client = answer_client or client
    rows: list[dict[str, Any]] = []
    for question in prompts:
        answers = {m: answer_client.chat(m, question, max_tokens=max_tokens) for m in dict.fromkeys(candidates)}
        for ma, mb in itertools.combinations(list(answers), 2):
            winner, v1, v2 = judge_pair(client, judge_model, question, answers[ma], answers[mb])
            rows.append(
                {
                    "model_a": ma,
                    "model_b": mb,
                    "winner": winner,
                    "judge": f"llm:{judge_model}",
                    "anony": True,
                    "tstamp": float(clock()),
                    "verdicts": [v1, v2],
                }
            )
    return rows


def read_prompts(path: str) -> list[str]:
    """Prompts from a text file (one per line; blank lines and '#' comments skipped) or a
    JSON array of strings (``.json``)."""
    import json
    from pathlib import Path

    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise UserError(f"{p}: prompts file not found") from None
    if p.suffix.lower() == ".json":
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise UserError(f"{p}: line {exc.lineno}: invalid JSON: {exc.msg}") from None
        if not isinstance(data, list) or not all(isinstance(x, str) for x in data):
            raise UserError(f"{p}: expected a JSON array of strings")
        prompts = [x for x in data if x.strip()]
    else:
        prompts = [ln.strip() for ln in text.splitlines() if ln.strip() and not ln.lstrip().startswith("#")]
    if not prompts:
        raise UserError(f"{p}: no prompts")
    return prompts


__all__ = [
    "JUDGE_SYSTEM",
    "ChatClient",
    "Endpoint",
    "combine_verdicts",
    "judge_pair",
    "judge_prompt",
    "parse_verdict",
    "read_prompts",
    "run_judge_battles",
]
