"""The fields read from a caption and its formulas (services.annotator.fields) on documents beyond the STJ and
state-court ones the rules began with: STF captions, EU judgments, a relatório without a caption."""

from datetime import date

import pytest

from services.annotator import fields
from shared.legal.document_text import DocumentText
from shared.legal.titles import caption
from shared.payloads import Page


def doc(text: str) -> DocumentText:
    return DocumentText([Page(number=1, text=text)])


STF = (
    "Ementa e Acórdão\n23/05/2019\nPLENÁRIO\nEMB.DECL. NO RECURSO EXTRAORDINÁRIO 855.178 SERGIPE\nRELATOR\n"
    ": MIN. LUIZ FUX\nREDATOR DO\nACÓRDÃO\n: MIN. EDSON FACHIN\nEMBTE.(S)\n:UNIÃO\n"
)
TJUE_PT = (
    "ACÓRDÃO DO TRIBUNAL DE JUSTIÇA (Primeira Secção) 6 de Outubro de 2009 *\nNo processo C-40/08, que tem por "
    "objecto um pedido de decisão prejudicial nos termos do artigo 234.o CE,\nO TRIBUNAL DE JUSTIÇA (Primeira "
    "Secção), composto por: P. Jann, presidente de secção, M. Ilešič, A. Tizzano (relator), E. Levits e\n"
)
TJUE_EN = (
    "JUDGMENT OF THE COURT (First Chamber)\n26 October 2006*\nIn Case C-168/05,\nREFERENCE for a preliminary ruling"
    " under Article 234 EC\nTHE COURT (First Chamber), composed of P. Jann, President of the Chamber, E. Juhász, J.N."
    " Cunha\nRodrigues (Rapporteur) and M. Ilešič, Judges,\n"
)


def test_stf_caption() -> None:
    text = doc(STF)
    assert fields.procedural_class(text, "acordao", caption(text)) == "Embargos de Declaração no Recurso Extraordinário"
    assert fields.relator(text, "acordao") == "Luiz Fux"  # the caption's RELATOR, not the REDATOR DO ACÓRDÃO
    assert fields.judging_body(text, "acordao") == "Plenário"


@pytest.mark.parametrize(
    ("text", "cls", "relator", "body"),
    [
        (TJUE_PT, "Pedido de decisão prejudicial", "A. Tizzano", "1ª Secção"),
        (TJUE_EN, "Reference for a preliminary ruling", "J.N. Cunha Rodrigues", "First Chamber"),
    ],
)
def test_eu_court_judgment(text: str, cls: str, relator: str, body: str) -> None:
    judgment = doc(text)
    assert fields.procedural_class(judgment, "acordao", caption(judgment)) == cls
    assert fields.relator(judgment, "acordao") == relator
    assert fields.judging_body(judgment, "acordao") == body


def test_relator_opens_the_relatorio() -> None:
    text = doc(
        "RECURSO ESPECIAL Nº 1.543.564 - SP (2015/0171807-9)\nRELATÓRIO\nO SENHOR MINISTRO MARCO AURÉLIO "
        "BELLIZZE:\nFischer interpõe recurso especial."
    )
    assert fields.relator(text, "acordao") == "Marco Aurélio Bellizze"


def test_publication_label_counts_on_the_first_pages_only() -> None:
    first = "Parecer\nData: 17 de setembro de 2024\n"
    quoted = "(TRF4, Relator(a): X; Órgão Julgador: Sétima Turma;\nData de Publicação: 08/02/2022)"
    pages = [Page(number=i + 1, text=t) for i, t in enumerate([first, "a", "b", quoted])]
    assert fields.publication_date(DocumentText(pages)) is None
    assert fields.publication_date(doc("Publicação: 30/09/2016\nACÓRDÃO")) == date(2016, 9, 30)
