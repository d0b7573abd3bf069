"""Resume after a crash or a broker restart: the ledger, not the broker, says what is unfinished.

Also what tells an outage of the database or the broker from a failure of the work itself: a stage waits out an outage
(shared/runtime/stage.py) instead of counting it against the document it was processing."""

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import TypeVar

import asyncpg
from faststream.kafka import KafkaBroker

from precedente.shared.contracts import Event, Topic
from precedente.shared.infra.db import create_pool
from precedente.shared.runtime import ledger, outbox
from precedente.shared.runtime.broker import BrokerUnavailable, make_broker, publish
from precedente.shared.settings import Settings

log = logging.getLogger(__name__)

PROBE_TIMEOUT_S = 5.0
T = TypeVar("T")

# Errors that only a lost or refused database connection raises, never the data a query was given.
CONNECTION_LOST: tuple[type[Exception], ...] = (
    asyncpg.PostgresConnectionError,  # SQLSTATE class 08, and "connection was closed in the middle of operation"
    asyncpg.exceptions.CannotConnectNowError,  # starting up or shutting down
    asyncpg.exceptions.AdminShutdownError,  # pg_ctl stop -m fast
    asyncpg.exceptions.CrashShutdownError,
)


def describe(err: BaseException) -> str:
    """The error as "Type: message", the type once (aiokafka puts it in its errors' messages already)."""
    text = str(err)
    return text if text.startswith(type(err).__name__) else f"{type(err).__name__}: {text}".rstrip(": ")


async def database_problem(db: asyncpg.Pool, timeout: float = PROBE_TIMEOUT_S) -> str | None:
    """Why the database does not answer `SELECT 1` within `timeout`, or None when it does."""
    try:
        await asyncio.wait_for(db.fetchval("SELECT 1"), timeout)
    except TimeoutError:
        return f"database unavailable: no answer within {timeout:.0f} s"
    except (OSError, asyncpg.PostgresError, asyncpg.InterfaceError) as err:
        return f"database unavailable: {describe(err)}"
    return None


async def infrastructure_down(err: BaseException, db: asyncpg.Pool) -> bool:
    """True when `err` says the database or the broker is unreachable rather than that the work failed.

    Decided by the error when only an outage raises it, and otherwise by asking the database: an error
    raised while the database does not answer is the outage's, not the document's.
    """
    if isinstance(err, (BrokerUnavailable, *CONNECTION_LOST)):
        return True
    return await database_problem(db) is not None


async def outlasting_outages(
    db: asyncpg.Pool, broker: KafkaBroker | None, work: Callable[[], Awaitable[T]], what: str
) -> T:
    """Run `work`, and again after the database and the broker answer, for as long as it fails because one of
    them is down: a consumer that is not a stage (the indexer's deletions and access changes) must not drop
    an event it received during an outage. Any other error is raised."""
    while True:
        try:
            return await work()
        except Exception as err:  # noqa: BLE001 - sorted right below: an outage is waited out, the rest raised
            if not await infrastructure_down(err, db):
                raise
            log.warning("%s waits for the database and the broker (%s)", what, describe(err))
            await wait_until_reachable(db, broker)


async def wait_until_reachable(
    db: asyncpg.Pool, broker: KafkaBroker | None, first_delay_s: float = 0.5, max_delay_s: float = 5.0
) -> float:
    """Wait, probing with exponential backoff, until the database and the broker answer; returns seconds waited."""
    waited, delay = 0.0, first_delay_s
    while True:
        problem = await database_problem(db)
        if problem is None and broker is not None and not await broker.ping(PROBE_TIMEOUT_S):
            problem = "broker unavailable"
        if problem is None:
            return waited
        await asyncio.sleep(delay)
        waited += delay
        delay = min(delay * 2, max_delay_s)


async def _publish_patiently(
    broker: KafkaBroker, settings: Settings, topic: Topic, event: Event, tries: int = 3
) -> None:
    """A Tansu just started may refuse the first events on topics it just created (UNKNOWN_SERVER_ERROR): the
    next try gets through."""
    for attempt in range(tries):
        try:
            await publish(broker, settings, topic, event)
            return
        except BrokerUnavailable as err:
            if attempt == tries - 1:
                raise
            log.info("publishing again after %s", describe(err))
            await asyncio.sleep(1)


async def resume_unfinished(settings: Settings) -> int:
    """Re-publish, for every unfinished document, the event of its last durable stage, and the deletion
    of every deleted document whose chunks are still there. Submissions waiting in the upload outbox
    are among them: their marks are cleared once published."""
    pool = await create_pool(settings.database_url)
    broker = make_broker(settings)
    await broker.start()
    resumed = 0
    try:
        for row in await ledger.unfinished(pool):
            found = ledger.resume_event(row)
            if found is None:
                continue
            topic, event = found
            await _publish_patiently(broker, settings, topic, event)
            if topic == Topic.SUBMITTED and row["reason_code"] in (outbox.PUBLISHING, outbox.UNPUBLISHED):
                await outbox.mark_published(pool, row["id"], row["version"])
            resumed += 1
        for deletion in await ledger.unpurged_deletions(pool):
            await _publish_patiently(broker, settings, Topic.DELETED, deletion)
            resumed += 1
    finally:
        await broker.stop()
        await pool.close()
    if resumed:
        log.info("resumed %d unfinished documents from the ledger", resumed)
    return resumed
