"""The audit log: every search, document opened, review action and access or account change, with who and
when. Append-only in PostgreSQL (migration 0008); the only place a query's text is kept. `GET /audit` (admins,
services/search/routers/admin.py) and `precedente audit` read it; a retention setting prunes it.
"""

import asyncio
import contextlib
import logging
import uuid
from collections.abc import Iterable
from datetime import datetime
from typing import Any

import asyncpg
from pydantic import BaseModel

from shared.accounts import Identity

log = logging.getLogger(__name__)


class AuditEntry(BaseModel):
    id: int
    at: datetime
    actor: str
    actor_kind: str
    action: str
    document_ids: list[uuid.UUID]
    query: str | None
    filters: dict[str, Any] | None
    detail: dict[str, Any]


async def record(
    db: asyncpg.Pool | asyncpg.Connection,
    who: Identity,
    action: str,
    *,
    document_ids: Iterable[uuid.UUID] = (),
    query: str | None = None,
    filters: dict[str, Any] | None = None,
    detail: dict[str, Any] | None = None,
) -> None:
    await db.execute(
        "INSERT INTO audit_log (actor, actor_kind, action, document_ids, query, filters, detail)"
        " VALUES ($1, $2, $3, $4, $5, $6, $7)",
        who.user,
        who.kind,
        action,
        list(dict.fromkeys(document_ids)),
        query,
        filters,
        detail or {},
    )


async def read(
    db: asyncpg.Pool,
    *,
    user: str | None = None,
    since: datetime | None = None,
    action: str | None = None,
    document_id: uuid.UUID | None = None,
    limit: int = 1000,
) -> list[AuditEntry]:
    rows = await db.fetch(
        "SELECT * FROM audit_log WHERE ($1::text IS NULL OR actor = $1) AND ($2::timestamptz IS NULL OR at >= $2)"
        " AND ($3::text IS NULL OR action = $3 OR starts_with(action, $3 || '.'))"
        " AND ($4::uuid IS NULL OR document_ids @> ARRAY[$4::uuid]) ORDER BY id DESC LIMIT $5",
        user,
        since,
        action,
        document_id,
        limit,
    )
    return [AuditEntry(**{**dict(row), "document_ids": list(row["document_ids"])}) for row in rows]


async def prune(db: asyncpg.Pool, retention_days: int) -> int:
    """Delete entries older than the retention: the owner's prune_audit_log() (migration 0011), the only
    deletion the append-only trigger lets through; the services' role may not delete audit rows itself."""
    return int(await db.fetchval("SELECT prune_audit_log($1)", retention_days))


async def prune_periodically(db: asyncpg.Pool, retention_days: int, every_s: float = 3600) -> None:
    """The search service's retention job: every replica may run it, deleting the same old rows is harmless."""
    while True:
        with contextlib.suppress(asyncpg.PostgresError, OSError):
            if deleted := await prune(db, retention_days):
                log.info("audit log: pruned %d entries older than %d days", deleted, retention_days)
        await asyncio.sleep(every_s)
