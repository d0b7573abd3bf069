"""Formats beyond the plain PDF and DOCX: reading order, DOCX parts, LibreOffice, e-mail, text, HTML.

Every input is built here. LibreOffice conversions run only where soffice is installed (Debian
package libreoffice-writer-nogui); the "not installed" path is tested everywhere.
"""

import email.policy
import io
import re
import subprocess
import zipfile
from datetime import datetime
from email.message import EmailMessage as MimeMessage
from pathlib import Path

import docx
import pymupdf
import pytest
from docx.enum.section import WD_SECTION
from docx.enum.text import WD_BREAK
from docx.opc.constants import RELATIONSHIP_TYPE as RT
from docx.opc.packuri import PackURI
from docx.opc.part import Part
from docx.oxml import parse_xml

from precedente.services.extractor.logic import detect_format, email_attachments, extract
from precedente.services.extractor.office import find_soffice
from precedente.services.extractor.pdf_layout import page_text
from precedente.shared.errors import BadInput
from tests.helpers.hostile import make_ole
from tests.helpers.office import docx_bytes, small_docx

DOCS = Path(__file__).resolve().parents[3].parent / "shared" / "docs"
ARCHIVE = DOCS.parent / "archive"
SOFFICE = find_soffice()
# `make install` puts LibreOffice there (Debian libreoffice-writer-nogui); without it these tests fail.
needs_soffice = pytest.mark.usefixtures("soffice_installed")


@pytest.fixture
def soffice_installed() -> None:
    assert SOFFICE is not None, "LibreOffice (soffice) is not installed: run `make install`"


W_NS = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"


def bad(data: bytes, filename: str, **kwargs) -> BadInput:
    with pytest.raises(BadInput) as caught:
        extract(data, filename, **kwargs)
    return caught.value


# ---------------------------------------------------------------------------------------------
# PDF reading order
# ---------------------------------------------------------------------------------------------

LEFT = " ".join(f"Esquerda{i}: a responsabilidade solidária do tomador de serviços." for i in range(10))
RIGHT = " ".join(f"Direita{i}: a obrigação conjunta do prestador perante terceiros." for i in range(10))


def two_column_pdf() -> bytes:
    """Page 1: a title across both columns, the right column drawn first, a centred page number.
    Page 2: both columns drawn line by line across the page, as some generators do."""
    doc = pymupdf.open()
    page = doc.new_page()
    width = page.rect.width
    page.insert_text((72, 60), "ACÓRDÃO DA TERCEIRA TURMA SOBRE RESPONSABILIDADE SOLIDÁRIA", fontsize=11)
    assert page.insert_textbox(pymupdf.Rect(312, 100, width - 72, 700), RIGHT, fontsize=10) > 0
    assert page.insert_textbox(pymupdf.Rect(72, 100, 292, 700), LEFT, fontsize=10) > 0
    page.insert_text((300, 760), "7", fontsize=9)
    page = doc.new_page()
    for i in range(25):
        page.insert_text((72, 100 + 14 * i), f"Linha {i} da coluna esquerda do voto", fontsize=10)
        page.insert_text((312, 100 + 14 * i), f"Linha {i} da coluna direita do voto", fontsize=10)
    return doc.tobytes()


def test_two_column_pdf_reads_the_left_column_entirely_before_the_right():
    data = two_column_pdf()
    with pymupdf.open(stream=data, filetype="pdf") as raw:
        assert raw[0].get_text().index("Direita0") < raw[0].get_text().index("Esquerda0")  # drawn right first

    first, second = extract(data, "duas-colunas.pdf").pages

    text = first.text
    assert text.startswith("ACÓRDÃO DA TERCEIRA TURMA")
    last_left = max(m.end() for m in re.finditer(r"Esquerda\d", text))
    first_right = min(m.start() for m in re.finditer(r"Direita\d", text))
    assert last_left < first_right
    assert re.sub(r"\s+", " ", text).count("Esquerda9: a responsabilidade solidária do tomador de serviços.") == 1
    assert text.rstrip().endswith("7")  # the page number is not wedged between the columns
    lines = second.text.splitlines()
    assert lines[:25] == [f"Linha {i} da coluna esquerda do voto" for i in range(25)]
    assert lines[25:] == [f"Linha {i} da coluna direita do voto" for i in range(25)]


