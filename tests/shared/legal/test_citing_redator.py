"""The redator do acórdão in a decision's citation (precedente.shared.legal.citing), as lawyers cite an acórdão whose
relator was defeated: "STF, RE 657.718/MG, Rel. Min. Marco Aurélio, Red. p/ o acórdão Min. Roberto Barroso,
Plenário"."""

from dataclasses import replace

import pymupdf

from precedente.services.annotator.logic import annotate
from precedente.services.cleaner.logic import clean_pages
from precedente.shared.legal.citing import CitationFields, format_citation
from precedente.shared.payloads import Page
from tests.helpers.samples import SHARED_DATA


def test_archived_stf_acordao_is_cited_with_its_redator() -> None:
    """i279 (RE 657.718, the relator Marco Aurélio defeated): its citation, from the metadata the annotator reads."""
    with pymupdf.open(SHARED_DATA / "archive" / "i279.pdf") as pdf:
        raw = [Page(number=i + 1, text=p.get_text()) for i, p in enumerate(pdf)]
    metadata = annotate(clean_pages(raw), "i279.pdf", raw_pages=raw)
    cited = format_citation(CitationFields.from_mapping(metadata.model_dump()))
    assert cited is not None
    assert "Rel. Min. Marco Aurélio, Red. p/ o acórdão Min. Roberto Barroso" in cited
    assert cited.startswith("STF, ")


def test_redator_takes_each_courts_title_and_is_left_out_when_unverified() -> None:
    stf = CitationFields(
        title="RE 657.718/MG", document_type="acordao", court="stf", relator="Marco Aurélio", judging_body="Plenario"
    )
    assert format_citation(stf) == "STF, RE 657.718/MG, Rel. Min. Marco Aurélio, Plenário"
    assert (
        format_citation(replace(stf, redator="Min. Roberto Barroso"))
        == "STF, RE 657.718/MG, Rel. Min. Marco Aurélio, Red. p/ o acórdão Min. Roberto Barroso, Plenário"
    )
    tj = CitationFields(
        title="Agravo", document_type="acordao", court="tjrn", process_number="0817648-54.2025.8.20.0000",
        procedural_class="Embargos de Declaração", relator="Saraiva Sobrinho", redator="Glauber Rêgo",
    )  # fmt: skip
    assert "Rel. Des. Saraiva Sobrinho, Red. p/ o acórdão Des. Glauber Rêgo" in (format_citation(tj) or "")
    # a stored value that is not a person's name, or the relator himself, is no redator: left out, never filled
    for wrong in ("Segunda Turma", "Banco do Brasil S/A", "Marco Aurélio", None):
        assert "Red." not in (format_citation(replace(stf, redator=wrong)) or ""), wrong
    # without a verified relator the redator still stands, by its own label
    assert format_citation(replace(stf, relator=None, redator="Roberto Barroso")) == (
        "STF, RE 657.718/MG, Red. p/ o acórdão Min. Roberto Barroso, Plenário"
    )
