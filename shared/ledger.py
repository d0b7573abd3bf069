"""The document ledger: every document's current stage, version, attempts and errors.

The broker only moves work; this table is what survives a broker restart. A stage moves a
document forward only for the version it was asked to process, so a stale or redelivered event
can never overwrite a newer version's state.
"""

import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import asyncpg

from shared.contracts import (
    TERMINAL_STAGES,
    DocumentAnnotated,
    DocumentChunked,
    DocumentCleaned,
    DocumentExtracted,
    DocumentSubmitted,
    Event,
    MetadataHints,
    Source,
    Stage,
    Topic,
)
from shared.storage import original_key, stage_key

PIPELINE_ORDER = [Stage.SUBMITTED, Stage.EXTRACTED, Stage.CLEANED, Stage.CHUNKED, Stage.ANNOTATED, Stage.INDEXED]

Db = asyncpg.Pool | asyncpg.Connection


@dataclass(frozen=True)
class Submission:
    """What the ledger decided about an incoming file."""

    document_id: uuid.UUID
    outcome: str  # "new", "new_version", "unchanged", "duplicate", "retry"
    event: DocumentSubmitted | None


async def register_submission(
    db: asyncpg.Pool,
    *,
    external_id: str,
    filename: str,
    content_type: str | None,
    content_hash: str,
    size_bytes: int,
    source: Source,
    access_groups: list[str],
    hints: MetadataHints,
    parent_id: uuid.UUID | None = None,
) -> Submission:
    """Decide whether a file is new, a new version of a known document, or something we already have."""
    access_groups = sorted(set(access_groups))
    async with db.acquire() as conn, conn.transaction():
        await conn.execute("SELECT pg_advisory_xact_lock(hashtext($1))", external_id)
        row = await conn.fetchrow("SELECT * FROM documents WHERE external_id = $1 FOR UPDATE", external_id)
        if row is None:
            # The same content under the same access list is the same document; under another access
            # list it is another document (its id must not reveal, nor depend on, one the caller may not see).
            twin = await conn.fetchval(
                "SELECT id FROM documents WHERE content_hash = $1 AND access_groups = $2 ORDER BY created_at LIMIT 1",
                content_hash,
                access_groups,
            )
            if twin is not None:
                return Submission(twin, "duplicate", None)
            document_id, version, outcome = uuid.uuid4(), 1, "new"
        elif row["content_hash"] == content_hash and row["stage"] != Stage.FAILED:
            return Submission(row["id"], "unchanged", None)
        else:
            document_id = row["id"]
            retry = row["content_hash"] == content_hash
            version = row["version"] if retry else row["version"] + 1
            outcome = "retry" if retry else "new_version"
        event = DocumentSubmitted(
            document_id=document_id,
            version=version,
            blob_key=original_key(content_hash),
            filename=filename,
            content_type=content_type,
            content_hash=content_hash,
            size_bytes=size_bytes,
            source=source,
            access_groups=access_groups,
            hints=hints,
            parent_document_id=parent_id,
        )
        await conn.execute(
            """
            INSERT INTO documents (id, external_id, filename, content_type, content_hash, size_bytes, version,
                                   source, access_groups, hints, blob_key, stage, trace_id, parent_id)
            VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, 'submitted', $12, $13)
            ON CONFLICT (id) DO UPDATE SET
                filename = EXCLUDED.filename, content_type = EXCLUDED.content_type,
                content_hash = EXCLUDED.content_hash, size_bytes = EXCLUDED.size_bytes,
                version = EXCLUDED.version, source = EXCLUDED.source, access_groups = EXCLUDED.access_groups,
                hints = EXCLUDED.hints, blob_key = EXCLUDED.blob_key, stage = 'submitted', attempts = 0,
                last_error = NULL, trace_id = EXCLUDED.trace_id, weak_pages = '{}', updated_at = now()
            """,
            document_id,
            external_id,
            filename,
            content_type,
            content_hash,
            size_bytes,
            version,
            source.value,
            access_groups,
            hints.model_dump(mode="json", exclude_none=True),
            event.blob_key,
            event.trace_id,
            parent_id,
        )
        await _history(conn, document_id, version, Stage.SUBMITTED, outcome)
        return Submission(document_id, outcome, event)


async def accept_external_submission(db: Db, event: DocumentSubmitted) -> bool:
    """A DMS published documents.submitted directly: make sure the ledger knows the document.

    Returns False when the ledger already holds a newer version (the event is stale).
    """
    current = await db.fetchrow("SELECT version FROM documents WHERE id = $1", event.document_id)
    if current is not None:
        return current["version"] <= event.version
    await db.execute(
        """
        INSERT INTO documents (id, external_id, filename, content_type, content_hash, size_bytes, version,
                               source, access_groups, hints, blob_key, stage, trace_id, parent_id)
        VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, 'submitted', $12, $13)
        ON CONFLICT (id) DO NOTHING
        """,
        event.document_id,
        f"{event.source.value}:{event.document_id}",
        event.filename,
        event.content_type,
        event.content_hash,
        event.size_bytes,
        event.version,
        event.source.value,
        event.access_groups,
        event.hints.model_dump(mode="json", exclude_none=True),
        event.blob_key,
        event.trace_id,
        event.parent_document_id,
    )
    return True


