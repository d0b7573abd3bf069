"""End to end through the real broker (Tansu) and the real PostgreSQL/pgvector, via `precedente up`."""

import re
import time
from pathlib import Path

import pymupdf
import pytest

from precedente.harness import RunningStack
from tests.helpers.office import contract_docx
from tests.helpers.pdfs import encrypted_pdf, first_pages_bytes
from tests.helpers.samples import DOCS

pytestmark = pytest.mark.e2e

NATIVE_PDFS = sorted(DOCS.glob("*.pdf"))
SCANNED_PDFS = sorted((DOCS / "scanned").glob("*.pdf"))
# The hard scan's first four pages (page 2 upside down, stamps over text): its 20 pages took 28 CPU-s of OCR for the
# same point (tests/services/extractor/test_ocr.py scores its pages 2, 7, 10 and 17 against the ground truth).
HARD_SCAN_PAGES = 4


SOLIDARITY_CLAUSE = (
    "A CONTRATADA responde integralmente pelos encargos trabalhistas e previdenciários de seus empregados, "
    "e o CONTRATANTE, na qualidade de tomador dos serviços, responderá de forma subsidiária caso a "
    "CONTRATADA deixe de pagar salários, férias e verbas rescisórias aos trabalhadores alocados no condomínio."
)


def passage_on_page(path: Path, page: int, words: int = 40) -> str:
    """A stretch of real text from one page, to search for it as a lawyer who remembers it would."""
    text = pymupdf.open(path)[page - 1].get_text()
    tokens = re.findall(r"[^\W\d_]{3,}", text)
    middle = max(len(tokens) // 2 - words // 2, 0)
    return " ".join(tokens[middle : middle + words])


@pytest.fixture(scope="module")
def ingested(stack: RunningStack) -> dict[str, dict]:
    """Every PDF of ../shared/docs (scans included) and a DOCX, ingested once for this module."""
    uploads: dict[str, str] = {}
    for path in NATIVE_PDFS:
        uploads[path.name] = stack.upload(path, external_id=f"test:{path.name}")["document_id"]
    for path in SCANNED_PDFS:
        content = first_pages_bytes(path, HARD_SCAN_PAGES) if "hard" in path.name else path.read_bytes()
        uploads[path.name] = stack.upload(content=content, filename=path.name, external_id=f"test:{path.name}")[
            "document_id"
        ]
    uploads["contrato_limpeza.docx"] = stack.upload(
        content=contract_docx(SOLIDARITY_CLAUSE), filename="contrato_limpeza.docx"
    )["document_id"]
    statuses = stack.wait_final({document_id: None for document_id in uploads.values()}, timeout=900)
    return {name: statuses[document_id] for name, document_id in uploads.items()}


def test_every_native_document_and_the_docx_are_indexed(ingested: dict[str, dict]) -> None:
    for name in [p.name for p in NATIVE_PDFS] + ["contrato_limpeza.docx"]:
        status = ingested[name]
        assert status["stage"] == "indexed", (name, status["error"])
        assert status["chunk_count"] > 0
        assert status["page_count"] >= 1
    assert ingested["contrato_limpeza.docx"]["page_count"] == 2
    assert ingested["contrato_limpeza.docx"]["document_type"] == "contrato"


def test_scans_are_read_by_ocr_or_sent_to_review_with_their_reason(ingested: dict[str, dict]) -> None:
    for path in SCANNED_PDFS:
        status = ingested[path.name]
        assert status["stage"] in ("indexed", "review"), status
        assert status["ocr_confidence"] is not None and status["ocr_confidence"] > 0.5
        if status["stage"] == "review":
            assert "OCR confidence" in status["error"]
    easy = ingested["stj_resp_1433940_mg_scan.pdf"]
    assert easy["stage"] == "indexed" and easy["page_count"] == 9


@pytest.mark.parametrize(
    ("filename", "page", "court"),
    [
        ("stj_resp_1602076_sp_acordao.pdf", 4, "stj"),
        ("stj_agint_aresp_2560760_se_acordao.pdf", 4, "stj"),
        ("tjrj_agravo_instrumento_0017387-33.2017_acordao.pdf", 4, "tjrj"),
        ("parecer_pgjmg_procon_16-2022.pdf", 6, None),
    ],
)
def test_a_remembered_passage_finds_its_document_and_page(
    stack: RunningStack, ingested: dict[str, dict], filename: str, page: int, court: str | None
) -> None:
    results = stack.search(passage_on_page(DOCS / filename, page), top_k=5)
    top = results[0]
    assert top["document_id"] == ingested[filename]["document_id"]
    assert top["page_number"] <= page <= top["page_end"]
    assert top["document_title"] and top["relevance_explanation"]
    assert top["highlights"] and all(0 <= a < b <= len(top["chunk_text"]) for a, b in top["highlights"])
    assert 0 < top["similarity_score"] <= 1
    assert top["document_type"] == ingested[filename]["document_type"]
    if court:
        assert top["court"] == court


def test_a_concept_in_other_words_finds_the_passage(stack: RunningStack, ingested: dict[str, dict]) -> None:
    results = stack.search("modernização de elevador é despesa extraordinária que cabe ao locador", top_k=5)
    agint = ingested["stj_agint_aresp_2560760_se_acordao.pdf"]["document_id"]
    assert agint in [r["document_id"] for r in results]

    results = stack.search("o condomínio tomador responde de forma subsidiária pelas verbas trabalhistas da contratada")
    docx = ingested["contrato_limpeza.docx"]["document_id"]
    hits = [r for r in results if r["document_id"] == docx]
    assert hits, [(r["document_title"], r["chunk_text"][:80]) for r in results]
    assert hits[0]["page_number"] <= 2 <= hits[0]["page_end"]
    assert "subsidiária" in hits[0]["chunk_text"]


def test_filters_apply_inside_the_search(stack: RunningStack, ingested: dict[str, dict]) -> None:
    query = "aplicação do Código de Defesa do Consumidor"
    # A selective filter (one small document out of eleven) still finds it: filters are inside the scans. It is
    # one work, so one entry, with more of its passages beside the best one.
    only_tjrj = stack.search(query, top_k=10, filters={"court": "TJ-RJ"})
    assert len(only_tjrj) == 1 and {r["court"] for r in only_tjrj} == {"tjrj"}
    assert {r["court_label"] for r in only_tjrj} == {"TJRJ"}
    assert len(only_tjrj[0]["other_passages"]) == 2
    parecer = stack.search(query, top_k=10, filters={"document_type": "Parecer"})
    assert parecer and {r["document_type"] for r in parecer} == {"parecer"}
    relator = ingested["stj_resp_1602076_sp_acordao.pdf"]["relator"]
    by_relator = stack.search(query, top_k=10, filters={"relator": relator})
    assert by_relator and {r["document_id"] for r in by_relator} <= {
        s["document_id"] for s in ingested.values() if s["relator"] == relator
    }
    citing = stack.search(query, top_k=20, filters={"cited_law": "Lei 8.078/1990"})
    citing_ids = {s["document_id"] for s in ingested.values() if any(c.startswith("CDC") for c in s["citations"])}
    assert citing and {r["document_id"] for r in citing} <= citing_ids
    dated = stack.search(query, top_k=10, filters={"date_from": "2024-01-01"})
    assert all(r["document_date"] >= "2024-01-01" for r in dated)
    assert stack.search(query, filters={"court": "TRF9"}) == []


def test_download_returns_the_original(stack: RunningStack, ingested: dict[str, dict]) -> None:
    path = DOCS / "tjrj_agravo_instrumento_0017387-33.2017_acordao.pdf"
    response = stack.client.get(f"/documents/{ingested[path.name]['document_id']}")
    assert response.status_code == 200
    assert response.content == path.read_bytes()


def test_the_same_file_twice_duplicates_nothing(stack: RunningStack, ingested: dict[str, dict]) -> None:
    path = DOCS / "stj_agint_aresp_2560760_se_acordao.pdf"
    before = stack.sql("SELECT count(*) FROM chunks")
    again = stack.upload(path, external_id=f"test:{path.name}")
    assert (again["document_id"], again["outcome"]) == (ingested[path.name]["document_id"], "unchanged")
    assert again.get("note") is None  # the same access lists asked for: nothing to say about them
    renamed = stack.upload(path, filename="copia.pdf")
    assert (renamed["document_id"], renamed["outcome"]) == (ingested[path.name]["document_id"], "duplicate")
    time.sleep(2)
    assert stack.sql("SELECT count(*) FROM chunks") == before


def test_a_changed_file_replaces_its_old_chunks(stack: RunningStack) -> None:
    first = stack.upload(content=contract_docx("Cláusula de foro: comarca de Uberlândia."), filename="v.docx",
                         external_id="dms:contrato-42")  # fmt: skip
    stack.wait_final({first["document_id"]: None})
    second = stack.upload(content=contract_docx("Cláusula de foro: comarca de Montes Claros."), filename="v.docx",
                          external_id="dms:contrato-42")  # fmt: skip
    assert (second["document_id"], second["outcome"]) == (first["document_id"], "new_version")
    status = stack.wait_final({first["document_id"]: None})[first["document_id"]]
    assert status["stage"] == "indexed" and status["version"] == 2
    document_id = first["document_id"]
    assert stack.sql(f"SELECT count(*) FROM chunks WHERE document_id = '{document_id}'") == str(status["chunk_count"])
    assert stack.sql(f"SELECT count(*) FROM chunks WHERE document_id = '{document_id}' AND version <> 2") == "0"
    texts = stack.sql(f"SELECT string_agg(text, ' ') FROM chunks WHERE document_id = '{document_id}'")
    assert "Montes Claros" in texts and "Uberlândia" not in texts


def test_a_restricted_document_never_reaches_another_group(stack: RunningStack) -> None:
    secret = "cláusula de não concorrência do sócio retirante da Construtora Itacolomi por cinco anos"
    upload = stack.upload(content=contract_docx(secret), filename="acordo_socios.docx", access="socios-acme")
    document_id = upload["document_id"]
    status = stack.wait_final({document_id: "socios-acme"})[document_id]
    assert status["stage"] == "indexed"

    allowed = stack.search(secret, groups="socios-acme,contencioso")
    assert allowed[0]["document_id"] == document_id
    for groups in ("contencioso", None, "socios-acme-2", "*"):
        for filters in ({}, {"document_type": "contrato"}, {"date_from": "1900-01-01"}):
            results = stack.search(secret, groups=groups, top_k=50, filters=filters)
            assert document_id not in [r["document_id"] for r in results], (groups, filters)
        headers = stack.headers(groups, user=None if groups else "sem-grupo")  # not the uploader (admin key)
        assert stack.client.get(f"/documents/{document_id}", headers=headers).status_code == 404
        assert stack.client.get(f"/documents/{document_id}/status", headers=headers).status_code == 404


def test_bad_files_end_in_review_or_deadletter_and_the_good_one_is_indexed(stack: RunningStack) -> None:
    native = (DOCS / "tjsp_sentenca_vara_empresarial_arbitragem.pdf").read_bytes()
    # What no stage could ever read is refused at the door with its reason (415), by its bytes, not its name.
    for name, data, words in (
        ("vazio.pdf", b"", "empty"),
        ("programa.pdf", Path("/bin/ls").read_bytes(), "executable"),
    ):
        refused = stack.client.post("/documents", files={"file": (name, data)})
        assert refused.status_code == 415 and words in refused.json()["detail"].lower(), refused.text
    batch = {
        "truncado.pdf": native[:2048],
        "protegido.pdf": encrypted_pdf(),
        "sem_paginas.pdf": b"%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj "
        b"2 0 obj<</Type/Pages/Kids[]/Count 0>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF",
        "bom.docx": contract_docx("Cláusula de reajuste anual pelo IPCA, aplicada no aniversário do contrato."),
    }
    ids = {name: stack.upload(content=data, filename=name)["document_id"] for name, data in batch.items()}
    statuses = stack.wait_final({document_id: None for document_id in ids.values()})
    by_name = {name: statuses[document_id] for name, document_id in ids.items()}

    assert by_name["bom.docx"]["stage"] == "indexed"
    expected = {
        "truncado.pdf": ("failed", "damaged"),
        "protegido.pdf": ("review", "password"),
        "sem_paginas.pdf": ("failed", "no pages"),
    }
    for name, (stage, words) in expected.items():
        assert by_name[name]["stage"] == stage, (name, by_name[name])
        assert words in by_name[name]["error"].lower(), (name, by_name[name]["error"])
    # The events themselves are on the broker, for whoever works the review queue and dead letters.
    dead = {m["document_id"]: m for m in stack.topic_messages("documents.deadletter")}
    review = {m["document_id"]: m for m in stack.topic_messages("documents.review")}
    for name, (stage, words) in expected.items():
        event = (dead if stage == "failed" else review)[ids[name]]
        assert words in event["reason"].lower() and event["stage"] == "extracted"
    assert ids["bom.docx"] not in dead and ids["bom.docx"] not in review


def test_facets_count_the_works_this_query_found(stack: RunningStack, ingested: dict[str, dict]) -> None:
    body = {"query": "responsabilidade civil do fornecedor perante o consumidor", "top_k": 5}
    facets = stack.client.post("/search", json=body).json()["facets"]
    assert facets["court"]["stj"] >= 2
    documents = int(stack.sql("SELECT count(*) FROM documents WHERE stage = 'indexed'"))
    assert sum(facets["document_type"].values()) <= documents  # works, not chunks
    # A facet with a selection is counted without it: choosing STJ still offers the other courts, each with the
    # count it had; the other facets count only what the selection leaves.
    filtered = stack.client.post("/search", json={**body, "filters": {"court": "stj"}})
    assert filtered.status_code == 200 and {r["court"] for r in filtered.json()["results"]} == {"stj"}
    assert filtered.json()["facets"]["court"] == facets["court"]
    only_tjrj = stack.client.post("/search", json={**body, "filters": {"court": "tjrj"}}).json()
    assert only_tjrj["facets"]["court"] == facets["court"] and only_tjrj["facets"]["court"]["tjrj"] >= 1
    tjrj_documents = int(stack.sql("SELECT count(*) FROM documents WHERE stage = 'indexed' AND court = 'tjrj'"))
    assert 1 <= sum(only_tjrj["facets"]["document_type"].values()) <= tjrj_documents < documents
