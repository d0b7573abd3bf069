"""The review queue: documents a stage held back, and what a reviewer can do about each.

A reviewer approves (the document goes on from its extracted text), asks for another OCR pass with
other settings, corrects a page's text, or rejects it. Every action is recorded with who and when,
and a document re-enters the pipeline by the same events the stages publish, so nothing downstream
needs to know it was reviewed.

The queue also lists documents indexed without a few unread pages (reason code "unread_pages":
services/extractor/policy.py): they are searchable already. Correcting such a page indexes the document
again with the corrected text at once; approving accepts the unread pages as they are (their OCR text,
if any, goes into the index) and takes the document out of the queue; re-OCR reads it again. Rejecting
is for documents held back: an indexed one is deleted, not rejected.
"""

import asyncio
import dataclasses
import uuid
from datetime import datetime
from typing import Any, Literal

import asyncpg
import pymupdf
from fastapi import APIRouter, HTTPException, Response
from pydantic import BaseModel, Field

from precedente.services.search import problems
from precedente.services.search.deps import DbDep, RelayDep, ReviewerDep, SettingsDep, visible_document
from precedente.services.search.store import audit
from precedente.services.search.store import review as store
from precedente.services.search.store.documents import Document
from precedente.shared.accounts import Identity
from precedente.shared.contracts import (
    DocumentDeadLetter,
    DocumentExtracted,
    Event,
    OcrOptions,
    Stage,
    Topic,
)
from precedente.shared.infra.storage import get_blob, get_model, put_model, stage_key
from precedente.shared.payloads import ExtractedDocument, Page, pages_phrase
from precedente.shared.runtime import ledger, outbox

router = APIRouter(prefix="/review", tags=["review"])

PAGE_IMAGE_DPI = 110


class ReviewItem(BaseModel):
    document_id: uuid.UUID
    filename: str
    stage: str
    reason: str | None
    reason_code: str | None
    weak_pages: list[int]
    unread_pages: list[int] = Field(
        default_factory=list,
        description='Pages indexed without their text (reason code "unread_pages"): the document is searchable.',
    )
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
    unread: bool = Field(False, description="Left out of the index: correct it, or approve to accept it as it is.")


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


def _item(document: Document) -> ReviewItem:
    unread = store.has_unread_pages(document)
    return ReviewItem(
        document_id=document.document_id,
        filename=document.filename,
        stage=document.stage,
        reason=document.unread_reason if unread else document.error,
        reason_code=store.queue_code(document),
        weak_pages=document.weak_pages,
        unread_pages=document.unread_pages,
        ocr_confidence=document.ocr_confidence,
        page_count=document.page_count,
        version=document.version,
        updated_at=document.updated_at,
    )


async def _queued(db: asyncpg.Pool, document_id: uuid.UUID, who: Identity) -> Document:
    document = await visible_document(db, document_id, who, attempted="review")
    if not store.awaiting_review(document):
        if document.stage in REINDEXING:  # e.g. a correction of one of its unread pages is on its way
            raise HTTPException(
                409,
                f"document is not awaiting review: it is being indexed (stage: {document.stage});"
                " try again once it is indexed",
            )
        raise HTTPException(409, f"document is not awaiting review (stage: {document.stage})")
    return document


REINDEXING = {Stage.SUBMITTED, Stage.EXTRACTED, Stage.CLEANED, Stage.CHUNKED, Stage.ANNOTATED}
"""On its way through the pipeline: after a correction of an unread page, an approval or a re-OCR, for instance."""


def _extracted_event(document: Document, extracted: ExtractedDocument) -> DocumentExtracted:
    """The event that runs the document on from its (reviewed) extracted text, as the extractor's would."""
    return DocumentExtracted(
        document_id=document.document_id,
        version=document.version,
        trace_id=document.trace_id,
        pages_key=_extracted_key(document),
        page_count=len(extracted.pages),
        ocr_pages=[p.number for p in extracted.pages if p.method == "ocr"],
        confidence=extracted.confidence,
    )


def _extracted_key(document: Document) -> str:
    return stage_key(document.document_id, document.version, Stage.EXTRACTED)


async def _extracted(db: asyncpg.Pool, document: Document) -> ExtractedDocument | None:
    try:
        return await get_model(db, _extracted_key(document), ExtractedDocument)
    except KeyError:
        return None


async def _record(db: asyncpg.Pool, document: Document, action: str, who: Identity, detail: dict[str, Any]) -> None:
    await store.record_action(db, document, action, who.user, detail)
    await audit.record(db, who, f"review.{action}", document_ids=[document.document_id], detail=detail)


