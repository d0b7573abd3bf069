"""The review queue through the real stack: list, inspect, correct, approve, re-OCR, reject; and a born-digital
document with a photo page, indexed without it, whose page a reviewer then corrects or accepts."""

import pytest

from precedente.harness import RunningStack
from tests.helpers.pdfs import encrypted_pdf, illegible_scan, with_photo_page

pytestmark = pytest.mark.e2e

REVIEWER_NAME = "dra.helena"


def test_a_low_confidence_scan_is_corrected_approved_and_found(stack: RunningStack) -> None:
    document_id = stack.upload(content=illegible_scan("corrigir"), filename="digitalizacao_ruim.pdf")["document_id"]
    status = stack.wait_final({document_id: None})[document_id]
    assert status["stage"] == "review" and "OCR confidence" in status["error"]

    queue = stack.client.get("/review").json()
    item = next(i for i in queue["items"] if i["document_id"] == document_id)
    assert item["reason_code"] == "low_ocr_confidence" and item["weak_pages"]
    assert queue["counts"]["low_ocr_confidence"] >= 1

    detail = stack.client.get(f"/review/{document_id}").json()
    assert [p["number"] for p in detail["pages"]] == [1, 2]
    assert all(p["method"] == "ocr" and p["confidence"] < 0.85 for p in detail["pages"])
    image = stack.client.get(detail["pages"][0]["image_url"])
    assert image.status_code == 200 and image.content.startswith(b"\x89PNG")

    corrected = "Agravo de instrumento. Anulabilidade da sentença arbitral por vício de quixotesca intimação."
    response = stack.client.put(
        f"/review/{document_id}/pages/1", json={"text": corrected}, headers=stack.headers(None, user=REVIEWER_NAME)
    )
    assert response.status_code == 200, response.text
    assert (
        stack.client.post(f"/review/{document_id}/approve", headers=stack.headers(None, user=REVIEWER_NAME)).status_code
        == 200
    )
    status = stack.wait_final({document_id: None})[document_id]
    assert status["stage"] == "indexed"

    hits = stack.search("vício de quixotesca intimação na arbitragem", top_k=5)
    hit = next(h for h in hits if h["document_id"] == document_id)
    assert "quixotesca" in hit["chunk_text"] and hit["page_number"] == 1
    actions = stack.sql(
        f"SELECT string_agg(action || ':' || actor, ',' ORDER BY id) FROM review_actions"
        f" WHERE document_id = '{document_id}'"
    )
    assert actions == "correct:dra.helena,approve:dra.helena"
    assert document_id not in [i["document_id"] for i in stack.client.get("/review").json()["items"]]


def test_reocr_runs_the_extractor_again_with_the_reviewers_settings(stack: RunningStack) -> None:
    document_id = stack.upload(content=illegible_scan("reocr"), filename="outra_digitalizacao.pdf")["document_id"]
    assert stack.wait_final({document_id: None})[document_id]["stage"] == "review"
    response = stack.client.post(
        f"/review/{document_id}/reocr", json={"dpi": 200}, headers=stack.headers(None, user=REVIEWER_NAME)
    )
    assert response.status_code == 200, response.text
    status = stack.wait_final({document_id: None})[document_id]
    assert status["stage"] in ("review", "indexed")
    stages = [h["stage"] for h in status["history"]]
    assert stages.count("submitted") == 2 and stages[-1] == status["stage"]
    assert any("re-OCR asked by dra.helena" in (h["detail"] or "") for h in status["history"])


def test_a_password_protected_pdf_cannot_be_approved_and_is_rejected(stack: RunningStack) -> None:
    document_id = stack.upload(content=encrypted_pdf(), filename="com_senha.pdf")["document_id"]
    assert stack.wait_final({document_id: None})[document_id]["stage"] == "review"
    item = stack.client.get(f"/review/{document_id}").json()
    assert item["reason_code"] == "password_protected" and item["pages"] == []

    refused = stack.client.post(f"/review/{document_id}/approve", headers=stack.headers(None, user=REVIEWER_NAME))
    assert refused.status_code == 409 and "no extracted text" in refused.json()["detail"]
    rejected = stack.client.post(
        f"/review/{document_id}/reject",
        json={"reason": "cliente enviará cópia sem senha"},
        headers=stack.headers(None, user=REVIEWER_NAME),
    )
    assert rejected.status_code == 200
    status = stack.status(document_id)
    assert status["stage"] == "failed" and "rejected by dra.helena" in status["error"]
    assert stack.client.post(f"/review/{document_id}/approve").status_code == 409  # out of the queue

    report = stack.client.get("/status").json()
    assert report["failure_reasons"]["rejected"] >= 1
    assert any(s["document_id"] == document_id for s in report["latest_stopped"])


def test_the_queue_hides_documents_of_other_groups(stack: RunningStack) -> None:
    document_id = stack.upload(content=illegible_scan("sigilo"), filename="sigiloso.pdf", access="fusao-x")[
        "document_id"
    ]
    assert stack.wait_final({document_id: "fusao-x"})[document_id]["stage"] == "review"
    outsider = stack.client.get("/review", headers=stack.headers("contencioso")).json()
    assert document_id not in [i["document_id"] for i in outsider["items"]]
    assert stack.client.get(f"/review/{document_id}", headers=stack.headers("contencioso")).status_code == 404
    insider = stack.client.get("/review", headers=stack.headers("fusao-x")).json()
    assert document_id in [i["document_id"] for i in insider["items"]]