def test_single_column_court_documents_keep_mupdfs_words_in_their_order():
    """Court documents read as MuPDF reads them, word for word; only a justified line MuPDF cut into pieces is one line
    again (the next test)."""
    pdfs = sorted(DOCS.glob("*.pdf"))
    assert len(pdfs) >= 5
    joined = 0
    for path in pdfs:
        with pymupdf.open(path) as doc:
            for page in doc:
                text, plain = page_text(page), page.get_text()
                assert text.split() == plain.split(), (path.name, page.number + 1)
                joined += text != plain
    assert joined > 0


def test_a_justified_line_cut_into_pieces_is_one_line_again():
    """RE 855.178 ED (i278): stretched to the margin, the ementa's heading leaves more than MuPDF's split between its
    words, which came out one a line ("PROCEDENTE." / " " / "POSSIBILIDADE." / ...) and the cleaner made each a
    paragraph of the ementa. The caption's labels and values, 87 points apart on one baseline, stay apart."""
    with pymupdf.open(ARCHIVE / "i278.pdf") as doc:
        text = page_text(doc[0])
    assert "\nPROCEDENTE. POSSIBILIDADE. RESPONSABILIDADE DE \nSOLIDÁRIA NAS DEMANDAS" in text
    assert "\nRELATOR\n: MIN. LUIZ FUX\n" in text


def test_a_line_drawn_again_over_itself_is_read_once_and_hidden_type_not_at_all() -> None:
    """The STF's inteiro teor draws every page twice (i277: 5,153 lines, 2,450 of them again in the same place, so a
    passage repeated itself and the second copy's running header "RE 1366243 ED-SEGUNDOS / SC" sat mid-page); some
    articles draw a title twice a point apart as a fake bold (i1060). A reader sees each line once, and no 1-point
    label (the STF's "Voto - MIN. GILMAR MENDES", which ran into passages mid-sentence)."""
    page = pymupdf.open().new_page()
    page.insert_text((72, 60), "LEGAL APPROACHES TO LIABILITY", fontsize=16)
    page.insert_text((73, 60), "LEGAL APPROACHES TO LIABILITY", fontsize=16)  # fake bold
    body = [f"Linha {i} do voto sobre a coisa julgada tributária." for i in range(8)]
    for _ in range(2):  # the page drawn twice
        page.insert_text((114, 90), "RE 1366243 ED-SEGUNDOS / SC", fontsize=13)
        for i, line in enumerate(body):
            page.insert_text((72, 120 + 16 * i), line, fontsize=12)
    page.insert_text((72, 300), "Linha 0 do voto sobre a coisa julgada tributária.", fontsize=12)  # said again below
    page.insert_text((36, 36), "Voto - MIN. GILMAR MENDES", fontsize=1, color=(1, 1, 1))
    assert page_text(page).splitlines() == [
        "LEGAL APPROACHES TO LIABILITY",
        "RE 1366243 ED-SEGUNDOS / SC",
        *body,
        body[0],
    ]

    with pymupdf.open(ARCHIVE / "i277.pdf") as doc:
        lines = page_text(doc[32]).splitlines()
    assert lines.count("RE 1366243 ED-SEGUNDOS / SC ") == 1
    assert sum("Caso em exame 1. Embargos de declaração" in line for line in lines) == 1
    assert "Voto - MIN. GILMAR MENDES" not in lines  # the page's hidden label, in 1-point white type


def test_a_part_s_hidden_name_opens_the_page_where_the_part_begins() -> None:
    """The STF names each page's part in 1-point white type; the extractor writes the name once, as the first line of
    the page where it changes (sections.py reads it there), and never mid-page. Longer hidden text is no name."""
    doc = pymupdf.open()
    for label, body in [
        ("Relatório", "O recorrente narra."),
        ("Relatório", "E prossegue."),
        ("Debate", "Peço a palavra."),
    ]:
        page = doc.new_page()
        page.insert_text((36, 36), label, fontsize=1, color=(1, 1, 1))
        page.insert_text((72, 100), body, fontsize=12)
    page = doc.new_page()
    page.insert_text((36, 36), "texto oculto " * 10, fontsize=1, color=(1, 1, 1))
    page.insert_text((72, 100), "Sem nome.", fontsize=12)
    texts = [p.text.splitlines() for p in extract(doc.tobytes(), "partes.pdf").pages]
    assert texts == [
        ["Relatório", "O recorrente narra."],
        ["E prossegue."],
        ["Debate", "Peço a palavra."],
        ["Sem nome."],
    ]


