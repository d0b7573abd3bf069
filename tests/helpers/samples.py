"""Where the checkout and the sample data beside it are, and the sample documents' pages as the extractor's
first pass reads them."""

from pathlib import Path

from precedente.shared.payloads import Page

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


CORPUS = SHARED_DATA / "corpus"


def corpus_record(file: str, record_id: str) -> dict:
    """One decision of ../shared/corpus by its id: tests read real text there, never copy it."""
    import json

    path = CORPUS / file
    assert path.exists(), f"corpus file {path} is missing: ../shared must sit beside the checkout"
    with path.open(encoding="utf-8") as lines:
        for line in lines:
            if f'"{record_id}"' in line:
                record = json.loads(line)
                if record["id"] == record_id:
                    return record
    raise AssertionError(f"{record_id} is not in {path}")
