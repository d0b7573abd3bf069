"""Cleaner stage: page texts -> normalised page texts, without running headers, footers and stamps."""

from precedente.services.cleaner.logic import clean_document
from precedente.shared.contracts import DocumentCleaned, DocumentExtracted, Stage, Topic
from precedente.shared.infra.storage import get_model, put_model, stage_key
from precedente.shared.payloads import ExtractedDocument
from precedente.shared.runtime.stage import Outcome, StageContext, StageService


async def handle(event: DocumentExtracted, ctx: StageContext) -> Outcome:
    extracted = await get_model(ctx.db, event.pages_key, ExtractedDocument)
    # Unread pages (a photo, a scanned annex OCR read below the bar) go on empty: no chunk holds their text.
    cleaned = clean_document(extracted.readable_pages())
    # Messages and warnings found by the extractor travel on with the cleaned pages.
    payload = extracted.model_copy(update={"pages": cleaned.pages})
    key = await put_model(ctx.db, stage_key(event.document_id, event.version, Stage.CLEANED), payload)
    stamps = cleaned.stamps
    detail = (
        f"{sum(cleaned.layout_lines)} header/footer lines and {sum(cleaned.stamp_lines)} stamp lines removed,"
        f" {sum(cleaned.corrections)} OCR corrections"
    )
    if stamps.signature_dates:
        detail += f"; signed {', '.join(d.isoformat() for d in stamps.signature_dates[:3])}"
    if extracted.unread_pages:
        detail += f"; pages {', '.join(map(str, extracted.unread_pages))} left out unread"
    return Outcome(
        topic=Topic.CLEANED, event=event.follow(DocumentCleaned, pages_key=key), stage=Stage.CLEANED, detail=detail
    )


SERVICE = StageService.declared("cleaner", handle)
