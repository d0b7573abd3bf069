"""An act's number, date and issuing body: synthetic title lines of each form, and the acts of ../shared/archive."""

from datetime import date

import pytest

from precedente.shared.legal.document_text import DocumentText
from precedente.shared.legal.legislation import ActInfo, article_exists, read_act
from precedente.shared.payloads import Page
from tests.helpers.samples import SHARED_DATA


def act(text: str) -> ActInfo:
    return read_act(DocumentText([Page(number=1, text=text)]))


def test_brazilian_title_with_letterhead() -> None:
    info = act(
        "Presidência da República\nSecretaria-Geral\nSubchefia para Assuntos Jurídicos\n"
        "DECRETO Nº 8.660, DE 29 DE JANEIRO DE 2016\nPromulga a Convenção."
    )
    assert info == ActInfo("8.660/2016", date(2016, 1, 29), "Presidência da República")


def test_the_number_is_cited_with_the_year_the_act_dates_itself() -> None:
    """ "Lei nº 13.140, de 26 de junho de 2015" is Lei 13.140/2015; a number that prints its year keeps it, and an
    act that gives no date keeps the bare number."""
    assert act("LEI Nº 13.140, DE 26 DE JUNHO DE 2015.\nDispõe sobre a mediação").act_number == "13.140/2015"
    assert act("RESOLUÇÃO Nº 125, DE 29 DE NOVEMBRO DE 2010\nDispõe sobre").act_number == "125/2010"
    assert act("PROVIMENTO TRT 18ª SCR Nº 4/2012\nDe 3 de maio de 2012").act_number == "4/2012"
    assert act("RESOLUÇÃO Nº 35\nDisciplina a aplicação").act_number == "35"


def test_issuer_in_the_title_and_in_the_enacting_clause() -> None:
    info = act(
        "PROVIMENTO/CGJ N. 2, DE 6 DE JANEIRO DE 2023.\n"
        "A CORREGEDORA-GERAL DE JUSTIÇA, no uso de suas atribuições legais e regulamentares,"
    )
    assert info == ActInfo("2/2023", date(2023, 1, 6), "Corregedoria-Geral de Justiça")  # the body, not who signs
    info = act(
        "PODER JUDICIÁRIO DA UNIÃO\nTRIBUNAL REGIONAL DO TRABALHO DA 18ª REGIÃO\nPROVIMENTO TRT 18ª SCR Nº 4/2012"
    )
    assert info == ActInfo("4/2012", None, "Tribunal Regional do Trabalho da 18ª Região")


def test_a_note_citing_another_act_is_not_the_title() -> None:
    info = act(
        "Texto compilado a partir da redação dada pela\nResolução n. 392/2021.\nRESOLUÇÃO 228, DE 22 DE JUNHO DE 2016."
    )
    assert (info.act_number, info.document_date) == ("228/2016", date(2016, 6, 22))


def test_eu_acts_in_english_and_portuguese() -> None:
    info = act(
        "DIRECTIVE 2011/83/EU OF THE EUROPEAN PARLIAMENT AND OF THE COUNCIL\nof 25 October 2011\non consumer rights"
    )
    assert info == ActInfo("2011/83/EU", date(2011, 10, 25), "European Parliament and the Council")
    info = act("REGULAMENTO (UE) 2022/1925 DO PARLAMENTO EUROPEU E DO CONSELHO\nde 14 de setembro de 2022\nrelativo à")
    assert info == ActInfo("2022/1925", date(2022, 9, 14), "Parlamento Europeu e Conselho")
    info = act("REGULATION (EU) No 524/2013 OF THE EUROPEAN PARLIAMENT AND OF THE COUNCIL\nof 21 May 2013")
    assert info.act_number == "524/2013" and info.document_date == date(2013, 5, 21)


def test_a_corrigendum_is_not_dated_by_the_act_it_corrects() -> None:
    info = act(
        "RECTIFICAÇÕES\nRectificação ao Regulamento (CE) n. o 593/2008 do Parlamento Europeu e do Conselho, de 17 de "
        "Junho de 2008,\nsobre a lei aplicável às obrigações contratuais (Roma I)"
    )
    assert info.act_number == "593/2008" and info.document_date is None


def test_an_enacting_clause_with_the_issuer_s_acronym() -> None:
    info = act(
        "RESOLUÇÃO 228, DE 22 DE JUNHO DE 2016.\nRegulamenta a aplicação.\n"
        "O PRESIDENTE DO CONSELHO NACIONAL DE JUSTIÇA\n(CNJ), no uso de suas atribuições legais e regimentais,"
    )
    assert info.issuing_body == "Conselho Nacional de Justiça"


