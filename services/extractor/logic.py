"""The extractor's pure logic: bytes of an uploaded file in, pages of text out.

No Kafka and no database here, so it can be tested with real files alone. Files that cannot be
read as they are raise BadInput, whose disposition tells the stage where the file goes: "review"
when a person can fix it (a password, too many pages, no text found), "deadletter" when the
bytes themselves are unusable (empty, damaged, of a kind no reader handles).

Formats are told apart by content (formats.py); each has its reader: PDF here (text layer in
reading order, pdf_layout.py, and OCR), DOCX (docx_reader.py), DOC/ODT/RTF through LibreOffice
(office.py), e-mail (email_reader.py), plain text and HTML (text_reader.py). Hostile files are
refused from their declared sizes before any reader unpacks them (limits.py).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Any

import pymupdf

from precedente.services.extractor.docx_reader import extract_docx
from precedente.services.extractor.email_reader import Attachment, email_attachments, extract_eml, find_messages
from precedente.services.extractor.limits import (
    MAX_FILE_BYTES,
    check_pdf_pages,
    check_size,
    check_zip,
    pdf_javascript_objects,
)
from precedente.services.extractor.ocr import OcrConfig, PageTiming, ocr_pdf_pages, record_page_timings
from precedente.services.extractor.office import convert_to_docx
from precedente.services.extractor.pdf_layout import read_page
from precedente.services.extractor.preprocess import PreprocessOptions
from precedente.services.extractor.text_layer import garbled_reason
from precedente.services.extractor.text_reader import extract_html, extract_txt
from precedente.shared.errors import BadInput, Disposition, damaged_pdf, quoted
from precedente.shared.formats import Kind, detect_format
from precedente.shared.payloads import EmailMessage, ExtractedDocument, Page

__all__ = [
    "Attachment",
    "BadInput",
    "Disposition",
    "Kind",
    "detect_format",
    "email_attachments",
    "extract",
    "extract_timed",
]

MIN_TEXT_CHARS = 20
"""A page whose text layer has fewer non-space characters than this is a candidate for OCR."""

BLANK_PROBE_DPI = 24
"""Resolution of the cheap render that tells a truly blank page from one drawn without text."""


# --------------------------------------------------------------------------------------------
# Entry point
# --------------------------------------------------------------------------------------------


def extract(
    data: bytes,
    filename: str,
    *,
    ocr_language: str = "por",
    ocr_dpi: int = 300,
    max_pages: int = 2000,
    ocr_workers: int = 2,
    max_bytes: int = MAX_FILE_BYTES,
    soffice: str | None = None,
    ocr_psm: int = 3,
    ocr_page_timeout_s: float = 120.0,
    ocr_preprocess: bool = True,
) -> ExtractedDocument:
    """Pages of text from any supported file (formats.detect_format), and the e-mails found in them.

    The size limit is checked before anything looks inside the bytes. soffice names the
    LibreOffice binary for DOC/ODT/RTF (default: soffice on PATH).
    """
    check_size(len(data), filename, max_bytes)
    kind = detect_format(data, filename)
    warnings: list[str] = []
    messages: list[EmailMessage] | None = None
    if kind == "pdf":
        pages = _extract_pdf(
            data,
            filename,
            ocr_language=ocr_language,
            ocr_dpi=ocr_dpi,
            max_pages=max_pages,
            ocr_workers=max(1, ocr_workers),
            warnings=warnings,
            ocr_psm=ocr_psm,
            ocr_page_timeout_s=ocr_page_timeout_s,
            ocr_preprocess=ocr_preprocess,
        )
    elif kind == "docx":
        pages = extract_docx(data, filename, max_pages=max_pages)
    elif kind in ("doc", "odt", "rtf"):
        if kind == "odt":
            check_zip(data, filename, "ODT")
        pages = extract_docx(convert_to_docx(data, kind, filename, soffice=soffice), filename, max_pages=max_pages)
    elif kind == "eml":
        pages, messages = extract_eml(data, filename, max_pages=max_pages)
    elif kind == "html":
        pages = extract_html(data, filename, max_pages=max_pages)
    else:
        pages = extract_txt(data, filename, max_pages=max_pages)
    if not any(p.text.strip() for p in pages):
        raise BadInput(
            f"no text could be extracted from {quoted(filename)} ({len(pages)} page(s) read, all empty); "
            "check that it is the right file and that a scan is legible",
            "review",
            code="no_text",
        )
    if messages is None:
        messages = find_messages(pages)
    return ExtractedDocument(pages=pages, messages=messages, warnings=warnings)


def extract_timed(data: bytes, filename: str, **options: Any) -> tuple[ExtractedDocument, list[PageTiming]]:
    """extract(), and when each OCR'd page started and ended (the stage turns them into trace spans)."""
    with record_page_timings() as timings:
        document = extract(data, filename, **options)
    return document, sorted(timings, key=lambda t: t.number)


# --------------------------------------------------------------------------------------------
# PDF
# --------------------------------------------------------------------------------------------


@dataclass
class _PdfPage:
    """What the first pass learns about a page: its text layer and whether it needs OCR."""

    number: int
    text: str
    needs_ocr: bool
    label: str = ""  # the page's hidden label (pdf_layout.read_page)


