"""A search hit shown where it is: the original PDF with the chunk's passage highlighted on its pages.

The passage is a chunk's *cleaned* text (services/cleaner: running headers gone, hyphenated line ends joined,
lines joined, spaces and quotes normalised), so it is never a literal string of the page and search_for cannot
find it. It is located word by word instead: the passage's words and the page's words (page.get_text("words"))
are compared by a key without accents, case or punctuation, a page word split by a line-end hyphen is joined
with the next line's first word as the cleaner does, and runs of three or more equal words anchor the match.
Anchoring on runs tolerates what the cleaner removed (headers, page numbers), a few words read differently, and
columns the extractor read in another order than the PDF draws them. The matched words of each line become one
highlight quad; each page gets one highlight annotation holding them all.

Pure: bytes in, bytes out, nothing raised on bad input (not a PDF, encrypted, damaged, no text layer): None,
and the caller serves the plain original.
"""

import bisect
import itertools
import threading
import unicodedata
from dataclasses import dataclass, field

import pymupdf
from pymupdf import mupdf

ANCHOR = 3
"""Words in a row that must agree to anchor the match: shorter runs (a lone "de", "do Tribunal") recur everywhere."""
MIN_COVERAGE = 0.8
"""Share of the passage's words that must be found on its pages; below it the passage is not there (None). On the
8 sample files a chunk finds at least 99% of its words on its own pages, and at most 64% on another decision's
(the boilerplate every STJ acórdão shares: "Vistos e relatados estes autos...", the certidão de julgamento)."""
MAX_PAGES = 10
"""Pages looked at per passage: a chunk of 512 tokens spans two or three; this bounds time and memory."""
MAX_SUBSTITUTION = 3
"""A gap of at most this many words, as long on the page as in the passage, between two matched runs is the same
words read differently (a quote, an OCR'd letter, a figure): highlighted too, so a line is not broken up."""
NEARBY = 12
"""Page words after the previous match within which an anchor is taken as its continuation."""
MAX_REPEATS = 32
"""An anchor found more often than this on the pages (a table's "R$ 0,00") is used only as a continuation."""
AUTHOR = "Precedente"
"""The annotations' author (/T), as PDF viewers show it."""
_HYPHENS = ("-", "\u2010", "\u2011", "\u00ad")

# MuPDF is not thread-safe and the route calls this from a worker thread: one highlight at a time.
_LOCK = threading.Lock()


_Box = tuple[float, float, float, float]


@dataclass
class _Token:
    """A word of the page as the cleaner would have it; two boxes when a line-end hyphen split it."""

    key: str
    boxes: list[tuple[int, tuple[int, int], _Box]] = field(default_factory=list)  # (page, line, x0 y0 x1 y1)


def highlight_passage(pdf: bytes, page_start: int, page_end: int, passage: str) -> bytes | None:
    """The PDF with the passage highlighted on pages page_start..page_end (1-based); None when its words are not
    there (a scanned page without a text layer, another passage) or the file cannot be read."""
    keys = [k for k in (_key(word) for word in passage.split()) if k]
    if not keys or page_start < 1 or page_end < page_start:
        return None
    with _LOCK:
        try:
            return _highlight(pdf, page_start, page_end, keys)
        except Exception:  # noqa: BLE001 - MuPDF raises many kinds on damaged files; a highlight is never worth a 500
            return None


def _highlight(pdf: bytes, page_start: int, page_end: int, keys: list[str]) -> bytes | None:
    with pymupdf.open(stream=pdf, filetype="pdf") as doc:
        if doc.needs_pass or doc.page_count < page_start:
            return None
        numbers = range(page_start - 1, min(page_end, doc.page_count, page_start - 1 + MAX_PAGES))
        tokens = [token for number in numbers for token in _page_tokens(doc[number], number)]
        matched = _align(keys, [t.key for t in tokens])
        if len(matched) < MIN_COVERAGE * len(keys):
            return None
        for number, rects in _line_runs(tokens, matched).items():
            page = doc[number]  # held: an annotation whose page is collected is unbound
            annot = page.add_highlight_annot(rects)
            annot.set_info(title=AUTHOR)  # tells ours from the highlights a reader already made in the file
        return _save(doc, pdf)


def _key(word: str) -> str:
    """What two spellings of one word share: no accents, case, punctuation or ligatures ("Ação," -> "acao")."""
    decomposed = unicodedata.normalize("NFKD", word)
    return "".join(c for c in decomposed if c.isalnum() and not unicodedata.combining(c)).casefold()


