"""The search service's pure pieces: filter normalisation, highlights and the explanation (as query.py exports them)."""

from precedente.services.search.engine.models import SearchFilters
from precedente.services.search.explain import explain, highlight_spans, shared_terms

QUERY = "responsabilidade solidária do tomador de serviços para verbas trabalhistas"
PASSAGE = (
    "Reconhecida a RESPONSABILIDADE SOLIDARIA do tomador dos serviços, cabe-lhe pagar as verbas "
    "trabalhistas; a responsabilização subsidiária fica afastada."
)


def test_highlights_are_exact_offsets_of_matching_words_whatever_the_case_and_accents() -> None:
    spans = highlight_spans(QUERY, PASSAGE)
    words = [PASSAGE[start:end] for start, end in spans]
    assert words == [
        "RESPONSABILIDADE",
        "SOLIDARIA",
        "tomador",
        "serviços",
        "verbas",
        "trabalhistas",
        "responsabilização",
    ]
    assert all(PASSAGE[start:end].isalpha() for start, end in spans)


def test_function_words_of_the_query_are_not_highlighted() -> None:
    assert highlight_spans("para quando sobre", "para quando sobre o prazo") == []


def test_explanation_quotes_the_matching_sentence_in_its_section_s_role_without_score_or_page() -> None:
    assert shared_terms(QUERY, PASSAGE) == ["responsabilidade", "solidária", "tomador", "serviços"]
    got = explain(QUERY, PASSAGE, "voto > II – Do mérito")
    assert got.text == f"A fundamentação do voto sustenta: “{PASSAGE.rstrip('.')}”."
    assert got.sentence == (0, len(PASSAGE))
    assert "0.86" not in got.text and "página" not in got.text


def test_filters_take_what_lawyers_type() -> None:
    filters = SearchFilters(document_type="Acórdão", court=["TJ-SP", "STJ"], cited_law="Lei 8.078/90, art. 14")
    assert filters.document_type == ["acordao"]
    assert filters.court == ["tjsp", "stj"]
    assert filters.cited_law == ["CDC, art. 14"]
