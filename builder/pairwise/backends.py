"""Judge backends for ``arena judge``: which vendor, which URL, which key, which model ids.

Backends and their wire formats:

    anthropic   Anthropic Messages API      POST {base}/messages          key ANTHROPIC_API_KEY
                base https://api.anthropic.com/v1, or ANTHROPIC_BASE_URL
    openai      OpenAI Chat Completions     POST {base}/chat/completions  key OPENAI_API_KEY
                base https://api.openai.com/v1, or OPENAI_BASE_URL
    openrouter  OpenAI-compatible           POST {base}/chat/completions  key OPENROUTER_API_KEY
                base https://openrouter.ai/api/v1, or OPENROUTER_BASE_URL; model names are
                mapped to OpenRouter ids (``openrouter_id``)
    auto        anthropic when ANTHROPIC_API_KEY is set, else openrouter when
                OPENROUTER_API_KEY is set, else a one-line error naming both variables

``--base-url`` beats the environment variable, which beats the vendor's URL, so tests (and
local gateways) can point any backend at 127.0.0.1.

OpenRouter ids, in this order:

1. the override table (``OPENROUTER_OVERRIDES``, then any ``--openrouter-id NAME=ID``);
2. a name that already holds a ``/`` (``openai/gpt-5.6-luna``) is an OpenRouter id: verbatim;
3. otherwise the vendor comes from the name's first word (``VENDOR_PREFIXES``: claude ->
   anthropic, gpt -> openai, gemini -> google, ...); for Claude names a trailing
   ``-YYYYMMDD`` date or ``-latest`` is dropped and the first hyphenated version pair of one
   or two digits each becomes a dotted version: ``claude-opus-4-8`` ->
   ``anthropic/claude-opus-4.8``, ``claude-3-5-haiku-20241022`` -> ``anthropic/claude-3.5-haiku``;
   other vendors' names are kept as they are;
4. a name whose vendor is unknown is sent unchanged (OpenRouter answers with its own error).
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from builder.errors import UserError
from builder.pairwise.judge import Endpoint

BackendChoice = Literal["auto", "anthropic", "openai", "openrouter"]
BACKEND_CHOICES: tuple[str, ...] = ("auto", "anthropic", "openai", "openrouter")


@dataclass(frozen=True, slots=True)
class Backend:
    """One vendor: wire format, default URL and the variables for URL and key, default models."""

    name: str
    title: str
    wire: Literal["openai", "anthropic"]
    base_url: str
    base_env: str
    key_env: str
    candidates: tuple[str, ...]
    judge: str


BACKENDS: dict[str, Backend] = {
    "anthropic": Backend("anthropic", "Anthropic", "anthropic", "https://api.anthropic.com/v1", "ANTHROPIC_BASE_URL",
                         "ANTHROPIC_API_KEY", ("claude-opus-4-8", "claude-haiku-4-5"), "claude-opus-4-8"),
    "openai": Backend("openai", "OpenAI", "openai", "https://api.openai.com/v1", "OPENAI_BASE_URL",
                      "OPENAI_API_KEY", ("gpt-5.6-luna", "gpt-5-mini"), "gpt-5.6-luna"),
    "openrouter": Backend("openrouter", "OpenRouter", "openai", "https://openrouter.ai/api/v1", "OPENROUTER_BASE_URL",
                          "OPENROUTER_API_KEY", ("claude-opus-4-8", "claude-haiku-4-5"), "claude-opus-4-8"),
}
AUTO_ORDER = ("anthropic", "openrouter")
"What ``auto`` tries, in order: the first backend whose key variable is set."

OPENROUTER_HEADERS = {"X-Title": "ModelBoards"}
"OpenRouter's optional app attribution header."

OPENROUTER_OVERRIDES: dict[str, str] = {
    # Anthropic's "-0" aliases name the first release of a generation, which OpenRouter lists bare.
    "claude-opus-4-0": "anthropic/claude-opus-4",
    "claude-sonnet-4-0": "anthropic/claude-sonnet-4",
    "claude-3-7-sonnet-latest": "anthropic/claude-3.7-sonnet",
}
"Names the rule maps wrongly, with the OpenRouter id to use."

VENDOR_PREFIXES: dict[str, str] = {
    "claude": "anthropic", "gpt": "openai", "chatgpt": "openai", "o1": "openai", "o3": "openai", "o4": "openai",
    "gemini": "google", "gemma": "google", "grok": "x-ai", "llama": "meta-llama", "mistral": "mistralai",
    "mixtral": "mistralai", "codestral": "mistralai", "deepseek": "deepseek", "qwen": "qwen", "kimi": "moonshotai",
    "glm": "z-ai",
}
"First word of a model name -> OpenRouter vendor."

PROMPTS_FILE = Path(__file__).resolve().parents[1] / "data" / "judge" / "prompts.txt"
"The bundled prompt set ``arena judge`` uses without ``--prompts``."
DEFAULT_OUTPUT = "judge-battles.jsonl"

_DATE_SUFFIX = re.compile(r"-(\d{8}|latest)$")
_VERSION_PAIR = re.compile(r"-(\d{1,2})-(\d{1,2})(?=-|$)")
_FIRST_WORD = re.compile(r"^[a-z]+\d?")


def resolve_backend(choice: str, env: Mapping[str, str] | None = None) -> Backend:
    """The backend for ``choice`` (``auto`` looks at the key variables in ``AUTO_ORDER``)."""
    env = os.environ if env is None else env
    if choice in BACKENDS:
        return BACKENDS[choice]
    if choice != "auto":
        raise UserError(f"judge: unknown backend {choice!r} (use {', '.join(BACKEND_CHOICES)})")
    for name in AUTO_ORDER:
        if env.get(BACKENDS[name].key_env, "").strip():
            return BACKENDS[name]
    looked = " or ".join(f"{BACKENDS[n].key_env} ({BACKENDS[n].title})" for n in AUTO_ORDER)
    raise UserError(f"judge: no API key found: set {looked}, or choose --judge-backend openai with "
                    f"{BACKENDS['openai'].key_env}")


def endpoint_for(backend: Backend, base_url: str | None = None, key_env: str | None = None,
                 env: Mapping[str, str] | None = None) -> Endpoint:
    """Where to send requests: ``base_url``, else the backend's URL variable, else its vendor URL."""
    env = os.environ if env is None else env
    url = base_url or env.get(backend.base_env, "").strip() or backend.base_url
    if not url.startswith(("http://", "https://")):
        source = "--base-url" if base_url else backend.base_env
        raise UserError(f"judge: {source} {url!r} is not an http(s) URL")
    return Endpoint.of(backend.wire, url, key_env or backend.key_env)


