"""Annotator rules on the real sample PDFs (what each file really is, read from its text) and on
small synthetic documents for the types the samples lack."""

from datetime import date
from pathlib import Path

import pymupdf
import pytest

from services.annotator.logic import DOCUMENT_TYPES, UF_BY_STATE, annotate
from services.cleaner.logic import clean_pages
from shared.contracts import MetadataHints
from shared.payloads import DocumentMetadata, Page

SHARED = Path(__file__).resolve().parents[3].parent / "shared"
DOCS = SHARED / "docs"

# (file, type, court, date, title), checked against the texts:
# - STJ acórdãos: "Brasília (DF), 15 de setembro de 2016(Data do Julgamento)" and the class line.
# - TJRJ: "Rio de Janeiro, 07 de junho de 2017." closes the vote (signed 07/06/2017 too).
# - TJSP: "São Paulo, 07 de agosto de 2024." closes the sentence; e-SAJ "Classe - Assunto" header.
# - Parecer: "Belo Horizonte - MG, 21 de setembro de 2022." closes it (signatures are 20/10/2022).
# - Petição: "Rio de Janeiro, 13 de setembro de 2022."; author: Ministério Público do Estado do RJ.
EXPECTED = [
    ("stj_resp_1602076_sp_acordao.pdf", "acórdão", "STJ", date(2016, 9, 15), "REsp 1.602.076/SP"),
    ("stj_resp_1543564_sp_acordao.pdf", "acórdão", "STJ", date(2018, 9, 25), "REsp 1.543.564/SP"),
    ("stj_resp_1433940_mg_acordao.pdf", "acórdão", "STJ", date(2017, 9, 26), "REsp 1.433.940/MG"),
    ("stj_agint_aresp_2560760_se_acordao.pdf", "acórdão", "STJ", date(2025, 2, 26), "AgInt no AREsp 2.560.760/SE"),
    (
        "tjrj_agravo_instrumento_0017387-33.2017_acordao.pdf",
        "acórdão",
        "TJRJ",
        date(2017, 6, 7),
        "Agravo de Instrumento 0017387-33.2017.8.19.0000",
    ),
    (
        "tjsp_sentenca_vara_empresarial_arbitragem.pdf",
        "sentença",
        "TJSP",
        date(2024, 8, 7),
        "Cumprimento de sentença 1048106-30.2024.8.26.0100",
    ),
    (
        "parecer_pgjmg_procon_16-2022.pdf",
        "parecer",
        "MPMG",
        date(2022, 9, 21),
        "Parecer nº 16/2022 - PGJMG/PROCON-MG/SECP/ASJUP",
    ),
    (
        "mp_acao_civil_publica_peticao_inicial.pdf",
        "petição",
        "MPRJ",
        date(2022, 9, 13),
        "AÇÃO CIVIL PÚBLICA CONSUMERISTA com pedido de liminar",
    ),
]


def read_pages(name: str) -> list[Page]:
    path = DOCS / name
    if not path.exists():
        pytest.skip(f"sample document {path} not available")
    with pymupdf.open(path) as doc:
        return [Page(number=i + 1, text=p.get_text()) for i, p in enumerate(doc)]


def one_page(text: str) -> list[Page]:
    return [Page(number=1, text=text)]


# ----------------------------------------------------------------------------- real files


@pytest.mark.parametrize("cleaned", [True, False], ids=["cleaned", "raw"])
@pytest.mark.parametrize(("name", "document_type", "court", "document_date", "title"), EXPECTED)
def test_real_documents(
    name: str, document_type: str, court: str, document_date: date, title: str, cleaned: bool
) -> None:
    pages = read_pages(name)
    if cleaned:  # what the pipeline feeds the annotator
        pages = clean_pages(pages)
    assert annotate(pages, name) == DocumentMetadata(
        title=title, document_type=document_type, court=court, document_date=document_date
    )


def test_hints_win_over_guesses_on_a_real_document() -> None:
    name = "stj_resp_1602076_sp_acordao.pdf"
    hints = MetadataHints(title="Cláusula compromissória patológica", document_date=date(2016, 9, 30))
    metadata = annotate(clean_pages(read_pages(name)), name, hints)
    assert metadata.title == "Cláusula compromissória patológica"
    assert metadata.document_date == date(2016, 9, 30)
    assert (metadata.document_type, metadata.court) == ("acórdão", "STJ")  # not hinted: guessed


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

