"""Indexer stage: annotated chunks -> passage embeddings and full text in pgvector, replacing old ones."""

import asyncio

import numpy as np

from shared.contracts import DocumentAnnotated, DocumentIndexed, Stage, Topic
from shared.embeddings import get_model, warm_up
from shared.payloads import AnnotatedChunks
from shared.stage import Outcome, StageContext, StageService
from shared.storage import get_model as get_stored

EMBED_BATCH = 16

CHUNK_COLUMNS = [
    "document_id", "version", "ordinal", "text", "page_start", "page_end", "char_start", "char_end",
    "token_count", "embedding", "document_type", "court", "document_date", "access_groups", "section_path",
    "is_ementa", "relator", "judging_body", "citations",
]  # fmt: skip


def embed_passages(texts: list[str], variant: str, threads: int) -> np.ndarray:
    model = get_model(variant, threads)
    parts = [model.passage(texts[i : i + EMBED_BATCH]) for i in range(0, len(texts), EMBED_BATCH)]
    return np.vstack(parts) if parts else np.zeros((0, 384), dtype=np.float32)


async def handle(event: DocumentAnnotated, ctx: StageContext) -> Outcome:
    annotated = await get_stored(ctx.db, event.chunks_key, AnnotatedChunks)
    chunks, meta = annotated.chunks, annotated.metadata
    vectors = await asyncio.to_thread(
        embed_passages, [c.text for c in chunks], ctx.settings.embedding_variant, ctx.settings.embedding_threads
    )
    async with ctx.db.acquire() as conn, conn.transaction():
        access = await conn.fetchval(
            "SELECT access_groups FROM documents WHERE id = $1 AND version = $2 FOR UPDATE",
            event.document_id,
            event.version,
        )
        if access is None:
            raise LookupError(f"document {event.document_id} v{event.version} is no longer current")
        # Replacing every chunk of the document makes redelivery and new versions idempotent.
        await conn.execute("DELETE FROM chunks WHERE document_id = $1", event.document_id)
        await conn.copy_records_to_table(
            "chunks",
            columns=CHUNK_COLUMNS,
            records=[
                (
                    event.document_id,
                    event.version,
                    c.ordinal,
                    c.text,
                    c.page_start,
                    c.page_end,
                    c.char_start,
                    c.char_end,
                    c.token_count,
                    vector,
                    meta.document_type,
                    meta.court,
                    meta.document_date,
                    list(access),
                    c.section_path,
                    c.is_ementa,
                    meta.relator,
                    meta.judging_body,
                    meta.citations,
                )  # fmt: skip
                for c, vector in zip(chunks, vectors, strict=True)
            ],
        )
    return Outcome(
        topic=Topic.INDEXED,
        event=event.follow(DocumentIndexed, chunk_count=len(chunks)),
        stage=Stage.INDEXED,
        detail=f"{len(chunks)} chunks",
        ledger_fields={"chunk_count": len(chunks)},
    )


SERVICE = StageService(
    name="indexer",
    input_topic=Topic.ANNOTATED,
    input_stage=Stage.ANNOTATED,
    output_stage=Stage.INDEXED,
    handler=handle,
    setup=warm_up,
)
