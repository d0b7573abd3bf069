"""Ementas read back from the index: real decisions of ../shared/docs cleaned and chunked by the pipeline's own
logic, written by the indexer into the embedded PostgreSQL, and rebuilt from their overlapping chunks.

Embedding is the slow part on a shared CPU, so each decision is indexed with its head only: every chunk up to
the end of its last ementa chunk, the extra is_ementa chunk, and the regular chunk after (the part the ementa
must not run into). The relatório and votos that follow hold no ementa chunk and are never read."""

import json
import uuid
from pathlib import Path

import asyncpg
import pytest

from precedente.services.chunker.logic import chunk_document
from precedente.services.cleaner.logic import clean_pages
from precedente.services.search.ementa import EMENTA_MAX_CHARS, ementas
from precedente.shared.embeddings.embedders import get_model
from precedente.shared.payloads import PAGE_SEPARATOR, Chunk, DocumentMetadata, Page
from precedente.shared.settings import Settings
from tests.helpers.indexing import index_with_the_indexer
from tests.helpers.samples import read_pages

RESP_1602076 = "stj_resp_1602076_sp_acordao.pdf"
GOLD = Path(__file__).resolve().parents[2] / "data" / "metadata_gold.json"

# Written by hand from the PDF: the ementa's heading on one line, then each numbered paragraph.
EMENTA_1602076 = (
    "RECURSO ESPECIAL. DIREITO CIVIL E PROCESSUAL CIVIL. CONTRATO DE FRANQUIA. CONTRATO DE ADESÃO. ARBITRAGEM."
    " REQUISITO DE VALIDADE DO ART. 4º, § 2º, DA LEI 9.307/96. DESCUMPRIMENTO. RECONHECIMENTO PRIMA FACIE DE"
    " CLÁUSULA COMPROMISSÓRIA “PATOLÓGICA”. ATUAÇÃO DO PODER JUDICIÁRIO. POSSIBILIDADE. NULIDADE RECONHECIDA."
    " RECURSO PROVIDO.\n"
    "1. Recurso especial interposto em 07/04/2015 e redistribuído a este gabinete em 25/08/2016.\n"
    "2. O contrato de franquia, por sua natureza, não está sujeito às regras protetivas previstas no CDC, pois não há"
    " relação de consumo, mas de fomento econômico.\n"
    "3. Todos os contratos de adesão, mesmo aqueles que não consubstanciam relações de consumo, como os contratos de"
    " franquia, devem observar o disposto no art. 4º, § 2º, da Lei 9.307/96.\n"
    "4. O Poder Judiciário pode, nos casos em que prima facie é identificado um compromisso arbitral “patológico”,"
    " i.e., claramente ilegal, declarar a nulidade dessa cláusula, independentemente do estado em que se encontre o"
    " procedimento arbitral.\n"
    "5. Recurso especial conhecido e provido."
)


@pytest.fixture(scope="module")
def settings() -> Settings:
    return Settings()


@pytest.fixture(scope="module")
def cleaned() -> dict[str, list[Page]]:
    names = [
        RESP_1602076,
        "stj_resp_1543564_sp_acordao.pdf",
        "stj_agint_aresp_2560760_se_acordao.pdf",
        "tjsp_sentenca_vara_empresarial_arbitragem.pdf",
    ]
    return {name: clean_pages(read_pages(name)) for name in names}


def chunked(
    pages: list[Page], settings: Settings, max_tokens: int | None = None, overlap: int | None = None
) -> list[Chunk]:
    """The chunks the chunker stage writes (its token counter, the document type guessed from the text)."""
    model = get_model(settings.embedding_variant, settings.embedding_threads)
    return chunk_document(
        pages,
        model.token_count,
        max_tokens=max_tokens or settings.chunk_max_tokens,
        overlap_tokens=overlap or settings.chunk_overlap_tokens,
    )


def in_ementa(chunk: Chunk) -> bool:
    return chunk.is_ementa or (chunk.section_path or "").split(" > ")[0] == "ementa"


def head(chunks: list[Chunk], extra: int = 1) -> list[Chunk]:
    """The chunks through the last ementa chunk, `extra` regular chunks after it, and the is_ementa chunks."""
    regular = [c for c in chunks if not c.is_ementa]
    last = max((i for i, c in enumerate(regular) if in_ementa(c)), default=-1)
    return regular[: last + 1 + extra] + [c for c in chunks if c.is_ementa]


@pytest.fixture(scope="module")
async def resp_1602076(pool: asyncpg.Pool, settings: Settings, cleaned: dict[str, list[Page]]) -> uuid.UUID:
    """REsp 1.602.076/SP chunked with the stage's settings and indexed once for the module."""
    chunks = chunked(cleaned[RESP_1602076], settings)
    assert any(c.is_ementa for c in chunks)  # the chunker's extra ementa chunk is there too
    return await index(pool, settings, head(chunks))


async def index(pool: asyncpg.Pool, settings: Settings, chunks: list[Chunk]) -> uuid.UUID:
    return await index_with_the_indexer(pool, settings, [], metadata=DocumentMetadata(title="Acórdão"), chunks=chunks)


