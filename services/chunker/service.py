"""Chunker stage: cleaned pages -> chunks sized for the embedding model, each knowing its pages."""

import asyncio

from precedente.services.chunker.logic import chunk_document
from precedente.shared.contracts import DocumentChunked, DocumentCleaned, Stage, Topic
from precedente.shared.embeddings.embedders import get_model, warm_up
from precedente.shared.infra.storage import get_model as get_stored
from precedente.shared.infra.storage import put_model, stage_key
from precedente.shared.payloads import ChunkedDocument, ExtractedDocument
from precedente.shared.runtime import ledger
from precedente.shared.runtime.stage import Outcome, StageContext, StageService


async def handle(event: DocumentCleaned, ctx: StageContext) -> Outcome:
    settings = ctx.settings
    cleaned = await get_stored(ctx.db, event.pages_key, ExtractedDocument)
    model = get_model(settings.embedding_variant, settings.embedding_threads)
    row = await ledger.current(ctx.db, event.document_id)
    hinted_type = (row["hints"] or {}).get("document_type") if row is not None else None
    chunks = await asyncio.to_thread(
        chunk_document,
        cleaned.pages,
        model.token_count,
        document_type=hinted_type,
        max_tokens=settings.chunk_max_tokens,
        overlap_tokens=settings.chunk_overlap_tokens,
    )
    key = await put_model(
        ctx.db, stage_key(event.document_id, event.version, Stage.CHUNKED), ChunkedDocument(chunks=chunks)
    )
    return Outcome(
        topic=Topic.CHUNKED,
        event=event.follow(DocumentChunked, chunks_key=key, chunk_count=len(chunks)),
        stage=Stage.CHUNKED,
        ledger_fields={"chunk_count": len(chunks)},
    )


SERVICE = StageService.declared("chunker", handle, setup=warm_up)