def _open_pdf(data: bytes, filename: str) -> pymupdf.Document:
    try:
        return pymupdf.open(stream=data, filetype="pdf")
    except Exception as exc:  # MuPDF raises FileDataError, RuntimeError, ValueError and its own types
        raise damaged_pdf(filename, f"{type(exc).__name__}: {exc}") from exc


def _extract_pdf(
    data: bytes,
    filename: str,
    *,
    ocr_language: str,
    ocr_dpi: int,
    max_pages: int,
    ocr_workers: int,
    warnings: list[str],
    ocr_psm: int = 3,
    ocr_page_timeout_s: float = 120.0,
    ocr_preprocess: bool = True,
) -> list[Page]:
    """Pages of a PDF; what a reviewer should know (scripts ignored) is appended to warnings."""
    doc = _open_pdf(data, filename)
    try:
        if doc.needs_pass:
            raise BadInput(
                f"{quoted(filename)} is password-protected; provide an unencrypted copy",
                "review",
                code="password_protected",
            )
        try:
            count = doc.page_count
        except Exception as exc:  # a page tree cut off mid-way: MuPDF cannot even count the pages
            raise damaged_pdf(filename, f"{type(exc).__name__}: {exc}") from exc
        if count == 0:
            if doc.is_repaired:
                # MuPDF "repairs" truncated files silently; a repair that recovers no page means
                # the page tree was in the part that is missing.
                raise damaged_pdf(filename, "MuPDF had to rebuild it and found no pages")
            raise BadInput(f"the PDF {quoted(filename)} has no pages", "deadletter", code="no_pages")
        if count > max_pages:
            raise BadInput(
                f"{quoted(filename)} has {count} pages, more than the limit of {max_pages}; "
                "split it into smaller files",
                "review",
                code="too_many_pages",
            )
        check_pdf_pages(doc, filename, dpi=ocr_dpi)  # image bombs and giant pages, before any render
        scripts = pdf_javascript_objects(doc)
        if scripts:
            warnings.append(
                f"the PDF holds JavaScript ({scripts} object(s)); it was never run: "
                "the text was extracted as from any PDF and the scripts were ignored"
            )
        first_pass = _with_part_labels([_read_text_layer(doc, index, filename) for index in range(count)])
        ocr = OcrConfig(
            language=ocr_language,
            dpi=ocr_dpi,
            workers=ocr_workers,
            page_timeout_s=ocr_page_timeout_s,
            psm=ocr_psm,
            preprocess=PreprocessOptions() if ocr_preprocess else PreprocessOptions.off(),
            drop_noise_lines=ocr_preprocess,
        )
        ocr_texts = ocr_pdf_pages(doc, [p.number for p in first_pass if p.needs_ocr], filename, ocr)
        pages: list[Page] = []
        for p in first_pass:
            if p.number in ocr_texts:
                read = ocr_texts[p.number]
                pages.append(
                    Page(number=p.number, text=read.text, method="ocr", confidence=read.confidence, error=read.error)
                )
            else:
                pages.append(Page(number=p.number, text=p.text, method="text", confidence=1.0))
        if doc.is_repaired and not any(p.text.strip() for p in pages):
            raise damaged_pdf(filename, f"MuPDF had to rebuild it and its {count} page(s) came out blank")
        return pages
    finally:
        doc.close()


def _read_text_layer(doc: pymupdf.Document, index: int, filename: str) -> _PdfPage:
    """Text layer of one page, and whether the page looks like a scan that needs OCR."""
    try:
        page = doc.load_page(index)
        reading = read_page(page)  # reading order: columns one after the other, tables as rows
        text = reading.text
        has_images = bool(page.get_images())
    except Exception as exc:  # only MuPDF calls above
        raise damaged_pdf(filename, f"page {index + 1} cannot be read ({type(exc).__name__}: {exc})") from exc
    solid = len(re.sub(r"\s+", "", text))
    if solid >= MIN_TEXT_CHARS:
        # A text layer can be garbage (broken font maps, mojibake, no spaces): OCR reads the page instead.
        return _PdfPage(index + 1, text, needs_ocr=garbled_reason(text) is not None, label=reading.label)
    if solid == 0 and not has_images and _is_blank(page, filename):
        # A separator page: nothing to read, and nothing to be unsure about.
        return _PdfPage(index + 1, "", needs_ocr=False)
    return _PdfPage(index + 1, text, needs_ocr=has_images or solid == 0, label=reading.label)


def _with_part_labels(pages: list[_PdfPage]) -> list[_PdfPage]:
    """A page whose hidden label differs from the page before's opens with it, on a line of its own: the STF's
    inteiro teor names each part so ("Relatório", "Voto - MIN. LUIZ FUX", "Debate", "Extrato de Ata - 05/08/2015"),
    the only mark of where one minister's vote ends and a debate begins (sections.py reads it)."""
    labelled, previous = [], ""
    for page in pages:
        if page.label and page.label != previous and not page.needs_ocr:
            page = replace(page, text=f"{page.label}\n{page.text}")
        previous = page.label
        labelled.append(page)
    return labelled


def _is_blank(page: pymupdf.Page, filename: str) -> bool:
    """A cheap low-resolution render that is one colour means OCR has nothing to find."""
    try:
        return bool(page.get_pixmap(dpi=BLANK_PROBE_DPI, colorspace=pymupdf.csGRAY).is_unicolor)
    except Exception as exc:  # only MuPDF calls above
        raise damaged_pdf(filename, f"page {page.number + 1} cannot be rendered ({exc})") from exc
