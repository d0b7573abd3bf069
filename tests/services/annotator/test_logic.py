"""Annotator rules on the real sample PDFs (what each file really is, read from its text) and on
small synthetic documents for the types the samples lack."""

from datetime import date
from pathlib import Path

import pytest

from precedente.services.annotator.logic import VERIFIED, annotate, merge
from precedente.services.cleaner.logic import clean_pages
from precedente.shared.contracts import MetadataHints
from precedente.shared.legal.codes import DOCUMENT_TYPES, UF_BY_STATE
from precedente.shared.payloads import DocumentMetadata, Page, Party
from tests.conftest import read_pages

SHARED = Path(__file__).resolve().parents[3].parent / "shared"
DOCS = SHARED / "docs"

# (file, type, court, judgment date, title), checked against the texts:
# - STJ acórdãos: "Brasília (DF), 15 de setembro de 2016(Data do Julgamento)", "JULGADO: 15/09/2016";
#   the AgInt was judged in the virtual session "de 18/02/2025 a 24/02/2025" (signed on 26/02).
# - TJRJ: "Rio de Janeiro, 07 de junho de 2017." closes the vote (signed 07/06/2017 too).
# - TJSP: "São Paulo, 07 de agosto de 2024." closes the sentence; e-SAJ "Classe - Assunto" header.
# - Parecer: "Belo Horizonte - MG, 21 de setembro de 2022." closes it (signatures are 20/10/2022).
# - Petição: "Rio de Janeiro, 13 de setembro de 2022."; author: Ministério Público do Estado do RJ.
EXPECTED = [
    ("stj_resp_1602076_sp_acordao.pdf", "acordao", "stj", date(2016, 9, 15), "REsp 1.602.076/SP"),
    ("stj_resp_1543564_sp_acordao.pdf", "acordao", "stj", date(2018, 9, 25), "REsp 1.543.564/SP"),
    ("stj_resp_1433940_mg_acordao.pdf", "acordao", "stj", date(2017, 9, 26), "REsp 1.433.940/MG"),
    ("stj_agint_aresp_2560760_se_acordao.pdf", "acordao", "stj", date(2025, 2, 24), "AgInt no AREsp 2.560.760/SE"),
    (
        "tjrj_agravo_instrumento_0017387-33.2017_acordao.pdf",
        "acordao",
        "tjrj",
        date(2017, 6, 7),
        "Agravo de Instrumento 0017387-33.2017.8.19.0000",
    ),
    (
        "tjsp_sentenca_vara_empresarial_arbitragem.pdf",
        "sentenca",
        "tjsp",
        date(2024, 8, 7),
        "Cumprimento de sentença 1048106-30.2024.8.26.0100",
    ),
    (
        "parecer_pgjmg_procon_16-2022.pdf",
        "parecer",
        "mpmg",
        date(2022, 9, 21),
        "Parecer nº 16/2022 - PGJMG/PROCON-MG/SECP/ASJUP",
    ),
    (
        "mp_acao_civil_publica_peticao_inicial.pdf",
        "peticao",
        "mprj",
        date(2022, 9, 13),
        "AÇÃO CIVIL PÚBLICA CONSUMERISTA com pedido de liminar",
    ),
]


def one_page(text: str) -> list[Page]:
    return [Page(number=1, text=text)]


def core(m: DocumentMetadata) -> tuple:
    return m.title, m.document_type, m.court, m.document_date


# ----------------------------------------------------------------------------- real files


@pytest.mark.parametrize("mode", ["cleaned+raw", "cleaned", "raw"])
@pytest.mark.parametrize(("name", "document_type", "court", "judged", "title"), EXPECTED)
def test_real_documents(name: str, document_type: str, court: str, judged: date, title: str, mode: str) -> None:
    """What the service feeds (cleaned pages plus the raw ones), and either alone."""
    raw = read_pages(name)
    cleaned = clean_pages(raw)
    if mode == "cleaned+raw":
        metadata = annotate(cleaned, name, raw_pages=raw)
    else:
        metadata = annotate(cleaned if mode == "cleaned" else raw, name)
    assert core(metadata) == (title, document_type, court, judged)
    assert metadata.judgment_date == judged


