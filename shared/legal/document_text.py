"""The texts the metadata rules look at: a document's opening pages, its whole text and its letterhead zone,
each in original and accent-folded form with the same offsets (rules match on the folded copy and cut values
from the original)."""

import re
import unicodedata
from collections.abc import Iterator

from precedente.shared.legal.text import fold
from precedente.shared.payloads import Page

HEAD_PAGES = 3
"""Type, court and title are read from the first pages: that is where documents say what they are."""
HEADER_CHARS = 2000
"""The letterhead zone of page 1, where a court or office names itself."""


class DocumentText:
    """The texts the rules look at, in original and accent-folded form."""

    def __init__(self, pages: list[Page]) -> None:
        texts = [unicodedata.normalize("NFC", p.text) for p in pages]
        self.page_texts = texts
        self.head = "\n".join(texts[:HEAD_PAGES])
        self.full = "\n".join(texts)
        self.header = texts[0][:HEADER_CHARS] if texts else ""
        self.fhead, self.ffull, self.fheader = fold(self.head), fold(self.full), fold(self.header)
        self.head_lines = [(m.start(), m.group().strip()) for m in re.finditer(r"[^\n]+", self.head)]
        self.head_lines = [(pos, line) for pos, line in self.head_lines if line]

    def opening_lines(self, count: int) -> list[str]:
        """The first non-empty lines of the document, accent-folded."""
        return [fold(line) for _, line in self.head_lines[:count]]

    def heading_lines(self) -> Iterator[str]:
        """Head lines folded, upper-cased, without spaces or punctuation: "S E N T E N Ç A" and
        "SENTENÇA:" both give "SENTENCA"."""
        for _, line in self.head_lines:
            yield re.sub(r"[\W_]+", "", fold(line)).upper()
