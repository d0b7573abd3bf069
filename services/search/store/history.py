"""Each person's search history (migration 0027): what they searched, to see again, re-run or clear.

Every function takes the caller and reads or deletes only the caller's rows, (owner_kind, owner) =
(Identity.kind, Identity.user): nobody reaches another person's history, not even an administrator (the audit
log is where administrators read searches). Entries past the retention are deleted on the next write and never
read.
"""

from dataclasses import dataclass
from datetime import datetime
from typing import Any

import asyncpg

from precedente.shared.accounts import Identity

Db = asyncpg.Pool | asyncpg.Connection


@dataclass(frozen=True)
class Entry:
    id: int
    query: str
    filters: dict[str, Any]
    sort: str
    results: int
    at: datetime


async def record(
    db: Db, who: Identity, query: str, filters: dict[str, Any], sort: str, results: int, retention_days: int
) -> None:
    """Add a search to the caller's history; a search they already ran (the same query, filters and sort) only
    moves to the top with its new time and count, so the list holds each search once. Retention 0 keeps nothing."""
    if retention_days <= 0:
        await prune(db, 0)  # history turned off: what was kept goes too
        return
    await db.execute(
        "WITH moved AS (UPDATE search_history SET at = clock_timestamp(), results = $6"
        "  WHERE owner_kind = $1 AND owner = $2 AND query = $3 AND filters = $4 AND sort = $5 RETURNING id)"
        " INSERT INTO search_history (owner_kind, owner, query, filters, sort, results)"
        " SELECT $1, $2, $3, $4, $5, $6 WHERE NOT EXISTS (SELECT 1 FROM moved)",
        who.kind, who.user, query, filters, sort, results,
    )  # fmt: skip
    await prune(db, retention_days)


async def prune(db: Db, retention_days: int) -> int:
    """Delete every person's entries older than the retention (the `at` index serves it)."""
    status = await db.execute(
        "DELETE FROM search_history WHERE at < clock_timestamp() - make_interval(days => $1)", max(retention_days, 0)
    )
    return int(status.rsplit(" ", 1)[-1])


async def page(db: Db, who: Identity, retention_days: int, limit: int, offset: int) -> tuple[list[Entry], int]:
    """The caller's entries, newest first, and how many they have."""
    rows = await db.fetch(
        "SELECT id, query, filters, sort, results, at, count(*) OVER () AS total FROM search_history"
        " WHERE owner_kind = $1 AND owner = $2 AND at >= clock_timestamp() - make_interval(days => $3)"
        " ORDER BY at DESC, id DESC LIMIT $4 OFFSET $5",
        who.kind, who.user, max(retention_days, 0), limit, offset,
    )  # fmt: skip
    total = rows[0]["total"] if rows else await count(db, who, retention_days)
    return [Entry(**{k: v for k, v in dict(r).items() if k != "total"}) for r in rows], total


async def count(db: Db, who: Identity, retention_days: int) -> int:
    found = await db.fetchval(
        "SELECT count(*) FROM search_history WHERE owner_kind = $1 AND owner = $2"
        " AND at >= clock_timestamp() - make_interval(days => $3)",
        who.kind, who.user, max(retention_days, 0),
    )  # fmt: skip
    return int(found)


async def get(db: Db, who: Identity, entry_id: int, retention_days: int) -> Entry | None:
    row = await db.fetchrow(
        "SELECT id, query, filters, sort, results, at FROM search_history WHERE id = $1 AND owner_kind = $2"
        " AND owner = $3 AND at >= clock_timestamp() - make_interval(days => $4)",
        entry_id, who.kind, who.user, max(retention_days, 0),
    )  # fmt: skip
    return Entry(**dict(row)) if row else None


async def delete(db: Db, who: Identity, entry_id: int) -> bool:
    """One of the caller's entries; False when it is not theirs (or not there)."""
    status = await db.execute(
        "DELETE FROM search_history WHERE id = $1 AND owner_kind = $2 AND owner = $3", entry_id, who.kind, who.user
    )
    return not status.endswith(" 0")


async def clear(db: Db, who: Identity) -> int:
    """Every entry of the caller's; how many there were."""
    status = await db.execute("DELETE FROM search_history WHERE owner_kind = $1 AND owner = $2", who.kind, who.user)
    return int(status.rsplit(" ", 1)[-1])
