"""Shared test fixtures: the data beside the checkout and a real running stack (`precedente up`)."""

from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import asyncpg
import pytest

from precedente.harness import FINAL, RunningStack
from shared.db import create_pool, migrate
from shared.embedded import EmbeddedPostgres
from shared.payloads import Page

REPO = Path(__file__).resolve().parents[1]
SHARED_DATA = REPO.parent / "shared"
DOCS = SHARED_DATA / "docs"

__all__ = ["DOCS", "FINAL", "SHARED_DATA", "RunningStack", "read_pages"]


def read_pages(name: str) -> list[Page]:
    """The text-layer pages of a sample document of ../shared/docs, as the extractor's first pass sees them."""
    import pymupdf

    path = DOCS / name
    assert path.exists(), f"sample document {path} is missing: ../shared must sit beside the checkout"
    with pymupdf.open(path) as doc:
        return [Page(number=i + 1, text=p.get_text()) for i, p in enumerate(doc)]


@pytest.fixture(scope="module")
def database_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """An embedded PostgreSQL of the module's own (tests that need the schema call shared.db.migrate)."""
    postgres = EmbeddedPostgres(Path(tmp_path_factory.mktemp("pg")))
    url = postgres.start()
    try:
        yield url
    finally:
        postgres.stop()


@pytest.fixture(scope="module")
async def pool(database_url: str) -> AsyncIterator[asyncpg.Pool]:
    """A connection pool on the module's database, migrated (a module may define its own instead)."""
    await migrate(database_url)
    db = await create_pool(database_url)
    yield db
    await db.close()


@pytest.fixture(scope="session")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningStack]:
    with RunningStack(tmp_path_factory.mktemp("stack")) as running:
        yield running