CLÁUSULA PRIMEIRA – DO OBJETO
O presente contrato tem por objeto a prestação de serviços jurídicos.

CLÁUSULA SEGUNDA – DOS HONORÁRIOS
Os honorários serão de R$ 10.000,00, vencíveis em 10/04/2023.

São Paulo, 1º de março de 2023.
"""


def test_email() -> None:
    metadata = annotate(one_page(EMAIL), "minuta.eml")
    assert metadata == DocumentMetadata(
        title="Minuta do contrato de locação - cliente XPTO",
        document_type="e-mail",
        court=None,  # it discusses the STJ; it does not come from it
        document_date=date(2022, 9, 13),
    )


def test_email_with_rfc_2822_date() -> None:
    text = "From: a@b.com\nTo: c@d.com\nSubject: Re: prazo\nDate: Tue, 13 Sep 2022 15:40:19 -0300\n\nOk."
    metadata = annotate(one_page(text), "re.eml")
    assert (metadata.document_type, metadata.title, metadata.document_date) == (
        "e-mail",
        "Re: prazo",
        date(2022, 9, 13),
    )


def test_contract() -> None:
    metadata = annotate(one_page(CONTRACT), "contrato_honorarios.docx")
    assert metadata == DocumentMetadata(
        title="CONTRATO DE PRESTAÇÃO DE SERVIÇOS ADVOCATÍCIOS",
        document_type="contrato",
        court=None,
        document_date=date(2023, 3, 1),  # the place-and-date line, "1º" included
    )


def test_all_hints_replace_all_guesses() -> None:
    hints = MetadataHints(title="T", document_type="parecer", court="STF", document_date=date(2020, 1, 2))
    assert annotate(one_page(EMAIL), "x.eml", hints) == DocumentMetadata(
        title="T", document_type="parecer", court="STF", document_date=date(2020, 1, 2)
    )


def test_empty_hints_change_nothing() -> None:
    assert annotate(one_page(CONTRACT), "c.docx", MetadataHints()) == annotate(one_page(CONTRACT), "c.docx")


def test_monocratic_decision() -> None:
    text = """AGRAVO EM RECURSO ESPECIAL Nº 2123456 - RJ (2022/0123456-7)
RELATOR : MINISTRO FULANO DE TAL
DECISÃO
Trata-se de agravo interposto contra decisão que inadmitiu recurso especial.
É o relatório. Decido.
Brasília, 03 de fevereiro de 2023.
"""
    assert annotate(one_page(text), "d.pdf") == DocumentMetadata(
        title="AREsp 2.123.456/RJ", document_type="decisão monocrática", court="STJ", document_date=date(2023, 2, 3)
    )


def test_despacho_skips_impossible_dates() -> None:
    text = """PODER JUDICIÁRIO
TRIBUNAL DE JUSTIÇA DO ESTADO DE MINAS GERAIS
Processo nº 5001234-56.2021.8.13.0024
DESPACHO
Intime-se a parte autora para manifestar-se no prazo de 15 dias.
Belo Horizonte, 31/02/2021.
Belo Horizonte, 10/03/2021.
"""
    assert annotate(one_page(text), "despacho.pdf") == DocumentMetadata(
        title="Processo 5001234-56.2021.8.13.0024",
        document_type="despacho",
        court="TJMG",
        document_date=date(2021, 3, 10),
    )


def test_sentenca_by_formula_and_cnj_number_court() -> None:
    text = """Processo 5004321-11.2020.4.04.7000
