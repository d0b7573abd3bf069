"""The review queue: documents a stage held back, and what a reviewer can do about each.

A reviewer approves (the document goes on from its extracted text), asks for another OCR pass with
other settings, corrects a page's text, or rejects it. Every action is recorded with who and when,
and a document re-enters the pipeline by the same events the stages publish, so nothing downstream
needs to know it was reviewed.
"""

import asyncio
import uuid
from datetime import datetime
from typing import Any, Literal

import asyncpg
import pymupdf
from fastapi import APIRouter, HTTPException, Request, Response
from pydantic import BaseModel, Field

from services.search import audit
from services.search.deps import ACCESS_CLAUSE, DbDep, ReviewerDep, visible_document
from shared import ledger, outbox
from shared.accounts import Identity
from shared.contracts import (
    DocumentDeadLetter,
    DocumentExtracted,
    Event,
    OcrOptions,
    Stage,
    Topic,
)
from shared.payloads import ExtractedDocument, Page
from shared.storage import get_blob, get_model, put_model, stage_key

router = APIRouter(prefix="/review", tags=["review"])

PAGE_IMAGE_DPI = 110
QUEUE_CLAUSE = "(stage = 'review' OR (stage = 'failed' AND halted_in = 'extractor'))"


class ReviewItem(BaseModel):
    document_id: uuid.UUID
    filename: str
    stage: str
    reason: str | None
    reason_code: str | None
    weak_pages: list[int]
    ocr_confidence: float | None
    page_count: int | None
    version: int
    updated_at: datetime


class ReviewPage(BaseModel):
    number: int
    method: str
    confidence: float
    text: str
    image_url: str | None


class ReviewAction(BaseModel):
    action: str
    actor: str
    detail: dict[str, Any]
    at: datetime


class ReviewDetail(ReviewItem):
    pages: list[ReviewPage]
    actions: list[ReviewAction]


class ReviewQueue(BaseModel):
    items: list[ReviewItem]
    counts: dict[str, int] = Field(description="Documents in the queue per reason code.")


class RejectRequest(BaseModel):
    reason: str = Field(min_length=3, max_length=2000)


class CorrectionRequest(BaseModel):
    text: str = Field(max_length=200_000)


class ActionResult(BaseModel):
    document_id: uuid.UUID
    action: Literal["approve", "reocr", "correct", "reject"]
    stage: str


def _item(row: asyncpg.Record) -> ReviewItem:
    return ReviewItem(
        document_id=row["id"],
        filename=row["filename"],
        stage=row["stage"],
        reason=row["last_error"],
        reason_code=row["reason_code"],
        weak_pages=list(row["weak_pages"]),
        ocr_confidence=row["ocr_confidence"],
        page_count=row["page_count"],
        version=row["version"],
        updated_at=row["updated_at"],
    )


async def _queued(db: asyncpg.Pool, document_id: uuid.UUID, who: Identity) -> asyncpg.Record:
    row = await visible_document(db, document_id, who)
    if not (row["stage"] == Stage.REVIEW or (row["stage"] == Stage.FAILED and row["halted_in"] == "extractor")):
        raise HTTPException(409, f"document is not awaiting review (stage: {row['stage']})")
    return row


async def _extracted(db: asyncpg.Pool, row: asyncpg.Record) -> ExtractedDocument | None:
    try:
        return await get_model(db, stage_key(row["id"], row["version"], Stage.EXTRACTED), ExtractedDocument)
    except KeyError:
        return None


async def _record(db: asyncpg.Pool, row: asyncpg.Record, action: str, who: Identity, detail: dict[str, Any]) -> None:
    await db.execute(
        "INSERT INTO review_actions (document_id, version, action, actor, detail) VALUES ($1, $2, $3, $4, $5)",
        row["id"],
        row["version"],
        action,
        who.user,
        detail,
    )
    await audit.record(db, who, f"review.{action}", document_ids=[row["id"]], detail=detail)


