"""The annotator's entry point for the type-specific fields: what it adds for an act, a work of doctrine, a filing
and a decision, and that the annotator's metadata carries them."""

from datetime import date

from precedente.services.annotator.logic import annotate
from precedente.shared.legal.describe import describe
from precedente.shared.legal.document_text import DocumentText
from precedente.shared.payloads import Page

DECREE = "Presidência da República\nDECRETO Nº 8.660, DE 29 DE JANEIRO DE 2016\nPromulga a Convenção.\nArt. 1º Fica."
ARTICLE = (
    "Revista Pensamento Jurídico – São Paulo – Vol. 13, Nº 1, jan./jun. 2019\nO PRINCÍPIO DA COOPERAÇÃO\n"
    "Maria Souza Lima1\nRESUMO\nO artigo estuda a cooperação.\nPalavras-chave: cooperação."
)


def pages(text: str) -> list[Page]:
    return [Page(number=1, text=text)]


def test_fields_of_each_kind() -> None:
    assert describe(DocumentText(pages(DECREE)), "ato_normativo") == {
        "document_subtype": "decreto",
        "act_number": "8.660/2016",
        "issuing_body": "Presidência da República",
        "document_date": date(2016, 1, 29),
    }
    assert describe(DocumentText(pages(ARTICLE)), "doutrina") == {
        "document_subtype": "artigo",
        "authors": ["Maria Souza Lima"],
        "venue": "Revista Pensamento Jurídico – São Paulo – Vol. 13, Nº 1, jan./jun. 2019",
        "year": 2019,
    }
    assert describe(DocumentText(pages("ACÓRDÃO\nAcordam os Ministros")), "acordao") == {}


def test_the_annotator_sets_them_and_says_the_rules_did() -> None:
    metadata = annotate(pages(DECREE), "decreto.pdf")
    assert (metadata.document_type, metadata.document_subtype, metadata.act_number) == (
        "ato_normativo",
        "decreto",
        "8.660/2016",
    )
    assert metadata.document_date == date(2016, 1, 29) and metadata.sources["act_number"] == "rules"
    article = annotate(pages(ARTICLE), "artigo.pdf")
    assert (article.document_type, article.authors, article.year) == ("doutrina", ["Maria Souza Lima"], 2019)