@pytest.mark.parametrize(
    ("authority", "body"),
    [
        ("O CORREGEDOR NACIONAL DE JUSTIÇA", "Corregedoria Nacional de Justiça"),
        ("O PRESIDENTE DA REPÚBLICA", "Presidência da República"),
        ("A PRESIDENTE DO SUPERIOR TRIBUNAL DE JUSTIÇA", "Superior Tribunal de Justiça"),
        ("O MINISTRO DE ESTADO DA FAZENDA", "Ministério da Fazenda"),
        ("O PROCURADOR-GERAL DA FAZENDA NACIONAL", "Procuradoria-Geral da Fazenda Nacional"),
        ("O SECRETÁRIO ESPECIAL DA RECEITA FEDERAL DO BRASIL", "Secretaria Especial da Receita Federal do Brasil"),
        ("O GOVERNADOR DO ESTADO DE SÃO PAULO", "Governo do Estado de São Paulo"),
        ("O CONSELHO FEDERAL DA ORDEM DOS ADVOGADOS DO BRASIL", "Conselho Federal da Ordem dos Advogados do Brasil"),
        ("A DIRETORIA COLEGIADA DA AGÊNCIA NACIONAL DE SAÚDE", "Diretoria Colegiada da Agência Nacional de Saúde"),
    ],
)
def test_the_enacting_authority_gives_the_body_it_acts_for(authority: str, body: str) -> None:
    """The enacting clause names who signs ("O CORREGEDOR NACIONAL DE JUSTIÇA, no uso de suas atribuições"); the
    act is its office's (the Corregedoria's provimento); a body that enacts itself stays as it is."""
    info = act(f"PORTARIA Nº 12, DE 3 DE MARÇO DE 2021.\nDispõe sobre.\n{authority}, no uso de suas atribuições,")
    assert info.issuing_body == body


def test_a_code_named_by_its_title() -> None:
    info = act("CÓDIGO DE ÉTICA E DISCIPLINA DA OAB\nO CONSELHO FEDERAL DA ORDEM DOS ADVOGADOS DO BRASIL, ao instituir")
    assert info == ActInfo(None, None, "Conselho Federal da Ordem dos Advogados do Brasil")


ARCHIVE_ACTS = {
    "i500": ActInfo("8.660/2016", date(2016, 1, 29), "Presidência da República"),
    "i513": ActInfo("100/2020", date(2020, 5, 26), "Conselho Nacional de Justiça"),
    "i503": ActInfo("228/2016", date(2016, 6, 22), "Conselho Nacional de Justiça"),
    "i1042": ActInfo("2011/83/EU", date(2011, 10, 25), "European Parliament and the Council"),
    "i1045": ActInfo("2022/1925", date(2022, 9, 14), "Parlamento Europeu e Conselho"),
    "i1040": ActInfo("2005/29/CE", date(2005, 5, 11), "Parlamento Europeu e Conselho"),
    "i1043": ActInfo("524/2013", date(2013, 5, 21), "European Parliament and the Council"),
    "i344": ActInfo("4/2012", None, "Tribunal Regional do Trabalho da 18ª Região"),
}


@pytest.mark.parametrize("name", sorted(ARCHIVE_ACTS))
def test_archive_acts(name: str) -> None:
    import pymupdf

    with pymupdf.open(SHARED_DATA / "archive" / f"{name}.pdf") as pdf:
        pages = [Page(number=i + 1, text=p.get_text()) for i, p in enumerate(pdf) if i < 3]
    assert read_act(DocumentText(pages)) == ARCHIVE_ACTS[name]


def test_a_title_the_cleaner_ran_on_into_the_date_and_subject() -> None:
    info = act(
        "DIRECTIVE 2002/22/EC OF THE EUROPEAN PARLIAMENT AND OF THE COUNCIL of 7 March 2002 on universal service and "
        "users' rights relating to electronic communications networks"
    )
    assert info == ActInfo("2002/22/EC", date(2002, 3, 7), "European Parliament and the Council")


def test_article_exists_only_drops_what_is_known_to_be_wrong() -> None:
    assert article_exists("Lei 9.307/1996, art. 33, § 3º")
    assert not article_exists("Lei 8.906/1994, art. 111")  # the Estatuto da Advocacia ends at art. 87
    assert not article_exists("CDC, art. 120")
    assert article_exists("CPC/2015, art. 1.072") and not article_exists("CPC/2015, art. 1.073")
    assert article_exists("Lei 1.234/2020, art. 999")  # an act not in the table: not judged
    assert article_exists("Súmula 7/STJ") and article_exists("REsp 1.602.076/SP")