def test_hints_win_over_guesses_on_a_real_document() -> None:
    name = "stj_resp_1602076_sp_acordao.pdf"
    hints = MetadataHints(title="Cláusula compromissória patológica", document_date=date(2016, 9, 30))
    metadata = annotate(clean_pages(read_pages(name)), name, hints)
    assert metadata.title == "Cláusula compromissória patológica"
    assert metadata.document_date == date(2016, 9, 30)
    assert (metadata.document_type, metadata.court) == ("acordao", "stj")  # not hinted: guessed
    assert metadata.sources["title"] == metadata.sources["document_date"] == "hint"
    assert metadata.sources["process_number"] == "rules"


def test_verified_cnj_number_and_its_court() -> None:
    name = "tjrj_agravo_instrumento_0017387-33.2017_acordao.pdf"
    metadata = annotate(clean_pages(read_pages(name)), name)
    assert metadata.process_number == "0017387-33.2017.8.19.0000"
    assert metadata.sources["process_number"] == VERIFIED
    assert metadata.parties == [
        Party(name="CONSTRUÇÕES E COMÉRCIO CAMARGO CORRÊA S/A", role="agravante"),
        Party(name="ENERGIA SUSTENTÁVEL DO BRASIL S/A", role="agravado"),
    ]
    assert (metadata.judging_body, metadata.procedural_class) == ("18ª Câmara Cível", "Agravo de Instrumento")


# ---------------------------------------------------------------------------- synthetic

EMAIL = """De: Ana Souza <ana@escritorio.com.br>
Enviado em: terça-feira, 13 de setembro de 2022 15:40
Para: Carlos Lima <carlos@escritorio.com.br>
Assunto: Minuta do contrato de locação - cliente XPTO

Carlos, segue a minuta revisada. O STJ decidiu no REsp 1.602.076/SP, julgado em 15/09/2016, que a
cláusula compromissória em contrato de adesão é nula.
"""

CONTRACT = """CONTRATO DE PRESTAÇÃO DE SERVIÇOS ADVOCATÍCIOS

Pelo presente instrumento particular, as partes abaixo qualificadas ajustam o seguinte:
CONTRATANTE: ACME INDÚSTRIA LTDA.
CONTRATADA: SOUZA E LIMA ADVOGADOS

CLÁUSULA PRIMEIRA – DO OBJETO
O presente contrato tem por objeto a prestação de serviços jurídicos, nos termos do art. 22 da Lei 8.906/94.

CLÁUSULA SEGUNDA – DOS HONORÁRIOS
Os honorários serão de R$ 10.000,00, vencíveis em 10/04/2023.

São Paulo, 1º de março de 2023.
"""


def test_email() -> None:
    metadata = annotate(one_page(EMAIL), "minuta.eml")
    assert core(metadata) == (
        "Minuta do contrato de locação - cliente XPTO",
        "email",
        None,  # it discusses the STJ; it does not come from it
        date(2022, 9, 13),
    )
    assert metadata.subject == "Minuta do contrato de locação - cliente XPTO"
    assert metadata.citations == ["REsp 1.602.076/SP"]


def test_email_with_rfc_2822_date() -> None:
    text = "From: a@b.com\nTo: c@d.com\nSubject: Re: prazo\nDate: Tue, 13 Sep 2022 15:40:19 -0300\n\nOk."
    metadata = annotate(one_page(text), "re.eml")
    assert (metadata.document_type, metadata.title, metadata.document_date) == ("email", "Re: prazo", date(2022, 9, 13))


def test_contract() -> None:
    metadata = annotate(one_page(CONTRACT), "contrato_honorarios.docx")
    assert core(metadata) == (
        "CONTRATO DE PRESTAÇÃO DE SERVIÇOS ADVOCATÍCIOS",
        "contrato",
        None,
        date(2023, 3, 1),  # the place-and-date line, "1º" included
    )
    assert metadata.parties == [
        Party(name="ACME INDÚSTRIA LTDA.", role="contratante"),
        Party(name="SOUZA E LIMA ADVOGADOS", role="contratado"),
    ]
    assert metadata.citations == ["Lei 8.906/1994", "Lei 8.906/1994, art. 22"]
    assert metadata.procedural_class is None and metadata.relator is None


