"""Crashes and restarts mid-ingestion: every document ends indexed exactly once."""

from pathlib import Path

import pytest

from precedente.harness import FINAL, RunningStack
from tests.helpers.stack import assert_indexed_exactly_once, upload_variants, wait_for_stage

pytestmark = pytest.mark.e2e


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
