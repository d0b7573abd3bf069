"""Crashes and restarts mid-ingestion: every document ends indexed exactly once."""

import time
from pathlib import Path

import pymupdf
import pytest

from tests.conftest import DOCS, FINAL, RunningStack

pytestmark = pytest.mark.e2e

SMALL_PDFS = [
    "tjrj_agravo_instrumento_0017387-33.2017_acordao.pdf",
    "stj_agint_aresp_2560760_se_acordao.pdf",
    "stj_resp_1433940_mg_acordao.pdf",
]


def variant(name: str, tag: str) -> bytes:
    """The same text under a different content hash, so it is a new document to the ledger."""
    doc = pymupdf.open(DOCS / name)
    doc.set_metadata({"title": f"{name} {tag}"})
    return doc.tobytes()


def upload_variants(stack: RunningStack, tag: str) -> dict[str, str]:
    return {stack.upload(content=variant(name, tag), filename=name)["document_id"]: name for name in SMALL_PDFS}


def wait_for_stage(stack: RunningStack, ids: dict[str, str], stages: set[str], timeout: float = 300) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if any(stack.status(document_id)["stage"] in stages for document_id in ids):
            return
        time.sleep(0.2)
    raise TimeoutError(f"no document reached {stages}")


def assert_indexed_exactly_once(stack: RunningStack, ids: dict[str, str]) -> None:
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


def test_killing_services_mid_ingestion_loses_and_duplicates_nothing(stack: RunningStack) -> None:
    ids = upload_variants(stack, "crash")
    wait_for_stage(stack, ids, {"annotated"})  # the indexer is embedding a document now
    killed = {}
    for name in ("indexer", "chunker"):
        victim = stack.service_process(name)
        victim.kill()
        victim.wait(10)
        killed[name] = victim.pid
    assert_indexed_exactly_once(stack, ids)
    for name, pid in killed.items():
        assert stack.service_process(name).pid != pid  # the supervisor started a new one


def test_restarting_the_whole_stack_mid_ingestion_resumes_from_the_ledger(tmp_path: Path) -> None:
    running = RunningStack(tmp_path / "restart")
    running.start()
    try:
        ids = upload_variants(running, "restart")
        wait_for_stage(running, ids, {"chunked", "annotated", "indexed"})
        unfinished_before = [d for d in ids if running.status(d)["stage"] not in FINAL]
        running.stop()
        assert unfinished_before, "the restart must happen mid-ingestion"

        running.start()  # a new, empty broker: only the ledger knows what is left
        assert "resumed" in running.log_since_start()
        assert_indexed_exactly_once(running, ids)
    finally:
        running.stop()
        running.client.close()
