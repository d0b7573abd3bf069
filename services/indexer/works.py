"""Work identity in the index: each indexed document joins the work of its other copies (documents.work_id).

The decision is precedente.shared.legal.works's (keys, MinHash similarity, connected components named by their oldest
member); this module stores each document's fingerprint and finds the candidates through the GIN indexes on work_keys
and work_bands. Every assignment re-forms the works it touches from their stored fingerprints: the works of the
candidates and the document's previous work. That one rule makes a redelivery a no-op, lets a new version that no longer
matches leave its old work (which splits if the document bridged it), merges two works a new document bridges (every row
of the younger work moves to the older one), and lets a deletion split what the deleted document held together
(`forget`).

Two indexer replicas may index two copies at once: a transaction-level advisory lock serialises work
assignment, so the second one sees the first one's fingerprint and joins its work instead of founding
another. It is taken last in the indexer's transaction (after the chunks are written) and released at
commit. A document being re-indexed holds its own row lock while it waits for this lock; should another
assignment need to move that very row, PostgreSQL reports a deadlock and the stage retries the event.
"""

import asyncio
import uuid
from collections.abc import Iterable
from datetime import UTC, datetime

import asyncpg

from precedente.shared.legal.works import Assignment, Fingerprint, Member, fingerprint, form_works
from precedente.shared.payloads import DocumentMetadata

WORKS_LOCK = 0x574F_524B  # advisory lock id ("WORK"): one work assignment at a time across replicas


async def assign_work(
    conn: asyncpg.Connection, document_id: uuid.UUID, metadata: DocumentMetadata, text: str
) -> uuid.UUID:
    """Store the document's fingerprint and put it in its work (inside the caller's transaction); returns
    the work's id, the document's own id when it is a work of its own."""
    found = await asyncio.to_thread(fingerprint, metadata, text)  # CPU work before taking the lock
    await conn.execute("SELECT pg_advisory_xact_lock($1)", WORKS_LOCK)
    previous = await conn.fetchval("SELECT coalesce(work_id, id) FROM documents WHERE id = $1", document_id)
    await conn.execute(
        "UPDATE documents SET work_keys = $2, work_bands = $3, work_minhash = $4 WHERE id = $1",
        document_id,
        found.keys,
        found.bands,
        found.signature,
    )
    linked = await conn.fetch(
        "SELECT DISTINCT coalesce(work_id, id) AS work FROM documents"
        " WHERE id <> $1 AND stage <> 'deleted' AND (work_keys && $2::text[] OR work_bands && $3::text[])",
        document_id,
        found.keys,
        found.bands,
    )
    works = {document_id, *(w for w in [previous] if w is not None), *(r["work"] for r in linked)}
    assignments = await _reform(conn, works)
    work = assignments[document_id].work if document_id in assignments else None
    return work if isinstance(work, uuid.UUID) else document_id


async def forget(conn: asyncpg.Connection, document_id: uuid.UUID) -> None:
    """A deleted document leaves its work and stops matching; the rest of the work is re-formed without it
    (it splits when the document was what held it together). Inside the deletion's transaction, after the
    document is marked deleted."""
    await conn.execute("SELECT pg_advisory_xact_lock($1)", WORKS_LOCK)
    work = await conn.fetchval(
        "UPDATE documents d SET work_id = NULL, work_reason = NULL, work_keys = '{}', work_bands = '{}',"
        " work_minhash = '{}' FROM documents old WHERE d.id = $1 AND old.id = d.id"
        " RETURNING coalesce(old.work_id, old.id)",
        document_id,
    )
    if work is not None:  # also when it named its work: the others still carry its id
        await _reform(conn, {work})


async def _reform(conn: asyncpg.Connection, works: Iterable[uuid.UUID]) -> dict[object, Assignment]:
    """Re-form the live members of these works and write the rows whose work or reason changed."""
    rows = await conn.fetch(
        "SELECT id, created_at, work_id, work_reason, work_keys, work_bands, work_minhash FROM documents"
        " WHERE coalesce(work_id, id) = ANY($1::uuid[]) AND stage <> 'deleted'",
        list(works),
    )
    members = [
        Member(
            id=r["id"],
            age=(r["created_at"], str(r["id"])),
            fingerprint=Fingerprint(list(r["work_keys"]), list(r["work_minhash"]), list(r["work_bands"])),
        )
        for r in rows
    ]
    assignments = form_works(members)
    changed = [
        (r["id"], assignments[r["id"]].work, assignments[r["id"]].reason)
        for r in rows
        if (r["work_id"], r["work_reason"]) != (assignments[r["id"]].work, assignments[r["id"]].reason)
    ]
    if changed:
        await conn.executemany("UPDATE documents SET work_id = $2, work_reason = $3 WHERE id = $1", changed)
    return assignments


# Indexed before work identity existed (migration 0009): no fingerprint yet. Oldest first, so each work is
# named by its oldest member as it would have been had they been indexed with it; keyset-paged, so a
# document whose fingerprint stays empty (no text) is not read again.
_UNFINGERPRINTED = """
SELECT id, created_at, title, document_type, court, document_date, process_number, procedural_class, relator,
       judging_body, judgment_date, publication_date, subject
FROM documents
WHERE stage = 'indexed' AND work_minhash = '{}' AND (created_at, id) > ($2::timestamptz, $3::uuid)
ORDER BY created_at, id
LIMIT $1
"""
_METADATA = ("document_type", "court", "document_date", "process_number", "procedural_class", "relator",
             "judging_body", "judgment_date", "publication_date", "subject")  # fmt: skip


async def backfill(db: asyncpg.Pool, batch: int = 50) -> int:
    """Put every document indexed before work identity in its work, from its stored metadata and chunks;
    how many. Run by the indexer at start (an existing index is migrated without indexing it again)."""
    done, after = 0, (datetime.min.replace(tzinfo=UTC), uuid.UUID(int=0))
    while rows := await db.fetch(_UNFINGERPRINTED, batch, *after):
        for row in rows:
            async with db.acquire() as conn, conn.transaction():
                pending = await conn.fetchval(
                    "SELECT work_minhash = '{}' FROM documents WHERE id = $1 FOR UPDATE", row["id"]
                )
                if not pending:  # another replica's backfill, or the indexer itself, got there first
                    continue
                texts = await conn.fetch("SELECT text FROM chunks WHERE document_id = $1 ORDER BY ordinal", row["id"])
                fields = {name: row[name] for name in _METADATA if row[name] is not None}
                metadata = DocumentMetadata(title=row["title"] or "", **fields)
                await assign_work(conn, row["id"], metadata, "\n".join(t["text"] for t in texts))
                done += 1
        after = (rows[-1]["created_at"], rows[-1]["id"])
    return done
