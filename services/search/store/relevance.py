"""The relevance grade's calibration from the firm's judgments (migration 0019): the active row, its history,
setting and resetting it; and the per-process cache search reads it through, so a search costs no query for it
but once every CACHE_SECONDS (another replica sees a change within that time; this one at once)."""

import time
from datetime import datetime

import asyncpg
from pydantic import BaseModel, Field

from precedente.services.search.engine.relevance import Calibration

Db = asyncpg.Pool | asyncpg.Connection
CACHE_SECONDS = 30.0


class StoredCalibration(BaseModel):
    id: int
    a: float = Field(description="Slope of p' = sigmoid(a * logit(p) + b) over the shipped probability p.")
    b: float = Field(description="Intercept of the same.")
    judged_results: int = Field(description="Judged results (in the re-run top 10) it was fitted on.")
    brier_before: float = Field(description="The shipped model's Brier score on them (0 is perfect).")
    brier_after: float = Field(description="The refit's Brier score on them, cross-validated over queries.")
    created_by: str
    created_at: datetime
    active: bool

    def calibration(self) -> Calibration:
        return Calibration(self.id, self.a, self.b)


async def active(db: Db) -> StoredCalibration | None:
    row = await db.fetchrow("SELECT * FROM relevance_calibration WHERE active")
    return StoredCalibration(**dict(row)) if row else None


async def history(db: Db, limit: int = 20) -> list[StoredCalibration]:
    """Newest first, the active one among them."""
    rows = await db.fetch("SELECT * FROM relevance_calibration ORDER BY id DESC LIMIT $1", limit)
    return [StoredCalibration(**dict(row)) for row in rows]


async def put(
    db: asyncpg.Pool, created_by: str, *, a: float, b: float, judged_results: int, brier_before: float,
    brier_after: float,
) -> tuple[StoredCalibration, StoredCalibration | None]:  # fmt: skip
    """The new active calibration, and the one it replaced (kept, inactive)."""
    async with db.acquire() as conn, conn.transaction():
        previous = await conn.fetchrow("UPDATE relevance_calibration SET active = false WHERE active RETURNING *")
        row = await conn.fetchrow(
            "INSERT INTO relevance_calibration (a, b, judged_results, brier_before, brier_after, created_by)"
            " VALUES ($1, $2, $3, $4, $5, $6) RETURNING *",
            a,
            b,
            judged_results,
            brier_before,
            brier_after,
            created_by,
        )
    CACHE.invalidate()
    return StoredCalibration(**dict(row)), StoredCalibration(**dict(previous)) if previous else None


async def reset(db: Db) -> StoredCalibration | None:
    """Back to the shipped model; the calibration that was active, if any (kept, inactive)."""
    row = await db.fetchrow("UPDATE relevance_calibration SET active = false WHERE active RETURNING *")
    CACHE.invalidate()
    return StoredCalibration(**dict(row)) if row else None


class CalibrationCache:
    """The active calibration of one pool, read at most every CACHE_SECONDS. One entry: a process serves one
    database (tests that open another pool get it read afresh)."""

    def __init__(self, seconds: float = CACHE_SECONDS) -> None:
        self.seconds = seconds
        self._entry: tuple[object, float, Calibration | None] | None = None

    def invalidate(self) -> None:
        self._entry = None

    async def get(self, db: asyncpg.Pool, conn: Db | None = None) -> Calibration | None:
        """`conn`, when given, runs the read (a search holding a connection does not wait for a second)."""
        now = time.monotonic()
        if self._entry is not None and self._entry[0] is db and now < self._entry[1]:
            return self._entry[2]
        try:
            row = await (conn or db).fetchrow("SELECT id, a, b FROM relevance_calibration WHERE active")
        except asyncpg.UndefinedTableError:  # a database before migration 0019: the shipped model
            row = None
        calibration = Calibration(row["id"], row["a"], row["b"]) if row else None
        self._entry = (db, now + self.seconds, calibration)
        return calibration


CACHE = CalibrationCache()


async def active_calibration(db: asyncpg.Pool, conn: Db | None = None) -> Calibration | None:
    """What search applies to the relevance probability now (None: the shipped model)."""
    return await CACHE.get(db, conn)
