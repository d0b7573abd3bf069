"""Extractor stage: original file -> page texts (text layer, DOCX, or OCR), or review/dead-letter."""

import asyncio
import atexit
import functools
import hashlib
import shutil
import tempfile

from precedente.services.extractor import search_gate
from precedente.services.extractor.email_reader import Attachment, email_attachments
from precedente.services.extractor.isolation import IsolatedRunner
from precedente.services.extractor.logic import BadInput, extract_timed
from precedente.services.extractor.ocr import PageSlots, PageTiming, with_page_slots
from precedente.services.extractor.policy import extract_options, review_verdict
from precedente.shared.contracts import DocumentExtracted, DocumentSubmitted, MetadataHints, Stage, Topic
from precedente.shared.formats import detect_format
from precedente.shared.infra.storage import get_original, original_key, put_blob, put_model, stage_key
from precedente.shared.runtime import ledger, search_load, telemetry
from precedente.shared.runtime.broker import publish
from precedente.shared.runtime.stage import Outcome, StageContext, StageService, ToDeadLetter, ToReview
from precedente.shared.settings import Settings


async def handle(event: DocumentSubmitted, ctx: StageContext) -> Outcome:
    settings = ctx.settings
    if event.size_bytes > settings.max_upload_bytes:
        raise ToDeadLetter(
            f'"{event.filename}" has {event.size_bytes} bytes, more than the limit of {settings.max_upload_bytes};'
            " split it or raise PRECEDENTE_MAX_UPLOAD_BYTES",
            code="too_large",
        )
    data = await get_original(ctx.db, event.blob_key, event.content_hash)  # a DMS's event must name its file
    readers: asyncio.Queue[IsolatedRunner] = ctx.state["readers"]
    runner = await readers.get()  # one reading child per document in flight: a timeout there stops only this one
    try:
        document, timings = await asyncio.to_thread(
            runner.run,
            with_page_slots,  # its pages share the extractor's ocr_workers Tesseract runs with the other documents'
            ctx.state["page_slots"],
            extract_timed,
            data,
            event.filename,
            label=f'"{event.filename}"',
            search_gate=ctx.state.get("search_gate"),  # its pages yield to search between them (search_gate.py)
            **extract_options(settings, event.ocr),
        )
        if detect_format(data, event.filename) == "eml":
            attachments = await asyncio.to_thread(
                runner.run, email_attachments, data, filename=event.filename, label=f'"{event.filename}"'
            )
            await submit_attachments(event, attachments, ctx)
    except BadInput as bad:
        if bad.disposition == "review":
            raise ToReview(bad.reason, code=bad.code) from bad
        raise ToDeadLetter(bad.reason, code=bad.code) from bad
    finally:
        readers.put_nowait(runner)
    record_ocr(timings)
    for page in document.pages:
        telemetry.PAGES.labels("extractor", page.method).inc()
    verdict = review_verdict(document, settings)  # the same rule `precedente inspect` shows
    # The pages left unread travel with the payload: the cleaner empties them, a reviewer still sees them.
    document = document.model_copy(update={"unread_pages": verdict.unread_pages})
    key = await put_model(ctx.db, stage_key(event.document_id, event.version, Stage.EXTRACTED), document)
    ocr_pages = [p.number for p in document.pages if p.method == "ocr"]
    confidence = document.confidence
    if verdict.needed:
        raise ToReview(
            "; ".join(verdict.reasons),
            code=verdict.code or "needs_review",
            weak_pages=verdict.weak_pages,
            confidence=verdict.confidence,
        )
    return Outcome(
        topic=Topic.EXTRACTED,
        event=event.follow(
            DocumentExtracted,
            pages_key=key,
            page_count=len(document.pages),
            ocr_pages=ocr_pages,
            confidence=confidence,
        ),
        stage=Stage.EXTRACTED,
        detail=f"{len(document.pages)} pages, {len(ocr_pages)} by OCR"
        + (f"; {verdict.unread_reason}" if verdict.unread_reason else ""),
        ledger_fields={
            "page_count": len(document.pages),
            "ocr_pages": ocr_pages,
            "ocr_confidence": confidence,
            # Set on every extraction: a re-OCR that reads every page clears an earlier one's unread pages.
            "unread_pages": verdict.unread_pages,
            "unread_reason": verdict.unread_reason,
            **({"weak_pages": verdict.weak_pages} if verdict.unread_pages else {}),
        },
    )


