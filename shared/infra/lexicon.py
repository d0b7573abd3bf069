"""Collection statistics for BM25 (document frequency per lexeme, collection size, mean chunk length).

They live in materialized views (migration 0006) that the indexer refreshes a little after it writes:
soon enough that a search right after ingestion sees them, seldom enough that a large collection does
not spend its time recounting (a refresh waits at least ten times as long as the last one took).
REFRESH needs the views' owner, which the services' role is not: the refresh is the owner's SECURITY
DEFINER function refresh_lexical_statistics() (migration 0011). Each language's mean passage vector, which the
dense score centres on (services/search/languages.py), is recounted with them: as slow to move, one more pass over
chunks (refresh_language_centroids(), migration 0023), paid for in the same backoff.

What search derives from them only changes when they are refreshed: RefreshedCache keeps it in the search
process under the version of the last refresh (STATISTICS_VERSION, read with the totals every search needs
anyway), so a search reads the centroids and a repeated query's lexemes again only after a refresh (for the
moment between the lexicon's refresh and the centroids', a query seen before keeps its previous counts).
"""

import asyncio
import logging
import time
from collections import OrderedDict
from collections.abc import Hashable
from dataclasses import dataclass, field
from typing import Any

import asyncpg

log = logging.getLogger(__name__)

REFRESH_LOCK = 0x5052_4543_4C58  # advisory lock key: one refresh at a time across indexer replicas

# Which refresh the statistics are of: refresh_language_centroids() stamps every row it writes with clock_timestamp()
# and deletes the languages gone, so the latest stamp and the row count change at every refresh (the lexicon is
# refreshed just before the centroids, in the same refresh_statistics()). A column to read beside lexicon_totals.
STATISTICS_VERSION = "(SELECT row(max(refreshed_at), count(*))::text FROM language_centroids)"


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


MISSING: Any = object()


class RefreshedCache:
    """Values computed from the refreshed statistics (a query's lexemes and their counts, the centroids), for one
    database and one version (STATISTICS_VERSION) at a time: a new version or another pool empties it. At most
    `size` entries, the least recently used dropped first."""

    def __init__(self, size: int = 2048) -> None:
        self.size = size
        self._owner: tuple[object, str | None] | None = None
        self._values: OrderedDict[Hashable, Any] = OrderedDict()

    def get(self, db: object, version: str | None, key: Hashable) -> Any:
        """The value kept for `key`, or MISSING (also when `version` is None: nothing known to key it on)."""
        if version is None or self._owner is None or self._owner[0] is not db or self._owner[1] != version:
            return MISSING
        value = self._values.get(key, MISSING)
        if value is not MISSING:
            self._values.move_to_end(key)
        return value

    def put(self, db: object, version: str | None, key: Hashable, value: Any) -> None:
        if version is None:
            return
        if self._owner is None or self._owner[0] is not db or self._owner[1] != version:
            self._owner = (db, version)
            self._values.clear()
        self._values[key] = value
        if len(self._values) > self.size:
            self._values.popitem(last=False)
