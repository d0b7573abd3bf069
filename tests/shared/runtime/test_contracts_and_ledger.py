"""Event contracts and the ledger's pure decisions: no broker, no database."""

import uuid

import pytest

from precedente.shared.contracts import (
    DocumentAnnotated,
    DocumentChunked,
    DocumentCleaned,
    DocumentExtracted,
    DocumentSubmitted,
    Stage,
    Topic,
)
from precedente.shared.runtime.ledger import is_stale_or_done, resume_event

DOC = uuid.uuid4()


def submitted(version: int = 1) -> DocumentSubmitted:
    return DocumentSubmitted(
        document_id=DOC, version=version, blob_key="originals/ab", filename="a.pdf", content_hash="ab", size_bytes=3
    )


def test_submitted_defaults_to_everyone_and_round_trips_as_json() -> None:
    event = submitted()
    assert event.access_groups == ["*"] and event.source == "upload"
    assert event.key == str(DOC).encode()
    again = DocumentSubmitted.model_validate_json(event.model_dump_json())
    assert again == event


def test_follow_keeps_document_version_and_trace() -> None:
    event = submitted(version=3)
    nxt = event.follow(DocumentCleaned, pages_key="k")
    assert (nxt.document_id, nxt.version, nxt.trace_id) == (DOC, 3, event.trace_id)


def test_contracts_reject_unknown_fields() -> None:
    with pytest.raises(ValueError):
        DocumentCleaned.model_validate({"document_id": str(DOC), "pages_key": "k", "surprise": 1})


@pytest.mark.parametrize(
    ("ledger_stage", "ledger_version", "expected"),
    [
        ("extracted", 1, False),  # the normal case: the cleaner's input stage
        ("cleaned", 1, False),  # died after recording, before publishing: redo and republish
        ("chunked", 1, True),  # already past: a redelivery
        ("indexed", 1, True),
        ("review", 1, True),
        ("failed", 1, True),
        ("extracted", 2, True),  # a newer version took over
    ],
)
def test_stage_guard(ledger_stage: str, ledger_version: int, expected: bool) -> None:
    event = DocumentExtracted(document_id=DOC, version=1, pages_key="k", page_count=1, confidence=1)
    row = {"stage": ledger_stage, "version": ledger_version}
    assert is_stale_or_done(row, event, Stage.EXTRACTED, Stage.CLEANED) is expected


def test_stage_guard_unknown_document() -> None:
    assert is_stale_or_done(None, submitted(), Stage.SUBMITTED, Stage.EXTRACTED)


def ledger_row(stage: str) -> dict:
    return {
        "id": DOC, "version": 2, "trace_id": "t", "stage": stage, "blob_key": "originals/ab", "filename": "a.pdf",
        "content_type": "application/pdf", "content_hash": "ab", "size_bytes": 3, "source": "dms",
        "access_groups": ["g"], "hints": {"court": "STJ"}, "page_count": 4, "ocr_pages": [2],
        "ocr_confidence": 0.9, "chunk_count": 7,
    }  # fmt: skip


@pytest.mark.parametrize(
    ("stage", "topic", "model"),
    [
        ("submitted", Topic.SUBMITTED, DocumentSubmitted),
        ("extracted", Topic.EXTRACTED, DocumentExtracted),
        ("cleaned", Topic.CLEANED, DocumentCleaned),
        ("chunked", Topic.CHUNKED, DocumentChunked),
        ("annotated", Topic.ANNOTATED, DocumentAnnotated),
    ],
)
def test_resume_republishes_the_last_durable_stage(stage: str, topic: Topic, model: type) -> None:
    found = resume_event(ledger_row(stage))
    assert found is not None
    got_topic, event = found
    assert got_topic == topic and isinstance(event, model)
    assert (event.document_id, event.version, event.trace_id) == (DOC, 2, "t")
    if isinstance(event, DocumentSubmitted):
        assert event.access_groups == ["g"] and event.hints.court == "STJ"
    if isinstance(event, DocumentExtracted):
        assert event.pages_key.endswith("/v2/extracted.json") and event.ocr_pages == [2]
    if isinstance(event, DocumentCleaned):
        assert event.pages_key.endswith("/v2/cleaned.json")
    if isinstance(event, DocumentChunked | DocumentAnnotated):
        assert event.chunks_key.endswith(f"/v2/{stage}.json") and event.chunk_count == 7


@pytest.mark.parametrize("stage", ["indexed", "review", "failed", "deleted"])
def test_finished_documents_are_not_resumed(stage: str) -> None:
    assert resume_event(ledger_row(stage)) is None
