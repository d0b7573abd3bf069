"""A document's own routes: upload, the original (with a search hit highlighted), its ingestion status, delete."""

import asyncio
import dataclasses
import hashlib
import uuid
from datetime import date, datetime
from pathlib import PurePosixPath, PureWindowsPath
from typing import Annotated, Any
from urllib.parse import quote

from fastapi import APIRouter, File, Form, HTTPException, Query, UploadFile
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from pydantic import BaseModel, Field, TypeAdapter, ValidationError

from precedente.services.search import problems
from precedente.services.search.deps import (
    DbDep,
    IngesterDep,
    ReaderDep,
    RelayDep,
    SearcherDep,
    SettingsDep,
    ThrottleDep,
    visible_document,
)
from precedente.services.search.pdf_passage import highlight_passage
from precedente.services.search.store import audit, documents
from precedente.services.search.store import review as review_store
from precedente.shared.bounds import Filename, Groups
from precedente.shared.contracts import EVERYONE, DocumentDeleted, MetadataHints, Source, Stage, Topic
from precedente.shared.errors import BadInput
from precedente.shared.formats import UNSUPPORTED, detect_format
from precedente.shared.infra.storage import get_blob, original_key, put_blob
from precedente.shared.runtime import ledger, outbox, telemetry

router = APIRouter()

FILENAME, GROUPS = TypeAdapter(Filename), TypeAdapter(Groups)


class UploadAccepted(BaseModel):
    document_id: uuid.UUID
    outcome: str
    access_groups: list[str] | None = Field(
        None,
        description='For "unchanged": the access list in force. A re-upload of the same bytes keeps it, even'
        " when the upload asked for others: PUT /documents/{id}/access changes it.",
    )
    deny_groups: list[str] | None = Field(None, description='For "unchanged": the deny list in force.')
    note: str | None = Field(None, description="Set when the upload asked for something it did not do, and why.")


class DocumentFacts(BaseModel):
    """What the ledger says of a document's current version: GET /documents/{id}/status and GET /documents."""

    document_id: uuid.UUID
    filename: str
    stage: str
    version: int
    attempts: int
    error: str | None
    weak_pages: list[int]
    unread_pages: list[int] = Field(
        default_factory=list,
        description="Pages indexed without their text (a photo, a scanned annex OCR could not read): a search finds"
        " nothing on them; the original has them.",
    )
    unread_reason: str | None = Field(None, description="Why those pages are unread, naming each and what it holds.")
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


class DocumentStatus(DocumentFacts):
    history: list[dict[str, Any]]


class ListedDocument(DocumentFacts):
    """A document in GET /documents: its status without the history, with when it last changed and, when it
    stopped (review or failed), which service stopped it and the reason's stable code."""

    updated_at: datetime
    halted_in: str | None
    reason_code: str | None


class DocumentList(BaseModel):
    total: int = Field(description="Documents that match, on every page.")
    documents: list[ListedDocument] = Field(description="This page of them, most recently updated first.")


MAX_LISTED_IDS = 500

UNREAD_PAGES_HEADER = "X-Precedente-Unread-Pages"
"""On GET /documents/{id}: the pages left out of the index, comma-separated (DocumentFacts.unread_pages)."""


# What an original is served as: decided from its bytes (shared/formats.py), never from the uploader's name or
# Content-Type, so a renamed HTML page is never served as a PDF, nor a PDF as HTML.
MEDIA_TYPES = {
    "pdf": "application/pdf",
    "docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
    "doc": "application/msword",
    "odt": "application/vnd.oasis.opendocument.text",
    "rtf": "application/rtf",
    "eml": "message/rfc822",
    "txt": "text/plain; charset=utf-8",
    "html": "text/html; charset=utf-8",
}


ORIGINAL_TYPES = sorted({t.split(";")[0] for t in MEDIA_TYPES.values()} | {"application/octet-stream"})


def sniffed_content_type(data: bytes, filename: str) -> str:
    """The file's media type from its content; 415 for what no stage can ever read (an executable, an
    image, an archive, empty), with the extractor's own reason. A password-protected document passes:
    it goes to review, where a person can act on it."""
    try:
        return MEDIA_TYPES[detect_format(data, filename)]
    except BadInput as err:
        if err.code in (UNSUPPORTED, "empty"):
            raise HTTPException(415, err.reason) from err
        return "application/octet-stream"


