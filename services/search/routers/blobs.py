"""The claim check's own route: a document-management system stores a file under its sha256 here, then publishes
documents.submitted itself (blob_key and content_hash as this answers them), with no database rights of its own.

Before it, only POST /documents stored an original (and published the event for it), so a DMS that published its
own events needed write access to PostgreSQL (issue 35, point 7).
"""

import asyncio
import hashlib
from typing import Annotated

from fastapi import APIRouter, HTTPException, Path, Request
from fastapi.exceptions import RequestValidationError
from pydantic import BaseModel, Field

from precedente.services.search import problems
from precedente.services.search.deps import DbDep, IngesterDep, SettingsDep, ThrottleDep
from precedente.services.search.routers.documents import ORIGINAL_TYPES, sniffed_content_type
from precedente.services.search.store import audit
from precedente.shared.infra.storage import has_blob, original_key, put_blob

router = APIRouter()

SHA256 = r"^[0-9a-f]{64}$"


class StoredBlob(BaseModel):
    """What a documents.submitted event about this file carries: its claim check, its hash and its size."""

    blob_key: str = Field(description="The event's blob_key: originals/<sha256>.")
    content_hash: str = Field(description="The event's content_hash: the file's sha256, lowercase hex.")
    size_bytes: int = Field(description="The event's size_bytes.")
    content_type: str = Field(
        description="What the stages will read it as, decided from its bytes (never from a name or a header)."
    )


def _too_large(limit: int) -> HTTPException:
    return HTTPException(413, f"file is larger than the limit of {limit} bytes")


@router.put(
    "/blobs/{sha256}",
    response_model=StoredBlob,
    openapi_extra={
        "requestBody": {
            "required": True,
            "description": "The file's bytes, as they are (any Content-Type: they are read, never trusted).",
            "content": {t: {"schema": {"type": "string", "format": "binary"}} for t in ORIGINAL_TYPES},
        }
    },
    responses=problems.responses(413, 415, 422),
)
async def put_original(
    sha256: Annotated[str, Path(pattern=SHA256, description="The file's sha256, 64 lowercase hex digits.")],
    request: Request,
    pool: DbDep,
    who: IngesterDep,
    settings: SettingsDep,
    throttle: ThrottleDep,
) -> StoredBlob:
    """Store a file where a documents.submitted event's claim check finds it, for a DMS that publishes its own
    events (docs/integration.md). Idempotent: the same bytes again change nothing, and the answer is the same
    whether they were stored already or not (it says nothing of what others uploaded). The body is refused as
    it streams past max_upload_bytes (413), when its sha256 is not the path's (422), and when no stage could
    read it (415), as POST /documents refuses it; nothing is stored then."""
    await throttle(pool, who, "upload")
    limit = settings.max_upload_bytes
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > limit:  # refused before a byte of it is read
        raise _too_large(limit)
    digest, data = hashlib.sha256(), bytearray()
    async for part in request.stream():  # never more than the limit plus one network read in memory
        if len(data) + len(part) > limit:
            raise _too_large(limit)
        digest.update(part)
        data += part
    if digest.hexdigest() != sha256:
        raise RequestValidationError(
            [
                {
                    "type": "value_error",
                    "loc": ("path", "sha256"),
                    "msg": f"the body's sha256 is {digest.hexdigest()}, not the path's: nothing was stored",
                }
            ]
        )
    content = bytes(data)
    content_type = await asyncio.to_thread(sniffed_content_type, content, f"blob {sha256[:16]}")
    key = original_key(sha256)
    if not await has_blob(pool, key):  # the same bytes again: nothing to write
        await put_blob(pool, key, content, content_type)
    await audit.record(pool, who, "blob.put", detail={"blob_key": key, "size_bytes": len(content)})
    return StoredBlob(blob_key=key, content_hash=sha256, size_bytes=len(content), content_type=content_type)
