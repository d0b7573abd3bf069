"""Documents registered in the real ledger (shared/ledger.py), as an upload or `precedente ingest` would,
for tests that need a document to exist before their stage runs."""

import uuid

import asyncpg

from shared import ledger
from shared.contracts import MetadataHints, Source


async def register(
    pool: asyncpg.Pool,
    *,
    external_id: str | None = None,
    content_hash: str | None = None,
    filename: str = "decisao.pdf",
    size_bytes: int = 10,
    source: Source = Source.CLI,
    access_groups: list[str] | None = None,
    deny_groups: list[str] | None = None,
) -> ledger.Submission:
    """A PDF submitted to the ledger: new bytes (a random hash) unless given; a new document unless
    `external_id` names a known one, whose new version it then is."""
    content_hash = content_hash or uuid.uuid4().hex
    return await ledger.register_submission(
        pool,
        external_id=external_id or f"test:{content_hash}",
        filename=filename,
        content_type="application/pdf",
        content_hash=content_hash,
        size_bytes=size_bytes,
        source=source,
        access_groups=access_groups or ["*"],
        hints=MetadataHints(),
        deny_groups=deny_groups,
    )
