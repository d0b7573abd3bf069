"""The extractor's OCR yields to search between pages too (issue 31 item 2).

A stage asks admission control (shared/search_load.yield_to_search) before each message, but a scan is one message:
a 40-page scan that started while search was quiet kept both cores for minutes after lawyers began searching. So
each OCR'd page asks before it is read. The pages are read in the extractor's reading child (isolation.py), which
has no database pool and must stay small; it asks its parent over a Unix socket, and the parent answers once its own
yield_to_search lets the page go. The decision, the bound, the stopping rule and the gauge ("cedendo à busca") are
therefore the stages' own, counted under the stage "extractor": one piece of work held back per waiting page.

Bounded twice, so that a document always finishes: a page waits at most settings.admission_ocr_page_max_yield_s,
and a document's pages together at most a third of settings.extract_timeout_s (the reading child's own limit). A
parent that does not answer (stopped, killed) never holds a page: the child reads on.
"""

import asyncio
import socket
import threading
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

GRACE_S = 5.0
"""How much longer than a page's bound the child waits for its parent's answer before reading on regardless."""


@dataclass(frozen=True)
class SearchGate:
    """Where a reading child asks, and its bounds (picklable: sent to the child with each document)."""

    path: str
    page_max_s: float
    document_max_s: float

    def for_document(self) -> "DocumentYield":
        return DocumentYield(self)


class DocumentYield:
    """One document's waiting budget, shared by the threads that read its pages."""

    def __init__(self, gate: SearchGate) -> None:
        self.gate = gate
        self._left = gate.document_max_s
        self._lock = threading.Lock()

    def before_page(self) -> float:
        """Wait while the parent says search is busy (bounded); the seconds the parent held the page."""
        with self._lock:
            allowed = min(self.gate.page_max_s, self._left)
        if allowed <= 0:
            return 0.0
        began = time.monotonic()
        waited = _ask(self.gate.path, allowed)
        with self._lock:
            self._left -= time.monotonic() - began
        return waited


def _ask(path: str, allowed: float) -> float:
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
            conn.settimeout(allowed + GRACE_S)
            conn.connect(path)
            conn.sendall(f"{allowed:.3f}\n".encode())
            with conn.makefile("r", encoding="ascii") as answer:
                return float(answer.readline())
    except (OSError, ValueError):  # no parent to ask, or it went away mid-wait: read the page
        return 0.0


async def serve(path: str, yielding: Callable[[float], Awaitable[float]]) -> asyncio.Server:
    """Answer the reading children at `path`: each request waits `yielding(its bound)`, then gets the seconds."""

    async def answer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            allowed = float(await reader.readline())
            waited = await yielding(max(0.0, allowed))
            writer.write(f"{waited:.3f}\n".encode())
            await writer.drain()
        except (ValueError, OSError):
            pass  # a request that is not a number, or a child gone: nothing to answer
        finally:
            writer.close()

    return await asyncio.start_unix_server(answer, path)
