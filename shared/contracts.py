"""Event contracts between stages: the one place where the shape of every message is defined.

Every message is keyed by its document id (so one document's events stay ordered on one
partition), carries a schema version and a trace id, and refers to large payloads (the original
file, page texts, chunks) by a storage key instead of carrying them (claim check).
"""

import uuid
from datetime import UTC, date, datetime
from enum import StrEnum
from typing import Any, Literal, TypeVar

from opentelemetry import trace
from pydantic import BaseModel, ConfigDict, Field, field_validator

from precedente.shared.bounds import Filename, Groups, MetadataText, Title

SCHEMA_VERSION = 1
EVERYONE = "*"


class Topic(StrEnum):
    SUBMITTED = "documents.submitted"
    EXTRACTED = "documents.extracted"
    REVIEW = "documents.review"
    CLEANED = "documents.cleaned"
    CHUNKED = "documents.chunked"
    ANNOTATED = "documents.annotated"
    INDEXED = "documents.indexed"
    DEADLETTER = "documents.deadletter"
    DELETED = "documents.deleted"
    ACCESS_CHANGED = "documents.access_changed"


class Stage(StrEnum):
    """Where a document stands in the ledger; the first six are the pipeline's durable steps."""

    SUBMITTED = "submitted"
    EXTRACTED = "extracted"
    CLEANED = "cleaned"
    CHUNKED = "chunked"
    ANNOTATED = "annotated"
    INDEXED = "indexed"
    REVIEW = "review"
    FAILED = "failed"
    DELETED = "deleted"  # removed by its owner (documents.deleted): no stage may bring it back


TERMINAL_STAGES = frozenset({Stage.INDEXED, Stage.REVIEW, Stage.FAILED, Stage.DELETED})
# The terminal stages as the API spells a document's "stage": what a client waiting on a document waits for
# (`precedente ingest --wait`, `precedente eval`, the end-to-end harness).
FINAL = frozenset(str(stage) for stage in TERMINAL_STAGES)


class Source(StrEnum):
    CLI = "cli"
    UPLOAD = "upload"
    DMS = "dms"


def new_trace_id() -> str:
    """The active OpenTelemetry trace (an upload's "submit" span), so the event's trace_id is the trace's id."""
    context = trace.get_current_span().get_span_context()
    return format(context.trace_id, "032x") if context.is_valid else uuid.uuid4().hex


class Event(BaseModel):
    model_config = ConfigDict(extra="forbid")

    schema_version: int = SCHEMA_VERSION
    document_id: uuid.UUID
    version: int = Field(1, ge=1, description="Content version of the document; stale versions are dropped.")
    trace_id: str = Field(default_factory=new_trace_id, max_length=128)
    emitted_at: datetime = Field(default_factory=datetime.now)

    @field_validator("schema_version")
    @classmethod
    def _known_schema(cls, value: int) -> int:
        if value != SCHEMA_VERSION:  # read as version 1, a version-99 message would be trusted for what it is not
            raise ValueError(f"schema version {value} is not one this service reads (it reads {SCHEMA_VERSION})")
        return value

    @property
    def key(self) -> bytes:
        return str(self.document_id).encode()

    def follow(self, model: "type[E]", **fields: Any) -> "E":
        """The next event for the same document, version and trace."""
        return model(document_id=self.document_id, version=self.version, trace_id=self.trace_id, **fields)


class MetadataHints(BaseModel):
    """What the submitter already knows; the annotator keeps these over its own guesses."""

    model_config = ConfigDict(extra="forbid")

    title: Title | None = None
    document_type: MetadataText | None = None
    court: MetadataText | None = None
    document_date: date | None = None


class OcrOptions(BaseModel):
    """A reviewer's settings for another OCR pass; unset fields keep the service's defaults."""

    model_config = ConfigDict(extra="forbid")

    dpi: int | None = Field(None, ge=72, le=600)
    psm: int | None = Field(None, ge=0, le=13, description="Tesseract page segmentation mode.")
    language: str | None = Field(None, pattern=r"^[a-z_+]{3,40}$")


