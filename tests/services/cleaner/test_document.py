"""Whole-document cleaning: running headers, footers, page numbers and stamps, on the real sample PDFs
(their text layers) first, then on small synthetic documents for the layouts the samples lack."""

import random
import re
import string
from datetime import date
from pathlib import Path

import pytest

from precedente.services.cleaner.layout import is_page_number, line_key
from precedente.services.cleaner.logic import CleanedDocument, clean_document, clean_pages
from precedente.shared.payloads import Page
from tests.helpers.samples import read_pages

SHARED = Path(__file__).resolve().parents[3].parent / "shared"
DOCS = SHARED / "docs"
STJ = "stj_resp_1602076_sp_acordao.pdf"
STJ_WATERMARK = "stj_resp_1433940_mg_acordao.pdf"
STJ_SIGNED = "stj_agint_aresp_2560760_se_acordao.pdf"
TJRJ = "tjrj_agravo_instrumento_0017387-33.2017_acordao.pdf"
TJSP = "tjsp_sentenca_vara_empresarial_arbitragem.pdf"
PARECER = "parecer_pgjmg_procon_16-2022.pdf"
PETICAO = "mp_acao_civil_publica_peticao_inicial.pdf"


@pytest.fixture(scope="module")
def docs() -> dict[str, CleanedDocument]:
    names = [STJ, STJ_WATERMARK, STJ_SIGNED, TJRJ, TJSP, PARECER, PETICAO]
    return {name: clean_document(read_pages(name)) for name in names}


def lines_of(doc: CleanedDocument) -> list[list[str]]:
    return [page.text.split("\n") for page in doc.pages]


def all_lines(doc: CleanedDocument) -> list[str]:
    return [line for page in lines_of(doc) for line in page]


# ------------------------------------------------------------------ running headers and footers


def test_stj_running_footer_and_page_numbers_leave_every_page(docs: dict[str, CleanedDocument]) -> None:
    doc = docs[STJ]
    raw = read_pages(STJ)
    assert all("Inteiro Teor do Acórdão - Site certificado" in p.text for p in raw)  # the footer is there
    for page in doc.pages:
        assert "Inteiro Teor do Acórdão" not in page.text, page.number
        assert not re.search(r"Página\s+\d+ de \d+", page.text), page.number
    assert doc.layout_lines == [2] * 20


def test_stj_watermark_header_leaves_every_page(docs: dict[str, CleanedDocument]) -> None:
    doc = docs[STJ_WATERMARK]
    assert all(p.text.split("\n")[0] == "Superior Tribunal de Justiça" for p in clean_pages_raw(STJ_WATERMARK))
    for page in doc.pages:
        assert "Superior Tribunal de Justiça" not in page.text.split("\n"), page.number
        assert "Site certificado" not in page.text
    assert doc.layout_lines == [3] * 9  # header, footer, page number


def clean_pages_raw(name: str) -> list[Page]:
    """The pages with the per-line normalisation only (what a reader sees, line by line)."""
    return [
        p.model_copy(update={"text": "\n".join(x.strip() for x in p.text.split("\n") if x.strip())})
        for p in read_pages(name)
    ]


def test_tjrj_running_header_and_folio_numbers_leave_every_page(docs: dict[str, CleanedDocument]) -> None:
    doc = docs[TJRJ]
    for page, lines in zip(doc.pages, lines_of(doc), strict=True):
        assert "Poder Judiciário do Estado do Rio de Janeiro" not in page.text, page.number
        assert "Décima Oitava Câmara Cível" not in lines, page.number  # the header line; the text names it too
        assert "0017387-33.2017.8.19.0000-ER" not in page.text, page.number
        assert not any(re.fullmatch(r"\d{1,4}", line) for line in lines), page.number  # "3" and "6777"
    assert doc.layout_lines == [5] * 7
    # the court is still named where the text names it
    assert "Desembargadores da Décima Oitava Câmara Cível do Tribunal de" in doc.pages[0].text


