"""`precedente inspect FILE`: what the pipeline makes of one file, in this process.

Runs the extractor's and the cleaner's logic directly (no broker, no database) with the same
settings and the same review rule as the extractor stage (services/extractor/policy.py), so an
operator can see why a file went to review, or check a scan before uploading it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rich.console import Console

from precedente.services.annotator.logic import annotate
from precedente.services.chunker.logic import chunk_document
from precedente.services.cleaner.logic import clean_pages
from precedente.services.extractor.logic import BadInput, extract
from precedente.services.extractor.policy import extract_options, review_verdict
from precedente.shared.embeddings.embedders import get_model
from precedente.shared.legal.sections import Section, detect_sections
from precedente.shared.payloads import PAGE_SEPARATOR, Chunk, DocumentMetadata, Page
from precedente.shared.settings import Settings


@dataclass(frozen=True)
class Inspection:
    """Cleaned pages, the review verdict, and what the chunker and annotator make of the text.

    disposition: None (goes on), "review" or "deadletter". A document that goes on may still have unread pages:
    weak OCR pages left out of the index (policy.review_verdict's "unread" outcome), their text left out here too.
    """

    pages: list[Page] = field(default_factory=list)
    reasons: list[str] = field(default_factory=list)
    disposition: str | None = None
    warnings: list[str] = field(default_factory=list)
    metadata: DocumentMetadata | None = None
    sections: list[Section] = field(default_factory=list)
    chunks: list[Chunk] = field(default_factory=list)
    unread_pages: list[int] = field(default_factory=list)
    unread_reason: str | None = None

    @property
    def outcome(self) -> str:
        """ "pass", "unread" (indexed without some pages), "review" or "deadletter"."""
        return self.disposition or ("unread" if self.unread_pages else "pass")

    @property
    def review_needed(self) -> bool:
        return self.disposition is not None

    @property
    def text(self) -> str:
        return PAGE_SEPARATOR.join(page.text for page in self.pages)


def inspect_file(path: Path, settings: Settings) -> Inspection:
    """Extract and clean `path` as the stages would, and say whether it would go to review and why."""
    try:
        document = extract(path.read_bytes(), path.name, **extract_options(settings))
    except BadInput as bad:
        return Inspection(reasons=[bad.reason], disposition=bad.disposition)
    verdict = review_verdict(document, settings)
    document = document.model_copy(update={"unread_pages": verdict.unread_pages})
    cleaned = clean_pages(document.readable_pages())  # as the cleaner stage: unread pages go on empty
    # The same calls the chunker and annotator stages make (no hints: a file inspected here has none).
    metadata = annotate(cleaned, path.name, None, document.pages)
    model = get_model(settings.embedding_variant, settings.embedding_threads)
    chunks = chunk_document(
        cleaned,
        model.token_count,
        max_tokens=settings.chunk_max_tokens,
        overlap_tokens=settings.chunk_overlap_tokens,
    )
    return Inspection(
        pages=cleaned,
        reasons=verdict.reasons,
        disposition="review" if verdict.needed else None,
        warnings=list(document.warnings),
        metadata=metadata,
        sections=detect_sections(cleaned),
        chunks=chunks,
        unread_pages=verdict.unread_pages,
        unread_reason=verdict.unread_reason,
    )


def inspection_json(inspection: Inspection) -> dict[str, Any]:
    """The --json output: pages (number, method, confidence, text), the joined text, the review verdict."""
    return {
        "pages": [
            {"number": p.number, "method": p.method, "confidence": round(p.confidence, 4), "text": p.text}
            for p in inspection.pages
        ],
        "text": inspection.text,
        "review": {
            "needed": inspection.review_needed,
            "reasons": inspection.reasons,
            "disposition": inspection.disposition,
            "outcome": inspection.outcome,
            "unread_pages": inspection.unread_pages,
            "unread_reason": inspection.unread_reason,
        },
        "metadata": inspection.metadata.model_dump(mode="json", exclude={"sources"}) if inspection.metadata else None,
        "sections": [
            {"path": s.path, "first_page": s.page_start, "last_page": s.page_end} for s in inspection.sections
        ],
        "chunks": [
            {
                "section_path": c.section_path,
                "pages": [c.page_start, c.page_end],
                "token_count": c.token_count,
                "is_ementa": c.is_ementa,
                "text": c.text,
            }
            for c in inspection.chunks
        ],
    }


def print_inspection(inspection: Inspection, console: Console) -> None:
    """A readable report: each page's method, confidence and cleaned text, then the verdict."""
    for page in inspection.pages:
        confidence = f"confidence {page.confidence:.2f}"
        error = f" — FAILED: {page.error}" if page.error else ""
        error += " — UNREAD: left out of the index" if page.number in inspection.unread_pages else ""
        console.rule(f"page {page.number} · {page.method} · {confidence}{error}", style="dim")
        console.print(page.text or "[dim](no text)[/dim]", markup=not page.text, highlight=False)
    for warning in inspection.warnings:
        console.print(f"[yellow]warning:[/yellow] {warning}", highlight=False)
    if inspection.metadata is not None:
        console.rule("metadata", style="dim")
        for name, value in inspection.metadata.model_dump(mode="json", exclude={"sources"}).items():
            if value not in (None, [], ""):
                console.print(f"{name}: {value}", markup=False, highlight=False)
        console.rule(f"{len(inspection.sections)} sections, {len(inspection.chunks)} chunks", style="dim")
        for section in inspection.sections:
            console.print(f"{section.path}  (p. {section.page_start}-{section.page_end})", markup=False)
    console.rule()
    if inspection.unread_pages:
        console.print("[yellow]indexed with unread pages[/yellow] (listed for review as unread_pages)")
        console.print(f"  - {inspection.unread_reason}", markup=False, highlight=False)
        return
    if not inspection.review_needed:
        console.print(f"[green]no review needed[/green]: {len(inspection.pages)} page(s) go on to the cleaner")
        return
    where = "dead-letter" if inspection.disposition == "deadletter" else "review"
    console.print(f"[red]{where}[/red]", highlight=False)
    for reason in inspection.reasons:
        console.print(f"  - {reason}", markup=False, highlight=False)
