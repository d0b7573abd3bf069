"""Payloads that stages store and pass by reference (claim check): pages, chunks, metadata."""

from datetime import date
from typing import Literal

from pydantic import BaseModel, Field


class Page(BaseModel):
    number: int = Field(ge=1)
    text: str
    method: Literal["text", "ocr", "docx", "manual"] = "text"
    confidence: float = Field(
        1.0, ge=0, le=1, description="Mean OCR word confidence; 1.0 for a text layer or a reviewer's correction."
    )


class ExtractedDocument(BaseModel):
    pages: list[Page]

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


class DocumentMetadata(BaseModel):
    title: str
    document_type: str = "outro"
    court: str | None = None
    document_date: date | None = None


class ChunkedDocument(BaseModel):
    chunks: list[Chunk]


class AnnotatedChunks(BaseModel):
    metadata: DocumentMetadata
    chunks: list[Chunk]


PAGE_SEPARATOR = "\n\f\n"
