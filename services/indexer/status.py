"""Status statements of documents indexed before the annotator read them (migration 0030): read at the indexer's
start from the stored passages, as services/indexer/precedents.py does for qualified precedents, so an existing
index shows "segundo o acervo" signals without being indexed again. NULL marks the documents never read.
"""

import asyncio
import uuid
from datetime import UTC, datetime

import asyncpg

from precedente.services.indexer.precedents import stored_text
from precedente.shared.legal.status import find_status_statements
from precedente.shared.payloads import StatusSignalRef

_UNREAD = """
SELECT id, created_at, document_type, court
FROM documents
WHERE stage = 'indexed' AND status_signals IS NULL AND (created_at, id) > ($2::timestamptz, $3::uuid)
ORDER BY created_at, id
LIMIT $1
"""


async def backfill(db: asyncpg.Pool, batch: int = 50) -> int:
    """Write the status statements of every indexed document that has none stored (an empty list for a petition,
    as the annotator does); how many were read. Run by the indexer at start, each document in its own statement."""
    await db.execute(
        "UPDATE documents SET status_signals = '[]'"
        " WHERE stage = 'indexed' AND status_signals IS NULL AND document_type = 'peticao'"
    )
    done, after = 0, (datetime.min.replace(tzinfo=UTC), uuid.UUID(int=0))
    while rows := await db.fetch(_UNREAD, batch, *after):
        for row in rows:
            text = await stored_text(db, row["id"])
            found = await asyncio.to_thread(find_status_statements, text, row["court"])
            await db.execute(  # a new version annotated meanwhile wrote its own list: that one stays
                "UPDATE documents SET status_signals = $2 WHERE id = $1 AND status_signals IS NULL",
                row["id"],
                [StatusSignalRef(**s.as_dict()).model_dump() for s in found],
            )
            done += 1
        after = (rows[-1]["created_at"], rows[-1]["id"])
    return done
