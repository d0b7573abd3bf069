"""The outboxes: what the API decided reaches the broker even if the broker is down when it decides.

Events of the API's own decisions (a deletion, an access change, a reviewer's action) are written to the
`outbox` table in the transaction of the change they announce (`enqueue`), published right after the
commit (`Relay.send`) and deleted once the broker took them; the relay publishes whatever is left when the
broker is back, oldest first. Uploads have the outbox below, the ledger row itself.

The upload outbox: a submission the ledger accepted reaches documents.submitted even if the broker is down.

The ledger row is the outbox entry. `ledger.register_submission` has made the document durable before
anything is published, so the upload is accepted (202) whatever the broker does. The row's reason_code
says where its event is: "publishing" while the upload publishes it, "unpublished" when the broker did not
take it, none once it did (every stage's `ledger.advance` clears it too). The `Relay` in the search
service publishes the unpublished ones when the broker takes events again, and the "publishing" ones
whose upload died before it could say; `recovery.resume_unfinished` (at start, and after `precedente up`
restarted its broker) clears the marks of those it publishes. An event published twice is harmless:
every stage skips what the ledger says is done (ledger.is_stale_or_done).
"""

import asyncio
import contextlib
import logging
import uuid
from typing import Any

import asyncpg
from faststream.kafka import KafkaBroker

from precedente.shared.contracts import (
    DocumentAccessChanged,
    DocumentDeadLetter,
    DocumentDeleted,
    DocumentExtracted,
    DocumentIndexed,
    DocumentSubmitted,
    Event,
    Topic,
)
from precedente.shared.runtime import ledger
from precedente.shared.runtime.broker import PUBLISH_TIMEOUT_S, BrokerUnavailable, publish
from precedente.shared.settings import Settings

log = logging.getLogger(__name__)

# documents.reason_code of a submission at stage "submitted" that may not be on the broker yet.
PUBLISHING = "publishing"  # an upload is publishing it now (or died doing so: then the relay takes it later)
UNPUBLISHED = "unpublished"  # the broker did not take it: the relay publishes it when the broker is back
RELAY_INTERVAL_S = 2.0
RELAY_MAX_BACKOFF_S = 10.0
RELAY_BATCH = 100

Db = asyncpg.Pool | asyncpg.Connection

# The marked submissions the relay may publish: the unpublished ones, and those an upload began publishing
# longer ago than it may take (its process died in between).
_PENDING = (
    "SELECT * FROM documents WHERE stage = 'submitted'"
    " AND (reason_code = 'unpublished'"
    "      OR (reason_code = 'publishing' AND updated_at <= now() - make_interval(secs => $1)))"
    " ORDER BY updated_at LIMIT $2"
)


EVENT_TYPES: dict[str, type[Event]] = {
    cls.__name__: cls
    for cls in (
        DocumentSubmitted,
        DocumentExtracted,
        DocumentDeadLetter,
        DocumentDeleted,
        DocumentAccessChanged,
        DocumentIndexed,
    )
}


async def enqueue(conn: asyncpg.Connection, topic: Topic, event: Event) -> int:
    """Put an event in the outbox inside the caller's transaction; its id, for Relay.send after the commit."""
    return await conn.fetchval(
        "INSERT INTO outbox (topic, event_type, event) VALUES ($1, $2, $3) RETURNING id",
        topic.value,
        type(event).__name__,
        event.model_dump(mode="json"),
    )


async def flush(
    db: asyncpg.Pool, broker: KafkaBroker, settings: Settings, timeout: float, ids: list[int] | None = None
) -> int:
    """Publish outbox events (these `ids`, or every one) oldest first and delete them; how many. Stops at the
    first the broker refuses, so one document's events keep their order; raises BrokerUnavailable when it
    took none. Rows being published are locked (SKIP LOCKED): replicas never publish one twice at once."""
    sent = 0
    failure: BrokerUnavailable | None = None
    async with db.acquire() as conn, conn.transaction():
        rows = await conn.fetch(
            "SELECT * FROM outbox WHERE ($1::bigint[] IS NULL OR id = ANY($1)) ORDER BY id LIMIT $2"
            " FOR UPDATE SKIP LOCKED",
            ids,
            RELAY_BATCH,
        )
        for row in rows:
            event = EVENT_TYPES[row["event_type"]].model_validate(row["event"])
            try:
                await publish(broker, settings, Topic(row["topic"]), event, timeout)
            except BrokerUnavailable as err:
                failure = err
                break
            await conn.execute("DELETE FROM outbox WHERE id = $1", row["id"])
            sent += 1
    if failure is not None and not sent:
        raise failure
    return sent


async def mark(db: Db, document_id: uuid.UUID, version: int, code: str, reason: str | None = None) -> bool:
    """Mark the submission PUBLISHING or UNPUBLISHED (with `reason` as its error on the status page)."""
    status = await db.execute(
        "UPDATE documents SET reason_code = $3, last_error = coalesce($4, last_error)"
        " WHERE id = $1 AND version = $2 AND stage = 'submitted'",
        document_id,
        version,
        code,
        reason,
    )
    return not status.endswith(" 0")


