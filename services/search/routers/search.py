"""`POST /search`: the hybrid search lawyers run (through the gateway and the CLI), with its facets; and
`POST /search/similar`: "Mais como este", the works whose passages are nearest one passage."""

import asyncio
import time

import asyncpg
from fastapi import APIRouter, HTTPException, Request
from opentelemetry import trace

from precedente.services.search import problems
from precedente.services.search.concepts import in_effect
from precedente.services.search.deps import (
    DbDep,
    IndexGuardDep,
    QueryVectorsDep,
    RankingDep,
    SearcherDep,
    SettingsDep,
    Throttle,
    ThrottleDep,
)
from precedente.services.search.engine.candidates import Candidates
from precedente.services.search.engine.models import SearchRequest, SearchResponse, SimilarRequest, SimilarTo
from precedente.services.search.engine.ranking import Ranking
from precedente.services.search.engine.search import hybrid_search
from precedente.services.search.engine.similar import similar_search, similar_source
from precedente.services.search.engine.steps import llm_stage
from precedente.services.search.store import audit, history
from precedente.services.search.store.relevance import active_calibration
from precedente.services.search.store.thesaurus import firm_index
from precedente.services.search.syntax import parse_query
from precedente.shared.accounts import Identity
from precedente.shared.embeddings.embedders import IndexGuard, QueryCache
from precedente.shared.runtime import telemetry
from precedente.shared.runtime.search_load import Publisher
from precedente.shared.settings import Settings

router = APIRouter()


@router.post("/search", response_model=SearchResponse, responses=problems.responses(503))
async def search(
    body: SearchRequest,
    who: SearcherDep,
    pool: DbDep,
    settings: SettingsDep,
    throttle: ThrottleDep,
    index_guard: IndexGuardDep,
    query_vectors: QueryVectorsDep,
    ranking: RankingDep,
    request: Request,
) -> SearchResponse:
    # Counted in this replica's load, which the pipeline stages read to yield to search (shared/runtime/search_load.py).
    load: Publisher | None = getattr(request.app.state, "search_load", None)
    began = load.started() if load is not None else 0.0
    try:
        return await _search(body, who, pool, settings, throttle, index_guard, query_vectors, ranking)
    finally:
        if load is not None:
            load.ended(began)


async def _search(
    body: SearchRequest,
    who: Identity,
    pool: asyncpg.Pool,
    settings: Settings,
    throttle: Throttle,
    index_guard: IndexGuard,
    query_vectors: QueryCache,
    ranking: Ranking,
) -> SearchResponse:
    await throttle(pool, who, "search")
    started, outcome = time.perf_counter(), "error"
    span = trace.get_current_span()
    span.set_attribute("precedente.search.top_k", body.top_k)  # never the query's text
    try:
        response = await run_search(body, who, pool, settings, index_guard, query_vectors, ranking)
        outcome = "ok"
    finally:
        telemetry.SEARCH_SECONDS.labels(outcome).observe(time.perf_counter() - started)
    await audit.record(
        pool,
        who,
        "search",
        document_ids=[r.document_id for r in response.results],
        query=body.query,
        filters=body.filters.model_dump(mode="json", exclude_none=True) if body.filters else None,
        detail={"top_k": body.top_k, "results": len(response.results)},
    )
    if body.offset == 0 and who.kind != "anonymous":  # the caller's own history; a demo's one caller keeps none
        filters = body.filters.model_dump(mode="json", exclude_none=True)
        await history.record(pool, who, body.query, filters, body.sort, response.total, settings.history_retention_days)
    telemetry.SEARCH_RESULTS.observe(len(response.results))
    span.set_attribute("precedente.search.results", len(response.results))
    return response


async def run_search(
    body: SearchRequest,
    who: Identity,
    pool: asyncpg.Pool,
    settings: Settings,
    index_guard: IndexGuard,
    query_vectors: QueryCache,
    ranking: Ranking,
) -> SearchResponse:
    """One page of results: candidates from both indexes, fused and graded, the first page optionally reordered
    by the LLM reranker (services/search/llm_rerank.py)."""
    if problem := await index_guard.problem(pool):
        raise HTTPException(503, problem)  # a query vector of another model would rank garbage
    parsed = parse_query(body.query)  # once: its text is embedded, its syntax filters the candidates
    vector = await asyncio.to_thread(query_vectors.query, parsed.text)
    wanted = body.offset + body.top_k
    candidates = Candidates(settings.search_candidates, settings.search_lexical_candidates).at_least(wanted)
    # The seed's stage 2: the model reorders the first page's top candidates (by relevance only).
    rerank = settings.rerank_llm_provider != "none" and body.offset == 0 and body.sort == "relevance"
    shown = max(body.top_k, settings.rerank_llm_candidates) if rerank else body.top_k
    calibration = await active_calibration(pool)  # the firm's recalibration of the grade, if any
    page = await hybrid_search(
        pool, body, vector, who.groups, candidates, ranking, limit=shown, parsed=parsed, calibration=calibration
    )
    results = page.results
    if rerank:
        async with pool.acquire() as conn:
            concepts = await firm_index(conn, pool)  # kept since hybrid_search read it: the version row only
        with in_effect(concepts):  # the model's names are checked against the firm's sets too
            results = await llm_stage(body.query, results, settings, body.top_k)  # the last of the ranking's steps
    return SearchResponse(
        results=results[: body.top_k],
        facets=page.facets,
        total=page.total,
        relevant_total=page.relevant_total,
        offset=body.offset,
        no_strong_match=page.no_strong_match,
        vague_query=page.vague,
    )


@router.post("/search/similar", response_model=SearchResponse, responses=problems.responses(404, 503))
async def search_similar(
    body: SimilarRequest,
    who: SearcherDep,
    pool: DbDep,
    settings: SettingsDep,
    throttle: ThrottleDep,
    index_guard: IndexGuardDep,
) -> SearchResponse:
    """ "Mais como este": other works near this passage (its stored embedding is the query vector), under the same
    filters and the same access wall as /search, one entry per work, the passage's own work left out.

    The grade says how near the work's best passage is (cosine >= 0.9 "forte", >= 0.85 "provável"), and
    relevance_probability holds that cosine. A passage that is missing or that the caller may not see is a 404
    alike."""
    await throttle(pool, who, "search")
    if problem := await index_guard.problem(pool):
        raise HTTPException(503, problem)
    source = await similar_source(pool, body.passage_id, who.groups)
    if source is None:
        raise HTTPException(404, "passage not found")
    candidates = Candidates(settings.search_candidates, settings.search_lexical_candidates).at_least(
        body.offset + body.top_k
    )
    page = await similar_search(pool, body, source, who.groups, candidates)
    response = SearchResponse(
        results=page.results,
        facets=page.facets,
        total=page.total,
        relevant_total=page.relevant_total,
        offset=body.offset,
        no_strong_match=page.no_strong_match,
        similar_to=SimilarTo(
            passage_id=source.passage_id,
            document_id=str(source.document_id),
            title=source.title,
            citation=source.citation,
            page_number=source.page_number,
        ),
    )
    await audit.record(
        pool,
        who,
        "search.similar",
        document_ids=[source.document_id, *(r.document_id for r in response.results)],
        filters=body.filters.model_dump(mode="json", exclude_none=True) or None,
        detail={"passage_id": body.passage_id, "top_k": body.top_k, "results": len(response.results)},
    )
    return response
