"""The audit log: every search, document opened, review action and access or account change, with who and
when. Append-only in PostgreSQL (migration 0008); besides each person's own history (store/history.py, which they
may clear), the only place a query's text is kept. `GET /audit` (admins,
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

from precedente.shared.accounts import Identity

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


DENIED = "document.denied"
DENIED_EVERY_S = 60
"""A refusal is recorded once per caller, document and attempted action per minute: ~330 denied requests of one
probe against one walled document are 5 entries (one per action), not 330; a flood cannot fill the log."""


async def record_denied(db: asyncpg.Pool, who: Identity, document_id: uuid.UUID, attempted: str) -> bool:
    """Record that `who` was refused `attempted` ("document.open", "review", ...) on a document that exists
    behind their wall; True when an entry was written, False when one of the last minute covers it (or the id
    names no document: guessed ids are not walls). The lookup of the last entry uses the (actor, at) index."""
    async with db.acquire() as conn, conn.transaction():
        await conn.execute("SELECT pg_advisory_xact_lock(hashtext($1))", f"denied:{who.user}:{document_id}:{attempted}")
        status = await conn.execute(
            "INSERT INTO audit_log (actor, actor_kind, action, document_ids, detail)"
            " SELECT $1, $2, $3, ARRAY[$4::uuid], jsonb_build_object('attempted', $5::text, 'every_s', $6::int)"
            " WHERE EXISTS (SELECT 1 FROM documents WHERE id = $4) AND NOT EXISTS ("
            "  SELECT 1 FROM audit_log WHERE actor = $1 AND at > now() - make_interval(secs => $6)"
            "  AND action = $3 AND document_ids = ARRAY[$4::uuid] AND detail->>'attempted' = $5)",
            who.user,
            who.kind,
            DENIED,
            document_id,
            attempted,
            DENIED_EVERY_S,
        )
    return status.endswith(" 1")


_pending: set[asyncio.Task[bool]] = set()


def record_denied_soon(db: asyncpg.Pool, who: Identity, document_id: uuid.UUID, attempted: str) -> None:
    """record_denied off the request's path: a walled id and a missing one answer in the same time (the
    record and its lookup would otherwise tell them apart by a few milliseconds)."""
    task = asyncio.create_task(record_denied(db, who, document_id, attempted))
    _pending.add(task)
    task.add_done_callback(_pending.discard)
    task.add_done_callback(_log_failure)


def _log_failure(task: "asyncio.Task[bool]") -> None:
    if not task.cancelled() and task.exception() is not None:
        log.warning("audit log: a refusal could not be recorded: %s", task.exception())
