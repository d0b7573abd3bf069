"""Saved searches and their alerts (issue 34, item 1): a person saves a query with its filters and sort under a
name; the list says beside each name how many works are new since they last looked ("novos desde a última
visita": services/search/alerts.py), one search shows them, and opening it on the page resets the count.

Every route reads only the caller's own saved searches (another's id is a 404, as a missing one), and what is
new is computed under the caller's groups of now: a document they may not see is never named nor counted.
"""

import re
import uuid
from datetime import datetime
from typing import Annotated, Any, Literal

from fastapi import APIRouter, HTTPException, Path, Query, Response
from pydantic import AfterValidator, BaseModel, ConfigDict, Field

from precedente.services.search import alerts, problems
from precedente.services.search.deps import (
    DbDep,
    IndexGuardDep,
    QueryVectorsDep,
    RankingDep,
    SearcherDep,
    SettingsDep,
    ThrottleDep,
)
from precedente.services.search.engine.models import SearchFilters, Text
from precedente.services.search.store import audit
from precedente.services.search.store import saved_searches as store

router = APIRouter(tags=["saved searches"])

SavedId = Annotated[int, Path(ge=1, le=2**63 - 1)]
EMAIL = re.compile(r"[^@\s]+@[^@\s]+\.[^@\s]+")


def _email(value: str | None) -> str | None:
    if value is None or not value.strip():
        return None
    value = value.strip()
    if not EMAIL.fullmatch(value):
        raise ValueError("not an e-mail address")
    return value


class SavedSearchRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: Text = Field(min_length=1, max_length=200, description="The name the list shows.")
    query: Text = Field(min_length=1, max_length=2000)
    filters: SearchFilters = Field(default_factory=SearchFilters)
    sort: Literal["relevance", "date"] = "relevance"
    email: Annotated[str | None, AfterValidator(_email)] = Field(
        None, max_length=254, description="Where the daily digest of its news goes (when the firm set up SMTP)."
    )


class SavedSearch(BaseModel):
    id: int
    name: str
    query: str
    filters: dict[str, Any] = Field(description="SearchFilters as saved (unset ones left out): POST /search's.")
    sort: Literal["relevance", "date"]
    email: str | None
    created_at: datetime
    last_visited_at: datetime = Field(description="When you last opened it: news are counted from then.")
    new_count: int | None = Field(
        None,
        description='Works it returns now at least "provável", within your access, first indexed after your last'
        " visit (None where not computed).",
    )


class SavedSearchPage(BaseModel):
    items: list[SavedSearch] = Field(description="This page of your saved searches, the newest first.")
    total: int
    limit: int
    offset: int


class SavedSearchNews(BaseModel):
    search: SavedSearch
    new: list[alerts.NewWork] = Field(description="What is new since your last visit, the latest indexed first.")


def _shown(saved: store.Saved, new_count: int | None = None) -> SavedSearch:
    return SavedSearch(
        id=saved.id,
        name=saved.name,
        query=saved.query,
        filters=saved.filters,
        sort="date" if saved.sort == "date" else "relevance",
        email=saved.email,
        created_at=saved.created_at,
        last_visited_at=saved.last_visited_at,
        new_count=new_count,
    )


NOT_FOUND = "saved search not found"


@router.post("/saved-searches", status_code=201, response_model=SavedSearch, responses=problems.responses(409))
async def save_search(body: SavedSearchRequest, who: SearcherDep, pool: DbDep) -> SavedSearch:
    """Save a search under a name of the caller's (409 when they already use that name)."""
    try:
        saved = await store.create(
            pool,
            who,
            name=body.name.strip() or body.name,
            query=body.query,
            filters=body.filters.model_dump(mode="json", exclude_none=True),
            sort=body.sort,
            email=body.email,
        )
    except store.NameTaken as err:
        raise HTTPException(409, f"you already have a saved search named {body.name!r}") from err
    return _shown(saved, 0)


@router.get("/saved-searches", response_model=SavedSearchPage, responses=problems.responses(503))
async def list_saved_searches(
    who: SearcherDep,
    pool: DbDep,
    settings: SettingsDep,
    throttle: ThrottleDep,
    index_guard: IndexGuardDep,
    query_vectors: QueryVectorsDep,
    ranking: RankingDep,
    limit: Annotated[int, Query(ge=1, le=50)] = 10,
    offset: Annotated[int, Query(ge=0, le=100_000)] = 0,
) -> SavedSearchPage:
    """The caller's saved searches, each with its count of what is new since their last visit (each count runs
    its search: one throttled request)."""
    await throttle(pool, who, "search")
    if problem := await index_guard.problem(pool):
        raise HTTPException(503, problem)
    found, total = await store.page(pool, who, limit, offset)
    items = []
    for saved in found:
        new = await alerts.news(pool, saved, who.groups, settings, query_vectors, ranking, saved.last_visited_at)
        items.append(_shown(saved, len(new)))
    return SavedSearchPage(items=items, total=total, limit=limit, offset=offset)


@router.get("/saved-searches/{saved_id}", response_model=SavedSearchNews, responses=problems.responses(404, 503))
async def saved_search_news(
    saved_id: SavedId,
    who: SearcherDep,
    pool: DbDep,
    settings: SettingsDep,
    throttle: ThrottleDep,
    index_guard: IndexGuardDep,
    query_vectors: QueryVectorsDep,
    ranking: RankingDep,
) -> SavedSearchNews:
    """One of the caller's saved searches and what is new in it since their last visit (the visit itself is
    POST /saved-searches/{id}/visit: looking here does not reset the count)."""
    await throttle(pool, who, "search")
    saved = await store.get(pool, who, saved_id)
    if saved is None:
        raise HTTPException(404, NOT_FOUND)
    if problem := await index_guard.problem(pool):
        raise HTTPException(503, problem)
    new = await alerts.news(pool, saved, who.groups, settings, query_vectors, ranking, saved.last_visited_at)
    await audit.record(
        pool,
        who,
        "saved_search.news",
        document_ids=[uuid.UUID(w.document_id) for w in new],
        query=saved.query,
        filters=saved.filters or None,
        detail={"saved_search": saved.id, "new": len(new)},
    )
    return SavedSearchNews(search=_shown(saved, len(new)), new=new)


@router.post("/saved-searches/{saved_id}/visit", response_model=SavedSearch, responses=problems.responses(404))
async def visit_saved_search(saved_id: SavedId, who: SearcherDep, pool: DbDep) -> SavedSearch:
    """The caller opened the search: what is new is counted from now on."""
    saved = await store.visit(pool, who, saved_id)
    if saved is None:
        raise HTTPException(404, NOT_FOUND)
    return _shown(saved, 0)


@router.delete("/saved-searches/{saved_id}", status_code=204, responses=problems.responses(404))
async def delete_saved_search(saved_id: SavedId, who: SearcherDep, pool: DbDep) -> Response:
    if not await store.delete(pool, who, saved_id):
        raise HTTPException(404, NOT_FOUND)
    return Response(status_code=204)
