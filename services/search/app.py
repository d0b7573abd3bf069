"""Search service: the HTTP API lawyers (through the gateway), the CLI and uploaders use."""

import asyncio
import hashlib
import json
import time
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import date
from pathlib import PurePosixPath, PureWindowsPath
from typing import Annotated, Any
from urllib.parse import quote

from fastapi import FastAPI, File, Form, HTTPException, Query, Request, UploadFile
from fastapi.encoders import jsonable_encoder
from fastapi.exception_handlers import request_validation_exception_handler
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from opentelemetry import trace
from prometheus_client import CONTENT_TYPE_LATEST, generate_latest
from pydantic import BaseModel, Field, ValidationError

from services.extractor.errors import BadInput
from services.extractor.formats import UNSUPPORTED, detect_format
from services.search import audit
from services.search.access import router as access_router
from services.search.auth import Authenticator
from services.search.auth import router as auth_router
from services.search.boundary import InputBoundary
from services.search.deps import ACCESS_CLAUSE, AdminDep, DbDep, IngesterDep, ReaderDep, SearcherDep, visible_document
from services.search.llm_rerank import llm_rerank
from services.search.pdf_passage import highlight_passage
from services.search.query import Candidates, SearchRequest, SearchResult, hybrid_search
from services.search.ranking import ranking_from
from services.search.review import router as review_router
from services.search.status import router as status_router
from services.search.syntax import parse_query
from shared import ledger, outbox, recovery, telemetry
from shared.broker import make_broker
from shared.contracts import EVERYONE, DocumentDeleted, MetadataHints, Source, Stage, Topic
from shared.db import create_pool
from shared.embeddings import IndexGuard, QueryCache, get_embedder
from shared.settings import Settings, get_settings
from shared.storage import get_blob, original_key, put_blob


class SearchResponse(BaseModel):
    results: list[SearchResult] = Field(description="One entry per work (a decision and its copies are one).")
    facets: dict[str, dict[str, int]] = Field(
        default_factory=dict, description="Documents per value of document_type, court, relator, judging_body."
    )
    total: int = Field(0, description="Works among this query's candidates under these filters: what paging reaches.")
    relevant_total: int = Field(0, description='Of them, the works graded "forte" or "provável".')
    offset: int = 0
    no_strong_match: bool = Field(
        False,
        description='No work is at least "provável": nothing relevant was found; the results are only the closest.',
    )
    vague_query: bool = Field(
        False, description='One word that names no subject ("direito"): every result is "fraca"; say more.'
    )


class UploadAccepted(BaseModel):
    document_id: uuid.UUID
    outcome: str


class DocumentStatus(BaseModel):
    document_id: uuid.UUID
    filename: str
    stage: str
    version: int
    attempts: int
    error: str | None
    weak_pages: list[int]
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
    history: list[dict[str, Any]]


# What an original is served as: decided from its bytes (services/extractor/formats.py), never from the
# uploader's name or Content-Type, so a renamed HTML page is never served as a PDF, nor a PDF as HTML.
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


async def validation_error(request: Request, exc: RequestValidationError) -> Response:
    """FastAPI's 422, except that input JSON may carry and UTF-8 may not (a lone surrogate, echoed back in the
    errors) is written as an ASCII escape: a malformed request must never turn into a 500."""
    try:
        return await request_validation_exception_handler(request, exc)
    except UnicodeEncodeError:
        content = json.dumps({"detail": jsonable_encoder(exc.errors())})  # ASCII: surrogates escaped
        return Response(content, status_code=422, media_type="application/json")


async def database_unavailable(request: Request, exc: Exception) -> Response:
    """The database is down or restarting: 503 with Retry-After, which a client may retry, not a 500."""
    return JSONResponse(
        {"detail": "the database is unavailable; retry shortly"}, status_code=503, headers={"Retry-After": "5"}
    )


# Connection-level failures only: a query error is a bug and stays a 500.
DATABASE_DOWN = (OSError, *recovery.CONNECTION_LOST)


