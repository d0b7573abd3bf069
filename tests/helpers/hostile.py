"""Hostile and broken files, built at run time (no file is checked in): bombs, lies about types, damaged
containers, each the smallest file that shows the shape. tests/services/extractor/test_hostile.py runs them
through extract() under limits; the end-to-end tests send some through a real stack."""

import io
import os
import struct
import zipfile
import zlib
from pathlib import Path

import pymupdf

from precedente.services.extractor.limits import MAX_FILE_BYTES
from tests.helpers.office import TEXT, small_docx
from tests.helpers.pdfs import hand_made_pdf

FONT = b"<</Type/Font/Subtype/Type1/BaseFont/Helvetica/Encoding/WinAnsiEncoding>>"


def text_stream(text: str, y: int = 720) -> bytes:
    content = b"BT /F1 11 Tf 72 %d Td (%s) Tj ET" % (y, text.encode("cp1252"))
    return b"<</Length %d>>stream\n" % len(content) + content + b"\nendstream"


def many_pages_pdf(pages: int = 10_000) -> bytes:
    """10,000 pages that share one content stream: 1.4 MB, and every page has text."""
    kids = b" ".join(b"%d 0 R" % (i + 5) for i in range(pages))
    objects = [
        b"<</Type/Catalog/Pages 2 0 R>>",
        b"<</Type/Pages/Kids[" + kids + b"]/Count %d>>" % pages,
        FONT,
        text_stream(TEXT),
    ]
    page = b"<</Type/Page/Parent 2 0 R/MediaBox[0 0 612 792]/Resources<</Font<</F1 3 0 R>>>>/Contents 4 0 R>>"
    objects += [page] * pages
    return hand_made_pdf(objects)


