"""The ementa of a decision, read back from its indexed chunks, to show under a search result.

The chunker keeps each ementa in chunks of its own section ("ementa", "ementa > I. CASO EM EXAME") and
adds one more chunk flagged is_ementa (the ementa whole, or its opening when it is long). Those chunks
overlap (each starts inside the tail of the previous one) and are exact slices of the cleaned text, so the
ementa is rebuilt from their offsets: sorted by char_start, each chunk contributes only what lies past the
end of the text already taken. Only the first ementa counts: a decision printed twice (acórdão and inteiro
teor) has a second copy further on, past a gap that ends the first.

The text is then cut at the ementa's own end (a chunk written by an older or foreign chunker may run into
the "ACÓRDÃO", "RELATÓRIO" or "Vistos" that follow), its "EMENTA" heading dropped, the PDF's line breaks
joined (a numbered paragraph keeps its own line), and cut to at most EMENTA_MAX_CHARS at the last sentence
end, " (...)" marking what was left out.
"""

import re
import uuid
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import groupby

import asyncpg

from precedente.shared.legal.text import fold

EMENTA_MAX_CHARS = 2500
OMITTED = " (...)"
"""Written where a long ementa was cut, as lawyers mark an omission in a quotation."""
GAP_MAX = 8
"""Characters allowed between two chunks of one ementa: the whitespace between sections (a line break, a
page separator). Any word between them belongs to another part, so a larger gap ends the ementa."""

_QUERY = """
SELECT document_id, ordinal, text, char_start, char_end
FROM chunks
WHERE document_id = ANY($1::uuid[])
  AND (is_ementa OR section_path = 'ementa' OR section_path LIKE 'ementa > %')
ORDER BY document_id, char_start, ordinal
"""


@dataclass(frozen=True)
class EmentaChunk:
    """What rebuilding an ementa needs of a chunk."""

    text: str
    char_start: int
    char_end: int


async def ementas(conn: asyncpg.Connection | asyncpg.Pool, document_ids: list[uuid.UUID]) -> dict[uuid.UUID, str]:
    """The ementa text of each document that has one; documents without an ementa are absent."""
    if not document_ids:
        return {}
    rows = await conn.fetch(_QUERY, list(dict.fromkeys(document_ids)))
    out: dict[uuid.UUID, str] = {}
    for document_id, group in groupby(rows, key=lambda r: r["document_id"]):
        text = ementa_text(EmentaChunk(r["text"], r["char_start"], r["char_end"]) for r in group)
        if text:
            out[document_id] = text
    return out


def ementa_text(chunks: Iterable[EmentaChunk], max_chars: int = EMENTA_MAX_CHARS) -> str | None:
    """The ementa of one document from its ementa chunks (any order); None when they hold no text."""
    text = _cut_at_end(_stitch(sorted(chunks, key=lambda c: c.char_start)))
    text = _HEADING.sub("", text, count=1)
    text = _join_lines(text)
    return _shorten(text, max_chars) or None


def _stitch(chunks: Sequence[EmentaChunk]) -> str:
    """The first run of chunks that touch or overlap, each one's text past the run's end appended."""
    if not chunks:
        return ""
    parts, end = [chunks[0].text], chunks[0].char_end
    for chunk in chunks[1:]:
        if chunk.char_start > end + GAP_MAX:
            break  # another copy of the ementa, or another part: the first ementa ended
        if chunk.char_end <= end:
            continue  # inside what is already taken (the extra is_ementa chunk)
        if chunk.char_start >= end:
            parts.append("\n" + chunk.text)
        else:
            parts.append(chunk.text[end - chunk.char_start :])
        end = chunk.char_end
    return "".join(parts)


def _spaced(word: str) -> str:
    """A heading word as PDFs print it, letter-spaced or not ("A C Ó R D Ã O"), on the folded text."""
    return " ?".join(word)


_END = re.compile(
    rf"^[ \t]*(?:(?:{_spaced('ACORDAO')}|{_spaced('RELATORIO')}(?: E VOTO)?)[ \t]*:?[ \t]*$|Vistos\b)", re.M
)
_HEADING = re.compile(rf"^\s*{_spaced('EMENTA')}\b\s*[:.\-–—]?\s*", re.I)
_ITEM = re.compile(r"^(?:\d{1,2}(?:\.\d{1,2})*\.?|[IVX]{1,5}\.|[a-z]\))\s")
_ABBREVIATION = re.compile(r"(?:^|\s)(?i:art|arts|n|nº|inc|al|p|fls?|min|rel|des)\.$")
_SENTENCE_END = re.compile(r"[.!?…][\"'”’»)\]]*(?=\s)")
_NOT_AN_END = re.compile(
    r"^(?:[\d.]+|[IVXLC]+|\w|(?i:art|arts|fls?|min|rel|des|dr|dra|sr|sra|p|pp|n|nº|inc|al|cf|v))[.]$"
)


def _cut_at_end(text: str) -> str:
    """The text before the part that follows the ementa, when a chunk ran into it."""
    match = _END.search(fold(text), 1)
    return text[: match.start()] if match else text


def _join_lines(text: str) -> str:
    """One line per paragraph: the PDF's line breaks joined, a numbered paragraph on a line of its own."""
    out = ""
    for raw in text.splitlines():
        line = " ".join(raw.split())
        if not line:
            continue
        if not out:
            out = line
        elif _ITEM.match(line) and not _ABBREVIATION.search(out):
            out += "\n" + line
        else:
            out += " " + line
    return out


def _shorten(text: str, max_chars: int) -> str:
    """At most max_chars, cut after the last sentence that fits (at a word when no sentence ends early enough)."""
    if len(text) <= max_chars:
        return text
    budget = max_chars - len(OMITTED)
    cut = 0
    for match in _SENTENCE_END.finditer(text):
        if match.end() > budget:
            break
        word = text[: match.end()].rsplit(None, 1)[-1]
        if not _NOT_AN_END.match(word.rstrip("\"'”’»)]")):
            cut = match.end()
    if cut < budget // 3:
        cut = text.rfind(" ", 0, budget + 1)
        cut = cut if cut > 0 else budget
    return text[:cut].rstrip(" ;,") + OMITTED
