"""A scan's OCR yields to search between its pages (services/extractor/search_gate.py, issue 31 item 2): a long
scan that began while search was quiet does not keep the cores once lawyers search. The extractor's handler runs as
the stage runs it, with its real reading child and Tesseract on a real scan of ../shared/docs, against real
PostgreSQL; the hold is observed through the stage's gauge and the page slots (no page is being read while it
holds), never by time."""

import asyncio
import fcntl
import hashlib
import os
import uuid
from collections.abc import AsyncIterator
from pathlib import Path

import asyncpg
import pymupdf
import pytest
from prometheus_client import REGISTRY

from precedente.services.extractor.service import handle, start_reader
from precedente.shared.contracts import DocumentSubmitted
from precedente.shared.infra.embedded import tesseract_available
from precedente.shared.infra.storage import original_key, put_blob
from precedente.shared.runtime import search_load
from precedente.shared.runtime.stage import StageContext
from precedente.shared.settings import Settings
from tests.helpers.ledger import register
from tests.helpers.samples import DOCS

SCAN = DOCS / "scanned" / "stj_resp_1433940_mg_scan.pdf"
PAGES = 3


def yielding() -> float:
    return REGISTRY.get_sample_value("precedente_admission_yielding", {"stage": "extractor"}) or 0


def went_on(outcome: str) -> float:
    labels = {"stage": "extractor", "outcome": outcome}
    return REGISTRY.get_sample_value("precedente_admission_yield_seconds_count", labels) or 0


def page_in_reading(slots: Path) -> bool:
    """Whether a page holds the single OCR slot now (services/extractor/ocr.py PageSlots: an flock)."""
    fd = os.open(slots / "slot-0", os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    finally:
        os.close(fd)  # closing the descriptor also drops a lock taken here
    return False


async def submitted(pool: asyncpg.Pool) -> DocumentSubmitted:
    """The first PAGES pages of the real scan (image only: every page goes through Tesseract), as an upload."""
    with pymupdf.open(SCAN) as source, pymupdf.open() as part:
        part.insert_pdf(source, from_page=0, to_page=PAGES - 1)
        part.set_metadata({"title": f"scan {uuid.uuid4().hex}"})
        data = part.tobytes()
    content_hash = hashlib.sha256(data).hexdigest()
    await put_blob(pool, original_key(content_hash), data, "application/pdf")
    submission = await register(
        pool,
        external_id=f"gate-test:{content_hash}",
        content_hash=content_hash,
        filename="digitalizacao.pdf",
        size_bytes=len(data),
    )
    assert submission.event is not None
    return submission.event


@pytest.fixture
async def extractor(pool: asyncpg.Pool) -> AsyncIterator[StageContext]:
    """The extractor's own set-up, one document and one OCR slot at a time; search busy at 2 searches in flight."""
    assert tesseract_available(), "Tesseract (with por) is not installed: run `make install`"
    await pool.execute("DELETE FROM search_load")
    settings = Settings(
        ocr_workers=1,
        extractor_concurrency=1,
        admission_busy_in_flight=2,
        admission_poll_s=0.02,
        admission_ocr_page_max_yield_s=600,
        search_load_window_s=0.01,
        search_load_stale_s=3600,  # published once by hand: fresh however long page 1's OCR takes under load
    )
    ctx = StageContext(settings=settings, db=pool, broker=None)  # type: ignore[arg-type]
    await start_reader(ctx)
    yield ctx
    ctx.state["search_gate_server"].close()
    ctx.state["readers"].get_nowait().close()
    await pool.execute("DELETE FROM search_load")


async def hold_mid_document(ctx: StageContext) -> tuple[asyncio.Task[object], search_load.Publisher, list[float]]:
    """Start reading the scan; once its first page is under way, two searches begin; returns when a later page is
    held back for them (the gauge), with no page being read."""
    slots = ctx.state["page_slots"].directory
    event = await submitted(ctx.db)
    working: asyncio.Task[object] = asyncio.create_task(handle(event, ctx))
    for _ in range(12000):
        if page_in_reading(slots) or working.done():
            break
        await asyncio.sleep(0.01)
    assert not working.done(), "the scan was read before its first page could be seen in reading"
    replica = search_load.Publisher(ctx.db, ctx.settings, replica=f"test:{uuid.uuid4().hex[:8]}")
    began = [replica.started(), replica.started()]
    await replica.tick()
    for _ in range(12000):
        if yielding() == 1 or working.done():
            break
        await asyncio.sleep(0.01)
    assert yielding() == 1, "no page was held back for search"
    assert not working.done(), "the scan finished while a page was held back"
    assert not page_in_reading(slots), "a page is being read while the scan yields to search"
    return working, replica, began


async def test_a_scan_pauses_between_pages_while_search_is_busy_and_reads_on_once_it_calms(
    extractor: StageContext,
) -> None:
    cleared = went_on("cleared")
    working, replica, began = await hold_mid_document(extractor)

    for start in began:
        replica.ended(start)
    await asyncio.sleep(0.05)  # past the replica's 0.01 s window: its load is withdrawn on the next tick
    await replica.tick()
    outcome = await working

    pages = outcome.event.page_count  # type: ignore[attr-defined]
    assert pages == PAGES and len(outcome.event.ocr_pages) == PAGES  # type: ignore[attr-defined]
    assert went_on("cleared") == cleared + 1  # the one page held, let go when search calmed
    assert yielding() == 0


async def test_a_stopping_stage_lets_the_held_page_go_and_finishes_the_scan_whole(extractor: StageContext) -> None:
    stopping = went_on("stopping")
    working, replica, began = await hold_mid_document(extractor)

    extractor.stopping.set()  # as on SIGTERM: the stage drains what it holds, so no page may stay held
    outcome = await working  # search is still busy: only the stop let the page go

    assert outcome.event.page_count == PAGES  # type: ignore[attr-defined]
    assert outcome.event.ocr_pages == list(range(1, PAGES + 1))  # type: ignore[attr-defined]  # each once, none lost
    assert went_on("stopping") >= stopping + 1
    assert yielding() == 0
    for start in began:
        replica.ended(start)
    await replica.stop()
