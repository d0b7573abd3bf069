"""Documents registered in the real ledger (shared/runtime/ledger.py), as an upload or `precedente ingest` would, for
tests that need a document to exist before their stage runs."""

import uuid

import asyncpg

from precedente.shared.contracts import DocumentAnnotated, MetadataHints, Source, Stage
from precedente.shared.infra.storage import put_model, stage_key
from precedente.shared.payloads import AnnotatedChunks, Chunk, DocumentMetadata
from precedente.shared.runtime import ledger


async def register(
    pool: asyncpg.Pool,
    *,
    external_id: str | None = None,
    content_hash: str | None = None,
    filename: str = "decisao.pdf",
    size_bytes: int = 10,
    source: Source = Source.CLI,
    access_groups: list[str] | None = None,
    deny_groups: list[str] | None = None,
) -> ledger.Submission:
    """A PDF submitted to the ledger: new bytes (a random hash) unless given; a new document unless
    `external_id` names a known one, whose new version it then is."""
    content_hash = content_hash or uuid.uuid4().hex
    return await ledger.register_submission(
        pool,
        external_id=external_id or f"test:{content_hash}",
        filename=filename,
        content_type="application/pdf",
        content_hash=content_hash,
        size_bytes=size_bytes,
        source=source,
        access_groups=access_groups or ["*"],
        hints=MetadataHints(),
        deny_groups=deny_groups,
    )


async def annotated(pool: asyncpg.Pool, texts: list[str], title: str = "REsp 1.433.940/MG") -> DocumentAnnotated:
    """A document registered and annotated in the real ledger, its chunks (one per text) stored: the indexer's
    input."""
    submission = await register(pool)
    chunks = [
        Chunk(ordinal=i, text=t, page_start=1, page_end=1, char_start=0, char_end=len(t), token_count=90)
        for i, t in enumerate(texts)
    ]
    key = await put_model(
        pool,
        stage_key(submission.document_id, 1, "annotated"),
        AnnotatedChunks(metadata=DocumentMetadata(title=title), chunks=chunks),
    )
    event = DocumentAnnotated(document_id=submission.document_id, chunks_key=key, chunk_count=len(chunks))
    assert await ledger.advance(pool, event, Stage.ANNOTATED)
    return event
