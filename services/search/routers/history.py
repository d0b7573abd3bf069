"""Each person's search history (issue 34, item 5): `POST /search` records the caller's searches
(services/search/store/history.py); these routes show them to that caller alone, one at a time or a page at a time,
and delete one or all. Re-running one is `POST /search` with its query, filters and sort (the page and
`precedente historico repetir` do it). Retention: PRECEDENTE_HISTORY_RETENTION_DAYS.
"""

from datetime import datetime
from typing import Annotated, Any, Literal

from fastapi import APIRouter, HTTPException, Path, Query, Response
from pydantic import BaseModel, Field

from precedente.services.search import problems
from precedente.services.search.deps import DbDep, SearcherDep, SettingsDep
from precedente.services.search.store import history as store

router = APIRouter(tags=["history"])

EntryId = Annotated[int, Path(ge=1, le=2**63 - 1)]


class HistoryEntry(BaseModel):
    """One search as the person ran it: what POST /search needs to run it again."""

    id: int
    query: str
    filters: dict[str, Any] = Field(description="SearchFilters as they were sent (unset ones left out).")
    sort: Literal["relevance", "date"]
    results: int = Field(description="Works the search found when it ran (SearchResponse.total).")
    at: datetime = Field(description="When it last ran.")


class HistoryPage(BaseModel):
    items: list[HistoryEntry] = Field(description="This page of the caller's searches, the latest first.")
    total: int = Field(description="The caller's searches kept, on every page.")
    limit: int
    offset: int
    retention_days: int = Field(description="Searches older than this many days are deleted.")


class HistoryCleared(BaseModel):
    deleted: int = Field(description="Searches deleted from the caller's history.")


def _entry(entry: store.Entry) -> HistoryEntry:
    return HistoryEntry(
        id=entry.id,
        query=entry.query,
        filters=entry.filters,
        sort="date" if entry.sort == "date" else "relevance",
        results=entry.results,
        at=entry.at,
    )


@router.get("/history", response_model=HistoryPage)
async def list_history(
    who: SearcherDep,
    pool: DbDep,
    settings: SettingsDep,
    limit: Annotated[int, Query(ge=1, le=100)] = 20,
    offset: Annotated[int, Query(ge=0, le=100_000)] = 0,
) -> HistoryPage:
    """The caller's own searches, the latest first; nobody else's, whatever their role."""
    entries, total = await store.page(pool, who, settings.history_retention_days, limit, offset)
    return HistoryPage(
        items=[_entry(e) for e in entries],
        total=total,
        limit=limit,
        offset=offset,
        retention_days=settings.history_retention_days,
    )


@router.get("/history/{entry_id}", response_model=HistoryEntry, responses=problems.responses(404))
async def get_history_entry(entry_id: EntryId, who: SearcherDep, pool: DbDep, settings: SettingsDep) -> HistoryEntry:
    """One of the caller's searches; another person's is a 404, as a missing one."""
    entry = await store.get(pool, who, entry_id, settings.history_retention_days)
    if entry is None:
        raise HTTPException(404, "search not found in your history")
    return _entry(entry)


@router.delete("/history/{entry_id}", status_code=204, responses=problems.responses(404))
async def delete_history_entry(entry_id: EntryId, who: SearcherDep, pool: DbDep) -> Response:
    if not await store.delete(pool, who, entry_id):
        raise HTTPException(404, "search not found in your history")
    return Response(status_code=204)


@router.delete("/history", response_model=HistoryCleared)
async def clear_history(who: SearcherDep, pool: DbDep) -> HistoryCleared:
    """Clear the caller's whole history (the audit log, which administrators read, is not touched)."""
    return HistoryCleared(deleted=await store.clear(pool, who))
