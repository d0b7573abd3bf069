"""`POST /judgments` and `GET /judgments`: a lawyer marks a result relevant or not for the query that found it,
and administrators read what the firm judged (`precedente eval --judgments` measures the ranking on it).

The judge is the credential's user, never a field of the body. A judgment is on a passage of a document the
judge may see: a hidden or missing document, or a passage that is not the document's, is a 404 alike (the
access wall holds for judgments as for everything else). Search never reads judgments, so a judgment changes
nothing another person sees. A person reads their own judgments; only an administrator reads everyone's
(another's name in `person` is a 403 for anyone else).
"""

import uuid
from typing import Annotated, Literal

import asyncpg
from fastapi import APIRouter, HTTPException, Query
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field

from precedente.services.search import problems
from precedente.services.search.deps import (
    DbDep,
    QueryVectorsDep,
    RankingDep,
    SearcherDep,
    SettingsDep,
    visible_document,
)
from precedente.services.search.engine.models import SearchFilters, Text
from precedente.services.search.routers.admin import Moment
from precedente.services.search.store import audit
from precedente.services.search.store import judgments as store
from precedente.services.search.store.judgments import Judgment
from precedente.services.search.store.relevance import active_calibration

router = APIRouter(tags=["judgments"])


class JudgmentRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    query: Text = Field(min_length=1, max_length=2000, description="The query as the judge ran it.")
    document_id: uuid.UUID
    passage_id: int = Field(ge=1, le=2**63 - 1, description="The result's passage_id (or one of other_passages').")
    relevant: bool = Field(description='"relevante" (true) or "não relevante" (false).')
    note: Text | None = Field(None, max_length=2000, description="Why, for whoever reads the judgments.")
    filters: SearchFilters = Field(default_factory=SearchFilters, description="The filters of the judged list.")
    sort: Literal["relevance", "date"] = "relevance"
    shown_rank: int | None = Field(None, ge=1, le=1200, description="Where the result stood in the list, if known.")


class JudgmentList(BaseModel):
    judgments: list[Judgment]
    total: int = Field(description="Judgments matching the filters, over every page.")
    limit: int
    offset: int
    ranking: dict = Field(description="The ranking configuration this service runs now (compare with ranking_id).")


async def _calibration_id(db: asyncpg.Pool) -> int | None:
    calibration = await active_calibration(db)
    return calibration.id if calibration else None


@router.post(
    "/judgments",
    status_code=201,
    response_model=Judgment,
    responses=problems.responses(404) | {200: {"model": Judgment, "description": "An earlier judgment, changed."}},
)
async def record_judgment(
    body: JudgmentRequest,
    who: SearcherDep,
    db: DbDep,
    settings: SettingsDep,
    ranking: RankingDep,
    query_vectors: QueryVectorsDep,
) -> JSONResponse:
    """201 with a new judgment; 200 with the changed one when this judge had judged this passage for this query."""
    await visible_document(db, body.document_id, who)  # 404 alike for a hidden and a missing document
    if not await store.passage_in(db, body.document_id, body.passage_id):
        raise HTTPException(404, "passage not found in this document")
    filters = body.filters.model_dump(mode="json", exclude_none=True)
    configuration = store.ranking_configuration(
        settings, ranking, query_vectors.embedder.model_id, await _calibration_id(db)
    )
    judgment, created = await store.upsert(
        db,
        who,
        query=body.query,
        document_id=body.document_id,
        passage_id=body.passage_id,
        relevant=body.relevant,
        note=body.note,
        filters=filters,
        sort=body.sort,
        ranking=configuration,
        shown_rank=body.shown_rank,
    )
    await audit.record(
        db,
        who,
        "judgment.record",
        document_ids=[body.document_id],
        query=body.query,
        filters=filters or None,
        detail={"judgment_id": judgment.id, "passage_id": body.passage_id, "relevant": body.relevant,
                "changed": not created, "ranking_id": configuration["id"]},
    )  # fmt: skip
    return JSONResponse(judgment.model_dump(mode="json"), status_code=201 if created else 200)


@router.get("/judgments", response_model=JudgmentList, responses=problems.responses(403))
async def list_judgments(
    who: SearcherDep,
    db: DbDep,
    settings: SettingsDep,
    ranking: RankingDep,
    query_vectors: QueryVectorsDep,
    person: Annotated[str | None, Query(description="One judge's (administrators: anyone's).")] = None,
    since: Annotated[Moment | None, Query(description="Judged or changed at or after (RFC 3339).")] = None,
    until: Annotated[Moment | None, Query(description="Judged or changed before (RFC 3339).")] = None,
    query: Annotated[
        str | None, Query(max_length=2000, description="A part of the query (accents, case ignored).")
    ] = None,
    limit: Annotated[int, Query(ge=1, le=10_000)] = 1000,
    offset: Annotated[int, Query(ge=0, le=1_000_000)] = 0,
) -> JudgmentList:
    """Oldest change first. Administrators read everyone's; anyone else their own only."""
    if not who.may("admin"):
        if person is not None and person != who.user:
            raise HTTPException(403, f"{who.user} may read only their own judgments (needs permission: admin)")
        person = who.user
    found, total = await store.read(db, judge=person, since=since, until=until, query=query, limit=limit, offset=offset)
    filters = {"person": person, "since": since.isoformat() if since else None,
               "until": until.isoformat() if until else None, "query": query}  # fmt: skip
    await audit.record(db, who, "judgments.read", filters={k: v for k, v in filters.items() if v})
    current = store.ranking_configuration(settings, ranking, query_vectors.embedder.model_id, await _calibration_id(db))
    return JudgmentList(judgments=found, total=total, limit=limit, offset=offset, ranking=current)
