"""The database and the broker taken away mid-ingestion: every document still ends indexed exactly once.

One stack (`precedente up` with embedded PostgreSQL and Tansu) takes every fault in turn, each test reading only
what was logged since its own: a stack must come back whole from one fault to take the next (and starting one per
test cost ~15 CPU-s and ~10 s each). For an outage of a set length, PostgreSQL is stopped with `pg_ctl -m fast`
and the broker is killed while the supervisor is paused; the supervisor starts each again when it goes on. A
postmaster killed outright, the supervisor running, is started again by it at once.
"""

import time
from collections.abc import Iterator

import httpx
import pytest

from precedente.harness import RunningStack
from tests.helpers.pdfs import retitled
from tests.helpers.stack import SMALL_PDFS, assert_indexed_exactly_once, upload_variants, wait_for_stage

pytestmark = pytest.mark.e2e

OUTAGE_S = 30
IN_FLIGHT = {"extracted", "cleaned", "chunked", "annotated"}
STAGES = ("extractor", "cleaner", "chunker", "annotator", "indexer")


@pytest.fixture(scope="module")
def fault_stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningStack]:
    with RunningStack(tmp_path_factory.mktemp("faults")) as running:
        yield running


def service_log_lengths(stack: RunningStack) -> dict[str, int]:
    return {name: len(stack.service_log(name)) for name in STAGES}


def service_logs_since(stack: RunningStack, lengths: dict[str, int]) -> str:
    return "".join(stack.service_log(name)[lengths[name] :] for name in STAGES)


def test_postgres_down_for_30_s_mid_ingestion(fault_stack: RunningStack) -> None:
    stack = fault_stack
    ids = upload_variants(stack, "pg-outage")
    wait_for_stage(stack, ids, IN_FLIGHT)
    health: list[int | str] = []
    searches: list[int | str] = []
    logged = service_log_lengths(stack)
    stack.stop_postgres()
    try:
        deadline = time.monotonic() + OUTAGE_S
        while time.monotonic() < deadline:
            for answers, call in (
                (health, lambda: stack.client.get("/health", timeout=15)),
                (searches, lambda: stack.client.post("/search", json={"query": "prazo"}, timeout=15)),
            ):
                try:
                    answers.append(call().status_code)
                except httpx.HTTPError as err:  # a hang or a dropped connection: not an answer
                    answers.append(type(err).__name__)
            time.sleep(1)
    finally:
        stack.start_postgres()
    back = time.monotonic()

    assert health and set(health) == {503}, health  # unavailable, never a 500 nor a hang
    assert searches and set(searches) == {503}, searches  # every route: a client may retry a 503
    assert_indexed_exactly_once(stack, ids)
    print(f"indexed {len(ids)} documents {time.monotonic() - back:.0f} s after PostgreSQL came back")
    assert stack.client.get("/health").status_code == 200
    # The stages waited the outage out instead of failing the documents (none is in review or failed)...
    assert "waits for the database and the broker" in service_logs_since(stack, logged)
    # ...and no failed attempt was counted against a document for it.
    history = [h for document_id in ids for h in stack.status(document_id)["history"]]
    assert not [h for h in history if h["stage"] in ("failed", "review")], history


def test_a_killed_database_is_started_again_by_the_supervisor(fault_stack: RunningStack) -> None:
    """SIGKILL of the postmaster mid-ingestion (a crash, the OOM killer): `precedente up` notices, starts it
    again (crash recovery from its WAL) and the documents in flight end indexed exactly once."""
    stack = fault_stack
    ids = upload_variants(stack, "pg-killed")
    wait_for_stage(stack, ids, IN_FLIGHT)
    logged = stack.log_since_start()
    killed = time.monotonic()
    stack.kill_postgres()
    stack.wait_for_log("PostgreSQL restarted", 120, logged.count("PostgreSQL restarted"))
    print(f"PostgreSQL running again {time.monotonic() - killed:.1f} s after the kill")
    assert "PostgreSQL is not running; starting it again" in stack.log_since_start()[len(logged) :]
    assert_indexed_exactly_once(stack, ids)
    assert stack.client.get("/health").status_code == 200


