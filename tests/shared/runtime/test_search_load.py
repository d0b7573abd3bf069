"""Ingestion yields to search through a real PostgreSQL (shared/runtime/search_load.py, migration 0032): a search
replica publishes its load, a pipeline stage about to take its next message waits while that load is busy and goes on
when it stops, and never waits past its bound. Asserted on the order of events and on the metrics, not on time."""

import asyncio
import time
import uuid
from collections.abc import Awaitable, Callable

import asyncpg
import pytest
from prometheus_client import REGISTRY

from precedente.shared.contracts import DocumentCleaned, DocumentExtracted, Stage, Topic
from precedente.shared.runtime import ledger, search_load
from precedente.shared.runtime.stage import Outcome, StageContext, StageService, process
from precedente.shared.settings import Settings
from tests.helpers.ledger import register


def settings(database_url: str, **overrides: float) -> Settings:
    base = {
        "database_url": database_url,
        "admission_busy_in_flight": 2,
        "admission_poll_s": 0.02,
        "admission_max_yield_s": 600,  # in these tests the stage goes on because search stops, not by the bound
        "search_load_window_s": 0.05,  # a search leaves the replica's window quickly: its load is withdrawn
        "search_load_stale_s": 30,
    }
    return Settings(**(base | overrides))


def yielded(stage: str, outcome: str) -> float:
    return (
        REGISTRY.get_sample_value("precedente_admission_yield_seconds_count", {"stage": stage, "outcome": outcome}) or 0
    )


def yielding_now(stage: str) -> float:
    return REGISTRY.get_sample_value("precedente_admission_yielding", {"stage": stage}) or 0


async def until(condition: Callable[[], bool | Awaitable[bool]], what: str) -> None:
    """Poll `condition` until it holds (a generous deadline only turns a hang into a failure)."""
    for _ in range(3000):
        held = condition()
        if held if isinstance(held, bool) else await held:
            return
        await asyncio.sleep(0.01)
    raise AssertionError(f"never happened: {what}")


@pytest.fixture
async def clean_load(pool: asyncpg.Pool) -> None:
    await pool.execute("DELETE FROM search_load")


async def extracted_event(pool: asyncpg.Pool) -> DocumentExtracted:
    submission = await register(pool)
    assert submission.event is not None
    assert await ledger.advance(pool, submission.event, Stage.EXTRACTED, "extractor: text layer")
    return submission.event.follow(
        DocumentExtracted, pages_key=f"extracted/{submission.event.document_id}", page_count=1, confidence=0.97
    )


def recording_stage(name: str, events: list[str]) -> StageService:
    """A stage whose handler notes that it ran and records its own outcome (nothing to publish)."""

    async def handle(event: DocumentExtracted, ctx: StageContext) -> Outcome:
        events.append("handled")
        return Outcome(Topic.CLEANED, event.follow(DocumentCleaned, pages_key="x"), Stage.CLEANED, recorded="ok")

    return StageService(name, Topic.EXTRACTED, Stage.EXTRACTED, Stage.CLEANED, handle)


async def test_a_stage_waits_while_a_replica_reports_load_and_goes_on_when_it_stops(
    pool: asyncpg.Pool, database_url: str, clean_load: None
) -> None:
    config = settings(database_url)
    ctx = StageContext(settings=config, db=pool, broker=None)  # type: ignore[arg-type] - nothing is published
    events: list[str] = []
    replica = search_load.Publisher(pool, config, replica=f"test:{uuid.uuid4().hex[:8]}")
    began = [replica.started(), replica.started()]  # two lawyers' searches in flight
    await replica.tick()
    assert [(r.replica, r.in_flight) for r in await search_load.read(pool)] == [(replica.replica, 2)]
    events.append("search busy")
    before = yielded("adm-probe", "cleared")

    event = await extracted_event(pool)
    stage = asyncio.create_task(process(recording_stage("adm-probe", events), ctx, event.model_dump(mode="json")))
    await until(lambda: yielding_now("adm-probe") == 1, "the stage holding its message back")
    events.append("stage waiting")
    assert not stage.done()

    for start in began:
        replica.ended(start)
    await until(lambda: replica.window.snapshot(time.monotonic()) is None, "both searches leaving the window")
    # Noted before the tick: the stage polls while the tick's DELETE commits and may go on before tick() returns.
    events.append("search idle")
    await replica.tick()  # nothing in flight or in the window: the replica withdraws its load
    assert await search_load.read(pool) == []
    await stage

    assert events == ["search busy", "stage waiting", "search idle", "handled"]
    assert yielded("adm-probe", "cleared") == before + 1
    assert yielding_now("adm-probe") == 0


async def test_a_stage_never_waits_past_its_bound_while_search_stays_busy(
    pool: asyncpg.Pool, database_url: str, clean_load: None
) -> None:
    config = settings(database_url, admission_max_yield_s=0.1)
    ctx = StageContext(settings=config, db=pool, broker=None)  # type: ignore[arg-type] - nothing is published
    events: list[str] = []
    replica = search_load.Publisher(pool, config, replica=f"test:{uuid.uuid4().hex[:8]}")
    replica.started(), replica.started(), replica.started()  # and they never end
    await replica.tick()
    before = yielded("adm-bounded", "bounded")

    event = await extracted_event(pool)
    await process(recording_stage("adm-bounded", events), ctx, event.model_dump(mode="json"))

    assert events == ["handled"]  # slowed, not stopped: ingestion goes on with search still busy
    assert [r.in_flight for r in await search_load.read(pool)] == [3]
    assert yielded("adm-bounded", "bounded") == before + 1


@pytest.mark.parametrize("why", ["stale", "disabled", "quiet"])
async def test_a_stage_goes_straight_on(pool: asyncpg.Pool, database_url: str, clean_load: None, why: str) -> None:
    """A crashed replica's last busy row (older than search_load_stale_s), admission turned off, or one search in
    flight (under admission_busy_in_flight): the stage takes its message at once, no yield counted."""
    config = settings(database_url, admission_max_yield_s=60, admission_enabled=why != "disabled")
    in_flight, age = (1, "0 s") if why == "quiet" else (20, "1 hour")
    await pool.execute(
        "INSERT INTO search_load (replica, in_flight, p95_ms, at) VALUES ('gone:1', $1, 0, clock_timestamp()"
        f" - interval '{age}')",
        in_flight,
    )
    ctx = StageContext(settings=config, db=pool, broker=None)  # type: ignore[arg-type] - nothing is published
    events: list[str] = []
    stage = f"adm-{why}"
    before = sum(yielded(stage, outcome) for outcome in ("cleared", "bounded", "stopping"))

    event = await extracted_event(pool)
    await process(recording_stage(stage, events), ctx, event.model_dump(mode="json"))

    assert events == ["handled"]
    assert sum(yielded(stage, outcome) for outcome in ("cleared", "bounded", "stopping")) == before


async def test_a_replica_withdraws_its_load_on_stop(pool: asyncpg.Pool, database_url: str, clean_load: None) -> None:
    config = settings(database_url, search_load_interval_s=0.02)
    replica = search_load.Publisher(pool, config, replica="stopping:1").start()
    replica.started()
    await until(lambda: _rows(pool, 1), "the load published by the running publisher")
    await replica.stop()
    assert await search_load.read(pool) == []


async def _rows(pool: asyncpg.Pool, n: int) -> bool:
    return len(await search_load.read(pool)) == n
