"""CNJ unified case numbers: check digits (ISO 7064 mod 97-10) and the court a number's J.TR segment names."""

import pytest

from precedente.shared.legal import process_numbers


def test_cnj_check_digits() -> None:
    assert process_numbers.is_valid("0017387-33.2017.8.19.0000")
    assert not process_numbers.is_valid("0017387-34.2017.8.19.0000")
    assert process_numbers.is_valid("00173873320178190000")
    assert process_numbers.check_digits("0017387", "2017", "8", "19", "0000") == "33"
    assert process_numbers.court_of("0017387-33.2017.8.19.0000") == "tjrj"
    assert process_numbers.court_of("5004321-11.2020.4.04.7000") == "trf4"
    assert process_numbers.court_of("0000001-00.2020.5.02.0001") == "trt2"
    assert process_numbers.court_of("0000001-00.2020.6.26.0001") == "tre_sp"
    assert process_numbers.court_of("0000001-00.2020.8.07.0001") == "tjdft"


def test_numbers_found_in_text_and_their_courts() -> None:
    text = "Autos 0017387-33.2017.8.19.0000 e 00173873320178190000; não 10017387-33.2017.8.19.0000."
    found = [process_numbers.format_number(m) for m in process_numbers.CNJ.finditer(text)]
    assert found == ["0017387-33.2017.8.19.0000"]
    bare = [process_numbers.format_number(m) for m in process_numbers.CNJ_DIGITS.finditer(text)]
    assert bare == ["0017387-33.2017.8.19.0000"]
    assert process_numbers.court_of("0000001-00.2020.3.00.0000") == "stj"
    assert process_numbers.court_of("0000001-00.2020.8.28.0001") is None  # no 28th state court
    assert process_numbers.court_of("não é um número") is None
    assert process_numbers.UF_BY_TR["26"] == "SP"


def own_number(text: str, document_type: str = "acordao") -> str | None:
    """The document's own case number as the annotator reads it (services/annotator/fields.py, process_number)."""
    from precedente.services.annotator.fields import process_number
    from precedente.shared.legal.document_text import DocumentText
    from precedente.shared.legal.titles import caption
    from precedente.shared.payloads import Page

    doc = DocumentText([Page(number=1, text=text)])
    return process_number(doc, document_type, caption(doc))[0]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "RECURSO ESPECIAL Nº 1.602.076 - SP (2016/0134010-1)\nRELATORA : MINISTRA NANCY ANDRIGHI",
            "REsp 1.602.076/SP",
        ),
        ("EDcl no RECURSO ESPECIAL Nº 1.234.567 - RJ (2019/0000000-0)", "EDcl no REsp 1.234.567/RJ"),
        ("AgInt nos EDcl no AGRAVO EM RECURSO ESPECIAL Nº 2560760 - SE", "AgInt nos EDcl no AREsp 2.560.760/SE"),
        ("HABEAS CORPUS Nº 598.051 - SP (2020/0176244-9)", "HC 598.051/SP"),
        ("AgRg no RECURSO EM HABEAS CORPUS Nº 133.000 - MG", "AgRg no RHC 133.000/MG"),
        # the STF writes no "Nº", spells the state out and abbreviates the recursos
        (
            "Ementa e Acórdão\n22/05/2019\nPLENÁRIO\nRECURSO EXTRAORDINÁRIO 657.718 MINAS GERAIS\nRELATOR",
            "RE 657.718/MG",
        ),
        ("PLENÁRIO\nEMB.DECL. NO RECURSO EXTRAORDINÁRIO 855.178 SERGIPE\nRELATOR", "ED no RE 855.178/SE"),
        (
            "SEGUNDOS EMB.DECL. NO RECURSO EXTRAORDINÁRIO 1.366.243 SANTA\nCATARINA\nRELATOR",
            "Segundos ED no RE 1.366.243/SC",
        ),
        ("AG.REG. NA AÇÃO DIRETA DE INCONSTITUCIONALIDADE 5.000 DISTRITO FEDERAL", "AgR na ADI 5.000/DF"),
        ("AÇÃO DIRETA DE INCONSTITUCIONALIDADE 6.341 DISTRITO FEDERAL\nRELATOR : MIN. MARCO AURÉLIO", "ADI 6.341/DF"),
        # state courts: the CNJ number of the caption
        ("AGRAVO DE INSTRUMENTO N° 0017387-33.2017.8.19.0000\nAGRAVANTE: X", "0017387-33.2017.8.19.0000"),
        # the EU court's case number
        ("ACÓRDÃO DO TRIBUNAL DE JUSTIÇA (Primeira Secção)\nNo processo C-40/08, que tem por objecto", "C-40/08"),
        ("JUDGMENT OF THE COURT (First Chamber)\nIn Case C-168/05,", "C-168/05"),
    ],
)
def test_own_case_number_golden(text: str, expected: str) -> None:
    assert own_number(text) == expected


@pytest.mark.parametrize(
    ("text", "document_type", "expected"),
    [
        (
            "[Identificação do processo] Nº 19.16.2470.0122952/2021-19/ 2022\nParecer nº 16/2022",
            "parecer",
            "19.16.2470.0122952/2021-19",
        ),
        ("TRIBUNAL DE CONTAS DA UNIÃO\nProcesso TC 012.345/2019-6\nAcórdão 1234/2019", "acordao", "TC 012.345/2019-6"),
        (
            "MINISTÉRIO DA ECONOMIA\nProcesso nº 10880.720000/2010-11\nRecurso Voluntário",
            "acordao",
            "10880.720000/2010-11",
        ),
        (
            "Processo SEI nº 0024488-93.2022.8.23.8000\nPORTARIA Nº 12",
            "ato_administrativo",
            "0024488-93.2022.8.23.8000",
        ),
    ],
)
def test_administrative_process_numbers(text: str, document_type: str, expected: str) -> None:
    assert own_number(text, document_type) == expected


def test_a_cited_case_is_not_the_documents_own() -> None:
    """A decision's body names the cases it reports; the caption opening it wins, a number inside a paragraph
    (the cleaner joins a paragraph into one long line) is never taken."""
    text = (
        "RECURSO ESPECIAL Nº 1.543.564 - SP (2015/0171807-9)\nRELATÓRIO\nO SENHOR MINISTRO MARCO AURÉLIO BELLIZZE:\n"
        "Por tal razão, Fischer América Comunicação Total S.A. promoveu medida cautelar inominada (Processo n. "
        "1039442-59.2014.8.26.0100), preparatória de ação anulatória da sentença parcial arbitral, perante a "
        "jurisdição estatal."
    )
    assert own_number(text) == "REsp 1.543.564/SP"
    assert own_number(text.split("\n", 1)[1]) is None


@pytest.mark.parametrize(
    ("text", "document_type"),
    [
        ("STJ – REsp 1.602.076/SP – Comentário por F.\nRECURSO ESPECIAL Nº 1.602.076 - SP", "doutrina"),
        ("Número 736\nPROCESSO REsp 1.918.287-MG, Rel. Min. X, julgado em 27/04/2022.", "jurisprudencia_compilada"),
        (
            "PROVIMENTO/CGJ N. 2, DE 6 DE JANEIRO DE 2023.\nCONSIDERANDO os termos do SEI n. 0024488-93.2022.8.23.8000",
            "ato_normativo",
        ),
    ],
)
def test_doctrine_compilations_and_acts_have_no_case_of_their_own(text: str, document_type: str) -> None:
    assert own_number(text, document_type) is None
