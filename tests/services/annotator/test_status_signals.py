"""The annotator stores what a document says was cancelled, revised or overruled (precedente.shared.legal.status), read
at the document's final court, and reads nothing in a petition, which argues."""

from precedente.services.annotator.logic import annotate
from precedente.shared.contracts import MetadataHints
from precedente.shared.payloads import Page

SAYS = "Ademais, a Súmula 469 foi cancelada em abril de 2018, antes da prolação do acórdão recorrido."


def signals(hints: MetadataHints) -> list[tuple[str, str]]:
    metadata = annotate([Page(number=1, text=SAYS)], "decisao.txt", hints)
    assert (metadata.sources.get("status_signals") == "rules") == bool(metadata.status_signals)
    return [(s.label, s.kind) for s in metadata.status_signals]


def test_the_court_the_submitter_names_reads_a_bare_sumula() -> None:
    assert signals(MetadataHints(document_type="decisao_monocratica", court="stj")) == [("Súmula 469/STJ", "cancelada")]
    assert signals(MetadataHints(document_type="parecer")) == []  # whose Súmula 469? nothing claimed


def test_a_petition_argues_and_is_not_read() -> None:
    assert signals(MetadataHints(document_type="peticao", court="stj")) == []
