"""The ledger's side of `GET /status`: counts and lists over the documents the caller may see (the access list is
inside every statement, so no count reveals a hidden document)."""

import uuid
from dataclasses import dataclass
from datetime import datetime

from precedente.services.search.store.documents import ACCESS_CLAUSE, Db
from precedente.services.search.store.review import UNREAD_CLAUSE

ACCESS = ACCESS_CLAUSE.replace("$2", "$1")


@dataclass(frozen=True)
class Stopped:
    """A document a stage held back (review) or gave up on (failed)."""

    document_id: uuid.UUID
    filename: str
    stage: str
    halted_in: str | None
    reason_code: str | None
    reason: str | None
    at: datetime


@dataclass(frozen=True)
class Indexed:
    """A document (its current version) indexed recently, with when it was submitted and indexed."""

    document_id: uuid.UUID
    filename: str
    submitted_at: datetime
    indexed_at: datetime


async def stage_counts(db: Db, groups: list[str]) -> dict[str, int]:
    rows = await db.fetch(f"SELECT stage, count(*) AS n FROM documents WHERE {ACCESS} GROUP BY 1", groups)
    return {r["stage"]: r["n"] for r in rows}


async def reason_counts(db: Db, groups: list[str]) -> dict[str, dict[str, int]]:
    """Per stopped stage ("review", "failed"), documents per reason code, most frequent first."""
    rows = await db.fetch(
        f"SELECT stage, coalesce(reason_code, 'unknown') AS code, count(*) AS n FROM documents"
        f" WHERE stage IN ('review', 'failed') AND {ACCESS} GROUP BY 1, 2 ORDER BY 3 DESC",
        groups,
    )
    counts: dict[str, dict[str, int]] = {"review": {}, "failed": {}}
    for r in rows:
        counts[r["stage"]][r["code"]] = r["n"]
    return counts


async def unread_counts(db: Db, groups: list[str]) -> tuple[int, int]:
    """Documents indexed without some pages (the review queue's "unread_pages"), and those pages: searchable, so
    in no stopped stage's count, yet a reviewer's to read."""
    row = await db.fetchrow(
        "SELECT count(*) AS documents, coalesce(sum(cardinality(unread_pages)), 0) AS pages FROM documents"
        f" WHERE {UNREAD_CLAUSE} AND {ACCESS}",
        groups,
    )
    return (row["documents"], row["pages"]) if row else (0, 0)


async def latest_stopped(db: Db, groups: list[str], limit: int = 20) -> list[Stopped]:
    rows = await db.fetch(
        f"SELECT id, filename, stage, halted_in, reason_code, last_error, updated_at FROM documents"
        f" WHERE stage IN ('review', 'failed') AND {ACCESS} ORDER BY updated_at DESC LIMIT {int(limit)}",
        groups,
    )
    return [
        Stopped(r["id"], r["filename"], r["stage"], r["halted_in"], r["reason_code"], r["last_error"], r["updated_at"])
        for r in rows
    ]


async def halted_counts(db: Db, groups: list[str]) -> dict[tuple[str, str], int]:
    """Stopped documents per (stage, the service that stopped them)."""
    rows = await db.fetch(
        f"SELECT stage, halted_in, count(*) AS n FROM documents"
        f" WHERE stage IN ('review', 'failed') AND halted_in IS NOT NULL AND {ACCESS} GROUP BY 1, 2",
        groups,
    )
    return {(r["stage"], r["halted_in"]): r["n"] for r in rows}


async def reached_counts(db: Db, groups: list[str], stages: list[str]) -> dict[str, int]:
    """Per stage, the documents whose current version has reached it at least once (a history entry)."""
    rows = await db.fetch(
        f"SELECT h.stage, count(DISTINCT d.id) AS n FROM documents d"
        f" JOIN document_history h ON h.document_id = d.id AND h.version = d.version"
        f" WHERE h.stage = ANY($2::text[]) AND {ACCESS} GROUP BY 1",
        groups,
        stages,
    )
    return {r["stage"]: r["n"] for r in rows}


async def recently_indexed(db: Db, groups: list[str], limit: int) -> list[Indexed]:
    """Documents indexed in the last hour, slowest first (submission to indexing of the current version)."""
    rows = await db.fetch(
        f"""
        WITH recent AS (
            SELECT d.id, d.filename, d.version,
                   (SELECT max(at) FROM document_history h
                     WHERE h.document_id = d.id AND h.version = d.version AND h.stage = 'indexed') AS indexed_at
              FROM documents d
             WHERE d.stage = 'indexed' AND d.updated_at > now() - interval '1 hour' AND {ACCESS}
        ), timed AS (
            SELECT r.*,
                   (SELECT max(at) FROM document_history h
                     WHERE h.document_id = r.id AND h.version = r.version AND h.stage = 'submitted'
                       AND h.at <= r.indexed_at) AS submitted_at
              FROM recent r
             WHERE r.indexed_at > now() - interval '1 hour'
        )
        SELECT * FROM timed WHERE submitted_at IS NOT NULL
         ORDER BY indexed_at - submitted_at DESC LIMIT {int(limit)}
        """,
        groups,
    )
    return [Indexed(r["id"], r["filename"], r["submitted_at"], r["indexed_at"]) for r in rows if r["submitted_at"]]


async def history_steps(db: Db, document_ids: list[uuid.UUID]) -> dict[uuid.UUID, list[tuple[str, datetime]]]:
    """Each document's history entries (stage, at), oldest first."""
    rows = await db.fetch(
        "SELECT document_id, stage, at FROM document_history WHERE document_id = ANY($1::uuid[]) ORDER BY at, id",
        document_ids,
    )
    steps: dict[uuid.UUID, list[tuple[str, datetime]]] = {}
    for h in rows:
        steps.setdefault(h["document_id"], []).append((h["stage"], h["at"]))
    return steps
