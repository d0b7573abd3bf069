"""Split a cleaned document into overlapping chunks that fit the embedding model.

The document is the page texts joined by PAGE_SEPARATOR; every chunk is an exact slice of that
text (char_start/char_end), so a hit can be highlighted and mapped back to its pages.

Rules:
- The text is cut only between words (runs of non-whitespace), so a chunk never starts or ends
  with whitespace and every word lands in some chunk. A single "word" too long for a chunk
  (a URL, a base64 blob) is cut inside.
- A chunk is the longest run of words from its start that fits max_tokens (as counted by the
  model's own counter, special tokens included), cut back to the last paragraph end (blank line
  or page break) inside it; without one, to the last sentence end or line break; without one,
  at the last word that fits. When the paragraph after the last paragraph end is too long for a
  chunk of its own it will be split anyway, so the chunk is filled up to a sentence end inside it.
- The next chunk starts at the word boundary whose tail of the previous chunk is as long as
  possible without exceeding overlap_tokens, so context carries over between chunks.

Counting is the costly part (a full tokenizer pass per call), so word costs are counted once
and summed as estimates; the counter is then called once per chunk and once per overlap to
confirm, and only where it disagrees with the estimate does a binary search over word
boundaries with the counter itself take over.
"""

import bisect
import re
from collections.abc import Callable
from itertools import accumulate

from shared.payloads import PAGE_SEPARATOR, Chunk, Page

TokenCounter = Callable[[str], int]

_WORD = re.compile(r"\S+")
_PARAGRAPH_GAP = re.compile(r"\n[^\S\n]*\n")
_SENTENCE_END = re.compile(r"[.!?…;][\"'”’»)\]]*$")
# Words that end in a full stop without ending a sentence: list numbers ("5.", "2.1."), initials,
# and the abbreviations legal citations are full of ("art.", "fls.", "Min.", "Rel.").
_NOT_SENTENCE_END = re.compile(
    r"^(?:[\d.]+|[IVXLC]+|\w|(?i:art|arts|fl|fls|min|rel|des|dr|dra|sr|sra|srs|exmo|exma|p|pp|pág|pg|nº|n|"
    r"inc|al|cf|v|vol|ed|ltda|dje|dj|ob|cit|op|ex|obs|proc|res|resp|ag|agrg|agint))[.]$"
)
_SENTENCE_START = re.compile(r"^[\"'“‘«(\[]?[A-ZÀ-ÖØ-Þ0-9§]")
_PARAGRAPH, _SENTENCE, _WORD_ONLY = 2, 1, 0


def chunk_pages(
    pages: list[Page], token_count: TokenCounter, max_tokens: int = 512, overlap_tokens: int = 64
) -> list[Chunk]:
    """Chunk the cleaned pages (see module docstring); [] when there is no text."""
    if max_tokens < 1 or not 0 <= overlap_tokens < max_tokens:
        raise ValueError("need max_tokens >= 1 and 0 <= overlap_tokens < max_tokens")
    text = PAGE_SEPARATOR.join(p.text for p in pages)
    if not text.strip():
        return []
    page_starts = list(accumulate((len(p.text) + len(PAGE_SEPARATOR) for p in pages[:-1]), initial=0))
    page_numbers = [p.number for p in pages]
    chunker = _Chunker(text, token_count, max_tokens, overlap_tokens)
    chunks: list[Chunk] = []
    for start, end, tokens in chunker.spans():
        chunks.append(
            Chunk(
                ordinal=len(chunks),
                text=text[start:end],
                page_start=page_numbers[bisect.bisect_right(page_starts, start) - 1],
                page_end=page_numbers[bisect.bisect_right(page_starts, end - 1) - 1],
                char_start=start,
                char_end=end,
                token_count=tokens,
            )
        )
    return chunks


