"""No head-of-line blocking in the extractor (issue #15): with settings.extractor_concurrency above 1 a long OCR job
does not hold the documents behind it, their OCR shares the page slots, and a crash mid-flight loses nothing.

The extractor runs as `precedente serve extractor` (a real process, SIGKILLed for the crash) on a real embedded Tansu
broker and PostgreSQL ledger, one partition so that both documents queue behind each other. The slow document is
the first pages of a real scan of ../shared/docs (image-only: every page goes through Tesseract), the quick one a
real acórdão with a text layer (read in a tenth of a second).
"""

import asyncio
import hashlib
import os
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import AsyncIterator, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import asyncpg
import pymupdf
import pytest
from faststream.kafka import KafkaBroker

from precedente.services.extractor.ocr import PageSlots
from precedente.shared.contracts import MetadataHints, Source, Topic
from precedente.shared.infra.embedded import EmbeddedBroker, tesseract_available
from precedente.shared.infra.storage import original_key, put_blob
from precedente.shared.runtime import ledger
from precedente.shared.runtime.broker import ensure_topics, make_broker, publish
from precedente.shared.runtime.stage import PartitionOffsets
from precedente.shared.settings import Settings
from tests.helpers.samples import DOCS

REPO = Path(__file__).resolve().parents[3]
SCAN = DOCS / "scanned" / "stj_resp_1433940_mg_scan.pdf"
QUICK = DOCS / "tjrj_agravo_instrumento_0017387-33.2017_acordao.pdf"
SCAN_PAGES = 3  # two rounds of the 2 OCR slots, ~3-5 s each on a loaded 2-core machine; the quick one reads in 0.1 s
FINISHED = ("extracted", "review")  # what the extractor hands on (a scan may read below the bar)


@pytest.fixture
def tesseract() -> None:
    """`make install` installs Tesseract with Portuguese: its absence is a broken install, not a reason to skip."""
    assert tesseract_available(), "Tesseract (with por) is not installed: run `make install`"


def test_an_offset_is_committable_only_past_events_all_done() -> None:
    offsets = PartitionOffsets()
    for offset in (10, 11, 13):  # 12 never reached the stage (a message FastStream could not decode)
        offsets.admit(offset)
    assert offsets.finish(11) == 0 and offsets.to_commit() is None  # 10 still runs: nothing may be committed
    assert offsets.finish(10) == 2 and offsets.to_commit() == 12
    offsets.committed = 12
    assert offsets.to_commit() is None
    assert offsets.finish(13) == 1 and offsets.to_commit() == 14


HOLDER = """
import sys, time
from precedente.services.extractor.ocr import PageSlots
with PageSlots(sys.argv[1], int(sys.argv[2])).hold():
    print("holding", flush=True)
    time.sleep(600)
"""


def _holder(directory: Path, count: int) -> subprocess.Popen[str]:
    process = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(directory), str(count)], cwd=REPO, stdout=subprocess.PIPE, text=True
    )
    assert process.stdout is not None and process.stdout.readline().strip() == "holding"
    return process


def _take(slots: PageSlots) -> bool:
    with slots.hold():
        return True


def test_page_slots_bound_ocr_across_processes_and_free_a_dead_holders(tmp_path: Path) -> None:
    """Two reading children share the extractor's slots; a child killed at its time limit gives its slot back."""
    first = _holder(tmp_path, 2)
    second = _holder(tmp_path, 2)
    try:
        slots = PageSlots(tmp_path, 2)
        waiter = subprocess.Popen(  # a third page, in yet another process: it must wait
            [sys.executable, "-c", HOLDER, str(tmp_path), "2"], cwd=REPO, stdout=subprocess.PIPE, text=True
        )
        time.sleep(1.5)
        assert waiter.poll() is None
        assert waiter.stdout is not None
        os.kill(first.pid, signal.SIGKILL)  # no clean-up: the kernel drops its flock
        first.wait()
        started = time.monotonic()
        assert waiter.stdout.readline().strip() == "holding"
        assert time.monotonic() - started < 5
        waiter.kill()
        waiter.wait()
        with ThreadPoolExecutor(1) as pool:  # one holder left alive of three: a slot is free again
            assert pool.submit(_take, slots).result(timeout=5)
    finally:
        for process in (first, second):
            process.kill()
            process.wait()