SIDE = ["Trabalho do Tribunal Regional", "do Trabalho da Nona Região, e", "Mestre em Direito Empresarial", "e mais."]
"""A side column's justified lines (in Courier: as wide as they are long), all but the last ending on its edge."""
MAIN = [f"Linha {i} do sumário e da introdução, que corre pela coluna" if i % 4 else f"Fim {i}." for i in range(16)]


def _widths(texts: list[str]) -> dict[str, float]:
    """Each text's width as MuPDF reads its line back (the box a column's edge is measured from)."""
    page = pymupdf.open().new_page()
    for i, text in enumerate(texts):
        page.insert_text((10, 20 + 14 * i), text, fontsize=10, fontname="cour")
    lines = [line for block in page.get_text("dict")["blocks"] for line in block.get("lines", ())]
    return {"".join(s["text"] for s in line["spans"]): line["bbox"][2] - line["bbox"][0] for line in lines}


def test_a_short_word_flush_with_a_side_column_s_edge_stays_in_that_column():
    """A narrow side column beside the text (an article's author note), drawn after it, its justified lines split
    into words: the last word of a line ends on the column's edge, beside the gutter. It is that column's word, not
    a line across the page that cuts both columns into bands (which read "Zaina" / "Fim 0." / ... / "é")."""
    width = _widths([*SIDE, "é", "do"])
    edge = 52 + width[SIDE[0]]
    page = pymupdf.open().new_page()
    for i, line in enumerate(MAIN):  # the text's column, drawn first
        page.insert_text((edge + 18, 232 + 14 * i), line, fontsize=10)
    for x, word in [(52, "Ana"), (88, "Carolina"), (146, "Zaina"), (edge - width["é"], "é")]:
        page.insert_text((x, 260), word, fontsize=10, fontname="cour")
    page.insert_text((52, 274), "Desembargadora", fontsize=10, fontname="cour")
    page.insert_text((edge - width["do"], 274), "do", fontsize=10, fontname="cour")
    for i, line in enumerate(SIDE):
        page.insert_text((52, 288 + 14 * i), line, fontsize=10, fontname="cour")

    lines = page_text(page).splitlines()
    # "Carolina" and "Zaina" are 10 points apart, a type size: one line's pieces (the next test); the rest further
    assert lines == ["Ana", "Carolina Zaina", "é", "Desembargadora", "do", *SIDE, *MAIN]


def test_label_value_header_is_not_taken_for_two_columns():
    doc = pymupdf.open()
    page = doc.new_page()
    for i, (label, value) in enumerate(
        [
            ("RELATORA", ": MINISTRA NANCY ANDRIGHI"),
            ("RECORRENTE", ": ODONTOLOGIA NOROESTE LTDA"),
            ("ADVOGADOS", ": FULANO DE TAL E OUTRO(S)"),
            ("RECORRIDO", ": GOU - GRUPO ODONTOLOGICO UNIFICADO"),
            ("ADVOGADO", ": BELTRANO DA SILVA"),
        ]  # fmt: skip
    ):
        page.insert_text((72, 100 + 14 * i), label, fontsize=10)
        page.insert_text((180, 100 + 14 * i), value, fontsize=10)
    assert page_text(page) == page.get_text()
    assert "RELATORA\n: MINISTRA NANCY ANDRIGHI\n" in page_text(page)


def test_ruled_table_in_a_pdf_comes_out_one_row_per_line():
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((72, 80), "Partes do processo:", fontsize=10)
    rows = [("Parte", "Nome", "Polo"), ("RECORRENTE", "ODONTOLOGIA NOROESTE LTDA", "ativo"),
            ("RECORRIDO", "GOU GRUPO ODONTOLOGICO", "passivo")]  # fmt: skip
    xs, top = [72, 200, 430, 520], 100
    for r, row in enumerate(rows):
        for c, value in enumerate(row):
            page.insert_text((xs[c] + 4, top + 20 * r + 14), value, fontsize=9)
    for r in range(len(rows) + 1):
        page.draw_line((xs[0], top + 20 * r), (xs[-1], top + 20 * r))
    for x in xs:
        page.draw_line((x, top), (x, top + 20 * len(rows)))
    page.insert_text((72, 200), "Texto depois da tabela.", fontsize=10)

    text = extract(doc.tobytes(), "tabela.pdf").pages[0].text

    assert text.splitlines() == [
        "Partes do processo:",
        "Parte | Nome | Polo",
        "RECORRENTE | ODONTOLOGIA NOROESTE LTDA | ativo",
        "RECORRIDO | GOU GRUPO ODONTOLOGICO | passivo",
        "Texto depois da tabela.",
    ]


