"""Inputs found by bench/fuzz_extractor.py that once escaped the extractor as exceptions other than BadInput.

Each test builds its (minimized) input here and asserts the documented outcome: BadInput with a
disposition, a code and a reason that says what to do, raised by the reader that failed.
"""

import io
import re
import time
import zipfile
from collections.abc import Callable

import docx
import pytest
from docx.oxml import parse_xml

from precedente.services.extractor.docx_reader import extract_docx
from precedente.services.extractor.logic import detect_format, email_attachments, extract
from precedente.shared.errors import BadInput

ODT_MIMETYPE = b"application/vnd.oasis.opendocument.text"


def _zip(patch: Callable[[bytearray], None], members: dict[str, bytes] | None = None) -> bytes:
    """A small ODT-like ZIP (mimetype first, deflated), then patched in place as the fuzzer did."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, content in (members or {"mimetype": ODT_MIMETYPE, "content.xml": b"<a/>"}).items():
            archive.writestr(name, content)
    data = bytearray(out.getvalue())
    patch(data)
    return bytes(data)


def _central(data: bytearray) -> int:
    return data.find(b"PK\x01\x02")


def _newer_zip_version(data: bytearray) -> None:
    data[_central(data) + 6] = 84  # "version needed to extract" 8.4: zipfile raises NotImplementedError


def _encrypted_member(data: bytearray) -> None:
    data[6] |= 1  # general purpose flag bit 0, local header and central directory: "encrypted"
    data[_central(data) + 8] |= 1


def _corrupt_deflate(data: bytearray) -> None:
    data[30 + len(b"mimetype")] = 0xFF  # the first byte of the deflate stream: invalid block type (zlib.error)


def _unknown_method(data: bytearray) -> None:
    data[8] = 99  # compression method 99 in both headers: NotImplementedError on read
    data[_central(data) + 10] = 99


@pytest.mark.parametrize(
    ("patch", "code", "disposition", "words"),
    [
        (_newer_zip_version, "unsupported_format", "deadletter", "zip file version 8.4"),
        (_encrypted_member, "password_protected", "review", "password-protected ZIP"),
        (_corrupt_deflate, "damaged", "deadletter", "damaged or truncated ZIP"),
        (_unknown_method, "unsupported_format", "deadletter", "compression method"),
    ],
    ids=["zip-version-8.4", "encrypted-member", "corrupt-deflate", "unknown-compression"],
)
def test_broken_zip_detection_is_bad_input(
    patch: Callable[[bytearray], None], code: str, disposition: str, words: str
) -> None:
    """formats._zip_kind once let NotImplementedError, RuntimeError and zlib.error out of detect_format."""
    data = _zip(patch)
    for call in (lambda: detect_format(data, "peticao.odt"), lambda: extract(data, "peticao.odt")):
        with pytest.raises(BadInput) as caught:
            call()
        assert caught.value.code == code
        assert caught.value.disposition == disposition
        assert words in caught.value.reason
        assert '"peticao.odt"' in caught.value.reason


# --------------------------------------------------------------------------------------------
# DOCX
# --------------------------------------------------------------------------------------------

W_NS = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"


def _docx(
    edit: Callable[[bytes], bytes] = lambda xml: xml, *, table: str = "", part: str = "word/document.xml"
) -> bytes:
    """A one-paragraph DOCX written by python-docx, one part (word/document.xml) edited as the fuzzer did."""
    document = docx.Document()
    document.add_paragraph("Responsabilidade solidária do tomador")
    if table:
        document.element.body.insert(1, parse_xml(f'<w:tbl xmlns:w="{W_NS}">{table}</w:tbl>'))
    out = io.BytesIO()
    document.save(out)
    source = zipfile.ZipFile(io.BytesIO(out.getvalue()))
    edited = io.BytesIO()
    with zipfile.ZipFile(edited, "w", zipfile.ZIP_DEFLATED) as archive:
        for info in source.infolist():
            content = source.read(info)
            archive.writestr(info.filename, edit(content) if info.filename == part else content)
    return edited.getvalue()


def _cell(text: str, props: str = "") -> str:
    return f"<w:tc><w:tcPr>{props}</w:tcPr><w:p><w:r><w:t>{text}</w:t></w:r></w:p></w:tc>"


@pytest.mark.parametrize(
    ("edit", "found"),
    [
        (lambda xml: xml.replace(f'xmlns:w="{W_NS}"'.encode(), f'xmlns:w="{W_NS}x"'.encode()), "<document>"),
        (lambda xml: re.sub(rb"<w:body>.*</w:body>", b"", xml, flags=re.S), "without a <body>"),
    ],
    ids=["main-part-in-another-namespace", "no-body"],
)
def test_docx_main_part_that_is_not_a_document_body_is_damaged(edit: Callable[[bytes], bytes], found: str) -> None:
    """extract_docx once raised AttributeError ('_Element' object has no attribute 'body')."""
    with pytest.raises(BadInput) as caught:
        extract(_docx(edit), "parecer.docx")
    assert (caught.value.code, caught.value.disposition) == ("damaged", "deadletter")
    assert found in caught.value.reason
    assert "word/document.xml" in caught.value.reason and "save it again" in caught.value.reason


@pytest.mark.parametrize(
    "paragraph_props",
    [
        b'<w:pageBreakBefore w:val="xyz"/>',  # docx.exceptions.InvalidXmlError: not an on/off value
        b"<w:pStyle/>",  # docx.oxml.exceptions.InvalidXmlError: required 'w:val' attribute not present
    ],
    ids=["page-break-before-not-a-boolean", "paragraph-style-without-val"],
)
def test_docx_damaged_paragraph_properties_keep_the_text(paragraph_props: bytes) -> None:
    """python-docx raised InvalidXmlError reading whether a page starts there; the text is intact, so it is read."""
    data = _docx(lambda xml: xml.replace(b"<w:p>", b"<w:p><w:pPr>" + paragraph_props + b"</w:pPr>", 1))
    pages = extract(data, "parecer.docx").pages
    assert [p.text for p in pages] == ["Responsabilidade solidária do tomador"]


def test_docx_whose_styles_part_has_another_content_type_keeps_the_text() -> None:
    """python-docx loads styles.xml as a plain Part, and paragraph.style raised AttributeError (no .styles)."""
    data = _docx(
        lambda xml: xml.replace(b"wordprocessingml.styles+xml", b"f1"),
        part="[Content_Types].xml",
    )
    pages = extract(data, "parecer.docx").pages
    assert [p.text for p in pages] == ["Responsabilidade solidária do tomador"]


@pytest.mark.parametrize(
    "first_cell",
    [
        _cell("topo", '<w:gridSpan w:val="abc"/>'),  # ValueError: invalid literal for int()
        _cell("topo", "<w:vMerge/>"),  # ValueError: no tr above topmost tr in w:tbl
        _cell("topo", '<w:gridSpan w:val="0"/>'),  # python-docx dropped the cell and its text
        _cell("topo", '<w:gridSpan w:val="2000000000"/>'),  # python-docx looped two billion times
    ],
    ids=["grid-span-not-a-number", "merge-from-no-row", "grid-span-zero", "grid-span-two-billion"],
)
def test_docx_table_with_damaged_merges_keeps_every_cell(first_cell: str) -> None:
    table = f"<w:tr>{first_cell}{_cell('b')}</w:tr><w:tr>{_cell('c')}{_cell('d')}</w:tr>"
    started = time.monotonic()
    pages = extract(_docx(table=table), "tabela.docx").pages
    assert time.monotonic() - started < 10
    assert pages[0].text.splitlines()[1:] == ["topo | b", "c | d"]


def test_docx_long_vertical_merge_is_read_in_linear_time() -> None:
    """python-docx's row.cells re-scans the rows above a merged cell recursively: minutes, then RecursionError."""
    restart = '<w:vMerge w:val="restart"/>'
    rows = [f"<w:tr>{_cell('Requerente', restart)}{_cell('linha 0')}</w:tr>"]
    rows += [
        f"<w:tr><w:tc><w:tcPr><w:vMerge/></w:tcPr><w:p/></w:tc>{_cell(f'linha {i}')}</w:tr>" for i in range(1, 1500)
    ]
    started = time.monotonic()
    pages = extract(_docx(table="".join(rows)), "tabela.docx").pages
    assert time.monotonic() - started < 10
    lines = pages[0].text.splitlines()
    assert lines[1] == "Requerente | linha 0"
    assert lines[-1] == "Requerente | linha 1499"  # as python-docx lays it out: the merged cell on each row


