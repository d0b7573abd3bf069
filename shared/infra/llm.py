"""One structured call to a remote LLM, over the two wire formats the optional features use.

"anthropic" is the Messages API with a forced tool call (the JSON sits in the tool_use block's input);
"openai" is any OpenAI-compatible chat completions server (OpenAI, vLLM, Ollama) asked for a JSON
schema. Callers (services/annotator/llm.py, services/search/llm_rerank.py) own their prompt, schema and
validation; this module owns only the HTTP exchange, so that every failure (timeout, connection error,
HTTP error, malformed answer) comes back as one LLMFailure whose message is a reason fit for a log line:
it never holds the prompt or the answer, which carry documents' text.
"""

import asyncio
import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import httpx

from precedente.shared.settings import Settings

__all__ = [
    "ANTHROPIC_VERSION",
    "PROVIDERS",
    "Endpoint",
    "LLMFailure",
    "StructuredPrompt",
    "build_request",
    "parse_answer",
    "structured_call",
]

ANTHROPIC_VERSION = "2023-06-01"
RETRY_STATUSES = frozenset({429, 529})
"""Rate limited / overloaded: worth one more try after a short wait; other errors are not."""
MAX_RETRY_WAIT_S = 2.0
JSON_INSTRUCTION = " Responda com um único objeto JSON, sem texto ao redor."
"""Appended to the system prompt for OpenAI-compatible servers, some of which ignore response_format."""


class LLMFailure(Exception):
    """Why the model's answer could not be used; the message goes to the log, so it never holds document text."""


@dataclass(frozen=True)
class Endpoint:
    """Where and how to call: one feature's `<prefix>_provider/_base_url/_api_key/_model/_timeout_s` settings."""

    provider: str
    base_url: str
    api_key: str
    model: str
    timeout_s: float

    @classmethod
    def from_settings(cls, settings: Settings, prefix: str) -> "Endpoint":
        """e.g. prefix "metadata_llm" reads metadata_llm_provider, metadata_llm_base_url, ..."""
        return cls(
            provider=getattr(settings, f"{prefix}_provider"),
            base_url=getattr(settings, f"{prefix}_base_url"),
            api_key=getattr(settings, f"{prefix}_api_key"),
            model=getattr(settings, f"{prefix}_model"),
            timeout_s=float(getattr(settings, f"{prefix}_timeout_s")),
        )


@dataclass(frozen=True)
class StructuredPrompt:
    """A system and a user message, and the JSON schema (an object) the answer must follow."""

    name: str
    """Tool name (Anthropic) / json_schema name (OpenAI)."""
    description: str
    schema: dict[str, Any]
    system: str
    user: str
    max_tokens: int = 2048
    temperature: float = 0.0


Request = tuple[str, dict[str, str], dict[str, Any]]


# --- request / response per provider -----------------------------------------------------------------------


def _anthropic_request(prompt: StructuredPrompt, endpoint: Endpoint) -> Request:
    headers = {
        "x-api-key": endpoint.api_key,
        "anthropic-version": ANTHROPIC_VERSION,
        "content-type": "application/json",
    }
    body = {
        "model": endpoint.model,
        "max_tokens": prompt.max_tokens,
        "temperature": prompt.temperature,
        "system": prompt.system,
        "messages": [{"role": "user", "content": prompt.user}],
        "tools": [{"name": prompt.name, "description": prompt.description, "input_schema": prompt.schema}],
        "tool_choice": {"type": "tool", "name": prompt.name},
    }
    return "/v1/messages", headers, body


def _anthropic_answer(data: Any, name: str) -> Any:
    """The forced tool call's input: the Messages API puts the JSON there, not in a text block."""
    blocks = data.get("content") if isinstance(data, dict) else None
    for block in blocks if isinstance(blocks, list) else []:
        if isinstance(block, dict) and block.get("type") == "tool_use" and block.get("name") == name:
            return block.get("input")
    raise LLMFailure("no tool_use block in the response")


def _openai_request(prompt: StructuredPrompt, endpoint: Endpoint) -> Request:
    headers = {"content-type": "application/json"}
    if endpoint.api_key:
        headers["authorization"] = f"Bearer {endpoint.api_key}"
    body = {
        "model": endpoint.model,
        "max_tokens": prompt.max_tokens,
        "temperature": prompt.temperature,
        "messages": [
            {"role": "system", "content": prompt.system + JSON_INSTRUCTION},
            {"role": "user", "content": prompt.user},
        ],
        "response_format": {"type": "json_schema", "json_schema": {"name": prompt.name, "schema": prompt.schema}},
    }
    return "/v1/chat/completions", headers, body


