"""The extractor's logic on real files: the sample court decisions, and bad files made from them."""

import difflib
import io
import random
import re
import zipfile
from pathlib import Path

import docx
import pymupdf
import pytest
from docx.enum.section import WD_SECTION
from docx.enum.style import WD_STYLE_TYPE
from docx.enum.text import WD_BREAK

from precedente.services.extractor.logic import BadInput, detect_format, extract
from precedente.services.extractor.ocr import text_from_tesseract
from tests.helpers.pdfs import hand_made_pdf

SHARED = Path(__file__).resolve().parents[3].parent / "shared"
DOCS = SHARED / "docs"
NATIVE = DOCS / "stj_resp_1602076_sp_acordao.pdf"
SCAN = DOCS / "scanned" / "stj_resp_1433940_mg_scan.pdf"
SCAN_TRUTH = DOCS / "scanned" / "stj_resp_1433940_mg_scan.groundtruth.txt"


def words(text: str) -> list[str]:
    return re.findall(r"\w+", text.lower())


def pdf_pages(source: Path, first: int, last: int) -> pymupdf.Document:
    """A new PDF holding pages first..last (0-based, inclusive) of source."""
    out = pymupdf.open()
    with pymupdf.open(source) as src:
        out.insert_pdf(src, from_page=first, to_page=last)
    return out


def image_page(doc: pymupdf.Document, source: Path, index: int, dpi: int = 200) -> None:
    """Append page index of source to doc as a picture only: no text layer, like a scan."""
    with pymupdf.open(source) as src:
        page = src[index]
        pix = page.get_pixmap(dpi=dpi, colorspace=pymupdf.csGRAY)
        new = doc.new_page(width=page.rect.width, height=page.rect.height)
        new.insert_image(new.rect, pixmap=pix)


def bad(data: bytes, filename: str = "file.pdf", **kwargs) -> BadInput:
    with pytest.raises(BadInput) as caught:
        extract(data, filename, **kwargs)
    return caught.value


def test_shared_data_is_where_expected():
    assert (DOCS / "README.md").is_file()
    assert NATIVE.is_file() and SCAN.is_file()


# ---------------------------------------------------------------------------------------------
# PDFs that can be read
# ---------------------------------------------------------------------------------------------


def test_native_pdf_reads_the_text_layer_page_by_page():
    doc = extract(NATIVE.read_bytes(), NATIVE.name)

    assert [p.number for p in doc.pages] == list(range(1, 21))
    assert {p.method for p in doc.pages} == {"text"}
    assert {p.confidence for p in doc.pages} == {1.0}
    assert doc.confidence == 1.0
    assert "RECURSO ESPECIAL Nº 1.602.076 - SP" in doc.pages[0].text
    on = [p.number for p in doc.pages if "Cuida-se de recurso especial interposto por ODONTOLOGIA" in p.text]
    assert on == [3]
    # Line breaks of the text layer are kept.
    assert "RELATORA\n: MINISTRA NANCY ANDRIGHI" in doc.pages[2].text


def test_mixed_pdf_ocrs_only_the_image_page():
    pdf = pdf_pages(NATIVE, 2, 2)  # page 3 of the acórdão, with its text layer
    image_page(pdf, NATIVE, 2)  # the same page again, as a picture only
    assert pdf[1].get_text().strip() == ""

    doc = extract(pdf.tobytes(), "mixed.pdf")

    text_page, ocr_page = doc.pages
    assert (text_page.method, text_page.confidence) == ("text", 1.0)
    assert ocr_page.method == "ocr"
    assert ocr_page.confidence > 0.8
    for expected in ("ODONTOLOGIA", "NOROESTE", "NANCY ANDRIGHI", "franquia"):
        assert expected in ocr_page.text
    # OCR keeps lines: the header block is not run together into one line.
    lines = ocr_page.text.split("\n")
    assert len(lines) > 10
    assert any(line.startswith("RECURSO ESPECIAL Nº 1.602.076 - SP") for line in lines)
    assert any(line.startswith("RELATORA") and line.endswith("NANCY ANDRIGHI") for line in lines)
    # Most of what the text layer says on that page, OCR finds too.
    similarity = difflib.SequenceMatcher(None, words(text_page.text), words(ocr_page.text)).ratio()
    assert similarity > 0.9
    assert doc.weak_pages(0.8) == []


