"""A local server speaking OpenAI's embeddings wire format, for tests of remote embedding providers."""

import hashlib
import json
import threading
import time
import unicodedata
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import numpy as np

from precedente.shared.infra.embedded import free_port


def bag_of_words(text: str, dimensions: int) -> list[float]:
    """A deterministic embedding where texts sharing words are close: enough to test retrieval."""
    vector = np.zeros(dimensions, dtype=np.float64)
    folded = "".join(c for c in unicodedata.normalize("NFD", text.lower()) if unicodedata.category(c) != "Mn")
    for word in "".join(c if c.isalnum() else " " for c in folded).split():
        digest = hashlib.sha256(word.encode()).digest()
        vector[int.from_bytes(digest[:4], "little") % dimensions] += 1.0 if digest[4] % 2 else -1.0
    return (vector / max(np.linalg.norm(vector), 1e-12)).tolist()


class FakeOpenAI:
    """OpenAI's POST /v1/embeddings on a free 127.0.0.1 port, in a thread.

    Vectors have the requested `dimensions` (3072 when absent, as text-embedding-3-large) and come back
    in reverse order, each with its index, as the API allows. `script` holds (status, headers, body)
    answers given before the normal ones; `delay_s` delays every answer; `requests` records every call
    and `inputs` the inputs of the calls answered with vectors; after `fail_after` such answers, every
    call fails with 500.
    """

    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []
        self.script: list[tuple[int, dict[str, str], dict[str, Any]]] = []
        self.delay_s = 0.0
        self.inputs: list[list[str]] = []
        self.fail_after: int | None = None
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: object) -> None:
                pass

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
                fake.requests.append({"path": self.path, "authorization": self.headers.get("Authorization"), **body})
                time.sleep(fake.delay_s)
                if fake.script:
                    status, headers, answer = fake.script.pop(0)
                elif fake.fail_after is not None and len(fake.inputs) >= fake.fail_after:
                    status, headers, answer = 500, {}, {"error": {"message": "the server fell over"}}
                else:
                    fake.inputs.append(body["input"])
                    dimensions = body.get("dimensions", 3072)
                    data = [
                        {"object": "embedding", "index": i, "embedding": bag_of_words(text, dimensions)}
                        for i, text in enumerate(body["input"])
                    ]
                    status, headers, answer = 200, {}, {"object": "list", "data": data[::-1], "model": body["model"]}
                payload = json.dumps(answer).encode()
                try:
                    self.send_response(status)
                    for name, value in {"Content-Type": "application/json", **headers}.items():
                        self.send_header(name, value)
                    self.send_header("Content-Length", str(len(payload)))
                    self.end_headers()
                    self.wfile.write(payload)
                except OSError:  # the client gave up (timeout tests)
                    pass

        self.server = ThreadingHTTPServer(("127.0.0.1", free_port()), Handler)
        self.base_url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> "FakeOpenAI":
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(5)
