"""Which court, office or agency a document comes from (shared/legal/courts.py): golden cases on short openings."""

import pytest

from precedente.shared.legal.courts import guess_court
from precedente.shared.legal.document_text import DocumentText
from precedente.shared.payloads import Page


def court_of(text: str, document_type: str = "outro", *more_pages: str) -> str | None:
    pages = [Page(number=i + 1, text=t) for i, t in enumerate((text, *more_pages))]
    return guess_court(DocumentText(pages), document_type)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("SUPREMO TRIBUNAL FEDERAL\nPLENÁRIO", "stf"),
        ("Ementa e Acórdão\n16/12/2024\nPLENÁRIO\nSEGUNDOS EMB.DECL. NO RECURSO EXTRAORDINÁRIO 1.366.243 SANTA", "stf"),
        ("AG.REG. NA AÇÃO DIRETA DE INCONSTITUCIONALIDADE 5.000 DISTRITO FEDERAL", "stf"),
        ("Superior Tribunal de Justiça\nRECURSO ESPECIAL Nº 1.433.940 - MG", "stj"),
        ("AgInt nos EDcl no AGRAVO EM RECURSO ESPECIAL Nº 1.234.567 - SP", "stj"),
        ("TRIBUNAL SUPERIOR DO TRABALHO\nAGRAVO DE INSTRUMENTO EM RECURSO DE REVISTA", "tst"),
        ("PODER JUDICIÁRIO\nTRIBUNAL REGIONAL FEDERAL DA 3ª REGIÃO\nAPELAÇÃO CÍVEL", "trf3"),
        (
            "PODER JUDICIÁRIO DA UNIÃO\nTRIBUNAL REGIONAL DO TRABALHO DA 18ª REGIÃO\nPROVIMENTO TRT 18ª SCR Nº 4/2012",
            "trt18",
        ),
        ("Tribunal Regional do Trabalho da Segunda Região", "trt2"),
        ("TRIBUNAL DE JUSTIÇA DO ESTADO DE MINAS GERAIS\nApelação Cível", "tjmg"),
        ("Poder Judiciário do Estado do Rio de Janeiro\nDécima Oitava Câmara Cível", "tjrj"),
        ("TRIBUNAL DE JUSTIÇA DO DISTRITO FEDERAL E DOS TERRITÓRIOS", "tjdft"),
        ("TRIBUNAL DE CONTAS DA UNIÃO\nAcórdão 1234/2019 - Plenário", "tcu"),
        (
            "MINISTÉRIO DA ECONOMIA\nConselho Administrativo de Recursos Fiscais\nProcesso nº 10880.000000/2010-00",
            "carf",
        ),
        ("Poder Judiciário\nConselho Nacional de Justiça\nPROVIMENTO N. 100, DE 26 DE MAIO DE 2020.", "cnj"),
        ("AGÊNCIA NACIONAL DE TELECOMUNICAÇÕES\nResolução nº 765", "anatel"),
        (
            "CÓDIGO DE ÉTICA E DISCIPLINA DA OAB\nO CONSELHO FEDERAL DA ORDEM DOS ADVOGADOS DO BRASIL, ao instituir",
            "oab",
        ),
        # the EU's court, in Portuguese and in English; EU legislation
        ("ACÓRDÃO DO TRIBUNAL DE JUSTIÇA (Primeira Secção) 6 de Outubro de 2009\nNo processo C-40/08,", "tjue"),
        ("MOSTAZA CLARO\nJUDGMENT OF THE COURT (First Chamber)\n26 October 2006\nIn Case C-168/05,", "tjue"),
        ("REGULAMENTO (UE) 2022/1925 DO PARLAMENTO EUROPEU E DO CONSELHO de 14 de setembro de 2022", "ue"),
        ("►B\nDIRECTIVE 2002/22/EC OF THE EUROPEAN PARLIAMENT AND OF THE COUNCIL\nof 7 March 2002", "ue"),
    ],
)
def test_court_golden(text: str, expected: str) -> None:
    assert court_of(text) == expected


def test_a_party_named_in_the_caption_is_not_the_court() -> None:
    caption = "PLENÁRIO\nRELATOR\n: MIN. GILMAR MENDES\nAM. CURIAE.\n:MINISTÉRIO PÚBLICO DO ESTADO DE MINAS\nGERAIS"
    assert court_of(caption) is None


def test_a_court_named_in_the_body_is_not_the_court() -> None:
    """The cleaner joins a paragraph into one long line: the court an appeal comes from is named there."""
    body = (
        "RECURSO ESPECIAL Nº 1.543.564 - SP (2015/0171807-9)\nRELATÓRIO\n"
        "Fischer interpõe recurso especial, fundado nas alíneas a e c do permissivo constitucional, contra acórdão "
        "prolatado pelo Tribunal de Justiça do Estado de São Paulo."
    )
    assert court_of(body, "acordao") == "stj"