def test_docx_zip_of_a_newer_version_is_damaged_in_the_docx_reader() -> None:
    """limits.check_zip let zipfile's NotImplementedError ("zip file version 8.4") out of extract_docx."""
    data = bytearray(_docx())
    data[data.find(b"PK\x01\x02") + 6] = 84
    with pytest.raises(BadInput) as caught:
        extract_docx(bytes(data), "parecer.docx", max_pages=10)
    assert caught.value.code == "damaged"
    assert "zip file version 8.4" in caught.value.reason


# --------------------------------------------------------------------------------------------
# E-mail
# --------------------------------------------------------------------------------------------

FORWARD_WITH_BROKEN_MULTIPART = (
    b'From: a@b.c\nSubject: encaminhada\nContent-Type: multipart/mixed; boundary="B"\n\n'
    b"--B\nContent-Type: text/plain\n\nsegue\n"
    b"--B\nContent-Type: message/rfc822\n\n"
    b"Content-Type: multipart/mixed; boundary\nSubject: original\n\nCumprimento de senten\xc3\xa7a\n--B--\n"
)
"""Minimized from the fuzzer: an attached e-mail whose multipart boundary parameter has no value."""


def test_attached_email_that_bytesgenerator_cannot_write_back_is_still_attached() -> None:
    """email_attachments let UnicodeEncodeError out of Message.as_bytes (email/generator.py, write)."""
    attachments = email_attachments(FORWARD_WITH_BROKEN_MULTIPART, "encaminhada.eml")
    assert [(a.filename, a.content_type) for a in attachments] == [("original.eml", "message/rfc822")]
    assert b"Subject: original" in attachments[0].data
    assert b"Cumprimento de senten" in attachments[0].data
    assert extract(FORWARD_WITH_BROKEN_MULTIPART, "encaminhada.eml").pages[0].text.endswith("segue")


