"""Real files ingested as the stages would handle them, in this process: the extractor's, cleaner's, annotator's and
chunker's own logic (precedente inspect), the annotator's ledger write, then the indexer's handler."""

import uuid
from pathlib import Path

import asyncpg

from precedente.inspect import inspect_file
from precedente.services.annotator.service import ledger_fields
from precedente.services.indexer.service import handle as index_document
from precedente.shared.contracts import DocumentAnnotated, Stage
from precedente.shared.infra.storage import put_model, stage_key
from precedente.shared.payloads import AnnotatedChunks
from precedente.shared.runtime import ledger
from precedente.shared.runtime.stage import StageContext
from precedente.shared.settings import Settings
from tests.helpers.ledger import register


async def ingest(pool: asyncpg.Pool, settings: Settings, path: Path) -> uuid.UUID:
    """The file as the stages handle it: annotated (the ledger row gets every metadata field), then indexed."""
    inspection = inspect_file(path, settings)
    assert inspection.metadata is not None and inspection.chunks, inspection.reasons
    submission = await register(pool, filename=path.name)
    key = await put_model(
        pool,
        stage_key(submission.document_id, 1, "annotated"),
        AnnotatedChunks(metadata=inspection.metadata, chunks=inspection.chunks),
    )
    event = DocumentAnnotated(document_id=submission.document_id, chunks_key=key, chunk_count=len(inspection.chunks))
    assert await ledger.advance(pool, event, Stage.ANNOTATED, **ledger_fields(inspection.metadata))
    await index_document(event, StageContext(settings=settings, db=pool, broker=None))  # type: ignore[arg-type]
    return submission.document_id
