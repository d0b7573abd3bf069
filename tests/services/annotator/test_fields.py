"""The fields read from a caption and its formulas (precedente.services.annotator.fields) on documents beyond the STJ
and state-court ones the rules began with: STF captions, EU judgments, a relatório without a caption."""

from datetime import date

import pytest

from precedente.services.annotator import fields
from precedente.shared.legal import judges
from precedente.shared.legal.document_text import DocumentText
from precedente.shared.legal.titles import caption
from precedente.shared.payloads import Page


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
    assert judges.relator(text, "acordao") == "Luiz Fux"  # the caption's RELATOR, not the REDATOR DO ACÓRDÃO
    assert fields.judging_body(text, "acordao") == "Plenário"


@pytest.mark.parametrize(
    ("text", "cls", "relator", "body"),
    [
        (TJUE_PT, "Pedido de decisão prejudicial", "A. Tizzano", "1ª Secção"),
        # in English, under the names its judgments in Portuguese give (one facet value per class, in Portuguese)
        (TJUE_EN, "Pedido de decisão prejudicial", "J.N. Cunha Rodrigues", "1ª Secção"),
    ],
)
def test_eu_court_judgment(text: str, cls: str, relator: str, body: str) -> None:
    judgment = doc(text)
    assert fields.procedural_class(judgment, "acordao", caption(judgment)) == cls
    assert judges.relator(judgment, "acordao") == relator
    assert fields.judging_body(judgment, "acordao") == body


def test_relator_opens_the_relatorio() -> None:
    text = doc(
        "RECURSO ESPECIAL Nº 1.543.564 - SP (2015/0171807-9)\nRELATÓRIO\nO SENHOR MINISTRO MARCO AURÉLIO "
        "BELLIZZE:\nFischer interpõe recurso especial."
    )
    assert judges.relator(text, "acordao") == "Marco Aurélio Bellizze"


def test_publication_label_counts_on_the_first_pages_only() -> None:
    first = "Parecer\nData: 17 de setembro de 2024\n"
    quoted = "(TRF4, Relator(a): X; Órgão Julgador: Sétima Turma;\nData de Publicação: 08/02/2022)"
    pages = [Page(number=i + 1, text=t) for i, t in enumerate([first, "a", "b", quoted])]
    assert fields.publication_date(DocumentText(pages)) is None
    assert fields.publication_date(doc("Publicação: 30/09/2016\nACÓRDÃO")) == date(2016, 9, 30)


def test_publication_in_the_official_journal_from_its_running_head() -> None:
    """The date beside the Journal's name at a page's head, in either order; not a citation of the Journal."""
    english = (
        "(ODR) could greatly\nhelp achieve this goal.\nEN\n18.6.2013\nOfficial Journal of the European Union\nL 165/1\n"
    )
    assert fields.publication_date(doc(english)) == date(2013, 6, 18)
    portuguese = (
        "e do Conselho (JO L 290\nde 23.10.1997, p. 18).\nL 149/22\nPT\nJornal Oficial da União Europeia\n11.6.2005\n"
    )
    assert fields.publication_date(doc(portuguese)) == date(2005, 6, 11)
    cited = "sobre a lei aplicável (Roma I)\n(«Jornal Oficial da União Europeia» L 177 de 4 de Julho de 2008)\n"
    assert fields.publication_date(doc(cited)) is None


PETITIONS = {
    "contestacao": (
        "EXCELENTÍSSIMO SENHOR DOUTOR JUIZ DE DIREITO DA 2ª VARA CÍVEL DA COMARCA DE CAMPINAS/SP\n\n"
        "Processo nº 1001234-56.2023.8.26.0114\n\n"
        "BANCO EXEMPLO S.A., pessoa jurídica de direito privado, inscrita no CNPJ sob nº 00.000.000/0001-00, por seus "
        "advogados, nos autos da ação de indenização que lhe move MARIA DA SILVA SOUZA, já qualificada, vem, "
        "respeitosamente, à presença de Vossa Excelência, apresentar sua CONTESTAÇÃO, pelos fatos a seguir.",
        [("MARIA DA SILVA SOUZA", "autor"), ("BANCO EXEMPLO S.A.", "reu")],
    ),
    "apelacao": (
        "EXCELENTÍSSIMO SENHOR DOUTOR JUIZ DE DIREITO DA 5ª VARA CÍVEL DO FORO CENTRAL\n\n"
        "JOÃO PEREIRA LIMA, já qualificado nos autos da ação de cobrança em epígrafe, inconformado com a r. sentença, "
        "vem interpor o presente RECURSO DE APELAÇÃO, com fundamento no art. 1.009 do Código de Processo Civil, em "
        "face de CONSTRUTORA HORIZONTE LTDA., pelas razões anexas.",
        [("JOÃO PEREIRA LIMA", "apelante"), ("CONSTRUTORA HORIZONTE LTDA.", "apelado")],
    ),
    "recurso_especial": (
        "EXCELENTÍSSIMO SENHOR DESEMBARGADOR PRESIDENTE DO TRIBUNAL DE JUSTIÇA DO ESTADO DE SÃO PAULO\n\n"
        "EMPRESA ALFA LTDA., nos autos em epígrafe, vem interpor RECURSO ESPECIAL, com fundamento no art. 105, III, "
        "a, da Constituição, contra o v. acórdão de fls. 300, e em face de JOSÉ ANTUNES, pelas razões anexas.",
        [("EMPRESA ALFA LTDA.", "recorrente"), ("JOSÉ ANTUNES", "recorrido")],
    ),
    "mandado_de_seguranca": (
        "EXCELENTÍSSIMO SENHOR DOUTOR JUIZ FEDERAL DA 3ª VARA FEDERAL DE CURITIBA\n\n"
        "COMERCIAL BETA LTDA., inscrita no CNPJ sob nº 11.111.111/0001-11, vem, por seus advogados, impetrar "
        "MANDADO DE SEGURANÇA contra ato do DELEGADO DA RECEITA FEDERAL EM CURITIBA, pelos fatos a seguir.",
        [("COMERCIAL BETA LTDA.", "impetrante"), ("DELEGADO DA RECEITA FEDERAL EM CURITIBA", "impetrado")],
    ),
    "labels": (
        "EXCELENTÍSSIMO SENHOR DOUTOR JUIZ DE DIREITO DA 3ª VARA DE FAMÍLIA\n\nRequerente: ANA PAULA MOREIRA\n"
        "Requerido: CARLOS ALBERTO MOREIRA\n\nANA PAULA MOREIRA vem requerer a homologação do acordo anexo.",
        [("ANA PAULA MOREIRA", "requerente"), ("CARLOS ALBERTO MOREIRA", "requerido")],
    ),
    "inicial": (
        "EXCELENTÍSSIMO SENHOR DOUTOR JUIZ DE DIREITO DA VARA CÍVEL DA COMARCA DE NITERÓI\n\n"
        "PAULO ROBERTO DIAS, brasileiro, casado, vem, por seu advogado, propor AÇÃO DE INDENIZAÇÃO em face de "
        "TRANSPORTES RÁPIDOS LTDA., pelos fatos e fundamentos a seguir.",
        [("PAULO ROBERTO DIAS", "autor"), ("TRANSPORTES RÁPIDOS LTDA.", "reu")],
    ),
}


