"""The firm's thesaurus (migration 0029): equivalence sets administrators keep, read by every search.

A set is the names one concept goes by in the firm ("Contrato Azul" | "locação sob medida"). The routes
(services/search/routers/thesaurus.py) and `precedente tesauro` change them, each change in one transaction with
its audit entry. Every search reads firm_thesaurus_version (one row, raised by a trigger on every change) and
rebuilds its concept index only when the number moved (firm_index): a change reaches every replica on its next
search, without a restart, and a firm with no sets searches with the shipped concepts alone, as before.
"""

from dataclasses import dataclass
from datetime import datetime

import asyncpg

from precedente.services.search.concepts import ConceptIndex, with_firm
from precedente.shared.accounts import Identity

Db = asyncpg.Pool | asyncpg.Connection


@dataclass(frozen=True)
class FirmConcept:
    id: int
    names: list[str]
    created_by: str
    created_at: datetime
    updated_by: str
    updated_at: datetime


def _concept(row: asyncpg.Record) -> FirmConcept:
    return FirmConcept(
        row["id"], list(row["names"]), row["created_by"], row["created_at"], row["updated_by"], row["updated_at"]
    )


_COLUMNS = "id, names, created_by, created_at, updated_by, updated_at"


async def page(db: Db, limit: int, offset: int) -> tuple[list[FirmConcept], int]:
    """The firm's sets in the order they were added, and how many there are."""
    rows = await db.fetch(
        f"SELECT {_COLUMNS}, count(*) OVER () AS total FROM firm_concepts ORDER BY id LIMIT $1 OFFSET $2",
        limit,
        offset,
    )
    total = rows[0]["total"] if rows else await db.fetchval("SELECT count(*) FROM firm_concepts")
    return [_concept(row) for row in rows], int(total)


async def get(db: Db, concept_id: int) -> FirmConcept | None:
    row = await db.fetchrow(f"SELECT {_COLUMNS} FROM firm_concepts WHERE id = $1", concept_id)
    return _concept(row) if row else None


async def add(db: Db, who: Identity, names: list[str]) -> FirmConcept:
    row = await db.fetchrow(
        f"INSERT INTO firm_concepts (names, created_by, updated_by) VALUES ($1, $2, $2) RETURNING {_COLUMNS}",
        names,
        who.user,
    )
    return _concept(row)


async def edit(db: Db, who: Identity, concept_id: int, names: list[str]) -> FirmConcept | None:
    row = await db.fetchrow(
        "UPDATE firm_concepts SET names = $2, updated_by = $3, updated_at = clock_timestamp() WHERE id = $1"
        f" RETURNING {_COLUMNS}",
        concept_id,
        names,
        who.user,
    )
    return _concept(row) if row else None


async def remove(db: Db, concept_id: int) -> FirmConcept | None:
    row = await db.fetchrow(f"DELETE FROM firm_concepts WHERE id = $1 RETURNING {_COLUMNS}", concept_id)
    return _concept(row) if row else None


async def version(db: Db) -> int:
    """The thesaurus' version: raised by every change (migration 0029's trigger)."""
    return int(await db.fetchval("SELECT version FROM firm_thesaurus_version"))


# Per database pool (two apps of one process, as in the tests, keep their own and read the database as two replicas
# do): the pool, the version its index was built at, the index. A service has one pool; tests make and close many,
# so past KEPT_POOLS the entries are dropped (they are rebuilt on the next search).
_KEPT: dict[int, tuple[object, int, ConceptIndex | None]] = {}
KEPT_POOLS = 8


async def firm_index(conn: asyncpg.Connection, db: object = None) -> ConceptIndex | None:
    """The concepts a search uses: the shipped ones with the firm's sets, None when the firm has none (the shipped
    index as it was). One primary-key read per search; the sets are read again only when the version moved.
    `db`: the pool the connection came from, which keys what is kept (None: nothing is kept). A database before
    migration 0029 (a bench's index kept read-only) has no thesaurus: the shipped concepts alone."""
    try:
        current = await version(conn)
    except asyncpg.UndefinedTableError:
        return None
    kept = _KEPT.get(id(db)) if db is not None else None
    if kept is not None and kept[0] is db and kept[1] == current:
        return kept[2]
    # Read in one statement with the version it holds: a change committed between the two reads is seen by the
    # next search, never lost by keeping an old index under a new number.
    rows = await conn.fetch(
        "SELECT v.version, c.names FROM firm_thesaurus_version v LEFT JOIN firm_concepts c ON true ORDER BY c.id"
    )
    read_at = int(rows[0]["version"]) if rows else current
    sets = [list(row["names"]) for row in rows if row["names"] is not None]
    index = with_firm(sets) if sets else None
    if db is not None:
        if len(_KEPT) >= KEPT_POOLS and id(db) not in _KEPT:
            _KEPT.clear()
        _KEPT[id(db)] = (db, read_at, index)
    return index
