"""The review rule's third outcome: a born-digital document with a few weak OCR pages (a photo, a scanned annex)
is indexed without their text, those pages flagged, instead of being held whole in review; scans read badly still
go to review. Synthetic page lists for the rule's edges, real PDFs (a sample decision with a photo page, a page of
the archive) for what the extractor and the cleaner make of them."""

from pathlib import Path

import pymupdf

from precedente.inspect import inspect_file, inspection_json
from precedente.services.chunker.logic import chunk_document
from precedente.services.cleaner.logic import clean_document
from precedente.services.extractor.logic import extract
from precedente.services.extractor.policy import review_verdict
from precedente.shared.payloads import ExtractedDocument, Page
from precedente.shared.settings import Settings
from tests.helpers.pdfs import with_photo_page
from tests.helpers.samples import DOCS

ARCHIVE = Path(__file__).parents[3] / ".." / "shared" / "archive"
SETTINGS = Settings(ocr_confidence_bar=0.85)


def text_pages(count: int, first: int = 1, chars: int = 2000) -> list[Page]:
    return [
        Page(number=n, text=("texto do acórdão " * chars)[:chars], method="text") for n in range(first, first + count)
    ]


def photo(number: int) -> Page:
    return Page(number=number, text="", method="ocr", confidence=0.0)


def annex(number: int, confidence: float = 0.6, chars: int = 600) -> Page:
    return Page(number=number, text=("anexo digitalizado " * chars)[:chars], method="ocr", confidence=confidence)


def verdict_of(*pages: Page):  # noqa: ANN201 - the policy's ReviewVerdict
    return review_verdict(ExtractedDocument(pages=sorted(pages, key=lambda p: p.number)), SETTINGS)


# ---------------------------------------------------------------------------------------------
# The rule, on page lists
# ---------------------------------------------------------------------------------------------


def test_one_photo_page_among_text_pages_is_left_unread_and_the_document_goes_on() -> None:
    verdict = verdict_of(*text_pages(9), photo(10), *text_pages(30, first=11))

    assert verdict.outcome == "unread" and not verdict.needed and verdict.reasons == []
    assert verdict.unread_pages == [10] and verdict.weak_pages == [10]
    assert verdict.unread_reason == (
        "page 10 left out of the index, the other 39 indexed: page 10 holds an image with no readable text"
        " (OCR found no words); correct its text or re-run OCR to index it, or approve to accept it as it is"
    )


def test_two_scanned_annex_pages_read_below_the_bar_are_named_with_what_ocr_read() -> None:
    verdict = verdict_of(*text_pages(20), annex(21, 0.69), annex(22, 0.62, 450))

    assert verdict.outcome == "unread" and verdict.unread_pages == [21, 22]
    assert verdict.unread_reason is not None
    assert verdict.unread_reason.startswith("pages 21 and 22 left out of the index, the other 20 indexed:")
    assert "page 21 was read by OCR at 0.69, below the bar of 0.85 (600 characters)" in verdict.unread_reason
    assert "page 22 was read by OCR at 0.62" in verdict.unread_reason


def test_a_page_far_below_the_bar_in_a_born_digital_document_is_left_unread() -> None:
    """The page rule's case: the OCR pages clear the bar together, one of them is far below it."""
    good_ocr = [Page(number=n, text="texto legível " * 100, method="ocr", confidence=0.95) for n in (11, 12)]
    verdict = verdict_of(*text_pages(10), *good_ocr, annex(13, 0.70, 300))

    assert verdict.confidence >= SETTINGS.ocr_confidence_bar
    assert verdict.outcome == "unread" and verdict.unread_pages == [13]


def test_more_weak_pages_than_a_tenth_of_the_document_go_to_review() -> None:
    verdict = verdict_of(*text_pages(17), photo(18), photo(19), photo(20))

    assert verdict.outcome == "review" and verdict.code == "low_ocr_confidence" and verdict.unread_pages == []


def test_weak_pages_that_hold_most_of_the_text_go_to_review() -> None:
    verdict = verdict_of(*text_pages(20, chars=100), annex(21, 0.6, 9000))

    assert verdict.outcome == "review" and verdict.weak_pages == [21]


def test_a_mostly_ocr_document_goes_to_review_even_with_one_weak_page_in_many() -> None:
    scan = [Page(number=n, text="texto legível " * 100, method="ocr", confidence=0.9) for n in range(1, 31)]
    verdict = verdict_of(*scan, annex(31, 0.5, 1400))

    assert verdict.outcome == "review" and verdict.weak_pages == [31]


def test_a_failed_page_still_sends_a_born_digital_document_to_review() -> None:
    failed = Page(number=5, text="", method="ocr", confidence=0.0, error="OCR took longer than 120 s")
    verdict = verdict_of(*text_pages(4), failed, *text_pages(40, first=6))

    assert verdict.outcome == "review" and verdict.code == "ocr_page_failed"


