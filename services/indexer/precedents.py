"""Qualified precedents of documents indexed before the annotator read them (migration 0026): read at the indexer's
start from the stored passages, so an existing index gets the filter "Precedente qualificado" without being
indexed again. The annotator writes the list for every document since; NULL marks the ones it never read.
"""

import asyncio
import uuid
from datetime import UTC, datetime

import asyncpg

from precedente.shared.legal.codes import DECISION_TYPES
from precedente.shared.legal.precedents import find_qualified_precedents
from precedente.shared.payloads import QualifiedPrecedentRef

# Indexed decisions never read, oldest first, keyset-paged: each is written in its own statement, so a batch
# that fails half-way is taken up where it stopped at the next start.
_UNREAD = """
SELECT id, created_at, document_type, court
FROM documents
WHERE stage = 'indexed' AND qualified_precedents IS NULL AND (created_at, id) > ($2::timestamptz, $3::uuid)
ORDER BY created_at, id
LIMIT $1
"""
# A document's cleaned text as the chunker cut it: each passage at its own offset (passages overlap; the ementa's
# extra passage repeats what the others hold and is left out).
_PASSAGES = """
SELECT text, char_start FROM chunks WHERE document_id = $1 AND NOT is_ementa ORDER BY ordinal
"""


def rebuilt_text(passages: list[tuple[str, int]]) -> str:
    """The cleaned text from its passages and their offsets: overlapping passages written over one another, any gap
    left as spaces, so "is" is read from the text's own opening as the annotator reads it."""
    if not passages:
        return ""
    size = max(start + len(text) for text, start in passages)
    buffer = [" "] * size
    for text, start in passages:
        buffer[start : start + len(text)] = text
    return "".join(buffer)


async def stored_text(db: asyncpg.Pool, document_id: uuid.UUID) -> str:
    """A document's cleaned text rebuilt from its stored passages (what the annotator read)."""
    return rebuilt_text([(r["text"], r["char_start"]) for r in await db.fetch(_PASSAGES, document_id)])


async def backfill(db: asyncpg.Pool, batch: int = 50) -> int:
    """Write the qualified precedents of every indexed document that has none stored (an empty list for one that
    is not a decision, as the annotator does); how many were read one by one. Run by the indexer at start."""
    await db.execute(
        "UPDATE documents SET qualified_precedents = '[]'"
        " WHERE stage = 'indexed' AND qualified_precedents IS NULL AND NOT (document_type = ANY($1::text[]))",
        sorted(DECISION_TYPES),
    )
    done, after = 0, (datetime.min.replace(tzinfo=UTC), uuid.UUID(int=0))
    while rows := await db.fetch(_UNREAD, batch, *after):
        for row in rows:
            found = []
            if row["document_type"] in DECISION_TYPES:
                text = await stored_text(db, row["id"])
                found = await asyncio.to_thread(find_qualified_precedents, text, row["court"])
            await db.execute(  # a new version annotated meanwhile wrote its own list: that one stays
                "UPDATE documents SET qualified_precedents = $2 WHERE id = $1 AND qualified_precedents IS NULL",
                row["id"],
                [QualifiedPrecedentRef(**p.as_dict()).model_dump() for p in found],
            )
            done += 1
        after = (rows[-1]["created_at"], rows[-1]["id"])
    return done
