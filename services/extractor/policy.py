"""The extractor's two decisions that must not be written twice: how settings drive extraction, and
when a document goes to review. The stage (service.py) and `precedente inspect` both use them, so
what inspect shows is what the pipeline would do.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from shared.contracts import OcrOptions
from shared.payloads import ExtractedDocument
from shared.settings import Settings


def extract_options(settings: Settings, ocr: OcrOptions | None = None) -> dict[str, Any]:
    """Keyword arguments for logic.extract from the settings; a reviewer's OCR options override them."""
    ocr = ocr or OcrOptions()
    return {
        "ocr_language": ocr.language or settings.ocr_language,
        "ocr_dpi": ocr.dpi or settings.ocr_dpi,
        "ocr_psm": ocr.psm if ocr.psm is not None else settings.ocr_psm,
        "ocr_workers": settings.ocr_workers,
        "ocr_page_timeout_s": settings.ocr_page_timeout_s,
        "ocr_preprocess": settings.ocr_preprocess,
        "max_pages": settings.max_pages,
        "max_bytes": settings.max_upload_bytes,
    }


UNREADABLE_PAGE_MARGIN = 0.07
"""An OCR'd page this far below the bar goes to review even when the document's confidence clears it:
the fax scan's page 6 of 6 pt print reads at 0.77 (0.74 when Tesseract read 300 dpi pages: reading at
preprocess.READING_SCALE raised it, hence 0.07, no longer 0.1) and loses a fifth of its words, while its
other pages (0.82-0.91) carry the document to 0.87. Pages just under the bar are common on good scans
(a letterhead, a table; the two scans of ../shared/docs read at 0.88-0.95) and only count through the
document's confidence."""

UNREADABLE_PAGE_MIN_CHARS = 200
"""The page rule needs a page of text read badly: a blank back page or a lone page number reads at
low confidence too (or at 0, with no word at all) and holds nothing to check."""


@dataclass(frozen=True)
class ReviewVerdict:
    """Whether a readable document still needs a person, and why (each reason names its pages)."""

    reasons: list[str] = field(default_factory=list)
    code: str | None = None
    weak_pages: list[int] = field(default_factory=list)
    confidence: float = 1.0

    @property
    def needed(self) -> bool:
        return bool(self.reasons)


def review_verdict(document: ExtractedDocument, settings: Settings) -> ReviewVerdict:
    """Pages OCR could not read at all (e.g. past the per-page time limit) always need review, and so does
    a document whose OCR confidence is below settings.ocr_confidence_bar.

    Failed pages are checked on their own because the document confidence weighs pages by text
    length: one empty failed page among good ones would barely move it. For the same reason a page
    read far below the bar (UNREADABLE_PAGE_MARGIN) sends a document that clears the bar to review.
    """
    bar = settings.ocr_confidence_bar
    confidence = document.confidence
    weak = document.weak_pages(bar)
    reasons: list[str] = []
    failed = [p for p in document.pages if p.error]
    if failed:
        details = "; ".join(f"page {p.number}: {p.error}" for p in failed)
        reasons.append(f"OCR failed on {len(failed)} page(s) ({details}); their text is missing")
    if confidence < bar:
        reasons.append(
            f"OCR confidence {confidence:.2f} is below the bar of {bar:.2f}"
            f" (weak pages: {', '.join(map(str, weak)) or 'none individually'}); check the scan or correct the text"
        )
    else:
        floor = bar - UNREADABLE_PAGE_MARGIN
        unreadable = [
            p
            for p in document.pages
            if p.method == "ocr"
            and not p.error
            and p.confidence < floor
            and len(p.text.strip()) >= UNREADABLE_PAGE_MIN_CHARS
        ]
        if unreadable:
            details = ", ".join(f"page {p.number}: {p.confidence:.2f}" for p in unreadable)
            reasons.append(
                f"OCR confidence of {len(unreadable)} page(s) is far below the bar of {bar:.2f} ({details});"
                " check the scan or correct the text"
            )
    if not reasons:
        return ReviewVerdict(confidence=confidence)
    code = "ocr_page_failed" if failed else "low_ocr_confidence"
    return ReviewVerdict(reasons=reasons, code=code, weak_pages=weak, confidence=confidence)


def review_reasons(document: ExtractedDocument, settings: Settings) -> list[str]:
    """Why the document needs review; empty when it does not."""
    return review_verdict(document, settings).reasons
