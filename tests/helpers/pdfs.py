"""PDFs built at test time (none is checked in): from scratch, by hand for shapes PyMuPDF will not write, and
from the sample documents of ../shared/docs."""

import pymupdf

from tests.helpers.samples import DOCS


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


def retitled(name: str, tag: str) -> bytes:
    """A sample document under a new title, so a new content hash: a new document to the ledger."""
    with pymupdf.open(DOCS / name) as doc:
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
