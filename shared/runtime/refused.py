"""The record of refused messages (migration 0031): every message a consumer refused for breaking its contract,
with or without a document id, where a person reads it (GET /refused-messages, /ingestao, `precedente
recusadas`). Nothing in the product reads the dead-letter topic, so a message naming no document was seen by
nobody without a Kafka tool.

Bounded: each write deletes the rows more than `kept` behind it in the same statement, so a flood of malformed
messages keeps at most `kept` rows (the dead-letter topic still has every one)."""

import json
import uuid
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import asyncpg

Db = asyncpg.Pool | asyncpg.Connection

START_BYTES = 200
"""How much of a message is quoted: enough to recognise the producer's mistake, never the whole 4 MB body."""

REASON_CHARS = 4000


@dataclass(frozen=True)
class RefusedMessage:
    id: int
    at: datetime
    consumer: str
    topic: str
    reason: str
    message_start: str
    document_id: uuid.UUID | None


def quoted_start(raw: bytes | dict[str, Any] | None, body: Any = None) -> str:
    """The message's first bytes as Python writes a bytes literal (NULs, control and non-ASCII bytes escaped:
    text any column holds, and what the producer sent, byte for byte); a decoded message as its JSON."""
    if isinstance(raw, bytes | bytearray):
        clipped = bytes(raw[:START_BYTES])
        return repr(clipped) + (f" … ({len(raw)} bytes)" if len(raw) > START_BYTES else "")
    source = raw if raw is not None else body
    try:
        text = json.dumps(source, ensure_ascii=True, default=str)
    except (ValueError, TypeError, RecursionError):
        text = repr(source)
    clipped_text = text[:START_BYTES]
    return repr(clipped_text) + (f" … ({len(text)} characters)" if len(text) > START_BYTES else "")


async def record(
    db: Db,
    kept: int,
    consumer: str,
    topic: str,
    reason: str,
    message_start: str,
    document_id: uuid.UUID | None,
) -> None:
    """One refused message, and the oldest rows past the newest `kept` deleted in the same statement. Ids are
    handed out in order, so `id <= new id - kept` leaves at most `kept` rows (fewer only after a failed insert)."""
    await db.execute(
        "WITH added AS (INSERT INTO refused_messages (consumer, topic, reason, message_start, document_id)"
        " VALUES ($2, $3, $4, $5, $6) RETURNING id)"
        " DELETE FROM refused_messages WHERE id <= (SELECT id FROM added) - $1",
        max(kept, 1),
        consumer[:200],
        topic[:200],
        reason[:REASON_CHARS].replace("\x00", "\\x00"),
        message_start[:1000].replace("\x00", "\\x00"),
        document_id,
    )


async def page(db: Db, limit: int, offset: int) -> tuple[int, list[RefusedMessage]]:
    """How many are kept, and `limit` of them from `offset`, newest first."""
    total = await db.fetchval("SELECT count(*) FROM refused_messages")
    rows = await db.fetch(
        "SELECT id, at, consumer, topic, reason, message_start, document_id FROM refused_messages"
        " ORDER BY id DESC LIMIT $1 OFFSET $2",
        limit,
        offset,
    )
    return int(total), [RefusedMessage(**dict(row)) for row in rows]