def _forward(inner_headers: bytes) -> bytes:
    """A message with one attached e-mail whose headers are the fuzzer's (minimized)."""
    return b'Content-Type: multipart/mixed; boundary="B"\n--B\nContent-Type: message/rfc822\n\n' + inner_headers


HEADERS_THE_EMAIL_PACKAGE_CANNOT_REFOLD = {
    "AttributeError ('Group' object has no attribute 'local_part')": (
        b"From: " + b"a" * 219 + b"%" + b"a" * 188 + b"position: attachment; f"
    ),
    "IndexError (list index out of range, _header_value_parser.startswith_fws)": (
        b"From: " + b"a" * 333 + b'=============2968406672628594240=="'
    ),
    "UnicodeEncodeError ('ascii', _encoded_words.encode)": (
        b"To: joao@escrit\xb6o\xff =?uescFrom: =?utf-8?b?Content-Transfer-Encoding: @@@ritorio?="
    ),
    "UnicodeEncodeError (surrogates not allowed)": (
        b"To: multipart\xd0\x9el" + b"\x8c" * 8 + b"," * 10 + b"(" + b"," * 90 + b"\x8c" * 5 + b"tivl"
        + b"\x8c" * 8 + b",,,,,,ype: text/plain;"
    ),
    "UnicodeError (the 'idna' codec has no 'replace')": (
        b'Content-Type: text/plain; charset="idna\nMIME-Version: ' + b"a" * 171 + b"quoted-printable"
        + b"a" * 189 + b"/N, S\xc3\nCumprimento de senten\xc3"
    ),
}  # fmt: skip
"""Minimized from the fuzzer: long or odd headers of an attached e-mail, which Message.as_bytes refolded."""


@pytest.mark.parametrize("found", HEADERS_THE_EMAIL_PACKAGE_CANNOT_REFOLD)
def test_attached_email_is_written_back_with_its_headers_as_they_were(found: str) -> None:
    """email_attachments let these out of Message.as_bytes/as_string (email/policy.py, _fold)."""
    headers = HEADERS_THE_EMAIL_PACKAGE_CANNOT_REFOLD[found]
    attachments = email_attachments(_forward(headers), "encaminhada.eml")
    assert [a.content_type for a in attachments] == ["message/rfc822"]
    first_line = headers.split(b"\n", 1)[0]
    assert attachments[0].data.startswith(first_line[: first_line.index(b":") + 1])
    assert len(attachments[0].data) >= len(first_line)  # not folded away, not dropped
