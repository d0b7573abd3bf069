"""GET /refused-messages: the messages the pipeline's consumers refused for breaking their contract
(shared/runtime/refused.py, migration 0031), for the operators who fix the producer. Nothing else in the product reads
the dead-letter topic, so a message that names no document (undecodable bytes, a JSON array, no document id) is seen
only here, on the page /ingestao and in `precedente recusadas`.

Administrators only: a refused message's document id and start are those of any document, whatever its access list."""

import uuid
from datetime import datetime
from typing import Annotated

from fastapi import APIRouter, Query
from pydantic import BaseModel, Field

from precedente.services.search.deps import AdminDep, DbDep, SettingsDep
from precedente.shared.runtime import refused

router = APIRouter(tags=["status"])


class RefusedMessage(BaseModel):
    at: datetime = Field(description="When the consumer refused it.")
    consumer: str = Field(description="The stage or consumer that refused it (extractor, indexer...).")
    topic: str = Field(description="The topic it came on (documents.submitted...).")
    reason: str = Field(description="What is wrong with it, in words.")
    message_start: str = Field(
        description="Its first bytes, quoted as a Python bytes literal (NULs and non-ASCII bytes escaped)."
    )
    document_id: uuid.UUID | None = Field(description="The document its body or key names; null: it names none.")


class RefusedMessages(BaseModel):
    total: int = Field(description="Refused messages kept, on every page.")
    kept_at_most: int = Field(description="How many are kept at most (PRECEDENTE_REFUSED_MESSAGES_KEPT): older go.")
    messages: list[RefusedMessage] = Field(description="This page of them, newest first.")


@router.get("/refused-messages", response_model=RefusedMessages)
async def refused_messages(
    db: DbDep,
    who: AdminDep,
    settings: SettingsDep,
    limit: Annotated[int, Query(ge=1, le=200)] = 50,
    offset: Annotated[int, Query(ge=0, le=1_000_000)] = 0,
) -> RefusedMessages:
    """Newest first; the dead-letter topic has each one too, under its document (the nil id when it names none)."""
    total, rows = await refused.page(db, limit, offset)
    return RefusedMessages(
        total=total,
        kept_at_most=settings.refused_messages_kept,
        messages=[
            RefusedMessage(
                at=r.at,
                consumer=r.consumer,
                topic=r.topic,
                reason=r.reason,
                message_start=r.message_start,
                document_id=r.document_id,
            )
            for r in rows
        ],
    )