Vistos.
Trata-se de ação de cobrança. Ante o exposto, JULGO PROCEDENTE o pedido.
Curitiba, 5 de maio de 2021.
"""
    metadata = annotate(one_page(text), "s.pdf")
    assert (metadata.document_type, metadata.court, metadata.document_date) == ("sentença", "TRF4", date(2021, 5, 5))


def test_normative_act() -> None:
    text = "LEI Nº 13.129, DE 26 DE MAIO DE 2015.\nAltera a Lei nº 9.307, de 23 de setembro de 1996."
    metadata = annotate(one_page(text), "lei.pdf")
    assert metadata == DocumentMetadata(
        title="LEI Nº 13.129, DE 26 DE MAIO DE 2015.", document_type="ato normativo", document_date=date(2015, 5, 26)
    )


def test_date_falls_back_to_first_full_date() -> None:
    text = "Notas de reunião\nData de hoje: 99/99/2020; reunião marcada para 12/11/2021 e 13/11/2021."
    metadata = annotate(one_page(text), "notas.txt")
    assert (metadata.document_type, metadata.document_date, metadata.title) == (
        "outro",
        date(2021, 11, 12),
        "Notas de reunião",
    )


def test_title_falls_back_to_the_filename_stem() -> None:
    assert annotate([], "/uploads/minuta final.pdf").title == "minuta final"
    assert annotate(one_page("1\n2\n"), "arquivo.txt") == DocumentMetadata(title="arquivo")


def test_types_are_from_the_fixed_list() -> None:
    texts = [EMAIL, CONTRACT, "SÚMULA 83\nNão se conhece do recurso especial.", "OFÍCIO Nº 12/2023\nSenhor Diretor,"]
    types = [annotate(one_page(t), "x").document_type for t in texts]
    assert types == ["e-mail", "contrato", "súmula", "ato administrativo"]
    assert set(types) <= set(DOCUMENT_TYPES)


@pytest.mark.parametrize(
    ("header", "court"),
    [
        ("SUPREMO TRIBUNAL FEDERAL", "STF"),
        ("Superior Tribunal de Justiça", "STJ"),
        ("TRIBUNAL SUPERIOR DO TRABALHO", "TST"),
        ("Tribunal Superior Eleitoral", "TSE"),
        ("SUPERIOR TRIBUNAL MILITAR", "STM"),
        ("TRIBUNAL REGIONAL FEDERAL DA 3ª REGIÃO", "TRF3"),
        ("Tribunal Regional Federal da Primeira Região", "TRF1"),
        ("TRIBUNAL REGIONAL DO TRABALHO DA 15ª REGIÃO", "TRT15"),
        ("Tribunal Regional Eleitoral de Minas Gerais", "TRE-MG"),
        ("TRIBUNAL DE CONTAS DA UNIÃO", "TCU"),
        ("TRIBUNAL DE CONTAS DO ESTADO DE SÃO PAULO", "TCE-SP"),
        ("CONSELHO ADMINISTRATIVO DE RECURSOS FISCAIS", "CARF"),
        ("TRIBUNAL DE JUSTIÇA DO ESTADO DO RIO DE JANEIRO", "TJRJ"),
        ("Tribunal de Justiça do Estado do Pará", "TJPA"),
        ("TRIBUNAL DE JUSTIÇA DO ESTADO DO MATO GROSSO DO SUL", "TJMS"),
        ("Tribunal de Justiça de Mato Grosso", "TJMT"),
        ("TRIBUNAL DE JUSTIÇA DO DISTRITO FEDERAL E DOS TERRITÓRIOS", "TJDFT"),
        ("Poder Judiciário do Estado do Rio Grande do Sul", "TJRS"),
        ("MINISTÉRIO PÚBLICO DO ESTADO DE MINAS GERAIS", "MPMG"),
        ("MINISTÉRIO PÚBLICO FEDERAL", "MPF"),
        ("PROCURADORIA-GERAL DE JUSTIÇA DO ESTADO DO PARANÁ", "MPPR"),
        ("PGJMG - Assessoria Jurídica", "MPMG"),
        ("Poder Judiciário\nTJ/SP - Comarca de Santos", "TJSP"),
        ("e-STJ Fl. 3", "STJ"),
        ("TRT-2 - Secretaria", "TRT2"),
        ("(DESEMBARGADOR CONVOCADO TJRS)", None),  # a judge's home court, not the document's
        ("Documento sem cabeçalho de tribunal", None),
    ],
)
def test_court_names_and_acronyms(header: str, court: str | None) -> None:
    assert annotate(one_page(f"{header}\nTexto do documento."), "x.pdf").court == court


@pytest.mark.parametrize("state", sorted(UF_BY_STATE))
def test_every_state_court(state: str) -> None:
    assert annotate(one_page(f"TRIBUNAL DE JUSTIÇA DO ESTADO DE {state}"), "x").court in (
        f"TJ{UF_BY_STATE[state]}",
        "TJDFT",
    )


def test_cited_courts_further_down_are_not_taken() -> None:
    body = "Trata-se de nota interna. " * 100 + "Conforme o Superior Tribunal de Justiça e o TJSP, ..."
    assert annotate(one_page("Nota interna\n" + body), "x").court is None
