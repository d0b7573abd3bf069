"""The fields of acts and works of doctrine (migration 0013) against a real PostgreSQL: the annotator's ledger write
stores every DocumentMetadata field on the document's row, and the indexer copies the subtype onto its chunks."""

import asyncpg
import pytest

from precedente.services.annotator.service import ledger_fields
from precedente.shared.contracts import DocumentAnnotated, Stage
from precedente.shared.payloads import DocumentMetadata
from precedente.shared.runtime import ledger
from precedente.shared.settings import Settings
from tests.helpers.indexing import index_with_the_indexer

DIRECTIVE = DocumentMetadata(
    title="Directive 2011/83/EU",
    document_type="ato_normativo",
    document_subtype="diretiva",
    act_number="2011/83/EU",
    issuing_body="European Parliament and the Council",
)
THESIS = DocumentMetadata(
    title="Redes contratuais com função de distribuição",
    document_type="doutrina",
    document_subtype="tese",
    authors=["Rafael Induzzi Drews"],
    venue="Universidade de São Paulo",
    year=2017,
)


async def test_the_indexer_copies_the_subtype_to_chunks(pool: asyncpg.Pool) -> None:
    document_id = await index_with_the_indexer(
        pool, Settings(), ["Article 1. The purpose of this Directive.", "Article 2. Definitions."], metadata=DIRECTIVE
    )
    rows = await pool.fetch("SELECT document_type, document_subtype FROM chunks WHERE document_id = $1", document_id)
    assert [tuple(r) for r in rows] == [("ato_normativo", "diretiva")] * 2


@pytest.mark.parametrize("metadata", [DIRECTIVE, THESIS], ids=["act", "thesis"])
async def test_the_ledger_row_holds_the_new_fields(pool: asyncpg.Pool, metadata: DocumentMetadata) -> None:
    document_id = await index_with_the_indexer(pool, Settings(), ["texto"], metadata=metadata)
    event = DocumentAnnotated(document_id=document_id, chunks_key="k", chunk_count=1)
    assert await ledger.advance(pool, event, Stage.ANNOTATED, **ledger_fields(metadata))
    row = await pool.fetchrow(
        "SELECT document_subtype, act_number, issuing_body, authors, venue, year FROM documents WHERE id = $1",
        document_id,
    )
    expected = metadata.model_dump(
        include={"document_subtype", "act_number", "issuing_body", "authors", "venue", "year"}
    )
    assert dict(row) == expected