async def _advance_and_announce(
    db: asyncpg.Pool, relay: outbox.Relay, event: Event, topic: Topic, stage: Stage, detail: str, **fields: Any
) -> None:
    """Move the document on the ledger and queue the event that tells the next stage, in one transaction;
    publish it after the commit, or let the outbox relay do so when the broker is back."""
    async with db.acquire() as conn, conn.transaction():
        await ledger.advance(conn, event, stage, detail, **fields)
        queued = await outbox.enqueue(conn, topic, event)
    await relay.send(queued)


@router.get("", response_model=ReviewQueue)
async def review_queue(db: DbDep, who: ReviewerDep, reason_code: str | None = None, limit: int = 200) -> ReviewQueue:
    items = await store.queue(db, who.groups, reason_code, min(max(limit, 1), 1000))
    counts = await store.queue_counts(db, who.groups)
    return ReviewQueue(items=[_item(document) for document in items], counts=counts)


@router.get("/{document_id}", response_model=ReviewDetail, responses=problems.responses(404, 409))
async def review_detail(document_id: uuid.UUID, db: DbDep, who: ReviewerDep) -> ReviewDetail:
    document = await _queued(db, document_id, who)
    await audit.record(db, who, "review.open", document_ids=[document_id])
    extracted = await _extracted(db, document)
    head = await store.original_head(db, document.blob_key)
    has_images = head is not None and b"%PDF-" in head  # page images are rendered from PDFs only
    unread = set(extracted.unread_pages if extracted else [])
    pages = [
        ReviewPage(
            number=p.number,
            method=p.method,
            confidence=p.confidence,
            text=p.text,
            image_url=f"/review/{document_id}/pages/{p.number}/image" if has_images else None,
            unread=p.number in unread,
        )
        for p in (extracted.pages if extracted else [])
    ]
    actions = [ReviewAction(**dataclasses.asdict(a)) for a in await store.actions(db, document_id)]
    return ReviewDetail(**_item(document).model_dump(), pages=pages, actions=actions)


def _render_page(data: bytes, number: int) -> bytes:
    with pymupdf.open(stream=data, filetype="pdf") as doc:
        if not 1 <= number <= doc.page_count:
            raise IndexError(number)
        return doc[number - 1].get_pixmap(dpi=PAGE_IMAGE_DPI).tobytes("png")


@router.get(
    "/{document_id}/pages/{number}/image",
    response_class=Response,
    responses={200: {"description": "The page as PNG.", "content": {"image/png": {}}}, **problems.responses(404, 409)},
)
async def page_image(document_id: uuid.UUID, number: int, db: DbDep, who: ReviewerDep) -> Response:
    document = await _queued(db, document_id, who)
    await audit.record(db, who, "review.page_image", document_ids=[document_id], detail={"page": number})
    data = await get_blob(db, document.blob_key)
    try:
        png = await asyncio.to_thread(_render_page, data, number)
    except IndexError as err:
        raise HTTPException(404, f"the document has no page {number}") from err
    except Exception as err:  # noqa: BLE001 - not a PDF, or one MuPDF cannot render
        raise HTTPException(422, f"page {number} cannot be rendered: {err}") from err
    return Response(png, media_type="image/png")


@router.post("/{document_id}/approve", response_model=ActionResult, responses=problems.responses(404, 409))
async def approve(document_id: uuid.UUID, db: DbDep, who: ReviewerDep, relay: RelayDep) -> ActionResult:
    """Index the document from its extracted (and possibly corrected) text, as it is.

    An indexed document's unread pages are accepted as they are: their OCR text, where there is any, is indexed
    with the rest (the document goes through the pipeline again); pages with no text at all are only cleared."""
    document = await _queued(db, document_id, who)
    await audit.record(db, who, "review.open", document_ids=[document_id])
    extracted = await _extracted(db, document)
    if extracted is None or not any(p.text.strip() for p in extracted.pages):
        raise HTTPException(409, "there is no extracted text to approve; re-run OCR or reject the document")
    accepted = document.unread_pages if store.has_unread_pages(document) else []
    if extracted.unread_pages:
        extracted = extracted.model_copy(update={"unread_pages": []})
        await put_model(db, _extracted_key(document), extracted)
    event = _extracted_event(document, extracted)
    cleared = {"unread_pages": [], "unread_reason": None}
    if not accepted:
        await _record(db, document, "approve", who, {"confidence": extracted.confidence})
        await _advance_and_announce(
            db, relay, event, Topic.EXTRACTED, Stage.EXTRACTED, f"approved by {who.user}", **cleared
        )
        return ActionResult(document_id=document_id, action="approve", stage=Stage.EXTRACTED)
    texts = [p for p in extracted.pages if p.number in accepted and p.text.strip()]
    await _record(db, document, "approve", who, {"unread_pages": accepted, "indexed_again": bool(texts)})
    detail = f"{pages_phrase(accepted)} accepted as {'it is' if len(accepted) == 1 else 'they are'} by {who.user}"
    if not texts:  # images with no text: nothing to add to the index, only the flag to clear
        await ledger.advance(db, event, Stage.INDEXED, f"{detail}; no text to index", **cleared)
        return ActionResult(document_id=document_id, action="approve", stage=Stage.INDEXED)
    detail += f"; {pages_phrase([p.number for p in texts])} indexed as OCR read them"
    await _advance_and_announce(db, relay, event, Topic.EXTRACTED, Stage.EXTRACTED, detail, **cleared)
    return ActionResult(document_id=document_id, action="approve", stage=Stage.EXTRACTED)


