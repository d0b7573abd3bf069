"""Claim-check storage: originals and stage payloads live in PostgreSQL, events carry their keys.

PostgreSQL is already the durable truth every service reaches, so keeping blobs there avoids a
shared volume between containers; keys are deterministic, so a retried stage overwrites its own
payload instead of leaving an orphan.
"""

import hashlib
import uuid
from typing import TypeVar

import asyncpg
from pydantic import BaseModel

M = TypeVar("M", bound=BaseModel)


def original_key(content_hash: str) -> str:
    return f"originals/{content_hash}"


def stage_key(document_id: uuid.UUID, version: int, stage: str) -> str:
    return f"documents/{document_id}/v{version}/{stage}.json"


async def put_blob(db: asyncpg.Pool | asyncpg.Connection, key: str, content: bytes, content_type: str) -> None:
    await db.execute(
        "INSERT INTO blobs (key, content, content_type) VALUES ($1, $2, $3)"
        " ON CONFLICT (key) DO UPDATE SET content = EXCLUDED.content, content_type = EXCLUDED.content_type",
        key,
        content,
        content_type,
    )


async def has_blob(db: asyncpg.Pool | asyncpg.Connection, key: str) -> bool:
    """Whether a blob is stored under `key`, without reading it (an original may be 200 MB)."""
    return bool(await db.fetchval("SELECT EXISTS (SELECT 1 FROM blobs WHERE key = $1)", key))


class MissingBlob(KeyError):
    """An event's claim check names no stored blob. Retrying cannot help (every producer stores the blob before
    it publishes the event that names it), so a stage dead-letters the document at once with this reason."""

    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key
        self.reason = (
            f"the event's claim check {key[:300]!r} names no stored file: it was never stored, or was removed;"
            " store the file first (POST /documents does both), then publish its event again"
        )

    def __str__(self) -> str:
        return self.reason


async def get_blob(db: asyncpg.Pool | asyncpg.Connection, key: str) -> bytes:
    content = await db.fetchval("SELECT content FROM blobs WHERE key = $1", key)
    if content is None:
        raise MissingBlob(key)
    return bytes(content)


class BlobMismatch(Exception):
    """The stored file is not the one the event's content_hash names: dead-lettered at once (a retry reads the
    same bytes), as `hash_mismatch`."""

    code = "hash_mismatch"

    def __init__(self, key: str, expected: str) -> None:
        super().__init__(key)
        self.reason = (
            f"the file stored under {key[:300]!r} is not the one the event's content_hash {expected[:80]!r} names"
            " (its sha256 differs): publish the event again with the stored file's own hash"
        )

    def __str__(self) -> str:
        return self.reason


async def get_original(db: asyncpg.Pool | asyncpg.Connection, key: str, content_hash: str) -> bytes:
    """The original file an event's claim check names, checked against the event's sha256: a DMS that publishes
    its own events can name a file that is not the one stored (MissingBlob, BlobMismatch)."""
    data = await get_blob(db, key)
    if hashlib.sha256(data).hexdigest() != content_hash.lower():
        raise BlobMismatch(key, content_hash)
    return data


async def put_model(db: asyncpg.Pool | asyncpg.Connection, key: str, payload: BaseModel) -> str:
    await put_blob(db, key, payload.model_dump_json().encode(), "application/json")
    return key


async def get_model(db: asyncpg.Pool | asyncpg.Connection, key: str, model: type[M]) -> M:
    return model.model_validate_json(await get_blob(db, key))
