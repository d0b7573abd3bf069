"""Plain text and HTML: decode the bytes right, keep the paragraphs, drop what is not text.

Text files from Windows are often cp1252, not UTF-8, and HTML exported by Word or Outlook says its
charset in a meta tag; guessing wrong turns "ação" into "aÃ§Ã£o", which no search finds. HTML is
turned into text with lxml (installed with python-docx): scripts and styles go, block elements
(paragraphs, headings, list items) are separated by a blank line, which the cleaner reads as a
paragraph break, and a table row becomes one line with cells joined by " | " as in the DOCX reader.
"""

from __future__ import annotations

import codecs
import re

import lxml.etree
import lxml.html

from precedente.shared.errors import BadInput, quoted
from precedente.shared.formats import bom_encoding
from precedente.shared.payloads import Page

_META_CHARSET = re.compile(rb"""<meta[^>]+charset\s*=\s*["']?\s*([A-Za-z0-9_.:-]+)""", re.IGNORECASE)
_XML_DECLARATION = re.compile(r"^\s*<\?xml[^>]*\?>", re.IGNORECASE)


def decode_text(data: bytes, declared: str | None = None) -> str:
    """Bytes to text: a BOM wins, then a declared charset, then UTF-8, then cp1252, then latin-1.

    UTF-8 is tried strictly first because valid UTF-8 is almost never meant as anything else;
    cp1252 covers what Windows editors write; latin-1 accepts any byte, so decoding never fails.
    """
    bom = bom_encoding(data)
    if bom:
        return data.decode(bom, errors="replace")
    candidates = [declared] if declared else []
    candidates += ["utf-8", "cp1252"]
    for encoding in candidates:
        try:
            codecs.lookup(encoding)
            return data.decode(encoding)
        except (LookupError, UnicodeDecodeError):
            continue
    return data.decode("latin-1")


def _normalise_newlines(text: str) -> str:
    return text.replace("\r\n", "\n").replace("\r", "\n")


def pages_from_text(text: str, filename: str, *, max_pages: int) -> list[Page]:
    """One page per form feed (what print-to-text and pdftotext write between pages)."""
    chunks = split_pages(_normalise_newlines(text), "\f", filename, max_pages=max_pages)
    return [Page(number=i, text=chunk, method="text") for i, chunk in enumerate(chunks, start=1)]


def split_pages(text: str, separator: str, filename: str, *, max_pages: int) -> list[str]:
    """Page texts between explicit breaks; a break at the very end starts no page anyone wrote on."""
    chunks = text.split(separator)
    while len(chunks) > 1 and not chunks[-1].strip():
        chunks.pop()
    if len(chunks) > max_pages:
        raise BadInput(
            f"{quoted(filename)} has {len(chunks)} pages, more than the limit of {max_pages}; "
            "split it into smaller files",
            "review",
            code="too_many_pages",
        )
    return [chunk.strip("\n") for chunk in chunks]


def extract_txt(data: bytes, filename: str, *, max_pages: int) -> list[Page]:
    return pages_from_text(decode_text(data), filename, max_pages=max_pages)


# --------------------------------------------------------------------------------------------
# HTML
# --------------------------------------------------------------------------------------------

_DROP = {"script", "style", "noscript", "template", "head", "svg", "math", "iframe", "object", "embed", "button"}
_BLOCK = {
    "address", "article", "aside", "blockquote", "body", "center", "dd", "details", "dialog", "dir", "div", "dl",
    "dt", "fieldset", "figcaption", "figure", "footer", "form", "h1", "h2", "h3", "h4", "h5", "h6", "header",
    "hgroup", "hr", "html", "li", "main", "menu", "nav", "ol", "p", "pre", "section", "summary", "table",
    "tbody", "thead", "tfoot", "title", "ul", "caption",
}  # fmt: skip
_CELL = {"td", "th"}
_CELL_MARK = "\x00cell"
_PRE_END = "\x00pre-end"
"""Identity-compared sentinel: leaving a <pre> restores white-space collapsing."""
_ROW_END = "\x00row-end"
"""Identity-compared sentinel: the end of a data row, whose cells share one line."""
_DATA_ROW_MAX_CHARS = 2000
"""A row with more text than this is layout (an e-mail body in a cell), not data: keep its paragraphs."""


