"""By which citation ids the base's own decisions are cited (shared/legal/graph.py), on the case numbers the
annotator stores for real decisions of ../shared/docs and ../shared/archive."""

import pytest

from precedente.shared.legal.citations import extract_citations
from precedente.shared.legal.graph import cited_as, cited_keys


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


def test_citations_name_the_work_keys_of_the_acordaos_they_cite() -> None:
    """The keys shared/legal/works.py gives a decision of the base (migration 0009), for citation ids; only ids whose
    class names its court, never a súmula, a Tema or an act."""
    citations = [
        "REsp 1.602.076/SP",
        "REsp 1.602.076",
        "RE 657.718",
        "ED no RE 855.178/SE",
        "HC 123.456",  # the STF's or the STJ's
        "Súmula 7/STJ",
        "Tema 500/STF",
        "CDC, art. 14",
        "Lei 9.307/1996",
    ]
    assert cited_keys(citations) == [
        "stj:resp:1602076:acordao",
        "stf:re:657718:acordao",
        "stf:edcl-re:855178:acordao",
    ]