async def mark_published(db: Db, document_id: uuid.UUID, version: int) -> bool:
    """Clear the mark; False when there was none (a stage moved the document on, or another relay was first)."""
    status = await db.execute(
        "UPDATE documents SET reason_code = NULL, last_error = NULL"
        " WHERE id = $1 AND version = $2 AND stage = 'submitted' AND reason_code = ANY($3::text[])",
        document_id,
        version,
        [PUBLISHING, UNPUBLISHED],
    )
    return not status.endswith(" 0")


async def pending(db: Db, in_flight_s: float = 2 * PUBLISH_TIMEOUT_S, limit: int = RELAY_BATCH) -> list[asyncpg.Record]:
    """The submissions the relay would publish now, oldest first."""
    return await db.fetch(_PENDING, in_flight_s, limit)


async def relay_once(
    db: asyncpg.Pool,
    broker: KafkaBroker,
    settings: Settings,
    timeout: float = PUBLISH_TIMEOUT_S,
    in_flight_s: float | None = None,
) -> int:
    """Publish a batch of pending submissions; returns how many were published.

    A "publishing" one is taken over only `in_flight_s` (twice the publish timeout) after it was submitted:
    before that its upload may still be publishing it. The rows stay locked (SKIP LOCKED) while they are
    published, so replicas of the search service do not publish the same ones. Raises BrokerUnavailable when
    the broker takes none; the ones published before a failure stay published.
    """
    in_flight_s = 2 * timeout if in_flight_s is None else in_flight_s
    sent = 0
    failure: BrokerUnavailable | None = None
    async with db.acquire() as conn, conn.transaction():
        for row in await conn.fetch(_PENDING + " FOR UPDATE SKIP LOCKED", in_flight_s, RELAY_BATCH):
            try:
                await publish(broker, settings, Topic.SUBMITTED, ledger.submitted_event(row), timeout)
            except BrokerUnavailable as err:
                failure = err
                break
            await mark_published(conn, row["id"], row["version"])
            sent += 1
    if failure is not None and not sent:
        raise failure
    return sent


class Relay:
    """Publishes uploads for the search service: at once when the broker takes them, later when it is back.

    One per search process (created in its lifespan). While the broker is known to be down, an upload
    does not wait for the publish timeout: it is only marked, and the relay publishes it when it can.
    """

    def __init__(
        self,
        db: asyncpg.Pool,
        broker: KafkaBroker,
        settings: Settings,
        interval_s: float = RELAY_INTERVAL_S,
        max_backoff_s: float = RELAY_MAX_BACKOFF_S,
        publish_timeout_s: float = PUBLISH_TIMEOUT_S,
    ) -> None:
        self.db = db
        self.broker = broker
        self.settings = settings
        self.interval_s = interval_s
        self.max_backoff_s = max_backoff_s
        self.publish_timeout_s = publish_timeout_s
        self.broker_down = False
        self._task: asyncio.Task[None] | None = None

    def start(self) -> "Relay":
        self._task = asyncio.create_task(self.run(), name="outbox-relay")
        return self

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None

    async def submit(self, event: DocumentSubmitted) -> bool:
        """Publish a submission the ledger holds; True when the broker took it now, False when the relay will."""
        if not self.broker_down:
            await mark(self.db, event.document_id, event.version, PUBLISHING)
            try:
                await publish(self.broker, self.settings, Topic.SUBMITTED, event, self.publish_timeout_s)
            except BrokerUnavailable as err:
                self.broker_down = True
                log.warning("broker unavailable (%s): %s waits in the outbox", err, event.document_id)
            else:
                await mark_published(self.db, event.document_id, event.version)
                return True
        await mark(self.db, event.document_id, event.version, UNPUBLISHED, "waiting for the broker to take it")
        return False

    async def send(self, queued: int) -> bool:
        """Publish an event `enqueue` put in the outbox (after its transaction committed); True when the broker
        took it now (or the relay already had), False when it waits in the outbox for the relay."""
        if not self.broker_down:
            try:
                await flush(self.db, self.broker, self.settings, self.publish_timeout_s, [queued])
            except BrokerUnavailable as err:
                self.broker_down = True
                log.warning("broker unavailable (%s): outbox event %d waits for it", err, queued)
            else:
                return True
        return False

    async def run(self) -> None:
        """Publish pending submissions and outbox events every `interval_s`, backing off while the broker or the
        database is down."""
        delay = self.interval_s
        while True:
            await asyncio.sleep(delay)
            try:
                for relay in (relay_once, flush):
                    if sent := await relay(self.db, self.broker, self.settings, self.publish_timeout_s):
                        log.info("outbox: published %d events the broker had not taken", sent)
                        self.broker_down = False  # uploads publish at once again
            except BrokerUnavailable as err:
                if not self.broker_down:
                    log.warning("outbox: broker unavailable (%s); retrying with backoff", err)
                self.broker_down = True
                delay = min(delay * 2, self.max_backoff_s)
                continue
            except Exception as err:  # noqa: BLE001 - the database may be down too: the relay must outlive it
                log.warning("outbox: cannot relay (%s); retrying with backoff", err)
                delay = min(delay * 2, self.max_backoff_s)
                continue
            delay = self.interval_s


def relay_for(state: Any) -> Relay:
    """The search app's relay (its lifespan starts one); an app run without its lifespan, as tests that set its
    state by hand do, gets one on first use that publishes at once and leaves the rest to `resume_unfinished`."""
    relay = getattr(state, "relay", None)
    if relay is None:
        relay = state.relay = Relay(state.db, state.broker, state.settings)
    return relay
