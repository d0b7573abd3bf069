"""Cleaner rules on small texts, then on the real sample PDFs (their text layers)."""

import re
from pathlib import Path

import pytest

from precedente.services.cleaner.logic import CleanedDocument, clean_document, clean_pages, clean_text
from precedente.shared.payloads import Page
from tests.helpers.samples import read_pages

SHARED = Path(__file__).resolve().parents[3].parent / "shared"
DOCS = SHARED / "docs"
PDFS = sorted(DOCS.glob("*.pdf"))


def test_shared_folder_holds_the_samples() -> None:
    assert SHARED.name == "shared" and (DOCS / "README.md").exists()


# ------------------------------------------------------------------------------ characters


def test_unicode_is_nfc() -> None:
    assert clean_text("Decisa\u0303o") == "Decisão"


def test_control_characters_are_dropped_but_newlines_kept() -> None:
    assert clean_text("Ementa\x00\x07.\nVoto\u200b.") == "Ementa.\nVoto."


def test_odd_spaces_become_plain_and_runs_collapse() -> None:
    assert clean_text("art.\u00a05º,\u2009§\u202f1º\t\tdo  CPC.") == "art. 5º, § 1º do CPC."


def test_crlf_and_form_feeds_are_line_breaks() -> None:
    assert clean_text("Primeira linha.\r\nSegunda.\fTerceira.") == "Primeira linha.\nSegunda.\nTerceira."


def test_soft_hyphen_at_line_end_joins_the_word() -> None:
    assert clean_text("a responsa\u00ad\nbilidade civil") == "a responsabilidade civil"


# ----------------------------------------------------------------------------- hyphenation


def test_word_broken_at_line_end_is_rejoined() -> None:
    assert clean_text("a responsa-\nbilidade civil") == "a responsabilidade civil"


def test_hyphen_inside_a_line_is_kept() -> None:
    assert clean_text("o guarda-chuva e o bem-estar") == "o guarda-chuva e o bem-estar"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("defeito, levando-\nse em conta", "defeito, levando-se em conta"),  # enclitic pronoun
        ("dar-\nse-á por finda", "dar-se-á por finda"),
        ("o Estado-\nJuiz declarará", "o Estado-Juiz declarará"),  # capital after the break
        ("a fase pré-\ncontratual", "a fase pré-contratual"),  # prefix that takes a hyphen
        ("o ex-\nsócio", "o ex-sócio"),
    ],
)
def test_real_hyphens_at_line_end_are_kept(text: str, expected: str) -> None:
    assert clean_text(text) == expected


def test_document_evidence_keeps_a_compound() -> None:
    text = "O fornecedor-anunciante responde.\nO fornecedor responde pelo\nfornecedor-\nanunciante também."
    assert "pelo fornecedor-anunciante também." in clean_text(text)


def test_evidence_is_shared_across_pages() -> None:
    pages = [
        Page(number=1, text="a teoria da kompetenz-\nkompetenz"),
        Page(number=2, text="o princípio kompetenz-kompetenz"),
    ]
    assert clean_pages(pages)[0].text == "a teoria da kompetenz-kompetenz"
    assert clean_text("a teoria da kompetenz-\nkompetenz") == "a teoria da kompetenzkompetenz"


def test_dash_after_a_space_is_not_a_hyphenation() -> None:
    assert clean_text("Recurso especial -\nprovido.") == "Recurso especial - provido."


# ---------------------------------------------------------------------------- line joining


def test_wrapped_lines_of_a_paragraph_are_joined() -> None:
    text = "Trata-se de recurso especial interposto\ncontra acórdão do tribunal\nde origem."
    assert clean_text(text) == "Trata-se de recurso especial interposto contra acórdão do tribunal de origem."


def test_line_ending_a_sentence_is_not_joined() -> None:
    assert clean_text("É o relatório.\ndecido a seguir") == "É o relatório.\ndecido a seguir"
    assert clean_text("transcrita (fl. 3):\nafasto a preliminar") == "transcrita (fl. 3):\nafasto a preliminar"
    assert clean_text("diz o artigo.”\nconforme") == "diz o artigo.”\nconforme"


def test_line_starting_with_a_capital_is_not_joined() -> None:
    assert clean_text("Relator\nMinistro Fulano") == "Relator\nMinistro Fulano"


def test_number_continuing_the_sentence_is_joined_but_list_numbers_are_not() -> None:
    assert clean_text("nos termos da Lei nº\n8.245/1991, e") == "nos termos da Lei nº 8.245/1991, e"
    assert clean_text("no prazo de\n15 dias úteis") == "no prazo de 15 dias úteis"
    assert clean_text("as seguintes teses\n1. Recurso provido") == "as seguintes teses\n1. Recurso provido"
    assert clean_text("e ainda\n2.1 Da responsabilidade") == "e ainda\n2.1 Da responsabilidade"
    assert clean_text("por UNANIMIDADE, em\n6775") == "por UNANIMIDADE, em\n6775"  # page stamp


def test_line_ending_in_a_preposition_continues_into_a_capitalised_word() -> None:
    assert clean_text("acórdão do Tribunal de\nJustiça do Estado") == "acórdão do Tribunal de Justiça do Estado"
    assert clean_text("nos termos do Código de\nProcesso Civil.") == "nos termos do Código de Processo Civil."
    assert clean_text("Relator\nMinistro Fulano") == "Relator\nMinistro Fulano"  # "Relator" is no preposition
    assert clean_text("AGRAVO DE\nINSTRUMENTO") == "AGRAVO DE\nINSTRUMENTO"  # capitals: headings' business


