"""A document's ledger row, its history and its chunks' text, as the search service's routes read them."""

import uuid
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Any

import asyncpg

from precedente.shared.bounds import FILENAME_MAX, METADATA_MAX, TITLE_MAX, clip

# The caller may see the document: one of their groups (or "*") is allowed and none is denied (a deny wins).
# public.precedente_visible (shared/migrations/0007_deny_groups.sql) is inlined by PostgreSQL: indexable.
ACCESS_CLAUSE = "public.precedente_visible(access_groups, deny_groups, $2::text[])"

Db = asyncpg.Pool | asyncpg.Connection


@dataclass(frozen=True)
class Document:
    """The current version of a document on the ledger (table documents). Field names are the API's where a
    route shows them (DocumentStatus), so the columns are mapped to names here, once."""

    document_id: uuid.UUID
    filename: str
    content_type: str | None
    blob_key: str
    trace_id: str
    stage: str
    version: int
    attempts: int
    error: str | None
    halted_in: str | None
    reason_code: str | None
    weak_pages: list[int]
    unread_pages: list[int]
    unread_reason: str | None
    ocr_confidence: float | None
    page_count: int | None
    chunk_count: int | None
    title: str | None
    document_type: str | None
    court: str | None
    document_date: date | None
    process_number: str | None
    procedural_class: str | None
    relator: str | None
    judging_body: str | None
    judgment_date: date | None
    publication_date: date | None
    parties: list[dict[str, str]]
    subject: str | None
    citations: list[str]
    parent_document_id: uuid.UUID | None
    updated_at: datetime
    row: dict[str, Any] = field(repr=False, compare=False)
    """Every column, for shared/runtime/ledger.py's functions that rebuild an event from the row (submitted_event)."""

    @classmethod
    def from_record(cls, row: asyncpg.Record) -> "Document":
        """The row as the API shows it: a value stored before shared/bounds.py declared its bound (a legacy
        900,000-character title) is cut there, with an ellipsis, so no listing or status ships it whole."""
        return cls(
            document_id=row["id"],
            filename=clip(row["filename"], FILENAME_MAX) or "",
            content_type=row["content_type"],
            blob_key=row["blob_key"],
            trace_id=row["trace_id"],
            stage=row["stage"],
            version=row["version"],
            attempts=row["attempts"],
            error=row["last_error"],
            halted_in=row["halted_in"],
            reason_code=row["reason_code"],
            weak_pages=list(row["weak_pages"]),
            unread_pages=list(row["unread_pages"]),
            unread_reason=row["unread_reason"],
            ocr_confidence=row["ocr_confidence"],
            page_count=row["page_count"],
            chunk_count=row["chunk_count"],
            title=clip(row["title"], TITLE_MAX),
            document_type=clip(row["document_type"], METADATA_MAX),
            court=clip(row["court"], METADATA_MAX),
            document_date=row["document_date"],
            process_number=row["process_number"],
            procedural_class=row["procedural_class"],
            relator=row["relator"],
            judging_body=row["judging_body"],
            judgment_date=row["judgment_date"],
            publication_date=row["publication_date"],
            parties=row["parties"],
            subject=row["subject"],
            citations=list(row["citations"]),
            parent_document_id=row["parent_id"],
            updated_at=row["updated_at"],
            row=dict(row),
        )


@dataclass(frozen=True)
class HistoryEntry:
    version: int
    stage: str
    detail: str | None
    at: datetime


@dataclass(frozen=True)
class ChunkText:
    """Where a chunk stands in its document and what it says: enough to highlight it on the original."""

    page_start: int
    page_end: int
    text: str


async def visible(
    db: Db, document_id: uuid.UUID, groups: list[str], submitted_by: str | None = None
) -> Document | None:
    """The document if these groups may see it (or `submitted_by` submitted it); None alike for hidden and
    missing ones, so no answer tells them apart."""
    mine = " OR submitted_by = $3" if submitted_by is not None else ""
    arguments = (submitted_by,) if submitted_by is not None else ()
    row = await db.fetchrow(
        f"SELECT * FROM documents WHERE id = $1 AND ({ACCESS_CLAUSE}{mine})", document_id, groups, *arguments
    )
    return Document.from_record(row) if row is not None else None


async def with_visibility(db: Db, document_id: uuid.UUID, groups: list[str]) -> tuple[Document, bool] | None:
    """The document whoever may see it, and whether these groups may: for a reading that must say it crossed
    an access list (break glass)."""
    row = await db.fetchrow(f"SELECT *, {ACCESS_CLAUSE} AS visible FROM documents WHERE id = $1", document_id, groups)
    return (Document.from_record(row), bool(row["visible"])) if row is not None else None


async def history(db: Db, document_id: uuid.UUID) -> list[HistoryEntry]:
    rows = await db.fetch(
        "SELECT version, stage, detail, at FROM document_history WHERE document_id = $1 ORDER BY id", document_id
    )
    return [HistoryEntry(**dict(row)) for row in rows]


async def chunk_text(db: Db, document_id: uuid.UUID, chunk_id: int) -> ChunkText | None:
    """A chunk of this document; None for another document's, so no one reads its text through this one."""
    row = await db.fetchrow(
        "SELECT page_start, page_end, text FROM chunks WHERE id = $1 AND document_id = $2", chunk_id, document_id
    )
    return ChunkText(**dict(row)) if row is not None else None


@dataclass(frozen=True)
class Listing:
    """One page of documents and how many match in all, for paging."""

    total: int
    documents: list[Document]


def like_pattern(text: str) -> str:
    """A substring pattern for ILIKE that takes `text` literally: its %, _ and \\ match only themselves."""
    escaped = text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return f"%{escaped}%"


async def listing(
    db: Db,
    groups: list[str],
    submitted_by: str,
    *,
    ids: list[uuid.UUID] | None = None,
    text: str | None = None,
    stages: list[str] | None = None,
    condition: str | None = None,
    limit: int = 50,
    offset: int = 0,
) -> Listing:
    """The documents these groups may see or `submitted_by` submitted, most recently updated first: only `ids`
    when given, only those whose file name or title holds `text` (case and accents aside), only at `stages`.
    The access rule is GET /documents/{id}/status's (visible() with submitted_by), inside the SQL. `condition` is
    a constant SQL condition of the caller's, never a user's text (the review queue's QUEUE_CLAUSE)."""
    where = f"({ACCESS_CLAUSE} OR submitted_by = $1)"
    arguments: list[Any] = [submitted_by, groups]
    if ids is not None:
        arguments.append(ids)
        where += f" AND id = ANY(${len(arguments)}::uuid[])"
    if text:
        arguments.append(like_pattern(text))
        at = f"public.unaccent(${len(arguments)})"
        where += f" AND (public.unaccent(filename) ILIKE {at} OR public.unaccent(coalesce(title, '')) ILIKE {at})"
    if stages:
        arguments.append(stages)
        where += f" AND stage = ANY(${len(arguments)}::text[])"
    if condition:
        where += f" AND {condition}"
    total = await db.fetchval(f"SELECT count(*) FROM documents WHERE {where}", *arguments)
    rows = await db.fetch(
        f"SELECT * FROM documents WHERE {where} ORDER BY updated_at DESC, id"
        f" LIMIT ${len(arguments) + 1} OFFSET ${len(arguments) + 2}",
        *arguments,
        limit,
        offset,
    )
    return Listing(total=total, documents=[Document.from_record(row) for row in rows])
