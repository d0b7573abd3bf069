"""Resume after a crash or a broker restart: the ledger, not the broker, says what is unfinished."""

import logging

from shared import ledger
from shared.broker import make_broker, publish
from shared.contracts import Topic
from shared.db import create_pool
from shared.settings import Settings

log = logging.getLogger(__name__)


async def resume_unfinished(settings: Settings) -> int:
    """Re-publish, for every unfinished document, the event of its last durable stage, and the deletion
    of every deleted document whose chunks are still there."""
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
            await publish(broker, settings, topic, event)
            resumed += 1
        for deletion in await ledger.unpurged_deletions(pool):
            await publish(broker, settings, Topic.DELETED, deletion)
            resumed += 1
    finally:
        await broker.stop()
        await pool.close()
    if resumed:
        log.info("resumed %d unfinished documents from the ledger", resumed)
    return resumed
