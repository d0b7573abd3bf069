"""A real `precedente up`'s search service publishes its load for the pipeline to yield to (issue 31 item 2,
shared/runtime/search_load.py): a search shows in search_load while it is in the replica's recent window, and the row
goes once the replica has been idle for that window."""

import time

import pytest

from precedente.harness import RunningStack

pytestmark = pytest.mark.e2e


def until(stack: RunningStack, query: str, expected: str, deadline_s: float = 60) -> str:
    """Poll `query` until it returns `expected` (the deadline only turns a hang into a failure)."""
    seen = ""
    end = time.monotonic() + deadline_s
    while time.monotonic() < end:
        seen = stack.sql(query)
        if seen == expected:
            return seen
        time.sleep(0.1)
    raise AssertionError(f"{query!r} returned {seen!r}, never {expected!r}")


def test_the_search_service_publishes_its_load_and_withdraws_it_when_idle(stack: RunningStack) -> None:
    stack.search("responsabilidade subsidiária do tomador de serviços")
    # The search ended: the replica's row shows it in the p95 of its window (no search in flight any more).
    until(stack, "SELECT count(*) > 0 FROM search_load WHERE p95_ms > 0 AND in_flight = 0", "True")
    until(stack, "SELECT count(*) FROM search_load", "0")  # its window passed with no search: withdrawn
