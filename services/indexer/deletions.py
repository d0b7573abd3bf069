"""documents.deleted: remove a document's chunks (its vectors live in the same rows) and stored payloads.

The indexer service consumes this topic beside documents.annotated, in a consumer group of its own
(`precedente-indexer-deletions`), so deletions never wait behind a backlog of documents to embed.
Every step is idempotent: a redelivered or repeated deletion finds nothing left to remove. A deletion
covers the versions up to the event's: a document submitted again afterwards (a new version) is kept.
Stages still working on the deleted version cannot bring it back: `ledger.advance` never moves a
deleted document, and the indexer writes chunks only for a current, not deleted, version.
"""

import logging
import uuid
from dataclasses import dataclass
from typing import Any

import asyncpg
from faststream.kafka.annotations import KafkaMessage
from pydantic import ValidationError

from precedente.services.indexer import works
from precedente.shared.contracts import DocumentDeleted, Stage, Topic
from precedente.shared.runtime import ledger, recovery
from precedente.shared.runtime.stage import StageContext, decode_or_refuse, subscriber

log = logging.getLogger(__name__)

GROUP_ID = "precedente-indexer-deletions"


@dataclass(frozen=True)
class Purged:
    documents: int  # marked deleted now (the document and its attachments); 0 when already deleted
    chunks: int
    blobs: int


async def purge(db: asyncpg.Pool, event: DocumentDeleted) -> Purged:
    """Delete the document (and the attachments that came inside it) up to `event.version`."""
    marked = chunks = blobs = 0
    async with db.acquire() as conn, conn.transaction():
        # The same row lock the indexer takes before writing chunks: one of the two goes first, entirely.
        row = await conn.fetchrow("SELECT id, version FROM documents WHERE id = $1 FOR UPDATE", event.document_id)
        if row is None:
            return Purged(0, 0, 0)
        children = await conn.fetch("SELECT id, version FROM documents WHERE parent_id = $1 FOR UPDATE", row["id"])
        covered = [(row["id"], event.version)] + [(c["id"], c["version"]) for c in children]
        for document_id, version in covered:
            detail = f"deleted ({event.source.value})" + (f": {event.reason}" if event.reason else "")
            if document_id != row["id"]:
                detail += f"; it came inside {row['id']}"
            if await ledger.mark_deleted(conn, document_id, version, detail):
                marked += 1
                await works.forget(conn, document_id)  # it must not keep holding its copies together
            chunks += _count(
                await conn.execute("DELETE FROM chunks WHERE document_id = $1 AND version <= $2", document_id, version)
            )
            await conn.execute(  # vectors an indexer persisted mid-document (migration 0015)
                "DELETE FROM computed_vectors WHERE document_id = $1 AND version <= $2", document_id, version
            )
            blobs += await _delete_stage_payloads(conn, document_id, version)
        blobs += await _delete_unreferenced_originals(conn, [document_id for document_id, _ in covered])
    return Purged(marked, chunks, blobs)


async def _delete_stage_payloads(conn: asyncpg.Connection, document_id: uuid.UUID, version: int) -> int:
    """Stage payloads are stored under documents/<id>/v<version>/<stage>.json (shared/infra/storage.py, stage_key)."""
    keys = await conn.fetch("SELECT key FROM blobs WHERE key LIKE $1", f"documents/{document_id}/v%")
    doomed = [r["key"] for r in keys if _key_version(r["key"]) is not None and _key_version(r["key"]) <= version]
    if not doomed:
        return 0
    return _count(await conn.execute("DELETE FROM blobs WHERE key = ANY($1::text[])", doomed))


def _key_version(key: str) -> int | None:
    part = key.split("/")[2] if key.count("/") >= 3 else ""
    return int(part[1:]) if part.startswith("v") and part[1:].isdigit() else None


async def _delete_unreferenced_originals(conn: asyncpg.Connection, document_ids: list[uuid.UUID]) -> int:
    """An original is stored once per content hash: keep it while a live document still points at it."""
    status = await conn.execute(
        """
        DELETE FROM blobs b
        WHERE b.key IN (SELECT blob_key FROM documents WHERE id = ANY($1::uuid[]) AND stage = 'deleted')
          AND NOT EXISTS (SELECT 1 FROM documents d WHERE d.blob_key = b.key AND d.stage <> 'deleted')
        """,
        document_ids,
    )
    return _count(status)


def _count(status: str) -> int:
    return int(status.rsplit(" ", 1)[-1]) if status and status.rsplit(" ", 1)[-1].isdigit() else 0


async def handle_deleted(ctx: StageContext, body: dict[str, Any]) -> Purged | None:
    try:
        event = DocumentDeleted.model_validate(body)
    except ValidationError as err:
        log.error("indexer: dropping a documents.deleted message that breaks its contract: %s", err.errors()[:3])
        return None
    purged = await purge(ctx.db, event)
    log.info(
        "indexer: deleted %s up to v%s: %d ledger rows, %d chunks, %d blobs",
        event.document_id,
        event.version,
        purged.documents,
        purged.chunks,
        purged.blobs,
    )
    if purged.chunks and (refresher := ctx.state.get("statistics")):
        refresher.written()  # BM25 statistics count the remaining chunks
    return purged


def subscribe(ctx: StageContext) -> None:
    """Add the documents.deleted consumer to the indexer's broker (called before the broker starts)."""

    @subscriber(ctx.broker, ctx.settings, Topic.DELETED, GROUP_ID, raw=True)
    async def on_deleted(raw: bytes, message: KafkaMessage) -> None:
        key = message.raw_message.key
        event = await decode_or_refuse(ctx, "indexer", Topic.DELETED, DocumentDeleted, Stage.DELETED, raw, key)
        if event is None:  # dead-lettered with its reason
            return
        body = event.model_dump(mode="json")
        await recovery.outlasting_outages(ctx.db, ctx.broker, lambda: handle_deleted(ctx, body), "indexer: a deletion")