_FENCE = re.compile(r"^\s*```(?:json)?\s*(.*?)\s*```\s*$", re.S)


def _openai_answer(data: Any, name: str) -> Any:
    """choices[0].message.content parsed as JSON (servers that ignore response_format may fence it)."""
    try:
        content = data["choices"][0]["message"]["content"]
    except (KeyError, IndexError, TypeError) as exc:
        raise LLMFailure("no choices[0].message.content in the response") from exc
    if not isinstance(content, str):
        raise LLMFailure("message content is not a string")
    fenced = _FENCE.match(content)
    try:
        return json.loads(fenced.group(1) if fenced else content)
    except json.JSONDecodeError as exc:
        raise LLMFailure("message content is not JSON") from exc


_PROVIDERS: dict[str, tuple[Callable[[StructuredPrompt, Endpoint], Request], Callable[[Any, str], Any]]] = {
    "anthropic": (_anthropic_request, _anthropic_answer),
    "openai": (_openai_request, _openai_answer),
}
PROVIDERS = frozenset(_PROVIDERS)
"""The providers that make a call; any other value (the settings' "none") means the feature is off."""


def build_request(prompt: StructuredPrompt, endpoint: Endpoint) -> Request:
    """(path, headers, JSON body) in the endpoint provider's wire format."""
    return _PROVIDERS[endpoint.provider][0](prompt, endpoint)


def parse_answer(provider: str, data: Any, name: str) -> Any:
    """The structured answer inside a provider's response body (not validated: that is the caller's)."""
    return _PROVIDERS[provider][1](data, name)


# --- the exchange ------------------------------------------------------------------------------------------


async def _post(client: httpx.AsyncClient, url: str, headers: dict[str, str], body: dict[str, Any], retry: bool) -> Any:
    """POST, with one retry on 429/529 when allowed (waiting what retry-after asks, up to 2 s); the JSON body."""
    for attempt in range(2 if retry else 1):
        response = await client.post(url, headers=headers, json=body)
        if response.status_code in RETRY_STATUSES and retry and attempt == 0:
            await asyncio.sleep(_retry_wait(response.headers.get("retry-after")))
            continue
        if response.status_code != 200:
            raise LLMFailure(f"HTTP {response.status_code}")
        try:
            return response.json()
        except ValueError as exc:
            raise LLMFailure("response body is not JSON") from exc
    raise LLMFailure(f"HTTP {response.status_code}")


def _retry_wait(value: str | None) -> float:
    try:
        wait = float(value) if value else 1.0
    except ValueError:  # an HTTP date: not worth parsing for a 2 s cap
        wait = 1.0
    return min(max(wait, 0.0), MAX_RETRY_WAIT_S)


async def structured_call(
    prompt: StructuredPrompt,
    endpoint: Endpoint,
    *,
    client: httpx.AsyncClient | None = None,
    retry: bool = True,
) -> Any:
    """The model's structured answer, as parsed JSON but not validated.

    The whole exchange is bounded: endpoint.timeout_s, plus the retry's wait when `retry` is on (a
    latency-bound caller such as search turns it off). Raises LLMFailure, and only that, on any failure."""
    if endpoint.provider not in _PROVIDERS:
        raise LLMFailure(f"unknown provider {endpoint.provider!r}")
    path, headers, body = build_request(prompt, endpoint)
    url = endpoint.base_url.rstrip("/") + path
    own = client is None
    http = client if client is not None else httpx.AsyncClient(timeout=endpoint.timeout_s)
    try:
        async with asyncio.timeout(endpoint.timeout_s + (MAX_RETRY_WAIT_S if retry else 0.0)):
            data = await _post(http, url, headers, body, retry)
    except (TimeoutError, httpx.TimeoutException) as exc:
        raise LLMFailure("timeout") from exc
    except httpx.HTTPError as exc:
        raise LLMFailure(type(exc).__name__) from exc
    finally:
        if own:
            await http.aclose()
    return parse_answer(endpoint.provider, data, prompt.name)