class _Chunker:
    """Word spans of one text, their estimated token costs, and the packing loop."""

    def __init__(self, text: str, token_count: TokenCounter, max_tokens: int, overlap_tokens: int) -> None:
        self.text = text
        self.count = token_count
        self.max_tokens = max_tokens
        self.overlap_tokens = overlap_tokens
        # Tokens every call adds whatever the text (specials, a prompt prefix), so that the cost
        # of a span is about base + sum of its word costs.
        self.base = max(0, 2 * token_count("a") - token_count("a a"))
        if self.base + 1 > max_tokens:
            raise ValueError(f"max_tokens={max_tokens} leaves no room for text next to the model's specials")
        cache: dict[str, int] = {}
        self.starts: list[int] = []
        self.ends: list[int] = []
        costs: list[int] = []
        for match in _WORD.finditer(text):
            word = match.group()
            if word not in cache:
                cache[word] = max(1, token_count(word) - self.base)
            if self.base + cache[word] <= max_tokens:
                pieces = [(match.start(), match.end(), cache[word])]
            else:
                pieces = self._fitting_pieces(match.start(), match.end())
            for s, e, cost in pieces:
                self.starts.append(s)
                self.ends.append(e)
                costs.append(cost)
        self.prefix = list(accumulate(costs, initial=0))
        self.breaks = [self._break_kind(i) for i in range(len(self.starts))]

    def _fitting_pieces(self, start: int, end: int) -> list[tuple[int, int, int]]:
        """(start, end, cost) of the longest pieces of a word too long for a chunk on its own."""
        pieces = []
        while start < end:
            lo, hi = start + 1, end  # the longest prefix that fits; one character always goes
            while lo < hi:
                mid = (lo + hi + 1) // 2
                if self.count(self.text[start:mid]) <= self.max_tokens:
                    lo = mid
                else:
                    hi = mid - 1
            pieces.append((start, lo, max(1, self.count(self.text[start:lo]) - self.base)))
            start = lo
        return pieces

    def _break_kind(self, i: int) -> int:
        """How good a place the end of word i is to end a chunk."""
        if i + 1 >= len(self.starts):
            return _PARAGRAPH
        gap = self.text[self.ends[i] : self.starts[i + 1]]
        if _PARAGRAPH_GAP.search(gap):
            return _PARAGRAPH
        if "\n" in gap:
            return _SENTENCE
        word, following = (
            self.text[self.starts[i] : self.ends[i]],
            self.text[self.starts[i + 1] : self.ends[i + 1]],
        )
        if (
            gap
            and _SENTENCE_END.search(word)
            and not _NOT_SENTENCE_END.match(word)
            and _SENTENCE_START.match(following)
        ):
            return _SENTENCE
        return _WORD_ONLY

    def estimate(self, i: int, j: int) -> int:
        """Estimated tokens of words [i, j)."""
        return self.base + self.prefix[j] - self.prefix[i]

    def span_text(self, i: int, j: int) -> str:
        return self.text[self.starts[i] : self.ends[j - 1]]

    def longest_fit(self, i: int, budget: int) -> int:
        """Largest j with estimate(i, j) <= budget; i when not even one word fits."""
        return max(i, bisect.bisect_right(self.prefix, self.prefix[i] + budget - self.base, lo=i) - 1)

    def choose_end(self, lo: int, hi: int) -> int:
        """Where to end a chunk, among word ends in [lo, hi] (see the rules)."""
        paragraph = sentence = -1
        for j in range(hi, lo - 1, -1):
            kind = self.breaks[j - 1]
            if kind == _PARAGRAPH and paragraph < 0:
                paragraph = j
                break
            if kind == _SENTENCE and sentence < 0:
                sentence = j
        if paragraph >= 0:
            if hi < len(self.starts) and sentence > paragraph and self._too_long_alone(paragraph):
                return sentence
            return paragraph
        return sentence if sentence >= 0 else hi

    def _too_long_alone(self, j: int) -> bool:
        """Whether the paragraph starting at word j cannot fit a chunk even after an overlap."""
        fits_to = self.longest_fit(j, self.max_tokens - self.overlap_tokens)
        return all(self.breaks[t] != _PARAGRAPH for t in range(j, fits_to))

    def spans(self) -> list[tuple[int, int, int]]:
        """(char_start, char_end, tokens) of every chunk."""
        n = len(self.starts)
        out: list[tuple[int, int, int]] = []
        start, done = 0, 0  # first word of the chunk; words [0, done) are already in a chunk
        while done < n:
            end, tokens = self._fit(start, done + 1)
            if end <= done:  # the overlap leaves no room for the next word: drop it
                start = done
                end, tokens = self._fit(start, done + 1)
            out.append((self.starts[start], self.ends[end - 1], tokens))
            done = end
            if done < n:
                start = self._overlap_start(start, end)
        return out

    def _fit(self, start: int, lo: int) -> tuple[int, int]:
        """End (exclusive word index) and real token count of the chunk starting at word `start`
        and ending at word `lo` or later; (start, 0) when even word `lo - 1` does not fit."""
        hi = self.longest_fit(start, self.max_tokens)
        if hi >= lo:
            end = self.choose_end(lo, hi)
            tokens = self.count(self.span_text(start, end))
            if tokens <= self.max_tokens:
                return end, tokens
            # The estimate ran low: find the longest fit with the counter itself.
            hi = self._last_fitting(start, start + 1, end - 1)
        if hi < lo:
            if lo > start + 1:
                return start, 0
            hi = lo  # a lone word fits by construction (_fitting_pieces)
        end = self.choose_end(lo, hi)
        return end, self.count(self.span_text(start, end))

    def _last_fitting(self, start: int, lo: int, hi: int) -> int:
        """Largest j in [lo, hi] whose span [start, j) the counter fits in max_tokens; lo - 1
        when none does."""
        lo -= 1
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if self.count(self.span_text(start, mid)) <= self.max_tokens:
                lo = mid
            else:
                hi = mid - 1
        return lo

    def _overlap_start(self, start: int, end: int) -> int:
        """First word of the next chunk: the longest tail of [start, end) within overlap_tokens."""
        # smallest k > start with estimate(k, end) <= overlap_tokens; end when there is none
        k = bisect.bisect_left(self.prefix, self.prefix[end] - self.overlap_tokens + self.base, lo=start + 1, hi=end)
        if k >= end or self.count(self.span_text(k, end)) <= self.overlap_tokens:
            return k
        # The estimate ran low: find the smallest fitting k with the counter itself.
        lo, hi = k + 1, end
        while lo < hi:
            mid = (lo + hi) // 2
            if self.count(self.span_text(mid, end)) <= self.overlap_tokens:
                hi = mid
            else:
                lo = mid + 1
        return lo
