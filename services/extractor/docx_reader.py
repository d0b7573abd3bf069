"""DOCX reading: paragraphs and tables in document order, pages split on explicit breaks.

Also read: headers and footers, once each (a letterhead repeated on every page would only add
noise, but its firm name and case number are worth finding), placed at the start of the first
page and the end of the last; footnotes, placed at the end of the page that cites them as
"[n] text", with "[n]" where the reference stands; endnotes at the end of the document as
"[i] text". Comments are left out: they are the reviewers' notes, not the document.
Before python-docx unpacks anything, the ZIP's declared sizes are checked (limits.check_zip).
"""

from __future__ import annotations

import io
import re
from collections.abc import Iterator

import docx
from docx.document import Document as DocxDocument
from docx.exceptions import InvalidXmlError
from docx.oxml import parse_xml
from docx.oxml.exceptions import XmlchemyError
from docx.oxml.ns import qn
from docx.table import Table
from docx.text.paragraph import Paragraph
from lxml import etree

from precedente.services.extractor.limits import check_zip
from precedente.services.extractor.text_reader import split_pages
from precedente.shared.errors import BadInput, quoted
from precedente.shared.payloads import Page

_W_DOCUMENT = qn("w:document")
_W_BODY = qn("w:body")
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
_W_TRPR = qn("w:trPr")
_W_TCPR = qn("w:tcPr")
_W_GRID_BEFORE = qn("w:gridBefore")
_W_GRID_SPAN = qn("w:gridSpan")
_W_VMERGE = qn("w:vMerge")
_MAX_GRID_COLUMNS = 63
"""Word's limit on a table's columns; a span or offset beyond it is damage, not layout."""
_MC_FALLBACK = "{http://schemas.openxmlformats.org/markup-compatibility/2006}Fallback"
_W_FOOTNOTE_REF = qn("w:footnoteReference")
_W_ENDNOTE_REF = qn("w:endnoteReference")
_W_FOOTNOTE = qn("w:footnote")
_W_ENDNOTE = qn("w:endnote")
_W_ID = qn("w:id")
_R_ID = qn("r:id")
_PAGE_BREAK = "\f"
"""Marker for an explicit page break inside the running text; split on it at the end."""
_NOTE_MARK = re.compile("\ue000([fe])(-?\\d+)\ue001")
"""Marker for a footnote (f) or endnote (e) reference, replaced by its number once pages are known."""
_RT_FOOTNOTES = "http://schemas.openxmlformats.org/officeDocument/2006/relationships/footnotes"
_RT_ENDNOTES = "http://schemas.openxmlformats.org/officeDocument/2006/relationships/endnotes"


def extract_docx(data: bytes, filename: str, *, max_pages: int) -> list[Page]:
    check_zip(data, filename)
    try:
        document = docx.Document(io.BytesIO(data))
    except Exception as exc:  # python-docx raises PackageNotFoundError, KeyError, lxml errors...
        raise BadInput(
            f"the DOCX {quoted(filename)} cannot be opened ({type(exc).__name__}: {exc}); "
            "open it in a word processor and save it again as DOCX or PDF",
            "deadletter",
            code="damaged",
        ) from exc
    body = _body(document, filename)
    text = "\n".join(_docx_blocks(document, body, _section_breaks_to_new_page(body)))
    chunks = split_pages(text, _PAGE_BREAK, filename, max_pages=max_pages)
    chunks = _place_notes(document, chunks)
    header = "\n".join(_header_footer_texts(document, "headerReference"))
    footer = "\n".join(_header_footer_texts(document, "footerReference"))
    if header:
        chunks[0] = f"{header}\n{chunks[0]}" if chunks[0] else header
    if footer:
        chunks[-1] = f"{chunks[-1]}\n{footer}" if chunks[-1] else footer
    return [Page(number=i, text=chunk, method="docx", confidence=1.0) for i, chunk in enumerate(chunks, start=1)]


