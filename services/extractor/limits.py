"""Bounds on what one uploaded file may cost the extractor, checked before the expensive work starts.

Every check here reads only sizes and dictionaries (a file's length, a ZIP's central directory,
a PDF's page boxes and image dictionaries), never the content they describe, so a hostile file is
refused in milliseconds and with the memory its bytes already take. The limits are generous for
real legal documents: a 600 dpi A3 scan is 70 megapixels, a DOCX with a few hundred pages is a
few megabytes of XML.
"""

from __future__ import annotations

import io
import re
import zipfile

import pymupdf

from precedente.shared.errors import BadInput, quoted
from precedente.shared.formats import MAX_ZIP_MEMBERS, check_zip_directory, mib

MAX_FILE_BYTES = 200 * 1024 * 1024
"""Same default as Settings.max_upload_bytes: the extractor guards itself even if an upload path does not."""

MAX_ZIP_UNPACKED_BYTES = 300 * 1024 * 1024
"""python-docx loads every part into memory, so the sum of the members' sizes is what a DOCX costs."""
MAX_ZIP_XML_BYTES = 50 * 1024 * 1024
"""lxml needs several times an XML part's size to hold its tree; a 2,000-page DOCX has about 20 MB."""
MAX_ZIP_RATIO = 100
"""Real XML compresses 10-30 times, images not at all; a bomb of zeros compresses 1,000 times."""
ZIP_RATIO_FLOOR_BYTES = 4 * 1024 * 1024
"""Small members may compress as well as they like: the ratio only matters once there is bulk."""

MAX_IMAGE_PIXELS = 250_000_000
"""An A0 sheet scanned at 300 dpi is 139 megapixels; 250 leaves room and stops 50000 x 50000 bombs."""
MAX_RENDER_PIXELS = 250_000_000
"""Pixels of one page rendered for OCR; a greyscale render costs one byte per pixel."""


def check_size(size: int, filename: str, max_bytes: int) -> None:
    """Refuse a file above the size limit before any reader touches it."""
    if size > max_bytes:
        raise BadInput(
            f"{quoted(filename)} is {size:,} bytes ({mib(size)}), more than the limit of {max_bytes:,} bytes "
            f"({mib(max_bytes)}); "
            "split it into smaller files or compress its images",
            "deadletter",  # as the extractor service does for an upload over max_upload_bytes
            code="too_large",
        )


def check_zip(data: bytes, filename: str, what: str = "DOCX") -> None:
    """Refuse a ZIP-based document whose members would unpack to too much (a zip bomb).

    Reads only the central directory. zipfile never inflates a member beyond the size the
    directory declares (a member that lies about it fails its CRC check), so these declared
    sizes bound what python-docx and LibreOffice can be made to unpack.
    """
    check_zip_directory(data, filename, what)
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            members = archive.infolist()
    except (zipfile.BadZipFile, zipfile.LargeZipFile, OSError, EOFError, ValueError, NotImplementedError) as exc:
        # NotImplementedError: zipfile's "zip file version 8.4", a directory no Office program writes.
        raise BadInput(
            f"the {what} {quoted(filename)} is a damaged ZIP archive ({exc}); save it again",
            "deadletter",
            code="damaged",
        ) from exc
    refuse = f"the {what} {quoted(filename)} looks like a zip bomb:"
    fix = "open it in a word processor and save it again, or export it as PDF"
    if len(members) > MAX_ZIP_MEMBERS:
        raise BadInput(
            f"{refuse} it holds {len(members):,} files, more than {MAX_ZIP_MEMBERS:,}; {fix}", "review", code="zip_bomb"
        )
    total = sum(m.file_size for m in members)
    if total > MAX_ZIP_UNPACKED_BYTES:
        raise BadInput(
            f"{refuse} it unpacks to {mib(total)}, more than the limit of {mib(MAX_ZIP_UNPACKED_BYTES)}; {fix}",
            "review",
            code="zip_bomb",
        )
    for m in members:
        if m.filename.endswith((".xml", ".rels")) and m.file_size > MAX_ZIP_XML_BYTES:
            raise BadInput(
                f"{refuse} its part {m.filename} unpacks to {mib(m.file_size)}, "
                f"more than the limit of {mib(MAX_ZIP_XML_BYTES)} for one XML part; {fix}",
                "review",
                code="zip_bomb",
            )
        ratio = m.file_size / max(m.compress_size, 1)
        if m.file_size > ZIP_RATIO_FLOOR_BYTES and ratio > MAX_ZIP_RATIO:
            raise BadInput(
                f"{refuse} its part {m.filename} unpacks to {mib(m.file_size)} from {mib(m.compress_size)} "
                f"({ratio:,.0f} times, more than {MAX_ZIP_RATIO}); {fix}",
                "review",
                code="zip_bomb",
            )


def check_pdf_pages(
    doc: pymupdf.Document,
    filename: str,
    *,
    dpi: int,
    max_image_pixels: int = MAX_IMAGE_PIXELS,
    max_render_pixels: int = MAX_RENDER_PIXELS,
) -> None:
    """Refuse a PDF with an image or a page too large to decode or render within bounded memory.

    Reads the declared Width/Height of every image a page uses and the page's size, never the
    image data: a 50000 x 50000 image compresses to a few hundred KB, and decoding it (for OCR or
    the blank-page probe) costs seconds of CPU per render and, with some codecs, gigabytes.
    """
    seen: set[int] = set()
    for index in range(doc.page_count):
        try:
            page = doc.load_page(index)
            rect = page.rect
            images = page.get_images(full=True)
        except Exception:  # a broken page is the readers' business: they say it is damaged
            continue
        rendered = (rect.width * dpi / 72) * (rect.height * dpi / 72)
        if rendered > max_render_pixels:
            raise BadInput(
                f"page {index + 1} of {quoted(filename)} measures {rect.width / 72:,.0f} x {rect.height / 72:,.0f} "
                f"inches: rendered at {dpi} dpi it would take {rendered / 1e6:,.0f} megapixels, more than the limit "
                f"of {max_render_pixels / 1e6:,.0f}; export it again at a normal page size",
                "review",
                code="page_too_large",
            )
        for xref, _smask, width, height, *_rest in images:
            if xref in seen:
                continue
            seen.add(xref)
            pixels = int(width) * int(height)
            if pixels > max_image_pixels:
                raise BadInput(
                    f"page {index + 1} of {quoted(filename)} holds an image of {int(width):,} x {int(height):,} "
                    f"pixels ({pixels / 1e6:,.0f} megapixels, more than the limit of {max_image_pixels / 1e6:,.0f}), "
                    "which could exhaust memory when decoded (a decompression bomb); "
                    "export the PDF again with its images downsampled",
                    "review",
                    code="image_bomb",
                )


_JS_KEY = re.compile(r"/(?:JS|JavaScript)\b")


def pdf_javascript_objects(doc: pymupdf.Document) -> int:
    """How many objects of the PDF hold JavaScript (actions /S /JavaScript, /JS code, the name tree).

    PyMuPDF never runs a PDF's JavaScript (MuPDF's engine is only on when asked for, and we never
    ask), so the text is extracted as from any PDF; the count is reported as a warning because a
    document with scripts is unusual in a legal archive and worth a look.
    """
    found = 0
    for xref in range(1, doc.xref_length()):
        try:
            source = doc.xref_object(xref, compressed=True)
        except Exception:  # a broken object is not JavaScript; the readers judge the file
            continue
        if _JS_KEY.search(source):
            found += 1
    return found