def test_continuation_after_opening_bracket_is_joined() -> None:
    assert clean_text("interpôs agravo\n(e-STJ fl. 347).") == "interpôs agravo (e-STJ fl. 347)."


def test_headings_stay_on_their_own_line() -> None:
    assert clean_text("EMENTA\nrecurso especial provido.") == "EMENTA\nrecurso especial provido."
    assert clean_text("Fim.\nVOTO\no relator") == "Fim.\nVOTO\no relator"
    assert clean_text("Fim.\n\nRELATÓRIO\ntrata-se de") == "Fim.\n\nRELATÓRIO\ntrata-se de"


def test_all_caps_words_inside_running_text_are_joined() -> None:
    text = "Vistos e examinados estes autos,\nACORDAM\nos Desembargadores"
    assert clean_text(text) == "Vistos e examinados estes autos,\nACORDAM os Desembargadores"
    text = "O MINISTÉRIO PÚBLICO DO ESTADO DO RIO DE JANEIRO,\npor intermédio do Promotor"
    assert clean_text(text) == "O MINISTÉRIO PÚBLICO DO ESTADO DO RIO DE JANEIRO, por intermédio do Promotor"


def test_blank_lines_collapse_to_one_and_text_is_stripped() -> None:
    text = " \n \nPrimeiro parágrafo.\n \n\n\t\nSegundo parágrafo.\n\n \n"
    assert clean_text(text) == "Primeiro parágrafo.\n\nSegundo parágrafo."


def test_empty_and_blank_text() -> None:
    assert clean_text("") == ""
    assert clean_text(" \n\u00a0\n\x0c ") == ""


def test_clean_pages_keeps_page_fields() -> None:
    pages = [
        Page(number=1, text="a responsa-\nbilidade", method="text"),
        Page(number=2, text="  ", method="ocr", confidence=0.42),
    ]
    cleaned = clean_pages(pages)
    assert [(p.number, p.method, p.confidence) for p in cleaned] == [(1, "text", 1.0), (2, "ocr", 0.42)]
    assert [p.text for p in cleaned] == ["a responsabilidade", ""]
    assert pages[0].text == "a responsa-\nbilidade"  # inputs untouched


# ------------------------------------------------------------------------------ real files


@pytest.fixture(scope="module")
def cleaned_documents() -> dict[str, CleanedDocument]:
    assert PDFS, f"no sample documents in {DOCS}"
    return {path.name: clean_document(read_pages(path.name)) for path in PDFS}


@pytest.fixture(scope="module")
def cleaned_docs(cleaned_documents: dict[str, CleanedDocument]) -> dict[str, list[Page]]:
    return {name: doc.pages for name, doc in cleaned_documents.items()}


def test_clean_pages_returns_the_pages_of_clean_document(cleaned_docs: dict[str, list[Page]]) -> None:
    name = "tjsp_sentenca_vara_empresarial_arbitragem.pdf"
    assert clean_pages(read_pages(name)) == cleaned_docs[name]


def test_real_documents_are_normalised(cleaned_documents: dict[str, CleanedDocument]) -> None:
    for name, doc in cleaned_documents.items():
        raw = read_pages(name)
        for before, after, removed in zip(raw, doc.pages, doc.removed, strict=True):
            text = after.text
            assert text == text.strip(), name
            assert not re.search(r"[^\S\n]{2,}|\n{3,}| \n|\n ", text), name
            assert not any(ord(ch) < 32 and ch != "\n" for ch in text), name
            # no words are lost: only whitespace, line-end hyphens and the removed layout/stamp lines go away
            gone = len(re.sub(r"\s|-", "", "".join(removed)))
            assert len(re.sub(r"\s|-", "", text)) >= len(re.sub(r"\s|-", "", before.text)) - gone - 5, name


def test_cleaning_is_idempotent(cleaned_docs: dict[str, list[Page]]) -> None:
    for name, pages in cleaned_docs.items():
        assert [p.text for p in clean_pages(pages)] == [p.text for p in pages], name


def test_real_paragraphs_are_rejoined(cleaned_docs: dict[str, list[Page]]) -> None:
    stj = cleaned_docs["stj_resp_1602076_sp_acordao.pdf"][0].text.split("\n")
    assert "1. Recurso especial interposto em 07/04/2015 e redistribuído a este gabinete em 25/08/2016." in stj
    assert "EMENTA" in stj and "ACÓRDÃO" in stj
    tjrj = cleaned_docs["tjrj_agravo_instrumento_0017387-33.2017_acordao.pdf"][0].text
    assert "a norma derivada do artigo 33, §2º da LArb estabelece que o Estado-Juiz declarará" in tjrj
    assert "Vedado ao Poder Judiciário examinar o mérito da causa submetida à arbitragem." in tjrj


def test_real_line_end_hyphens_are_kept(cleaned_docs: dict[str, list[Page]]) -> None:
    parecer = "\n".join(p.text for p in cleaned_docs["parecer_pgjmg_procon_16-2022.pdf"])
    assert "levando-se em consideração" in parecer
    assert "do fornecedor-anunciante, ou seja" in parecer
    assert "da fase pré-contratual gera" in parecer
    tjsp = "\n".join(p.text for p in cleaned_docs["tjsp_sentenca_vara_empresarial_arbitragem.pdf"])
    assert "princípio da Kompetenz-kompetenz." in tjsp
