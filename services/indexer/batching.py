"""Cross-document embedding batches (issue #15): a firm's stream is mostly small documents (an e-mail, a one-page
despacho: 1-3 chunks), so the indexer handles several at once (settings.indexer_concurrency) and their chunks meet
here, in one embedder call, instead of each paying for a call of its own.

Handlers submit the texts of one persisted batch (`EmbeddingBatcher.vectors`); a single worker takes what waits,
in arrival order and whole requests only (a request is never split between calls), up to the batch size, makes ONE
embedder call, and hands each caller its own rows. It starts the next call only once every caller of this one has
persisted its rows (left the `async with`): a killed indexer loses one call's work at most, as when each document
embedded alone. A caller cancelled (a shutdown) drops out without touching the others; a call that fails is made
again request by request, so one document's bad text fails that document alone. A call the stage's stop ends
early returns the rows of the texts it reached: each caller gets the prefix of its rows it has (issue 35, point 8).
"""

import asyncio
import contextlib
import logging
from collections import deque
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass

import numpy as np

log = logging.getLogger(__name__)

Embed = Callable[[list[str]], Awaitable[np.ndarray]]


@dataclass(eq=False)
class _Request:
    texts: list[str]
    result: "asyncio.Future[np.ndarray]"
    released: "asyncio.Future[None]"  # set when the caller has done with its rows (persisted them) or gave up

    def release(self) -> None:
        if not self.released.done():
            self.released.set_result(None)


class EmbeddingBatcher:
    """One embedder call at a time for every handler of the process, each call holding what they have waiting."""

    def __init__(self, embed: Embed, batch_size: int) -> None:
        # One call of texts -> rows (precedente.services.indexer.service.embed_batch, on the embedding thread).
        self.embed = embed
        self.batch_size = max(1, batch_size)
        self.calls = 0  # embedder calls made
        self.in_call = 0  # texts of the call being made (0 between calls)
        self._waiting: deque[_Request] = deque()
        self._worker: asyncio.Task[None] | None = None

    @property
    def waiting(self) -> int:
        """Requests waiting for a call (not counting those of the call being made)."""
        return sum(not r.result.done() for r in self._waiting)

    @contextlib.asynccontextmanager
    async def vectors(self, texts: list[str]) -> AsyncIterator[np.ndarray]:
        """The rows of `texts`, in their order, computed in a call shared with other handlers' requests.

        Persist them inside the block: the next call waits for it. A request longer than the batch size is a call
        of its own; the indexer sends at most one batch per request."""
        if not texts:
            raise ValueError("nothing to embed")
        loop = asyncio.get_running_loop()
        request = _Request(list(texts), loop.create_future(), loop.create_future())
        self._waiting.append(request)
        if self._worker is None or self._worker.done():
            self._worker = asyncio.create_task(self._work(), name="indexer-embedding-batcher")
        try:
            rows = await request.result
        except BaseException:  # cancelled while waiting (the call goes on without it), or the call failed
            request.release()
            raise
        try:
            yield rows
        finally:
            request.release()

    def _take(self) -> list[_Request]:
        """What waits, in arrival order, up to the batch size; the first request always goes, whatever its size."""
        batch: list[_Request] = []
        size = 0
        while self._waiting:
            request = self._waiting[0]
            if request.result.done():  # its caller was cancelled before its turn
                self._waiting.popleft()
                continue
            if batch and size + len(request.texts) > self.batch_size:
                break
            self._waiting.popleft()
            batch.append(request)
            size += len(request.texts)
        return batch

    async def _work(self) -> None:
        """Calls while anything waits, then ends (the next request starts a worker again): nothing to stop."""
        batch: list[_Request] = []
        try:
            while batch := self._take():
                try:
                    await self._call(batch)
                except Exception as err:  # noqa: BLE001 - whose text broke it is unknown: each alone, to find out
                    if len(batch) == 1:
                        _fail(batch[0], err)
                        continue
                    log.warning("indexer: a call of %d requests failed (%s); each is embedded alone", len(batch), err)
                    for request in batch:
                        try:
                            await self._call([request])
                        except Exception as alone:  # noqa: BLE001 - that caller's failure, told to it alone
                            _fail(request, alone)
        except asyncio.CancelledError:  # the loop is closing: no caller waits forever
            for request in [*batch, *self._waiting]:
                request.result.cancel()
            self._waiting.clear()
            raise

    async def _call(self, batch: list[_Request]) -> None:
        live = [r for r in batch if not r.result.done()]
        if not live:
            return
        texts = [t for r in live for t in r.texts]
        self.in_call = len(texts)
        try:
            rows = await self.embed(texts)
        finally:
            self.in_call = 0
        self.calls += 1
        if len(rows) > len(texts):
            raise RuntimeError(f"the embedder returned {len(rows)} rows for {len(texts)} texts")
        start = 0
        for request in live:
            end = start + len(request.texts)
            if not request.result.done():  # cancelled during the call: its rows are dropped
                # Fewer rows than texts: the stage is stopping and the call ended early (embed_batch); each caller
                # gets the rows it has, maybe none, persists them and hands its document back.
                request.result.set_result(rows[start:end])
            else:
                request.release()
            start = end
        # Persisted before the next call: a kill loses this call's rows at most.
        await asyncio.wait([r.released for r in live])


def _fail(request: _Request, err: Exception) -> None:
    if not request.result.done():
        request.result.set_exception(err)
    request.release()
