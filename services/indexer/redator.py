"""The redator do acórdão of documents annotated before the annotator read it (migration 0033): read at the indexer's
start from the stored passages, so an existing index cites "Red. p/ o acórdão Min. X" without being indexed again.
The annotator writes it (and redator_unread = false) for every document since.
"""

import asyncio
import uuid
from datetime import UTC, datetime

import asyncpg

from precedente.services.indexer.precedents import stored_text
from precedente.shared.legal.codes import DECISION_TYPES
from precedente.shared.legal.document_text import DocumentText
from precedente.shared.legal.judges import redator
from precedente.shared.payloads import Page

# Indexed decisions never read, oldest first, keyset-paged: each is written in its own statement, so a batch that
# fails half-way is taken up where it stopped at the next start.
_UNREAD = """
SELECT id, created_at, document_type
FROM documents
WHERE stage = 'indexed' AND redator_unread AND document_type = ANY($4::text[])
  AND (created_at, id) > ($2::timestamptz, $3::uuid)
ORDER BY created_at, id
LIMIT $1
"""


def read_redator(text: str, document_type: str) -> str | None:
    """The annotator's rule on a text rebuilt from its passages (one page: its head is the text's opening)."""
    return redator(DocumentText([Page(number=1, text=text)]), document_type)


async def backfill(db: asyncpg.Pool, batch: int = 50) -> int:
    """Read the redator of every indexed decision annotated before migration 0033 (others are marked read at once);
    how many were read one by one. Run by the indexer at start."""
    decisions = sorted(DECISION_TYPES)
    await db.execute(
        "UPDATE documents SET redator_unread = false WHERE redator_unread AND NOT (document_type = ANY($1::text[]))",
        decisions,
    )
    done, after = 0, (datetime.min.replace(tzinfo=UTC), uuid.UUID(int=0))
    while rows := await db.fetch(_UNREAD, batch, *after, decisions):
        for row in rows:
            text = await stored_text(db, row["id"])
            name = await asyncio.to_thread(read_redator, text, row["document_type"])
            await db.execute(  # a new version annotated meanwhile wrote its own: that one stays
                "UPDATE documents SET redator = $2, redator_unread = false WHERE id = $1 AND redator_unread",
                row["id"],
                name,
            )
            done += 1
        after = (rows[-1]["created_at"], rows[-1]["id"])
    return done