def _body(document: DocxDocument, filename: str) -> etree._Element:
    """The w:body of word/document.xml; a main part that is some other XML (python-docx opens it
    all the same, as a plain element) or has no body is a damaged file, not a crash."""
    root = document.element
    body = root.find(_W_BODY) if root.tag == _W_DOCUMENT else None
    if body is None:
        name = etree.QName(root)
        found = (
            "a <document> without a <body>"
            if root.tag == _W_DOCUMENT
            else f"<{name.localname}> (XML namespace {name.namespace or 'none'})"
        )
        raise BadInput(
            f"the DOCX {quoted(filename)} is damaged: its main part (word/document.xml) holds {found}, "
            "not a Word document body; open it in a word processor and save it again as DOCX or PDF",
            "deadletter",
            code="damaged",
        )
    return body


def _part_element(part: object) -> etree._Element | None:
    """The XML of a related part: python-docx parses some (headers), keeps others as bytes (notes)."""
    element = getattr(part, "element", None)
    if element is not None:
        return element
    blob = getattr(part, "blob", None)
    if not blob:
        return None
    try:
        return parse_xml(blob)  # python-docx's parser: no entity resolution, no network
    except etree.XMLSyntaxError:
        return None


def _notes(document: DocxDocument, reltype: str, tag: str) -> dict[str, etree._Element]:
    for rel in document.part.rels.values():
        if rel.reltype == reltype and not rel.is_external:
            root = _part_element(rel.target_part)
            if root is not None:
                return {note.get(_W_ID, ""): note for note in root.iterchildren(tag)}
    return {}


def _place_notes(document: DocxDocument, pages: list[str]) -> list[str]:
    """Number the note references in reading order and put each note's text where it is read."""
    footnotes = _notes(document, _RT_FOOTNOTES, _W_FOOTNOTE)
    endnotes = _notes(document, _RT_ENDNOTES, _W_ENDNOTE)
    numbers: dict[tuple[str, str], str] = {}
    counts = {"f": 0, "e": 0}
    end_lines: list[str] = []
    out: list[str] = []
    for text in pages:
        page_notes: list[str] = []

        def number(match: re.Match[str], page_notes: list[str] = page_notes) -> str:
            key = (kind, note_id) = (match.group(1), match.group(2))
            if key not in numbers:
                counts[kind] += 1
                numbers[key] = str(counts[kind]) if kind == "f" else _roman(counts[kind])
                note = (footnotes if kind == "f" else endnotes).get(note_id)
                body = " ".join(_story_lines(document, note)).strip() if note is not None else ""
                if body:
                    (page_notes if kind == "f" else end_lines).append(f"[{numbers[key]}] {body}")
            return f"[{numbers[key]}]"

        text = _NOTE_MARK.sub(number, text)
        if page_notes:
            text = "\n".join([text, *page_notes]) if text else "\n".join(page_notes)
        out.append(text)
    if end_lines:
        out[-1] = "\n".join([out[-1], *end_lines]) if out[-1] else "\n".join(end_lines)
    return out


def _roman(number: int) -> str:
    """Word numbers endnotes i, ii, iii... by default."""
    out = ""
    for value, letters in ((1000, "m"), (900, "cm"), (500, "d"), (400, "cd"), (100, "c"), (90, "xc"), (50, "l"),
                           (40, "xl"), (10, "x"), (9, "ix"), (5, "v"), (4, "iv"), (1, "i")):  # fmt: skip
        count, number = divmod(number, value)
        out += letters * count
    return out


def _header_footer_texts(document: DocxDocument, reference: str) -> list[str]:
    """Each distinct header (or footer) text of every section, once, in section order."""
    texts: list[str] = []
    seen_parts: set[int] = set()
    for sect_pr in document.element.body.xpath(".//w:sectPr"):
        for ref in sect_pr.iterchildren(qn(f"w:{reference}")):
            try:
                part = document.part.related_parts[ref.get(_R_ID)]
            except KeyError:  # a reference to a part that is not in the package
                continue
            if id(part) in seen_parts:
                continue
            seen_parts.add(id(part))
            root = _part_element(part)
            if root is None:
                continue
            text = "\n".join(line for line in _story_lines(document, root) if line.strip())
            text = _NOTE_MARK.sub("", text).strip()
            if text and text not in texts:
                texts.append(text)
    return texts


