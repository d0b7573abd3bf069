"""Payloads that stages store and pass by reference (claim check): pages, chunks, metadata."""

from datetime import date, datetime
from typing import Literal

from pydantic import BaseModel, Field


class Page(BaseModel):
    number: int = Field(ge=1)
    text: str
    method: Literal["text", "ocr", "docx", "manual"] = "text"
    confidence: float = Field(
        1.0, ge=0, le=1, description="Mean OCR word confidence; 1.0 for a text layer or a reviewer's correction."
    )
    error: str | None = Field(None, description="Why the page could not be read (e.g. OCR timed out); text is empty.")


class EmailMessage(BaseModel):
    """One message of an e-mail (a .eml file) or of a thread exported to PDF, and where it starts."""

    sender: str = ""
    recipients: list[str] = []
    cc: list[str] = []
    date: datetime | None = None
    date_text: str = Field("", description="The date as written in the header, parsed or not.")
    subject: str = ""
    page_start: int = Field(1, ge=1)
    char_start: int = Field(0, ge=0, description="Offset of the message's header in that page's text.")


class ExtractedDocument(BaseModel):
    pages: list[Page]
    messages: list[EmailMessage] = []
    warnings: list[str] = Field([], description="Readable facts a reviewer may want to know, e.g. scripts ignored.")

    @property
    def confidence(self) -> float:
        """Confidence over the pages that needed OCR, weighted by their text length."""
        ocr = [p for p in self.pages if p.method == "ocr"]
        if not ocr:
            return 1.0
        weights = [max(len(p.text), 1) for p in ocr]
        return sum(p.confidence * w for p, w in zip(ocr, weights, strict=True)) / sum(weights)

    def weak_pages(self, bar: float) -> list[int]:
        return [p.number for p in self.pages if p.method == "ocr" and p.confidence < bar]


class Chunk(BaseModel):
    ordinal: int = Field(ge=0)
    text: str
    page_start: int = Field(ge=1)
    page_end: int = Field(ge=1)
    char_start: int = Field(ge=0, description="Offset into the cleaned text, pages joined by PAGE_SEPARATOR.")
    char_end: int = Field(ge=0)
    token_count: int = Field(ge=0)
    section_path: str | None = Field(
        None, description='Where the chunk sits in the document\'s structure, e.g. "voto > II – Do mérito".'
    )
    is_ementa: bool = Field(False, description="An extra chunk holding the decision's ementa (also in regular chunks).")


class Party(BaseModel):
    name: str
    role: str = Field(description='Procedural role code, e.g. "recorrente", "agravado", "autor", "reu".')


class DocumentMetadata(BaseModel):
    """document_type and court hold lower-case codes ("acordao", "stj", "tre_sp"); see
    shared.legal.codes for their display labels. Every field but title is optional."""

    title: str
    document_type: str = "outro"
    court: str | None = None
    document_date: date | None = None
    process_number: str | None = None
    procedural_class: str | None = None
    relator: str | None = None
    judging_body: str | None = None
    judgment_date: date | None = None
    publication_date: date | None = None
    parties: list[Party] = []
    subject: str | None = None
    citations: list[str] = Field([], description='Canonical ids, e.g. "CF/1988, art. 5º, XXXV", "Súmula 7/STJ".')
    document_subtype: str | None = Field(
        None, description='Which act, work or filing: "diretiva", "provimento", "tese", "peticao_inicial" (codes).'
    )
    act_number: str | None = Field(None, description='A normative act\'s number as printed: "8.660", "2011/83/EU".')
    issuing_body: str | None = Field(None, description='Who issued an act: "Conselho Nacional de Justiça".')
    authors: list[str] = Field([], description="Authors of a work of doctrine, as printed.")
    venue: str | None = Field(None, description="Where a work appeared: journal, university, publisher.")
    year: int | None = Field(None, description="Year a work of doctrine appeared.")
    pedidos: list[str] = Field(
        [], description='A petition\'s requests in order, one line each: "a citação do réu para, querendo, contestar".'
    )
    language: str | None = Field(
        None, description='ISO 639-1 code of the text\'s language ("pt", "en"), "und" when too little text to tell.'
    )
    sources: dict[str, str] = Field({}, description='Who set each field: "rules", "rules:verified", "hint", ...')


class ChunkedDocument(BaseModel):
    chunks: list[Chunk]


class AnnotatedChunks(BaseModel):
    metadata: DocumentMetadata
    chunks: list[Chunk]


PAGE_SEPARATOR = "\n\f\n"
