"""What an uploaded file really is, from its bytes: extensions lie, and uploads get renamed.

Shared because two services decide it: the search service, which serves an original by its real type and
refuses at upload what no stage can read, and the extractor, which picks the reader.

detect_format returns the reader to use, or raises BadInput with a reason that names what the
file really is (an executable, a spreadsheet, a password-protected DOCX) and what to do about it.
Nothing here reads more than a file's first few kilobytes, a ZIP's central directory (and its
tiny "mimetype" member), or an OLE2 directory.
"""

from __future__ import annotations

import codecs
import io
import re
import struct
import zipfile
import zlib
from typing import Literal

from precedente.shared.errors import BadInput, quoted
from precedente.shared.ole import OLE2_MAGIC, describe_ole

Kind = Literal["pdf", "docx", "doc", "odt", "rtf", "eml", "txt", "html"]

UNSUPPORTED = "unsupported_format"
PASSWORD = "password_protected"
SUPPORTED = "only PDF, DOCX, DOC, ODT, RTF, e-mail (.eml), plain text and HTML files can be ingested"

_PDF_HEADER_WINDOW = 1024
"""Readers accept junk before %PDF- within the first KiB (Acrobat does); so do we."""
_SAMPLE = 8192
"""Bytes looked at to tell text, HTML and e-mail apart."""

_MAGIC: list[tuple[bytes, str]] = [
    (b"\x7fELF", "an ELF executable"),
    (b"MZ", "a Windows executable (MZ)"),
    (b"\x89PNG\r\n\x1a\n", "a PNG image; put it in a PDF"),
    (b"\xff\xd8\xff", "a JPEG image; put it in a PDF"),
    (b"GIF87a", "a GIF image"),
    (b"GIF89a", "a GIF image"),
    (b"II*\x00", "a TIFF image; put it in a PDF"),
    (b"MM\x00*", "a TIFF image; put it in a PDF"),
    (b"\x1f\x8b", "a gzip archive"),
    (b"7z\xbc\xaf\x27\x1c", "a 7-Zip archive"),
    (b"Rar!\x1a\x07", "a RAR archive"),
    (b"%!PS", "a PostScript file; convert it to PDF"),
]

MAX_ZIP_MEMBERS = 5000
MAX_ZIP_DIRECTORY_BYTES = 16 * 1024 * 1024
"""5,000 members with long names fit in 2 MB of central directory."""

_BOMS: list[tuple[bytes, str]] = [
    (codecs.BOM_UTF8, "utf-8-sig"),
    (codecs.BOM_UTF32_LE, "utf-32"),  # before UTF-16 LE: it starts with the same two bytes
    (codecs.BOM_UTF32_BE, "utf-32"),
    (codecs.BOM_UTF16_LE, "utf-16"),
    (codecs.BOM_UTF16_BE, "utf-16"),
]

_ODF_TEXT = ("application/vnd.oasis.opendocument.text", "application/vnd.oasis.opendocument.text-template")
_SMALL_MEMBER = 1024 * 1024
"""Members read during detection (mimetype, the ODF manifest) are tiny; a big one is not read."""


def detect_format(data: bytes, filename: str) -> Kind:
    """Which reader to use, from the bytes themselves, never from the file's name."""
    name = quoted(filename)
    if not data:
        raise BadInput(f"{name} is empty (0 bytes); upload the file again", "deadletter", code="empty")
    if b"%PDF-" in data[:_PDF_HEADER_WINDOW]:
        return "pdf"
    if data.startswith((b"PK\x03\x04", b"PK\x05\x06", b"PK\x07\x08")):
        return _zip_kind(data, filename)
    if data.startswith(OLE2_MAGIC):
        return _ole_kind(data, filename)
    if data.startswith(b"{\\rtf"):
        return "rtf"
    for magic, what in _MAGIC:
        if data.startswith(magic):
            raise BadInput(f"{name} is {what}; {SUPPORTED}", "deadletter", code=UNSUPPORTED)
    sample = _text_sample(data)
    if sample is None:
        raise BadInput(
            f"{name} is unrecognised binary data, not a document; {SUPPORTED}", "deadletter", code=UNSUPPORTED
        )
    if _looks_like_html(sample):
        return "html"
    if sample.lstrip().startswith("<?xml"):
        raise BadInput(f"{name} is an XML file, not a document; {SUPPORTED}", "deadletter", code=UNSUPPORTED)
    if _looks_like_email(sample):
        return "eml"
    return "txt"


