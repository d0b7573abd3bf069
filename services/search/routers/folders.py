"""Folders per matter ("pastas", issue 34, item 2): a lawyer keeps results (the passage of a work, its page, the
citation) grouped by client or case, with a note on each, and shares a folder with groups of the firm.

- `POST /folders`, `GET /folders` (paged), `GET /folders/{id}` (the folder and a page of its items),
  `PATCH /folders/{id}` (name, shared groups), `DELETE /folders/{id}`.
- `POST /folders/{id}/items` (a passage of a document the caller may see), `PATCH` / `DELETE
  /folders/{id}/items/{item_id}` (its note; remove it).

Who may do what: the owner everything; a member of a group the folder is shared with reads it and adds, annotates
and removes items; anyone else gets a 404, as for a missing folder. A person shares only with their own groups
(an administrator with any). Every reading applies the reader's own access list to each item's document (the
rule search uses) and leaves out deleted documents: a document walled off or deleted after it was added
disappears from the folder, and from its count, for whoever lost sight of it. Changes are audited, and so is a
reading of a folder's items (with the documents shown), as a search is.
"""

import uuid
from datetime import date, datetime
from typing import Annotated

import asyncpg
from fastapi import APIRouter, HTTPException, Path, Query, Response
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field, field_validator

from precedente.services.search import problems
from precedente.services.search.deps import DbDep, SearcherDep, visible_document
from precedente.services.search.ementa import ementas
from precedente.services.search.engine.cards import document_url
from precedente.services.search.engine.models import Text
from precedente.services.search.store import audit
from precedente.services.search.store import folders as store
from precedente.shared.accounts import AccountError, Identity, clean_names
from precedente.shared.bounds import TITLE_MAX, clip
from precedente.shared.legal.citing import CitationFields, format_citation
from precedente.shared.legal.codes import label

router = APIRouter(tags=["folders"])

Name = Annotated[Text, Field(min_length=1, max_length=200)]
Note = Annotated[Text, Field(max_length=4000)]
ItemId = Annotated[int, Path(ge=1, le=2**63 - 1)]


def _groups(values: list[str]) -> list[str]:
    try:
        return clean_names(values, "group")
    except AccountError as err:
        raise ValueError(str(err)) from err


class FolderRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: Name = Field(description='What the matter is called: "Cliente Acme: rescisão".')


