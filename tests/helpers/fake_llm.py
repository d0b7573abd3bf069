"""A real local HTTP server for the LLM features' tests (no client is patched), and the response bodies the
Anthropic Messages API and OpenAI-compatible chat completions servers send."""

import json
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

__all__ = ["FakeLLM", "Reply", "chat_completion", "fake_llm_server", "messages_response", "tool_use_block"]


@dataclass
class Reply:
    status: int = 200
    body: Any = None
    """JSON-encoded unless already bytes (which go out as they are: truncated or malformed bodies)."""
    headers: dict[str, str] = field(default_factory=dict)
    sleep_s: float = 0.0


@dataclass
class FakeLLM:
    """A local server answering each POST with the next Reply (the last one repeats), recording requests
    as (path, lower-cased headers, parsed JSON body or None)."""

    url: str
    replies: list[Reply] = field(default_factory=list)
    requests: list[tuple[str, dict[str, str], Any]] = field(default_factory=list)
    stop: threading.Event = field(default_factory=threading.Event)


def _handler(fake: Callable[[], FakeLLM]) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            server = fake()
            raw = self.rfile.read(int(self.headers.get("content-length", 0)))
            try:
                body = json.loads(raw)
            except ValueError:
                body = None
            server.requests.append((self.path, {k.lower(): v for k, v in self.headers.items()}, body))
            reply = server.replies[min(len(server.requests), len(server.replies)) - 1]
            if reply.sleep_s:
                server.stop.wait(reply.sleep_s)
            payload = reply.body if isinstance(reply.body, bytes) else json.dumps(reply.body).encode()
            try:
                self.send_response(reply.status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(payload)))
                for name, value in reply.headers.items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(payload)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client gave up (the timeout case)

        def log_message(self, format: str, *args: Any) -> None:
            pass

    return Handler


@contextmanager
def fake_llm_server() -> Iterator[FakeLLM]:
    """Bound to 127.0.0.1 on a free port; a sleeping reply is woken at the end so shutdown is quick."""
    holder: list[FakeLLM] = []
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(lambda: holder[0]))
    server.daemon_threads = True
    holder.append(FakeLLM(url=f"http://127.0.0.1:{server.server_address[1]}"))
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield holder[0]
    finally:
        holder[0].stop.set()
        server.shutdown()
        server.server_close()
        thread.join(5)


def messages_response(blocks: list[dict[str, Any]]) -> dict[str, Any]:
    """A Messages API response body as Anthropic sends it."""
    return {
        "id": "msg_01XFDUDYJgAACzvnptvVoYEL",
        "type": "message",
        "role": "assistant",
        "model": "claude-3-5-haiku-20241022",
        "content": blocks,
        "stop_reason": "tool_use" if any(b["type"] == "tool_use" for b in blocks) else "end_turn",
        "stop_sequence": None,
        "usage": {"input_tokens": 3512, "output_tokens": 187},
    }


def tool_use_block(name: str, answer: Any) -> dict[str, Any]:
    return {"type": "tool_use", "id": "toolu_01A09q90qw90lq917835lq9", "name": name, "input": answer}


def chat_completion(content: str, model: str = "qwen2.5-7b-instruct") -> dict[str, Any]:
    """A chat completions response body as OpenAI-compatible servers send it."""
    return {
        "id": "chatcmpl-123",
        "object": "chat.completion",
        "created": 1700000000,
        "model": model,
        "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 3000, "completion_tokens": 40, "total_tokens": 3040},
    }