def test_tjsp_fls_stamps_header_and_lauda_footer_go(docs: dict[str, CleanedDocument]) -> None:
    doc = docs[TJSP]
    raw = read_pages(TJSP)
    assert all(re.search(r"^fls\. \d+", p.text, re.M) for p in raw)
    for page in doc.pages:
        assert not re.search(r"^fls\.? ?\d+$", page.text, re.M), page.number
        assert "TRIBUNAL DE JUSTIÇA DO ESTADO DE SÃO PAULO" not in page.text, page.number
        assert "PRACA DOUTOR JOAO MENDES" not in page.text, page.number
        assert "- lauda" not in page.text, page.number
    # the lauda footer sat inside a sentence: removing it rejoins the sentence
    assert "por meio de ação anulatória ou impugnação em cumprimento de sentença arbitral." in doc.pages[0].text
    assert doc.pages[-1].text == ""  # the last page holds nothing but the letterhead


def test_parecer_and_peticao_footers_headers_and_page_numbers_go(docs: dict[str, CleanedDocument]) -> None:
    parecer = docs[PARECER]
    assert not any("Parecer ASJUP 3698675" in line for line in all_lines(parecer))
    assert parecer.layout_lines == [1] * 17
    peticao = docs[PETICAO]
    assert not any("PROMOTORIA DE JUSTIÇA DE TUTELA COLETIVA" in line for line in all_lines(peticao))
    for page, lines in zip(peticao.pages, lines_of(peticao), strict=True):
        assert str(page.number) not in lines, page.number
    assert peticao.layout_lines == [2] * 25


# ----------------------------------------------------------------------------- what stays


def test_section_headings_stay(docs: dict[str, CleanedDocument]) -> None:
    stj = all_lines(docs[STJ])
    for heading in ("EMENTA", "ACÓRDÃO", "RELATÓRIO", "VOTO", "CERTIDÃO DE JULGAMENTO"):
        assert heading in stj, heading
    tjrj = all_lines(docs[TJRJ])
    assert "ACÓRDÃO" in tjrj and "VOTO DO RELATOR" in tjrj
    agint = all_lines(docs[STJ_SIGNED])  # the heading block repeats on 3 of 9 pages: below the bar
    assert agint.count("EMENTA") == 2 and "RELATÓRIO" in agint and "VOTO" in agint


def test_titles_printed_once_stay(docs: dict[str, CleanedDocument]) -> None:
    assert docs[TJSP].pages[0].text.startswith("SENTENÇA\nProcesso nº:")
    assert "Parecer nº 16/2022 - PGJMG/PROCON-MG/SECP/ASJUP" in lines_of(docs[PARECER])[0]
    assert "AÇÃO CIVIL PÚBLICA CONSUMERISTA com pedido de liminar" in docs[PETICAO].pages[0].text
    # the case caption opens each part of an STJ decision (3 of 20 pages): it stays where printed
    caption = "RECURSO ESPECIAL Nº 1.602.076 - SP (2016/0134010-1)"
    assert [p.number for p in docs[STJ].pages if p.text.startswith(caption)] == [1, 3, 6]


def test_whole_documents_keep_their_text(docs: dict[str, CleanedDocument]) -> None:
    for name, doc in docs.items():
        for page, removed in zip(doc.pages, doc.removed, strict=True):
            assert len(removed) <= 25, (name, page.number, removed)  # only layout lines and stamps
    tjrj = docs[TJRJ]
    assert "Vedado ao Poder Judiciário examinar o mérito da causa submetida à arbitragem." in tjrj.pages[0].text


def test_cleaning_a_cleaned_document_changes_nothing(docs: dict[str, CleanedDocument]) -> None:
    for name, doc in docs.items():
        again = clean_document(doc.pages)
        assert [p.text for p in again.pages] == [p.text for p in doc.pages], name
        assert sum(again.removed_lines) == 0, name


# -------------------------------------------------------------------------------- stamps


def test_signature_metadata_of_an_stj_decision(docs: dict[str, CleanedDocument]) -> None:
    doc = docs[STJ_SIGNED]
    assert doc.stamps.signers == ["CARLOS CINI MARCHIONATTI", "SISTEMA JUSTIÇA - SERVIÇOS AUTOMÁTICOS"]
    assert doc.stamps.signature_dates == [date(2025, 2, 26), date(2025, 2, 7), date(2025, 2, 25)]
    assert doc.stamps.verification_codes[:2] == ["VDA45869827", "01b296b4-5115-4194-bb4c-547c8c954f1b"]
    assert len(doc.stamps.verification_codes) == 6
    for page in doc.pages:
        assert "assinado eletronicamente" not in page.text, page.number
        assert "Signatário" not in page.text and "Código de Controle" not in page.text, page.number
    assert doc.stamp_lines == [3] * 9