def image_bomb_pdf(side: int = 50_000) -> bytes:
    """A page of text over a side x side one-bit image of zeros: 2.5 gigapixels in about 300 KB."""
    row = (side + 7) // 8
    compressor = zlib.compressobj(6)
    block = bytes(row * 256)
    parts = [compressor.compress(block) for _ in range(side // 256)]
    parts.append(compressor.compress(bytes(row * (side % 256))))
    parts.append(compressor.flush())
    stream = b"".join(parts)
    content = b"q 612 0 0 792 0 0 cm /Im0 Do Q BT /F1 11 Tf 72 720 Td (%s) Tj ET" % TEXT.encode("cp1252")
    image = b"<</Type/XObject/Subtype/Image/Width %d/Height %d/ColorSpace/DeviceGray/BitsPerComponent 1" % (side, side)
    return hand_made_pdf(
        [
            b"<</Type/Catalog/Pages 2 0 R>>",
            b"<</Type/Pages/Kids[3 0 R]/Count 1>>",
            b"<</Type/Page/Parent 2 0 R/MediaBox[0 0 612 792]/Resources<</XObject<</Im0 5 0 R>>"
            b"/Font<</F1 6 0 R>>>>/Contents 4 0 R>>",
            b"<</Length %d>>stream\n" % len(content) + content + b"\nendstream",
            image + b"/Filter/FlateDecode/Length %d>>stream\n" % len(stream) + stream + b"\nendstream",
            FONT,
        ]
    )


def giant_page_pdf() -> bytes:
    """One page of 200 x 200 inches with a few words: 3.6 gigapixels if rendered for OCR at 300 dpi."""
    return hand_made_pdf(
        [
            b"<</Type/Catalog/Pages 2 0 R>>",
            b"<</Type/Pages/Kids[3 0 R]/Count 1>>",
            b"<</Type/Page/Parent 2 0 R/MediaBox[0 0 14400 14400]/Resources<</Font<</F1 5 0 R>>>>/Contents 4 0 R>>",
            text_stream("fls. 1"),
            FONT,
        ]
    )


def javascript_pdf() -> bytes:
    """A normal page of text, with scripts on open, on the page and in the document's name tree."""
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((72, 72), TEXT, fontsize=11)
    catalog = doc.pdf_catalog()
    doc.xref_set_key(catalog, "OpenAction", "<</S/JavaScript/JS(app.alert\\('aberto'\\);)>>")
    names = doc.get_new_xref()
    doc.update_object(names, "<</Names[(boot) <</S/JavaScript/JS(this.exportDataObject\\({}\\);)>>]>>")
    doc.xref_set_key(catalog, "Names", f"<</JavaScript {names} 0 R>>")
    doc.xref_set_key(page.xref, "AA", "<</O<</S/JavaScript/JS(app.beep\\(0\\);)>>>>")
    return doc.tobytes()


def docx_zip_bomb(unpacked_mib: int = 512) -> bytes:
    """A DOCX whose document.xml is 512 MiB of paragraphs, compressed to under 2 MB.

    python-docx would load it and lxml would need gigabytes for its tree.
    """
    source = zipfile.ZipFile(io.BytesIO(small_docx()))
    paragraph = f"<w:p><w:r><w:t>{TEXT}</w:t></w:r></w:p>".encode()
    block = paragraph * ((1 << 20) // len(paragraph))
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as archive:
        for item in source.infolist():
            if item.filename != "word/document.xml":
                archive.writestr(item, source.read(item))
                continue
            original = source.read(item).decode()
            head, tail = original.split("<w:body>")[0] + "<w:body>", "</w:body></w:document>"
            with archive.open("word/document.xml", "w", force_zip64=True) as member:
                member.write(head.encode())
                for _ in range(unpacked_mib):
                    member.write(block)
                member.write(tail.encode())
    return buffer.getvalue()


def docx_lying_directory() -> bytes:
    """A DOCX whose ZIP directory says document.xml is 100 bytes: zipfile stops there, CRC fails."""
    data = bytearray(small_docx())
    name = b"word/document.xml"
    central = 0
    while True:
        central = data.find(b"PK\x01\x02", central)
        if central < 0:
            raise AssertionError("no central directory entry for word/document.xml")
        name_length = struct.unpack_from("<H", data, central + 28)[0]
        if data[central + 46 : central + 46 + name_length] == name:
            break
        central += 4
    struct.pack_into("<I", data, central + 24, 100)  # uncompressed size
    return bytes(data)


def zip_directory_bomb(entries: int = 1_000_000) -> bytes:
    """A 63 MB "DOCX" whose ZIP64 directory lists a million members, all pointing at one tiny file.

    zipfile would build a million ZipInfo objects just to open it.
    """
    name, body = b"word/document.xml", b"<x/>"
    crc = zlib.crc32(body)
    local = struct.pack("<4sHHHHHIIIHH", b"PK\x03\x04", 20, 0, 0, 0, 0, crc, len(body), len(body), len(name), 0)
    member = struct.pack(
        "<4sHHHHHHIIIHHHHHII", b"PK\x01\x02", 45, 20, 0, 0, 0, 0, crc, len(body), len(body), len(name), 0, 0, 0, 0, 0, 0
    )
    start = len(local) + len(name) + len(body)
    directory = (member + name) * entries
    record = struct.pack("<4sQHHIIQQQQ", b"PK\x06\x06", 44, 45, 45, 0, 0, entries, entries, len(directory), start)
    locator = struct.pack("<4sIQI", b"PK\x06\x07", 0, start + len(directory), 1)
    end = struct.pack("<4sHHHHIIH", b"PK\x05\x06", 0, 0, 0xFFFF, 0xFFFF, 0xFFFFFFFF, 0xFFFFFFFF, 0)
    return local + name + body + directory + record + locator + end


def make_ole(streams: dict[str, bytes]) -> bytes:
    """A minimal OLE2 compound file ([MS-CFB] version 3) holding the given streams.

    Streams are padded to 4 KiB, so they live in regular sectors; one FAT sector is enough for
    what tests need (up to 128 sectors).
    """
    sector = 512
    end, free, fat_mark, no_stream = 0xFFFFFFFE, 0xFFFFFFFF, 0xFFFFFFFD, 0xFFFFFFFF
    padded = {name: body.ljust(max(4096, -(-len(body) // sector) * sector), b"\0") for name, body in streams.items()}
    entries = 1 + len(padded)
    dir_sectors = -(-entries // 4)
    fat = [fat_mark] + [n + 2 if n + 1 < dir_sectors else end for n in range(dir_sectors)]
    starts = []
    for body in padded.values():
        count = len(body) // sector
        first = len(fat)
        starts.append(first)
        fat += [first + i + 1 for i in range(count - 1)] + [end]
    assert len(fat) <= sector // 4, "make_ole supports 128 sectors"
    fat += [free] * (sector // 4 - len(fat))

    def entry(name: str, kind: int, child: int, right: int, start: int, size: int) -> bytes:
        encoded = (name + "\0").encode("utf-16-le")
        return (
            encoded.ljust(64, b"\0")
            + struct.pack("<HBB", len(encoded), kind, 1)
            + struct.pack("<III", no_stream, right, child)
            + bytes(16 + 4 + 16)
            + struct.pack("<IQ", start, size)
        )

    directory = entry("Root Entry", 5, 1 if padded else no_stream, no_stream, end, 0)
    for index, (name, body) in enumerate(padded.items(), start=1):
        right = index + 1 if index < len(padded) else no_stream
        directory += entry(name, 2, no_stream, right, starts[index - 1], len(body))
    directory = directory.ljust(dir_sectors * sector, b"\0")
    header = bytearray(sector)
    header[0:8] = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
    struct.pack_into("<HHHHH", header, 0x18, 0x3E, 3, 0xFFFE, 9, 6)
    struct.pack_into("<IIIIIIIII", header, 0x28, 0, 1, 1, 0, 4096, end, 0, end, 0)
    struct.pack_into("<109I", header, 0x4C, 0, *([free] * 108))
    return bytes(header) + struct.pack(f"<{sector // 4}I", *fat) + directory + b"".join(padded.values())


def encrypted_docx() -> bytes:
    """What Word writes for a DOCX with a password: an OLE2 file with EncryptionInfo/EncryptedPackage."""
    info = struct.pack("<HHI", 4, 4, 0x40) + b"<?xml version='1.0'?><encryption/>"
    package = struct.pack("<Q", 12345) + os.urandom(8000)
    return make_ole({"EncryptionInfo": info, "EncryptedPackage": package})


def looping_ole() -> bytes:
    """An OLE2 file whose directory chain points back at itself: a naive reader loops for ever."""
    data = bytearray(make_ole({"WordDocument": b"x" * 5000}))
    struct.pack_into("<I", data, 512 + 4, 1)  # FAT[1] (the directory sector) -> 1
    return bytes(data)


def nested_html(depth: int = 100_000) -> bytes:
    return ("<html><body>" + "<div>" * depth + TEXT + "</div>" * depth + "</body></html>").encode()


def nested_eml(depth: int = 5000) -> bytes:
    """An e-mail whose MIME parts nest 5,000 levels deep: the standard library's parser recurses."""
    head = "From: a@escritorio.com.br\nTo: b@cliente.com.br\nSubject: Parecer\nMIME-Version: 1.0\n"
    opening = "".join(f'Content-Type: multipart/mixed; boundary="b{i}"\n\n--b{i}\n' for i in range(depth))
    closing = "".join(f"--b{i}--\n" for i in reversed(range(depth)))
    return (head + opening + f"Content-Type: text/plain\n\n{TEXT}\n" + closing).encode()


def png_named_docx() -> bytes:
    pix = pymupdf.Pixmap(pymupdf.csRGB, pymupdf.IRect(0, 0, 8, 8), False)
    return pix.tobytes("png")


def html_named_pdf() -> bytes:
    return f"<!DOCTYPE html><html><body><p>{TEXT}</p><script>alert(1)</script></body></html>".encode()


def write_oversized(path: Path) -> None:
    """One byte over the 200 MiB limit, with a PDF header; sparse on disk, so it costs nothing to make."""
    with path.open("wb") as out:
        out.write(b"%PDF-1.7\n")
        out.truncate(MAX_FILE_BYTES + 1)