class DocumentSubmitted(Event):
    """Published by the upload API, the CLI, or directly by a document-management system."""

    blob_key: str = Field(
        max_length=1000, description="Storage key of the original file (see precedente.shared.infra.storage)."
    )
    filename: Filename
    content_type: str | None = Field(None, max_length=200)
    content_hash: str = Field(max_length=128, description="sha256 of the original file, hex.")
    size_bytes: int = Field(ge=0)
    source: Source = Source.UPLOAD
    access_groups: Groups = Field(
        default_factory=lambda: [EVERYONE], description='Groups allowed to see the document; "*" is everyone.'
    )
    deny_groups: Groups = Field(
        default_factory=list,
        description='Groups denied the document (ethical walls); a deny wins over any allowing group or "*".',
    )
    hints: MetadataHints = Field(default_factory=MetadataHints)
    ocr: OcrOptions | None = Field(None, description="Set when a reviewer asks for another OCR pass.")
    parent_document_id: uuid.UUID | None = Field(
        None, description="The document this one came inside (an e-mail's attachment)."
    )


class DocumentExtracted(Event):
    pages_key: str = Field(description="Storage key of the extracted pages (JSON list of page texts).")
    page_count: int
    ocr_pages: list[int] = Field(default_factory=list, description="1-based pages read by OCR.")
    confidence: float = Field(ge=0, le=1)


class DocumentCleaned(Event):
    pages_key: str


class DocumentChunked(Event):
    chunks_key: str
    chunk_count: int


class DocumentAnnotated(Event):
    chunks_key: str
    chunk_count: int


class DocumentIndexed(Event):
    chunk_count: int


class DocumentReview(Event):
    """A document a person must look at: low OCR confidence, encrypted, no text."""

    stage: Stage
    reason: str
    weak_pages: list[int] = Field(default_factory=list)
    confidence: float | None = None


class DocumentDeadLetter(Event):
    """A document no stage can process (empty, not a supported format, corrupt) or that kept failing."""

    stage: Stage
    reason: str
    error_kind: Literal["bad_input", "repeated_failure"] = "bad_input"


class DocumentDeleted(Event):
    """The document is gone at its source: remove its chunks, vectors and stored payloads everywhere.

    Published by `DELETE /documents/{id}` (and so by `precedente watch`) or directly by a DMS. `version`
    is the newest version the deletion covers: a newer version submitted afterwards is not deleted.
    """

    source: Source = Source.DMS
    reason: str | None = Field(None, description="Why it was deleted, for the ledger's history.")


class DocumentAccessChanged(Event):
    """The document's access lists changed: from now on exactly these groups may see it, and these may not.

    Published by `PUT /documents/{id}/access` once the change is applied, or directly by a DMS; the indexer
    applies it to the ledger and to every chunk (the document's attachments follow it). `version` is not
    compared: access belongs to the document, whatever its version. Changes apply in `changed_at` order:
    one older than the latest applied is ignored (a redelivery, or a change overtaken by a newer one).
    """

    access_groups: Groups = Field(min_length=1, description='Groups allowed to see it; "*" is everyone.')
    deny_groups: Groups = Field(default_factory=list, description="Groups denied it; a deny wins.")
    changed_at: datetime = Field(default_factory=lambda: datetime.now(UTC))
    changed_by: str | None = Field(None, description="Who asked for the change, for the audit trail.")
    source: Source = Source.DMS

    @field_validator("changed_at")
    @classmethod
    def _aware(cls, value: datetime) -> datetime:
        return value if value.tzinfo is not None else value.replace(tzinfo=UTC)  # a naive time is taken as UTC


E = TypeVar("E", bound=Event)

EVENT_BY_TOPIC: dict[Topic, type[Event]] = {
    Topic.SUBMITTED: DocumentSubmitted,
    Topic.EXTRACTED: DocumentExtracted,
    Topic.REVIEW: DocumentReview,
    Topic.CLEANED: DocumentCleaned,
    Topic.CHUNKED: DocumentChunked,
    Topic.ANNOTATED: DocumentAnnotated,
    Topic.INDEXED: DocumentIndexed,
    Topic.DEADLETTER: DocumentDeadLetter,
    Topic.DELETED: DocumentDeleted,
    Topic.ACCESS_CHANGED: DocumentAccessChanged,
}