async def current(db: Db, document_id: uuid.UUID) -> asyncpg.Record | None:
    return await db.fetchrow("SELECT * FROM documents WHERE id = $1", document_id)


def is_stale_or_done(row: asyncpg.Record | None, event: Event, input_stage: Stage, output_stage: Stage) -> bool:
    """True when this stage must not act: unknown document, newer version, or already past its output.

    A document still at the stage's own output is processed again: the stage may have died after
    recording its result but before publishing the next event.
    """
    if row is None or row["version"] != event.version:
        return True
    stage = Stage(row["stage"])
    if stage in (input_stage, output_stage):
        return False
    if stage in TERMINAL_STAGES:
        return True
    return PIPELINE_ORDER.index(stage) > PIPELINE_ORDER.index(output_stage)


async def advance(db: Db, event: Event, stage: Stage, detail: str | None = None, **fields: Any) -> bool:
    """Record that `event`'s version reached `stage`; False when a newer version took over."""
    fields = {"attempts": 0, "last_error": None, "halted_in": None, "reason_code": None} | fields
    assignments = "".join(f", {name} = ${i}" for i, name in enumerate(fields, start=4))
    status = await db.execute(
        f"UPDATE documents SET stage = $3, updated_at = now(){assignments} WHERE id = $1 AND version = $2",
        event.document_id,
        event.version,
        stage.value,
        *fields.values(),
    )
    if status.endswith(" 0"):
        return False
    await _history(db, event.document_id, event.version, stage, detail)
    return True


async def record_attempt_failure(db: Db, event: Event, error: str) -> int:
    attempts = await db.fetchval(
        "UPDATE documents SET attempts = attempts + 1, last_error = $3, updated_at = now()"
        " WHERE id = $1 AND version = $2 RETURNING attempts",
        event.document_id,
        event.version,
        error,
    )
    return int(attempts or 0)


async def _history(db: Db, document_id: uuid.UUID, version: int, stage: Stage, detail: str | None) -> None:
    await db.execute(
        "INSERT INTO document_history (document_id, version, stage, detail) VALUES ($1, $2, $3, $4)",
        document_id,
        version,
        stage.value,
        detail,
    )


def submitted_event(row: Mapping[str, Any]) -> DocumentSubmitted:
    """The documents.submitted event that starts the document's current version over."""
    return DocumentSubmitted(
        document_id=row["id"],
        version=row["version"],
        trace_id=row["trace_id"],
        blob_key=row["blob_key"],
        filename=row["filename"],
        content_type=row["content_type"],
        content_hash=row["content_hash"],
        size_bytes=row["size_bytes"],
        source=Source(row["source"]),
        access_groups=list(row["access_groups"]),
        hints=MetadataHints.model_validate(row["hints"]),
        parent_document_id=row.get("parent_id"),
    )


def resume_event(row: Mapping[str, Any]) -> tuple[Topic, Event] | None:
    """The event that moves an unfinished document on from its last durable stage."""
    common = {"document_id": row["id"], "version": row["version"], "trace_id": row["trace_id"]}
    stage = Stage(row["stage"])
    if stage == Stage.SUBMITTED:
        return Topic.SUBMITTED, submitted_event(row)
    if stage == Stage.EXTRACTED:
        return Topic.EXTRACTED, DocumentExtracted(
            **common,
            pages_key=stage_key(row["id"], row["version"], Stage.EXTRACTED),
            page_count=row["page_count"] or 0,
            ocr_pages=list(row["ocr_pages"]),
            confidence=row["ocr_confidence"] if row["ocr_confidence"] is not None else 1.0,
        )
    if stage == Stage.CLEANED:
        return Topic.CLEANED, DocumentCleaned(**common, pages_key=stage_key(row["id"], row["version"], stage))
    if stage in (Stage.CHUNKED, Stage.ANNOTATED):
        model = DocumentChunked if stage == Stage.CHUNKED else DocumentAnnotated
        topic = Topic.CHUNKED if stage == Stage.CHUNKED else Topic.ANNOTATED
        return topic, model(
            **common, chunks_key=stage_key(row["id"], row["version"], stage), chunk_count=row["chunk_count"] or 0
        )
    return None


async def unfinished(db: Db) -> list[asyncpg.Record]:
    return await db.fetch(
        "SELECT * FROM documents WHERE stage <> ALL($1::text[]) ORDER BY updated_at",
        [s.value for s in TERMINAL_STAGES],
    )