def test_scanned_pages_are_ocrd_in_parallel_close_to_the_ground_truth():
    pdf = pdf_pages(SCAN, 0, 1)
    assert all(not page.get_text().strip() for page in pdf)
    truth = SCAN_TRUTH.read_text(encoding="utf-8").split("\f")

    doc = extract(pdf.tobytes(), "scan.pdf", ocr_workers=2)

    assert [(p.number, p.method) for p in doc.pages] == [(1, "ocr"), (2, "ocr")]
    assert "RECURSO ESPECIAL Nº 1.433.940 - MG" in doc.pages[0].text
    assert "RELATÓRIO" in doc.pages[1].text
    for page, expected in zip(doc.pages, truth, strict=False):
        assert 0.8 < page.confidence <= 1.0
        ratio = difflib.SequenceMatcher(None, words(expected), words(page.text)).ratio()
        assert ratio > 0.85, (page.number, ratio)
    assert 0.8 < doc.confidence <= 1.0


def test_nearly_empty_text_layer_over_an_image_is_ocrd():
    """A scan with only a stamp ("fls. 12") in its text layer is still a scan."""
    pdf = pymupdf.open()
    image_page(pdf, NATIVE, 2, dpi=150)
    pdf[0].insert_text((20, 20), "fls. 12", fontsize=8)
    assert 0 < len(pdf[0].get_text().strip()) < 20

    doc = extract(pdf.tobytes(), "stamped.pdf", ocr_dpi=200)

    assert doc.pages[0].method == "ocr"
    assert "ODONTOLOGIA" in doc.pages[0].text


def test_blank_page_between_text_pages_is_not_sent_to_ocr():
    pdf = pdf_pages(NATIVE, 0, 0)
    pdf.new_page()
    pdf.insert_pdf(pymupdf.open(NATIVE), from_page=2, to_page=2)

    doc = extract(pdf.tobytes(), "with-blank.pdf")

    assert [(p.method, p.text) for p in doc.pages][1] == ("text", "")
    assert doc.confidence == 1.0


def test_text_from_tesseract_groups_lines_and_averages_word_confidence():
    data = {
        "block_num": [1, 1, 1, 1, 1, 1, 2, 2],
        "par_num": [1, 1, 1, 1, 1, 1, 1, 1],
        "line_num": [1, 1, 1, 2, 2, 2, 1, 1],
        "text": ["", "Recurso", "especial", "provido.", " ", "fim", "", "Outro"],
        "conf": [-1, 90, 80, 70, -1, 60, -1, 100],
    }
    text, confidence = text_from_tesseract(data)
    assert text == "Recurso especial\nprovido. fim\n\nOutro"
    assert confidence == pytest.approx((90 + 80 + 70 + 60 + 100) / 5 / 100)
    assert text_from_tesseract({"text": ["", " "], "conf": [-1, -1]}) == ("", 0.0)
    assert text_from_tesseract({}) == ("", 0.0)


# ---------------------------------------------------------------------------------------------
# DOCX
# ---------------------------------------------------------------------------------------------


def make_docx() -> bytes:
    document = docx.Document()
    document.add_heading("RECURSO ESPECIAL Nº 1.602.076 - SP", level=1)
    document.add_paragraph("Cuida-se de recurso especial interposto por ODONTOLOGIA NOROESTE LTDA.")
    table = document.add_table(rows=2, cols=2)
    table.cell(0, 0).text, table.cell(0, 1).text = "RECORRENTE", "ODONTOLOGIA NOROESTE LTDA"
    table.cell(1, 0).text, table.cell(1, 1).text = "RECORRIDO", "GOU - GRUPO ODONTOLOGICO"
    last = document.add_paragraph("Fim da primeira página.")
    last.add_run().add_break(WD_BREAK.PAGE)
    document.add_paragraph("VOTO")
    document.add_paragraph("A Ministra Relatora conhece do recurso.")
    buffer = io.BytesIO()
    document.save(buffer)
    return buffer.getvalue()


def test_docx_paragraphs_and_tables_in_order_split_on_page_breaks():
    data = make_docx()
    assert detect_format(data, "recurso.docx") == "docx"

    doc = extract(data, "recurso.docx")

    assert [(p.number, p.method, p.confidence) for p in doc.pages] == [(1, "docx", 1.0), (2, "docx", 1.0)]
    assert doc.pages[0].text.split("\n") == [
        "RECURSO ESPECIAL Nº 1.602.076 - SP",
        "Cuida-se de recurso especial interposto por ODONTOLOGIA NOROESTE LTDA.",
        "RECORRENTE | ODONTOLOGIA NOROESTE LTDA",
        "RECORRIDO | GOU - GRUPO ODONTOLOGICO",
        "Fim da primeira página.",
    ]
    assert doc.pages[1].text.split("\n") == ["VOTO", "A Ministra Relatora conhece do recurso."]