def test_signature_metadata_of_sei_tjrj_and_icp_documents(docs: dict[str, CleanedDocument]) -> None:
    parecer = docs[PARECER]
    assert parecer.stamps.signers[0] == "CHRISTIANE VIEIRA SOARES PEDERSOLI" and len(parecer.stamps.signers) == 5
    assert parecer.stamps.signature_dates == [date(2022, 10, 20)]
    assert parecer.stamps.verification_codes == ["3698675", "4A22372F"]
    last = parecer.pages[-1].text
    assert "Documento assinado eletronicamente" not in last and "código CRC" not in last
    assert "PAULO FIRMEZA SOARES. 23/08/2021)" in last  # the footnote above the stamps stays

    tjrj = docs[TJRJ]
    assert tjrj.stamps.signers == ["CLAUDIO LUIS BRAGA DELL ORTO"]
    assert tjrj.stamps.signature_dates == [date(2017, 6, 7)]
    assert "Assinado em" not in tjrj.pages[0].text and "Local: GAB." not in tjrj.pages[0].text

    peticao = docs[PETICAO]
    assert peticao.stamps.signers == ["JULIO MACHADO TEIXEIRA COSTA"]
    assert peticao.stamps.signature_dates == [date(2022, 9, 13)]
    assert peticao.pages[-1].text.endswith("Julio Machado Teixeira Costa\nPromotor de Justiça\nMat. 2099")


ESAJ = """fls. 12
cumprimento do contrato.
Este documento é cópia do original, assinado digitalmente por LARISSA GASPAR TUNALA, liberado nos autos em
07/08/2024 às 15:20 . Para conferir o original, acesse o site https://esaj.tjsp.jus.br/pastadigital/pg/abrirConferenciaDocumento.do,
informe o processo 1048106-30.2024.8.26.0100 e código 1A2B3C4D.
"""

ESAJ_RELEASED = """Este documento foi liberado nos autos em 02/03/2023 às 10:11, é cópia do original assinado
digitalmente por FULANO DE TAL. Para conferir o original acesse o site https://esaj.tjsp.jus.br/esaj, informe o processo
1000000-00.2023.8.26.0100 e o código 9Z8Y7X.
A sentença segue."""

PJE = """Ante o exposto, julgo procedente o pedido.
Assinado eletronicamente por: MARIA DA SILVA - 12/03/2021 10:11:12
Número do documento: 21031210111200000000012345678
Num. 12345678 - Pág. 3"""


def test_esaj_pje_stamps_are_removed_and_read() -> None:
    doc = clean_document([Page(number=1, text=ESAJ)])
    assert doc.pages[0].text == "cumprimento do contrato."
    assert doc.stamps.signers == ["LARISSA GASPAR TUNALA"]
    assert doc.stamps.signature_dates == [date(2024, 8, 7)]
    assert doc.stamps.verification_codes == ["1A2B3C4D"]

    doc = clean_document([Page(number=1, text=ESAJ_RELEASED)])
    assert doc.pages[0].text == "A sentença segue."
    assert (doc.stamps.signers, doc.stamps.signature_dates) == (["FULANO DE TAL"], [date(2023, 3, 2)])
    assert doc.stamps.verification_codes == ["9Z8Y7X"]

    doc = clean_document([Page(number=3, text=PJE)])
    assert doc.pages[0].text == "Ante o exposto, julgo procedente o pedido."
    assert (doc.stamps.signers, doc.stamps.signature_dates) == (["MARIA DA SILVA"], [date(2021, 3, 12)])
    assert doc.stamps.verification_codes == ["21031210111200000000012345678"]


def test_the_stfs_signature_stamp_leaves_with_its_address_line() -> None:
    """Every page of an STF inteiro teor ends on the MP 2.200-2 stamp, whose second line ends on a password, not a full
    stop: it stayed in the text, and on the cards ("Embargos de http://www.stf.jus.br/portal/autenticacao/...")."""
    text = (
        "“Direito constitucional e tributário. Embargos de\n"
        "Documento assinado digitalmente conforme MP n° 2.200-2/2001 de 24/08/2001. O documento pode ser acessado "
        "pelo endereço\nhttp://www.stf.jus.br/portal/autenticacao/autenticarDocumento.asp sob o código "
        "5BD4-9ACC-ECF6-37B1 e senha E5CA-9D9E-AB7C-1F4D\n"
    )
    doc = clean_document([Page(number=1, text=text)])
    assert doc.pages[0].text == "“Direito constitucional e tributário. Embargos de"
    assert doc.stamps.verification_codes == ["5BD4-9ACC-ECF6-37B1"]


