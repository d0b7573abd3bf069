"""Ingesting into a running stack (precedente.harness.RunningStack) and checking what came out, for the
end-to-end tests of crashes, restarts and outages."""

import time

from precedente.harness import RunningStack
from tests.helpers.pdfs import retitled

SMALL_PDFS = [
    "tjrj_agravo_instrumento_0017387-33.2017_acordao.pdf",
    "stj_agint_aresp_2560760_se_acordao.pdf",
    "stj_resp_1433940_mg_acordao.pdf",
]


def upload_variants(stack: RunningStack, tag: str) -> dict[str, str]:
    """SMALL_PDFS under new titles (new documents each time): document id -> sample file name."""
    return {stack.upload(content=retitled(name, tag), filename=name)["document_id"]: name for name in SMALL_PDFS}


def wait_for_stage(stack: RunningStack, ids: dict[str, str], stages: set[str], timeout: float = 300) -> None:
    """Until one of these documents is at one of these stages: the moment to break something."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if any(stack.status(document_id)["stage"] in stages for document_id in ids):
            return
        time.sleep(0.2)
    raise TimeoutError(f"no document reached {stages}")


def assert_indexed_exactly_once(stack: RunningStack, ids: dict[str, str]) -> None:
    """Every document indexed, each chunk ordinal once: nothing lost and nothing duplicated."""
    statuses = stack.wait_final({document_id: None for document_id in ids}, timeout=600)
    for document_id, status in statuses.items():
        assert status["stage"] == "indexed", (ids[document_id], status)
        rows = stack.sql(f"SELECT count(*) FROM chunks WHERE document_id = '{document_id}'")
        ordinals = stack.sql(
            f"SELECT count(DISTINCT ordinal) FILTER (WHERE ordinal < {status['chunk_count']})"
            f" FROM chunks WHERE document_id = '{document_id}'"
        )
        assert rows == ordinals == str(status["chunk_count"]), (ids[document_id], rows, ordinals)
        indexed = [h for h in status["history"] if h["stage"] == "indexed"]
        assert indexed, status["history"]
