"""documents.access_changed: apply a document's new allow and deny lists to the ledger and to every chunk.

The indexer consumes this topic beside documents.annotated, in a consumer group of its own
(`precedente-indexer-access`), so a new ethical wall never waits behind a backlog of documents to embed. A DMS publishes
the event directly; `PUT /documents/{id}/access` applies the change itself and publishes the event for others, and here
it changes nothing again. Changes apply in `changed_at` order (shared/runtime/ledger.py `change_access`): a redelivered
or overtaken event is ignored."""

import asyncio
import logging
from typing import Any

from faststream.kafka.annotations import KafkaMessage
from pydantic import ValidationError

from precedente.shared.contracts import DocumentAccessChanged, Stage, Topic
from precedente.shared.runtime import ledger, recovery
from precedente.shared.runtime.stage import StageContext, decode_or_refuse, subscriber

log = logging.getLogger(__name__)

GROUP_ID = "precedente-indexer-access"
# A DMS may publish the change right after documents.submitted, before the ledger knows the document (the
# extractor registers it): wait for it a little before giving up.
UNKNOWN_RETRY_DELAYS_S = (0.5, 1.0, 2.0, 4.0, 8.0, 16.0)


async def handle_access_changed(
    ctx: StageContext, body: dict[str, Any], retry_delays_s: tuple[float, ...] = UNKNOWN_RETRY_DELAYS_S
) -> ledger.AccessChange | None:
    try:
        event = DocumentAccessChanged.model_validate(body)
    except ValidationError as err:
        log.error("indexer: dropping a documents.access_changed message that breaks its contract: %s", err.errors()[:3])
        return None
    result = await ledger.change_access(ctx.db, event)
    for delay in retry_delays_s:
        if result.outcome != "missing":
            break
        await asyncio.sleep(delay)
        result = await ledger.change_access(ctx.db, event)
    if result.outcome == "missing":
        log.error("indexer: access change for unknown document %s dropped", event.document_id)
    else:
        log.info(
            "indexer: access of %s %s: allow %s, deny %s (%d documents, %d chunks)",
            event.document_id,
            result.outcome,
            result.access_groups,
            result.deny_groups,
            len(result.document_ids),
            result.chunks,
        )
    return result


def subscribe(ctx: StageContext) -> None:
    """Add the documents.access_changed consumer to the indexer's broker (called before the broker starts)."""

    @subscriber(ctx.broker, ctx.settings, Topic.ACCESS_CHANGED, GROUP_ID, raw=True)
    async def on_access_changed(raw: bytes, message: KafkaMessage) -> None:
        key = message.raw_message.key
        topic, model = Topic.ACCESS_CHANGED, DocumentAccessChanged
        event = await decode_or_refuse(ctx, "indexer", topic, model, Stage.INDEXED, raw, key)
        if event is None:  # dead-lettered with its reason
            return
        body = event.model_dump(mode="json")
        await recovery.outlasting_outages(
            ctx.db, ctx.broker, lambda: handle_access_changed(ctx, body), "indexer: an access change"
        )
