"""Work identity at indexing, against a real PostgreSQL: documents go through the indexer's own handler
(tests/helpers/indexing.py) with page texts of real decisions of ../shared/docs, and their work is read back as the
search service reads it, coalesce(work_id, id)."""

import asyncio
import uuid
from functools import cache

import asyncpg
import pytest

from precedente.services.indexer.deletions import purge
from precedente.services.indexer.service import handle
from precedente.services.indexer.works import assign_work, backfill
from precedente.shared.contracts import DocumentAnnotated, DocumentDeleted
from precedente.shared.infra.storage import put_model, stage_key
from precedente.shared.payloads import AnnotatedChunks, Chunk, DocumentMetadata
from precedente.shared.runtime.stage import StageContext
from precedente.shared.settings import Settings
from tests.helpers.indexing import index_with_the_indexer
from tests.helpers.ledger import register
from tests.helpers.ocr import ocr_noisy
from tests.helpers.samples import DOCS, read_pages

PLAIN = DocumentMetadata(title="decisao.pdf")  # a file whose metadata says nothing about what it is
RESP_1602076 = DocumentMetadata(
    title="REsp 1.602.076/SP", document_type="acordao", court="stj", process_number="REsp 1.602.076/SP"
)
AGINT = DocumentMetadata(
    title="AgInt no AREsp 2.560.760/SE",
    document_type="acordao",
    court="stj",
    process_number="AgInt no AREsp 2.560.760/SE",
)


@pytest.fixture(scope="module")
def settings() -> Settings:
    return Settings()


@cache
def pages(name: str) -> list[str]:
    return [p.text for p in read_pages(name)]


def scanned(name: str) -> list[str]:
    """The ground-truth text of a scan of ../shared/docs/scanned, page by page."""
    return (DOCS / "scanned" / name).read_text().split("\f")


async def work_of(pool: asyncpg.Pool, document_id: uuid.UUID) -> uuid.UUID:
    return await pool.fetchval("SELECT coalesce(work_id, id) FROM documents WHERE id = $1", document_id)


async def work_rows(pool: asyncpg.Pool) -> list[tuple]:
    rows = await pool.fetch("SELECT id, work_id, work_reason, work_keys, work_bands FROM documents ORDER BY id")
    return [tuple(r) for r in rows]


async def reindex(pool: asyncpg.Pool, settings: Settings, event: DocumentAnnotated) -> None:
    await handle(event, StageContext(settings=settings, db=pool, broker=None))  # type: ignore[arg-type]


async def new_version(
    pool: asyncpg.Pool, settings: Settings, document_id: uuid.UUID, texts: list[str], metadata: DocumentMetadata
) -> DocumentAnnotated:
    """The same document submitted again with other content, through the ledger, and indexed."""
    external_id = await pool.fetchval("SELECT external_id FROM documents WHERE id = $1", document_id)
    submission = await register(pool, external_id=external_id)
    assert submission.outcome == "new_version" and submission.event is not None
    version = submission.event.version
    chunks = [
        Chunk(ordinal=i, text=t, page_start=1, page_end=1, char_start=0, char_end=len(t), token_count=20)
        for i, t in enumerate(texts)
    ]
    key = await put_model(
        pool, stage_key(document_id, version, "annotated"), AnnotatedChunks(metadata=metadata, chunks=chunks)
    )
    event = DocumentAnnotated(document_id=document_id, version=version, chunks_key=key, chunk_count=len(chunks))
    await reindex(pool, settings, event)
    return event