def html_charset(data: bytes) -> str | None:
    match = _META_CHARSET.search(data[:4096])
    return match.group(1).decode("ascii", "replace") if match else None


def html_to_text(markup: str | bytes) -> str:
    """Readable text of an HTML document: paragraphs on their own lines, rows as "a | b" lines.

    Walks the tree with an explicit stack, so a hostile page nested thousands of levels deep
    cannot exhaust Python's recursion limit.
    """
    if isinstance(markup, bytes):
        markup = decode_text(markup, html_charset(markup))
    markup = _XML_DECLARATION.sub("", markup, count=1)  # lxml refuses str input that declares an encoding
    if not markup.strip():
        return ""
    try:
        root = lxml.html.document_fromstring(markup, parser=lxml.html.HTMLParser(no_network=True, recover=True))
    except (lxml.etree.ParserError, ValueError):
        return ""
    title = (root.findtext(".//title") or "").strip()
    out: list[str] = []
    # The stack holds elements still to open, and what to do once an element's children are done:
    # strings to emit, or the end-of-<pre> and end-of-row markers. Children are pushed in reverse,
    # so the first child comes out first.
    stack: list[lxml.etree._Element | str] = [root]
    pre_depth = flat_rows = 0
    while stack:
        item = stack.pop()
        if item is _PRE_END:
            pre_depth -= 1
            continue
        if item is _ROW_END:
            flat_rows -= 1
            continue
        if isinstance(item, str):
            out.append(item)
            continue
        tail = (item.tail if pre_depth else _squash(item.tail)) if item.tail else ""
        tag = item.tag.lower() if isinstance(item.tag, str) else ""
        if not tag or tag in _DROP:  # comments and processing instructions have a non-str tag
            out.append(tail)
            continue
        flat = tag == "tr" and not flat_rows and _is_data_row(item)
        if flat or (tag in _CELL and flat_rows):
            opening, closing = ("\n", "") if flat else (_CELL_MARK, "")
        elif tag in _BLOCK or tag in _CELL or tag == "tr":
            opening = closing = " " if flat_rows else "\n"
        else:
            opening, closing = ("\n" if not flat_rows else " ") if tag == "br" else "", ""
        out.append(opening)
        if tag == "pre":
            pre_depth += 1
        if item.text:
            out.append(item.text if pre_depth else _squash(item.text))
        stack.append(tail)
        stack.append(closing)
        if tag == "pre":
            stack.append(_PRE_END)
        if flat:
            flat_rows += 1
            stack.append(_ROW_END)
        stack.extend(reversed(list(item)))
    text = "".join(out)
    text = _rows(text)
    lines = [re.sub(r"[ \t\u00a0]+", " ", line).strip() for line in text.split("\n")]
    text = re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip("\n")
    if title and not text.startswith(title):
        text = f"{title}\n\n{text}" if text else title
    return text


def _is_data_row(row: lxml.etree._Element) -> bool:
    """A table row of data (cells on one line) rather than page layout (nested tables, long text)."""
    if next(row.iterdescendants("table", "TABLE"), None) is not None:
        return False
    return len(row.text_content()) <= _DATA_ROW_MAX_CHARS


def _squash(text: str) -> str:
    """HTML collapses runs of white space (newlines included) to one space outside <pre>."""
    return re.sub(r"\s+", " ", text)


def _rows(text: str) -> str:
    """Cell markers become " | " between cells of a row; the first cell of a row gets none."""
    lines = []
    for line in text.split("\n"):
        cells = line.split(_CELL_MARK)
        if len(cells) > 1:
            parts = [c.strip() for c in cells[1:]]
            lead = cells[0].strip()
            line = " | ".join(([lead] if lead else []) + parts)
        lines.append(line)
    return "\n".join(lines)


def extract_html(data: bytes, filename: str, *, max_pages: int) -> list[Page]:
    return pages_from_text(html_to_text(data), filename, max_pages=max_pages)