def content_headers(filename: str, media_type: str) -> dict[str, str]:
    """Headers that serve an original safely. A filename is the uploader's text: ASCII without quotes or control
    characters in filename=, the rest percent-encoded in filename*, so it can neither break the header nor
    inject another one. Only the name, never a path the uploader sent ("../../etc/passwd" is served as "passwd")."""
    name = PureWindowsPath(PurePosixPath(filename).name).name or "document"
    ascii_name = "".join(c if 32 <= ord(c) < 127 and c not in '"\\;' else "_" for c in name)
    utf8_name = quote(name, safe="")  # RFC 5987: every byte outside attr-char escaped
    headers = {
        "Content-Disposition": f"inline; filename=\"{ascii_name}\"; filename*=UTF-8''{utf8_name}",
        "X-Content-Type-Options": "nosniff",
    }
    if not media_type.startswith("application/pdf"):  # (a sandbox would keep browsers from showing a PDF)
        headers["Content-Security-Policy"] = "sandbox; default-src 'none'"  # an HTML original runs nothing
    return headers


@router.post(
    "/documents",
    status_code=202,
    response_model=UploadAccepted,
    responses={
        200: {"model": UploadAccepted, "description": "Already known: the same file, or the same version of it."},
        **problems.responses(400, 403, 413, 415),  # 400: a multipart body that cannot be parsed
    },
)
async def upload(
    pool: DbDep,
    who: IngesterDep,
    settings: SettingsDep,
    throttle: ThrottleDep,
    relay: RelayDep,
    file: Annotated[UploadFile, File()],
    access_groups: Annotated[str | None, Form()] = None,
    deny_groups: Annotated[str | None, Form()] = None,
    external_id: Annotated[str | None, Form()] = None,
    source: Annotated[Source, Form()] = Source.UPLOAD,
    title: Annotated[str | None, Form()] = None,
    document_type: Annotated[str | None, Form()] = None,
    court: Annotated[str | None, Form()] = None,
    document_date: Annotated[date | None, Form()] = None,
) -> Any:
    await throttle(pool, who, "upload")
    fields = (file.filename, access_groups, deny_groups, external_id, title, document_type, court)
    if any("\x00" in value for value in fields if value):  # PostgreSQL text cannot hold it: 422, not 500
        raise HTTPException(422, "form fields and the file name cannot contain NUL characters")
    groups = [g.strip() for g in (access_groups or EVERYONE).split(",") if g.strip()] or [EVERYONE]
    denied = [g.strip() for g in (deny_groups or "").split(",") if g.strip()]  # ethical walls: a deny wins
    filename = file.filename or "document"
    # The bounds of shared/bounds.py, checked before the file is read: the same as a DMS's event must keep.
    bounded = {"filename": (FILENAME, filename), "access_groups": (GROUPS, groups), "deny_groups": (GROUPS, denied)}
    errors: list[Any] = []
    for name, (adapter, value) in bounded.items():
        try:
            adapter.validate_python(value)
        except ValidationError as err:
            errors += [{**e, "loc": ("body", name, *e["loc"])} for e in err.errors()]
    if errors:
        raise RequestValidationError(errors)
    try:
        hints = MetadataHints(title=title, document_type=document_type, court=court, document_date=document_date)
    except ValidationError as err:  # a hint that does not fit: a validation error like any other
        raise RequestValidationError([{**e, "loc": ("body", *e["loc"])} for e in err.errors()]) from err
    # The parser has spooled the file to disk and knows its size: an oversized one is refused before a byte of it
    # is read into memory (reading max_upload_bytes + 1 first cost ~200 MB per refusal).
    too_large = file.size is not None and file.size > settings.max_upload_bytes
    data = b"" if too_large else await file.read(settings.max_upload_bytes + 1)
    if too_large or len(data) > settings.max_upload_bytes:
        raise HTTPException(413, f"file is larger than the limit of {settings.max_upload_bytes} bytes")
    content_type = await asyncio.to_thread(sniffed_content_type, data, filename)
    content_hash = hashlib.sha256(data).hexdigest()
    await put_blob(pool, original_key(content_hash), data, content_type)
    # The document's trace starts here: the event's trace_id is this span's trace (shared/contracts.py).
    with telemetry.tracer().start_as_current_span(
        "submit", attributes={"precedente.stage": "submit", "precedente.size_bytes": len(data)}
    ) as span:
        submission = await ledger.register_submission(
            pool,
            external_id=external_id or f"sha256:{content_hash}",
            filename=filename,
            content_type=content_type,
            content_hash=content_hash,
            size_bytes=len(data),
            source=source,
            access_groups=groups,
            hints=hints,
            deny_groups=denied,
            submitted_by=who.user,
            caller_groups=who.groups,
        )
        if submission.outcome == "forbidden":
            raise HTTPException(403, "this external_id belongs to a document outside your access list")
        span.set_attribute("precedente.document_id", str(submission.document_id))
        span.set_attribute("precedente.outcome", submission.outcome)
        telemetry.SUBMISSIONS.labels(submission.outcome).inc()
        if submission.event is not None:
            span.set_attribute("precedente.version", submission.event.version)
            await relay.submit(submission.event)  # the ledger row is the outbox
    accepted = UploadAccepted(
        document_id=submission.document_id,
        outcome=submission.outcome,
        access_groups=submission.access_groups,
        deny_groups=submission.deny_groups,
    )
    kept = (submission.access_groups, submission.deny_groups)
    if submission.outcome == "unchanged" and kept != (sorted(set(groups)), sorted(set(denied))):
        accepted.note = (
            "the same file is already this document; its access lists were kept as they are, not replaced by"
            f" this upload's: change them with PUT /documents/{submission.document_id}/access"
        )
    detail = {
        "outcome": submission.outcome,
        "size_bytes": len(data),
        "access_groups": groups,
        "deny_groups": denied,
    }
    await audit.record(pool, who, "document.upload", document_ids=[submission.document_id], detail=detail)
    return JSONResponse(
        accepted.model_dump(mode="json", exclude_none=True), status_code=202 if submission.event else 200
    )


