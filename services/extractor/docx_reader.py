"""DOCX reading: paragraphs and tables in document order, pages split on explicit breaks."""

from __future__ import annotations

import io
import re
from collections.abc import Iterator

import docx
from docx.document import Document as DocxDocument
from docx.oxml.ns import qn
from docx.table import Table
from docx.text.paragraph import Paragraph
from lxml import etree

from services.extractor.errors import BadInput, quoted
from shared.payloads import Page

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


def extract_docx(data: bytes, filename: str, *, max_pages: int) -> list[Page]:
    try:
        document = docx.Document(io.BytesIO(data))
    except Exception as exc:  # python-docx raises PackageNotFoundError, KeyError, lxml errors...
        raise BadInput(
            f"the DOCX {quoted(filename)} cannot be opened ({type(exc).__name__}: {exc}); "
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
            f"{quoted(filename)} has {len(chunks)} pages, more than the limit of {max_pages}; "
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