SENTENCA = "tjsp_sentenca_vara_empresarial_arbitragem.pdf"


def test_a_photo_page_is_left_unread_the_rest_indexed_and_a_correction_indexes_it(stack: RunningStack) -> None:
    reviewer = stack.headers(None, user=REVIEWER_NAME)
    document_id = stack.upload(content=with_photo_page(SENTENCA, 3, "foto-corrigir"), filename="sentenca_foto.pdf")[
        "document_id"
    ]
    status = stack.wait_final({document_id: None})[document_id]
    assert status["stage"] == "indexed" and status["unread_pages"] == [4], status
    assert "page 4 holds an image with no readable text" in status["unread_reason"]
    assert "0.00" not in status["unread_reason"]
    extracted = next(h for h in status["history"] if h["stage"] == "extracted")
    assert "page 4 left out of the index" in extracted["detail"]
    # Every other page keeps its number: the original's page 4 is page 5 now, and no passage sits on page 4 alone.
    assert (
        stack.sql(f"SELECT min(page_start) FROM chunks WHERE document_id = '{document_id}' AND page_start > 4") == "5"
    )
    alone = f"SELECT count(*) FROM chunks WHERE document_id = '{document_id}' AND page_start = 4 AND page_end = 4"
    assert stack.sql(alone) == "0"
    download = stack.client.get(f"/documents/{document_id}")
    assert download.headers["x-precedente-unread-pages"] == "4"

    queue = stack.client.get("/review", params={"reason_code": "unread_pages"}).json()
    item = next(i for i in queue["items"] if i["document_id"] == document_id)
    assert (item["stage"], item["reason_code"], item["unread_pages"]) == ("indexed", "unread_pages", [4])
    assert item["reason"] == status["unread_reason"] and queue["counts"]["unread_pages"] >= 1
    detail = stack.client.get(f"/review/{document_id}").json()
    assert [p["number"] for p in detail["pages"] if p["unread"]] == [4]
    assert stack.client.get(detail["pages"][3]["image_url"]).content.startswith(b"\x89PNG")
    refused = stack.client.post(f"/review/{document_id}/reject", json={"reason": "foto"}, headers=reviewer)
    assert refused.status_code == 409 and "indexed" in refused.json()["detail"]

    caption = "Fotografia do galpão penhorado: quixotesca cobertura de zinco sobre o pátio de manobras."
    corrected = stack.client.put(f"/review/{document_id}/pages/4", json={"text": caption}, headers=reviewer)
    assert corrected.status_code == 200 and corrected.json()["stage"] == "extracted", corrected.text
    status = stack.wait_final({document_id: None})[document_id]
    assert status["stage"] == "indexed" and status["unread_pages"] == [] and status["unread_reason"] is None
    assert any("page 4 corrected by dra.helena; indexed again" in (h["detail"] or "") for h in status["history"])
    found = (
        f"SELECT bool_and(page_start <= 4 AND 4 <= page_end) FROM chunks WHERE document_id = '{document_id}'"
        " AND text LIKE '%quixotesca cobertura%'"
    )
    assert stack.sql(found) == "True"
    hits = stack.search("galpão penhorado com quixotesca cobertura de zinco", top_k=5)
    hit = next(h for h in hits if h["document_id"] == document_id)
    assert hit["page_number"] <= 4 <= hit["page_end"] and hit["unread_pages"] == []
    assert document_id not in [i["document_id"] for i in stack.client.get("/review").json()["items"]]
    actions = stack.sql(
        f"SELECT string_agg(action || ':' || actor, ',') FROM review_actions WHERE document_id = '{document_id}'"
    )
    assert actions == "correct:dra.helena"


def test_approving_a_photo_page_accepts_it_as_it_is_and_search_results_name_unread_pages(stack: RunningStack) -> None:
    reviewer = stack.headers(None, user=REVIEWER_NAME)
    note = "Cópia arquivada pela banca: pasta zeugmática do contencioso bancário."
    photo = with_photo_page("stj_resp_1543564_sp_acordao.pdf", 1, "foto-aprovar", note=note)
    document_id = stack.upload(content=photo, filename="acordao_foto.pdf")["document_id"]
    status = stack.wait_final({document_id: None})[document_id]
    assert status["stage"] == "indexed" and status["unread_pages"] == [2], status
    chunks = status["chunk_count"]
    hit = next(h for h in stack.search("pasta zeugmática do contencioso", top_k=5) if h["document_id"] == document_id)
    assert hit["unread_pages"] == [2]  # the page and the CLI say "página 2 não lida"

    approved = stack.client.post(f"/review/{document_id}/approve", headers=reviewer)
    assert approved.status_code == 200 and approved.json()["stage"] == "indexed", approved.text  # no text to add
    status = stack.status(document_id)
    assert status["stage"] == "indexed" and status["unread_pages"] == [] and status["chunk_count"] == chunks
    assert "page 2 accepted as it is by dra.helena; no text to index" in status["history"][-1]["detail"]
    assert document_id not in [i["document_id"] for i in stack.client.get("/review").json()["items"]]
    assert stack.client.post(f"/review/{document_id}/approve", headers=reviewer).status_code == 409
    detail = stack.sql(f"SELECT detail::text FROM review_actions WHERE document_id = '{document_id}'")
    assert '"unread_pages": [2]' in detail