def test_all_hints_replace_all_guesses_and_are_normalised() -> None:
    hints = MetadataHints(title="T", document_type="Parecer", court="TJ-SP", document_date=date(2020, 1, 2))
    assert core(annotate(one_page(EMAIL), "x.eml", hints)) == ("T", "parecer", "tjsp", date(2020, 1, 2))
    hints = MetadataHints(document_type="Acórdão", court="TRE/SP")
    assert core(annotate(one_page(EMAIL), "x.eml", hints))[1:3] == ("acordao", "tre_sp")


def test_empty_hints_change_nothing() -> None:
    assert annotate(one_page(CONTRACT), "c.docx", MetadataHints()) == annotate(one_page(CONTRACT), "c.docx")


def test_monocratic_decision() -> None:
    text = """AGRAVO EM RECURSO ESPECIAL Nº 2123456 - RJ (2022/0123456-7)
RELATOR : MINISTRO FULANO DE TAL
AGRAVANTE : BANCO XYZ S/A
AGRAVADO : JOÃO DA SILVA
DECISÃO
Trata-se de agravo interposto contra decisão que inadmitiu recurso especial.
É o relatório. Decido.
Incide a Súmula 7/STJ. Ante o exposto, conheço do agravo para não conhecer do recurso especial.
Brasília, 03 de fevereiro de 2023.
"""
    metadata = annotate(one_page(text), "d.pdf")
    assert core(metadata) == ("AREsp 2.123.456/RJ", "decisao_monocratica", "stj", date(2023, 2, 3))
    assert metadata.process_number == "AREsp 2.123.456/RJ"
    assert metadata.procedural_class == "Agravo em Recurso Especial"
    assert metadata.relator == "Fulano de Tal"
    assert metadata.parties == [
        Party(name="BANCO XYZ S/A", role="agravante"),
        Party(name="JOÃO DA SILVA", role="agravado"),
    ]
    assert metadata.citations == ["Súmula 7/STJ"]


def test_a_bare_cpc_is_read_at_the_judgment_s_day() -> None:
    """The CPC/2015 came into force on 18/03/2016: a decision of 03/02/2016 that cites "art. 535 do CPC" cites the
    CPC/1973 (the year alone read it as the CPC/2015); one of 03/05/2016, the CPC/2015."""
    text = """AGRAVO EM RECURSO ESPECIAL Nº 2123456 - RJ (2015/0123456-7)
RELATOR : MINISTRO FULANO DE TAL
DECISÃO
Trata-se de agravo. Não há violação do art. 535 do CPC, pois o acórdão enfrentou as questões.
Brasília, {} de 2016.
"""
    before = annotate(one_page(text.format("03 de fevereiro")), "d.pdf")
    assert before.judgment_date == date(2016, 2, 3) and "CPC/1973, art. 535" in before.citations
    after = annotate(one_page(text.format("03 de maio")), "d.pdf")
    assert after.judgment_date == date(2016, 5, 3) and "CPC/2015, art. 535" in after.citations


def test_despacho_skips_impossible_dates() -> None:
    text = """PODER JUDICIÁRIO
TRIBUNAL DE JUSTIÇA DO ESTADO DE MINAS GERAIS
Processo nº 5001234-56.2021.8.13.0024
DESPACHO
Intime-se a parte autora para manifestar-se no prazo de 15 dias.
Belo Horizonte, 31/02/2021.
Belo Horizonte, 10/03/2021.
"""
    metadata = annotate(one_page(text), "despacho.pdf")
    assert core(metadata) == ("Processo 5001234-56.2021.8.13.0024", "despacho", "tjmg", date(2021, 3, 10))
    assert metadata.process_number == "5001234-56.2021.8.13.0024"
    assert metadata.sources["process_number"] == "rules"  # its check digits do not hold


def test_sentenca_by_formula_and_cnj_number_court() -> None:
    text = """Processo 5004321-11.2020.4.04.7000
Vistos.
Trata-se de ação de cobrança. Ante o exposto, JULGO PROCEDENTE o pedido.
Curitiba, 5 de maio de 2021.
MARIA DA SILVA
Juíza Federal Substituta
"""
    metadata = annotate(one_page(text), "s.pdf")
    assert (metadata.document_type, metadata.court, metadata.document_date) == ("sentenca", "trf4", date(2021, 5, 5))
    assert metadata.relator == "Maria da Silva"  # the judge who signed it


