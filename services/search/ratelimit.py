"""Per-caller request budgets kept in PostgreSQL, so every replica of the search service spends the same ones.

A budget is a token bucket (a rate per minute and a burst) kept as GCRA: one timestamp per key, the
"theoretical arrival time" (tat) of the next request, in the table rate_limits
(shared/migrations/0012_rate_limits.sql). Each attempt is one INSERT ... ON CONFLICT DO UPDATE, which locks
the key's row: concurrent attempts from any number of processes queue on it, so a budget of M answers
exactly M of them, never more. Times are the database's clock, the one clock all replicas share. The point
is still to stop one runaway script or password-guessing loop from starving everyone else.
"""

import hashlib
import math
import time
from datetime import datetime

import asyncpg

CLEAN_EVERY_S = 60.0  # how often a process deletes the rows of refilled buckets (a cheap range delete on tat)

# $1 bucket, $2 emission interval T in seconds (60 / per minute), $3 burst, $4 "now" (NULL: the database's).
# A new key, or one whose tat has passed, starts at now: its next tat is now + T. An attempt is allowed while
# its new tat stays within burst * T of now; a refused one leaves the row as it was. The outer SELECT reads the
# row as it was before this statement (a CTE's writes are not visible to it): how far ahead the key already
# was, from which the wait until the next allowed attempt follows.
_TAKE = """
WITH p AS (SELECT coalesce($4::timestamptz, statement_timestamp()) AS now, make_interval(secs => $2) AS t),
taken AS (
    INSERT INTO rate_limits AS r (bucket, tat)
    SELECT $1, p.now + p.t FROM p
    ON CONFLICT (bucket) DO UPDATE
    SET tat = greatest(r.tat, excluded.tat - make_interval(secs => $2)) + make_interval(secs => $2)
    WHERE greatest(r.tat, excluded.tat - make_interval(secs => $2)) <= excluded.tat - make_interval(secs => $2)
        + make_interval(secs => $2 * ($3 - 1))
    RETURNING 1
)
SELECT EXISTS (SELECT 1 FROM taken) AS allowed,
       (SELECT extract(epoch FROM greatest(r.tat, p.now) - p.now) FROM rate_limits r, p WHERE r.bucket = $1) AS ahead
"""


def bucket_of(limit: str, key: str) -> bytes:
    """The row's key: a digest, so the table keeps no user name, address or credential."""
    return hashlib.sha256(f"{limit}\x00{key}".encode("utf-8", "surrogatepass")).digest()


class RateLimiter:
    """One kind of budget (`limit` names it: "search", "login.user"...), the same in every process."""

    def __init__(self, limit: str, per_minute: float, burst: int) -> None:
        self.limit = limit
        self.rate = per_minute / 60.0
        self.burst = float(max(burst, 1))
        self._cleaned_at = time.monotonic()

    async def take(self, db: asyncpg.Pool | asyncpg.Connection, key: str, now: datetime | None = None) -> float:
        """Spend one request of `key`'s budget: 0 when allowed, else the seconds until one is available.
        `now` stands in for the database's clock (tests)."""
        if self.rate <= 0:
            return 0.0  # limiting turned off
        interval = 1.0 / self.rate
        row = await db.fetchrow(_TAKE, bucket_of(self.limit, key), interval, self.burst, now)
        if time.monotonic() - self._cleaned_at > CLEAN_EVERY_S:
            self._cleaned_at = time.monotonic()
            await db.execute("DELETE FROM rate_limits WHERE tat < statement_timestamp()")
        if row["allowed"]:
            return 0.0
        # Refused: the new tat would have been max(tat, now) + T; it must come within burst * T of now.
        ahead = float(row["ahead"]) if row["ahead"] is not None else (self.burst - 1) * interval
        return max(ahead + interval - self.burst * interval, 0.001)


def retry_after(seconds: float) -> str:
    return str(max(1, math.ceil(seconds)))