# --- the extractor service on a real broker ---------------------------------------------------------------------


@pytest.fixture(scope="module")
def tansu(tmp_path_factory: pytest.TempPathFactory) -> Iterator[EmbeddedBroker]:
    broker = EmbeddedBroker(logfile=Path(tmp_path_factory.mktemp("tansu")) / "broker.log")
    broker.start()
    yield broker
    broker.stop()


@pytest.fixture
async def settings(database_url: str, tansu: EmbeddedBroker) -> Settings:
    """Topics of this test's own (fresh offsets and consumer group), one partition: the documents queue in order."""
    settings = Settings(
        database_url=database_url,
        kafka_bootstrap=tansu.bootstrap,
        topic_partitions=1,
        topic_prefix=f"hol-{uuid.uuid4().hex[:8]}.",
    )
    await ensure_topics(settings)
    return settings


@pytest.fixture
async def broker(settings: Settings) -> AsyncIterator[KafkaBroker]:
    client = make_broker(settings)
    await client.start()
    yield client
    await client.stop()


class Extractor:
    """`precedente serve extractor` in a process of its own, as `precedente up` runs it."""

    def __init__(self, settings: Settings, concurrency: int, logfile: Path) -> None:
        env = {
            **os.environ,
            "PRECEDENTE_DATABASE_URL": settings.database_url,
            "PRECEDENTE_KAFKA_BOOTSTRAP": settings.kafka_bootstrap,
            "PRECEDENTE_TOPIC_PREFIX": settings.topic_prefix,
            "PRECEDENTE_TOPIC_PARTITIONS": "1",
            "PRECEDENTE_EXTRACTOR_CONCURRENCY": str(concurrency),
            "PRECEDENTE_OCR_WORKERS": "2",
            "PRECEDENTE_CONSUMER_SESSION_TIMEOUT_MS": "6000",  # Tansu joins a group in about half of it
            "PRECEDENTE_CONSUMER_HEARTBEAT_INTERVAL_MS": "1500",
            "PRECEDENTE_LAG_INTERVAL_S": "0",
            "PRECEDENTE_METRICS_PORT": "0",
            "PRECEDENTE_TELEMETRY_EXPORTER": "none",
        }
        self.log = logfile.open("ab")
        self.process = subprocess.Popen(
            [sys.executable, "-m", "precedente.cli", "serve", "extractor"],
            cwd=REPO,
            env=env,
            stdout=self.log,
            stderr=subprocess.STDOUT,
        )

    def kill(self) -> None:
        """SIGKILL: no shutdown hook, no commit; its reading children follow it (isolation.py's owner watch)."""
        self.process.kill()
        self.process.wait()
        self.log.close()

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=40)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.log.close()


def scan_pages(tag: str) -> bytes:
    """The first SCAN_PAGES pages of the real scan, under a new title (new bytes: a new document)."""
    with pymupdf.open(SCAN) as source, pymupdf.open() as part:
        part.insert_pdf(source, from_page=0, to_page=SCAN_PAGES - 1)
        part.set_metadata({"title": f"scan {tag}"})
        return part.tobytes()


def quick_pdf(tag: str) -> bytes:
    with pymupdf.open(QUICK) as doc:
        doc.set_metadata({"title": f"quick {tag}"})
        return doc.tobytes()


async def submit(pool: asyncpg.Pool, broker: KafkaBroker, settings: Settings, data: bytes, name: str) -> uuid.UUID:
    """As an upload does: the original stored, the submission in the ledger, its event on documents.submitted."""
    content_hash = hashlib.sha256(data).hexdigest()
    await put_blob(pool, original_key(content_hash), data, "application/pdf")
    submission = await ledger.register_submission(
        pool,
        external_id=f"hol-test:{content_hash}",
        filename=name,
        content_type="application/pdf",
        content_hash=content_hash,
        size_bytes=len(data),
        source=Source.CLI,
        access_groups=["*"],
        hints=MetadataHints(),
    )
    assert submission.event is not None
    await publish(broker, settings, Topic.SUBMITTED, submission.event)
    return submission.document_id


