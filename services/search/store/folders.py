"""Folders per matter's SQL (migration 0028): the folders a caller may open (their own, or shared with one of their
groups) and the items of one, each read under the reader's groups now, so an item whose document was walled off
or deleted since it was added is neither listed nor counted for whoever lost sight of it."""

import secrets
import uuid
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any

import asyncpg

from precedente.shared.accounts import Identity
from precedente.shared.legal.citing import CITATION_COLUMNS

Db = asyncpg.Pool | asyncpg.Connection

MAX_ITEMS = 1000
"""Items one folder may hold: an export reads a whole folder at once."""

# The caller may open the folder: they own it, or it is shared with one of their groups ($user, $groups).
MEMBER = "(f.owner = {user} OR f.shared_groups && {groups}::text[])"
# The reader may see the item's document now (search's own rule), and it was not deleted since.
SEEN = "d.stage <> 'deleted' AND public.precedente_visible(d.access_groups, d.deny_groups, {groups}::text[])"


@dataclass(frozen=True)
class FolderRow:
    id: str
    name: str
    owner: str
    shared_groups: list[str]
    created_at: datetime
    updated_at: datetime
    items: int
    """Items whose document the reader may see now."""


@dataclass(frozen=True)
class ItemRow:
    """An item with the columns of its document a citation is built from (shared/legal/citing.py)."""

    id: int
    folder_id: str
    document_id: uuid.UUID
    passage_id: int
    work_id: str
    passage: str
    page_start: int
    page_end: int
    note: str | None
    added_by: str
    added_at: datetime
    updated_at: datetime
    title: str
    filename: str
    content_type: str | None
    document_type: str | None
    court: str | None
    document_date: date | None
    process_number: str | None
    procedural_class: str | None
    relator: str | None
    redator: str | None
    judging_body: str | None
    judgment_date: date | None
    publication_date: date | None
    document_subtype: str | None
    act_number: str | None
    issuing_body: str | None
    authors: list[str] | None
    venue: str | None
    year: int | None
    qualified_precedents: list[dict[str, Any]] | None

    def mapping(self) -> dict[str, Any]:
        return self.__dict__


_FOLDER = (
    "SELECT f.id, f.name, f.owner, f.shared_groups, f.created_at, f.updated_at,"
    " (SELECT count(*) FROM folder_items i JOIN documents d ON d.id = i.document_id"
    f"  WHERE i.folder_id = f.id AND {SEEN.format(groups='$2')}) AS items"
    " FROM folders f"
)
_ITEM = (
    "SELECT i.id, i.folder_id, i.document_id, i.passage_id, i.work_id, i.passage, i.page_start, i.page_end, i.note,"
    " i.added_by, i.added_at, i.updated_at, coalesce(d.title, d.filename) AS title, d.content_type,"
    f" {CITATION_COLUMNS} FROM folder_items i JOIN documents d ON d.id = i.document_id"
)


def _folder(row: asyncpg.Record) -> FolderRow:
    return FolderRow(**{**dict(row), "shared_groups": list(row["shared_groups"])})


async def create(db: Db, who: Identity, name: str) -> FolderRow:
    folder_id = secrets.token_hex(6)
    await db.execute("INSERT INTO folders (id, name, owner) VALUES ($1, $2, $3)", folder_id, name, who.user)
    found = await get(db, folder_id, who)
    assert found is not None
    return found


async def get(db: Db, folder_id: str, who: Identity) -> FolderRow | None:
    """The folder if the caller may open it; None alike for a missing one and one neither theirs nor shared."""
    row = await db.fetchrow(
        f"{_FOLDER} WHERE f.id = $3 AND {MEMBER.format(user='$1', groups='$2')}", who.user, list(who.groups), folder_id
    )
    return _folder(row) if row else None


async def listing(db: Db, who: Identity, limit: int, offset: int) -> tuple[list[FolderRow], int]:
    """The caller's folders and those shared with them, most recently changed first, and how many in all."""
    where = MEMBER.format(user="$1", groups="$2")
    total = await db.fetchval(f"SELECT count(*) FROM folders f WHERE {where}", who.user, list(who.groups))
    rows = await db.fetch(
        f"{_FOLDER} WHERE {where} ORDER BY f.updated_at DESC, f.id LIMIT $3 OFFSET $4",
        who.user, list(who.groups), limit, offset,
    )  # fmt: skip
    return [_folder(row) for row in rows], total