def create_app(settings: Settings | None = None) -> FastAPI:
    settings = settings or get_settings()
    telemetry.setup(settings, "search")

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        telemetry.setup_logging(settings.log_format)  # uvicorn set up its own loggers since create_app
        telemetry.start_metrics_server(settings)  # for scrapers without a credential, on an internal port
        app.state.db = await create_pool(settings.database_url, max_size=10)
        app.state.broker = make_broker(settings)
        await app.state.broker.start()
        app.state.embedder = await asyncio.to_thread(get_embedder, settings)
        app.state.index_guard = IndexGuard(app.state.embedder)
        await app.state.index_guard.problem(app.state.db)  # logs an error now if the index holds another model
        pruning = asyncio.create_task(audit.prune_periodically(app.state.db, settings.audit_retention_days))
        app.state.relay = outbox.Relay(app.state.db, app.state.broker, settings).start()  # uploads the broker missed
        try:
            yield
        finally:
            pruning.cancel()
            await app.state.relay.stop()
            await app.state.broker.stop()
            await app.state.db.close()
            telemetry.shutdown()

    # No /docs or /openapi.json: every route but /health needs a credential, and the schema is published in
    # docs/openapi.json (`precedente docs`) instead.
    app = FastAPI(
        title="Precedente search API",
        version="0.1.0",
        lifespan=lifespan,
        telemetry=telemetry.FASTAPI_TELEMETRY,
        openapi_url=None,
        docs_url=None,
        redoc_url=None,
        exception_handlers={
            RequestValidationError: validation_error,
            **dict.fromkeys(DATABASE_DOWN, database_unavailable),
        },
    )
    app.add_middleware(InputBoundary)  # NUL or broken Unicode in a path, query or JSON body: 422, never a 500
    ranking = ranking_from(settings)
    use_llm = settings.rerank_llm_provider != "none"
    app.state.settings = settings
    app.state.authenticator = Authenticator(settings)
    app.include_router(auth_router)
    app.include_router(audit.router)
    app.include_router(review_router)
    app.include_router(status_router)
    app.include_router(access_router)

    @app.get("/health")
    async def health(pool: DbDep) -> dict[str, str]:
        if problem := await recovery.database_problem(pool):
            raise HTTPException(503, problem)  # unavailable, not broken: a balancer or probe may retry
        return {"status": "ok"}

    @app.get("/metrics", include_in_schema=False)
    async def metrics(who: AdminDep) -> Response:
        """Counters of every document, whatever its access list: administrators only (scrapers use the
        internal metrics port, PRECEDENTE_METRICS_PORT, which needs no credential and is not published)."""
        return Response(generate_latest(), media_type=CONTENT_TYPE_LATEST)

    @app.post("/search", response_model=SearchResponse)
    async def search(body: SearchRequest, request: Request, who: SearcherDep, pool: DbDep) -> SearchResponse:
        request.app.state.authenticator.throttle(who, "search")
        started, outcome = time.perf_counter(), "error"
        span = trace.get_current_span()
        span.set_attribute("precedente.search.top_k", body.top_k)  # never the query's text
        try:
            response = await run_search(body, request, who, pool)
            outcome = "ok"
        finally:
            telemetry.SEARCH_SECONDS.labels(outcome).observe(time.perf_counter() - started)
        await audit.record(
            pool,
            who,
            "search",
            document_ids=[r.document_id for r in response.results],
            query=body.query,
            filters=body.filters.model_dump(mode="json", exclude_none=True) if body.filters else None,
            detail={"top_k": body.top_k, "results": len(response.results)},
        )
        telemetry.SEARCH_RESULTS.observe(len(response.results))
        span.set_attribute("precedente.search.results", len(response.results))
        return response

    async def run_search(body: SearchRequest, request: Request, who: Any, pool: Any) -> SearchResponse:
        if problem := await request.app.state.index_guard.problem(pool):
            raise HTTPException(503, problem)  # a query vector of another model would rank garbage
        state = request.app.state
        if getattr(state, "query_vectors", None) is None or state.query_vectors.embedder is not state.embedder:
            state.query_vectors = QueryCache(state.embedder)
        vector = await asyncio.to_thread(state.query_vectors.query, parse_query(body.query).text)
        wanted = body.offset + body.top_k
        candidates = Candidates(settings.search_candidates, settings.search_lexical_candidates).at_least(wanted)
        # The seed's stage 2: the model reorders the first page's top candidates (by relevance only).
        rerank = use_llm and body.offset == 0 and body.sort == "relevance"
        shown = max(body.top_k, settings.rerank_llm_candidates) if rerank else body.top_k
        page = await hybrid_search(pool, body, vector, who.groups, candidates, ranking, limit=shown)
        results = page.results
        if rerank and (chosen := await llm_rerank(body.query, results, settings, top_n=min(body.top_k, 5))):
            picked = {result.work_id for result in chosen}
            results = chosen + [r for r in results if r.work_id not in picked]
        return SearchResponse(
            results=results[: body.top_k],
            facets=page.facets,
            total=page.total,
            relevant_total=page.relevant_total,
            offset=body.offset,
            no_strong_match=page.no_strong_match,
            vague_query=page.vague,
        )

    @app.post("/documents", status_code=202, response_model=UploadAccepted)
    async def upload(
        request: Request,
        pool: DbDep,
        who: IngesterDep,
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
        request.app.state.authenticator.throttle(who, "upload")
        fields = (file.filename, access_groups, deny_groups, external_id, title, document_type, court)
        if any("\x00" in value for value in fields if value):  # PostgreSQL text cannot hold it: 422, not 500
            raise HTTPException(422, "form fields and the file name cannot contain NUL characters")
        data = await file.read(settings.max_upload_bytes + 1)
        if len(data) > settings.max_upload_bytes:
            raise HTTPException(413, f"file is larger than the limit of {settings.max_upload_bytes} bytes")
        content_type = await asyncio.to_thread(sniffed_content_type, data, file.filename or "document")
        groups = [g.strip() for g in (access_groups or EVERYONE).split(",") if g.strip()] or [EVERYONE]
        denied = [g.strip() for g in (deny_groups or "").split(",") if g.strip()]  # ethical walls: a deny wins
        try:
            hints = MetadataHints(title=title, document_type=document_type, court=court, document_date=document_date)
        except ValidationError as err:
            raise HTTPException(422, str(err)) from err
        content_hash = hashlib.sha256(data).hexdigest()
        filename = file.filename or "document"
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
                await outbox.relay_for(request.app.state).submit(submission.event)  # the ledger row is the outbox
        accepted = UploadAccepted(document_id=submission.document_id, outcome=submission.outcome)
        detail = {
            "outcome": submission.outcome,
            "size_bytes": len(data),
            "access_groups": groups,
            "deny_groups": denied,
        }
        await audit.record(pool, who, "document.upload", document_ids=[submission.document_id], detail=detail)
        return JSONResponse(accepted.model_dump(mode="json"), status_code=202 if submission.event else 200)

    @app.delete("/documents/{document_id}", response_model=UploadAccepted)
    async def delete_document(
        document_id: uuid.UUID, request: Request, who: IngesterDep, pool: DbDep, source: Source = Source.UPLOAD
    ) -> Any:
        """Delete a document the caller may see (404 otherwise): the ledger marks it deleted at once, so no
        stage still working on it can index it, and documents.deleted removes its chunks and payloads.
        Deleting it again answers 200 "already_deleted" (and asks for the clean-up again, harmlessly)."""
        row = await visible_document(pool, document_id, who)
        event = DocumentDeleted(document_id=document_id, version=row["version"], source=source)
        async with pool.acquire() as conn, conn.transaction():  # the deletion and its event, or neither
            detail = f"deleted ({source.value}) by {who.user}"
            marked = await ledger.mark_deleted(conn, document_id, row["version"], detail)
            queued = await outbox.enqueue(conn, Topic.DELETED, event)
        await outbox.relay_for(request.app.state).send(queued)  # or later, when the broker is back
        await audit.record(pool, who, "document.delete", document_ids=[document_id], detail={"source": source.value})
        accepted = UploadAccepted(document_id=document_id, outcome="deleted" if marked else "already_deleted")
        return JSONResponse(accepted.model_dump(mode="json"), status_code=202 if marked else 200)

    @app.get("/documents/{document_id}")
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
            row = await pool.fetchrow(
                "SELECT *, " + ACCESS_CLAUSE + " AS visible FROM documents WHERE id = $1", document_id, who.groups
            )
            if row is None:
                raise HTTPException(404, "document not found")
            walled = not row["visible"]
        else:
            row, walled = await visible_document(pool, document_id, who), False
        action = "document.break_glass" if walled else "document.open"
        await audit.record(
            pool, who, action, document_ids=[document_id], detail={"reason": break_glass} if walled else None
        )
        if row["stage"] == Stage.DELETED:
            raise HTTPException(410, "document deleted by its owner")  # its original is gone with it
        content = await get_blob(pool, row["blob_key"])
        media_type = row["content_type"] or "application/octet-stream"
        if passage is not None and media_type.startswith("application/pdf"):
            chunk = await pool.fetchrow(
                "SELECT page_start, page_end, text FROM chunks WHERE id = $1 AND document_id = $2", passage, document_id
            )
            if chunk is None:
                raise HTTPException(404, "passage not found in this document")
            highlighted = await asyncio.to_thread(
                highlight_passage, content, chunk["page_start"], chunk["page_end"], chunk["text"]
            )
            content = highlighted or content  # no text layer to mark (a scan): the original as it is
        # A filename is the uploader's text: ASCII without quotes or control characters in filename=, the
        # rest percent-encoded in filename*, so it can neither break the header nor inject another one.
        # Only the name, never a path the uploader sent ("../../etc/passwd" is served as "passwd").
        name = PureWindowsPath(PurePosixPath(row["filename"]).name).name or "document"
        ascii_name = "".join(c if 32 <= ord(c) < 127 and c not in '"\\;' else "_" for c in name)
        utf8_name = quote(name, safe="")  # RFC 5987: every byte outside attr-char escaped
        headers = {
            "Content-Disposition": f"inline; filename=\"{ascii_name}\"; filename*=UTF-8''{utf8_name}",
            "X-Content-Type-Options": "nosniff",
        }
        if not media_type.startswith("application/pdf"):  # (a sandbox would keep browsers from showing a PDF)
            headers["Content-Security-Policy"] = "sandbox; default-src 'none'"  # an HTML original runs nothing
        return Response(content, media_type=media_type, headers=headers)

    @app.get("/documents/{document_id}/status", response_model=DocumentStatus)
    async def status(document_id: uuid.UUID, who: ReaderDep, pool: DbDep) -> DocumentStatus:
        """Also for whoever submitted it, whatever its access list: an uploader follows what they sent."""
        row = await visible_document(pool, document_id, who, or_submitted=True)
        history = await pool.fetch(
            "SELECT version, stage, detail, at FROM document_history WHERE document_id = $1 ORDER BY id",
            document_id,
        )
        return DocumentStatus(
            document_id=row["id"],
            filename=row["filename"],
            stage=row["stage"],
            version=row["version"],
            attempts=row["attempts"],
            error=row["last_error"],
            weak_pages=list(row["weak_pages"]),
            ocr_confidence=row["ocr_confidence"],
            page_count=row["page_count"],
            chunk_count=row["chunk_count"],
            title=row["title"],
            document_type=row["document_type"],
            court=row["court"],
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
            history=[dict(h) for h in history],
        )

    return app
