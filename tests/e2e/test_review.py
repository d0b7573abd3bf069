"""The review queue through the real stack: list, inspect, correct, approve, re-OCR, reject."""

import pytest

from precedente.harness import RunningStack
from tests.helpers.pdfs import encrypted_pdf, illegible_scan

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
