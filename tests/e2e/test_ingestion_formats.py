"""Formats and hostile files through the real stack: e-mail with attachments, bombs, lies about types."""

import email.message

import pytest

from precedente.harness import RunningStack
from tests.helpers.hostile import docx_zip_bomb, image_bomb_pdf, many_pages_pdf, png_named_docx
from tests.helpers.office import small_docx
from tests.helpers.samples import DOCS

pytestmark = pytest.mark.e2e


def thread_with_attachments() -> bytes:
    message = email.message.EmailMessage()
    message["From"] = "Dra. Helena Prado <helena@escritorio.adv.br>"
    message["To"] = "cliente@construtora.com.br"
    message["Subject"] = "Parecer sobre o reequilíbrio econômico-financeiro"
    message["Date"] = "Tue, 03 Sep 2024 10:15:00 -0300"
    message.set_content(
        "Prezados, segue a análise: o pedido de reequilíbrio econômico-financeiro depende da prova de fato "
        "imprevisível posterior à proposta, conforme o art. 65, II, d, da Lei 8.666/1993."
    )
    message.add_attachment(
        (DOCS / "stj_agint_aresp_2560760_se_acordao.pdf").read_bytes(),
        maintype="application",
        subtype="pdf",
        filename="acordao_referencia.pdf",
    )
    message.add_attachment(
        small_docx("Minuta de aditivo contratual: prorrogação do prazo de vigência por doze meses."),
        maintype="application",
        subtype="vnd.openxmlformats-officedocument.wordprocessingml.document",
        filename="minuta_aditivo.docx",
    )
    return message.as_bytes()


def test_an_email_and_its_attachments_become_linked_documents(stack: RunningStack) -> None:
    parent = stack.upload(content=thread_with_attachments(), filename="reequilibrio.eml", access="infra")["document_id"]
    assert stack.wait_final({parent: "infra"})[parent]["stage"] == "indexed"
    children = stack.sql(
        f"SELECT string_agg(id::text || ' ' || filename, ',' ORDER BY filename) FROM documents"
        f" WHERE parent_id = '{parent}'"
    ).split(",")
    assert [c.split(" ", 1)[1] for c in children] == ["acordao_referencia.pdf", "minuta_aditivo.docx"]
    child_ids = {c.split(" ", 1)[0]: "infra" for c in children}
    statuses = stack.wait_final(child_ids)
    assert all(s["stage"] == "indexed" for s in statuses.values()), statuses

    hits = stack.search("reequilíbrio econômico-financeiro exige fato imprevisível", groups="infra")
    assert hits[0]["document_id"] == parent
    hits = stack.search("prorrogação da vigência do contrato por aditivo", groups="infra")
    assert next(h for h in hits if h["document_id"] in child_ids)
    assert all(h["document_id"] not in child_ids for h in stack.search("aditivo de prorrogação", groups="outros"))


def test_hostile_files_end_with_reasons_and_the_extractor_keeps_serving(stack: RunningStack) -> None:
    extractor_pid = stack.service_process("extractor").pid
    batch = {
        "dez_mil_paginas.pdf": (many_pages_pdf(), "review", "too_many_pages"),
        "bomba_imagem.pdf": (image_bomb_pdf(), "review", "image_bomb"),
        "bomba_zip.docx": (docx_zip_bomb(), "review", "zip_bomb"),
        "leia-me.txt": ((DOCS / "README.md").read_bytes(), "indexed", None),
    }
    ids = {name: stack.upload(content=data, filename=name)["document_id"] for name, (data, _, _) in batch.items()}
    statuses = stack.wait_final({document_id: None for document_id in ids.values()}, timeout=300)
    for name, (_, stage, code) in batch.items():
        status = statuses[ids[name]]
        assert status["stage"] == stage, (name, status)
        if code:
            queue = stack.client.get(f"/review/{ids[name]}").json()
            assert queue["reason_code"] == code and queue["reason"], (name, queue)
    assert stack.service_process("extractor").pid == extractor_pid
    # What no stage could ever read is refused at the door, by its bytes, whatever its name says.
    refused = stack.client.post("/documents", files={"file": ("foto.docx", png_named_docx())})
    assert refused.status_code == 415 and "PNG image" in refused.json()["detail"], refused.text