def test_doctrine_has_no_court() -> None:
    """A journal's publisher and the court an article studies are not its issuer."""
    assert court_of("Rev. CEJUR/TJSC\nVULNERABILIDADE DIGITAL DO CONSUMIDOR", "doutrina") is None
    assert court_of("AÇÃO ANULATÓRIA NO TRIBUNAL DE JUSTIÇA DO DISTRITO FEDERAL E DOS TERRITÓRIOS", "doutrina") is None
    assert court_of("Superior Tribunal de Justiça\nSTJ – REsp 1.602.076/SP – Comentário", "doutrina") is None


def test_a_compilation_is_its_publishers() -> None:
    """Jurisprudência em Teses, Informativos: the court's site printed on every page, not the courts it lists."""
    page = "TJSP - APELAÇÃO - Município de Jundiaí\nEDIÇÃO N. 77: ALIMENTOS\nscon.stj.jus.br/SCON/jt/ 1/8"
    assert court_of(page, "jurisprudencia_compilada", page.replace("1/8", "2/8")) == "stj"
    assert court_of(page.replace("scon.stj.jus.br/SCON/jt/", ""), "jurisprudencia_compilada") is None
    ementario = "Ordem dos Advogados do Brasil\nConselho Seccional do Rio Grande do Sul\nTribunal de Ética e Disciplina"
    assert court_of(ementario, "jurisprudencia_compilada") == "oab_rs"


def test_a_state_courts_constitutional_action_is_not_the_stf() -> None:
    assert court_of("AÇÃO DIRETA DE INCONSTITUCIONALIDADE Nº 2000000-00.2020.8.26.0000") == "tjsp"


def test_a_federal_decree_is_the_presidencys() -> None:
    """The planalto.gov.br letterhead: "Presidência da República / Secretaria-Geral / Subchefia ..." above the act."""
    decree = (
        "Presidência da República\nSecretaria-Geral\nSubchefia para Assuntos Jurídicos\n"
        "DECRETO Nº 8.660, DE 29 DE JANEIRO DE 2016\nPromulga a Convenção."
    )
    assert court_of(decree, "ato_normativo") == "presidencia"
    # a judgment whose caption names the President as a party keeps its court
    judgment = (
        "SUPREMO TRIBUNAL FEDERAL\nMANDADO DE SEGURANÇA 30.000 DISTRITO FEDERAL\n"
        "IMPTE.(S) : FULANO DE TAL\nIMPDO.(A/S) : PRESIDENTE DA REPÚBLICA"
    )
    assert court_of(judgment, "acordao") == "stf"


def test_a_corrigendum_of_an_eu_act_is_the_eus() -> None:
    text = (
        "RECTIFICAÇÕES\nRectificação ao Regulamento (CE) n. o 593/2008 do Parlamento Europeu e do Conselho, de 17 de "
        "Junho de 2008, sobre a lei aplicável às obrigações contratuais (Roma I)"
    )
    assert court_of(text, "ato_normativo") == "ue"
    assert court_of("O Regulamento do Conselho Superior foi alterado.", "ato_normativo") is None


HABEAS_CORPUS = (
    "HABEAS CORPUS Nº 1012345 - RJ (2025/0312345-1)\n"
    "RELATOR : MINISTRO PAULO DE TARSO VIEIRA\n"
    "IMPETRADO : TRIBUNAL DE JUSTIÇA DO ESTADO DO RIO DE JANEIRO\n"
    "DECISÃO\n"
    "Trata-se de habeas corpus impetrado contra acórdão do\n"
    "Tribunal de Justiça do Estado do Rio de Janeiro (Apelação n. 0806981-66.2024.8.19.0066).\n"
)


def test_the_stjs_registration_number_in_the_caption_names_the_stj() -> None:
    """An STJ habeas corpus names the court it is against and that court's CNJ number under its caption: a card read
    'TJRJ' for the STJ's decision (26 of 300 STJ monocráticas of ../shared/corpus, bench/metadata_corpus.py)."""
    assert court_of(HABEAS_CORPUS, "decisao_monocratica") == "stj"
    assert court_of(HABEAS_CORPUS.replace(" (2025", "\n(2025"), "decisao_monocratica") == "stj"  # wrapped
    # a text copy with the whole decision on one line, and the STJ site's copy with its own fields first
    assert court_of(HABEAS_CORPUS.replace("\n", " "), "decisao_monocratica") == "stj"
    assert court_of("Processo\nHC 1012345\nRelator(a)\nMinistro Paulo\nDecisão\n" + HABEAS_CORPUS) == "stj"
    # without the registration number the CNJ number of the origin is all there is, as before
    assert court_of(HABEAS_CORPUS.replace(" (2025/0312345-1)", ""), "decisao_monocratica") == "tjrj"
