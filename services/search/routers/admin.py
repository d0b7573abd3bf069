"""Operating the service: the health probe, the metrics for administrators, and the audit log."""

import re
import uuid
from typing import Annotated

from fastapi import APIRouter, HTTPException, Query
from fastapi.responses import Response
from prometheus_client import CONTENT_TYPE_LATEST, generate_latest
from pydantic import AwareDatetime, BeforeValidator

from precedente.services.search import problems
from precedente.services.search.deps import AdminDep, DbDep
from precedente.services.search.store.audit import AuditEntry, read, record
from precedente.shared.runtime import recovery

router = APIRouter()

# RFC 3339, as the contract's `format: date-time` says: a date, a time and an offset. Pydantic alone would also
# take "0" or "1700000000" (a Unix time) or a naive time, which a client meant as something else.
RFC3339 = re.compile(r"\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?([Zz]|[+-]\d{2}:?\d{2})")


def _rfc3339(value: object) -> object:
    if isinstance(value, str) and not RFC3339.fullmatch(value.strip()):
        raise ValueError("not an RFC 3339 date-time with an offset, such as 2026-01-31T12:00:00Z")
    return value


Moment = Annotated[AwareDatetime, BeforeValidator(_rfc3339)]


@router.get("/health", responses=problems.responses(503))
async def health(pool: DbDep) -> dict[str, str]:
    if problem := await recovery.database_problem(pool):
        raise HTTPException(503, problem)  # unavailable, not broken: a balancer or probe may retry
    return {"status": "ok"}


@router.get("/metrics", include_in_schema=False)
async def metrics(who: AdminDep) -> Response:
    """Counters of every document, whatever its access list: administrators only (scrapers use the
    internal metrics port, PRECEDENTE_METRICS_PORT, which needs no credential and is not published)."""
    return Response(generate_latest(), media_type=CONTENT_TYPE_LATEST)


@router.get("/audit", response_model=list[AuditEntry], tags=["audit"])
async def audit_entries(
    db: DbDep,
    who: AdminDep,
    user: str | None = None,
    since: Annotated[Moment | None, Query(description="Entries at or after this moment (RFC 3339).")] = None,
    action: str | None = None,
    document_id: uuid.UUID | None = None,
    limit: int = Query(1000, ge=1, le=100_000),
) -> list[AuditEntry]:
    """Newest first. Reading the audit log is itself recorded."""
    entries = await read(db, user=user, since=since, action=action, document_id=document_id, limit=limit)
    filters = {"user": user, "since": since.isoformat() if since else None, "action": action}
    await record(db, who, "audit.read", filters={k: v for k, v in filters.items() if v})
    return entries
