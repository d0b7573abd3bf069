"""Export with citations (issue 34, item 3): a folder, or a selection of results, as a Word document (DOCX) or as
plain text a lawyer pastes into a petition (services/search/exports.py writes both).

- `GET /folders/{id}/export?format=docx|text`: the items of a folder the caller may open, those whose document
  they may see now (the folder's own reading, services/search/routers/folders.py), in the order they were added.
- `POST /export`: the results picked on the search page (document and passage each, a note if any), in that
  order; a hidden or missing document, or a passage that is not its document's, is a 404 alike, and nothing is
  written.

The citation and ementa are built from the documents' metadata as search builds them. Every export is audited
with the documents it wrote out.
"""

import uuid
from datetime import UTC, datetime
from typing import Annotated, Literal

from fastapi import APIRouter, HTTPException, Query, Response
from pydantic import BaseModel, ConfigDict, Field

from precedente.services.search import exports, problems
from precedente.services.search.deps import DbDep, SearcherDep, visible_document
from precedente.services.search.ementa import ementas
from precedente.services.search.routers.folders import Name, Note, described, member_folder
from precedente.services.search.store import audit
from precedente.services.search.store import exports as store
from precedente.services.search.store import folders as folder_store
from precedente.shared.accounts import Identity
from precedente.shared.bounds import TITLE_MAX, clip
from precedente.shared.legal.citing import CitationFields, format_citation

router = APIRouter(tags=["export"])

Format = Literal["docx", "text"]
FILE = {
    200: {
        "description": "The export: a Word document, or plain text (UTF-8) to paste into a petition.",
        "content": {"application/vnd.openxmlformats-officedocument.wordprocessingml.document": {}, "text/plain": {}},
    }
}
MAX_PICKS = 200


class ExportPick(BaseModel):
    model_config = ConfigDict(extra="forbid")

    document_id: uuid.UUID
    passage_id: int = Field(ge=1, le=2**63 - 1, description="The result's passage_id (or one of other_passages').")
    note: Note | None = None


class ExportRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    title: Name = Field("Pesquisa de precedentes", description="The document's title.")
    format: Format = "docx"
    results: list[ExportPick] = Field(min_length=1, max_length=MAX_PICKS, description="In the order to write.")


def _file(title: str, entries: list[exports.Entry], who: Identity, format: Format) -> Response:
    today = datetime.now(UTC).date()
    if format == "docx":
        body, media_type = exports.to_docx(title, entries, who.user, today), exports.DOCX_TYPE
    else:
        body, media_type = exports.to_text(title, entries, who.user, today).encode(), exports.TEXT_TYPE
    name = exports.filename(title, "docx" if format == "docx" else "txt")
    return Response(body, media_type=media_type, headers={"Content-Disposition": f'attachment; filename="{name}"'})


@router.get(
    "/folders/{folder_id}/export",
    response_class=Response,
    responses=FILE | problems.responses(404),
)
async def export_folder(
    folder_id: str,
    who: SearcherDep,
    db: DbDep,
    format: Annotated[Format, Query(description="docx: a Word document; text: plain text.")] = "docx",
) -> Response:
    """The folder's items the caller may see now, with their citations, ementas, passages and notes."""
    folder = await member_folder(db, folder_id, who)
    rows, _ = await folder_store.items(db, folder.id, list(who.groups))
    items = await described(db, rows)
    entries = [
        exports.Entry(title=i.document_title, citation=i.citation, ementa=i.ementa, passage=i.passage,
                      page_start=i.page_number, page_end=i.page_end, note=i.note)
        for i in items
    ]  # fmt: skip
    await audit.record(db, who, "export.folder", document_ids=[i.document_id for i in items],
                       detail={"folder_id": folder.id, "format": format, "results": len(items)})  # fmt: skip
    return _file(folder.name, entries, who, format)


@router.post("/export", response_class=Response, responses=FILE | problems.responses(404))
async def export_selection(body: ExportRequest, who: SearcherDep, db: DbDep) -> Response:
    """The picked results, in the order picked; 404 alike for a document the caller may not see, a missing one
    and a passage that is not its document's."""
    for document_id in dict.fromkeys(p.document_id for p in body.results):
        await visible_document(db, document_id, who, attempted="export")
    picks = list(dict.fromkeys((p.document_id, p.passage_id) for p in body.results))
    rows = await store.selection(db, picks, list(who.groups))
    if len(rows) != len(picks):
        raise HTTPException(404, "passage not found in this document")
    notes = {(p.document_id, p.passage_id): p.note for p in body.results if p.note}
    ementa_of = await ementas(db, [row["document_id"] for row in rows])
    entries = [
        exports.Entry(
            title=clip(row["title"], TITLE_MAX) or "",
            citation=format_citation(CitationFields.from_mapping(row)),
            ementa=ementa_of.get(row["document_id"]),
            passage=row["passage"],
            page_start=row["page_start"],
            page_end=row["page_end"],
            note=notes.get((row["document_id"], row["passage_id"])),
        )
        for row in rows
    ]
    await audit.record(db, who, "export.selection", document_ids=[row["document_id"] for row in rows],
                       detail={"format": body.format, "results": len(rows), "title": body.title})  # fmt: skip
    return _file(body.title, entries, who, body.format)