@router.delete(
    "/documents/{document_id}",
    response_model=UploadAccepted,
    responses={
        202: {"model": UploadAccepted, "description": "Marked deleted; its chunks and payloads are removed next."},
        **problems.responses(404),
    },
)
async def delete_document(
    document_id: uuid.UUID, who: IngesterDep, pool: DbDep, relay: RelayDep, source: Source = Source.UPLOAD
) -> Any:
    """Delete a document the caller may see (404 otherwise): the ledger marks it deleted at once, so no
    stage still working on it can index it, and documents.deleted removes its chunks and payloads.
    Deleting it again answers 200 "already_deleted" (and asks for the clean-up again, harmlessly)."""
    document = await visible_document(pool, document_id, who, attempted="document.delete")
    event = DocumentDeleted(document_id=document_id, version=document.version, source=source)
    async with pool.acquire() as conn, conn.transaction():  # the deletion and its event, or neither
        detail = f"deleted ({source.value}) by {who.user}"
        marked = await ledger.mark_deleted(conn, document_id, document.version, detail)
        queued = await outbox.enqueue(conn, Topic.DELETED, event)
    await relay.send(queued)  # or later, when the broker is back
    await audit.record(pool, who, "document.delete", document_ids=[document_id], detail={"source": source.value})
    accepted = UploadAccepted(document_id=document_id, outcome="deleted" if marked else "already_deleted")
    return JSONResponse(accepted.model_dump(mode="json", exclude_none=True), status_code=202 if marked else 200)


