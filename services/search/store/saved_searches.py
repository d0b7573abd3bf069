"""Saved searches' SQL (migration 0027): each person's named searches, when they last looked at each, and when a
digest last carried its news.

Every function that a route calls takes the caller and touches only the caller's rows, (owner_kind, owner) =
(Identity.kind, Identity.user). No row holds a document: what a search finds is computed again under the groups
of the moment (services/search/alerts.py), and `first_indexed` reads only documents those groups may see.
"""

import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import asyncpg

from precedente.services.search.store.documents import ACCESS_CLAUSE
from precedente.shared.accounts import Identity

Db = asyncpg.Pool | asyncpg.Connection

_COLUMNS = (
    "id, owner_kind, owner, owner_groups, name, query, filters, sort, email, created_at, last_visited_at,"
    " digest_sent_at"
)


@dataclass(frozen=True)
class Saved:
    id: int
    owner_kind: str
    owner: str
    owner_groups: list[str]
    name: str
    query: str
    filters: dict[str, Any]
    sort: str
    email: str | None
    created_at: datetime
    last_visited_at: datetime
    digest_sent_at: datetime | None


def _saved(row: Mapping[str, Any]) -> Saved:
    return Saved(**{**dict(row), "owner_groups": list(row["owner_groups"])})


class NameTaken(Exception):
    """The caller already has a saved search of that name."""


async def create(
    db: Db, who: Identity, *, name: str, query: str, filters: dict[str, Any], sort: str, email: str | None
) -> Saved:
    try:
        row = await db.fetchrow(
            "INSERT INTO saved_searches (owner_kind, owner, owner_groups, name, query, filters, sort, email)"
            f" VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING {_COLUMNS}",
            who.kind, who.user, who.groups, name, query, filters, sort, email,
        )  # fmt: skip
    except asyncpg.UniqueViolationError as err:
        raise NameTaken(name) from err
    assert row is not None
    return _saved(row)


async def page(db: Db, who: Identity, limit: int, offset: int) -> tuple[list[Saved], int]:
    """The caller's saved searches, newest first, and how many they have. The caller's groups of now are kept
    beside them: the digest's, for a caller that has no account row to read them from (OIDC, keys)."""
    await db.execute(
        "UPDATE saved_searches SET owner_groups = $3 WHERE owner_kind = $1 AND owner = $2"
        " AND owner_groups IS DISTINCT FROM $3",
        who.kind, who.user, who.groups,
    )  # fmt: skip
    rows = await db.fetch(
        f"SELECT {_COLUMNS}, count(*) OVER () AS total FROM saved_searches WHERE owner_kind = $1 AND owner = $2"
        " ORDER BY created_at DESC, id DESC LIMIT $3 OFFSET $4",
        who.kind, who.user, limit, offset,
    )  # fmt: skip
    if rows:
        return [_saved(r) for r in _without_total(rows)], rows[0]["total"]
    total = await db.fetchval(
        "SELECT count(*) FROM saved_searches WHERE owner_kind = $1 AND owner = $2", who.kind, who.user
    )
    return [], int(total)


def _without_total(rows: Sequence[asyncpg.Record]) -> list[dict[str, Any]]:
    return [{k: v for k, v in dict(r).items() if k != "total"} for r in rows]


async def get(db: Db, who: Identity, saved_id: int) -> Saved | None:
    row = await db.fetchrow(
        f"SELECT {_COLUMNS} FROM saved_searches WHERE id = $1 AND owner_kind = $2 AND owner = $3",
        saved_id, who.kind, who.user,
    )  # fmt: skip
    return _saved(row) if row else None


async def visit(db: Db, who: Identity, saved_id: int) -> Saved | None:
    """The caller looked at it: what is new is counted from now."""
    row = await db.fetchrow(
        "UPDATE saved_searches SET last_visited_at = clock_timestamp(), owner_groups = $4"
        f" WHERE id = $1 AND owner_kind = $2 AND owner = $3 RETURNING {_COLUMNS}",
        saved_id, who.kind, who.user, who.groups,
    )  # fmt: skip
    return _saved(row) if row else None


async def delete(db: Db, who: Identity, saved_id: int) -> bool:
    status = await db.execute(
        "DELETE FROM saved_searches WHERE id = $1 AND owner_kind = $2 AND owner = $3", saved_id, who.kind, who.user
    )
    return not status.endswith(" 0")


async def first_indexed(db: Db, work_ids: Sequence[str], groups: list[str]) -> dict[str, datetime]:
    """When each work first became searchable for these groups: the earliest 'indexed' entry in the history of its
    documents that the groups may see now (a copy behind their wall neither names nor dates the work)."""
    if not work_ids:
        return {}
    rows = await db.fetch(
        "SELECT coalesce(d.work_id, d.id)::text AS work_id, min(h.at) AS at FROM documents d"
        " JOIN document_history h ON h.document_id = d.id AND h.stage = 'indexed'"
        f" WHERE coalesce(d.work_id, d.id) = ANY($1::uuid[]) AND d.stage = 'indexed' AND {ACCESS_CLAUSE}"
        " GROUP BY 1",
        [uuid.UUID(w) for w in work_ids],
        groups,
    )
    return {r["work_id"]: r["at"] for r in rows}


@dataclass(frozen=True)
class Recipient:
    """A saved search the digest mails, with its owner's groups of now: an account's from the users table (None
    when the account is gone or disabled: nothing is mailed), any other caller's as last seen."""

    saved: Saved
    groups: list[str] | None


async def digest_recipients(db: Db) -> list[Recipient]:
    rows = await db.fetch(
        f"SELECT {', '.join('s.' + c.strip() for c in _COLUMNS.split(','))},"
        " u.groups AS user_groups, u.name IS NOT NULL AND u.disabled_at IS NULL AS active"
        " FROM saved_searches s LEFT JOIN users u ON s.owner_kind = 'user' AND u.name = s.owner"
        " WHERE s.email IS NOT NULL ORDER BY s.email, s.owner_kind, s.owner, s.created_at, s.id"
    )
    found = []
    for row in rows:
        saved = _saved({k: v for k, v in dict(row).items() if k not in ("user_groups", "active")})
        if saved.owner_kind == "user":
            groups = list(row["user_groups"]) if row["active"] else None
        else:
            groups = saved.owner_groups
        found.append(Recipient(saved, groups))
    return found


async def mark_digest_sent(db: Db, saved_ids: Sequence[int], at: datetime) -> None:
    await db.execute("UPDATE saved_searches SET digest_sent_at = $2 WHERE id = ANY($1::bigint[])", list(saved_ids), at)