@pytest.mark.parametrize("kind", sorted(PETITIONS))
def test_petition_parties_with_their_roles(kind: str) -> None:
    """Who files against whom, with the roles the petition's own formula gives them."""
    text, expected = PETITIONS[kind]
    assert [(p.name, p.role) for p in fields.parties(doc(text), "peticao")] == expected


def test_an_appeal_against_a_decision_names_no_decision_as_a_party() -> None:
    text = (
        "EXCELENTÍSSIMO SENHOR DOUTOR JUIZ DE DIREITO DA 1ª VARA CÍVEL\n\nEMPRESA ALFA LTDA., já qualificada, vem "
        "interpor RECURSO INOMINADO contra a r. sentença de fls. 80, pelas razões que seguem."
    )
    assert fields.parties(doc(text), "peticao") == []


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # the parties' line stands where a name was expected: no relator rather than the parties
        (
            "APELAÇÃO CÍVEL 0700000-00.2020.8.07.0001\nRELATOR : Distribuidora Exemplo de Veiculos S/a e Outra Ltda\n",
            None,
        ),
        ("AÇÃO CÍVEL ORIGINÁRIA 1.234\nRELATOR : MIN. FULANO DE TAL SOUZA AGTE. UNIÃO\n", "Fulano de Tal Souza"),
        (
            "APELAÇÃO 7000000-00.2017.7.00.0000\nRELATOR: Ministro Gen Ex Fulano de Tal Souza Revisor: Ministro X Y\n",
            "Fulano de Tal Souza",
        ),
        ("APELAÇÃO 0700000-00.2014.8.01.0001\nRelatora : Desª. Fulana de Tal\n", "Fulana de Tal"),
    ],
)
def test_a_relator_is_a_person_found_after_the_label(text: str, expected: str | None) -> None:
    assert judges.relator(DocumentText([Page(number=1, text=text)]), "acordao") == expected


@pytest.mark.parametrize(
    ("ending", "expected"),
    [
        ("Brasília, 30 de setembro de 2025. Ministro PAULO DE TARSO VIEIRA Relator", "Paulo de Tarso Vieira"),
        ("Brasília, 28 de setembro de 2025. MARIA DA GLÓRIA TEIXEIRA Relatora", "Maria da Glória Teixeira"),
        ("Brasília, 29 de setembro de 2025. MINISTRO PAULO DE TARSO VIEIRA, Relator", "Paulo de Tarso Vieira"),
        ("Brasília, 26 de dezembro de 2024. Ministro PAULO DE TARSO VIEIRA Presidente", None),  # not the relator
        ("Publique-se. Intimem-se. Relator", None),
    ],
)
def test_a_signature_run_onto_the_last_line_names_the_relator(ending: str, expected: str | None) -> None:
    """A text copy of a monocrática ends on one line with its signature (bench/metadata_corpus.py: 0 of 300 STJ
    relators read before, 178 after, none wrong)."""
    text = "HABEAS CORPUS Nº 1012345 - RJ (2025/0312345-1)\nDECISÃO\nNão conheço do habeas corpus. " + ending
    assert judges.relator(DocumentText([Page(number=1, text=text)]), "decisao_monocratica") == expected


@pytest.mark.parametrize(
    ("formula", "body"),
    [
        (
            "ACORDAM os Ministros da Subseção II Especializada em Dissídios Individuais do Tribunal",
            "Subseção II Especializada em Dissídios Individuais",
        ),
        ("ACORDAM os Ministros da SUBSEÇÃO I ESPECIALIZADA EM DISSÍDIOS INDIVIDUAIS do Tribunal", None),
        ("Acordam os Desembargadores do Conselho Especial do Tribunal de Justiça", "Conselho Especial"),
    ],
)
def test_the_tsts_subsections_and_the_tjdfts_council_are_judging_bodies(formula: str, body: str | None) -> None:
    """LeNER-Br's TST SBDI-1 and TJDFT ADI acórdãos (../shared/corpus) were cited without the body that judged."""
    expected = body or "Subseção I Especializada em Dissídios Individuais"
    assert fields.judging_body(DocumentText([Page(number=1, text=formula)]), "acordao") == expected
