"""The indexer yields to search between a document's batches too (services/indexer/service.py embed_chunks, issue
31 item 2): a long document does not hold the cores for minutes while lawyers search. Real embedder, real
PostgreSQL; asserted on what was persisted while the indexer held back, not on time."""

import asyncio
import uuid

import asyncpg
from prometheus_client import REGISTRY

from precedente.services.indexer.service import SERVICE
from precedente.shared.runtime import search_load
from precedente.shared.runtime.stage import StageContext, process
from precedente.shared.settings import Settings
from tests.helpers.indexing import passages, persisted
from tests.helpers.ledger import annotated

BATCH = 4
CHUNKS = 12


def cleared() -> float:
    labels = {"stage": "indexer", "outcome": "cleared"}
    return REGISTRY.get_sample_value("precedente_admission_yield_seconds_count", labels) or 0


def yielding() -> float:
    return REGISTRY.get_sample_value("precedente_admission_yielding", {"stage": "indexer"}) or 0


async def test_search_turning_busy_mid_document_holds_the_next_batch_until_it_calms(pool: asyncpg.Pool) -> None:
    await pool.execute("DELETE FROM search_load")
    settings = Settings(
        indexer_batch_size=BATCH,
        admission_busy_in_flight=2,
        admission_poll_s=0.02,
        admission_max_yield_s=600,
        search_load_window_s=0.01,
        search_load_stale_s=3600,  # published once by hand: fresh however long a batch's embedding takes under load
    )
    event = await annotated(pool, passages(CHUNKS))
    ctx = StageContext(settings=settings, db=pool, broker=None)  # type: ignore[arg-type]
    replica = search_load.Publisher(pool, settings, replica=f"test:{uuid.uuid4().hex[:8]}")
    before = cleared()

    working = asyncio.create_task(process(SERVICE, ctx, event.model_dump(mode="json")))
    for _ in range(6000):  # the document's first embedder call is under way: lawyers start searching now
        batcher = ctx.state.get("embedding_batcher")
        if (batcher is not None and batcher[2].in_call) or working.done():
            break
        await asyncio.sleep(0.01)
    assert not working.done(), "the handler ended before its first embedder call"
    began = [replica.started(), replica.started()]
    await replica.tick()

    for _ in range(6000):
        if yielding() == 1 or working.done():
            break
        await asyncio.sleep(0.01)
    assert yielding() == 1, "the indexer never held its next batch back"
    kept = await persisted(pool, event.document_id)
    assert 0 < kept < CHUNKS and kept % BATCH == 0  # whole batches so far, and the rest waiting
    assert not working.done()

    for start in began:
        replica.ended(start)
    await asyncio.sleep(0.05)  # past the replica's 0.01 s window: its load is withdrawn on the next tick
    await replica.tick()
    await working

    assert await pool.fetchval("SELECT stage FROM documents WHERE id = $1", event.document_id) == "indexed"
    assert await pool.fetchval("SELECT count(*) FROM chunks WHERE document_id = $1", event.document_id) == CHUNKS
    assert cleared() == before + 1
    assert yielding() == 0