def test_docx_page_break_before_starts_a_page_and_a_single_page_docx_is_page_1():
    document = docx.Document()
    document.add_paragraph("Ementa.")
    voto = document.add_paragraph("Voto.")
    voto.paragraph_format.page_break_before = True
    buffer = io.BytesIO()
    document.save(buffer)

    doc = extract(buffer.getvalue(), "ementa.docx")
    assert [(p.number, p.text) for p in doc.pages] == [(1, "Ementa."), (2, "Voto.")]

    single = docx.Document()
    single.add_paragraph("Só uma página.")
    buffer = io.BytesIO()
    single.save(buffer)
    assert [(p.number, p.text) for p in extract(buffer.getvalue(), "x.docx").pages] == [(1, "Só uma página.")]


def test_docx_section_breaks_and_styles_with_page_break_before():
    """A new-page section starts a page, a continuous one does not; a style's break counts too."""
    document = docx.Document()
    document.add_paragraph("Ementa.")
    document.add_section(WD_SECTION.CONTINUOUS)
    document.add_paragraph("Acórdão.")
    document.add_section(WD_SECTION.NEW_PAGE)
    document.add_paragraph("Relatório.")
    chapter = document.styles.add_style("Capitulo", WD_STYLE_TYPE.PARAGRAPH)
    chapter.base_style = document.styles["Normal"]
    chapter.paragraph_format.page_break_before = True
    document.add_paragraph("Voto.", style="Capitulo")
    buffer = io.BytesIO()
    document.save(buffer)

    pages = extract(buffer.getvalue(), "secoes.docx").pages

    assert [words(p.text) for p in pages] == [["ementa", "acórdão"], ["relatório"], ["voto"]]


def test_docx_renamed_pdf_is_read_as_docx():
    assert detect_format(make_docx(), "disfarçado.pdf") == "docx"
    assert extract(make_docx(), "disfarçado.pdf").pages[0].method == "docx"
    assert detect_format(NATIVE.read_bytes(), "acordao.docx") == "pdf"


# ---------------------------------------------------------------------------------------------
# Bad inputs
# ---------------------------------------------------------------------------------------------


def test_empty_file_is_dead_lettered():
    err = bad(b"", "vazio.pdf")
    assert err.disposition == "deadletter"
    assert "empty (0 bytes)" in err.reason and "vazio.pdf" in err.reason


def test_pdf_cut_to_2kb_is_dead_lettered_as_damaged():
    # MuPDF opens it anyway: it "repairs" the xref and finds no pages.
    err = bad(NATIVE.read_bytes()[:2048], "cortado.pdf")
    assert err.disposition == "deadletter"
    assert "damaged or truncated" in err.reason and "re-export or re-scan" in err.reason
    assert "cortado.pdf" in err.reason


