"""Search's load, shared through PostgreSQL (migration 0032), and the stages' bounded wait for it.

A search replica counts its searches (admission.LoadWindow) and, while it has any, publishes them every
settings.search_load_interval_s (Publisher); a pipeline stage calls yield_to_search before its next piece of work,
and waits while admission.decide says search is busy, at most settings.admission_max_yield_s. A database that
cannot be read never holds ingestion back: the stage goes on.
"""

import asyncio
import contextlib
import dataclasses
import logging
import os
import socket
import time
from collections.abc import Awaitable, Callable

import asyncpg

from precedente.shared.runtime import telemetry
from precedente.shared.runtime.admission import LoadWindow, ReplicaLoad, Thresholds, decide
from precedente.shared.settings import Settings

log = logging.getLogger(__name__)
STOP_WAIT_S = 5.0  # how long stop() lets a tick in flight finish


def replica_name() -> str:
    """This process among the replicas: host and pid (a pod's host name is its own)."""
    return f"{socket.gethostname()}:{os.getpid()}"[:200]


async def publish(db: asyncpg.Pool, replica: str, in_flight: int, p95_ms: float) -> None:
    await db.execute(
        "INSERT INTO search_load (replica, in_flight, p95_ms, at) VALUES ($1, $2, $3, clock_timestamp())"
        " ON CONFLICT (replica) DO UPDATE SET in_flight = $2, p95_ms = $3, at = clock_timestamp()",
        replica,
        in_flight,
        p95_ms,
    )


async def withdraw(db: asyncpg.Pool, replica: str) -> None:
    await db.execute("DELETE FROM search_load WHERE replica = $1", replica)


async def read(db: asyncpg.Pool) -> list[ReplicaLoad]:
    rows = await db.fetch(
        "SELECT replica, in_flight, p95_ms, extract(epoch FROM clock_timestamp() - at)::float8 AS age_s"
        " FROM search_load"
    )
    return [ReplicaLoad(r["replica"], r["in_flight"], r["p95_ms"], r["age_s"]) for r in rows]


class Publisher:
    """A search replica's load, published while it has any, withdrawn once it has none (and on stop)."""

    def __init__(self, db: asyncpg.Pool, settings: Settings, replica: str | None = None) -> None:
        self.db = db
        self.interval_s = settings.search_load_interval_s
        self.window = LoadWindow(settings.search_load_window_s)
        self.replica = replica or replica_name()
        self._published = False
        self._task: asyncio.Task[None] | None = None
        self._stopping = asyncio.Event()

    def started(self) -> float:
        """A search begins: returns its start, for ended()."""
        self.window.started()
        return time.monotonic()

    def ended(self, began: float) -> None:
        now = time.monotonic()
        self.window.finished(now - began, now)

    async def tick(self) -> None:
        """Publish the window's load now, or withdraw it once there is none."""
        snapshot = self.window.snapshot(time.monotonic())
        if snapshot is not None:
            await publish(self.db, self.replica, *snapshot)
            self._published = True
        elif self._published:
            await withdraw(self.db, self.replica)
            self._published = False

    async def _run(self) -> None:
        while not self._stopping.is_set():
            try:
                await self.tick()
            except Exception as err:  # noqa: BLE001 - search never fails for its load report; the next tick tries again
                log.debug("search load not published: %s", err)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._stopping.wait(), self.interval_s)

    def start(self) -> "Publisher":
        self._task = asyncio.create_task(self._run())
        return self

    async def stop(self) -> None:
        """Ends the loop between two ticks, then withdraws the load. A tick cancelled mid-publish could leave its row
        behind: the server may apply an upsert the client gave up on after the withdrawal (a flaky test showed it)."""
        if self._task is not None:
            self._stopping.set()
            _, pending = await asyncio.wait({self._task}, timeout=STOP_WAIT_S)
            for task in pending:  # a tick stuck on an unreachable database
                task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)
        if self._published:
            try:
                await withdraw(self.db, self.replica)
            except Exception as err:  # noqa: BLE001 - a stale row is ignored after search_load_stale_s anyway
                log.debug("search load not withdrawn: %s", err)


async def yield_to_search(
    db: asyncpg.Pool,
    settings: Settings,
    stage: str,
    sleep: Callable[[float], Awaitable[object]] = asyncio.sleep,
    stopping: asyncio.Event | None = None,
    max_yield_s: float | None = None,
) -> float:
    """Wait while search is busy, at most settings.admission_max_yield_s (or `max_yield_s`, for a piece of work
    bounded otherwise: an OCR'd page); returns the seconds waited.

    Called by a stage before its next piece of work. Counted in precedente_admission_yield_seconds by stage and
    by why it went on; only waits that happened are observed (a free pass is not a yield). A stopping stage
    (`stopping` set) waits no more."""
    if not settings.admission_enabled:
        return 0.0
    thresholds = Thresholds.from_settings(settings)
    if max_yield_s is not None:
        thresholds = dataclasses.replace(thresholds, max_yield_s=max_yield_s)
    began, waited, held = time.monotonic(), 0.0, False
    yielding = telemetry.YIELDING.labels(stage)
    try:
        while True:
            try:
                loads = await read(db)
            except Exception as err:  # noqa: BLE001 - an unreadable load never holds ingestion back
                log.warning("%s: search's load unreadable, going on (%s)", stage, err)
                return waited
            decision = decide(loads, waited, thresholds)
            if not decision.wait or (stopping is not None and stopping.is_set()):
                if waited > 0:
                    outcome = decision.outcome or "stopping"
                    telemetry.YIELDED_SECONDS.labels(stage, outcome).observe(waited)
                    log.info("%s: yielded %.1f s to search (%s)", stage, waited, outcome)
                return waited
            if not held:
                yielding.inc()
                held = True
            step = min(settings.admission_poll_s, max(0.0, thresholds.max_yield_s - waited))
            await sleep(step)
            waited = max(waited + step, time.monotonic() - began)  # bounded even where sleep returns at once
    finally:
        if held:
            yielding.dec()