OCR_BATCH_PAGES = 4
"""Pages per "ocr_batch" span: the trace shows where OCR time went without a span per page of a long scan."""


def record_ocr(timings: list[PageTiming]) -> None:
    """The child process's OCR page timings as spans under the "extract" span, and confidences as metrics."""
    for timing in timings:
        telemetry.OCR_CONFIDENCE.observe(timing.confidence)
    for first in range(0, len(timings), OCR_BATCH_PAGES):
        batch = timings[first : first + OCR_BATCH_PAGES]
        telemetry.record_span(
            "ocr_batch",
            min(t.start_ns for t in batch),
            max(t.end_ns for t in batch),
            {
                "precedente.ocr.pages": [t.number for t in batch],
                "precedente.ocr.page_count": len(batch),
                "precedente.ocr.mean_confidence": sum(t.confidence for t in batch) / len(batch),
            },
        )


async def submit_attachments(parent: DocumentSubmitted, attachments: list[Attachment], ctx: StageContext) -> None:
    """Each attachment becomes a document of its own, with the message's access list, linked to it.

    Their external ids derive from the message's, so a redelivered message registers nothing twice.
    """
    external_id = await ctx.db.fetchval("SELECT external_id FROM documents WHERE id = $1", parent.document_id)
    for index, attachment in enumerate(attachments, start=1):
        content_hash = hashlib.sha256(attachment.data).hexdigest()
        await put_blob(ctx.db, original_key(content_hash), attachment.data, attachment.content_type)
        submission = await ledger.register_submission(
            ctx.db,
            external_id=f"{external_id}#attachment-{index}:{attachment.filename}",
            filename=attachment.filename,
            content_type=attachment.content_type,
            content_hash=content_hash,
            size_bytes=len(attachment.data),
            source=parent.source,
            access_groups=parent.access_groups,
            deny_groups=parent.deny_groups,  # an attachment is behind its message's ethical wall
            hints=MetadataHints(),
            parent_id=parent.document_id,
        )
        if submission.event is not None:
            await publish(ctx.broker, ctx.settings, Topic.SUBMITTED, submission.event)


def concurrency(settings: Settings) -> int:
    """Documents one extractor process reads at once (the stage admits this many events: shared/runtime/stage.py)."""
    return settings.extractor_concurrency


async def start_reader(ctx: StageContext) -> None:
    """A reading child per document in flight, the page slots they share (flock files in a private folder), and the
    socket their pages ask before each is read whether search lets it go (search_gate.py)."""
    settings = ctx.settings
    readers: asyncio.Queue[IsolatedRunner] = asyncio.Queue()
    for _ in range(concurrency(settings)):
        readers.put_nowait(IsolatedRunner(settings.extract_timeout_s, settings.extract_memory_mb))
    slots = tempfile.mkdtemp(prefix="precedente-ocr-slots-")
    atexit.register(functools.partial(shutil.rmtree, slots, ignore_errors=True))
    ctx.state["readers"] = readers
    ctx.state["page_slots"] = PageSlots(slots, settings.ocr_workers)
    if settings.admission_enabled:
        path = f"{slots}/search-gate.sock"
        yielding = functools.partial(search_load.yield_to_search, ctx.db, settings, "extractor", stopping=ctx.stopping)
        ctx.state["search_gate_server"] = await search_gate.serve(path, lambda bound: yielding(max_yield_s=bound))
        ctx.state["search_gate"] = search_gate.SearchGate(
            path, settings.admission_ocr_page_max_yield_s, settings.extract_timeout_s / 3
        )


SERVICE = StageService.declared("extractor", handle, setup=start_reader, concurrency=concurrency)
