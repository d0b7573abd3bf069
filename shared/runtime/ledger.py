"""The document ledger: every document's current stage, version, attempts and errors.

The broker only moves work; this table is what survives a broker restart. A stage moves a
document forward only for the version it was asked to process, so a stale or redelivered event
can never overwrite a newer version's state.
"""

import uuid
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any

import asyncpg

from precedente.shared.contracts import (
    EVENT_BY_TOPIC,
    TERMINAL_STAGES,
    DocumentAccessChanged,
    DocumentDeleted,
    DocumentSubmitted,
    Event,
    MetadataHints,
    Source,
    Stage,
    Topic,
)
from precedente.shared.infra.storage import original_key, stage_key
from precedente.shared.runtime import pipeline

Db = asyncpg.Pool | asyncpg.Connection


@dataclass(frozen=True)
class Submission:
    """What the ledger decided about an incoming file."""

    document_id: uuid.UUID
    outcome: str  # "new", "new_version", "unchanged", "duplicate", "retry"; "forbidden" for an anonymous outsider
    event: DocumentSubmitted | None
    # For "unchanged": the document's access lists in force, kept whatever the upload asked for.
    access_groups: list[str] | None = None
    deny_groups: list[str] | None = None


def outsiders_external_id(external_id: str, submitted_by: str) -> str:
    """The external id an upload gets when its own names a document behind the caller's wall: the same one
    for the same caller every time (a second upload is "unchanged", as anyone's would be)."""
    return f"{external_id}#from:{submitted_by}"


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
    deny_groups: list[str] | None = None,
    submitted_by: str | None = None,
    caller_groups: list[str] | None = None,
) -> Submission:
    """Decide whether a file is new, a new version of a known document, or something we already have.

    With `caller_groups`, an external id (or, without one, the bytes: their hash is the default external id)
    of a document the caller may neither see nor has submitted is not that document's: the upload becomes the
    caller's own document under an external id scoped to them, exactly as a new upload would, so an
    external id can neither overwrite a document and its access lists from outside its wall nor tell the
    caller that something lies behind it."""
    access_groups = sorted(set(access_groups))
    deny_groups = sorted(set(deny_groups or []))
    async with db.acquire() as conn, conn.transaction():
        row = None
        for scoped in (False, True):
            if scoped:
                external_id = outsiders_external_id(external_id, submitted_by or "")
            await conn.execute("SELECT pg_advisory_xact_lock(hashtext($1))", external_id)
            row = await conn.fetchrow(
                "SELECT *, public.precedente_visible(access_groups, deny_groups, $2::text[]) AS visible"
                " FROM documents WHERE external_id = $1 FOR UPDATE",
                external_id,
                caller_groups or [],
            )
            outsider = row is not None and caller_groups is not None and not row["visible"]
            if not outsider or (submitted_by is not None and row["submitted_by"] == submitted_by):
                break
        else:  # only a caller with groups but no name (no API caller) ends here
            return Submission(row["id"], "forbidden", None)
        if row is None:
            # The same content under the same access list (allow and deny) is the same document; under
            # another it is another document (its id must not reveal, nor depend on, one the caller may not see).
            # Only a twin the caller may see or submitted: one behind their wall is not named to them (its id
            # answered to an outsider who guessed its bytes and its groups once told them it exists).
            twin = await conn.fetchval(
                "SELECT id FROM documents WHERE content_hash = $1 AND access_groups = $2 AND deny_groups = $3"
                " AND stage <> 'deleted' AND ($4::text[] IS NULL"
                " OR public.precedente_visible(access_groups, deny_groups, $4::text[]) OR submitted_by = $5)"
                " ORDER BY created_at LIMIT 1",
                content_hash,
                access_groups,
                deny_groups,
                caller_groups,
                submitted_by,
            )
            if twin is not None:
                return Submission(twin, "duplicate", None)
            document_id, version, outcome = uuid.uuid4(), 1, "new"
        elif row["content_hash"] == content_hash and row["stage"] not in (Stage.FAILED, Stage.DELETED):
            # The same bytes again: nothing is redone, and the access lists stay as they are even when these
            # differ (an upload is not an access change: PUT /documents/{id}/access is); the answer says so.
            return Submission(row["id"], "unchanged", None, list(row["access_groups"]), list(row["deny_groups"]))
        else:
            document_id = row["id"]
            # A deleted document submitted again comes back as a new version: the deletion (of its older
            # version) may still be on its way, and must not remove the new one.
            retry = row["content_hash"] == content_hash and row["stage"] != Stage.DELETED
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
            deny_groups=deny_groups,
            hints=hints,
            parent_document_id=parent_id,
        )
        await conn.execute(
            """
            INSERT INTO documents (id, external_id, filename, content_type, content_hash, size_bytes, version,
                                   source, access_groups, hints, blob_key, stage, trace_id, parent_id, deny_groups,
                                   submitted_by)
            VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, 'submitted', $12, $13, $14, $15)
            ON CONFLICT (id) DO UPDATE SET submitted_by = EXCLUDED.submitted_by,
                filename = EXCLUDED.filename, content_type = EXCLUDED.content_type,
                content_hash = EXCLUDED.content_hash, size_bytes = EXCLUDED.size_bytes,
                version = EXCLUDED.version, source = EXCLUDED.source, access_groups = EXCLUDED.access_groups,
                deny_groups = EXCLUDED.deny_groups, hints = EXCLUDED.hints, blob_key = EXCLUDED.blob_key,
                stage = 'submitted', attempts = 0,
                last_error = NULL, trace_id = EXCLUDED.trace_id, weak_pages = '{}', unread_pages = '{}',
                unread_reason = NULL, updated_at = now()
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
            deny_groups,
            submitted_by,
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
                               source, access_groups, hints, blob_key, stage, trace_id, parent_id, deny_groups)
        VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, 'submitted', $12, $13, $14)
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
        sorted(set(event.deny_groups)),
    )
    return True


@dataclass(frozen=True)
class AccessChange:
    """What `change_access` did: the documents it changed (the document and its attachments), or why not."""

    outcome: str  # "changed", "stale" (a newer change was applied already), "missing" (unknown or hidden)
    document_ids: list[uuid.UUID]
    chunks: int
    access_groups: list[str]
    deny_groups: list[str]


async def change_access(
    db: asyncpg.Pool,
    event: DocumentAccessChanged,
    caller_groups: list[str] | None = None,
    announce: Callable[[asyncpg.Connection, int], Awaitable[object]] | None = None,
) -> AccessChange:
    """Set the document's access lists, and its attachments', on the ledger and on every chunk, in one transaction.

    Search reads the chunks' copy, so the change holds from the next query on. The document's row lock is the
    one the indexer takes before it copies the lists to new chunks: whichever goes second sees the other's
    work. With `caller_groups`, the document must be visible to them ("missing" otherwise, as if unknown).
    Changes apply in `changed_at` order: one not newer than the latest applied is "stale" and changes nothing,
    so a redelivered event, or the event of a change the API applied already, is harmless. `announce(conn,
    version)` runs inside the same transaction once the change is made (the API queues its event there).
    """
    access_groups = sorted(set(event.access_groups))
    deny_groups = sorted(set(event.deny_groups))
    async with db.acquire() as conn, conn.transaction():
        visible = "" if caller_groups is None else " AND public.precedente_visible(access_groups, deny_groups, $2)"
        row = await conn.fetchrow(
            f"SELECT id, version, access_changed_at FROM documents WHERE id = $1{visible} FOR UPDATE",
            event.document_id,
            *([] if caller_groups is None else [caller_groups]),
        )
        if row is None:
            return AccessChange("missing", [], 0, access_groups, deny_groups)
        if row["access_changed_at"] is not None and event.changed_at <= row["access_changed_at"]:
            return AccessChange("stale", [], 0, access_groups, deny_groups)
        # An e-mail's attachments carry the message's access list: a wall around the message covers them too.
        before = await conn.fetch(
            "SELECT id, version, access_groups, deny_groups FROM documents WHERE id = $1 OR parent_id = $1"
            " ORDER BY id FOR UPDATE",
            event.document_id,
        )
        ids = [r["id"] for r in before]
        await conn.execute(
            "UPDATE documents SET access_groups = $2, deny_groups = $3, access_changed_at = $4"
            " WHERE id = ANY($1::uuid[])",
            ids,
            access_groups,
            deny_groups,
            event.changed_at,
        )
        status = await conn.execute(
            "UPDATE chunks SET access_groups = $2, deny_groups = $3 WHERE document_id = ANY($1::uuid[])",
            ids,
            access_groups,
            deny_groups,
        )
        await conn.executemany(
            "INSERT INTO document_access_changes (document_id, version, access_groups, deny_groups,"
            " previous_access, previous_deny, actor, source, changed_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)",
            [
                (
                    r["id"],
                    r["version"],
                    access_groups,
                    deny_groups,
                    list(r["access_groups"]),
                    list(r["deny_groups"]),
                    event.changed_by or "unknown",
                    event.source.value,
                    event.changed_at,
                )  # fmt: skip
                for r in before
            ],
        )
        if announce is not None:
            await announce(conn, row["version"])
    chunks = int(status.rsplit(" ", 1)[-1]) if status.rsplit(" ", 1)[-1].isdigit() else 0
    return AccessChange("changed", ids, chunks, access_groups, deny_groups)


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
    return pipeline.ledger_position(stage) > pipeline.ledger_position(output_stage)


async def advance(db: Db, event: Event, stage: Stage, detail: str | None = None, **fields: Any) -> bool:
    """Record that `event`'s version reached `stage`; False when a newer version took over or the
    document was deleted meanwhile."""
    fields = {"attempts": 0, "last_error": None, "halted_in": None, "reason_code": None} | fields
    assignments = "".join(f", {name} = ${i}" for i, name in enumerate(fields, start=5))
    # One statement: nobody ever reads the new stage without its history entry (a status page, a test).
    status = await db.execute(
        f"WITH moved AS (UPDATE documents SET stage = $3, updated_at = now(){assignments}"
        " WHERE id = $1 AND version = $2 AND stage <> 'deleted'"  # a deletion wins over any stage in flight
        " RETURNING id)"
        " INSERT INTO document_history (document_id, version, stage, detail) SELECT id, $2, $3, $4 FROM moved",
        event.document_id,
        event.version,
        stage.value,
        detail,
        *fields.values(),
    )
    return not status.endswith(" 0")


async def mark_deleted(db: Db, document_id: uuid.UUID, version: int, detail: str | None = None) -> bool:
    """Mark the document deleted if `version` is still its current one; False when it already was
    deleted, or a newer version was submitted since (that version is not covered by the deletion)."""
    status = await db.execute(
        "UPDATE documents SET stage = 'deleted', attempts = 0, last_error = NULL, halted_in = NULL,"
        " reason_code = NULL, updated_at = now() WHERE id = $1 AND version <= $2 AND stage <> 'deleted'",
        document_id,
        version,
    )
    if status.endswith(" 0"):
        return False
    await _history(db, document_id, version, Stage.DELETED, detail)
    return True


async def note_refused(db: Db, document_id: uuid.UUID, detail: str) -> bool:
    """Put a refused message about a known document in its history, at its current stage and version (its state
    is untouched: a message that breaks its contract is not trusted to change it); False for an unknown id."""
    status = await db.execute(
        "INSERT INTO document_history (document_id, version, stage, detail)"
        " SELECT id, version, stage, $2 FROM documents WHERE id = $1",
        document_id,
        detail[:2000].replace("\x00", "\\x00"),  # a refused message's key may hold one; text cannot
    )
    return not status.endswith(" 0")


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
        deny_groups=list(row.get("deny_groups") or []),
        hints=MetadataHints.model_validate(row["hints"]),
        parent_document_id=row.get("parent_id"),
    )


def resume_event(row: Mapping[str, Any]) -> tuple[Topic, Event] | None:
    """The event that moves an unfinished document on from its last durable stage: the input of the
    pipeline stage that consumes that ledger stage (None when none does), rebuilt from the ledger row."""
    stage = Stage(row["stage"])
    step = pipeline.consuming(stage)
    if step is None:
        return None
    if stage == Stage.SUBMITTED:
        return step.input_topic, submitted_event(row)
    key = stage_key(row["id"], row["version"], stage)
    fields: dict[str, Any]
    if stage == Stage.EXTRACTED:
        fields = {
            "pages_key": key,
            "page_count": row["page_count"] or 0,
            "ocr_pages": list(row["ocr_pages"]),
            "confidence": row["ocr_confidence"] if row["ocr_confidence"] is not None else 1.0,
        }
    elif stage == Stage.CLEANED:
        fields = {"pages_key": key}
    elif stage in (Stage.CHUNKED, Stage.ANNOTATED):
        fields = {"chunks_key": key, "chunk_count": row["chunk_count"] or 0}
    else:
        return None
    model = EVENT_BY_TOPIC[step.input_topic]
    return step.input_topic, model(document_id=row["id"], version=row["version"], trace_id=row["trace_id"], **fields)


async def unfinished(db: Db) -> list[asyncpg.Record]:
    return await db.fetch(
        "SELECT * FROM documents WHERE stage <> ALL($1::text[]) ORDER BY updated_at",
        [s.value for s in TERMINAL_STAGES],
    )


async def unpurged_deletions(db: Db) -> list[DocumentDeleted]:
    """Deleted documents whose chunks are still there (the deletion event was lost): delete them again."""
    rows = await db.fetch(
        "SELECT d.id, d.version FROM documents d WHERE d.stage = 'deleted'"
        " AND EXISTS (SELECT 1 FROM chunks c WHERE c.document_id = d.id AND c.version <= d.version)"
    )
    return [
        DocumentDeleted(document_id=r["id"], version=r["version"], reason="resumed: chunks were left") for r in rows
    ]