# ---------------------------------------------------------------------------------------------
# DOCX: headers, footers, notes, comments
# ---------------------------------------------------------------------------------------------


def _add_notes_part(document: docx.document.Document, kind: str, notes: dict[int, str]) -> None:
    """A footnotes.xml or endnotes.xml part, as Word writes it (python-docx has no API for notes)."""
    separators = "".join(
        f'<w:{kind} w:type="{t}" w:id="{i}"><w:p><w:r><w:separator/></w:r></w:p></w:{kind}>'
        for i, t in ((-1, "separator"), (0, "continuationSeparator"))
    )
    bodies = "".join(
        f'<w:{kind} w:id="{i}"><w:p><w:r><w:{kind}Ref/></w:r><w:r><w:t xml:space="preserve"> {text}</w:t></w:r>'
        f"</w:p></w:{kind}>"
        for i, text in notes.items()
    )
    xml = f'<w:{kind}s xmlns:w="{W_NS}">{separators}{bodies}</w:{kind}s>'.encode()
    content_type = f"application/vnd.openxmlformats-officedocument.wordprocessingml.{kind}s+xml"
    part = Part(PackURI(f"/word/{kind}s.xml"), content_type, xml, document.part.package)
    document.part.relate_to(part, RT.FOOTNOTES if kind == "footnote" else RT.ENDNOTES)


def _note_reference(paragraph: docx.text.paragraph.Paragraph, kind: str, note_id: int) -> None:
    paragraph._p.append(parse_xml(f'<w:r xmlns:w="{W_NS}"><w:{kind}Reference w:id="{note_id}"/></w:r>'))


def test_docx_headers_footers_once_footnotes_on_their_page_endnotes_at_the_end_no_comments():
    document = docx.Document()
    section = document.sections[0]
    section.header.paragraphs[0].text = "ESCRITÓRIO SILVA & SOUZA ADVOGADOS — Parecer nº 12/2023"
    section.footer.paragraphs[0].text = "Rua Direita, 100 — São Paulo"
    first = document.add_paragraph("A responsabilidade é solidária")
    _note_reference(first, "footnote", 1)
    first.add_run(" entre tomador e prestador.")
    commented = document.add_paragraph("Trecho comentado pelo revisor.")
    document.add_comment(commented.runs, text="COMENTÁRIO INTERNO: rever antes de enviar", author="Revisor")
    commented.add_run().add_break(WD_BREAK.PAGE)
    second = document.add_paragraph("Na segunda página, outra nota")
    _note_reference(second, "footnote", 2)
    _note_reference(second, "endnote", 1)
    document.add_section(WD_SECTION.NEW_PAGE)  # the new section inherits (links to) the same header
    document.add_paragraph("Conclusão.")
    _add_notes_part(document, "footnote", {1: "Art. 942 do Código Civil.", 2: "REsp 1.602.076/SP."})
    _add_notes_part(document, "endnote", {1: "Nota final do parecer."})

    pages = extract(docx_bytes(document), "parecer.docx").pages

    assert [p.text.splitlines() for p in pages] == [
        [
            "ESCRITÓRIO SILVA & SOUZA ADVOGADOS — Parecer nº 12/2023",
            "A responsabilidade é solidária[1] entre tomador e prestador.",
            "Trecho comentado pelo revisor.",
            "[1] Art. 942 do Código Civil.",
        ],
        ["Na segunda página, outra nota[2][i]", "[2] REsp 1.602.076/SP."],
        ["Conclusão.", "[i] Nota final do parecer.", "Rua Direita, 100 — São Paulo"],
    ]
    assert all("COMENTÁRIO" not in p.text for p in pages)


