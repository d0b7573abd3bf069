"""The extractor's two decisions that must not be written twice: how settings drive extraction, and
when a document goes to review. The stage (service.py) and `precedente inspect` both use them, so
what inspect shows is what the pipeline would do.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from precedente.shared.contracts import OcrOptions
from precedente.shared.payloads import ExtractedDocument, Page, describe_pages
from precedente.shared.settings import Settings


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
"""An OCR'd page this far below the bar goes to review even when the document's confidence clears it: a
page that loses a fifth of its words, as the fax scan's page 6 of 6 pt print did at 0.74-0.77 (since
preprocess.remove_streaks keeps the strokes on a streak it reads at 0.82 and keeps 83% of them: just under the
bar, it now counts through the document's confidence). Pages just under the bar are common on good scans
(a letterhead, a table; the two scans of ../shared/docs read at 0.88-0.95)."""

UNREADABLE_PAGE_MIN_CHARS = 200
"""The page rule needs a page of text read badly: a blank back page or a lone page number reads at
low confidence too (or at 0, with no word at all) and holds nothing to check."""


UNREAD_MAX_PAGE_SHARE = 0.1
"""At most this share of a document's pages (and always one) may be left unread for it to be indexed without
them. Measured on ../shared/archive (14 files with OCR pages): the 13 the old rule held back are born-digital files
with 1-3 image pages (photos with no word, a scanned annex, a title or signature page) in 24-296 pages, 4.2% at
most (i1068: 1 of 24); a scan read badly has far more."""

UNREAD_MIN_TEXT_SHARE = 0.8
"""The pages that read well must hold at least this share of the document's characters (97-100% on those 13
files): a scanned annex that carries most of the text is the document, and goes to review whole."""

UNREAD_MIN_NATIVE_SHARE = 0.5
"""More than this share of the pages must have been read from a text layer (or a DOCX, or a reviewer's text):
a mostly-OCR document below the bar is a scan read badly, and goes to review as before (the fax scan, 6 of 6)."""

Outcome = Literal["pass", "review", "unread"]


@dataclass(frozen=True)
class ReviewVerdict:
    """Whether a readable document still needs a person, and why (each reason names its pages).

    Three outcomes: "pass"; "review" (reasons: the document is held back whole); "unread" (a few weak OCR pages
    in a document whose other pages read well: it is indexed without their text, unread_pages flagged with
    unread_reason, and listed for a reviewer all the same).
    """

    reasons: list[str] = field(default_factory=list)
    code: str | None = None
    weak_pages: list[int] = field(default_factory=list)
    confidence: float = 1.0
    unread_pages: list[int] = field(default_factory=list)
    unread_reason: str | None = None

    @property
    def needed(self) -> bool:
        """Held back for review (an "unread" document goes on)."""
        return bool(self.reasons)

    @property
    def outcome(self) -> Outcome:
        if self.reasons:
            return "review"
        return "unread" if self.unread_pages else "pass"


def _characters(pages: list[Page]) -> int:
    return sum(len(p.text.strip()) for p in pages)


def _can_index_without(document: ExtractedDocument, unread: list[Page], bar: float) -> bool:
    """Whether the document may go on without these pages: few of them, the rest read well (text layer, or OCR
    at the bar), holding most of the text, and mostly born-digital (UNREAD_* above)."""
    pages = document.pages
    numbers = {p.number for p in unread}
    rest = [p for p in pages if p.number not in numbers]
    if not unread or not rest or len(unread) > max(1, int(UNREAD_MAX_PAGE_SHARE * len(pages))):
        return False
    if sum(p.method != "ocr" for p in pages) <= UNREAD_MIN_NATIVE_SHARE * len(pages):
        return False
    if _characters(rest) < UNREAD_MIN_TEXT_SHARE * _characters(pages):
        return False
    return ExtractedDocument(pages=rest).confidence >= bar


def review_verdict(document: ExtractedDocument, settings: Settings) -> ReviewVerdict:
    """Pages OCR could not read at all (e.g. past the per-page time limit) always need review, and so does
    a document whose OCR confidence is below settings.ocr_confidence_bar.

    Failed pages are checked on their own because the document confidence weighs pages by text
    length: one empty failed page among good ones would barely move it. For the same reason a page
    read far below the bar (UNREADABLE_PAGE_MARGIN) sends a document that clears the bar to review.

    The document confidence weighs only the OCR pages, so one photo page would decide for a born-digital
    document's two hundred text pages: when the weak pages are few and the rest reads well
    (_can_index_without), the document is indexed without them instead, those pages flagged ("unread").
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
        culprits = [p for p in document.pages if p.number in weak]
        if culprits and all(p.holds_no_text for p in culprits):
            reasons.append(f"{describe_pages(culprits, bar)}; check the pages or correct the text")
        else:
            empty = [p for p in culprits if p.holds_no_text]
            images = f"; {describe_pages(empty, bar)}" if empty else ""
            reasons.append(
                f"OCR confidence {confidence:.2f} is below the bar of {bar:.2f}"
                f" (weak pages: {', '.join(map(str, weak)) or 'none individually'}){images};"
                " check the scan or correct the text"
            )
    else:
        floor = bar - UNREADABLE_PAGE_MARGIN
        culprits = [
            p
            for p in document.pages
            if p.method == "ocr"
            and not p.error
            and p.confidence < floor
            and len(p.text.strip()) >= UNREADABLE_PAGE_MIN_CHARS
        ]
        if culprits:
            details = ", ".join(f"page {p.number}: {p.confidence:.2f}" for p in culprits)
            reasons.append(
                f"OCR confidence of {len(culprits)} page(s) is far below the bar of {bar:.2f} ({details});"
                " check the scan or correct the text"
            )
    if not reasons:
        return ReviewVerdict(confidence=confidence)
    if not failed and _can_index_without(document, culprits, bar):
        unread = [p.number for p in culprits]
        return ReviewVerdict(
            weak_pages=weak,
            confidence=confidence,
            unread_pages=unread,
            unread_reason=document.model_copy(update={"unread_pages": unread}).unread_reason(bar),
        )
    code = "ocr_page_failed" if failed else "low_ocr_confidence"
    return ReviewVerdict(reasons=reasons, code=code, weak_pages=weak, confidence=confidence)


def review_reasons(document: ExtractedDocument, settings: Settings) -> list[str]:
    """Why the document needs review; empty when it does not."""
    return review_verdict(document, settings).reasons