async def test_copies_join_an_unrelated_decision_does_not_and_redelivery_changes_nothing(pool, settings) -> None:
    pdf = await index_with_the_indexer(pool, settings, pages("stj_resp_1433940_mg_acordao.pdf")[:3], metadata=PLAIN)
    scan = await index_with_the_indexer(
        pool, settings, scanned("stj_resp_1433940_mg_scan.groundtruth.txt")[:3], metadata=PLAIN
    )
    noisy = await index_with_the_indexer(
        pool, settings, [ocr_noisy(t, rate=0.04) for t in pages("stj_resp_1433940_mg_acordao.pdf")[:3]]
    )
    unrelated = await index_with_the_indexer(
        pool, settings, pages("tjrj_agravo_instrumento_0017387-33.2017_acordao.pdf")[:3], metadata=PLAIN
    )
    assert await work_of(pool, scan) == await work_of(pool, noisy) == await work_of(pool, pdf) == pdf
    assert await work_of(pool, unrelated) == unrelated
    row = await pool.fetchrow("SELECT work_id, work_reason, work_keys, work_bands FROM documents WHERE id = $1", scan)
    assert row["work_id"] == pdf and row["work_reason"].startswith("similarity 1.00 with ")
    assert row["work_keys"] == [] and len(row["work_bands"]) == 42
    root = await pool.fetchrow("SELECT work_id, work_reason FROM documents WHERE id = $1", pdf)
    assert (root["work_id"], root["work_reason"]) == (pdf, None)  # the oldest member names the work
    assert await pool.fetchval("SELECT work_id FROM documents WHERE id = $1", unrelated) is None

    before = await work_rows(pool)
    key = stage_key(scan, 1, "annotated")
    await reindex(pool, settings, DocumentAnnotated(document_id=scan, chunks_key=key, chunk_count=3))
    assert await work_rows(pool) == before


async def test_an_ementa_only_copy_joins_by_key_and_a_bridge_merges_two_works_until_it_is_deleted(
    pool, settings
) -> None:
    full = pages("stj_resp_1602076_sp_acordao.pdf")[:6]
    pdf = await index_with_the_indexer(pool, settings, full, metadata=PLAIN)  # no case number read
    ementa = await index_with_the_indexer(pool, settings, full[:1], metadata=RESP_1602076)
    extract = await index_with_the_indexer(pool, settings, full[:1], metadata=RESP_1602076)
    assert await work_of(pool, extract) == await work_of(pool, ementa) == ementa
    assert await work_of(pool, pdf) == pdf  # the ementa is a sixth of the text: no similarity, no key
    reason = await pool.fetchval("SELECT work_reason FROM documents WHERE id = $1", extract)
    assert reason == f"key stj:resp:1602076:acordao with {ementa}"

    # A scan of the whole decision whose caption was read: similar to the PDF, same key as the extracts.
    bridge = await index_with_the_indexer(
        pool, settings, [ocr_noisy(t, rate=0.03) for t in full], metadata=RESP_1602076
    )
    for document in (ementa, extract, bridge):
        assert await work_of(pool, document) == pdf  # the younger work moved, all its rows
    assert await pool.fetchval("SELECT work_id FROM documents WHERE id = $1", ementa) == pdf

    # Deleted, the bridge no longer holds them together, and matches nothing new.
    await purge(pool, DocumentDeleted(document_id=bridge, version=1))
    assert await work_of(pool, pdf) == pdf
    assert await pool.fetchval("SELECT work_id FROM documents WHERE id = $1", pdf) is None
    assert await work_of(pool, ementa) == await work_of(pool, extract) == ementa
    gone = await pool.fetchrow("SELECT work_id, work_keys, work_bands FROM documents WHERE id = $1", bridge)
    assert (gone["work_id"], gone["work_keys"], gone["work_bands"]) == (None, [], [])
    again = await index_with_the_indexer(pool, settings, [ocr_noisy(t, rate=0.02, seed=3) for t in full])
    assert await work_of(pool, again) == pdf
    assert await work_of(pool, ementa) == ementa