async def _advance_and_announce(
    request: Request, event: Event, topic: Topic, stage: Stage, detail: str, **fields: Any
) -> None:
    """Move the document on the ledger and queue the event that tells the next stage, in one transaction;
    publish it after the commit, or let the outbox relay do so when the broker is back."""
    async with request.app.state.db.acquire() as conn, conn.transaction():
        await ledger.advance(conn, event, stage, detail, **fields)
        queued = await outbox.enqueue(conn, topic, event)
    await outbox.relay_for(request.app.state).send(queued)


@router.get("", response_model=ReviewQueue)
async def review_queue(db: DbDep, who: ReviewerDep, reason_code: str | None = None, limit: int = 200) -> ReviewQueue:
    rows = await db.fetch(
        f"SELECT * FROM documents WHERE {QUEUE_CLAUSE} AND {ACCESS_CLAUSE} AND ($1::text IS NULL OR reason_code = $1)"
        " ORDER BY updated_at LIMIT $3",
        reason_code,
        who.groups,
        min(max(limit, 1), 1000),
    )
    counts = await db.fetch(
        f"SELECT coalesce(reason_code, 'unknown') AS code, count(*) AS n FROM documents"
        f" WHERE {QUEUE_CLAUSE} AND {ACCESS_CLAUSE.replace('$2', '$1')} GROUP BY 1 ORDER BY 2 DESC",
        who.groups,
    )
    return ReviewQueue(items=[_item(r) for r in rows], counts={r["code"]: r["n"] for r in counts})


@router.get("/{document_id}", response_model=ReviewDetail)
async def review_detail(document_id: uuid.UUID, db: DbDep, who: ReviewerDep) -> ReviewDetail:
    row = await _queued(db, document_id, who)
    await audit.record(db, who, "review.open", document_ids=[document_id])
    extracted = await _extracted(db, row)
    head = await db.fetchval("SELECT substring(content FROM 1 FOR 1024) FROM blobs WHERE key = $1", row["blob_key"])
    has_images = head is not None and b"%PDF-" in bytes(head)  # page images are rendered from PDFs only
    pages = [
        ReviewPage(
            number=p.number,
            method=p.method,
            confidence=p.confidence,
            text=p.text,
            image_url=f"/review/{document_id}/pages/{p.number}/image" if has_images else None,
        )
        for p in (extracted.pages if extracted else [])
    ]
    actions = await db.fetch(
        "SELECT action, actor, detail, at FROM review_actions WHERE document_id = $1 ORDER BY id", document_id
    )
    return ReviewDetail(**_item(row).model_dump(), pages=pages, actions=[ReviewAction(**dict(a)) for a in actions])


def _render_page(data: bytes, number: int) -> bytes:
    with pymupdf.open(stream=data, filetype="pdf") as doc:
        if not 1 <= number <= doc.page_count:
            raise IndexError(number)
        return doc[number - 1].get_pixmap(dpi=PAGE_IMAGE_DPI).tobytes("png")


@router.get("/{document_id}/pages/{number}/image")
async def page_image(document_id: uuid.UUID, number: int, db: DbDep, who: ReviewerDep) -> Response:
    row = await _queued(db, document_id, who)
    await audit.record(db, who, "review.page_image", document_ids=[document_id], detail={"page": number})
    data = await get_blob(db, row["blob_key"])
    try:
        png = await asyncio.to_thread(_render_page, data, number)
    except IndexError as err:
        raise HTTPException(404, f"the document has no page {number}") from err
    except Exception as err:  # noqa: BLE001 - not a PDF, or one MuPDF cannot render
        raise HTTPException(422, f"page {number} cannot be rendered: {err}") from err
    return Response(png, media_type="image/png")