def _page_tokens(page: pymupdf.Page, number: int) -> list[_Token]:
    """The page's words in drawing order, a line-end "responsa-" joined with the next line's "bilidade"."""
    tokens: list[_Token] = []
    split = False  # the previous token ends a line with a hyphen glued to a letter
    previous_line: tuple[int, int] | None = None
    for x0, y0, x1, y1, text, block, line, _ in page.get_text("words", sort=False):
        box = (number, (block, line), (x0, y0, x1, y1))
        key = _key(text)
        if split and (block, line) != previous_line:
            tokens[-1].key += key
            tokens[-1].boxes.append(box)
        elif key:
            tokens.append(_Token(key, [box]))
        elif tokens and (block, line) == previous_line:
            tokens[-1].boxes.append(box)  # a dash or a bullet between words: highlighted with its neighbour
        else:
            continue
        split = text.endswith(_HYPHENS) and len(text) > 1 and text.rstrip("".join(_HYPHENS))[-1:].isalpha()
        previous_line = (block, line)
    return tokens


def _align(passage: list[str], page: list[str]) -> set[int]:
    """Indices of the page's tokens that are the passage's words: runs anchored on ANCHOR equal words, each taken
    where the previous one ended when it can be, else where it runs longest; short equal-length gaps between
    runs filled. Work is bounded by MAX_REPEATS times the passage's length, whatever the page repeats."""
    anchor = min(ANCHOR, len(passage))
    index: dict[tuple[str, ...], list[int]] = {}
    for j in range(len(page) - anchor + 1):
        index.setdefault(tuple(page[j : j + anchor]), []).append(j)  # ascending
    used: set[int] = set()
    runs: list[tuple[int, int, int]] = []  # (passage start, page start, length)
    i, expected = 0, None
    while i <= len(passage) - anchor:
        where = index.get(tuple(passage[i : i + anchor]), [])
        j = _continuation(where, expected, used)
        if j is None and len(where) <= MAX_REPEATS:
            free = [j for j in where if j not in used]
            j = max(free, key=lambda j: (_run_length(passage, page, i, j, used), -j)) if free else None
        if j is None:
            i += 1
            continue
        length = _run_length(passage, page, i, j, used)
        runs.append((i, j, length))
        used.update(range(j, j + length))
        i, expected = i + length, j + length
    runs.sort()
    for (i1, j1, n1), (i2, j2, _) in itertools.pairwise(runs):
        gap = i2 - (i1 + n1)
        if 0 < gap <= MAX_SUBSTITUTION and j2 - (j1 + n1) == gap:
            used.update(range(j1 + n1, j2))
    return used


def _continuation(where: list[int], expected: int | None, used: set[int]) -> int | None:
    """The first free occurrence at most NEARBY words after where the previous run ended."""
    if expected is None:
        return None
    for k in range(bisect.bisect_left(where, expected), len(where)):
        if where[k] > expected + NEARBY:
            return None
        if where[k] not in used:
            return where[k]
    return None


def _run_length(passage: list[str], page: list[str], i: int, j: int, used: set[int]) -> int:
    n = 0
    while i + n < len(passage) and j + n < len(page) and passage[i + n] == page[j + n] and j + n not in used:
        n += 1
    return n


def _line_runs(tokens: list[_Token], matched: set[int]) -> dict[int, list[pymupdf.Rect]]:
    """Per page, one rectangle per run of matched words on one line."""
    runs: dict[int, list[_Box]] = {}
    current: tuple[int, tuple[int, int]] | None = None
    for j, token in enumerate(tokens):
        if j not in matched:
            current = None
            continue
        for number, line, box in token.boxes:
            boxes = runs.setdefault(number, [])
            if current == (number, line):
                x0, y0, x1, y1 = boxes[-1]
                boxes[-1] = (min(x0, box[0]), min(y0, box[1]), max(x1, box[2]), max(y1, box[3]))
            else:
                boxes.append(box)
                current = (number, line)
    return {number: [pymupdf.Rect(box) for box in boxes] for number, boxes in runs.items()}


def _save(doc: pymupdf.Document, original: bytes) -> bytes:
    """The original bytes with the annotations appended (an incremental update keeps a signed PDF's signatures
    valid), new streams deflated; a full rewrite when MuPDF cannot write incrementally (a repaired file)."""
    try:
        options = mupdf.PdfWriteOptions()
        options.do_incremental = 1
        options.do_compress = 1
        buffer = mupdf.fz_new_buffer(len(original) + 65536)
        output = mupdf.FzOutput(buffer)
        mupdf.pdf_write_document(pymupdf._as_pdf_document(doc), output, options)
        output.fz_close_output()
        written = bytes(buffer.fz_buffer_extract())
        if written.startswith(original):
            return written
    except Exception:  # noqa: BLE001, S110 - the low-level writer refused: the full rewrite below is the fallback
        pass
    return doc.tobytes(garbage=0, deflate=True)
