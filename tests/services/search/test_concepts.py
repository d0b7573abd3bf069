"""The legal concept layer: the names a concept goes by, found in queries and passages, named in explanations."""

from precedente.services.search.concepts import Concept, ConceptIndex, concept_index
from precedente.services.search.explain import explain, highlight_spans


def others(query: str) -> list[tuple[str, ...]]:
    return [match.others for match in concept_index().find(query)]


def test_abbreviations_popular_names_and_latin_terms_are_one_concept() -> None:
    assert others("mera participação e epp") == [("empresa de pequeno porte",)]
    assert others("aplicação do CDC") == [("Código de Defesa do Consumidor",)]
    assert ("teoria da imprevisão", "onerosidade excessiva") in others("cláusula rebus sic stantibus")


def test_a_law_number_written_any_way_is_the_same_name() -> None:
    assert others("lei 8666/93 e pregão") == [("Lei de Licitações",)]
    assert others("Lei 8.078/90, art. 14") == [("CDC", "Código de Defesa do Consumidor")]


def test_two_letter_abbreviations_count_only_in_capitals() -> None:
    assert others("me e epp") == [("empresa de pequeno porte",)]  # "me" is a pronoun
    assert others("ME e EPP") == [("microempresa",), ("empresa de pequeno porte",)]


def test_lines_of_the_file_need_two_names() -> None:
    index = ConceptIndex([Concept(("TAC", "termo de ajustamento de conduta"))])
    assert index.find("o tac firmado") and not index.find("contato")


def test_the_explanation_names_the_concept_the_passage_carries_and_the_ui_highlights_it() -> None:
    passage = "A mera participação de empresa de pequeno porte em licitação não gera preferência."
    got = explain("mera participação e epp", passage, "ementa")
    assert got.text == (
        "A ementa firma a tese: “A mera participação de empresa de pequeno porte em licitação não gera preferência”."
    )  # "Trata de EPP sob outro nome: 'empresa de pequeno porte'" would only spell out the query's own word
    spans = highlight_spans("mera participação e epp", passage)
    assert [passage[start:end] for start, end in spans] == ["mera", "participação", "empresa de pequeno porte"]