async def finished_at(pool: asyncpg.Pool, document_id: uuid.UUID) -> float | None:
    """When the extractor first handed the document on (database clock, epoch seconds), or None."""
    return await pool.fetchval(
        "SELECT extract(epoch FROM min(at))::float8 FROM document_history WHERE document_id = $1 AND stage = ANY($2)",
        document_id,
        list(FINISHED),
    )


async def handed_on(pool: asyncpg.Pool, document_id: uuid.UUID) -> int:
    """How many times the extractor handed the document on (a redelivery done again counts twice)."""
    return await pool.fetchval(
        "SELECT count(*) FROM document_history WHERE document_id = $1 AND stage = ANY($2)", document_id, list(FINISHED)
    )


async def wait_finished(pool: asyncpg.Pool, ids: list[uuid.UUID], timeout: float = 120) -> dict[uuid.UUID, float]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        times = {i: await finished_at(pool, i) for i in ids}
        if all(t is not None for t in times.values()):
            return {i: t for i, t in times.items() if t is not None}
        await asyncio.sleep(0.2)
    raise TimeoutError(f"not handed on within {timeout:g} s: {[i for i in ids if times[i] is None]}")


async def stage_of(pool: asyncpg.Pool, document_id: uuid.UUID) -> str:
    return await pool.fetchval("SELECT stage FROM documents WHERE id = $1", document_id)


@pytest.mark.usefixtures("tesseract")
async def test_a_long_scan_does_not_hold_the_document_behind_it_and_a_crash_loses_neither(
    pool: asyncpg.Pool, broker: KafkaBroker, settings: Settings, tmp_path: Path
) -> None:
    tag = uuid.uuid4().hex
    slow = await submit(pool, broker, settings, scan_pages(tag), "scan.pdf")
    quick = await submit(pool, broker, settings, quick_pdf(tag), "acordao.pdf")  # behind it in the partition
    extractor = Extractor(settings, concurrency=2, logfile=tmp_path / "extractor.log")
    try:
        await wait_finished(pool, [quick])
        assert await stage_of(pool, slow) == "submitted", "the scan must still be in OCR: raise SCAN_PAGES"
    finally:
        extractor.kill()  # mid-flight: the scan half read, the quick document done but behind it in the partition
    assert await finished_at(pool, slow) is None

    again = Extractor(settings, concurrency=2, logfile=tmp_path / "extractor.log")
    try:
        await wait_finished(pool, [slow, quick])
    finally:
        again.stop()
    assert await stage_of(pool, slow) in FINISHED
    assert await stage_of(pool, quick) == "extracted"
    # Its offset was not committed past the scan still in flight, so the crash handed it over again (and, still at
    # the extractor's own output, the ledger guard let it be read again): at least once, never lost.
    assert await handed_on(pool, quick) == 2
    assert await handed_on(pool, slow) == 1


@pytest.mark.usefixtures("tesseract")
async def test_one_at_a_time_the_document_behind_a_long_scan_waits_for_it(
    pool: asyncpg.Pool, broker: KafkaBroker, settings: Settings, tmp_path: Path
) -> None:
    tag = uuid.uuid4().hex
    slow = await submit(pool, broker, settings, scan_pages(tag), "scan.pdf")
    quick = await submit(pool, broker, settings, quick_pdf(tag), "acordao.pdf")
    extractor = Extractor(settings, concurrency=1, logfile=tmp_path / "extractor.log")
    try:
        times = await wait_finished(pool, [slow, quick])
    finally:
        extractor.stop()
    assert times[quick] > times[slow]
    assert await handed_on(pool, quick) == await handed_on(pool, slow) == 1