def test_a_stamp_without_its_end_takes_only_its_first_line() -> None:
    text = "Documento assinado eletronicamente por FULANO, em 01/02/2020\nsegue o texto do voto sem ponto\nE mais"
    doc = clean_document([Page(number=1, text=text)])
    assert doc.pages[0].text == "segue o texto do voto sem ponto\nE mais"
    assert doc.stamps.signers == ["FULANO"]


# ---------------------------------------------------------------------------- synthetic


BODIES = [
    "Trata-se de recurso especial.",
    "O tribunal de origem negou provimento.",
    "A cláusula compromissória é nula.",
    "Não há relação de consumo.",
    "Ante o exposto, dou provimento.",
    "É como voto.",
    "Custas pela recorrida.",
]


def synthetic(pages: int, header: str, footer: str) -> list[Page]:
    """Pages with a header and a footer around one sentence each (a different one on each page)."""
    return [
        Page(number=n, text="\n".join(x for x in (header.format(n=n), BODIES[n - 1], footer.format(n=n)) if x))
        for n in range(1, pages + 1)
    ]


@pytest.mark.parametrize(
    "footer", ["{n}", "- {n} -", "Página {n} de 20", "Pág. {n}", "fls. {n}", "{n}/20", "Num. 998877 - Pág. {n}"]
)
def test_page_number_forms_go(footer: str) -> None:
    doc = clean_document(synthetic(4, "ESCRITÓRIO MODELO ADVOGADOS", footer))
    assert [p.text for p in doc.pages] == BODIES[:4]


def test_page_numbers_go_even_from_a_two_page_document() -> None:
    pages = [Page(number=1, text="Primeira página.\n1"), Page(number=2, text="Página 2 de 2\nSegunda página.")]
    assert [p.text for p in clean_pages(pages)] == ["Primeira página.", "Segunda página."]


def test_numbers_that_are_not_page_numbers_stay() -> None:
    pages = [Page(number=1, text="O valor é de\n1500\nreais.")]  # one page: not a recurring line
    assert clean_pages(pages)[0].text == "O valor é de\n1500 reais."
    pages = [Page(number=n, text=f"Texto {n}.\n3") for n in (1, 2)]  # "3" on pages 1-2: not their number
    assert [p.text for p in clean_pages(pages)] == ["Texto 1.\n3", "Texto 2.\n3"]


def test_a_title_on_page_one_stays_and_the_running_header_goes() -> None:
    pages = synthetic(5, "TRIBUNAL DE JUSTIÇA DO ESTADO DE MINAS GERAIS", "Página {n} de 5")
    pages[0] = pages[0].model_copy(update={"text": pages[0].text.replace("\n", "\nPARECER JURÍDICO\n", 1)})
    doc = clean_document(pages)
    assert doc.pages[0].text == "PARECER JURÍDICO\nTrata-se de recurso especial."
    assert all("TRIBUNAL" not in p.text for p in doc.pages)


def test_a_line_on_fewer_than_half_of_the_pages_is_not_a_running_line() -> None:
    pages = synthetic(7, "", "")
    for n in (0, 1, 2):
        pages[n] = pages[n].model_copy(update={"text": "CABEÇALHO REPETIDO\n" + pages[n].text})
    assert [p.text.split("\n")[0] for p in clean_pages(pages)][:3] == ["CABEÇALHO REPETIDO"] * 3
    pages[3] = pages[3].model_copy(update={"text": "CABEÇALHO REPETIDO\n" + pages[3].text})  # 4 of 7
    assert not any("CABEÇALHO" in p.text for p in clean_pages(pages))


def test_a_journals_header_on_every_even_page_goes_though_it_is_on_fewer_than_half_of_the_pages() -> None:
    """Authors atop the even pages (the journal's title atop the odd ones): i1057's "C. SANTOS ET AL." on 23 of
    48 pages, one short of half, had stayed in the text and become a section. Here 3 of 7 pages."""
    pages = synthetic(7, "", "")
    for page in pages[1::2]:
        pages[page.number - 1] = page.model_copy(update={"text": f"C. SANTOS ET AL.\n{page.text}"})
    assert [p.text for p in clean_pages(pages)] == BODIES[:7]