def test_pdf_cut_to_30_percent_is_dead_lettered_as_damaged():
    # MuPDF repairs it into one page with nothing on it: the page tree and text are gone.
    data = NATIVE.read_bytes()
    with pymupdf.open(stream=data[: len(data) * 3 // 10], filetype="pdf") as repaired:
        assert repaired.is_repaired and repaired.page_count == 1
    err = bad(data[: len(data) * 3 // 10], "cortado.pdf")
    assert err.disposition == "deadletter"
    assert "damaged or truncated" in err.reason and "came out blank" in err.reason


def test_pdf_missing_only_its_tail_is_repaired_and_read():
    # Cut inside the final xref/trailer: MuPDF rebuilds it and every page is still there.
    data = NATIVE.read_bytes()
    doc = extract(data[: len(data) * 99 // 100], "quase.pdf")
    assert len(doc.pages) == 20
    assert "Cuida-se de recurso especial" in doc.pages[2].text


def test_encrypted_pdf_goes_to_review():
    pdf = pdf_pages(NATIVE, 0, 1)
    data = pdf.tobytes(encryption=pymupdf.PDF_ENCRYPT_AES_256, user_pw="x", owner_pw="y")
    err = bad(data, "sigiloso.pdf")
    assert err.disposition == "review"
    assert "password-protected" in err.reason and "unencrypted copy" in err.reason


def test_pdf_with_owner_password_only_is_read():
    """Permissions without a user password do not stop reading; no person needs to intervene."""
    pdf = pdf_pages(NATIVE, 0, 0)
    data = pdf.tobytes(encryption=pymupdf.PDF_ENCRYPT_AES_256, owner_pw="y", permissions=0)
    assert "RECURSO ESPECIAL" in extract(data, "protegido.pdf").pages[0].text


def test_elf_executable_renamed_pdf_is_dead_lettered():
    err = bad(Path("/bin/ls").read_bytes(), "ls.pdf")
    assert err.disposition == "deadletter"
    assert "ELF executable" in err.reason and "ls.pdf" in err.reason


def test_zero_page_pdf_is_dead_lettered():
    well_formed = hand_made_pdf([b"<</Type/Catalog/Pages 2 0 R>>", b"<</Type/Pages/Kids[]/Count 0>>"])
    with pymupdf.open(stream=well_formed, filetype="pdf") as opened:
        assert (opened.page_count, opened.is_repaired) == (0, False)
    err = bad(well_formed, "vazio.pdf")
    assert err.disposition == "deadletter"
    assert "has no pages" in err.reason

    # Without an xref MuPDF has to repair it first, and still finds no page.
    no_xref = (
        b"%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj 2 0 obj<</Type/Pages/Kids[]/Count 0>>endobj\n"
        b"trailer<</Root 1 0 R>>\n%%EOF"
    )
    err = bad(no_xref, "vazio.pdf")
    assert err.disposition == "deadletter"
    assert "found no pages" in err.reason


def test_random_bytes_are_dead_lettered():
    data = random.Random(1234).randbytes(8192)
    err = bad(data, "ruido.pdf")
    assert err.disposition == "deadletter"
    assert "unrecognised binary data" in err.reason and "ruido.pdf" in err.reason


def test_plain_text_named_pdf_is_read_as_text():
    """Formats come from the content: a .pdf that is really plain text is read as text (test_formats.py)."""
    assert detect_format("Petição inicial em texto puro.\n".encode() * 50, "peticao.pdf") == "txt"


def test_zip_that_is_not_a_docx_is_dead_lettered():
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("autos/peticao.txt", "Petição inicial")
    err = bad(buffer.getvalue(), "autos.docx")
    assert err.disposition == "deadletter"
    assert "a ZIP archive that is not a DOCX" in err.reason


def test_truncated_docx_is_dead_lettered():
    data = make_docx()
    err = bad(data[: len(data) // 2], "recurso.docx")
    assert err.disposition == "deadletter"
    assert "damaged or truncated ZIP" in err.reason


def test_docx_with_broken_xml_is_dead_lettered():
    source = zipfile.ZipFile(io.BytesIO(make_docx()))
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for item in source.infolist():
            body = source.read(item)
            archive.writestr(item, body[: len(body) // 2] if item.filename == "word/document.xml" else body)
    err = bad(buffer.getvalue(), "recurso.docx")
    assert err.disposition == "deadletter"
    assert "cannot be opened" in err.reason and "recurso.docx" in err.reason


def test_more_pages_than_the_limit_go_to_review():
    err = bad(NATIVE.read_bytes(), "grande.pdf", max_pages=5)
    assert err.disposition == "review"
    assert "20 pages" in err.reason and "limit of 5" in err.reason


def test_pdf_without_any_text_goes_to_review():
    pdf = pymupdf.open()
    pdf.new_page()
    pdf.new_page()
    err = bad(pdf.tobytes(), "em-branco.pdf")
    assert err.disposition == "review"
    assert "no text could be extracted" in err.reason


def test_image_page_where_ocr_finds_nothing_gives_empty_text():
    pdf = pdf_pages(NATIVE, 0, 0)
    page = pdf.new_page()
    white = pymupdf.Pixmap(pymupdf.csGRAY, pymupdf.IRect(0, 0, 200, 300), False)
    white.clear_with(255)
    page.insert_image(page.rect, pixmap=white)

    doc = extract(pdf.tobytes(), "com-imagem-branca.pdf", ocr_dpi=72)

    assert (doc.pages[1].method, doc.pages[1].text, doc.pages[1].confidence) == ("ocr", "", 0.0)


def test_pdf_whose_page_tree_cannot_be_counted_is_dead_lettered_as_damaged():
    # This file cut to 2 KB opens, but MuPDF raises "Invalid number of pages" when asked to count.
    data = (SHARED / "docs" / "tjsp_sentenca_vara_empresarial_arbitragem.pdf").read_bytes()[:2048]
    err = bad(data, "sentenca_cortada.pdf")
    assert err.disposition == "deadletter"
    assert "damaged or truncated" in err.reason and "sentenca_cortada.pdf" in err.reason