def test_normative_act() -> None:
    text = "LEI Nº 13.129, DE 26 DE MAIO DE 2015.\nAltera a Lei nº 9.307, de 23 de setembro de 1996."
    metadata = annotate(one_page(text), "lei.pdf")
    assert core(metadata) == ("LEI Nº 13.129, DE 26 DE MAIO DE 2015.", "ato_normativo", None, date(2015, 5, 26))
    assert metadata.citations == ["Lei 13.129/2015", "Lei 9.307/1996"]


def test_first_full_date_is_a_last_resort_of_working_documents_only() -> None:
    """A memo or an opinion with no dated closing still gets its first valid date; a document of unknown
    kind does not: its bare dates are mostly of what it mentions (a meeting, a cited act), not its own."""
    text = "Data de hoje: 99/99/2020; reunião marcada para 12/11/2021 e 13/11/2021."
    memo = annotate(one_page(f"PARECER\n{text}"), "parecer.txt")
    assert (memo.document_type, memo.document_date) == ("parecer", date(2021, 11, 12))
    notes = annotate(one_page(f"Notas de reunião\n{text}"), "notas.txt")
    assert (notes.document_type, notes.document_date, notes.title) == ("outro", None, "Notas de reunião")


def test_title_falls_back_to_the_filename_stem() -> None:
    assert annotate([], "/uploads/minuta final.pdf").title == "minuta final"
    assert core(annotate(one_page("1\n2\n"), "arquivo.txt")) == ("arquivo", "outro", None, None)
    assert annotate(one_page("1\n2\n"), "arquivo.txt").sources["title"] == "rules:filename"


def test_types_are_from_the_fixed_list() -> None:
    texts = [EMAIL, CONTRACT, "SÚMULA 83\nNão se conhece do recurso especial.", "OFÍCIO Nº 12/2023\nSenhor Diretor,"]
    types = [annotate(one_page(t), "x").document_type for t in texts]
    assert types == ["email", "contrato", "sumula", "ato_administrativo"]
    assert set(types) <= set(DOCUMENT_TYPES)


def test_internal_opinion_comes_from_the_firm() -> None:
    text = "PARECER Nº 12/2023\nEMENTA: RESPONSABILIDADE SOLIDÁRIA. TERCEIRIZAÇÃO.\nConsulta-nos o cliente..."
    metadata = annotate(one_page(text), "p.docx")
    assert (metadata.document_type, metadata.court) == ("parecer", "interno")
    assert metadata.subject == "RESPONSABILIDADE SOLIDÁRIA. TERCEIRIZAÇÃO."


@pytest.mark.parametrize(
    ("header", "court"),
    [
        ("SUPREMO TRIBUNAL FEDERAL", "stf"),
        ("Superior Tribunal de Justiça", "stj"),
        ("TRIBUNAL SUPERIOR DO TRABALHO", "tst"),
        ("Tribunal Superior Eleitoral", "tse"),
        ("SUPERIOR TRIBUNAL MILITAR", "stm"),
        ("TRIBUNAL REGIONAL FEDERAL DA 3ª REGIÃO", "trf3"),
        ("Tribunal Regional Federal da Primeira Região", "trf1"),
        ("TRIBUNAL REGIONAL DO TRABALHO DA 15ª REGIÃO", "trt15"),
        ("Tribunal Regional Eleitoral de Minas Gerais", "tre_mg"),
        ("TRIBUNAL DE CONTAS DA UNIÃO", "tcu"),
        ("TRIBUNAL DE CONTAS DO ESTADO DE SÃO PAULO", "tce_sp"),
        ("CONSELHO ADMINISTRATIVO DE RECURSOS FISCAIS", "carf"),
        ("AGÊNCIA NACIONAL DE TELECOMUNICAÇÕES", "anatel"),
        ("TRIBUNAL DE JUSTIÇA DO ESTADO DO RIO DE JANEIRO", "tjrj"),
        ("Tribunal de Justiça do Estado do Pará", "tjpa"),
        ("TRIBUNAL DE JUSTIÇA DO ESTADO DO MATO GROSSO DO SUL", "tjms"),
        ("Tribunal de Justiça de Mato Grosso", "tjmt"),
        ("TRIBUNAL DE JUSTIÇA DO DISTRITO FEDERAL E DOS TERRITÓRIOS", "tjdft"),
        ("Poder Judiciário do Estado do Rio Grande do Sul", "tjrs"),
        ("MINISTÉRIO PÚBLICO DO ESTADO DE MINAS GERAIS", "mpmg"),
        ("MINISTÉRIO PÚBLICO FEDERAL", "mpf"),
        ("PROCURADORIA-GERAL DE JUSTIÇA DO ESTADO DO PARANÁ", "mppr"),
        ("PGJMG - Assessoria Jurídica", "mpmg"),
        ("Poder Judiciário\nTJ/SP - Comarca de Santos", "tjsp"),
        ("e-STJ Fl. 3", "stj"),
        ("TRT-2 - Secretaria", "trt2"),
        ("(DESEMBARGADOR CONVOCADO TJRS)", None),  # a judge's home court, not the document's
        ("Documento sem cabeçalho de tribunal", None),
    ],
)
def test_court_names_and_acronyms(header: str, court: str | None) -> None:
    assert annotate(one_page(f"{header}\nTexto do documento."), "x.pdf").court == court