@router.get(
    "/documents/{document_id}",
    response_class=Response,
    responses={
        200: {
            "description": "The original file; X-Precedente-Unread-Pages lists the pages left out of the index.",
            "content": {t: {} for t in ORIGINAL_TYPES},
        },
        **problems.responses(404, 410),
    },
)
async def download(
    document_id: uuid.UUID,
    who: SearcherDep,
    pool: DbDep,
    break_glass: Annotated[str | None, Query(max_length=500)] = None,
    passage: Annotated[
        int | None,
        Query(
            ge=1,
            le=2**63 - 1,
            description="A chunk id of this document (a search result's): a PDF is served with that passage "
            "highlighted on its pages; other formats, or a PDF whose text layer does not hold it, as they are.",
        ),
    ] = None,
) -> Response:
    """The original file. An admin may open a document their groups may not see only by giving a reason
    (`?break_glass=...`): a role is not a bypass, and that reading is on record as such. `?passage=` highlights
    a search hit in a PDF; a chunk of another document is a 404, so no one reads another document's text through
    one they may open."""
    if break_glass and who.may("admin"):
        found = await documents.with_visibility(pool, document_id, who.groups)
        if found is None:
            raise HTTPException(404, "document not found")
        document, walled = found[0], not found[1]
    else:
        document, walled = await visible_document(pool, document_id, who, attempted="document.open"), False
    action = "document.break_glass" if walled else "document.open"
    await audit.record(
        pool, who, action, document_ids=[document_id], detail={"reason": break_glass} if walled else None
    )
    if document.stage == Stage.DELETED:
        raise HTTPException(410, "document deleted by its owner")  # its original is gone with it
    content = await get_blob(pool, document.blob_key)
    media_type = document.content_type or "application/octet-stream"
    if passage is not None and media_type.startswith("application/pdf"):
        chunk = await documents.chunk_text(pool, document_id, passage)
        if chunk is None:
            raise HTTPException(404, "passage not found in this document")
        highlighted = await asyncio.to_thread(highlight_passage, content, chunk.page_start, chunk.page_end, chunk.text)
        content = highlighted or content  # no text layer to mark (a scan): the original as it is
    headers = content_headers(document.filename, media_type)
    if document.unread_pages:  # the reader of the original learns which pages the index could not read
        headers[UNREAD_PAGES_HEADER] = ",".join(map(str, document.unread_pages))
    return Response(content, media_type=media_type, headers=headers)


@router.get("/documents", response_model=DocumentList)
async def list_documents(
    who: ReaderDep,
    pool: DbDep,
    id: Annotated[  # noqa: A002 - the query parameter's name: ?id=...&id=...
        list[uuid.UUID] | None,
        Query(max_length=MAX_LISTED_IDS, description=f"Only these documents (up to {MAX_LISTED_IDS})."),
    ] = None,
    q: Annotated[
        str | None, Query(max_length=200, description="In the file name or title, case and accents aside.")
    ] = None,
    stage: Annotated[list[Stage] | None, Query(description="Only documents at these ledger stages.")] = None,
    awaiting_review: Annotated[
        bool,
        Query(
            description="Only documents in the review queue (GET /review's rule: in review, failed while being read,"
            " or indexed with unread pages), the ones GET /status counts in `review_queue`."
        ),
    ] = False,
    limit: Annotated[int, Query(ge=1, le=200)] = 50,
    offset: Annotated[int, Query(ge=0, le=1_000_000)] = 0,
) -> DocumentList:
    """The documents the caller may see or submitted (GET /documents/{id}/status's rule), most recently
    updated first: the ingestion page's list, and `precedente ingest --wait`'s one call per interval."""
    found = await documents.listing(
        pool,
        who.groups,
        who.user,
        ids=id,
        text=q.strip() if q and q.strip() else None,
        stages=[s.value for s in stage] if stage else None,
        condition=review_store.QUEUE_CLAUSE if awaiting_review else None,
        limit=limit,
        offset=offset,
    )
    fields = ListedDocument.model_fields
    return DocumentList(
        total=found.total,
        documents=[ListedDocument(**{name: getattr(d, name) for name in fields}) for d in found.documents],
    )


@router.get("/documents/{document_id}/status", response_model=DocumentStatus, responses=problems.responses(404))
async def status(document_id: uuid.UUID, who: ReaderDep, pool: DbDep) -> DocumentStatus:
    """Also for whoever submitted it, whatever its access list: an uploader follows what they sent."""
    document = await visible_document(pool, document_id, who, or_submitted=True, attempted="document.status")
    history = await documents.history(pool, document_id)
    shown = {name: getattr(document, name) for name in DocumentStatus.model_fields if name != "history"}
    return DocumentStatus(**shown, history=[dataclasses.asdict(entry) for entry in history])
