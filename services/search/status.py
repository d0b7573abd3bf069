"""Ingestion status for people and the CLI: how many documents stand at each stage, and why some stopped."""

import uuid
from datetime import datetime

from fastapi import APIRouter
from pydantic import BaseModel

from services.search.deps import ACCESS_CLAUSE, CallerDep, DbDep

router = APIRouter(tags=["status"])

ACCESS = ACCESS_CLAUSE.replace("$2", "$1")


class StoppedDocument(BaseModel):
    document_id: uuid.UUID
    filename: str
    stage: str
    halted_in: str | None
    reason_code: str | None
    reason: str | None
    at: datetime


class IngestionStatus(BaseModel):
    stages: dict[str, int]
    review_reasons: dict[str, int]
    failure_reasons: dict[str, int]
    latest_stopped: list[StoppedDocument]


@router.get("/status", response_model=IngestionStatus)
async def ingestion_status(db: DbDep, who: CallerDep) -> IngestionStatus:
    """Counted only over the documents the caller may see: a count must not reveal a hidden one."""
    stages = await db.fetch(f"SELECT stage, count(*) AS n FROM documents WHERE {ACCESS} GROUP BY 1", who.groups)
    reasons = await db.fetch(
        f"SELECT stage, coalesce(reason_code, 'unknown') AS code, count(*) AS n FROM documents"
        f" WHERE stage IN ('review', 'failed') AND {ACCESS} GROUP BY 1, 2 ORDER BY 3 DESC",
        who.groups,
    )
    stopped = await db.fetch(
        f"SELECT id, filename, stage, halted_in, reason_code, last_error, updated_at FROM documents"
        f" WHERE stage IN ('review', 'failed') AND {ACCESS} ORDER BY updated_at DESC LIMIT 20",
        who.groups,
    )
    return IngestionStatus(
        stages={r["stage"]: r["n"] for r in stages},
        review_reasons={r["code"]: r["n"] for r in reasons if r["stage"] == "review"},
        failure_reasons={r["code"]: r["n"] for r in reasons if r["stage"] == "failed"},
        latest_stopped=[
            StoppedDocument(
                document_id=r["id"],
                filename=r["filename"],
                stage=r["stage"],
                halted_in=r["halted_in"],
                reason_code=r["reason_code"],
                reason=r["last_error"],
                at=r["updated_at"],
            )
            for r in stopped
        ],
    )