def mib(size: int) -> str:
    return f"{size / (1024 * 1024):,.1f} MiB"


def check_zip_directory(data: bytes, filename: str, what: str = "DOCX") -> None:
    """Refuse a ZIP whose directory lists too many members, before zipfile builds an object for each.

    Reads the end-of-central-directory record (and its ZIP64 twin): a 200 MB file can list four
    million members, which zipfile would turn into gigabytes of ZipInfo objects when it opens it.
    A record that cannot be found is left for zipfile to call damaged.
    """
    end = data.rfind(b"PK\x05\x06", max(0, len(data) - 65_536 - 22))
    if end < 0 or end + 22 > len(data):
        return
    members, directory = struct.unpack_from("<HI", data, end + 10)
    locator = end - 20
    if (members == 0xFFFF or directory == 0xFFFFFFFF) and locator >= 0 and data[locator : locator + 4] == b"PK\x06\x07":
        record = struct.unpack_from("<Q", data, locator + 8)[0]
        if record + 56 <= len(data) and data[record : record + 4] == b"PK\x06\x06":
            members, directory = struct.unpack_from("<QQ", data, record + 32)
    if members > MAX_ZIP_MEMBERS or directory > MAX_ZIP_DIRECTORY_BYTES:
        raise BadInput(
            f"the {what} {quoted(filename)} looks like a zip bomb: its directory lists {members:,} files "
            f"in {mib(directory)} (the limit is {MAX_ZIP_MEMBERS:,} files); "
            "open it in a word processor and save it again, or export it as PDF",
            "review",
            code="zip_bomb",
        )


def bom_encoding(data: bytes) -> str | None:
    for bom, encoding in _BOMS:
        if data.startswith(bom):
            return encoding
    return None


def _zip_kind(data: bytes, filename: str) -> Kind:
    """Tell a DOCX and an ODT from other ZIP-based files, so the reason names what the file really is."""
    name = quoted(filename)
    check_zip_directory(data, filename, "ZIP-based document")
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            members = {info.filename: info for info in archive.infolist()}
            mimetype = _read_small(archive, members.get("mimetype"), filename).decode("ascii", "replace").strip()
            manifest = _read_small(archive, members.get("META-INF/manifest.xml"), filename)
    except (zipfile.BadZipFile, zipfile.LargeZipFile, OSError, EOFError, ValueError, KeyError, zlib.error) as exc:
        # zlib.error: a member whose compressed data is corrupt (zipfile lets it through as is).
        raise BadInput(
            f"{name} is a damaged or truncated ZIP archive (perhaps a DOCX: {exc}); {SUPPORTED}",
            "deadletter",
            code="damaged",
        ) from exc
    except NotImplementedError as exc:  # zipfile: "zip file version 8.4", an unknown compression method
        raise BadInput(
            f"{name} is a ZIP archive written with a feature no reader here supports ({exc}); "
            "open it in a word processor and save it again as DOCX or PDF",
            "deadletter",
            code=UNSUPPORTED,
        ) from exc
    if "word/document.xml" in members:
        return "docx"
    if mimetype in _ODF_TEXT:
        if b"encryption-data" in manifest:
            raise BadInput(
                f"{name} is a password-protected OpenDocument text; provide an unencrypted copy",
                "review",
                code=PASSWORD,
            )
        return "odt"
    if mimetype.startswith("application/vnd.oasis.opendocument"):
        what = f"an OpenDocument file of another kind ({mimetype}); save it as PDF"
    elif "xl/workbook.xml" in members:
        what = "an Excel spreadsheet (XLSX), not a DOCX"
    elif "ppt/presentation.xml" in members:
        what = "a PowerPoint presentation (PPTX), not a DOCX"
    else:
        what = "a ZIP archive that is not a DOCX (it has no word/document.xml)"
    raise BadInput(f"{name} is {what}; {SUPPORTED}", "deadletter", code=UNSUPPORTED)