async def update(db: Db, folder_id: str, *, name: str | None, shared_groups: list[str] | None) -> None:
    await db.execute(
        "UPDATE folders SET name = coalesce($2, name), shared_groups = coalesce($3, shared_groups),"
        " updated_at = clock_timestamp() WHERE id = $1",
        folder_id, name, shared_groups,
    )  # fmt: skip


async def delete(db: Db, folder_id: str) -> None:
    await db.execute("DELETE FROM folders WHERE id = $1", folder_id)


async def touch(db: Db, folder_id: str) -> None:
    """A change of its items is a change of the folder: the list shows it among the recent ones."""
    await db.execute("UPDATE folders SET updated_at = clock_timestamp() WHERE id = $1", folder_id)


@dataclass(frozen=True)
class Passage:
    text: str
    page_start: int
    page_end: int
    work_id: str


async def passage(db: Db, document_id: uuid.UUID, passage_id: int) -> Passage | None:
    """The passage if it is this document's (a passage of another document is not kept through this one)."""
    row = await db.fetchrow(
        "SELECT c.text, c.page_start, c.page_end, coalesce(d.work_id, d.id)::text AS work_id"
        " FROM chunks c JOIN documents d ON d.id = c.document_id WHERE c.id = $1 AND c.document_id = $2",
        passage_id,
        document_id,
    )
    return Passage(**dict(row)) if row else None


async def add_item(
    db: asyncpg.Pool, folder_id: str, who: Identity, document_id: uuid.UUID, passage_id: int, kept: Passage,
    note: str | None,
) -> tuple[int, bool] | None:  # fmt: skip
    """The item's id and whether it is new; an item already there keeps its place (and takes `note` if given).
    None when the folder is full (MAX_ITEMS)."""
    async with db.acquire() as conn, conn.transaction():
        await conn.execute("SELECT 1 FROM folders WHERE id = $1 FOR UPDATE", folder_id)  # one count at a time
        existing = await conn.fetchval(
            "UPDATE folder_items SET note = coalesce($4, note), updated_at = clock_timestamp()"
            " WHERE folder_id = $1 AND document_id = $2 AND passage_id = $3 RETURNING id",
            folder_id, document_id, passage_id, note,
        )  # fmt: skip
        if existing is not None:
            return existing, False
        if await conn.fetchval("SELECT count(*) FROM folder_items WHERE folder_id = $1", folder_id) >= MAX_ITEMS:
            return None
        item_id = await conn.fetchval(
            "INSERT INTO folder_items (folder_id, document_id, passage_id, work_id, passage, page_start, page_end,"
            " note, added_by) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING id",
            folder_id, document_id, passage_id, kept.work_id, kept.text, kept.page_start, kept.page_end, note,
            who.user,
        )  # fmt: skip
        await conn.execute("UPDATE folders SET updated_at = clock_timestamp() WHERE id = $1", folder_id)
    return item_id, True


async def items(
    db: Db, folder_id: str, groups: list[str], limit: int = MAX_ITEMS, offset: int = 0
) -> tuple[list[ItemRow], int]:
    """The folder's items the reader may see now, in the order they were added, and how many in all."""
    seen = SEEN.format(groups="$2")
    total = await db.fetchval(
        f"SELECT count(*) FROM folder_items i JOIN documents d ON d.id = i.document_id"
        f" WHERE i.folder_id = $1 AND {seen}",
        folder_id,
        groups,
    )
    rows = await db.fetch(
        f"{_ITEM} WHERE i.folder_id = $1 AND {seen} ORDER BY i.id LIMIT $3 OFFSET $4", folder_id, groups, limit, offset
    )
    return [ItemRow(**dict(row)) for row in rows], total


async def item(db: Db, folder_id: str, item_id: int, groups: list[str]) -> ItemRow | None:
    """One item, if the reader may see its document now; None alike for a missing one and a walled one."""
    row = await db.fetchrow(
        f"{_ITEM} WHERE i.folder_id = $1 AND i.id = $3 AND {SEEN.format(groups='$2')}", folder_id, groups, item_id
    )
    return ItemRow(**dict(row)) if row else None


async def set_note(db: Db, item_id: int, note: str | None) -> None:
    await db.execute("UPDATE folder_items SET note = $2, updated_at = clock_timestamp() WHERE id = $1", item_id, note)


async def remove_item(db: Db, item_id: int) -> None:
    await db.execute("DELETE FROM folder_items WHERE id = $1", item_id)