def test_distinct_headers_of_several_sections_each_appear_once():
    document = docx.Document()
    document.sections[0].header.paragraphs[0].text = "Cabeçalho A"
    document.add_paragraph("Seção um.")
    new = document.add_section(WD_SECTION.NEW_PAGE)
    new.header.is_linked_to_previous = False
    new.header.paragraphs[0].text = "Cabeçalho B"
    document.add_paragraph("Seção dois.")
    new = document.add_section(WD_SECTION.NEW_PAGE)
    new.header.is_linked_to_previous = False
    new.header.paragraphs[0].text = "Cabeçalho A"  # same text, its own part: still written once

    text = "\n".join(p.text for p in extract(docx_bytes(document), "secoes.docx").pages)

    assert text.count("Cabeçalho A") == 1 and text.count("Cabeçalho B") == 1
    assert text.startswith("Cabeçalho A\nCabeçalho B\nSeção um.")


# ---------------------------------------------------------------------------------------------
# DOC, ODT, RTF through LibreOffice
# ---------------------------------------------------------------------------------------------


def hand_made_odt(encrypted: bool = False) -> bytes:
    content = (
        '<office:document-content xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" '
        'xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" office:version="1.2">'
        '<office:body><office:text><text:h text:outline-level="1">PARECER Nº 7/2022</text:h>'
        "<text:p>A obrigação conjunta do tomador e do prestador de serviços.</text:p>"
        "</office:text></office:body></office:document-content>"
    )
    encryption = '<manifest:encryption-data manifest:checksum-type="SHA1/1K"/>' if encrypted else ""
    manifest = (
        '<manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0" manifest:version="1.2">'
        '<manifest:file-entry manifest:full-path="/" manifest:media-type="application/vnd.oasis.opendocument.text"/>'
        f'<manifest:file-entry manifest:full-path="content.xml" manifest:media-type="text/xml">{encryption}'
        "</manifest:file-entry></manifest:manifest>"
    )
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("mimetype", "application/vnd.oasis.opendocument.text", zipfile.ZIP_STORED)
        archive.writestr("META-INF/manifest.xml", manifest, zipfile.ZIP_DEFLATED)
        archive.writestr("content.xml", content, zipfile.ZIP_DEFLATED)
    return buffer.getvalue()


RTF = rb"{\rtf1\ansi\ansicpg1252\deff0{\fonttbl{\f0 Times New Roman;}}\f0\fs24 Contrato de presta\'e7\'e3o de servi\'e7os.\par Cl\'e1usula primeira: do objeto.\par}"  # noqa: E501


def fake_doc(flags: int = 0) -> bytes:
    """An OLE2 file with a WordDocument stream whose FIB says what flags say (0x0100: encrypted)."""
    fib = (0xA5EC).to_bytes(2, "little") + bytes(8) + flags.to_bytes(2, "little")
    return make_ole({"WordDocument": fib + bytes(6000), "1Table": bytes(4096)})


def test_doc_odt_and_rtf_are_recognised_by_content():
    assert detect_format(fake_doc(), "x.pdf") == "doc"
    assert detect_format(hand_made_odt(), "x.docx") == "odt"
    assert detect_format(RTF, "x.txt") == "rtf"


@pytest.mark.parametrize(("data", "filename"), [(fake_doc(), "antigo.doc"), (hand_made_odt(), "parecer.odt")])
def test_without_libreoffice_doc_and_odt_go_to_review_saying_what_to_install(data: bytes, filename: str):
    err = bad(data, filename, soffice="/nonexistent/soffice")
    assert (err.disposition, err.code) == ("review", "converter_missing")
    assert err.reason.startswith("unsupported here")
    assert "install LibreOffice (Debian package libreoffice-writer-nogui) or save the file as DOCX or PDF" in err.reason


def test_password_protected_doc_and_odt_go_to_review():
    for data, name in [(fake_doc(flags=0x0100), "sigiloso.doc"), (hand_made_odt(encrypted=True), "sigiloso.odt")]:
        err = bad(data, name)
        assert (err.disposition, err.code) == ("review", "password_protected")
        assert "password-protected" in err.reason


def test_outlook_msg_and_legacy_excel_are_dead_lettered_saying_what_they_are():
    msg = bad(make_ole({"__substg1.0_0037001F": "Assunto".encode("utf-16-le")}), "mensagem.pdf")
    assert msg.disposition == "deadletter" and "an Outlook message (.msg)" in msg.reason
    xls = bad(make_ole({"Workbook": bytes(5000)}), "planilha.doc")
    assert xls.disposition == "deadletter" and "legacy Excel spreadsheet" in xls.reason


