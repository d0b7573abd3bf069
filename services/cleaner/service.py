"""Cleaner stage: page texts -> normalised page texts."""

from services.cleaner.logic import clean_pages
from shared.contracts import DocumentCleaned, DocumentExtracted, Stage, Topic
from shared.payloads import ExtractedDocument
from shared.stage import Outcome, StageContext, StageService
from shared.storage import get_model, put_model, stage_key


async def handle(event: DocumentExtracted, ctx: StageContext) -> Outcome:
    extracted = await get_model(ctx.db, event.pages_key, ExtractedDocument)
    cleaned = ExtractedDocument(pages=clean_pages(extracted.pages))
    key = await put_model(ctx.db, stage_key(event.document_id, event.version, Stage.CLEANED), cleaned)
    return Outcome(topic=Topic.CLEANED, event=event.follow(DocumentCleaned, pages_key=key), stage=Stage.CLEANED)


SERVICE = StageService(
    name="cleaner",
    input_topic=Topic.EXTRACTED,
    input_stage=Stage.EXTRACTED,
    output_stage=Stage.CLEANED,
    handler=handle,
)
