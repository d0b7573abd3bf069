"""What `precedente inspect` makes of every file of the firm-like archive: one line per document, totals per type.

    .venv/bin/python bench/archive_report.py [--archive ../shared/archive] [--limit N] [--pages N]

Each PDF goes through precedente.inspect.inspect_file (the extractor with the stage's settings and OCR policy,
the cleaner, the annotator with the raw pages beside the cleaned ones, the section detector and the chunker),
so the report shows what the pipeline would store. Per document: language, type, court and judging body, case
number, judgment / publication dates, section and chunk counts, seconds taken, and under it the fields a lawyer
cites the document by (cited_fields: title; an act's number and issuer; a work's authors, venue and year; the
relator, the number of parties and of pedidos); then per type and per language the documents, pages, sections
and chunks. --limit reads only the first N files (sorted by name); --pages only the first N pages of each (a copy
of those pages is inspected, under the file's own name: dates and signatures printed further on are then missed).
Image-only pages are OCR'd as the extractor does, which is what makes a full run slow.
"""

import argparse
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

import pymupdf

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from precedente.inspect import Inspection, inspect_file  # noqa: E402
from precedente.shared.payloads import DocumentMetadata  # noqa: E402
from precedente.shared.settings import Settings  # noqa: E402

ARCHIVE = Path(__file__).resolve().parents[1].parent / "shared" / "archive"


def inspect_pages(path: Path, pages: int | None, settings: Settings) -> tuple[Inspection, int]:
    """The inspection of `path` (of its first `pages` pages when given) and the page count inspected."""
    with pymupdf.open(path) as doc:
        count = doc.page_count
        if pages is None or count <= pages:
            return inspect_file(path, settings), count
        with tempfile.TemporaryDirectory() as folder, pymupdf.open() as part:
            part.insert_pdf(doc, from_page=0, to_page=pages - 1)
            copy = Path(folder) / path.name  # the file's own name: the title falls back to it
            part.save(copy)
            return inspect_file(copy, settings), pages


def row(name: str, inspection: Inspection, pages: int, seconds: float) -> str:
    meta = inspection.metadata
    if meta is None:
        return f"{name:12s} {pages:4d}p  not read: {'; '.join(inspection.reasons)}"
    where = " / ".join(v for v in (meta.court, meta.judging_body) if v) or "-"
    dates = f"{meta.judgment_date or meta.document_date or '-'} pub {meta.publication_date or '-'}"
    number = meta.process_number or meta.act_number or "-"  # a case's number, or an act's
    return (
        f"{name:12s} {pages:4d}p  {meta.language or '-':4s} {meta.document_type:24s} {where[:34]:34s} "
        f"{number[:34]:34s} {dates:26s} {len(inspection.sections):3d}s {len(inspection.chunks):4d}c {seconds:5.1f}s"
    )


def cited_fields(meta: DocumentMetadata) -> str:
    """The fields a citation of the document is built from, those it has: what a reader checks against the text."""
    parts = [f"title: {meta.title}"]
    if meta.document_subtype:
        parts.append(f"subtype: {meta.document_subtype}")
    if meta.act_number or meta.issuing_body:
        parts.append(f"act: {meta.act_number or '-'} by {meta.issuing_body or '-'}")
    if meta.authors or meta.venue or meta.year:
        authors = "; ".join(meta.authors) or "-"
        parts.append(f"authors: {authors} | venue: {meta.venue or '-'} | year: {meta.year or '-'}")
    if meta.relator:
        parts.append(f"relator: {meta.relator}")
    if meta.parties:
        parts.append(f"parties: {len(meta.parties)}")
    if meta.pedidos:
        parts.append(f"pedidos: {len(meta.pedidos)}")
    return "    " + " · ".join(parts)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--archive", type=Path, default=ARCHIVE)
    parser.add_argument("--limit", type=int, default=None, help="inspect only the first N files")
    parser.add_argument("--pages", type=int, default=None, help="inspect only the first N pages of each file")
    args = parser.parse_args()
    settings = Settings()
    files = sorted(args.archive.glob("*.pdf"))[: args.limit]
    totals: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0, 0])
    languages: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0, 0])
    print(f"{'file':12s} {'pages':>5s}  {'lang':4s} {'type':24s} {'court / body':34s} {'number':34s} ", end="")
    print(f"{'judged / published':26s}")
    for path in files:
        started = time.perf_counter()
        inspection, pages = inspect_pages(path, args.pages, settings)
        print(row(path.name, inspection, pages, time.perf_counter() - started))
        if inspection.metadata is not None:
            print(cited_fields(inspection.metadata))
        sys.stdout.flush()
        kind = inspection.metadata.document_type if inspection.metadata else "(not read)"
        language = (inspection.metadata.language or "-") if inspection.metadata else "(not read)"
        for i, value in enumerate((1, pages, len(inspection.sections), len(inspection.chunks))):
            totals[kind][i] += value
            languages[language][i] += value
    print(f"\n{'type':24s} {'docs':>5s} {'pages':>6s} {'sections':>8s} {'chunks':>7s}")
    for kind, (docs, pages, sections, chunks) in sorted(totals.items(), key=lambda item: -item[1][0]):
        print(f"{kind:24s} {docs:5d} {pages:6d} {sections:8d} {chunks:7d}")
    print(f"\n{'language':24s} {'docs':>5s} {'pages':>6s} {'sections':>8s} {'chunks':>7s}")
    for language, (docs, pages, sections, chunks) in sorted(languages.items(), key=lambda item: -item[1][0]):
        print(f"{language:24s} {docs:5d} {pages:6d} {sections:8d} {chunks:7d}")


if __name__ == "__main__":
    main()
