"""The review queue's SQL: the documents a stage held back, and what reviewers did about each."""

import uuid
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from precedente.services.search.store.documents import ACCESS_CLAUSE, Db, Document
from precedente.shared.contracts import Stage

UNREAD_CLAUSE = "(stage = 'indexed' AND unread_pages <> '{}')"
"""Indexed without a few weak OCR pages (services/extractor/policy.py): searchable, and still a reviewer's to read."""

QUEUE_CLAUSE = f"(stage = 'review' OR (stage = 'failed' AND halted_in = 'extractor') OR {UNREAD_CLAUSE})"

UNREAD_CODE = "unread_pages"
QUEUE_CODE = f"(CASE WHEN {UNREAD_CLAUSE} THEN '{UNREAD_CODE}' ELSE reason_code END)"
"""The queue's reason code: the ledger's, or "unread_pages" for an indexed document (whose reason_code is cleared
by each stage it passes)."""


@dataclass(frozen=True)
class RecordedAction:
    action: str
    actor: str
    detail: dict[str, Any]
    at: datetime


def has_unread_pages(document: Document) -> bool:
    """The same rule as UNREAD_CLAUSE, for a document already read."""
    return document.stage == Stage.INDEXED and bool(document.unread_pages)


def awaiting_review(document: Document) -> bool:
    """The same rule as QUEUE_CLAUSE, for a document already read."""
    return (
        document.stage == Stage.REVIEW
        or (document.stage == Stage.FAILED and document.halted_in == "extractor")
        or has_unread_pages(document)
    )


def queue_code(document: Document) -> str | None:
    """The same rule as QUEUE_CODE, for a document already read."""
    return UNREAD_CODE if has_unread_pages(document) else document.reason_code


async def queue(db: Db, groups: list[str], reason_code: str | None, limit: int) -> list[Document]:
    """Oldest first, the documents in the queue these groups may see (of one reason code, if given)."""
    rows = await db.fetch(
        f"SELECT * FROM documents WHERE {QUEUE_CLAUSE} AND {ACCESS_CLAUSE} AND ($1::text IS NULL OR {QUEUE_CODE} = $1)"
        " ORDER BY updated_at LIMIT $3",
        reason_code,
        groups,
        limit,
    )
    return [Document.from_record(row) for row in rows]


async def queue_counts(db: Db, groups: list[str]) -> dict[str, int]:
    """Documents in the queue per reason code, most frequent first."""
    rows = await db.fetch(
        f"SELECT coalesce({QUEUE_CODE}, 'unknown') AS code, count(*) AS n FROM documents"
        f" WHERE {QUEUE_CLAUSE} AND {ACCESS_CLAUSE.replace('$2', '$1')} GROUP BY 1 ORDER BY 2 DESC",
        groups,
    )
    return {row["code"]: row["n"] for row in rows}


async def actions(db: Db, document_id: uuid.UUID) -> list[RecordedAction]:
    rows = await db.fetch(
        "SELECT action, actor, detail, at FROM review_actions WHERE document_id = $1 ORDER BY id", document_id
    )
    return [RecordedAction(**dict(row)) for row in rows]


async def record_action(db: Db, document: Document, action: str, actor: str, detail: dict[str, Any]) -> None:
    await db.execute(
        "INSERT INTO review_actions (document_id, version, action, actor, detail) VALUES ($1, $2, $3, $4, $5)",
        document.document_id,
        document.version,
        action,
        actor,
        detail,
    )


async def original_head(db: Db, blob_key: str, size: int = 1024) -> bytes | None:
    """The original's first bytes, enough to tell a PDF, without reading the whole blob."""
    head = await db.fetchval("SELECT substring(content FROM 1 FOR $2) FROM blobs WHERE key = $1", blob_key, size)
    return bytes(head) if head is not None else None


async def set_weak_pages(db: Db, document_id: uuid.UUID, pages: list[int]) -> None:
    await db.execute("UPDATE documents SET weak_pages = $2, updated_at = now() WHERE id = $1", document_id, pages)
