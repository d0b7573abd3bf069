"""The extractor's pure logic: bytes of an uploaded file in, pages of text out.

No Kafka and no database here, so it can be tested with real files alone. Files that cannot be
read as they are raise BadInput, whose disposition tells the stage where the file goes: "review"
when a person can fix it (a password, too many pages, no text found), "deadletter" when the
bytes themselves are unusable (empty, damaged, not a PDF or DOCX at all).
"""

from __future__ import annotations

import io
import os
import re
import tempfile
import zipfile
from collections.abc import Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import docx
import pymupdf
import pytesseract
from docx.document import Document as DocxDocument
from docx.oxml.ns import qn
from docx.table import Table
from docx.text.paragraph import Paragraph
from lxml import etree

from shared.payloads import ExtractedDocument, Page

# Tesseract (through OpenMP) would otherwise use every core for one page; we get more from one
# thread per page and several pages at once. pytesseract's subprocess inherits os.environ.
os.environ.setdefault("OMP_THREAD_LIMIT", "1")

Disposition = Literal["review", "deadletter"]

MIN_TEXT_CHARS = 20
"""A page whose text layer has fewer non-space characters than this is a candidate for OCR."""

BLANK_PROBE_DPI = 24
"""Resolution of the cheap render that tells a truly blank page from one drawn without text."""

TESSERACT_TIMEOUT_S = 300
"""One page that takes Tesseract longer than this is pathological; better to fail the attempt."""


class BadInput(Exception):
    """A file no stage can read as it is. disposition says where it goes."""

    def __init__(self, reason: str, disposition: Disposition) -> None:
        super().__init__(reason)
        self.reason: str = reason
        self.disposition: str = disposition

    def __repr__(self) -> str:
        return f"BadInput({self.reason!r}, {self.disposition!r})"


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


def _quote(filename: str) -> str:
    return f'"{filename}"'


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
    name = _quote(filename)
    if not data:
        raise BadInput(f"{name} is empty (0 bytes); upload the file again", "deadletter")
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
        pages = _extract_docx(data, filename, max_pages=max_pages)
    if not any(p.text.strip() for p in pages):
        raise BadInput(
            f"no text could be extracted from {_quote(filename)} ({len(pages)} page(s) read, all empty); "
            "check that it is the right file and that a scan is legible",
            "review",
        )
    return ExtractedDocument(pages=pages)


# --------------------------------------------------------------------------------------------
# PDF
# --------------------------------------------------------------------------------------------