@pytest.mark.parametrize("state", sorted(UF_BY_STATE))
def test_every_state_court(state: str) -> None:
    assert annotate(one_page(f"TRIBUNAL DE JUSTIÇA DO ESTADO DE {state}"), "x").court in (
        f"tj{UF_BY_STATE[state].lower()}",
        "tjdft",
    )


def test_cited_courts_further_down_are_not_taken() -> None:
    body = "Trata-se de nota interna. " * 100 + "Conforme o Superior Tribunal de Justiça e o TJSP, ..."
    assert annotate(one_page("Nota interna\n" + body), "x").court is None


# -------------------------------------------------------------------------------- merge


def test_merge_keeps_verified_fields_and_takes_the_rest() -> None:
    text = """PODER JUDICIÁRIO
TRIBUNAL DE JUSTIÇA DO ESTADO DO RIO DE JANEIRO
AGRAVO DE INSTRUMENTO Nº 0017387-33.2017.8.19.0000
ACÓRDÃO
Vistos, relatados e discutidos estes autos, acordam os Desembargadores da Décima Oitava Câmara Cível.
Rio de Janeiro, 07 de junho de 2017.
"""
    rules = annotate(one_page(text), "a.pdf")
    assert rules.sources["process_number"] == VERIFIED
    other = DocumentMetadata(
        title="(llm)",
        process_number="0017387-00.2017.8.19.0000",  # a misread: the checked number stays
        relator="Cláudio Dell'Orto",
        subject="Antecipação de tutela em ação anulatória de sentença arbitral",
        citations=["Lei 9.307/1996, art. 33"],
    )
    merged = merge(rules, other)
    assert merged.process_number == "0017387-33.2017.8.19.0000"
    assert (merged.relator, merged.sources["relator"]) == ("Cláudio Dell'Orto", "llm")
    assert merged.subject == other.subject
    assert merged.judging_body == "18ª Câmara Cível"  # the other extractor had nothing: rules stay
    assert merged.citations[-1] == "Lei 9.307/1996, art. 33"
    hinted = annotate(one_page(text), "a.pdf", MetadataHints(title="Meu título"))
    assert merge(hinted, other).title == "Meu título"  # hints are never overridden


TJ_CAPTION = """PODER JUDICIÁRIO DO ESTADO DO ACRE
Segunda Câmara Cível
Acórdão n. : 5.580
Classe : {cls}
Órgão : Segunda Câmara Cível
Relatora : Desª. Fulana de Tal Souza
APELAÇÃO CÍVEL. LOCAÇÃO. DESPEJO.
Vistos, relatados e discutidos estes autos, acordam os Desembargadores da Segunda Câmara Cível do Tribunal de
Justiça do Estado do Acre em negar provimento ao recurso.
Rio Branco, 27 de março de 2018.
Precedente: Apelação 0000001-00.2014.8.01.0001, Rel. Des. Beltrano
DJe: 26/05/2015
"""


