"""`precedente pastas` against the real search service served over HTTP (uvicorn on a free 127.0.0.1 port, the
module's own PostgreSQL): create a folder, list it, show its items with citation, page and note, export it to a
DOCX read back with python-docx and to text; only what the credential may see, and errors as one line."""

import io
import uuid
from collections.abc import Iterator
from pathlib import Path

import asyncpg
import docx
import httpx
import pytest

from precedente.cli.folders import item_lines
from precedente.shared.payloads import DocumentMetadata
from precedente.shared.settings import Settings
from tests.helpers.identity import key_headers
from tests.helpers.indexing import index_with_the_indexer
from tests.helpers.served import run_cli as run
from tests.helpers.served import served_search_app

VOTO = "A inscrição indevida do nome do consumidor em cadastro de inadimplentes gera dano moral in re ipsa."
SIGILOSO = "Parecer sigiloso sobre a estratégia do cliente Acme na ação revisional."


@pytest.fixture(scope="module")
def api(database_url: str) -> Iterator[str]:
    with served_search_app(database_url, Settings(database_url=database_url, rate_limit_searches_per_minute=0)) as url:
        yield url


@pytest.fixture(scope="module")
async def world(pool: asyncpg.Pool) -> dict[str, uuid.UUID]:
    settings = Settings(database_url="postgresql://unused")
    ids = {
        "resp": await index_with_the_indexer(pool, settings, [VOTO], metadata=DocumentMetadata(title="REsp")),
        "sigiloso": await index_with_the_indexer(pool, settings, [SIGILOSO], access_groups=["socios"]),
    }
    await pool.execute(
        "UPDATE documents SET title = 'REsp 1.433.940/MG', document_type = 'acordao', court = 'stj',"
        " process_number = '1.433.940/MG', procedural_class = 'REsp', relator = 'Ricardo Villas Bôas Cueva',"
        " judging_body = '3ª Turma', judgment_date = '2017-09-26' WHERE id = $1",
        ids["resp"],
    )
    return ids


async def test_pastas_create_list_show_and_export(
    api: str,
    pool: asyncpg.Pool,
    world: dict[str, uuid.UUID],
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    key = (await key_headers(pool, "search", groups="contencioso"))["Authorization"].removeprefix("Bearer ")
    monkeypatch.setenv("PRECEDENTE_API_URL", api)
    monkeypatch.setenv("PRECEDENTE_API_KEY", key)
    monkeypatch.setenv("COLUMNS", "100")

    status, out, err = run(capsys, "pastas", "create", "Cliente Acme: negativação", "--compartilhar", "contencioso")
    assert status == 0, err
    assert out.startswith("Pasta ") and "criada: Cliente Acme: negativação, compartilhada com contencioso." in out
    folder_id = out.split()[1]
    # Kept through the API (the page's "Adicionar à pasta"): the open decision, with a note; the walled opinion
    # is refused, so nothing of it reaches the folder.
    passage = await pool.fetchval("SELECT min(id) FROM chunks WHERE document_id = $1", world["resp"])
    async with httpx.AsyncClient(base_url=api, headers={"Authorization": f"Bearer {key}"}) as client:
        body = {"document_id": str(world["resp"]), "passage_id": passage, "note": "Usar no item III."}
        assert (await client.post(f"/folders/{folder_id}/items", json=body)).status_code == 201
        hidden = await pool.fetchval("SELECT min(id) FROM chunks WHERE document_id = $1", world["sigiloso"])
        body = {"document_id": str(world["sigiloso"]), "passage_id": hidden}
        assert (await client.post(f"/folders/{folder_id}/items", json=body)).status_code == 404

    status, out, err = run(capsys, "pastas", "list")
    assert status == 0, err
    assert folder_id in out and "Cliente Acme" in out and "contencioso" in out and "1 pasta" in out

    status, out, err = run(capsys, "pastas", "mostrar", folder_id)
    assert status == 0, err
    lines = out.splitlines()
    assert lines[0] == f"Cliente Acme: negativação ({folder_id}): 1 item; compartilhada com contencioso"
    text = " ".join(out.split())
    assert "1. STJ, REsp 1.433.940/MG, Rel. Min. Ricardo Villas Bôas Cueva, Terceira Turma" in text
    assert f"“{VOTO}” (p. 1)" in text and "Nota: Usar no item III." in text and SIGILOSO not in text

    target = tmp_path / "pasta.docx"
    status, out, err = run(capsys, "pastas", "export", folder_id, "--docx", str(target))
    assert status == 0, err
    assert f"exportada para {target}" in out
    document = docx.Document(io.BytesIO(target.read_bytes()))
    headings = [p.text for p in document.paragraphs if p.style is not None and p.style.name == "Heading 1"]
    assert headings[0].startswith("STJ, REsp 1.433.940/MG") and headings[-1] == "Referências"
    assert f"“{VOTO}” (p. 1)" in [p.text for p in document.paragraphs]

    status, out, err = run(capsys, "pastas", "export", folder_id)  # text, on the screen
    assert status == 0, err
    assert out.startswith("Cliente Acme: negativação\n") and "Nota: Usar no item III." in out

    status, out, err = run(capsys, "pastas", "show", "naoexiste")
    assert status == 1 and out == "" and err.startswith("precedente: 404 Not Found: folder not found")
    assert len(err.strip().splitlines()) == 1


def test_an_item_wraps_and_gives_its_pages() -> None:
    item = {"citation": None, "document_title": "Parecer interno", "passage": "palavra " * 40, "page_number": 2,
            "page_end": 3, "note": "nota", "added_by": "ana", "added_at": "2026-12-03T10:00:00+00:00"}  # fmt: skip
    lines = item_lines(4, item, 60)
    assert lines[0] == "4. Parecer interno" and all(len(line) <= 60 for line in lines)
    assert lines[-3].endswith("(p. 2-3)") and lines[-2] == "   Nota: nota"
    assert lines[-1] == "   incluído por ana em 03/12/2026 10:00"