def _damaged(filename: str, detail: str) -> BadInput:
    return BadInput(
        f"the PDF {_quote(filename)} is damaged or truncated: {detail}; re-export or re-scan it",
        "deadletter",
    )


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
        raise _damaged(filename, f"{type(exc).__name__}: {exc}") from exc


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
            raise BadInput(f"{_quote(filename)} is password-protected; provide an unencrypted copy", "review")
        try:
            count = doc.page_count
        except Exception as exc:  # a page tree cut off mid-way: MuPDF cannot even count the pages
            raise _damaged(filename, f"{type(exc).__name__}: {exc}") from exc
        if count == 0:
            if doc.is_repaired:
                # MuPDF "repairs" truncated files silently; a repair that recovers no page means
                # the page tree was in the part that is missing.
                raise _damaged(filename, "MuPDF had to rebuild it and found no pages")
            raise BadInput(f"the PDF {_quote(filename)} has no pages", "deadletter")
        if count > max_pages:
            raise BadInput(
                f"{_quote(filename)} has {count} pages, more than the limit of {max_pages}; "
                "split it into smaller files",
                "review",
            )
        first_pass = [_read_text_layer(doc, index, filename) for index in range(count)]
        ocr_texts = _ocr_pdf_pages(
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
            raise _damaged(filename, f"MuPDF had to rebuild it and its {count} page(s) came out blank")
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
        raise _damaged(filename, f"page {index + 1} cannot be read ({type(exc).__name__}: {exc})") from exc
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
        raise _damaged(filename, f"page {page.number + 1} cannot be rendered ({exc})") from exc


def _ocr_pdf_pages(
    doc: pymupdf.Document,
    numbers: list[int],
    filename: str,
    *,
    language: str,
    dpi: int,
    workers: int,
) -> dict[int, tuple[str, float]]:
    """OCR the given pages, several at a time.

    MuPDF is not thread-safe, so pages are rendered here, one after another, to uncompressed
    greyscale files (cheap to write, cheap for Tesseract to read); only Tesseract, a subprocess,
    runs in the pool. At most 2 * workers rendered pages wait on disk at any time.
    """
    results: dict[int, tuple[str, float]] = {}
    if not numbers:
        return results
    with (
        tempfile.TemporaryDirectory(prefix="precedente-ocr-") as tmp,
        ThreadPoolExecutor(max_workers=workers, thread_name_prefix="ocr") as pool,
    ):
        pending: dict[Future[tuple[str, float]], int] = {}

        def collect(done: set[Future[tuple[str, float]]]) -> None:
            for future in done:
                results[pending.pop(future)] = future.result()

        for number in numbers:
            if len(pending) >= 2 * workers:
                done, _ = wait(pending, return_when=FIRST_COMPLETED)
                collect(done)
            image = Path(tmp) / f"page-{number:05d}.pgm"
            _render(doc, number, dpi, image, filename)
            pending[pool.submit(_ocr_image, image, language)] = number
        done, _ = wait(pending)
        collect(done)
    return results


def _render(doc: pymupdf.Document, number: int, dpi: int, target: Path, filename: str) -> None:
    try:
        pix = doc.load_page(number - 1).get_pixmap(dpi=dpi, colorspace=pymupdf.csGRAY, alpha=False)
        pix.save(str(target))
    except Exception as exc:  # only MuPDF calls above
        raise _damaged(filename, f"page {number} cannot be rendered for OCR ({exc})") from exc


def _ocr_image(image: Path, language: str) -> tuple[str, float]:
    """Tesseract on one rendered page; the file is deleted as soon as it has been read.

    Tesseract errors (not installed, language data missing, timeout) are not the file's fault,
    so they propagate and the stage retries instead of dead-lettering a good document.
    """
    try:
        data = pytesseract.image_to_data(
            str(image),
            lang=language,
            output_type=pytesseract.Output.DICT,
            timeout=TESSERACT_TIMEOUT_S,
        )
    finally:
        image.unlink(missing_ok=True)
    return text_from_tesseract(data)


def text_from_tesseract(data: dict[str, list[Any]]) -> tuple[str, float]:
    """Rebuild text from Tesseract's word table, keeping its lines; confidence = mean word conf / 100.

    Lines are joined by a newline and paragraphs by an empty line. A page without any word gives
    ("", 0.0).
    """
    lines: dict[tuple[int, int, int], list[str]] = {}
    confidences: list[float] = []
    for i, word in enumerate(data.get("text", [])):
        word = str(word).strip()
        conf = _as_float(data["conf"][i])
        if not word or conf < 0:
            continue
        key = (int(data["block_num"][i]), int(data["par_num"][i]), int(data["line_num"][i]))
        lines.setdefault(key, []).append(word)
        confidences.append(conf)
    if not confidences:
        return "", 0.0
    parts: list[str] = []
    previous: tuple[int, int] | None = None
    for block, par, line in lines:  # dicts keep Tesseract's reading order
        if previous is not None:
            parts.append("\n\n" if (block, par) != previous else "\n")
        parts.append(" ".join(lines[(block, par, line)]))
        previous = (block, par)
    confidence = sum(confidences) / len(confidences) / 100
    return "".join(parts), min(max(confidence, 0.0), 1.0)


def _as_float(value: Any) -> float:
    try:
        return float(value)
    except (TypeError, ValueError):
        return -1.0


# --------------------------------------------------------------------------------------------
# DOCX
# --------------------------------------------------------------------------------------------

_W_P = qn("w:p")
_W_TBL = qn("w:tbl")
_W_SDT = qn("w:sdt")
_W_SDTCONTENT = qn("w:sdtContent")
_W_T = qn("w:t")
_W_TAB = qn("w:tab")
_W_BR = qn("w:br")
_W_CR = qn("w:cr")
_W_TYPE = qn("w:type")
_W_VAL = qn("w:val")
_W_PPR = qn("w:pPr")
_W_SECTPR = qn("w:sectPr")
_W_NOBREAKHYPHEN = qn("w:noBreakHyphen")
_MC_FALLBACK = "{http://schemas.openxmlformats.org/markup-compatibility/2006}Fallback"
_PAGE_BREAK = "\f"
"""Marker for an explicit page break inside the running text; split on it at the end."""


def _extract_docx(data: bytes, filename: str, *, max_pages: int) -> list[Page]:
    try:
        document = docx.Document(io.BytesIO(data))
    except Exception as exc:  # python-docx raises PackageNotFoundError, KeyError, lxml errors...
        raise BadInput(
            f"the DOCX {_quote(filename)} cannot be opened ({type(exc).__name__}: {exc}); "
            "open it in a word processor and save it again as DOCX or PDF",
            "deadletter",
        ) from exc
    body = document.element.body
    text = "\n".join(_docx_blocks(document, body, _section_breaks_to_new_page(body)))
    chunks = text.split(_PAGE_BREAK)
    # A break at the very end of the document does not start a page anyone wrote on.
    while len(chunks) > 1 and not chunks[-1].strip():
        chunks.pop()
    if len(chunks) > max_pages:
        raise BadInput(
            f"{_quote(filename)} has {len(chunks)} pages, more than the limit of {max_pages}; "
            "split it into smaller files",
            "review",
        )
    return [
        Page(number=i, text=chunk.strip("\n"), method="docx", confidence=1.0) for i, chunk in enumerate(chunks, start=1)
    ]


def _docx_blocks(
    document: DocxDocument, container: etree._Element, section_breaks: set[etree._Element]
) -> Iterator[str]:
    """Body paragraphs and tables, in document order, with page-break markers between pages.

    Walks the body's children itself rather than Document.iter_inner_content(), which skips
    block-level content controls (w:sdt), where templates often keep their text.
    """
    for child in container:
        if child.tag == _W_P:
            paragraph = Paragraph(child, document._body)
            if _breaks_page_before(paragraph):
                yield _PAGE_BREAK
            yield _paragraph_text(child)
            ppr = child.find(_W_PPR)
            if ppr is not None and ppr.find(_W_SECTPR) in section_breaks:
                yield _PAGE_BREAK
        elif child.tag == _W_TBL:
            yield from _table_lines(Table(child, document._body))
        elif child.tag == _W_SDT:
            content = child.find(_W_SDTCONTENT)
            if content is not None:
                yield from _docx_blocks(document, content, section_breaks)


def _breaks_page_before(paragraph: Paragraph) -> bool:
    """pageBreakBefore set on the paragraph itself or inherited from its style chain."""
    if paragraph.paragraph_format.page_break_before is not None:
        return bool(paragraph.paragraph_format.page_break_before)
    style = paragraph.style
    for _ in range(20):  # style chains are short; the bound guards against loops
        if style is None:
            break
        value = style.paragraph_format.page_break_before
        if value is not None:
            return bool(value)
        style = style.base_style
    return False


def _section_breaks_to_new_page(body: etree._Element) -> set[etree._Element]:
    """The paragraph-level w:sectPr elements after which the next section starts on a new page.

    A paragraph's w:sectPr closes a section, but the w:type inside a sectPr says how *its own*
    section starts; so whether a page break follows a section depends on the next sectPr
    (the next paragraph-level one, or the body's last one). The default type is nextPage.
    """
    sections = body.xpath(  # python-docx's xpath knows the w: prefix
        "./w:p/w:pPr/w:sectPr | ./w:sdt/w:sdtContent/w:p/w:pPr/w:sectPr | ./w:sectPr",
    )
    breaks: set[etree._Element] = set()
    for closing, following in zip(sections, sections[1:], strict=False):
        kind = following.find(_W_TYPE)  # the <w:type w:val="..."/> element, not w:br's attribute
        if kind is None or kind.get(_W_VAL) not in ("continuous", "nextColumn"):
            breaks.add(closing)
    return breaks


def _paragraph_text(p: etree._Element) -> str:
    """Text of a paragraph element, runs in order, with explicit page breaks as markers.

    Walks the XML rather than Paragraph.text because python-docx renders page breaks as "", and
    the text of runs inside hyperlinks, tracked insertions, fields and text boxes must not be
    lost. Deleted text (w:delText) and the legacy fallback copy of text boxes are left out.
    """
    out: list[str] = []
    _walk_runs(p, out)
    return "".join(out).strip("\n")


def _walk_runs(element: etree._Element, out: list[str]) -> None:
    for child in element:
        tag = child.tag
        if tag in (_W_PPR, _MC_FALLBACK):
            continue
        if tag == _W_T:
            out.append(child.text or "")
        elif tag == _W_TAB:
            out.append("\t")
        elif tag == _W_BR:
            kind = child.get(_W_TYPE)
            out.append(_PAGE_BREAK if kind == "page" else "" if kind == "column" else "\n")
        elif tag == _W_CR:
            out.append("\n")
        elif tag == _W_NOBREAKHYPHEN:
            out.append("-")
        elif tag == _W_P:  # a paragraph nested in a text box: keep it on its own line
            out.append("\n")
            _walk_runs(child, out)
            out.append("\n")
        else:
            _walk_runs(child, out)


def _table_lines(table: Table) -> Iterator[str]:
    """One line per row, cells joined by " | "; a cell merged across columns is written once."""
    for row in table.rows:
        cells: list[str] = []
        previous = None
        for cell in row.cells:
            if cell._tc is previous:
                continue
            previous = cell._tc
            cells.append(re.sub(r"\s+", " ", _cell_text(cell._tc, table)).strip())
        yield " | ".join(cells)


def _cell_text(tc: etree._Element, table: Table) -> str:
    """A cell's paragraphs (and any nested table) on one line, so a row stays one line."""
    parts: list[str] = []
    for child in tc:
        if child.tag == _W_P:
            parts.append(_paragraph_text(child).replace(_PAGE_BREAK, " "))
        elif child.tag == _W_TBL:
            parts.extend(_table_lines(Table(child, table._parent)))
        elif child.tag == _W_SDT:
            content = child.find(_W_SDTCONTENT)
            if content is not None:
                parts.append(_cell_text(content, table))
    return " ".join(parts)
