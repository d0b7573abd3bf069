"""Annotator stage: chunks + cleaned pages -> document metadata (type, court, date, title)."""

from services.annotator.logic import annotate
from shared import ledger
from shared.contracts import DocumentAnnotated, DocumentChunked, MetadataHints, Stage, Topic
from shared.payloads import AnnotatedChunks, ChunkedDocument, ExtractedDocument
from shared.stage import Outcome, StageContext, StageService
from shared.storage import get_model, put_model, stage_key

LEDGER_FIELDS = {"title", "document_type", "court", "document_date"}


async def handle(event: DocumentChunked, ctx: StageContext) -> Outcome:
    chunked = await get_model(ctx.db, event.chunks_key, ChunkedDocument)
    cleaned = await get_model(ctx.db, stage_key(event.document_id, event.version, Stage.CLEANED), ExtractedDocument)
    row = await ledger.current(ctx.db, event.document_id)
    if row is None:
        raise LookupError(f"document {event.document_id} vanished from the ledger")
    metadata = annotate(cleaned.pages, row["filename"], MetadataHints.model_validate(row["hints"]))
    key = await put_model(
        ctx.db,
        stage_key(event.document_id, event.version, Stage.ANNOTATED),
        AnnotatedChunks(metadata=metadata, chunks=chunked.chunks),
    )
    return Outcome(
        topic=Topic.ANNOTATED,
        event=event.follow(DocumentAnnotated, chunks_key=key, chunk_count=len(chunked.chunks)),
        stage=Stage.ANNOTATED,
        # Only the columns the ledger has; the legal fields travel in the stored payload until the
        # database has columns for them.
        ledger_fields=metadata.model_dump(include=LEDGER_FIELDS),
    )


SERVICE = StageService(
    name="annotator",
    input_topic=Topic.CHUNKED,
    input_stage=Stage.CHUNKED,
    output_stage=Stage.ANNOTATED,
    handler=handle,
)
