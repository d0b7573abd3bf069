"""A petition's requests (migration 0020) against a real PostgreSQL: the annotator's ledger write stores them on the
document's row, in order."""

import asyncpg

from precedente.services.annotator.service import ledger_fields
from precedente.shared.contracts import DocumentAnnotated, Stage
from precedente.shared.payloads import DocumentMetadata
from precedente.shared.runtime import ledger
from precedente.shared.settings import Settings
from tests.helpers.indexing import index_with_the_indexer

PETITION = DocumentMetadata(
    title="Ação de Indenização por Danos Morais",
    document_type="peticao",
    document_subtype="peticao_inicial",
    pedidos=["a citação do Réu para, querendo, apresentar contestação", "a procedência do pedido"],
)


async def test_the_ledger_row_holds_the_pedidos(pool: asyncpg.Pool) -> None:
    document_id = await index_with_the_indexer(pool, Settings(), ["texto"], metadata=PETITION)
    event = DocumentAnnotated(document_id=document_id, chunks_key="k", chunk_count=1)
    assert await ledger.advance(pool, event, Stage.ANNOTATED, **ledger_fields(PETITION))
    stored = await pool.fetchval("SELECT pedidos FROM documents WHERE id = $1", document_id)
    assert stored == PETITION.pedidos