@needs_soffice
def test_legacy_doc_is_converted_by_libreoffice(tmp_path: Path):
    document = docx.Document()
    document.add_paragraph("RECURSO ESPECIAL Nº 1.602.076 - SP")
    document.add_paragraph("Cuida-se de recurso especial.").add_run().add_break(WD_BREAK.PAGE)
    document.add_paragraph("VOTO")
    (tmp_path / "in.docx").write_bytes(docx_bytes(document))
    subprocess.run(
        [str(SOFFICE), "--headless", f"-env:UserInstallation={(tmp_path / 'p').as_uri()}", "--convert-to", "doc",
         "--outdir", str(tmp_path), str(tmp_path / "in.docx")],
        check=True, capture_output=True, timeout=120,
    )  # fmt: skip
    data = (tmp_path / "in.doc").read_bytes()
    assert detect_format(data, "recurso.docx") == "doc"

    pages = extract(data, "recurso.docx").pages

    assert [p.text.splitlines() for p in pages] == [
        ["RECURSO ESPECIAL Nº 1.602.076 - SP", "Cuida-se de recurso especial."],
        ["VOTO"],
    ]


@needs_soffice
def test_odt_and_rtf_are_converted_by_libreoffice():
    odt = extract(hand_made_odt(), "parecer.odt").pages
    assert odt[0].text.splitlines() == [
        "PARECER Nº 7/2022",
        "A obrigação conjunta do tomador e do prestador de serviços.",
    ]
    rtf = extract(RTF, "contrato.rtf").pages
    assert rtf[0].text.splitlines() == ["Contrato de prestação de serviços.", "Cláusula primeira: do objeto."]


@needs_soffice
def test_what_libreoffice_cannot_read_is_dead_lettered_and_what_it_finds_empty_goes_to_review():
    source = zipfile.ZipFile(io.BytesIO(hand_made_odt()))
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for item in source.infolist():
            body = source.read(item)
            archive.writestr(item, body[:50] if item.filename == "content.xml" else body)
    err = bad(buffer.getvalue(), "quebrado.odt")
    assert (err.disposition, err.code) == ("deadletter", "damaged")
    assert "LibreOffice could not read it" in err.reason and "source file could not be loaded" in err.reason

    empty = bad(fake_doc(), "vazio.doc")  # a FIB and nothing else: LibreOffice opens it, there is no text
    assert (empty.disposition, empty.code) == ("review", "no_text")


# ---------------------------------------------------------------------------------------------
# E-mail
# ---------------------------------------------------------------------------------------------

THREAD_PAGE_1 = """Ana Souza
De: Ana Souza <ana.souza@escritorio.com.br>
Enviado em: segunda-feira, 3 de maio de 2021 10:15
Para: Bruno Lima <bruno@cliente.com.br>; Carla Dias
<carla@cliente.com.br>
Cc: Diego Reis <diego@escritorio.com.br>
Assunto: RE: Contrato de prestação de serviços

Bruno, segue a minuta revisada com a cláusula de responsabilidade solidária.
"""
THREAD_PAGE_2 = """From: Bruno Lima <bruno@cliente.com.br>
Sent: Friday, April 30, 2021 5:02 PM
To: Ana Souza <ana.souza@escritorio.com.br>
Subject: Contrato de prestação de serviços

Ana, poderia revisar a minuta do contrato com a prestadora?
"""


def thread_pdf() -> bytes:
    doc = pymupdf.open()
    for text in (THREAD_PAGE_1, THREAD_PAGE_2):
        page = doc.new_page()
        page.insert_text((72, 72), text, fontsize=10)
    return doc.tobytes()


def test_email_thread_printed_to_pdf_is_split_into_messages():
    doc = extract(thread_pdf(), "thread.pdf")

    newer, older = doc.messages
    assert newer.sender == "Ana Souza <ana.souza@escritorio.com.br>"
    assert newer.recipients == ["Bruno Lima <bruno@cliente.com.br>", "Carla Dias <carla@cliente.com.br>"]
    assert newer.cc == ["Diego Reis <diego@escritorio.com.br>"]
    assert (newer.date, newer.date_text) == (datetime(2021, 5, 3, 10, 15), "segunda-feira, 3 de maio de 2021 10:15")
    assert newer.subject == "RE: Contrato de prestação de serviços"
    assert newer.page_start == 1 and doc.pages[0].text[newer.char_start :].startswith("De: Ana Souza")
    assert (older.sender, older.recipients) == (
        "Bruno Lima <bruno@cliente.com.br>",
        ["Ana Souza <ana.souza@escritorio.com.br>"],
    )
    assert older.date == datetime(2021, 4, 30, 17, 2)
    assert older.page_start == 2 and older.char_start == 0