def parse_overrides(values: Sequence[str]) -> dict[str, str]:
    """``NAME=ID`` pairs from ``--openrouter-id`` options."""
    out: dict[str, str] = {}
    for v in values:
        name, sep, ident = v.partition("=")
        if not sep or not name.strip() or not ident.strip():
            raise UserError(f"--openrouter-id {v!r}: expected NAME=ID, e.g. claude-opus-4-8=anthropic/claude-opus-4.8")
        out[name.strip()] = ident.strip()
    return out


def openrouter_id(model: str, overrides: Mapping[str, str] | None = None) -> str:
    """The OpenRouter id of ``model`` by the rule in the module docstring."""
    table = {**OPENROUTER_OVERRIDES, **(overrides or {})}
    if model in table:
        return table[model]
    if "/" in model:
        return model
    first = _FIRST_WORD.match(model.lower())
    word = first.group(0) if first else ""
    vendor = VENDOR_PREFIXES.get(word) or VENDOR_PREFIXES.get(word.rstrip("0123456789"))
    if vendor is None:
        return model
    name = model
    if vendor == "anthropic":
        name = _DATE_SUFFIX.sub("", name)
        name = _VERSION_PAIR.sub(lambda m: f"-{m.group(1)}.{m.group(2)}", name, count=1)
    return f"{vendor}/{name}"


def read_default_prompts() -> list[str]:
    """The bundled prompt set (one prompt a line)."""
    from builder.pairwise.judge import read_prompts

    return read_prompts(str(PROMPTS_FILE))


__all__ = [
    "AUTO_ORDER",
    "BACKENDS",
    "BACKEND_CHOICES",
    "DEFAULT_OUTPUT",
    "OPENROUTER_HEADERS",
    "OPENROUTER_OVERRIDES",
    "PROMPTS_FILE",
    "VENDOR_PREFIXES",
    "Backend",
    "BackendChoice",
    "endpoint_for",
    "openrouter_id",
    "parse_overrides",
    "read_default_prompts",
    "resolve_backend",
]