def test_a_photo_page_that_goes_to_review_is_said_to_hold_an_image_not_a_confidence_of_zero() -> None:
    verdict = verdict_of(*text_pages(1), photo(2))  # half the document: too much to leave out

    assert verdict.outcome == "review"
    assert verdict.reasons == [
        "page 2 holds an image with no readable text (OCR found no words); check the pages or correct the text"
    ]
    mixed = verdict_of(*text_pages(1), photo(2), annex(3, 0.5))
    assert "OCR confidence 0.50 is below the bar of 0.85 (weak pages: 2, 3)" in mixed.reasons[0]
    assert "page 2 holds an image with no readable text" in mixed.reasons[0]


def test_good_documents_still_pass() -> None:
    ocr = Page(number=3, text="texto legível " * 100, method="ocr", confidence=0.92)
    verdict = verdict_of(*text_pages(2), ocr)
    assert verdict.outcome == "pass" and verdict.unread_pages == [] and verdict.unread_reason is None


def test_unread_pages_reach_the_chunks_empty_and_every_other_page_keeps_its_number() -> None:
    pages = [
        Page(number=1, text="Primeira página: relatório do caso.", method="text"),
        Page(number=2, text="ilegível garatuja " * 40, method="ocr", confidence=0.4),
        Page(number=3, text="Terceira página: voto do relator sobre a penhora.", method="text"),
    ]
    document = ExtractedDocument(pages=pages, unread_pages=[2])

    cleaned = clean_document(document.readable_pages()).pages
    chunks = chunk_document(cleaned, lambda text: len(text.split()), max_tokens=8, overlap_tokens=0)

    assert [p.number for p in cleaned] == [1, 2, 3] and cleaned[1].text == ""
    assert not any("garatuja" in c.text for c in chunks)
    voto = next(c for c in chunks if "penhora" in c.text)
    assert (voto.page_start, voto.page_end) == (3, 3)
    assert document.pages[1].text.startswith("ilegível")  # the payload keeps it for the reviewer


# ---------------------------------------------------------------------------------------------
# Real PDFs through the extractor
# ---------------------------------------------------------------------------------------------


def test_a_sample_decision_with_a_photo_page_is_indexed_without_it() -> None:
    data = with_photo_page("tjsp_sentenca_vara_empresarial_arbitragem.pdf", after=3, tag="foto")

    document = extract(data, "sentenca_com_foto.pdf", ocr_workers=1)
    verdict = review_verdict(document, Settings())

    assert [p.number for p in document.pages if p.method == "ocr"] == [4]
    assert document.pages[3].holds_no_text and document.confidence == 0.0  # the old rule's "0.00 below the bar"
    assert verdict.outcome == "unread" and verdict.unread_pages == [4]
    assert "page 4 holds an image with no readable text" in (verdict.unread_reason or "")
    with pymupdf.open(DOCS / "tjsp_sentenca_vara_empresarial_arbitragem.pdf") as source:
        fourth = [w for w in source[3].get_text().split() if len(w) >= 10 and w.isalpha()][0]  # now on page 5
    cleaned = clean_document(document.model_copy(update={"unread_pages": [4]}).readable_pages()).pages
    assert cleaned[3].text == "" and fourth in cleaned[4].text


def test_inspect_shows_the_unread_page_and_chunks_without_it(tmp_path: Path) -> None:
    path = tmp_path / "sentenca_com_foto.pdf"
    path.write_bytes(with_photo_page("tjsp_sentenca_vara_empresarial_arbitragem.pdf", after=3, tag="inspect"))

    inspection = inspect_file(path, Settings(ocr_workers=1))
    review = inspection_json(inspection)["review"]

    assert review["outcome"] == "unread" and review["needed"] is False and review["disposition"] is None
    assert review["unread_pages"] == [4] and "page 4 holds an image" in review["unread_reason"]
    assert inspection.pages[3].text == "" and inspection.chunks
    assert not any(c.page_start == c.page_end == 4 for c in inspection.chunks)
    with pymupdf.open(DOCS / "tjsp_sentenca_vara_empresarial_arbitragem.pdf") as source:
        fourth = [w for w in source[3].get_text().split() if len(w) >= 10 and w.isalpha()][0]  # now on page 5
    holding = [c for c in inspection.chunks if fourth in c.text and not c.is_ementa]
    assert holding and all(c.page_start <= 5 <= c.page_end for c in holding)


def test_an_archive_file_with_one_scanned_page_is_indexed_without_it() -> None:
    """i245's page 7 is an image page OCR reads below the bar, among text pages: its first pages are read (OCR
    of one page), and the verdict on them is the one the whole file gets."""
    assert (ARCHIVE / "i245.pdf").exists(), f"{ARCHIVE} is missing: ../shared must sit beside the checkout"
    with pymupdf.open(ARCHIVE / "i245.pdf") as source, pymupdf.open() as part:
        part.insert_pdf(source, to_page=min(source.page_count, 12) - 1)
        data = part.tobytes()

    document = extract(data, "i245.pdf", ocr_workers=1)
    verdict = review_verdict(document, Settings())

    assert [p.number for p in document.pages if p.method == "ocr"] == [7]
    assert document.confidence < Settings().ocr_confidence_bar  # the old rule held the file whole
    assert verdict.outcome == "unread" and verdict.unread_pages == [7], verdict