def _story_lines(document: DocxDocument, container: etree._Element) -> Iterator[str]:
    """Paragraphs and tables of a header, footer or note, where page breaks mean nothing."""
    for child in container:
        if child.tag == _W_P:
            yield _paragraph_text(child).replace(_PAGE_BREAK, "\n")
        elif child.tag == _W_TBL:
            yield from _table_lines(Table(child, document._body))
        elif child.tag == _W_SDT:
            content = child.find(_W_SDTCONTENT)
            if content is not None:
                yield from _story_lines(document, content)


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
    """pageBreakBefore set on the paragraph itself or inherited from its style chain.

    A value that is not a boolean (w:val="xyz": python-docx raises InvalidXmlError), a w:pStyle
    without its w:val (XmlchemyError, python-docx's other InvalidXmlError), or a styles part that
    cannot be read, is read as no break: the paragraph's text is intact, only where a page starts
    is lost.
    """
    try:
        return _page_break_before(paragraph)
    except (InvalidXmlError, XmlchemyError, ValueError):
        return False


def _page_break_before(paragraph: Paragraph) -> bool:
    if paragraph.paragraph_format.page_break_before is not None:
        return bool(paragraph.paragraph_format.page_break_before)
    try:
        style = paragraph.style
    except AttributeError:  # [Content_Types].xml gives styles.xml another type: python-docx's Part has no .styles
        return False
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
        elif tag in (_W_FOOTNOTE_REF, _W_ENDNOTE_REF):
            kind = "f" if tag == _W_FOOTNOTE_REF else "e"
            out.append(f"\ue000{kind}{child.get(_W_ID, '')}\ue001")
        elif tag == _W_P:  # a paragraph nested in a text box: keep it on its own line
            out.append("\n")
            _walk_runs(child, out)
            out.append("\n")
        else:
            _walk_runs(child, out)


def _table_lines(table: Table) -> Iterator[str]:
    """One line per row, cells joined by " | "; a cell merged across columns is written once, a cell
    merged down is repeated on each row it covers (what python-docx's row.cells gives).

    Walks the grid itself, in one pass, rather than row.cells: to find the cell above a vertical
    merge python-docx re-scans the rows above, recursively (a 1,500-row merge took minutes, then
    hit Python's recursion limit), it loops once per column a w:gridSpan claims (a hostile file
    claims billions) and raises ValueError for a span that is not a number. Damaged counts are
    read as their defaults: the text of every cell is kept, only the merge is lost.
    """
    above: dict[int, etree._Element] = {}
    for tr in table._tbl.tr_lst:
        column = _grid_count(tr.find(_W_TRPR), _W_GRID_BEFORE, 0)
        here: dict[int, etree._Element] = {}
        cells: list[str] = []
        previous = None
        for tc in tr.tc_lst:
            props = tc.find(_W_TCPR)
            span = max(1, _grid_count(props, _W_GRID_SPAN, 1))
            merge = props.find(_W_VMERGE) if props is not None else None
            content = tc
            if merge is not None and merge.get(_W_VAL, "continue") == "continue":
                content = above.get(column, tc)  # continues the cell above; from no cell: a cell of its own
            for grid_column in range(column, min(column + span, _MAX_GRID_COLUMNS)):
                here[grid_column] = content
            column += span
            if content is previous:
                continue
            previous = content
            cells.append(re.sub(r"\s+", " ", _cell_text(content, table)).strip())
        above = here
        yield " | ".join(cells)


def _grid_count(props: etree._Element | None, tag: str, default: int) -> int:
    """A w:gridSpan or w:gridBefore count; one that is not a number counts as the default."""
    element = props.find(tag) if props is not None else None
    if element is None:
        return default
    try:
        value = int(element.get(_W_VAL, default))
    except ValueError:
        return default
    return min(max(value, 0), _MAX_GRID_COLUMNS)


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
