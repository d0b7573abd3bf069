"""Kafka wiring shared by every service: the broker, explicit topics, keyed publishing.

Settings chosen for Tansu as much as for Kafka: no idempotent producer or transactions,
acks="all", consumers start from "earliest" (handlers are idempotent), and a configurable session
timeout because Tansu's group join waits about half of it.
"""

import asyncio
import contextlib
import logging

from aiokafka.admin import AIOKafkaAdminClient, NewTopic
from aiokafka.errors import (
    InvalidTopicError,
    KafkaConnectionError,
    KafkaError,
    MessageSizeTooLargeError,
    RecordListTooLargeError,
    TopicAlreadyExistsError,
    TopicAuthorizationFailedError,
    UnsupportedCodecError,
    UnsupportedVersionError,
)
from faststream.kafka import KafkaBroker

from precedente.shared.contracts import Event, Topic
from precedente.shared.runtime import telemetry
from precedente.shared.settings import Settings

log = logging.getLogger(__name__)


# Back-pressure: how much of a backlog one stage consumer may prefetch. aiokafka sends a new fetch for a
# partition only once the records buffered for it are consumed, so a consumer holds at most one fetch
# response per assigned partition (each at most max_partition_fetch_bytes, all at most fetch_max_bytes
# per request): with claim-check events of about 1 KB, a few hundred events, whatever the backlog. The
# backlog itself stays in the broker. Stage subscribers pass these (shared/runtime/stage.py).
CONSUMER_FETCH_BOUNDS: dict[str, int] = {
    "max_partition_fetch_bytes": 256 * 1024,
    "fetch_max_bytes": 1024 * 1024,
    "max_poll_records": 100,
}


# How long a publish may wait for the broker. aiokafka alone waits up to its request timeout (40 s) for metadata,
# then as long again for the delivery: an upload would hang that long while the broker is down.
PUBLISH_TIMEOUT_S = 10.0


class BrokerUnavailable(KafkaError):
    """The broker did not take the event in time, or refused it for a reason that passes (no connection, no
    leader, the topic not there yet after a restart). The event is valid: publishing it again later works."""

    retriable = True


# What the broker answers about the event or the configuration, not about its own state: publishing again
# cannot help. Any other error is taken for an outage, even one aiokafka calls fatal: Tansu answers the
# first produce after a restart with UNKNOWN_SERVER_ERROR (-1) when a batch from before it is resent.
REFUSALS: tuple[type[KafkaError], ...] = (
    MessageSizeTooLargeError,
    RecordListTooLargeError,
    InvalidTopicError,
    TopicAuthorizationFailedError,
    UnsupportedCodecError,
    UnsupportedVersionError,
)


def topic_name(settings: Settings, topic: Topic) -> str:
    return f"{settings.topic_prefix}{topic.value}"


STOP_GRACE_S = 8.0
"""How long a stopping consumer lets the event in hand finish (FastStream's graceful_timeout, and the stage's (stage.py)
drain of a stage handling several at once) before it cancels it, uncommitted, for the next consumer: `precedente up`
stopped in 43 s with 30, the indexer killed mid-document (issue 35, point 8). The indexer hands its document back at
the next batch boundary (its vectors are persisted per batch), so it rarely needs all of it."""


class GroupsJoinedAtOnceBroker(KafkaBroker):
    """A KafkaBroker whose subscribers join their consumer groups at once. FastStream 0.7 starts them one after
    another, and aiokafka's consumer start waits for its assignment: on Tansu a join takes about half the session
    timeout (Kafka holds a new group's first join for group.initial.rebalance.delay.ms, 3 s by default), so the
    indexer, with three subscribers, took 6 s to start in the tests' stacks (session 4 s) and 15 s on the default
    settings. Otherwise FastStream's own start (faststream/_internal/broker/broker.py, pinned in pyproject)."""

    async def start(self) -> None:
        await self.connect()
        await asyncio.gather(*(subscriber.start() for subscriber in self.subscribers))
        for publisher in self.publishers:
            await publisher.start()
        self.running = True


def make_broker(settings: Settings) -> KafkaBroker:
    if not settings.kafka_bootstrap:
        raise RuntimeError("PRECEDENTE_KAFKA_BOOTSTRAP is not set (precedente up sets it for its services)")
    return GroupsJoinedAtOnceBroker(
        settings.kafka_bootstrap,
        acks="all",
        enable_idempotence=False,
        allow_auto_create_topics=False,
        graceful_timeout=STOP_GRACE_S,
        logger=log,
        log_level=logging.DEBUG,
    )


async def ensure_topics(settings: Settings, attempts: int = 30) -> list[str]:
    """Create every topic with the configured partitions; returns the ones created now."""
    admin = AIOKafkaAdminClient(bootstrap_servers=settings.kafka_bootstrap)
    for attempt in range(attempts):
        try:
            await admin.start()
            break
        except KafkaConnectionError:
            if attempt == attempts - 1:
                raise
            await asyncio.sleep(1)
    created = []
    try:
        existing = set(await admin.list_topics())
        for topic in Topic:
            name = topic_name(settings, topic)
            if name in existing:
                continue
            with contextlib.suppress(TopicAlreadyExistsError):
                await admin.create_topics(
                    [NewTopic(name, num_partitions=settings.topic_partitions, replication_factor=1)]
                )
                created.append(name)
    finally:
        await admin.close()
    return created


async def publish(
    broker: KafkaBroker, settings: Settings, topic: Topic, event: Event, timeout: float = PUBLISH_TIMEOUT_S
) -> None:
    """Publish keyed by document id, with the trace id in the headers as well as in the body.

    Inside a span of the event's trace, the headers also carry its W3C `traceparent`, so the next
    stage's span becomes that span's child (shared/runtime/telemetry.py). Raises BrokerUnavailable when the
    broker does not take the event within `timeout`: callers retry (shared/runtime/stage.py) or keep it in the
    ledger's outbox (shared/runtime/outbox.py) instead of hanging.
    """
    headers = {"trace_id": event.trace_id, "schema_version": str(event.schema_version)}
    try:
        await asyncio.wait_for(
            broker.publish(
                event.model_dump(mode="json"),
                topic_name(settings, topic),
                key=event.key,
                headers=telemetry.inject_headers(headers, event.trace_id),
            ),
            timeout,
        )
    except TimeoutError as err:
        raise BrokerUnavailable(f"the broker did not take the event within {timeout:g} s") from err
    except KafkaError as err:
        if isinstance(err, (BrokerUnavailable, *REFUSALS)):
            raise
        raise BrokerUnavailable(f"{type(err).__name__}: {err}") from err
