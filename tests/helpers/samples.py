"""Where the checkout and the sample data beside it are, and the sample documents' pages as the extractor's
first pass reads them."""

from pathlib import Path

from shared.payloads import Page

REPO = Path(__file__).resolve().parents[2]
SHARED_DATA = REPO.parent / "shared"
DOCS = SHARED_DATA / "docs"


def read_pages(name: str) -> list[Page]:
    """The text-layer pages of a sample document of ../shared/docs, as the extractor's first pass sees them."""
    import pymupdf  # late: conftest imports this module, and most tests never open a PDF

    path = DOCS / name
    assert path.exists(), f"sample document {path} is missing: ../shared must sit beside the checkout"
    with pymupdf.open(path) as doc:
        return [Page(number=i + 1, text=p.get_text()) for i, p in enumerate(doc)]
