"""Chunks written by the indexer stage's own handler, as the pipeline would, for tests that need an index."""

import uuid

import asyncpg

from precedente.services.indexer.service import PASSAGES_EMBEDDED, PASSAGES_REUSED
from precedente.services.indexer.service import handle as index_document
from precedente.shared.contracts import DocumentAnnotated
from precedente.shared.infra.storage import put_model, stage_key
from precedente.shared.payloads import AnnotatedChunks, Chunk, DocumentMetadata
from precedente.shared.runtime.stage import StageContext
from precedente.shared.settings import Settings
from tests.helpers.ledger import register
from tests.helpers.samples import read_pages


async def index_with_the_indexer(
    pool: asyncpg.Pool,
    settings: Settings,
    texts: list[str],
    access_groups: list[str] | None = None,
    metadata: DocumentMetadata | None = None,
    deny_groups: list[str] | None = None,
    chunks: list[Chunk] | None = None,
) -> uuid.UUID:
    """One document of these chunks, registered in the ledger and indexed; returns its id.

    chunks: the chunker's own chunks (offsets, section_path, is_ementa), indexed as they are instead of `texts`.
    """
    submission = await register(pool, access_groups=access_groups, deny_groups=deny_groups)
    if chunks is None:
        chunks, offset = [], 0
        for i, text in enumerate(texts):
            chunks.append(
                Chunk(
                    ordinal=i,
                    text=text,
                    page_start=1,
                    page_end=1,
                    char_start=offset,
                    char_end=offset + len(text),
                    token_count=20,
                )
            )
            offset += len(text) + 2
    key = await put_model(
        pool,
        stage_key(submission.document_id, 1, "annotated"),
        AnnotatedChunks(metadata=metadata or DocumentMetadata(title="Decisão"), chunks=chunks),
    )
    event = DocumentAnnotated(document_id=submission.document_id, chunks_key=key, chunk_count=len(chunks))
    await index_document(event, StageContext(settings=settings, db=pool, broker=None))  # type: ignore[arg-type]
    return submission.document_id


def passages(count: int, size: int = 420) -> list[str]:
    """Paragraph-sized pieces of a real acórdão (the STJ's REsp 1.433.940/MG), as the chunker would cut them."""
    text = " ".join(" ".join(p.text.split()) for p in read_pages("stj_resp_1433940_mg_acordao.pdf"))
    pieces = [text[i : i + size] for i in range(0, len(text), size)]
    assert len(pieces) >= count
    return pieces[:count]


def embedded() -> float:
    """Passages the indexer embedded in this process so far (every engine)."""
    return sum(s.value for m in PASSAGES_EMBEDDED.collect() for s in m.samples if s.name.endswith("_total"))


def reused() -> float:
    return sum(s.value for m in PASSAGES_REUSED.collect() for s in m.samples if s.name.endswith("_total"))


async def persisted(pool: asyncpg.Pool, document_id: uuid.UUID) -> int:
    return await pool.fetchval("SELECT count(*) FROM computed_vectors WHERE document_id = $1", document_id)
