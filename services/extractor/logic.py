"""The extractor's pure logic: bytes of an uploaded file in, pages of text out.

No Kafka and no database here, so it can be tested with real files alone. Files that cannot be
read as they are raise BadInput, whose disposition tells the stage where the file goes: "review"
when a person can fix it (a password, too many pages, no text found), "deadletter" when the
bytes themselves are unusable (empty, damaged, not a PDF or DOCX at all).
"""

from __future__ import annotations

import io
import re
import zipfile
from dataclasses import dataclass
from typing import Literal

import pymupdf

from services.extractor.docx_reader import extract_docx
from services.extractor.errors import BadInput, Disposition, damaged_pdf, quoted
from services.extractor.ocr import ocr_pdf_pages
from shared.payloads import ExtractedDocument, Page

__all__ = ["BadInput", "Disposition", "detect_format", "extract"]

MIN_TEXT_CHARS = 20
"""A page whose text layer has fewer non-space characters than this is a candidate for OCR."""

BLANK_PROBE_DPI = 24
"""Resolution of the cheap render that tells a truly blank page from one drawn without text."""


# --------------------------------------------------------------------------------------------
# Format detection
# --------------------------------------------------------------------------------------------

_PDF_HEADER_WINDOW = 1024
"""Readers accept junk before %PDF- within the first KiB (Acrobat does); so do we."""

_MAGIC: list[tuple[bytes, str]] = [
    (b"\x7fELF", "an ELF executable"),
    (b"MZ", "a Windows executable (MZ)"),
    (b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1", "a legacy Office file (.doc/.xls, OLE2); save it as DOCX or PDF"),
    (b"{\\rtf", "an RTF document; save it as DOCX or PDF"),
    (b"\x89PNG\r\n\x1a\n", "a PNG image; put it in a PDF"),
    (b"\xff\xd8\xff", "a JPEG image; put it in a PDF"),
    (b"GIF87a", "a GIF image"),
    (b"GIF89a", "a GIF image"),
    (b"II*\x00", "a TIFF image; put it in a PDF"),
    (b"MM\x00*", "a TIFF image; put it in a PDF"),
    (b"\x1f\x8b", "a gzip archive"),
    (b"7z\xbc\xaf\x27\x1c", "a 7-Zip archive"),
    (b"Rar!\x1a\x07", "a RAR archive"),
    (b"%!PS", "a PostScript file; convert it to PDF"),
]


def _describe_zip(data: bytes) -> tuple[bool, str]:
    """Tell a DOCX from other ZIP-based files, so the reason names what the file really is."""
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            names = set(archive.namelist())
            mimetype = ""
            if "mimetype" in names:
                mimetype = archive.read("mimetype").decode("ascii", "replace").strip()
    except (zipfile.BadZipFile, zipfile.LargeZipFile, OSError, EOFError, ValueError, KeyError) as exc:
        return False, f"a damaged or truncated ZIP archive (perhaps a DOCX: {exc})"
    if "word/document.xml" in names:
        return True, "a DOCX document"
    if mimetype.startswith("application/vnd.oasis.opendocument"):
        return False, f"an OpenDocument file ({mimetype}); save it as DOCX or PDF"
    if "xl/workbook.xml" in names:
        return False, "an Excel spreadsheet (XLSX), not a DOCX"
    if "ppt/presentation.xml" in names:
        return False, "a PowerPoint presentation (PPTX), not a DOCX"
    return False, "a ZIP archive that is not a DOCX (it has no word/document.xml)"


def _looks_like_text(data: bytes) -> bool:
    sample = data[:4096]
    if b"\x00" in sample:
        return False
    try:
        text = sample.decode("utf-8")
    except UnicodeDecodeError as exc:
        # A sample cut inside a multi-byte character is still text.
        if exc.start < len(sample) - 4:
            try:
                text = sample.decode("cp1252")
            except UnicodeDecodeError:
                return False
        else:
            text = sample[: exc.start].decode("utf-8")
    printable = sum(ch.isprintable() or ch in "\r\n\t\f" for ch in text)
    return printable >= 0.95 * max(len(text), 1)


def detect_format(data: bytes, filename: str) -> Literal["pdf", "docx"]:
    """Which reader to use, from the bytes themselves: extensions lie, and uploads get renamed."""
    name = quoted(filename)
    if not data:
        raise BadInput(f"{name} is empty (0 bytes); upload the file again", "deadletter", code="empty")
    if b"%PDF-" in data[:_PDF_HEADER_WINDOW]:
        return "pdf"
    if data.startswith((b"PK\x03\x04", b"PK\x05\x06", b"PK\x07\x08")):
        is_docx, what = _describe_zip(data)
        if is_docx:
            return "docx"
        raise BadInput(f"{name} is {what}; only PDF and DOCX files can be ingested", "deadletter")
    for magic, what in _MAGIC:
        if data.startswith(magic):
            raise BadInput(f"{name} is {what}; only PDF and DOCX files can be ingested", "deadletter")
    head = data[:512].lstrip().lower()
    if head.startswith((b"<!doctype html", b"<html")):
        what = "an HTML page"
    elif head.startswith(b"<?xml"):
        what = "an XML file"
    elif _looks_like_text(data):
        what = "plain text"
    else:
        what = "unrecognised binary data"
    raise BadInput(f"{name} is {what}, not a PDF or DOCX; only PDF and DOCX files can be ingested", "deadletter")


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
) -> ExtractedDocument:
    """Pages of text from a PDF (text layer, OCR where there is none) or a DOCX."""
    kind = detect_format(data, filename)
    if kind == "pdf":
        pages = _extract_pdf(
            data,
            filename,
            ocr_language=ocr_language,
            ocr_dpi=ocr_dpi,
            max_pages=max_pages,
            ocr_workers=max(1, ocr_workers),
        )
    else:
        pages = extract_docx(data, filename, max_pages=max_pages)
    if not any(p.text.strip() for p in pages):
        raise BadInput(
            f"no text could be extracted from {quoted(filename)} ({len(pages)} page(s) read, all empty); "
            "check that it is the right file and that a scan is legible",
            "review",
            code="no_text",
        )
    return ExtractedDocument(pages=pages)