@router.post("/{document_id}/approve", response_model=ActionResult)
async def approve(document_id: uuid.UUID, db: DbDep, who: ReviewerDep, request: Request) -> ActionResult:
    """Index the document from its extracted (and possibly corrected) text, as it is."""
    row = await _queued(db, document_id, who)
    await audit.record(db, who, "review.open", document_ids=[document_id])
    extracted = await _extracted(db, row)
    if extracted is None or not any(p.text.strip() for p in extracted.pages):
        raise HTTPException(409, "there is no extracted text to approve; re-run OCR or reject the document")
    event = DocumentExtracted(
        document_id=row["id"],
        version=row["version"],
        trace_id=row["trace_id"],
        pages_key=stage_key(row["id"], row["version"], Stage.EXTRACTED),
        page_count=len(extracted.pages),
        ocr_pages=[p.number for p in extracted.pages if p.method == "ocr"],
        confidence=extracted.confidence,
    )
    await _record(db, row, "approve", who, {"confidence": extracted.confidence})
    await _advance_and_announce(request, event, Topic.EXTRACTED, Stage.EXTRACTED, f"approved by {who.user}")
    return ActionResult(document_id=document_id, action="approve", stage=Stage.EXTRACTED)


@router.post("/{document_id}/reocr", response_model=ActionResult)
async def reocr(
    document_id: uuid.UUID, options: OcrOptions, db: DbDep, who: ReviewerDep, request: Request
) -> ActionResult:
    """Extract again with other OCR settings; the result is judged by the same confidence bar."""
    row = await _queued(db, document_id, who)
    submitted = ledger.submitted_event(row).model_copy(update={"ocr": options})
    await _record(db, row, "reocr", who, options.model_dump(exclude_none=True))
    await _advance_and_announce(request, submitted, Topic.SUBMITTED, Stage.SUBMITTED, f"re-OCR asked by {who.user}")
    return ActionResult(document_id=document_id, action="reocr", stage=Stage.SUBMITTED)


@router.put("/{document_id}/pages/{number}", response_model=ActionResult)
async def correct_page(
    document_id: uuid.UUID, number: int, body: CorrectionRequest, db: DbDep, who: ReviewerDep
) -> ActionResult:
    """Replace one page's text with the reviewer's; approving afterwards indexes the corrected text."""
    row = await _queued(db, document_id, who)
    await audit.record(db, who, "review.open", document_ids=[document_id])
    extracted = await _extracted(db, row)
    if extracted is None:
        raise HTTPException(409, "there is no extracted text to correct; re-run OCR first")
    if not any(p.number == number for p in extracted.pages):
        raise HTTPException(404, f"the document has no page {number}")
    pages = [
        Page(number=p.number, text=body.text, method="manual", confidence=1.0) if p.number == number else p
        for p in extracted.pages
    ]
    await put_model(db, stage_key(row["id"], row["version"], Stage.EXTRACTED), ExtractedDocument(pages=pages))
    weak = [n for n in row["weak_pages"] if n != number]
    await db.execute("UPDATE documents SET weak_pages = $2, updated_at = now() WHERE id = $1", row["id"], weak)
    await _record(db, row, "correct", who, {"page": number, "characters": len(body.text)})
    return ActionResult(document_id=document_id, action="correct", stage=row["stage"])


@router.post("/{document_id}/reject", response_model=ActionResult)
async def reject(
    document_id: uuid.UUID, body: RejectRequest, db: DbDep, who: ReviewerDep, request: Request
) -> ActionResult:
    """Take the document out of the queue for good; it stays on record, with the reviewer's reason."""
    row = await _queued(db, document_id, who)
    reason = f"rejected by {who.user}: {body.reason}"
    await _record(db, row, "reject", who, {"reason": body.reason})
    event = DocumentDeadLetter(
        document_id=row["id"], version=row["version"], trace_id=row["trace_id"], stage=Stage.REVIEW, reason=reason
    )
    fields = {"last_error": reason, "halted_in": "review", "reason_code": "rejected"}
    await _advance_and_announce(request, event, Topic.DEADLETTER, Stage.FAILED, reason, **fields)
    return ActionResult(document_id=document_id, action="reject", stage=Stage.FAILED)
