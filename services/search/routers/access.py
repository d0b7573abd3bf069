"""Changing a document's access lists after ingestion: `PUT /documents/{id}/access`.

The change is applied to the ledger and to every chunk of the document (and of its attachments) in one
transaction, so the very next search sees it; it is recorded (who, from what, to what) in
`document_access_changes` and published as `documents.access_changed` for other systems. The indexer
consumes that topic too (services/indexer/access_changes.py), which is how a DMS changes access directly; the
event of a change applied here is recognised there by its `changed_at` and changes nothing again.
"""

import uuid

import asyncpg
from fastapi import APIRouter, HTTPException
from pydantic import BaseModel, Field, field_validator

from precedente.services.search import problems
from precedente.services.search.deps import DbDep, IngesterDep, RelayDep
from precedente.services.search.store import audit
from precedente.shared.bounds import Groups
from precedente.shared.contracts import DocumentAccessChanged, Source, Topic
from precedente.shared.runtime import ledger, outbox

router = APIRouter(tags=["access"])


def _groups(values: list[str]) -> list[str]:
    cleaned = sorted({v.strip() for v in values})
    if "" in cleaned:
        raise ValueError("a group name cannot be empty")
    return cleaned


class AccessRequest(BaseModel):
    access_groups: Groups = Field(min_length=1, description='Allowed groups; "*" is everyone.')
    deny_groups: Groups = Field(
        default_factory=list, description='Denied groups (ethical walls); a deny wins, "*" denies all.'
    )

    @field_validator("access_groups", "deny_groups")
    @classmethod
    def _clean(cls, values: list[str]) -> list[str]:
        return _groups(values)


class AccessChanged(BaseModel):
    document_id: uuid.UUID
    access_groups: list[str]
    deny_groups: list[str]
    documents: list[uuid.UUID] = Field(description="The document and its attachments, all changed.")
    chunks: int


@router.put("/documents/{document_id}/access", response_model=AccessChanged, responses=problems.responses(404, 409))
async def change_access(
    document_id: uuid.UUID, body: AccessRequest, db: DbDep, who: IngesterDep, relay: RelayDep
) -> AccessChanged:
    """Replace the document's allow and deny lists; its attachments follow it.

    Who may change them: a caller with the ingest permission (people, ingest keys) who can see the document
    (404 otherwise, as for a missing one). A caller may wall themselves off: they lose sight of it at once.
    """
    event = DocumentAccessChanged(
        document_id=document_id,
        access_groups=body.access_groups,
        deny_groups=body.deny_groups,
        changed_by=who.user,
        source=Source.UPLOAD,
    )
    queued: list[int] = []

    async def announce(conn: asyncpg.Connection, version: int) -> None:
        announced = event.model_copy(update={"version": version})
        queued.append(await outbox.enqueue(conn, Topic.ACCESS_CHANGED, announced))

    result = await ledger.change_access(db, event, caller_groups=who.groups, announce=announce)
    if result.outcome == "missing":
        audit.record_denied_soon(db, who, document_id, "access.change")  # recorded when the document exists
        raise HTTPException(404, "document not found")
    if result.outcome == "stale":  # another change with a later time was applied meanwhile
        raise HTTPException(409, "a newer access change was applied meanwhile; read the document and try again")
    detail = {"access_groups": result.access_groups, "deny_groups": result.deny_groups}
    await audit.record(db, who, "access.change", document_ids=result.document_ids, detail=detail)
    await relay.send(queued[0])  # or later, when the broker is back
    return AccessChanged(
        document_id=document_id,
        access_groups=result.access_groups,
        deny_groups=result.deny_groups,
        documents=result.document_ids,
        chunks=result.chunks,
    )