def gold_subject(name: str) -> str:
    return next(d["subject"] for d in json.loads(GOLD.read_text(encoding="utf-8"))["documents"] if d["file"] == name)


async def test_the_ementa_of_an_acordao_as_the_pipeline_indexes_it(pool: asyncpg.Pool, resp_1602076: uuid.UUID) -> None:
    document_id = resp_1602076
    unknown = uuid.uuid4()
    found = await ementas(pool, [document_id, unknown])
    assert found == {document_id: EMENTA_1602076}
    assert found[document_id].split("\n")[0] == gold_subject(RESP_1602076)
    async with pool.acquire() as conn:  # a connection works as well as the pool
        assert await ementas(conn, [document_id]) == found
    assert await ementas(pool, []) == {}


async def test_overlapping_chunks_are_joined_without_repeating_the_overlap(
    pool: asyncpg.Pool, settings: Settings, cleaned: dict[str, list[Page]]
) -> None:
    chunks = chunked(cleaned[RESP_1602076], settings, max_tokens=128, overlap=32)
    regular = sorted((c for c in chunks if in_ementa(c) and not c.is_ementa), key=lambda c: c.char_start)
    assert len(regular) >= 3
    assert any(b.char_start < a.char_end for a, b in zip(regular, regular[1:], strict=False))  # they do overlap
    document_id = await index(pool, settings, head(chunks))
    assert (await ementas(pool, [document_id]))[document_id] == EMENTA_1602076


async def test_a_chunk_running_past_the_ementa_is_cut_at_its_end(
    pool: asyncpg.Pool, settings: Settings, cleaned: dict[str, list[Page]]
) -> None:
    """An ementa chunk that runs on into "ACÓRDÃO / Vistos, relatados..." (an older chunker's) stops at the ementa."""
    pages = cleaned[RESP_1602076]
    text = PAGE_SEPARATOR.join(p.text for p in pages)
    chunks = [c for c in head(chunked(pages, settings)) if not in_ementa(c)]
    acordao = next(c for c in chunks if c.section_path == "acordao")
    start = text.index("EMENTA")
    assert start < acordao.char_start and "Vistos, relatados" in text[start : acordao.char_end]
    long_ementa = Chunk(
        ordinal=max(c.ordinal for c in chunks) + 1,
        text=text[start : acordao.char_end],
        page_start=1,
        page_end=1,
        char_start=start,
        char_end=acordao.char_end,
        token_count=400,
        section_path="ementa",
        is_ementa=True,
    )
    document_id = await index(pool, settings, [*chunks, long_ementa])
    assert (await ementas(pool, [document_id]))[document_id] == EMENTA_1602076


async def test_an_ementa_printed_twice_is_given_once(
    pool: asyncpg.Pool, settings: Settings, cleaned: dict[str, list[Page]]
) -> None:
    name = "stj_agint_aresp_2560760_se_acordao.pdf"
    chunks = chunked(cleaned[name], settings)
    assert sum(1 for c in chunks if c.section_path == "ementa" and not c.is_ementa) == 2  # acórdão and inteiro teor
    document_id = await index(pool, settings, head(chunks))
    ementa = (await ementas(pool, [document_id]))[document_id]
    lines = ementa.split("\n")
    assert lines[0] == gold_subject(name)
    assert ementa.count("I. CASO EM EXAME") == 1
    assert [line for line in lines if line[:4] in ("I. C", "II. ", "III.", "IV. ")] == [
        "I. CASO EM EXAME",
        "II. QUESTÃO EM DISCUSSÃO",
        "III. RAZÕES DE DECIDIR",
        "IV. AGRAVO INTERNO DESPROVIDO.",
    ]
    assert lines[-2].startswith("5. A revisão das cláusulas contratuais") and lines[-2].endswith("Súmulas 5 e 7/STJ.")


async def test_a_long_ementa_is_cut_at_a_sentence_end(
    pool: asyncpg.Pool, settings: Settings, cleaned: dict[str, list[Page]]
) -> None:
    name = "stj_resp_1543564_sp_acordao.pdf"
    document_id = await index(pool, settings, head(chunked(cleaned[name], settings)))
    ementa = (await ementas(pool, [document_id]))[document_id]
    assert ementa.split("\n")[0] == gold_subject(name)
    assert len(ementa) <= EMENTA_MAX_CHARS
    # Paragraph 1.2 runs past the limit: kept up to its last full sentence that fits, the omission marked.
    assert ementa.endswith(
        "que, no art. 33, estabelece o prazo decadencial de 90 (noventa dias) para anular a sentença arbitral. (...)"
    )
    assert "1.1 Em se transportando a definição de sentença" in ementa


async def test_documents_without_an_ementa_are_absent(
    pool: asyncpg.Pool, settings: Settings, cleaned: dict[str, list[Page]], resp_1602076: uuid.UUID
) -> None:
    chunks = chunked(cleaned["tjsp_sentenca_vara_empresarial_arbitragem.pdf"], settings)
    assert not any(in_ementa(c) for c in chunks)
    sentenca = await index(pool, settings, head(chunks, extra=4))  # its opening: caption, relatório
    assert await ementas(pool, [sentenca, resp_1602076, sentenca]) == {resp_1602076: EMENTA_1602076}
