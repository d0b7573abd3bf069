"""Operating the service: the health probe, the metrics for administrators, and the audit log."""

import uuid
from datetime import datetime

from fastapi import APIRouter, HTTPException, Query
from fastapi.responses import Response
from prometheus_client import CONTENT_TYPE_LATEST, generate_latest

from services.search.deps import AdminDep, DbDep
from services.search.store.audit import AuditEntry, read, record
from shared import recovery

router = APIRouter()


@router.get("/health")
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
    since: datetime | None = None,
    action: str | None = None,
    document_id: uuid.UUID | None = None,
    limit: int = Query(1000, ge=1, le=100_000),
) -> list[AuditEntry]:
    """Newest first. Reading the audit log is itself recorded."""
    entries = await read(db, user=user, since=since, action=action, document_id=document_id, limit=limit)
    filters = {"user": user, "since": since.isoformat() if since else None, "action": action}
    await record(db, who, "audit.read", filters={k: v for k, v in filters.items() if v})
    return entries