@pytest.mark.parametrize(
    ("cls", "expected"),
    [
        ("Apelação n. 0715337-93.2014.8.01.0001", "Apelação"),
        ("AÇÃO DIRETA DE\nINCONSTITUCIONALIDADE", "Ação Direta de Inconstitucionalidade"),
        ("ADI Ação Direta de Inconstitucionalidade", "Ação Direta de Inconstitucionalidade"),
        ("Embargos de Declaração n.\n1002199-81.2017.8.01.0000/50000", "Embargos de Declaração"),
    ],
)
def test_a_classe_label_gives_the_class_alone(cls: str, expected: str) -> None:
    """The TJAC's and TJDFT's caption labels (LeNER-Br, ../shared/corpus): the citation read "Apelação N.
    0715337-93.2014.8.01.0001 0715337-93.2014.8.01.0001" and "Ação Direta de 0016947-70.2017.8.07.0000"."""
    metadata = annotate([Page(number=1, text=TJ_CAPTION.format(cls=cls))], "acordao.pdf")
    assert metadata.document_type == "acordao" and metadata.procedural_class == expected


def test_a_decision_is_not_published_before_it_is_judged() -> None:
    """A "DJe:" further down is a quoted precedent's: the TJDFT's 2018 acórdão was cited "DJe 18/04/2013"."""
    metadata = annotate([Page(number=1, text=TJ_CAPTION.format(cls="Apelação"))], "acordao.pdf")
    assert metadata.judgment_date == date(2018, 3, 27) and metadata.publication_date is None


def test_the_tst_names_its_case_in_its_own_form() -> None:
    """The TST runs its classes onto the CNJ number and drops the sequence's zeros ("TST-ED-RR-151-93.2010.5.09.0242"):
    no number was read, and the citation fell back to a heading (10 of LeNER-Br's 19 TST acórdãos)."""
    text = (
        "A C Ó R D Ã O\n(2ª Turma)\nEMBARGOS DE DECLARAÇÃO. ESCLARECIMENTOS.\nVistos, relatados e discutidos estes "
        "autos de Embargos de Declaração em Recurso de Revista n.° TST-ED-RR-151-93.2010.5.09.0242, em que é "
        "Embargante Fulana.\nACORDAM os Ministros da Segunda Turma do Tribunal Superior do Trabalho, por unanimidade, "
        "dar provimento aos embargos.\nBrasília, 2 de março de 2016."
    )
    metadata = annotate([Page(number=1, text=text)], "tst.pdf")
    assert (metadata.court, metadata.process_number) == ("tst", "ED-RR-151-93.2010.5.09.0242")
    assert metadata.sources["process_number"] == VERIFIED  # its check digits hold once the zeros are back


def test_a_tjmg_acordao_is_read_from_its_own_caption_formula_and_signature() -> None:
    """The TJMG writes "acorda, em Turma, a 2ª CÂMARA CÍVEL", numbers its cases its own way and signs "RELATOR.": 9
    LeNER-Br acórdãos (../shared/corpus) were cited by their ementa's heading or not at all."""
    text = (
        "EMENTA: AGRAVO DE INSTRUMENTO - FORNECIMENTO DE ÁGUA - RESTABELECIMENTO.\n\n"
        "AGRAVO DE INSTRUMENTO-CV Nº 1.0000.17.073359-6/001 - COMARCA DE CONTAGEM - AGRAVANTE(S): CONDOMÍNIO X - "
        "AGRAVADO(A)(S): COMPANHIA Y\n\nA C Ó R D Ã O\n\nVistos etc., acorda, em Turma, a 2ª CÂMARA CÍVEL do Tribunal "
        "de Justiça do Estado de Minas Gerais, na conformidade da ata, em DAR PROVIMENTO AO RECURSO.\n\n"
        "DES. FULANO DE TAL SOUZA\n\nRELATOR.\n\nV O T O\n\nTrata-se de agravo de instrumento."
    )
    metadata = annotate([Page(number=1, text=text)], "tjmg.pdf")
    assert (metadata.court, metadata.procedural_class, metadata.process_number) == (
        "tjmg",
        "Agravo de Instrumento",
        "1.0000.17.073359-6/001",
    )
    assert (metadata.relator, metadata.judging_body) == ("Fulano de Tal Souza", "2ª Câmara Cível")