def test_broker_restarted_mid_ingestion(fault_stack: RunningStack) -> None:
    stack = fault_stack
    ids = upload_variants(stack, "broker-outage")
    wait_for_stage(stack, ids, IN_FLIGHT)
    logged = len(stack.log_since_start())
    stack.stop_broker()
    try:
        time.sleep(5)  # the services notice: consumers lose their group, publishes fail
        assert stack.client.get("/health").status_code == 200  # search and the ledger need no broker
    finally:
        back = time.monotonic()
        stack.start_broker()  # the supervisor restarts it, re-creates the topics, resumes from the ledger

    recovery = stack.log_since_start()[logged:]
    assert "the broker exited" in recovery and "broker restarted" in recovery, recovery[-3000:]
    assert_indexed_exactly_once(stack, ids)
    print(f"indexed {len(ids)} documents {time.monotonic() - back:.0f} s after the broker came back")


def test_upload_while_the_broker_is_down_is_kept_and_indexed_once(fault_stack: RunningStack) -> None:
    stack = fault_stack
    name = SMALL_PDFS[0]
    content = retitled(name, "outbox")
    stack.stop_broker()
    try:
        accepted = stack.client.post("/documents", files={"file": (name, content)})
        assert accepted.status_code == 202, accepted.text  # kept in the ledger, not lost with the broker
        document_id = accepted.json()["document_id"]
        waiting = stack.status(document_id)
        assert waiting["stage"] == "submitted" and waiting["error"] == "waiting for the broker to take it", waiting
        again = stack.upload(content=content, filename=name)  # the same file again: nothing twice
        assert (again["document_id"], again["outcome"]) == (document_id, "unchanged")
    finally:
        back = time.monotonic()
        stack.start_broker()

    assert_indexed_exactly_once(stack, {document_id: name})
    print(f"indexed {time.monotonic() - back:.0f} s after the broker came back")
    assert stack.sql(f"SELECT reason_code IS NULL FROM documents WHERE id = '{document_id}'") == "True"


def test_a_sigkilled_extractor_leaves_no_reading_process_behind(fault_stack: RunningStack) -> None:
    """The OOM killer's way: SIGKILL to the extractor alone, mid-OCR. Its reading child (a process group of
    its own) and that child's Tesseract runs end with it; the supervisor starts a new extractor."""
    import psutil

    from tests.helpers.samples import DOCS

    stack = fault_stack
    scan = DOCS / "scanned" / "stj_resp_1543564_sp_scan_hard.pdf"
    stack.client.post("/documents", files={"file": (scan.name, scan.read_bytes(), "application/pdf")})
    (extractor,) = stack.service_processes("extractor")

    def ocr_running(processes: list[psutil.Process]) -> bool:
        """Tesseract runs inside the reading child (tesserocr), which maps libtesseract on its first page."""
        for process in processes:
            try:
                if any("libtesseract" in m.path for m in process.memory_maps()):
                    return True
            except psutil.Error:
                continue
        return False

    deadline, descendants = time.monotonic() + 120, []
    while time.monotonic() < deadline and not ocr_running(descendants):
        descendants = extractor.children(recursive=True)
        time.sleep(0.2)
    assert ocr_running(descendants), "the scan never reached OCR"
    extractor.kill()

    def gone(process: psutil.Process) -> bool:
        try:
            return process.status() == psutil.STATUS_ZOMBIE
        except psutil.NoSuchProcess:
            return True

    deadline = time.monotonic() + 15
    while time.monotonic() < deadline and not all(gone(p) for p in descendants):
        time.sleep(0.2)
    assert [p.pid for p in descendants if not gone(p)] == []
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not stack.service_processes("extractor"):
        time.sleep(0.5)
    assert stack.service_processes("extractor")  # the supervisor started it again