async def test_a_new_version_recomputes_its_keys_and_leaves_a_work_it_no_longer_belongs_to(pool, settings) -> None:
    decision = pages("stj_agint_aresp_2560760_se_acordao.pdf")
    full = await index_with_the_indexer(pool, settings, decision[:4], metadata=AGINT)
    ementa = await index_with_the_indexer(pool, settings, decision[:1], metadata=AGINT)
    assert await work_of(pool, ementa) == full

    other = pages("parecer_pgjmg_procon_16-2022.pdf")[:2]
    event = await new_version(pool, settings, ementa, other, DocumentMetadata(title="Parecer", document_type="parecer"))
    assert await pool.fetchval("SELECT work_keys FROM documents WHERE id = $1", ementa) == []
    assert await work_of(pool, ementa) == ementa
    assert await pool.fetchval("SELECT work_id FROM documents WHERE id = $1", full) is None  # alone again
    before = await work_rows(pool)
    await reindex(pool, settings, event)  # the new version redelivered
    assert await work_rows(pool) == before


async def test_two_replicas_indexing_two_copies_at_once_make_one_work(pool, settings) -> None:
    text = "\n".join(pages("tjsp_sentenca_vara_empresarial_arbitragem.pdf")[:3])
    first = await index_with_the_indexer(pool, settings, ["Primeiro arquivo."])  # too short to match anything
    second = await index_with_the_indexer(pool, settings, ["Segundo arquivo."])

    async def assign_in_own_transaction(conn: asyncpg.Connection) -> uuid.UUID:
        async with conn.transaction():
            return await assign_work(conn, second, PLAIN, ocr_noisy(text, rate=0.02))

    async with pool.acquire() as one, pool.acquire() as other:
        transaction = one.transaction()
        await transaction.start()
        assert await assign_work(one, first, PLAIN, text) == first  # not committed yet
        racing = asyncio.create_task(assign_in_own_transaction(other))
        await asyncio.sleep(1.0)
        assert not racing.done()  # the other replica waits for the lock instead of founding a second work
        await transaction.commit()
        assert await racing == first
    assert await work_of(pool, second) == await work_of(pool, first) == first


async def test_assign_work_returns_the_work_and_the_own_id_for_a_work_of_its_own(pool, settings) -> None:
    alone = await index_with_the_indexer(pool, settings, pages("mp_acao_civil_publica_peticao_inicial.pdf")[:2])
    copy = await index_with_the_indexer(pool, settings, pages("mp_acao_civil_publica_peticao_inicial.pdf")[:2])
    async with pool.acquire() as conn, conn.transaction():
        text = "\n".join(pages("mp_acao_civil_publica_peticao_inicial.pdf")[:2])
        assert await assign_work(conn, copy, PLAIN, text) == alone
        unrelated = "\n".join(pages("stj_resp_1543564_sp_acordao.pdf")[:2])
        assert await assign_work(conn, copy, PLAIN, unrelated) == copy


async def test_documents_indexed_before_work_identity_join_their_works_at_the_indexers_start(pool, settings) -> None:
    texts = pages("stj_agint_aresp_2560760_se_acordao.pdf")[:3]
    first = await index_with_the_indexer(pool, settings, texts, metadata=PLAIN)
    copy = await index_with_the_indexer(pool, settings, texts, metadata=PLAIN)
    keyed = await index_with_the_indexer(pool, settings, pages("stj_resp_1602076_sp_acordao.pdf")[:2], metadata=PLAIN)
    old = [first, copy, keyed]
    # As rows written before migration 0009 are: indexed, no fingerprint, no work; the metadata in its columns.
    await pool.execute(
        "UPDATE documents SET stage = 'indexed', work_id = NULL, work_reason = NULL, work_keys = '{}',"
        " work_bands = '{}', work_minhash = '{}' WHERE id = ANY($1::uuid[])",
        old,
    )
    await pool.execute(
        "UPDATE documents SET title = 'REsp 1.602.076/SP', document_type = 'acordao', court = 'stj',"
        " process_number = 'REsp 1.602.076/SP' WHERE id = $1",
        keyed,
    )
    assert await backfill(pool) == 3
    assert await work_of(pool, copy) == await work_of(pool, first)
    keys = await pool.fetchval("SELECT work_keys FROM documents WHERE id = $1", keyed)
    assert keys == ["stj:resp:1602076:acordao"]  # from the stored metadata
    assert await backfill(pool) == 0  # done once