def _read_small(archive: zipfile.ZipFile, info: zipfile.ZipInfo | None, filename: str) -> bytes:
    if info is None or info.file_size > _SMALL_MEMBER:
        return b""
    if info.flag_bits & 0x1:  # an encrypted member: zipfile would raise RuntimeError asking for the password
        raise BadInput(
            f"{quoted(filename)} is a password-protected ZIP archive; provide an unencrypted copy",
            "review",
            code=PASSWORD,
        )
    return archive.read(info)


def _ole_kind(data: bytes, filename: str) -> Kind:
    name = quoted(filename)
    kind, what = describe_ole(data)
    if kind == "doc":
        return "doc"
    if kind in ("encrypted-ooxml", "encrypted-doc"):
        raise BadInput(
            f"{name} is password-protected: it is {what}, which cannot be read without the password; "
            "open it, remove the password (or save an unprotected copy as DOCX or PDF) and upload that",
            "review",
            code=PASSWORD,
        )
    code = "damaged" if what.startswith("a damaged") else UNSUPPORTED
    raise BadInput(f"{name} is {what}; {SUPPORTED}", "deadletter", code=code)


def _text_sample(data: bytes) -> str | None:
    """The first bytes as text, or None when they are not text (NULs, control bytes, bad encoding)."""
    raw = data[:_SAMPLE]
    bom = bom_encoding(raw)
    if bom:
        text = raw.decode(bom, errors="replace")
    else:
        if b"\x00" in raw:
            return None
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            if exc.start >= len(raw) - 4:  # a sample cut inside a multi-byte character is still text
                text = raw[: exc.start].decode("utf-8")
            else:
                try:
                    text = raw.decode("cp1252")
                except UnicodeDecodeError:
                    return None
    printable = sum(ch.isprintable() or ch in "\r\n\t\f" for ch in text)
    return text if printable >= 0.95 * max(len(text), 1) else None


_HTML_START = re.compile(r"^(?:<!--.*?-->\s*)*<(?:!doctype\s+html|html|head|body)\b", re.IGNORECASE | re.DOTALL)
_HTML_TAG = re.compile(r"<(?:html|body|p|div|br|table|span|h[1-6]|meta|title)\b", re.IGNORECASE)


def _looks_like_html(sample: str) -> bool:
    head = sample.lstrip("\ufeff \t\r\n")
    if _HTML_START.match(head):
        return True
    if head.startswith("<?xml"):  # XHTML declares itself as XML first
        return bool(re.search(r"<html\b", head[:2048], re.IGNORECASE))
    return head.startswith("<") and not head.startswith("<?") and bool(_HTML_TAG.search(head[:2048]))


_HEADER_LINE = re.compile(r"^([!-9;-~]+):")
_MAIL_HEADERS = {
    "from",
    "to",
    "cc",
    "subject",
    "date",
    "message-id",
    "received",
    "return-path",
    "delivered-to",
    "reply-to",
    "in-reply-to",
    "references",
    "x-mailer",
    "user-agent",
    "sender",
    "thread-topic",
}


def _looks_like_email(sample: str) -> bool:
    """An RFC 5322 header block: "Name: value" lines (with folded continuations) up to a blank line.

    Two well-known mail headers make it an e-mail; MIME-Version with Content-Type too (a web
    archive, .mht, is read the same way: its HTML body becomes the text).
    """
    lines = sample.replace("\r\n", "\n").split("\n")
    if lines and lines[0].startswith("From "):  # mbox envelope line
        lines = lines[1:]
    names: set[str] = set()
    for index, line in enumerate(lines):
        if not line.strip():
            break
        if line[0] in " \t" and index > 0:
            continue
        match = _HEADER_LINE.match(line)
        if not match:
            return False
        names.add(match.group(1).lower())
    return len(names & _MAIL_HEADERS) >= 2 or {"mime-version", "content-type"} <= names