class FolderChange(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: Name | None = None
    shared_groups: list[str] | None = Field(
        None, max_length=50, description="The groups whose members may read and add to it (replaces the list)."
    )

    @field_validator("shared_groups")
    @classmethod
    def _clean(cls, values: list[str] | None) -> list[str] | None:
        return None if values is None else _groups(values)


class Folder(BaseModel):
    id: str
    name: str
    owner: str
    shared_groups: list[str]
    created_at: datetime
    updated_at: datetime
    items: int = Field(description="Items whose document the caller may see now.")
    mine: bool = Field(description="The caller owns it: they may rename, share and delete it.")


class FolderList(BaseModel):
    folders: list[Folder]
    total: int = Field(description="Folders the caller may open, over every page.")
    limit: int
    offset: int


class FolderItemRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    document_id: uuid.UUID
    passage_id: int = Field(ge=1, le=2**63 - 1, description="The result's passage_id (or one of other_passages').")
    note: Note | None = Field(None, description="Why it matters for the matter.")


class NoteChange(BaseModel):
    model_config = ConfigDict(extra="forbid")

    note: Note | None = Field(description="The new note; null removes it.")


class FolderItem(BaseModel):
    """A kept result: the passage as it was when kept, the citation and ementa as the document says now."""

    id: int
    document_id: uuid.UUID
    passage_id: int
    work_id: str
    document_title: str
    document_type: str | None
    document_type_label: str | None
    court: str | None
    court_label: str | None
    document_date: date | None
    citation: str | None = Field(description="The reference to paste in a petition, from the metadata.")
    ementa: str | None
    passage: str
    page_number: int
    page_end: int
    note: str | None
    added_by: str
    added_at: datetime
    updated_at: datetime
    document_url: str = Field(description="The original, opening at the passage's page (marked in PDFs).")


class FolderContents(BaseModel):
    folder: Folder
    items: list[FolderItem]
    total: int = Field(description="Items the caller may see, over every page.")
    limit: int
    offset: int


def _folder(row: store.FolderRow, who: Identity) -> Folder:
    return Folder(
        id=row.id, name=row.name, owner=row.owner, shared_groups=row.shared_groups, created_at=row.created_at,
        updated_at=row.updated_at, items=row.items, mine=row.owner == who.user,
    )  # fmt: skip


async def described(db: asyncpg.Pool, rows: list[store.ItemRow]) -> list[FolderItem]:
    """The items as a lawyer reads them: the citation built as search builds it, the document's ementa."""
    ementa_of = await ementas(db, list({row.document_id for row in rows}))
    return [
        FolderItem(
            id=row.id,
            document_id=row.document_id,
            passage_id=row.passage_id,
            work_id=row.work_id,
            document_title=clip(row.title, TITLE_MAX) or "",
            document_type=row.document_type,
            document_type_label=label("document_type", row.document_type),
            court=row.court,
            court_label=label("court", row.court),
            document_date=row.judgment_date or row.publication_date or row.document_date,
            citation=format_citation(CitationFields.from_mapping(row.mapping())),
            ementa=ementa_of.get(row.document_id),
            passage=row.passage,
            page_number=row.page_start,
            page_end=row.page_end,
            note=row.note,
            added_by=row.added_by,
            added_at=row.added_at,
            updated_at=row.updated_at,
            document_url=document_url(row.document_id, row.content_type, row.page_start, row.passage_id),
        )
        for row in rows
    ]


async def member_folder(db: asyncpg.Pool, folder_id: str, who: Identity) -> store.FolderRow:
    """The folder, if the caller owns it or is in a group it is shared with; 404 alike otherwise."""
    found = await store.get(db, folder_id, who)
    if found is None:
        raise HTTPException(404, "folder not found")
    return found


def _owned(folder: store.FolderRow, who: Identity, what: str) -> None:
    if folder.owner != who.user:
        raise HTTPException(403, f"only the folder's owner ({folder.owner}) may {what} it")


@router.post("/folders", status_code=201, response_model=Folder)
async def create_folder(body: FolderRequest, who: SearcherDep, db: DbDep) -> Folder:
    row = await store.create(db, who, body.name)
    await audit.record(db, who, "folder.create", detail={"folder_id": row.id, "name": row.name})
    return _folder(row, who)


@router.get("/folders", response_model=FolderList)
async def list_folders(
    who: SearcherDep,
    db: DbDep,
    limit: Annotated[int, Query(ge=1, le=200)] = 50,
    offset: Annotated[int, Query(ge=0, le=1_000_000)] = 0,
) -> FolderList:
    """The caller's folders and those shared with their groups, most recently changed first."""
    rows, total = await store.listing(db, who, limit, offset)
    return FolderList(folders=[_folder(row, who) for row in rows], total=total, limit=limit, offset=offset)


@router.get("/folders/{folder_id}", response_model=FolderContents, responses=problems.responses(404))
async def get_folder(
    folder_id: str,
    who: SearcherDep,
    db: DbDep,
    limit: Annotated[int, Query(ge=1, le=200)] = 50,
    offset: Annotated[int, Query(ge=0, le=1_000_000)] = 0,
) -> FolderContents:
    """The folder and a page of the items the caller may see now, in the order they were added."""
    folder = await member_folder(db, folder_id, who)
    rows, total = await store.items(db, folder.id, list(who.groups), limit, offset)
    items = await described(db, rows)
    await audit.record(db, who, "folder.read", document_ids=[i.document_id for i in items],
                       detail={"folder_id": folder.id, "items": len(items), "offset": offset})  # fmt: skip
    return FolderContents(folder=_folder(folder, who), items=items, total=total, limit=limit, offset=offset)


@router.patch("/folders/{folder_id}", response_model=Folder, responses=problems.responses(404))
async def change_folder(folder_id: str, body: FolderChange, who: SearcherDep, db: DbDep) -> Folder:
    """Rename it or replace the groups it is shared with (the owner only). A person shares with their own groups;
    an administrator with any."""
    folder = await member_folder(db, folder_id, who)
    _owned(folder, who, "rename or share")
    if body.shared_groups is not None and not who.may("admin"):
        outside = sorted(set(body.shared_groups) - set(who.groups))
        if outside:
            raise HTTPException(403, f"{who.user} may share only with their own groups, not with {', '.join(outside)}")
    await store.update(db, folder.id, name=body.name, shared_groups=body.shared_groups)
    changed = await member_folder(db, folder.id, who)
    detail = {"folder_id": folder.id, "name": changed.name, "shared_groups": changed.shared_groups}
    if body.name is not None and body.name != folder.name:
        detail["previous_name"] = folder.name
    if body.shared_groups is not None:
        detail["previous_shared_groups"] = folder.shared_groups
    await audit.record(db, who, "folder.change", detail=detail)
    return _folder(changed, who)


@router.delete("/folders/{folder_id}", status_code=204, responses=problems.responses(404))
async def delete_folder(folder_id: str, who: SearcherDep, db: DbDep) -> Response:
    """Delete it and its items (the owner only); the documents stay as they are."""
    folder = await member_folder(db, folder_id, who)
    _owned(folder, who, "delete")
    await store.delete(db, folder.id)
    await audit.record(db, who, "folder.delete", detail={"folder_id": folder.id, "name": folder.name})
    return Response(status_code=204)


@router.post(
    "/folders/{folder_id}/items",
    status_code=201,
    response_model=FolderItem,
    responses=problems.responses(404, 409)
    | {200: {"model": FolderItem, "description": "Already in the folder (its note replaced when one was sent)."}},
)
async def add_item(folder_id: str, body: FolderItemRequest, who: SearcherDep, db: DbDep) -> JSONResponse:
    """Keep a passage of a document the caller may see: 201 new, 200 when it was there already; 404 alike for a
    hidden or missing document and a passage that is not the document's; 409 when the folder is full."""
    folder = await member_folder(db, folder_id, who)
    await visible_document(db, body.document_id, who, attempted="folder.add")
    kept = await store.passage(db, body.document_id, body.passage_id)
    if kept is None:
        raise HTTPException(404, "passage not found in this document")
    added = await store.add_item(db, folder.id, who, body.document_id, body.passage_id, kept, body.note)
    if added is None:
        raise HTTPException(409, f"the folder holds {store.MAX_ITEMS} items, the most one may")
    item_id, created = added
    row = await store.item(db, folder.id, item_id, list(who.groups))
    assert row is not None  # seen a moment ago
    await audit.record(
        db, who, "folder.add", document_ids=[body.document_id],
        detail={"folder_id": folder.id, "item_id": item_id, "passage_id": body.passage_id, "new": created},
    )  # fmt: skip
    (item,) = await described(db, [row])
    return JSONResponse(item.model_dump(mode="json"), status_code=201 if created else 200)


async def _visible_item(db: asyncpg.Pool, folder: store.FolderRow, item_id: int, who: Identity) -> store.ItemRow:
    row = await store.item(db, folder.id, item_id, list(who.groups))
    if row is None:
        raise HTTPException(404, "item not found in this folder")
    return row


@router.patch("/folders/{folder_id}/items/{item_id}", response_model=FolderItem, responses=problems.responses(404))
async def change_note(folder_id: str, item_id: ItemId, body: NoteChange, who: SearcherDep, db: DbDep) -> FolderItem:
    """Write, replace or remove an item's note (404 for an item whose document the caller may not see)."""
    folder = await member_folder(db, folder_id, who)
    row = await _visible_item(db, folder, item_id, who)
    await store.set_note(db, row.id, body.note)
    await store.touch(db, folder.id)
    await audit.record(db, who, "folder.note", document_ids=[row.document_id],
                       detail={"folder_id": folder.id, "item_id": row.id})  # fmt: skip
    changed = await _visible_item(db, folder, item_id, who)
    return (await described(db, [changed]))[0]


@router.delete("/folders/{folder_id}/items/{item_id}", status_code=204, responses=problems.responses(404))
async def remove_item(folder_id: str, item_id: ItemId, who: SearcherDep, db: DbDep) -> Response:
    """Take an item out of the folder (404 for an item whose document the caller may not see)."""
    folder = await member_folder(db, folder_id, who)
    row = await _visible_item(db, folder, item_id, who)
    await store.remove_item(db, row.id)
    await store.touch(db, folder.id)
    await audit.record(db, who, "folder.remove", document_ids=[row.document_id],
                       detail={"folder_id": folder.id, "item_id": row.id, "passage_id": row.passage_id})  # fmt: skip
    return Response(status_code=204)