# --------------------------------------------------------------------------------------------
# PDF
# --------------------------------------------------------------------------------------------


@dataclass
class _PdfPage:
    """What the first pass learns about a page: its text layer and whether it needs OCR."""

    number: int
    text: str
    needs_ocr: bool


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
) -> list[Page]:
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
        first_pass = [_read_text_layer(doc, index, filename) for index in range(count)]
        ocr_texts = ocr_pdf_pages(
            doc,
            [p.number for p in first_pass if p.needs_ocr],
            filename,
            language=ocr_language,
            dpi=ocr_dpi,
            workers=ocr_workers,
        )
        pages: list[Page] = []
        for p in first_pass:
            if p.number in ocr_texts:
                text, confidence = ocr_texts[p.number]
                pages.append(Page(number=p.number, text=text, method="ocr", confidence=confidence))
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
        text = page.get_text()
        has_images = bool(page.get_images())
    except Exception as exc:  # only MuPDF calls above
        raise damaged_pdf(filename, f"page {index + 1} cannot be read ({type(exc).__name__}: {exc})") from exc
    solid = len(re.sub(r"\s+", "", text))
    if solid >= MIN_TEXT_CHARS:
        return _PdfPage(index + 1, text, needs_ocr=False)
    if solid == 0 and not has_images and _is_blank(page, filename):
        # A separator page: nothing to read, and nothing to be unsure about.
        return _PdfPage(index + 1, "", needs_ocr=False)
    return _PdfPage(index + 1, text, needs_ocr=has_images or solid == 0)


def _is_blank(page: pymupdf.Page, filename: str) -> bool:
    """A cheap low-resolution render that is one colour means OCR has nothing to find."""
    try:
        return bool(page.get_pixmap(dpi=BLANK_PROBE_DPI, colorspace=pymupdf.csGRAY).is_unicolor)
    except Exception as exc:  # only MuPDF calls above
        raise damaged_pdf(filename, f"page {page.number + 1} cannot be rendered ({exc})") from exc
