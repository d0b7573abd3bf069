"""Annotator stage: chunks + cleaned pages -> legal metadata (type, court, dates, parties, citations...)."""

from typing import Any

from precedente.services.annotator.llm import annotate_with_llm
from precedente.shared.contracts import DocumentAnnotated, DocumentChunked, MetadataHints, Stage, Topic
from precedente.shared.infra.storage import get_model, put_model, stage_key
from precedente.shared.payloads import AnnotatedChunks, ChunkedDocument, DocumentMetadata, ExtractedDocument
from precedente.shared.runtime import ledger
from precedente.shared.runtime.stage import Outcome, StageContext, StageService


async def handle(event: DocumentChunked, ctx: StageContext) -> Outcome:
    chunked = await get_model(ctx.db, event.chunks_key, ChunkedDocument)
    cleaned = await get_model(ctx.db, stage_key(event.document_id, event.version, Stage.CLEANED), ExtractedDocument)
    row = await ledger.current(ctx.db, event.document_id)
    if row is None:
        raise LookupError(f"document {event.document_id} vanished from the ledger")
    try:  # the extracted pages keep the letterheads and footers the cleaner drops (court, DJe date)
        raw = await get_model(ctx.db, stage_key(event.document_id, event.version, Stage.EXTRACTED), ExtractedDocument)
    except KeyError:
        raw = None
    metadata = await annotate_with_llm(
        cleaned.pages,
        row["filename"],
        MetadataHints.model_validate(row["hints"]),
        raw.pages if raw else None,
        ctx.settings,
    )
    key = await put_model(
        ctx.db,
        stage_key(event.document_id, event.version, Stage.ANNOTATED),
        AnnotatedChunks(metadata=metadata, chunks=chunked.chunks),
    )
    return Outcome(
        topic=Topic.ANNOTATED,
        event=event.follow(DocumentAnnotated, chunks_key=key, chunk_count=len(chunked.chunks)),
        stage=Stage.ANNOTATED,
        ledger_fields=ledger_fields(metadata),
    )


def ledger_fields(metadata: DocumentMetadata) -> dict[str, Any]:
    """The ledger's columns for the metadata (parties as JSON, who-set-what as metadata_sources)."""
    fields = metadata.model_dump(exclude={"sources", "parties"})
    fields["parties"] = [party.model_dump() for party in metadata.parties]
    fields["metadata_sources"] = metadata.sources
    fields["redator_unread"] = False  # read now (migration 0033: the indexer's backfill reads older rows)
    return fields


SERVICE = StageService.declared("annotator", handle)