def test_court_documents_have_no_messages():
    doc = extract((DOCS / "stj_resp_1602076_sp_acordao.pdf").read_bytes(), "acordao.pdf")
    assert doc.messages == []


def test_a_memo_line_or_two_is_not_a_message():
    text = "MEMORANDO\nDe: Diretoria Jurídica\nAssunto: prazos\n\nTexto do memorando sem destinatário nem data."
    assert extract(text.encode(), "memo.txt").messages == []


def make_eml() -> bytes:
    message = MimeMessage(policy=email.policy.default)
    message["From"] = "Ana Souza <ana.souza@escritorio.com.br>"
    message["To"] = "Bruno Lima <bruno@cliente.com.br>, Carla Dias <carla@cliente.com.br>"
    message["Cc"] = '"Reis, Diego" <diego@escritorio.com.br>'
    message["Date"] = "Mon, 03 May 2021 10:15:00 -0300"
    message["Subject"] = "Contrato de prestação de serviços — minuta"
    message.set_content(
        "Bruno,\n\nsegue a minuta com a cláusula de responsabilidade solidária.\n\n"
        "De: Bruno Lima <bruno@cliente.com.br>\nEnviado em: sexta-feira, 30 de abril de 2021 17:02\n"
        "Para: Ana Souza <ana.souza@escritorio.com.br>\nAssunto: Contrato\n\nAna, poderia revisar?\n"
    )
    message.add_alternative("<html><body><p>Bruno,</p><p>segue a <b>minuta</b>.</p></body></html>", subtype="html")
    docx_type = "vnd.openxmlformats-officedocument.wordprocessingml.document"
    message.add_attachment(
        small_docx("Minuta do contrato."), maintype="application", subtype=docx_type, filename="minuta.docx"
    )
    message.add_attachment(thread_pdf(), maintype="application", subtype="pdf", filename="historico.pdf")
    forwarded = MimeMessage(policy=email.policy.default)
    forwarded["From"] = "cliente@cliente.com.br"
    forwarded["Subject"] = "Procuração"
    forwarded.set_content("Segue a procuração assinada.")
    message.add_attachment(forwarded)
    return message.as_bytes()


def test_eml_body_headers_and_quoted_messages():
    data = make_eml()
    assert detect_format(data, "mensagem.pdf") == "eml"

    doc = extract(data, "mensagem.eml")

    assert len(doc.pages) == 1
    text = doc.pages[0].text
    assert text.startswith("De: Ana Souza <ana.souza@escritorio.com.br>\nPara: Bruno Lima")
    assert "Assunto: Contrato de prestação de serviços — minuta" in text
    assert "segue a minuta com a cláusula de responsabilidade solidária." in text  # text/plain preferred
    assert "Minuta do contrato" not in text and "%PDF" not in text  # attachments are not the body
    header, quoted = doc.messages
    assert header.sender == "Ana Souza <ana.souza@escritorio.com.br>"
    assert header.recipients == ["Bruno Lima <bruno@cliente.com.br>", "Carla Dias <carla@cliente.com.br>"]
    assert header.cc == ['"Reis, Diego" <diego@escritorio.com.br>']
    assert header.date == datetime.fromisoformat("2021-05-03T10:15:00-03:00")
    assert (header.page_start, header.char_start) == (1, 0)
    assert quoted.sender == "Bruno Lima <bruno@cliente.com.br>" and quoted.date == datetime(2021, 4, 30, 17, 2)
    assert text[quoted.char_start :].startswith("De: Bruno Lima")


def test_eml_attachments_are_returned_for_child_documents():
    attachments = email_attachments(make_eml())

    assert [(a.filename, a.content_type) for a in attachments] == [
        ("minuta.docx", "application/vnd.openxmlformats-officedocument.wordprocessingml.document"),
        ("historico.pdf", "application/pdf"),
        ("Procuração.eml", "message/rfc822"),
    ]
    docx_child, pdf_child, eml_child = (extract(a.data, a.filename) for a in attachments)
    assert docx_child.pages[0].text == "Minuta do contrato."
    assert len(pdf_child.messages) == 2
    assert "Segue a procuração assinada." in eml_child.pages[0].text


