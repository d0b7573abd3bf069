"""PDFs built at test time (none is checked in): from scratch, by hand for shapes PyMuPDF will not write, and
from the sample documents of ../shared/docs."""

from pathlib import Path

import pymupdf

from tests.helpers.samples import DOCS


def first_pages(path: Path, pages: int, folder: Path) -> Path:
    """A copy of the file's first pages under its own name (as bench/archive_report.py --pages makes one)."""
    copy = folder / path.name
    copy.write_bytes(first_pages_bytes(path, pages))
    return copy


def first_pages_bytes(path: Path, pages: int) -> bytes:
    """The file's first pages, as bytes to upload."""
    with pymupdf.open(path) as doc, pymupdf.open() as part:
        part.insert_pdf(doc, from_page=0, to_page=pages - 1)
        return part.tobytes()


def one_page_pdf(text: str) -> bytes:
    """One page holding this text: a file that reads in milliseconds."""
    with pymupdf.open() as doc:
        doc.new_page().insert_text((72, 72), text)
        return doc.tobytes()


def hand_made_pdf(objects: list[bytes], root: int = 1) -> bytes:
    """A PDF with a correct xref table, object `root` its catalog, for shapes PyMuPDF refuses to save."""
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer\n<</Size %d/Root %d 0 R>>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, root, xref)
    return bytes(out)


def retitled(name: str, tag: str, pages: int | None = None) -> bytes:
    """A sample document (its first `pages`, or whole) under a new title, so a new content hash: a new document to
    the ledger."""
    with pymupdf.open(DOCS / name) as doc:
        if pages is not None:
            doc.select(range(min(pages, doc.page_count)))
        doc.set_metadata({"title": f"{name} {tag}"})
        return doc.tobytes()


def encrypted_pdf() -> bytes:
    """A real acórdão behind a user password (AES-256): the extractor cannot read it without one."""
    with pymupdf.open(DOCS / "stj_agint_aresp_2560760_se_acordao.pdf") as doc:
        return doc.tobytes(encryption=pymupdf.PDF_ENCRYPT_AES_256, user_pw="segredo", owner_pw="dono")


def illegible_scan(tag: str, dpi: int = 45) -> bytes:
    """Two pages of a real acórdão scanned far too coarsely: OCR reads some of it, badly."""
    with pymupdf.open(DOCS / "tjrj_agravo_instrumento_0017387-33.2017_acordao.pdf") as source, pymupdf.open() as scan:
        for index in range(2):
            pixmap = source[index].get_pixmap(dpi=dpi, colorspace=pymupdf.csGRAY)
            page = scan.new_page(width=source[index].rect.width, height=source[index].rect.height)
            page.insert_image(page.rect, stream=pixmap.tobytes("jpg", jpg_quality=30))
        scan.set_metadata({"title": tag})
        return scan.tobytes()


def with_photo_page(name: str, after: int, tag: str, seed: int = 7, note: str | None = None) -> bytes:
    """A sample document with a photo inserted after its page `after` (1-based): an image page without text,
    smooth shapes and grain, on which OCR finds no word: a born-digital file's one unreadable page. `note`: a line
    written at the top of page 1, words no other copy of the sample has."""
    import numpy as np

    rng = np.random.default_rng(seed)
    coarse = rng.integers(40, 220, size=(12, 9)).astype(np.float32)  # broad light and dark areas, like a photo
    image = np.kron(coarse, np.ones((50, 50), dtype=np.float32))
    image += rng.normal(0, 6, size=image.shape)  # film grain
    pixels = np.clip(image, 0, 255).astype(np.uint8)
    photo = pymupdf.Pixmap(pymupdf.csGRAY, pixels.shape[1], pixels.shape[0], pixels.tobytes(), False)
    with pymupdf.open(DOCS / name) as source, pymupdf.open() as out:
        out.insert_pdf(source, to_page=after - 1)
        width, height = source[0].rect.width, source[0].rect.height
        page = out.new_page(width=width, height=height)
        page.insert_image(pymupdf.Rect(36, 36, width - 36, height - 36), stream=photo.tobytes("jpg", jpg_quality=80))
        out.insert_pdf(source, from_page=after)
        if note:
            out[0].insert_text((36, 24), note, fontsize=9)
        out.set_metadata({"title": f"{name} {tag}"})
        return out.tobytes()
