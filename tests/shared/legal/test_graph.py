"""By which citation ids the base's own decisions are cited (shared/legal/graph.py), on the case numbers the
annotator stores for real decisions of ../shared/docs and ../shared/archive."""

import pytest

from shared.legal.citations import extract_citations
from shared.legal.graph import cited_as


@pytest.mark.parametrize(
    ("process_number", "expected"),
    [
        ("REsp 1.602.076/SP", ["REsp 1.602.076/SP", "REsp 1.602.076"]),
        ("RE 657.718/MG", ["RE 657.718/MG", "RE 657.718"]),
        ("ED no RE 855.178/SE", ["ED no RE 855.178/SE", "ED no RE 855.178"]),
        ("AgInt no AREsp 2.560.760/SE", ["AgInt no AREsp 2.560.760/SE", "AgInt no AREsp 2.560.760"]),
        ("REsp 1602076", ["REsp 1.602.076"]),
        # read only in part: the first embargos' id would be taken for the second's
        ("Segundos ED no RE 1.366.243/SC", []),
        # a state court's CNJ number and the TJUE's case numbers are not cited by such ids
        ("0017387-33.2017.8.19.0000", []),
        ("C-168/05", []),
        (None, []),
    ],
)
def test_a_decision_is_cited_by_its_own_case_number(process_number: str | None, expected: list[str]) -> None:
    assert cited_as(process_number) == expected


def test_the_ids_are_those_the_citations_of_other_documents_hold() -> None:
    """A citation written with or without the UF names the decision; another class or number does not."""
    ids = set(cited_as("RE 657.718/MG"))
    citing = "Precedente específico: RE 657.718, Rel. Min. Alexandre de Moraes."
    assert set(extract_citations(citing)) & ids
    others = "o que foi discutido no ARE 657.718 e nos ED no RE 657.718/MG, e no RE 657.719/MG"
    assert not set(extract_citations(others)) & ids
