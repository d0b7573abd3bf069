"""OCR and the review gate on generated degraded scans (bench/scan_degrade.py, issue #36 item 6).

A handful of pages with fixed seeds, each read once (a Tesseract pass is 0.5-1.5 s of CPU here); the
distribution itself is measured by bench/scan_gate.py over hundreds of pages.
"""

import importlib.util
import sys
from pathlib import Path

import cv2
import numpy as np
import pymupdf

from precedente.services.extractor.ocr import OcrConfig, ocr_pdf_pages, read_page_image
from precedente.services.extractor.ocr_metrics import body, words4
from precedente.services.extractor.policy import review_verdict
from precedente.services.extractor.preprocess import drop_colour_stamps, page_image
from precedente.shared.payloads import ExtractedDocument, Page
from precedente.shared.settings import Settings

ROOT = Path(__file__).resolve().parents[3]


def _load_generator():  # bench/ is no package: load the module from its file
    spec = importlib.util.spec_from_file_location("scan_degrade", ROOT / "bench" / "scan_degrade.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules["scan_degrade"] = module
    spec.loader.exec_module(module)
    return module


scan_degrade = _load_generator()


def recall(text: str, truth: str) -> float:
    expected = words4(body(truth))
    return len(expected & words4(text)) / len(expected)


def read(page) -> tuple[object, float]:
    with pymupdf.open("pdf", page.pdf) as doc:
        result = ocr_pdf_pages(doc, [1], "generated.pdf", OcrConfig(workers=1))[1]
    return result, recall(result.text, page.truth)


def test_the_generator_is_deterministic_and_keeps_the_truth_of_what_it_drew() -> None:
    first = scan_degrade.generate_page(5, kinds={"rotation": 0.5, "jpeg": 0.9}, source="corpus")
    again = scan_degrade.generate_page(5, kinds={"rotation": 0.5, "jpeg": 0.9}, source="corpus")
    assert first.truth == again.truth and np.array_equal(first.image, again.image)
    assert len(words4(first.truth)) >= 20
    assert first.rotation in (90, 180, 270)
    upright = scan_degrade.generate_page(5, kinds={"jpeg": 0.9}, source="corpus")
    sideways = first.rotation in (90, 270)
    assert (first.image.shape[0] < first.image.shape[1]) == sideways  # an A5 page turned a quarter lies landscape
    assert upright.image.shape[0] > upright.image.shape[1]
    archive = scan_degrade.generate_page(7, kinds={}, source="archive")
    assert archive.source.startswith("archive:") and len(words4(archive.truth)) >= 20


def test_a_coloured_stamp_over_the_body_no_longer_hides_the_paragraph_under_it() -> None:
    """Read in plain grey (the luma of the colour scan, as before), this stamp cost a fifth of the words."""
    page = scan_degrade.generate_page(35, kinds={"stamp": 0.9}, source="corpus")
    with pymupdf.open("pdf", page.pdf) as doc:
        dropped = page_image(doc[0], 300)
    size = (dropped.shape[1], dropped.shape[0])
    plain = cv2.resize(cv2.cvtColor(page.image, cv2.COLOR_RGB2GRAY), size, interpolation=cv2.INTER_CUBIC)
    before = recall(read_page_image(plain, OcrConfig(workers=1)).text, page.truth)
    after = recall(read_page_image(dropped, OcrConfig(workers=1)).text, page.truth)
    assert before < 0.9 and after >= 0.97, (before, after)


def test_coloured_text_is_no_stamp() -> None:
    """A blue paragraph, a red heading and a page frame keep their ink: only hollow shapes of a stamp's size (rings,
    boxes of 12-80 mm) are divided out."""
    doc = pymupdf.open()
    page = doc.new_page(width=420, height=595)
    text = "Texto em azul do parágrafo citado pela decisão, " * 18
    assert page.insert_textbox(pymupdf.Rect(36, 36, 384, 400), text, fontsize=10, color=(0, 0, 0.8)) >= 0
    red = "Vermelho destacado em negrito " * 8
    assert (
        page.insert_textbox(pymupdf.Rect(36, 420, 384, 560), red, fontname="hebo", fontsize=14, color=(0.8, 0, 0)) >= 0
    )
    page.draw_rect(pymupdf.Rect(20, 20, 400, 575), color=(0, 0.3, 0.8), width=2)  # a coloured page frame: hollow, large
    rgb = np.frombuffer(page.get_pixmap(dpi=300).samples, np.uint8).reshape(2480, 1750, 3)
    plain = cv2.cvtColor(rgb, cv2.COLOR_RGB2GRAY)
    kept = drop_colour_stamps(rgb, 300)
    assert abs(float((kept < 128).mean()) - float((plain < 128).mean())) < 0.001
    assert (plain < 128).mean() > 0.03


def test_an_upside_down_page_the_quick_orientation_turned_the_wrong_way_is_read() -> None:
    """Seed 38: a page turned 270 degrees; the projection profiles turned it 270 more (upside down) and OSD, on
    this small page, could not tell (orient 0, script "Japanese"): no word read. Now the half turn is tried."""
    page = scan_degrade.generate_page(38)
    assert page.rotation == 270
    result, found = read(page)
    assert found >= 0.97, (found, result.steps)
    assert (result.rotated + page.rotation) % 360 == 0


def _verdict(result) -> str:
    page = Page(number=1, text=result.text, method="ocr", confidence=result.confidence, error=result.error)
    return review_verdict(ExtractedDocument(pages=[page]), Settings()).outcome


def test_the_gate_passes_a_clean_page() -> None:
    result, found = read(scan_degrade.generate_page(3, kinds={}, source="corpus"))
    assert found >= 0.97 and _verdict(result) == "pass", (found, result.confidence)


def test_the_gate_reviews_a_blurred_page_that_lost_a_seventh_of_its_words_at_a_mean_confidence_over_the_bar() -> None:
    """Seed 270 (blur 0.48): Tesseract's mean word confidence 0.88 passed it; a tenth of its words read unsure and
    a fifth not in the dictionary bring the page's confidence under the bar (ocr.page_confidence)."""
    page = scan_degrade.generate_page(270)
    result, found = read(page)
    assert found < 0.95, found
    assert result.signals.mean_conf >= Settings().ocr_confidence_bar  # the mean alone would pass it
    assert _verdict(result) == "review", (result.confidence, result.signals)
