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

    @property
    def holds_no_text(self) -> bool:
        """An OCR page where Tesseract found no word at all: an image (a photo, a drawing, a blank scan)."""
        return self.method == "ocr" and not self.error and not self.text.strip()


def pages_phrase(numbers: list[int]) -> str:
    """ "page 3", "pages 10 and 11", "pages 2, 8 and 9"."""
    if len(numbers) == 1:
        return f"page {numbers[0]}"
    return f"pages {', '.join(map(str, numbers[:-1]))} and {numbers[-1]}"


def describe_pages(pages: list[Page], bar: float) -> str:
    """What each page holds, as a reviewer reads it: an image without text, or text OCR read below the bar."""
    empty = [p.number for p in pages if p.holds_no_text]
    parts = []
    if empty:
        verb = "holds an image" if len(empty) == 1 else "hold images"
        parts.append(f"{pages_phrase(empty)} {verb} with no readable text (OCR found no words)")
    parts += [
        f"page {p.number} was read by OCR at {p.confidence:.2f}, below the bar of {bar:.2f}"
        f" ({len(p.text.strip())} characters)"
        for p in pages
        if p.number not in empty
    ]
    return "; ".join(parts)


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
    unread_pages: list[int] = Field(
        [],
        description="Weak OCR pages left out of the index (services/extractor/policy.py): their text stays here for"
        " a reviewer, the cleaner empties it, so no chunk holds it and every other page keeps its number.",
    )

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

    def unread_reason(self, bar: float) -> str | None:
        """Why the unread pages are not in the index, in words a reviewer acts on; None when none is unread."""
        unread = [p for p in self.pages if p.number in set(self.unread_pages)]
        if not unread:
            return None
        them, their = ("it", "its") if len(unread) == 1 else ("them", "their")
        return (
            f"{pages_phrase([p.number for p in unread])} left out of the index, the other"
            f" {len(self.pages) - len(unread)} indexed: {describe_pages(unread, bar)}; correct {their} text or re-run"
            f" OCR to index {them}, or approve to accept {them} as {'it is' if len(unread) == 1 else 'they are'}"
        )

    def readable_pages(self) -> list[Page]:
        """The pages as the index gets them: an unread page's text left out, its number kept."""
        unread = set(self.unread_pages)
        return [p.model_copy(update={"text": ""}) if p.number in unread else p for p in self.pages]


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


class QualifiedPrecedentRef(BaseModel):
    """A qualified precedent (CPC art. 927) the document is or applies, as precedente.shared.legal.precedents reads it
    and the ledger stores it (migration 0026): numbers are digits ("1046"); precedente.shared.legal.precedents.label
    writes the badge."""

    kind: str = Field(description='"repercussao_geral", "repetitivo", "sumula_vinculante", "sumula", "irdr", ...')
    court: str | None = Field(None, description='"STF", "STJ", "TST", "TJPR"; None when the text does not say.')
    number: str | None = Field(None, description="The Tema, súmula, IRDR/IAC or edição number, as digits.")
    role: Literal["is", "applies"] = Field(
        description='"is": the decision fixes it (the leading case); "applies": it cites it as its ground.'
    )
    item: str | None = Field(None, description="The tese's number inside a Jurisprudência em Teses edição.")


class StatusSignalRef(BaseModel):
    """What a document says was cancelled, revised or overruled, as precedente.shared.legal.status reads it and the
    ledger stores it (migration 0030): the card of the target's work shows it "segundo o acervo"."""

    kind: Literal["cancelada", "revista", "superada"]
    target: str = Field(description='The target\'s key: "sumula:STJ:408", "repetitivo:STJ:931", "case:REsp 1.328.993".')
    label: str = Field(description='How a card names the target: "Súmula 408/STJ", "Repetitivo – Tema 931".')
    sentence: str = Field(description="The sentence that says it, as written.")


class DocumentMetadata(BaseModel):
    """document_type and court hold lower-case codes ("acordao", "stj", "tre_sp"); see precedente.shared.legal.codes for
    their display labels. Every field but title is optional."""

    title: str
    document_type: str = "outro"
    court: str | None = None
    document_date: date | None = None
    process_number: str | None = None
    procedural_class: str | None = None
    relator: str | None = None
    redator: str | None = Field(
        None, description="Who wrote the acórdão when the relator was defeated (redator do acórdão): a name."
    )
    judging_body: str | None = None
    judgment_date: date | None = None
    publication_date: date | None = None
    parties: list[Party] = []
    subject: str | None = None
    citations: list[str] = Field([], description='Canonical ids, e.g. "CF/1988, art. 5º, XXXV", "Súmula 7/STJ".')
    document_subtype: str | None = Field(
        None, description='Which act, work or filing: "diretiva", "provimento", "tese", "peticao_inicial" (codes).'
    )
    act_number: str | None = Field(
        None, description='A normative act\'s number with the year it dates itself in: "8.660/2016", "2011/83/EU".'
    )
    issuing_body: str | None = Field(None, description='Who issued an act: "Conselho Nacional de Justiça".')
    authors: list[str] = Field([], description="Authors of a work of doctrine, as printed.")
    venue: str | None = Field(None, description="Where a work appeared: journal, university, publisher.")
    year: int | None = Field(None, description="Year a work of doctrine appeared.")
    pedidos: list[str] = Field(
        [], description='A petition\'s requests in order, one line each: "a citação do réu para, querendo, contestar".'
    )
    qualified_precedents: list[QualifiedPrecedentRef] = Field(
        [], description="What a decision is or applies among qualified precedents, the one it is first."
    )
    status_signals: list[StatusSignalRef] = Field(
        [], description="What the document says was cancelled, revised or overruled (precedente.shared.legal.status)."
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