def test_an_entrys_opening_line_at_the_edge_of_most_pages_stays_and_the_running_header_goes() -> None:
    """A compilation opens each entry with the same words ("Processo Disciplinar Nº 244168/2007 - por unanimidade",
    the OAB tribunal's ementário, i343): numbers masked, one key, at the edge of most pages, so 183 entries lost their
    opening line and their unit. It stands inside the pages too, which a running header never does."""
    rng = random.Random(3)

    def entry() -> str:
        return f"Processo Disciplinar Nº {rng.randint(200000, 350000)}/20{rng.randint(10, 14)} - por unanimidade"

    def body() -> str:
        subject = rng.choice(["Abandono de causa", "Prescrição", "Locupletamento", "Publicidade imoderada"])
        return f"EMENTA: {subject} ({rng.randint(1, 999)}).\nRelator {rng.choice(string.ascii_uppercase) * 6}."

    texts = [
        "OAB/RS - EMENTÁRIO 2014\n" + "\n\n".join(f"{entry()}\n{body()}" for _ in range(4)) + f"\n\n{entry()}"
        for _ in range(6)
    ]  # each page opens with an entry under its header and ends on the next entry's opening line
    cleaned = [p.text for p in clean_pages([Page(number=n + 1, text=t) for n, t in enumerate(texts)])]
    assert all("EMENTÁRIO" not in text for text in cleaned)
    assert [text.count("Processo Disciplinar Nº") for text in cleaned] == [5] * 6


def test_section_names_never_count_as_running_lines() -> None:
    pages = synthetic(4, "VOTO", "")
    assert [p.text for p in clean_pages(pages)] == [f"VOTO\n{body}" for body in BODIES[:4]]


def test_ocr_variants_of_a_running_header_are_grouped() -> None:
    headers = ["SUPERIOR TRIBUNAL DE JUSTIÇA", "E) SUPERIOR TRIBUNAL DE JUSTIÇA", "SUPERIOR TRIBUNAL DE JUST IÇA"]
    pages = [
        Page(number=n + 1, text=f"{h}\n{BODIES[n]}", method="ocr", confidence=0.9)
        for n, h in enumerate(headers + headers[:1])
    ]
    assert [p.text for p in clean_pages(pages)] == BODIES[:4]
    native = [p.model_copy(update={"method": "text"}) for p in pages]  # a text layer is compared exactly
    assert sum("SUPERIOR" in p.text for p in clean_pages(native)) == 4


def test_keys_and_page_number_patterns() -> None:
    assert line_key("Página  3 de 20") == line_key("página 14 de 20") == "página # de #"
    assert is_page_number("- 3 -", 7) and is_page_number("fls. 1234", 1) and is_page_number("Página 3 de 20", 3)
    assert is_page_number("3", 3) and not is_page_number("3", 4) and not is_page_number("Art. 3", 3)


def test_a_long_book_with_a_few_ocr_pages_loses_its_running_header_everywhere() -> None:
    """A 300-page book, three pages of it OCR'd: the OCR pages' garbled header is grouped with the printed one, so
    it goes from every page, and each page's own edge lines (each different) stay. Grouping by similarity compares
    every edge line with every distinct one before it: bench/stages.py times that on such a book."""
    rng = random.Random(7)
    ocr = {1, 138, 228}
    pages, own = [], []
    for n in range(1, 301):
        header = (
            "I ENCONTRO DE INTERNAC1ONALIZAÇAO DO C0NPEDI"
            if n in ocr
            else "I ENCONTRO DE INTERNACIONALIZAÇÃO DO CONPEDI"
        )
        lines = ["".join(rng.choice(string.ascii_lowercase) for _ in range(14)).capitalize() + "." for _ in range(3)]
        own.append(lines)
        method = "ocr" if n in ocr else "text"
        pages.append(Page(number=n, text="\n".join([header, *lines]), method=method, confidence=0.9))
    cleaned = clean_pages(pages)
    assert not any("ENCONTRO" in p.text for p in cleaned)
    assert [p.text.split("\n") for p in cleaned] == own
