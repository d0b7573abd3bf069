"""Coverage-guided fuzzing (atheris/libFuzzer) of the extractor's entry points: PDF, DOCX, e-mail, sniffing.

    .venv/bin/python bench/fuzz_extractor.py --seconds 60 --target all --out /tmp/fuzz-extractor

The contract under test: for any bytes, extract() returns an ExtractedDocument or raises BadInput
with a code and a reason (email_attachments likewise, detect_format returns a Kind or raises
BadInput). Anything else is a crash: another exception (recorded with its input, fuzzing goes
on), an input that runs past --input-timeout (libFuzzer -timeout) or a process that grows past
--rss-limit-mb (libFuzzer -rss_limit_mb); those two stop the worker, which is restarted until the
target's time is spent. The readers run in-process for speed, with Tesseract replaced by a stub
(pages are still rendered for OCR, at 72 dpi; --real-ocr keeps it) and LibreOffice out of reach
(DOC/ODT/RTF conversion runs in its own process with its own timeout). Each crashing input is then
replayed through the product's IsolatedRunner, to show what the extractor service would do.

Seeds are built at start in a temporary directory, never in the repository: one- and two-page
cuts of the sample PDFs of ../shared/docs (compressed and with streams expanded, so byte mutations
reach content streams), DOCX files written with python-docx, and .eml messages with attachments
written with the email package. Mutations are structure-aware where that is cheap: numbers and
names inside PDF objects, XML parts inside the DOCX's ZIP (re-zipped so the archive stays
valid), header values of e-mails; plus libFuzzer's own byte mutations with a per-format dictionary.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import io
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time
import traceback
import zipfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

DOCS = REPO.parent / "shared" / "docs"
TARGETS = ("pdf", "docx", "eml", "sniff")
FILENAMES = {"pdf": "fuzz.pdf", "docx": "fuzz.docx", "eml": "fuzz.eml", "sniff": "fuzz.bin"}
MAX_PDF_SEED = 200_000
"""Bigger seeds cost more per execution than they add in coverage."""
INSTRUMENTED = ["precedente.services.extractor", "precedente.shared.payloads", "docx", "email", "zipfile"]
"""Python code whose coverage guides the fuzzer; MuPDF and lxml are C and run uninstrumented."""

DICTIONARIES: dict[str, list[bytes]] = {
    "pdf": [
        b"obj", b"endobj", b"stream", b"endstream", b"xref", b"trailer", b"startxref", b"/Type", b"/Page",
        b"/Pages", b"/Kids", b"/Count", b"/Parent", b"/MediaBox", b"/CropBox", b"/Rotate", b"/Resources",
        b"/Contents", b"/Font", b"/XObject", b"/Image", b"/Width", b"/Height", b"/BitsPerComponent",
        b"/Filter", b"/FlateDecode", b"/DCTDecode", b"/LZWDecode", b"/Length", b"/Encrypt", b"/JS",
        b"/JavaScript", b"/OpenAction", b"/ToUnicode", b"/Encoding", b"BT", b"ET", b"Tf", b"Tj", b"TJ",
        b"Td", b"Tm", b"cm", b"Do", b"q", b"Q", b"re", b"f", b"0 0 R", b"<<", b">>", b"[", b"]", b"/Prev",
        b"/Size", b"/Root", b"/ObjStm", b"/XRef", b"/W", b"/Index", b"/SMask", b"/Decode", b"-1",
        b"2147483647", b"99999", b"1e38",
    ],
    "docx": [
        b"<w:p>", b"</w:p>", b"<w:r>", b"</w:r>", b"<w:t>", b"</w:t>", b"<w:br w:type=\"page\"/>", b"<w:tbl>",
        b"<w:tr>", b"<w:tc>", b"<w:gridSpan w:val=\"", b"<w:vMerge w:val=\"restart\"/>", b"<w:sectPr>",
        b"<w:type w:val=\"continuous\"/>", b"<w:footnoteReference w:id=\"", b"<w:sdt><w:sdtContent>",
        b"<w:pStyle w:val=\"", b"<w:basedOn w:val=\"", b"<w:pageBreakBefore/>", b"w:val=\"-1\"",
        b"r:id=\"rId", b"Target=\"", b"TargetMode=\"External\"", b"<!DOCTYPE", b"<!ENTITY", b"xmlns:w=",
        b"PK\x03\x04", b"PK\x01\x02", b"PK\x05\x06",
    ],
    "eml": [
        b"From: ", b"To: ", b"Cc: ", b"Subject: ", b"Date: ", b"Message-ID: ", b"MIME-Version: 1.0",
        b"Content-Type: ", b"multipart/mixed", b"multipart/alternative", b"message/rfc822", b"text/plain",
        b"text/html", b"application/pdf", b"; boundary=", b"; charset=", b"utf-7", b"x-unknown", b"iso-2022-jp",
        b"Content-Transfer-Encoding: ", b"base64", b"quoted-printable", b"uuencode", b"8bit",
        b"Content-Disposition: attachment; filename=", b"filename*=utf-8''", b"=?utf-8?q?", b"=?utf-8?b?",
        b"?=", b"\r\n\r\n", b"--", b"<a@b.c>", b"\"a\" <>", b"undisclosed-recipients:;", b"De: ", b"Para: ",
        b"Enviado em: ", b"Assunto: ",
    ],
    "sniff": [
        b"%PDF-", b"PK\x03\x04", b"PK\x05\x06", b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1", b"{\\rtf", b"<html",
        b"<?xml", b"<!doctype html>", b"From: ", b"Subject: ", b"MIME-Version: ", b"Content-Type: ",
        b"\xef\xbb\xbf", b"\xff\xfe", b"\xfe\xff", b"\xff\xfe\x00\x00", b"mimetype", b"word/document.xml",
        b"application/vnd.oasis.opendocument.text", b"EncryptedPackage", b"WordDocument",
    ],
}  # fmt: skip

INTERESTING_NUMBERS = [b"0", b"-1", b"1", b"-2147483648", b"2147483647", b"4294967296", b"99999999999", b"1e308",
                       b"3.4e38", b"-0", b"0.0000001", b"65535", b"65536", b"256"]  # fmt: skip
PDF_NAMES = [n for n in DICTIONARIES["pdf"] if n.startswith(b"/")]
EML_VALUES = [
    b"=?utf-8?q?=C3=A7=C3=A3o?=", b"=?x-unknown?b?AAAA?=", b"=?utf-8?b?@@@?=", b"\"unterminated <a@", b"<>",
    b"a@b@c", b"undisclosed-recipients:;", b"Mon, 99 Foo 2021 99:99:99 +9999", b"32/13/0000", b"",
    b"multipart/mixed; boundary=\"\"", b"multipart/alternative; boundary=x", b"text/html; charset=utf-7",
    b"text/plain; charset=\"idna\"", b"message/rfc822", b"attachment; filename*=utf-8''%FF%FE",
    b"base64", b"quoted-printable", b"x-uuencode", b"a" * 2000,
]  # fmt: skip
XML_VALUES = ["-1", "0", "999999999", "page", "continuous", "rId9999", "", "restart", "\ue000f1\ue001", "x" * 300]


# ---------------------------------------------------------------------------------------------
# Seeds
# ---------------------------------------------------------------------------------------------


def build_seeds(root: Path) -> dict[str, Path]:
    """One seed directory per target, made from real documents; nothing is written in the repository."""
    dirs = {t: root / "seeds" / t for t in TARGETS}
    for d in dirs.values():
        d.mkdir(parents=True, exist_ok=True)
    pdfs = _pdf_seeds()
    docxs = _docx_seeds(pdfs)
    emls = _eml_seeds(pdfs)
    for kind, seeds in (("pdf", pdfs), ("docx", docxs), ("eml", emls)):
        for i, data in enumerate(seeds):
            (dirs[kind] / f"seed-{i:02d}").write_bytes(data)
    others = [
        b"{\\rtf1\\ansi Peti\\'e7\\'e3o inicial}",
        b'<!doctype html><html><head><meta charset="windows-1252"><title>Parecer</title></head>'
        b"<body><p>Responsabilidade solid\xe1ria</p><table><tr><td>a</td><td>b</td></tr></table></body></html>",
        "Ementa: responsabilidade solidária do tomador de serviços.\f Página 2".encode(),
        b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + bytes(504),
        b'<?xml version="1.0"?><root/>',
    ]
    sniff = [pdfs[0][:4096], docxs[0], emls[0][:4096], *others]
    for i, data in enumerate(sniff):
        (dirs["sniff"] / f"seed-{i:02d}").write_bytes(data)
    return dirs


def _pdf_seeds() -> list[bytes]:
    """One-page cuts of the sample PDFs (fonts subset, small enough for many executions a second),
    each also with its content streams uncompressed, so byte mutations reach the drawing operators."""
    import pymupdf

    sources = sorted(DOCS.glob("*.pdf")) + sorted((DOCS / "scanned").glob("*.pdf"))[:1]
    if not sources:
        raise SystemExit(f"no sample PDFs in {DOCS}: ../shared must sit beside the checkout")
    seeds: list[bytes] = []
    for i, path in enumerate(sources):
        with pymupdf.open(path) as src, pymupdf.open() as out:
            out.insert_pdf(src, from_page=0, to_page=min(src.page_count - 1, 1 if i == 0 else 0))
            with contextlib.suppress(Exception):  # subsetting is an optimisation
                out.subset_fonts()
            compressed = out.tobytes(garbage=3, deflate=True)
            for page in out:
                for xref in page.get_contents():
                    out.update_stream(xref, out.xref_stream(xref), compress=False)
            expanded = out.tobytes(garbage=3, deflate=False)
        seeds += [data for data in (compressed, expanded) if len(data) <= MAX_PDF_SEED]
    # One hand-written PDF, small enough for byte mutations to hit every structure in it.
    seeds.append(_tiny_pdf())
    return seeds


def _tiny_pdf() -> bytes:
    content = b"BT /F1 12 Tf 72 720 Td (Responsabilidade solidaria do tomador de servicos) Tj ET"
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R "
        b"/Resources << /Font << /F1 5 0 R >> >> >>",
        b"<< /Length %d >>\nstream\n" % len(content) + content + b"\nendstream",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    out = io.BytesIO()
    out.write(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(out.tell())
        out.write(b"%d 0 obj\n" % number + body + b"\nendobj\n")
    xref = out.tell()
    out.write(b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1))
    for offset in offsets:
        out.write(b"%010d 00000 n \n" % offset)
    out.write(b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref))
    return out.getvalue()


def _sample_text(pdf: bytes, limit: int = 3000) -> str:
    import pymupdf

    with pymupdf.open(stream=pdf, filetype="pdf") as doc:
        return "".join(page.get_text() for page in doc)[:limit]


def _docx_seeds(pdfs: list[bytes]) -> list[bytes]:
    """DOCX files written with python-docx from a real decision's text: paragraphs, a table, breaks,
    header and footer, a second section, a content control and a footnote reference."""
    import docx
    from docx.enum.section import WD_SECTION
    from docx.oxml import parse_xml

    text = _sample_text(pdfs[0])
    paragraphs = [p.strip() for p in text.split("\n") if p.strip()]
    seeds = []
    for variant in range(2):
        document = docx.Document()
        document.sections[0].header.paragraphs[0].text = "Escritório Modelo Advogados - Processo 0017387-33"
        document.sections[0].footer.paragraphs[0].text = "Documento confidencial"
        document.add_heading("Parecer jurídico", level=1)
        for chunk in paragraphs[: 12 if variant else 4]:
            document.add_paragraph(chunk)
        table = document.add_table(rows=3, cols=3)
        for r, row in enumerate(table.rows):
            for c, cell in enumerate(row.cells):
                cell.text = f"célula {r}.{c}"
        table.cell(0, 0).merge(table.cell(0, 1))
        document.add_page_break()
        w = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"'
        document.element.body.append(
            parse_xml(f"<w:sdt {w}><w:sdtContent><w:p><w:r><w:t>Campo</w:t></w:r></w:p></w:sdtContent></w:sdt>")
        )
        document.element.body.append(
            parse_xml(f'<w:p {w}><w:r><w:t>Nota</w:t></w:r><w:r><w:footnoteReference w:id="1"/></w:r></w:p>')
        )
        if variant:
            document.add_section(WD_SECTION.NEW_PAGE)
            for chunk in paragraphs[12:20]:
                document.add_paragraph(chunk, style="List Bullet")
        out = io.BytesIO()
        document.save(out)
        seeds.append(out.getvalue())
    return seeds


def _eml_seeds(pdfs: list[bytes]) -> list[bytes]:
    """E-mails built with the standard library: plain + HTML alternatives, a PDF attached, a forward
    attached as message/rfc822, a quoted Outlook thread in the body."""
    from datetime import UTC, datetime
    from email.message import EmailMessage
    from email.utils import format_datetime

    text = _sample_text(pdfs[-2], 1200)
    quoted = (
        "\n\nDe: Maria Souza <maria@cliente.com.br>\nEnviado em: segunda-feira, 3 de maio de 2021 10:15\n"
        "Para: João Silva <joao@escritorio.adv.br>; Ana <ana@escritorio.adv.br>\nAssunto: Contrato\n\n"
        "Segue a minuta revisada."
    )
    seeds = []
    inner = EmailMessage()
    inner["From"] = "Cliente <cliente@empresa.com.br>"
    inner["To"] = "joao@escritorio.adv.br"
    inner["Subject"] = "Minuta do contrato"
    inner.set_content("Prezado, segue a minuta.")
    for variant in range(3):
        message = EmailMessage()
        message["From"] = "João Silva <joao@escritorio.adv.br>"
        message["To"] = "Maria Souza <maria@cliente.com.br>, ana@escritorio.adv.br"
        message["Cc"] = "Silva, José <jose@escritorio.adv.br>"
        message["Subject"] = "RE: Parecer sobre responsabilidade solidária"
        message["Date"] = format_datetime(datetime(2021, 5, 3, 10, 15, tzinfo=UTC))
        message["Message-ID"] = f"<seed-{variant}@escritorio.adv.br>"
        message.set_content(text + quoted)
        if variant >= 1:
            message.add_alternative(f"<html><body><p>{text[:400]}</p><table><tr><td>a</td></tr></table></body></html>",
                                    subtype="html")  # fmt: skip
        if variant == 1:
            message.add_attachment(_tiny_pdf(), maintype="application", subtype="pdf", filename="peticao.pdf")
        if variant == 2:
            message.add_attachment(inner)
            message.add_attachment("anexo em texto", filename="nota.txt")
        seeds.append(message.as_bytes())
    return seeds


# ---------------------------------------------------------------------------------------------
# Structure-aware mutators (each falls back to libFuzzer's byte mutation)
# ---------------------------------------------------------------------------------------------

_NUMBER = re.compile(rb"-?\d+(?:\.\d+)?")
_NAME = re.compile(rb"/[A-Za-z]+")


def _mutate_pdf(data: bytes, max_size: int, rng: random.Random) -> bytes:
    """Swap a number or a name at a random place for a boundary value or another PDF key."""
    if not data:
        return data
    start = rng.randrange(len(data))
    pattern = _NUMBER if rng.random() < 0.6 else _NAME
    match = pattern.search(data, start) or pattern.search(data)
    if match is None:
        return data
    new = rng.choice(INTERESTING_NUMBERS if pattern is _NUMBER else PDF_NAMES)
    return data[: match.start()] + new + data[match.end() :]


def _mutate_xml(xml: bytes, rng: random.Random, mutate: Callable[[bytes, int], bytes]) -> bytes:
    """Delete, duplicate, nest or re-attribute one element of a DOCX part, or mutate its bytes."""
    from lxml import etree

    if rng.random() < 0.3:
        return mutate(xml, len(xml) + 512)
    try:
        root = etree.fromstring(xml, etree.XMLParser(resolve_entities=False, no_network=True))
    except etree.XMLSyntaxError:
        return mutate(xml, len(xml) + 512)
    elements = list(root.iter())
    if len(elements) < 2:
        return mutate(xml, len(xml) + 512)
    element = rng.choice(elements[1:])
    parent = element.getparent()
    op = rng.randrange(5)
    if op == 0 and parent is not None:
        parent.remove(element)
    elif op == 1 and parent is not None:
        for _ in range(rng.choice((1, 2, 50))):
            parent.insert(parent.index(element), _copy(element))
    elif op == 2:
        nested = _copy(element)
        for _ in range(rng.choice((2, 20, 300))):  # deep nesting: recursion in the readers
            wrapper = etree.Element(element.tag)
            wrapper.append(nested)
            nested = wrapper
        element.append(nested)
    elif op == 3 and element.attrib:
        key = rng.choice(list(element.attrib))
        element.set(key, rng.choice(XML_VALUES))
    else:
        other = rng.choice(elements[1:])
        if other is not element and element not in other.iterancestors() and other not in element.iter():
            element.append(_copy(other))
    return etree.tostring(root, xml_declaration=True, encoding="UTF-8", standalone=True)


def _copy(element: Any) -> Any:
    from copy import deepcopy

    return deepcopy(element)


def _mutate_docx(data: bytes, max_size: int, rng: random.Random, mutate: Callable[[bytes, int], bytes]) -> bytes:
    """Mutate one XML part inside the ZIP and zip it again, so the damage reaches the XML readers."""
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            members = [(info, archive.read(info)) for info in archive.infolist()]
    except Exception:  # not a ZIP any more (a byte mutation broke it): mutate its bytes instead
        return mutate(data, max_size)
    parts = [i for i, (info, _) in enumerate(members) if info.filename.endswith((".xml", ".rels"))]
    if not parts:
        return mutate(data, max_size)
    weights = [6 if members[i][0].filename == "word/document.xml" else 1 for i in parts]
    index = rng.choices(parts, weights)[0]
    info, xml = members[index]
    members[index] = (info, _mutate_xml(xml, rng, mutate))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        for member, content in members:
            archive.writestr(member.filename, content)
    return out.getvalue()


def _mutate_eml(data: bytes, max_size: int, rng: random.Random) -> bytes:
    """Replace the value of one header line (of any part) with a malformed or unusual one."""
    lines = data.split(b"\n")
    headers = [i for i, line in enumerate(lines) if re.match(rb"^[A-Za-z-]+: ", line)]
    if not headers:
        return data
    i = rng.choice(headers)
    name = lines[i].split(b":", 1)[0]
    if rng.random() < 0.5:
        lines[i] = name + b": " + rng.choice(EML_VALUES)
    else:  # duplicate a header: parsers must cope with two Content-Type lines
        lines.insert(i, name + b": " + rng.choice(EML_VALUES))
    return b"\n".join(lines)


def custom_mutator(target: str) -> Callable[[bytes, int, int], bytes]:
    import atheris

    def mutate(data: bytes, max_size: int) -> bytes:
        return atheris.Mutate(data, max_size)

    def mutator(data: bytes, max_size: int, seed: int) -> bytes:
        rng = random.Random(seed)
        try:
            if target == "pdf" and rng.random() < 0.4:
                out = _mutate_pdf(data, max_size, rng)
            elif target == "docx" and rng.random() < 0.7:
                out = _mutate_docx(data, max_size, rng, mutate)
            elif target == "eml" and rng.random() < 0.4:
                out = _mutate_eml(data, max_size, rng)
            else:
                out = mutate(data, max_size)
        except Exception:  # a mutator bug must not stop the fuzzing: fall back to byte mutation
            out = mutate(data, max_size)
        return out[:max_size]

    return mutator


# ---------------------------------------------------------------------------------------------
# Targets: the public entry points, as the extractor service calls them
# ---------------------------------------------------------------------------------------------


NO_SOFFICE = "precedente-fuzz-no-soffice"
"""A LibreOffice that is never found: an input mutated into a DOC, ODT or RTF ends in BadInput
(converter_missing) instead of a LibreOffice run of seconds, which has its own process and timeout."""


def fuzz_options(real_ocr: bool) -> dict[str, Any]:
    """extract() options for in-process fuzzing: one OCR worker, low resolution (the stub skips Tesseract)."""
    return {"soffice": NO_SOFFICE} if real_ocr else {"ocr_dpi": 72, "ocr_workers": 1, "soffice": NO_SOFFICE}


def run_target(target: str, data: bytes, options: dict[str, Any]) -> None:
    """Call the entry point(s) for one input; a documented outcome returns or raises BadInput."""
    from precedente.services.extractor.email_reader import email_attachments
    from precedente.services.extractor.logic import extract
    from precedente.shared.formats import detect_format
    from precedente.shared.payloads import ExtractedDocument

    filename = FILENAMES[target]
    if target == "sniff":
        kind = detect_format(data, filename)
        assert kind in ("pdf", "docx", "doc", "odt", "rtf", "eml", "txt", "html"), kind
        return
    document = extract(data, filename, **options)
    assert isinstance(document, ExtractedDocument)
    if target == "eml":
        attachments = email_attachments(data, filename)
        assert all(isinstance(a.data, bytes) for a in attachments)


def _check_bad_input(bad: Exception) -> str | None:
    """Why a BadInput breaks its own contract (no reason, no code, an unknown disposition), or None."""
    reason, code, disposition = getattr(bad, "reason", ""), getattr(bad, "code", ""), getattr(bad, "disposition", "")
    if not isinstance(reason, str) or not reason.strip():
        return "BadInput without a reason"
    if not isinstance(code, str) or not code:
        return "BadInput without a code"
    if disposition not in ("review", "deadletter"):
        return f"BadInput with disposition {disposition!r}"
    return None


def _where(tb: Any) -> tuple[str, str]:
    """(innermost frame, innermost frame in services/extractor), as "path:line in function"."""
    frames = traceback.extract_tb(tb)

    def fmt(frame: traceback.FrameSummary) -> str:
        path = Path(frame.filename)
        with contextlib.suppress(ValueError):
            path = path.relative_to(REPO)
        text = str(path)
        if "site-packages/" in text:
            text = text.split("site-packages/", 1)[1]
        elif "/lib/python3" in text:
            text = "stdlib/" + text.split("/lib/python3", 1)[1].split("/", 1)[1]
        return f"{text}:{frame.lineno} in {frame.name}"

    inner = fmt(frames[-1]) if frames else "?"
    ours = next((fmt(f) for f in reversed(frames) if "services/extractor/" in f.filename), "")
    return inner, ours


# ---------------------------------------------------------------------------------------------
# Worker: one libFuzzer process for one target
# ---------------------------------------------------------------------------------------------


def _stub_ocr() -> None:
    """Pages still render for OCR (MuPDF's decoders are fuzzed), but Tesseract is not run: seconds per page."""
    from precedente.services.extractor import ocr

    def read_page_image(image: Any, config: Any) -> Any:
        return ocr.PageOcr(text="", confidence=0.0, error="OCR skipped while fuzzing")

    if hasattr(ocr, "read_page_image"):
        ocr.read_page_image = read_page_image  # type: ignore[assignment]
    else:
        print("warning: ocr.read_page_image not found; Tesseract runs for real", file=sys.stderr)


def worker(args: argparse.Namespace) -> None:
    import atheris

    with atheris.instrument_imports(include=INSTRUMENTED):
        import precedente.services.extractor.email_reader  # noqa: F401
        import precedente.services.extractor.logic  # noqa: F401
    import warnings

    import pymupdf

    warnings.simplefilter("ignore")
    with contextlib.suppress(Exception):
        pymupdf.TOOLS.mupdf_display_errors(False)
        pymupdf.TOOLS.mupdf_display_warnings(False)
    if not args.real_ocr:
        _stub_ocr()
    import faulthandler

    target: str = args.worker
    options = fuzz_options(args.real_ocr)
    state_path = Path(args.state)
    state: dict[str, Any] = json.loads(state_path.read_text()) if state_path.exists() else {}
    state.setdefault("executions", 0)
    crashes: dict[str, Any] = state.setdefault("crashes", {})
    out_dir = Path(args.out) / target
    out_dir.mkdir(parents=True, exist_ok=True)
    hang_log = open(out_dir / "hang-stacks.log", "a")  # noqa: SIM115 - open for the worker's life
    last_flush = time.monotonic()

    def flush() -> None:
        tmp = state_path.with_suffix(".tmp")
        tmp.write_text(json.dumps(state))
        tmp.replace(state_path)

    def record(kind: str, message: str, inner: str, ours: str, data: bytes, detail: str) -> None:
        key = f"{kind} @ {inner}"
        entry = crashes.get(key)
        digest = hashlib.sha1(data).hexdigest()[:12]
        if entry is None or len(data) < entry["size"]:
            path = out_dir / f"exception-{kind}-{digest}.bin"
            path.write_bytes(data)
            if entry is not None:
                with contextlib.suppress(FileNotFoundError):
                    Path(entry["input"]).unlink()
            crashes[key] = entry = {
                "target": target,
                "exception": kind,
                "message": message[:300],
                "where": inner,
                "extractor_frame": ours,
                "input": str(path),
                "size": len(data),
                "traceback": detail[-4000:],
                "count": entry["count"] if entry else 0,
            }
        entry["count"] += 1
        flush()

    budget = max(1.0, args.input_timeout * 0.8)

    def test_one_input(data: bytes) -> None:
        nonlocal last_flush
        from precedente.shared.errors import BadInput

        state["executions"] += 1
        faulthandler.dump_traceback_later(budget, exit=False, file=hang_log)
        try:
            run_target(target, data, options)
        except BadInput as bad:
            broken = _check_bad_input(bad)
            if broken:
                inner, ours = _where(bad.__traceback__)
                record("BrokenBadInput", broken, inner, ours, data, "".join(traceback.format_exception(bad)))
        except Exception as exc:  # the point of the exercise: anything else is a crash
            inner, ours = _where(exc.__traceback__)
            record(type(exc).__name__, str(exc), inner, ours, data, "".join(traceback.format_exception(exc)))
        finally:
            faulthandler.cancel_dump_traceback_later()
        now = time.monotonic()
        if now - last_flush > 1.0:
            last_flush = now
            flush()

    libfuzzer = [
        sys.argv[0],
        args.corpus,
        f"-max_total_time={args.worker_seconds}",
        f"-timeout={args.input_timeout}",
        f"-rss_limit_mb={args.rss_limit_mb}",
        f"-artifact_prefix={out_dir}/",
        f"-dict={args.dict}",
        f"-max_len={args.max_len}",
        "-print_final_stats=1",
    ]
    atheris.Setup(libfuzzer, test_one_input, custom_mutator=custom_mutator(target))
    atheris.Fuzz()


# ---------------------------------------------------------------------------------------------
# Driver: run the workers, replay the crashes in the real isolated runner, report
# ---------------------------------------------------------------------------------------------


@dataclass
class TargetResult:
    target: str
    seconds: float = 0.0
    executions: int = 0
    restarts: int = 0
    crashes: list[dict[str, Any]] = field(default_factory=list)


def _write_dict(path: Path, words: list[bytes]) -> None:
    lines = []
    for word in words:
        escaped = "".join(chr(b) if 32 <= b < 127 and b not in (34, 92) else f"\\x{b:02x}" for b in word)
        lines.append(f'"{escaped}"')
    path.write_text("\n".join(lines) + "\n")


_LIBFUZZER_VERDICT = re.compile(r"ALARM|libFuzzer: (?:timeout|out-of-memory|deadly)")


def _artifact_crash(target: str, path: Path, log_tail: str, hang_stack: str) -> dict[str, Any]:
    """A libFuzzer artifact (timeout-, oom-, crash- for a fatal signal) as a crash record."""
    kind = {"timeout": "Timeout", "oom": "OutOfMemory", "crash": "FatalSignal", "slow-unit": "SlowUnit"}
    prefix = path.name.split("-", 1)[0]
    where = hang_stack or "(no Python stack recorded)"
    said = [line.strip() for line in log_tail.splitlines() if _LIBFUZZER_VERDICT.search(line)]
    return {
        "target": target,
        "exception": kind.get(prefix, prefix),
        "message": " / ".join(said) or log_tail[-600:],
        "where": where.splitlines()[0] if where else "",
        "extractor_frame": next((line for line in where.splitlines() if "services/extractor/" in line), ""),
        "input": str(path),
        "size": path.stat().st_size,
        "traceback": where,
        "count": 1,
    }


def _last_hang_stack(log: Path, start: int) -> str:
    """The innermost frames of the last stack faulthandler dumped for a slow input, newest first."""
    if not log.exists():
        return ""
    text = log.read_text(errors="replace")[start:]
    dumps = text.split("Thread 0x")
    for dump in reversed(dumps):
        frames = [line.strip() for line in dump.splitlines() if line.strip().startswith("File ")]
        if frames:
            return "\n".join(frames[:8])
    return ""


def _drop_from_corpus(corpus: Path, data: bytes) -> None:
    """Remove an input that stopped a worker from the corpus (seeds included), so the next does not replay it."""
    for path in corpus.iterdir():
        if path.stat().st_size == len(data) and path.read_bytes() == data:
            path.unlink()


def fuzz_target(target: str, seconds: float, args: argparse.Namespace, work: Path, seeds: Path) -> TargetResult:
    """Run workers until the target's time is spent; a timeout or OOM ends a worker, the next resumes."""
    result = TargetResult(target)
    corpus = work / "corpus" / target
    corpus.mkdir(parents=True, exist_ok=True)
    for seed in seeds.iterdir():
        shutil.copy(seed, corpus / seed.name)
    dict_path = work / f"{target}.dict"
    _write_dict(dict_path, DICTIONARIES[target])
    max_len = max(4096, int(max(p.stat().st_size for p in seeds.iterdir()) * 1.25))
    state = work / f"{target}.state.json"
    out_dir = Path(args.out) / target
    out_dir.mkdir(parents=True, exist_ok=True)
    hang_log = out_dir / "hang-stacks.log"
    seen_artifacts = {p.name for p in out_dir.iterdir()}
    started = time.monotonic()
    artifacts: list[dict[str, Any]] = []
    while True:
        left = seconds - (time.monotonic() - started)
        if left < 3 or result.restarts > args.max_restarts:
            break
        log_path = work / f"{target}.worker-{result.restarts}.log"
        hang_start = hang_log.stat().st_size if hang_log.exists() else 0
        command = [sys.executable, str(Path(__file__).resolve()), "--worker", target, "--state", str(state),
                   "--corpus", str(corpus), "--out", str(args.out), "--worker-seconds", str(int(left)),
                   "--input-timeout", str(args.input_timeout), "--rss-limit-mb", str(args.rss_limit_mb),
                   "--dict", str(dict_path), "--max-len", str(max_len),
                   *(["--real-ocr"] if args.real_ocr else [])]  # fmt: skip
        with open(log_path, "w") as log:
            env = {**os.environ, "OMP_THREAD_LIMIT": "1", "OPENBLAS_NUM_THREADS": "1"}
            code = subprocess.call(command, stdout=log, stderr=subprocess.STDOUT, env=env, cwd=REPO)
        text = log_path.read_text(errors="replace")
        if state.exists():
            result.executions = json.loads(state.read_text())["executions"]
        new = [p for p in sorted(out_dir.iterdir()) if p.name not in seen_artifacts]
        seen_artifacts |= {p.name for p in new}
        for path in new:
            if path.name.split("-", 1)[0] in ("timeout", "oom", "crash", "slow-unit"):
                artifacts.append(_artifact_crash(target, path, text[-2000:], _last_hang_stack(hang_log, hang_start)))
                _drop_from_corpus(corpus, path.read_bytes())  # never resume on it
        if time.monotonic() - started >= seconds - 3:
            break
        result.restarts += 1
        print(f"  [{target}] worker ended (exit {code}) after {time.monotonic() - started:.0f} s; restarting",
              file=sys.stderr)  # fmt: skip
    result.seconds = time.monotonic() - started
    if state.exists():
        saved = json.loads(state.read_text())
        result.executions = saved["executions"]
        result.crashes = list(saved["crashes"].values())
    result.crashes += artifacts
    return result


def replay(crash: dict[str, Any], timeout_s: float, memory_mb: int) -> str:
    """What the product does with the input: the real IsolatedRunner, with the service's default options."""
    from precedente.services.extractor.email_reader import email_attachments
    from precedente.services.extractor.isolation import IsolatedRunner
    from precedente.services.extractor.logic import extract_timed
    from precedente.shared.errors import BadInput
    from precedente.shared.formats import detect_format

    data = Path(crash["input"]).read_bytes()
    target = crash["target"]
    filename = FILENAMES[target]
    runner = IsolatedRunner(timeout_s=timeout_s, memory_mb=memory_mb)
    try:
        if target == "sniff":
            kind = runner.run(detect_format, data, filename, label=f'"{filename}"')
            return f"ok ({kind})"
        document, _ = runner.run(extract_timed, data, filename, label=f'"{filename}"')
        if target == "eml":
            runner.run(email_attachments, data, filename, label=f'"{filename}"')
        return f"ok ({len(document.pages)} page(s))"
    except BadInput as bad:
        return f"BadInput {bad.disposition}/{bad.code}: {bad.reason[:160]}"
    except Exception as exc:  # what the product would let through to the stage's generic retry
        return f"NOT HANDLED: {type(exc).__name__}: {str(exc)[:160]}"
    finally:
        runner.close()


def report(results: list[TargetResult], replays: dict[str, str]) -> None:
    print()
    print(f"| {'target':<6} | {'seconds':>7} | {'executions':>10} | {'exec/s':>7} | {'crashes':>7} | restarts")
    print(f"|{'-' * 8}|{'-' * 9}|{'-' * 12}|{'-' * 9}|{'-' * 9}|{'-' * 9}")
    for r in results:
        rate = r.executions / r.seconds if r.seconds else 0.0
        print(f"| {r.target:<6} | {r.seconds:>7.0f} | {r.executions:>10,} | {rate:>7.1f} | {len(r.crashes):>7} | "
              f"{r.restarts}")  # fmt: skip
    crashes = [c for r in results for c in r.crashes]
    if not crashes:
        print("\nno crashes")
        return
    print("\ncrashes (unique by exception type and innermost frame):")
    for c in crashes:
        print(f"- [{c['target']}] {c['exception']}: {c['message'][:200]!r}")
        print(f"    where: {c['where']}")
        if c["extractor_frame"] and c["extractor_frame"] != c["where"]:
            print(f"    via:   {c['extractor_frame']}")
        print(f"    input: {c['input']} ({c['size']:,} bytes, hit {c['count']} time(s))")
        print(f"    isolated replay: {replays.get(c['input'], '-')}")


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=60, help="fuzzing time per target (default 60)")
    parser.add_argument("--target", choices=[*TARGETS, "all"], default="all")
    parser.add_argument("--out", default=None, help="where crash inputs and the JSON report go (default: a temp dir)")
    parser.add_argument("--input-timeout", type=int, default=10, help="seconds one input may take (libFuzzer -timeout)")
    parser.add_argument("--rss-limit-mb", type=int, default=2048, help="libFuzzer -rss_limit_mb")
    parser.add_argument("--replay-timeout", type=float, default=60, help="IsolatedRunner timeout for replays")
    parser.add_argument("--replay-memory-mb", type=int, default=3072, help="IsolatedRunner memory cap for replays")
    parser.add_argument("--max-restarts", type=int, default=30, help="worker restarts per target before giving up")
    parser.add_argument("--real-ocr", action="store_true", help="run Tesseract for pages without text (slow)")
    parser.add_argument("--keep-work", action="store_true", help="keep the seeds, corpora and worker logs")
    # Internal: one worker process.
    for name in ("--worker", "--state", "--corpus", "--dict"):
        parser.add_argument(name, help=argparse.SUPPRESS)
    parser.add_argument("--worker-seconds", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--max-len", type=int, help=argparse.SUPPRESS)
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> None:
    args = parse_args(sys.argv[1:] if argv is None else argv)
    if args.worker:
        worker(args)
        return
    work = Path(tempfile.mkdtemp(prefix="precedente-fuzz-"))
    args.out = str(Path(args.out or tempfile.mkdtemp(prefix="precedente-fuzz-crashes-")).resolve())
    try:
        seeds = build_seeds(work)
        targets = TARGETS if args.target == "all" else (args.target,)
        results = []
        for target in targets:
            print(f"fuzzing {target} for {args.seconds:.0f} s ...", file=sys.stderr)
            results.append(fuzz_target(target, args.seconds, args, work, seeds[target]))
        replays = {}
        for crash in (c for r in results for c in r.crashes):
            replays[crash["input"]] = replay(crash, args.replay_timeout, args.replay_memory_mb)
        report(results, replays)
        summary = [
            {**r.__dict__, "exec_per_s": r.executions / r.seconds if r.seconds else 0.0,
             "crashes": [{**c, "isolated_replay": replays.get(c["input"])} for c in r.crashes]}
            for r in results
        ]  # fmt: skip
        (Path(args.out) / "report.json").write_text(json.dumps(summary, indent=2))
        print(f"\ncrash inputs and report.json in {args.out}")
    finally:
        if args.keep_work:
            print(f"work directory kept: {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
