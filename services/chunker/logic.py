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

Structure (chunk_document, what the chunker service is meant to call): the text is first cut into the document's
sections (precedente.shared.legal.sections: ementa, relatório, voto, fundamentação, pedidos, cláusulas, artigos,
sub-headings...). A chunk never crosses a section boundary: each section is packed on its own by the rules above, so a
short section is one chunk, whole. Consecutive sections under MIN_TOKENS each, under the same top-level part, are packed
together (a heading of four words makes a poor chunk alone) and their chunk carries their common path; a standalone
section (one tese of a "Jurisprudência em Teses", one note of an informativo) is never packed with another, however
short. A small section followed by its own subsection (a heading and title, an article's caput) opens the subsection's
first chunk. Every chunk carries its section_path. The ementa of a decision is emitted once more as an extra chunk
(is_ementa=True), whole or, when it is longer than max_tokens, its opening cut by the rules above (at the last paragraph
or sentence end that fits), appended after the regular chunks, so a search can match a decision by its summary; an
ementa printed twice (acórdão and inteiro teor) gives one extra chunk.

Counting is the costly part (a full tokenizer pass per call), so word costs are counted once
and summed as estimates; the counter is then called once per chunk and once per overlap to
confirm, and only where it disagrees with the estimate does a binary search over word
boundaries with the counter itself take over.
"""

import bisect
import re
from collections.abc import Callable
from itertools import accumulate

from precedente.shared.legal.sections import SEPARATOR, Section, detect_sections
from precedente.shared.payloads import PAGE_SEPARATOR, Chunk, Page

TokenCounter = Callable[[str], int]
MIN_TOKENS = 64
"""Sections estimated under this many tokens are packed with their small neighbours (same top-level part)."""

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


class _Layout:
    """The cleaned text as the chunks see it: pages joined by PAGE_SEPARATOR, and where each page starts."""

    def __init__(self, pages: list[Page], max_tokens: int, overlap_tokens: int) -> None:
        if max_tokens < 1 or not 0 <= overlap_tokens < max_tokens:
            raise ValueError("need max_tokens >= 1 and 0 <= overlap_tokens < max_tokens")
        self.text = PAGE_SEPARATOR.join(p.text for p in pages)
        self.page_starts = list(accumulate((len(p.text) + len(PAGE_SEPARATOR) for p in pages[:-1]), initial=0))
        self.page_numbers = [p.number for p in pages]

    def chunk(
        self, start: int, end: int, tokens: int, ordinal: int, section_path: str | None = None, is_ementa: bool = False
    ) -> Chunk:
        return Chunk(
            ordinal=ordinal,
            text=self.text[start:end],
            page_start=self.page_numbers[bisect.bisect_right(self.page_starts, start) - 1],
            page_end=self.page_numbers[bisect.bisect_right(self.page_starts, end - 1) - 1],
            char_start=start,
            char_end=end,
            token_count=tokens,
            section_path=section_path,
            is_ementa=is_ementa,
        )


def chunk_pages(
    pages: list[Page], token_count: TokenCounter, max_tokens: int = 512, overlap_tokens: int = 64
) -> list[Chunk]:
    """Chunk the cleaned pages (see module docstring); [] when there is no text."""
    layout = _Layout(pages, max_tokens, overlap_tokens)
    if not layout.text.strip():
        return []
    chunker = _Chunker(layout.text, token_count, max_tokens, overlap_tokens)
    chunks: list[Chunk] = []
    for start, end, tokens in chunker.spans():
        chunks.append(layout.chunk(start, end, tokens, ordinal=len(chunks)))
    return chunks


def chunk_document(
    pages: list[Page],
    token_count: TokenCounter,
    document_type: str | None = None,
    max_tokens: int = 512,
    overlap_tokens: int = 64,
    min_tokens: int = MIN_TOKENS,
) -> list[Chunk]:
    """Structure-aware chunks of the cleaned pages (see the module docstring); [] when there is no text.

    document_type: a code or label ("acordao"); guessed from the text (the annotator's rules) when None.
    """
    layout = _Layout(pages, max_tokens, overlap_tokens)
    text = layout.text
    if not text.strip():
        return []
    sections = detect_sections(pages, document_type)
    chunker = _Chunker(text, token_count, max_tokens, overlap_tokens)
    ranges = _word_ranges(chunker, sections)
    for _, last, _, _ in ranges:
        if last > 0:
            chunker.breaks[last - 1] = _PARAGRAPH  # a section's end is the best place to end a chunk
    chunks: list[Chunk] = []
    for first, last, path in _groups(chunker, ranges, max_tokens, min_tokens):
        for start, end, tokens in chunker.spans(first, last):
            chunks.append(layout.chunk(start, end, tokens, ordinal=len(chunks), section_path=path))
    for first, last in _ementa_ranges(ranges):
        chunker.limit = last
        end, tokens = chunker._fit(first, first + 1)
        if end > first:
            start, stop = chunker.starts[first], chunker.ends[end - 1]
            if any(c.is_ementa and c.text == text[start:stop] for c in chunks):
                continue  # the same ementa printed twice (acórdão and inteiro teor)
            chunks.append(layout.chunk(start, stop, tokens, len(chunks), section_path="ementa", is_ementa=True))
    return chunks


def _word_ranges(chunker: "_Chunker", sections: list[Section]) -> list[tuple[int, int, str, bool]]:
    """(first word, end word, path, standalone) of every section that holds a word."""
    out = []
    for section in sections:
        first = bisect.bisect_left(chunker.starts, section.char_start)
        last = bisect.bisect_left(chunker.starts, section.char_end)
        if last > first:
            out.append((first, last, section.path, section.standalone))
    return out


def _groups(
    chunker: "_Chunker", ranges: list[tuple[int, int, str, bool]], max_tokens: int, min_tokens: int
) -> list[tuple[int, int, str]]:
    """Sections as packing units: runs of consecutive small sections under one top-level part are
    joined while they fit one chunk (standalone sections never are); the group is named by the paths'
    common prefix."""
    out: list[tuple[int, int, str]] = []
    packed: set[int] = set()  # first words of groups of several sections
    small_run = False
    for first, last, path, standalone in ranges:
        small = chunker.estimate(first, last) < min_tokens and not standalone
        if out and small and small_run:
            g_first, g_last, g_path = out[-1]
            same_top = g_path.split(SEPARATOR, 1)[0] == path.split(SEPARATOR, 1)[0]
            if same_top and g_last == first and chunker.estimate(g_first, last) <= max_tokens:
                out[-1] = (g_first, last, _common_path(g_path, path))
                packed.add(g_first)
                continue
        out.append((first, last, path))
        small_run = small
    return _headings_into_children(chunker, out, packed, min_tokens)


def _headings_into_children(
    chunker: "_Chunker", groups: list[tuple[int, int, str]], packed: set[int], min_tokens: int
) -> list[tuple[int, int, str]]:
    """A small group followed by its own subsection ("Article 17 / Scope" before "1. Articles 18 and 20
    apply..."; an article's caput before its long § 1º) opens that subsection's first chunk instead of
    being a chunk of a heading alone, which matches any query on its few words and says nothing."""
    out: list[tuple[int, int, str]] = []
    for first, last, path in groups:
        if out:
            g_first, g_last, g_path = out[-1]
            opens = g_last == first and g_first not in packed and path.startswith(g_path + SEPARATOR)
            if opens and chunker.estimate(g_first, g_last) < min_tokens:
                out[-1] = (g_first, last, path)
                continue
        out.append((first, last, path))
    return out


def _common_path(a: str, b: str) -> str:
    common = []
    for x, y in zip(a.split(SEPARATOR), b.split(SEPARATOR), strict=False):
        if x != y:
            break
        common.append(x)
    return SEPARATOR.join(common)


def _ementa_ranges(ranges: list[tuple[int, int, str, bool]]) -> list[tuple[int, int]]:
    """Word ranges of each ementa (consecutive sections under the top-level part "ementa")."""
    out: list[tuple[int, int]] = []
    previous_end = None
    for first, last, path, _ in ranges:
        if path.split(SEPARATOR, 1)[0] != "ementa":
            previous_end = None
            continue
        if previous_end == first and out:
            out[-1] = (out[-1][0], last)
        else:
            out.append((first, last))
        previous_end = last
    return out


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
        self.limit = len(self.starts)  # packing never goes past this word (the end of a section)

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
        """Largest j <= limit with estimate(i, j) <= budget; i when not even one word fits."""
        return min(self.limit, max(i, bisect.bisect_right(self.prefix, self.prefix[i] + budget - self.base, lo=i) - 1))

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
            if hi < self.limit and sentence > paragraph and self._too_long_alone(paragraph):
                return sentence
            return paragraph
        return sentence if sentence >= 0 else hi

    def _too_long_alone(self, j: int) -> bool:
        """Whether the paragraph starting at word j cannot fit a chunk even after an overlap."""
        fits_to = self.longest_fit(j, self.max_tokens - self.overlap_tokens)
        return all(self.breaks[t] != _PARAGRAPH for t in range(j, fits_to))

    def spans(self, first: int = 0, limit: int | None = None) -> list[tuple[int, int, int]]:
        """(char_start, char_end, tokens) of every chunk of words [first, limit) (all by default)."""
        n = self.limit = len(self.starts) if limit is None else limit
        out: list[tuple[int, int, int]] = []
        start, done = first, first  # first word of the chunk; words [first, done) are already in a chunk
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
