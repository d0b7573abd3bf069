"""Collection statistics for BM25 (document frequency per lexeme, collection size, mean chunk length).

They live in materialized views (migration 0006) that the indexer refreshes a little after it writes:
soon enough that a search right after ingestion sees them, seldom enough that a large collection does
not spend its time recounting (a refresh waits at least ten times as long as the last one took).
REFRESH needs the views' owner, which the services' role is not: the refresh is the owner's SECURITY
DEFINER function refresh_lexical_statistics() (migration 0011). Each language's mean passage vector, which the
dense score centres on (services/search/languages.py), is recounted with them: as slow to move, one more pass over
chunks (refresh_language_centroids(), migration 0023), paid for in the same backoff.
"""

import asyncio
import logging
import time
from dataclasses import dataclass, field

import asyncpg

log = logging.getLogger(__name__)

REFRESH_LOCK = 0x5052_4543_4C58  # advisory lock key: one refresh at a time across indexer replicas


async def refresh_statistics(db: asyncpg.Pool) -> bool:
    """Recount the statistics; False when another process is recounting them right now."""
    async with db.acquire() as conn:
        if not await conn.fetchval("SELECT pg_try_advisory_lock($1)", REFRESH_LOCK):
            return False
        try:
            await conn.execute("SELECT refresh_lexical_statistics()")
            await conn.execute("SELECT refresh_language_centroids()")
        finally:
            await conn.execute("SELECT pg_advisory_unlock($1)", REFRESH_LOCK)
    return True


@dataclass
class StatisticsRefresher:
    """Debounced refresh: `written()` after each write; `run()` refreshes once writes pause."""

    db: asyncpg.Pool
    quiet_s: float = 2.0
    min_interval_s: float = 5.0
    _dirty_since: float | None = None
    _last_write: float = 0.0
    _next_allowed: float = 0.0
    _wake: asyncio.Event = field(default_factory=asyncio.Event)

    def written(self) -> None:
        now = time.monotonic()
        self._last_write = now
        if self._dirty_since is None:
            self._dirty_since = now
        self._wake.set()

    async def run(self) -> None:
        while True:
            await self._wake.wait()
            now = time.monotonic()
            quiet_until = self._last_write + self.quiet_s
            # Writes that never pause (bulk ingestion) still get a refresh every min_interval_s or so.
            due = max(min(quiet_until, (self._dirty_since or now) + self.min_interval_s), self._next_allowed)
            if now < due:
                await asyncio.sleep(due - now)
                continue
            self._wake.clear()
            self._dirty_since = None
            started = time.monotonic()
            try:
                refreshed = await refresh_statistics(self.db)
            except (OSError, asyncpg.PostgresError) as err:
                log.warning("lexical statistics not refreshed: %s", err)
                refreshed = False
            took = time.monotonic() - started
            self._next_allowed = time.monotonic() + max(self.min_interval_s, 10 * took)
            if not refreshed:  # someone else was recounting, maybe before our write: try again later
                self.written()