def test_html_only_eml_in_latin1_and_its_inline_logo():
    message = MimeMessage(policy=email.policy.default)
    message["From"] = "a@b.com.br"
    message["To"] = "c@d.com.br"
    message["Subject"] = "Parecer"
    message.set_content(
        "<p>Decis\xe3o sobre a a\xe7\xe3o.</p><script>x()</script>", subtype="html", charset="iso-8859-1"
    )
    logo = b"\x89PNG\r\n\x1a\n"
    message.add_related(
        logo, maintype="image", subtype="png", cid="<logo@b>", filename="logo.png", disposition="inline"
    )
    data = message.as_bytes()

    doc = extract(data, "parecer.eml")

    assert doc.pages[0].text.endswith("Decisão sobre a ação.")
    assert email_attachments(data) == []


# ---------------------------------------------------------------------------------------------
# Plain text and HTML
# ---------------------------------------------------------------------------------------------


def test_text_in_utf8_cp1252_and_utf16_pages_on_form_feeds():
    text = "Petição inicial.\r\nAção civil pública.\fSegunda página: responsabilidade.\f"
    for encoded in (text.encode("utf-8"), text.encode("cp1252"), text.encode("utf-16")):
        assert detect_format(encoded, "peticao.docx") == "txt"
        pages = extract(encoded, "peticao.txt").pages
        assert [(p.number, p.method, p.text) for p in pages] == [
            (1, "text", "Petição inicial.\nAção civil pública."),
            (2, "text", "Segunda página: responsabilidade."),
        ]


def test_html_drops_scripts_and_styles_keeps_paragraphs_and_table_rows():
    html = (
        '<!DOCTYPE html><html><head><meta charset="windows-1252"><title>Parecer 12</title>'
        "<style>p { color: red }</style><script>var segredo = 1;</script></head><body>"
        "<h1>Parecer n\xba 12</h1><p>Primeiro   par\xe1grafo\ncontinua.</p><p>Segundo<br>linha dois</p>"
        "<table><tr><th>Parte</th><th>Nome</th></tr><tr><td><p>RECORRENTE</p></td><td>ACME LTDA</td></tr></table>"
        "<!-- comentário --><ul><li>um</li><li>dois</li></ul></body></html>"
    ).encode("cp1252")
    assert detect_format(html, "parecer.pdf") == "html"

    text = extract(html, "parecer.html").pages[0].text

    assert text.split("\n\n") == [
        "Parecer 12",
        "Parecer nº 12",
        "Primeiro parágrafo continua.",
        "Segundo\nlinha dois",
        "Parte | Nome\nRECORRENTE | ACME LTDA",
        "um",
        "dois",
    ]


# ---------------------------------------------------------------------------------------------
# Extensions that lie
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("data", "filename", "kind"),
    [
        (small_docx(), "contrato.pdf", "docx"),
        (hand_made_odt(), "parecer.docx", "odt"),
        (thread_pdf(), "thread.docx", "pdf"),
        (make_eml(), "mensagem.html", "eml"),
        (b"<html><body><p>Oi</p></body></html>", "pagina.txt", "html"),
        ("Só texto.".encode(), "nota.pdf", "txt"),
    ],
)
def test_a_lying_extension_is_ignored_and_the_real_type_is_read(data: bytes, filename: str, kind: str):
    assert detect_format(data, filename) == kind
    if kind == "odt" and SOFFICE is None:
        assert bad(data, filename).code == "converter_missing"
    else:
        assert extract(data, filename).pages[0].text.strip()


def test_lying_extension_of_an_unsupported_type_says_what_it_really_is():
    cases = [
        (pymupdf.Pixmap(pymupdf.csRGB, pymupdf.IRect(0, 0, 4, 4), False).tobytes("png"), "a PNG image"),
        (b'<?xml version="1.0"?><nfe><valor>10</valor></nfe>', "an XML file"),
    ]
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("xl/workbook.xml", "<workbook/>")
    cases.append((buffer.getvalue(), "an Excel spreadsheet (XLSX)"))
    for data, what in cases:
        err = bad(data, "documento.docx")
        assert (err.disposition, err.code) == ("deadletter", "unsupported_format")
        assert f'"documento.docx" is {what}' in err.reason