@router.post("/{document_id}/reocr", response_model=ActionResult, responses=problems.responses(404, 409))
async def reocr(
    document_id: uuid.UUID, options: OcrOptions, db: DbDep, who: ReviewerDep, relay: RelayDep
) -> ActionResult:
    """Extract again with other OCR settings; the result is judged by the same confidence bar."""
    document = await _queued(db, document_id, who)
    submitted = ledger.submitted_event(document.row).model_copy(update={"ocr": options})
    await _record(db, document, "reocr", who, options.model_dump(exclude_none=True))
    asked = f"re-OCR asked by {who.user}"
    await _advance_and_announce(db, relay, submitted, Topic.SUBMITTED, Stage.SUBMITTED, asked)
    return ActionResult(document_id=document_id, action="reocr", stage=Stage.SUBMITTED)


@router.put("/{document_id}/pages/{number}", response_model=ActionResult, responses=problems.responses(404, 409))
async def correct_page(
    document_id: uuid.UUID,
    number: int,
    body: CorrectionRequest,
    db: DbDep,
    who: ReviewerDep,
    relay: RelayDep,
    settings: SettingsDep,
) -> ActionResult:
    """Replace one page's text with the reviewer's; approving afterwards indexes the corrected text. A document
    indexed with unread pages is indexed again at once, the corrected page in it, the others still flagged."""
    document = await _queued(db, document_id, who)
    await audit.record(db, who, "review.open", document_ids=[document_id])
    extracted = await _extracted(db, document)
    if extracted is None:
        raise HTTPException(409, "there is no extracted text to correct; re-run OCR first")
    if not any(p.number == number for p in extracted.pages):
        raise HTTPException(404, f"the document has no page {number}")
    pages = [
        Page(number=p.number, text=body.text, method="manual", confidence=1.0) if p.number == number else p
        for p in extracted.pages
    ]
    # Messages and warnings stay; the corrected page is read now.
    unread = [n for n in extracted.unread_pages if n != number]
    corrected = extracted.model_copy(update={"pages": pages, "unread_pages": unread})
    await put_model(db, _extracted_key(document), corrected)
    weak = [n for n in document.weak_pages if n != number]
    await store.set_weak_pages(db, document.document_id, weak)
    if not store.has_unread_pages(document):
        await _record(db, document, "correct", who, {"page": number, "characters": len(body.text)})
        return ActionResult(document_id=document_id, action="correct", stage=document.stage)
    # Indexed already: the correction goes into the index now, by the events approve uses.
    await _record(db, document, "correct", who, {"page": number, "characters": len(body.text), "indexed_again": True})
    remaining = [n for n in document.unread_pages if n != number]
    reason = corrected.model_copy(update={"unread_pages": remaining}).unread_reason(settings.ocr_confidence_bar)
    detail = f"page {number} corrected by {who.user}; indexed again"
    await _advance_and_announce(
        db,
        relay,
        _extracted_event(document, corrected),
        Topic.EXTRACTED,
        Stage.EXTRACTED,
        detail,
        unread_pages=remaining,
        unread_reason=reason,
    )
    return ActionResult(document_id=document_id, action="correct", stage=Stage.EXTRACTED)


@router.post("/{document_id}/reject", response_model=ActionResult, responses=problems.responses(404, 409))
async def reject(
    document_id: uuid.UUID, body: RejectRequest, db: DbDep, who: ReviewerDep, relay: RelayDep
) -> ActionResult:
    """Take the document out of the queue for good; it stays on record, with the reviewer's reason."""
    document = await _queued(db, document_id, who)
    if store.has_unread_pages(document):
        raise HTTPException(
            409,
            "the document is indexed (only some pages are unread): approve to accept them as they are, or delete it",
        )
    reason = f"rejected by {who.user}: {body.reason}"
    await _record(db, document, "reject", who, {"reason": body.reason})
    event = DocumentDeadLetter(
        document_id=document.document_id,
        version=document.version,
        trace_id=document.trace_id,
        stage=Stage.REVIEW,
        reason=reason,
    )
    fields = {"last_error": reason, "halted_in": "review", "reason_code": "rejected"}
    await _advance_and_announce(db, relay, event, Topic.DEADLETTER, Stage.FAILED, reason, **fields)
    return ActionResult(document_id=document_id, action="reject", stage=Stage.FAILED)
