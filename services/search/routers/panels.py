"""Blind panels (issue 20, item 3): the firm's lawyers judge the same queries ranked by two configurations,
merged by team-draft interleaving (services/search/interleaving.py), and the panel reports which won.

- `POST /panels` (administrators): the queries, configurations A and B ("current": what POST /search runs;
  "keyword": the lexical baseline, BM25 over full-text matches only; or the current one with other fusion
  weights), the invited judges, the results shown per query.
- `GET /panels/{id}/next` (administrators and invited judges): the judge's next query, its merged list computed
  with the judge's own groups when they first ask (the access wall), the same list when they ask again, less
  any document they may no longer see. Nothing sent says which configuration picked which result: no team, no
  grade, no score.
- `POST /panels/{id}/judgments` (the same): "relevante" / "não relevante" on a shown result, stored in the
  judgments table with panel_id and shown_rank; a result the judge may no longer see is a 404.
- `GET /panels/{id}/report` (administrators): per query each team's relevant picks, the winner, the totals,
  and the two-sided sign test over the queries with a winner.

Normal searches are untouched: a panel's configurations exist only inside these routes.
"""

import asyncio
import hashlib
import json
import uuid
from dataclasses import asdict, replace
from datetime import date, datetime
from typing import Annotated, Any, Literal

import asyncpg
from fastapi import APIRouter, HTTPException, Query
from fastapi.responses import JSONResponse
from pydantic import AfterValidator, BaseModel, ConfigDict, Field

from precedente.services.search import problems
from precedente.services.search.deps import (
    AdminDep,
    DbDep,
    IndexGuardDep,
    QueryVectorsDep,
    RankingDep,
    SearcherDep,
    SettingsDep,
    ThrottleDep,
    visible_document,
)
from precedente.services.search.engine.candidates import Candidates
from precedente.services.search.engine.models import SearchFilters, SearchRequest, SearchResult, Text
from precedente.services.search.engine.ranking import Ranking
from precedente.services.search.engine.search import hybrid_search
from precedente.services.search.interleaving import Winner, seeded_random, sign_test, team_draft, winner
from precedente.services.search.routers.search import run_search
from precedente.services.search.store import audit
from precedente.services.search.store import judgments as judgment_store
from precedente.services.search.store import panels as store
from precedente.services.search.store.judgments import Judgment
from precedente.services.search.store.relevance import active_calibration
from precedente.services.search.syntax import parse_query
from precedente.shared.accounts import NAME_PATTERN, Identity
from precedente.shared.embeddings.embedders import IndexGuard, QueryCache
from precedente.shared.settings import Settings

router = APIRouter(tags=["panels"])


class Weights(BaseModel):
    """Fusion settings that differ from the current ranking's (services/search/engine/ranking.py, Ranking)."""

    model_config = ConfigDict(extra="forbid")

    fusion: Literal["weighted", "rrf"] | None = None
    dense_weight: float | None = Field(None, ge=0, le=1)
    bm25_k1: float | None = Field(None, gt=0, le=10)
    bm25_b: float | None = Field(None, ge=0, le=1)
    feedback_docs: int | None = Field(None, ge=0, le=50)
    feedback_weight: float | None = Field(None, ge=0, le=10)
    lead_weight: float | None = Field(None, ge=0, le=10)
    lead_words: float | None = Field(None, gt=0, le=1000)


class Configuration(BaseModel):
    """A ranking a panel compares: the current one with other weights, or (`lexical_only`) full-text matches only."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(min_length=1, max_length=100)
    lexical_only: bool = Field(False, description="Full-text candidates only, ranked by BM25: the keyword search.")
    weights: Weights = Field(default_factory=Weights)


KEYWORD_WEIGHTS = Weights(fusion="weighted", dense_weight=0.0, feedback_weight=0.0, lead_weight=0.0)
PRESETS = {
    "current": Configuration(name="current"),
    "keyword": Configuration(name="keyword", lexical_only=True, weights=KEYWORD_WEIGHTS),
}


def _judge_names(values: list[str]) -> list[str]:
    for value in values:
        if not NAME_PATTERN.fullmatch(value):
            raise ValueError(f"invalid judge name {value!r}: letters, digits and . _ @ + - only")
    return sorted(set(values))


class PanelRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: Text | None = Field(None, max_length=200)
    queries: list[Annotated[Text, Field(min_length=1, max_length=2000)]] = Field(min_length=1, max_length=1000)
    a: Literal["current", "keyword"] | Configuration = Field("current", description='"current", "keyword" or one.')
    b: Literal["current", "keyword"] | Configuration = "keyword"
    judges: Annotated[list[str], AfterValidator(_judge_names)] = Field(
        default_factory=list, max_length=200, description="Invited judges (users); administrators always may judge."
    )
    depth: int = Field(10, ge=1, le=50, description="Results shown per query (the merged list's length).")
    filters: SearchFilters = Field(default_factory=SearchFilters)
    seed: int | None = Field(None, ge=0, lt=2**62, description="The interleaving's coins (default: random).")


class Panel(BaseModel):
    """A panel as its administrators see it (judges never get A and B)."""

    id: str
    name: str
    created_by: str
    created_at: datetime
    queries: list[str]
    a: dict[str, Any]
    b: dict[str, Any]
    judges: list[str]
    depth: int
    filters: dict[str, Any]
    seed: int


class PanelResult(BaseModel):
    """One result of the merged list: what a judge needs to judge it, nothing that says who ranked it."""

    shown_rank: int
    document_id: uuid.UUID
    passage_id: int
    document_title: str
    document_type_label: str | None = None
    court_label: str | None = None
    document_date: date | None = None
    citation: str | None = None
    section_path: str | None = None
    page_number: int = 1
    chunk_text: str
    highlights: list[tuple[int, int]] = Field(default_factory=list)
    ementa: str | None = None
    document_url: str = ""
    relevant: bool | None = Field(None, description="This judge's judgment so far (None: not yet).")


class PanelQuery(BaseModel):
    panel_id: str
    name: str
    done: bool = Field(description="Every query judged: nothing is left for this judge.")
    position: int | None = Field(None, description="The query's place in the panel, from 1.")
    queries: int
    judged_queries: int = Field(description="Queries whose every shown result this judge judged.")
    query: str | None = None
    results: list[PanelResult] = Field(default_factory=list)


class PanelJudgmentRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    position: int = Field(ge=1, le=1000, description="The query's place in the panel (PanelQuery.position).")
    shown_rank: int = Field(ge=1, le=100, description="The result's place in the merged list.")
    relevant: bool = Field(description='"relevante" (true) or "não relevante" (false).')
    note: Text | None = Field(None, max_length=2000)


class QueryOutcome(BaseModel):
    position: int
    query: str
    judges: int = Field(description="Judges who were shown this query.")
    shown: int
    judged: int
    credit_a: int = Field(description="Results picked by A that the judges called relevant.")
    credit_b: int
    winner: Winner | None = Field(description="None: nobody judged this query yet.")


class PanelReport(BaseModel):
    panel: Panel
    per_query: list[QueryOutcome]
    wins_a: int
    wins_b: int
    ties: int
    unjudged: int
    credit_a: int
    credit_b: int
    p_value: float = Field(description="Two-sided sign test (exact binomial) over the queries with a winner.")
    test: str = "two-sided sign test (exact binomial, p = 1/2) over queries with a winner; ties left out"
    winner: Winner = Field(description="Who won more queries (tie: as many).")


def _resolve(spec: str | Configuration) -> Configuration:
    return PRESETS[spec] if isinstance(spec, str) else spec


def _describe(config: Configuration, settings: Settings, ranking: Ranking, embedding_model: str) -> dict[str, Any]:
    """The configuration as stored with the panel: its Ranking fixed now, so a panel compares the same two
    rankings however long its judges take."""
    weights = replace(ranking, **config.weights.model_dump(exclude_none=True))
    described = judgment_store.ranking_configuration(settings, weights, embedding_model)
    if config.lexical_only:
        described["candidates"] = {"dense": 0, "lexical": settings.search_lexical_candidates}
        described["rerank"] = None
        digest = json.dumps({k: v for k, v in described.items() if k != "id"}, sort_keys=True).encode()
        described["id"] = hashlib.sha256(digest).hexdigest()[:12]
    return {**config.model_dump(mode="json"), "ranking": described}


def _distinct(queries: list[str]) -> list[str]:
    """Each query once, as first written: two spellings of one query (accents, case) would share judgments."""
    kept: dict[str, str] = {}
    for query in queries:
        kept.setdefault(judgment_store.normalise_query(query), query)
    return list(kept.values())


def _panel(row: store.PanelRow) -> Panel:
    return Panel(**asdict(row))


async def _panel_for(db: asyncpg.Pool, panel_id: str, who: Identity) -> store.PanelRow:
    """The panel, for an administrator or an invited judge; 404 alike for a missing one and one not theirs."""
    found = await store.get(db, panel_id)
    if found is None or not (who.may("admin") or who.user in found.judges):
        raise HTTPException(404, "panel not found")
    return found


@router.post("/panels", status_code=201, response_model=Panel)
async def create_panel(
    body: PanelRequest,
    who: AdminDep,
    db: DbDep,
    settings: SettingsDep,
    ranking: RankingDep,
    query_vectors: QueryVectorsDep,
) -> Panel:
    a, b = _resolve(body.a), _resolve(body.b)
    if a == b:
        raise HTTPException(422, "configurations A and B are the same: nothing to compare")
    model = query_vectors.embedder.model_id
    row = await store.create(
        db,
        who,
        name=body.name or "painel cego",  # a judge sees the name: it does not say A and B
        queries=_distinct(body.queries),
        a=_describe(a, settings, ranking, model),
        b=_describe(b, settings, ranking, model),
        judges=body.judges,
        depth=body.depth,
        filters=body.filters.model_dump(mode="json", exclude_none=True),
        seed=body.seed,
    )
    await audit.record(db, who, "panel.create", detail={"panel_id": row.id, "queries": len(row.queries),
                                                        "a": a.name, "b": b.name, "judges": row.judges})  # fmt: skip
    return _panel(row)


@router.get("/panels", response_model=list[Panel])
async def list_panels(who: AdminDep, db: DbDep) -> list[Panel]:
    return [_panel(row) for row in await store.read_all(db)]


@router.get("/panels/{panel_id}", response_model=Panel, responses=problems.responses(404))
async def get_panel(panel_id: str, who: AdminDep, db: DbDep) -> Panel:
    found = await store.get(db, panel_id)
    if found is None:
        raise HTTPException(404, "panel not found")
    return _panel(found)


async def _ranked(
    config: dict[str, Any],
    request: SearchRequest,
    who: Identity,
    db: asyncpg.Pool,
    settings: Settings,
    index_guard: IndexGuard,
    query_vectors: QueryCache,
) -> list[SearchResult]:
    """One configuration's results for the judge, under their own groups: POST /search's own path for a
    hybrid configuration, the full-text candidates alone for the keyword one."""
    weights = Ranking(**config["ranking"]["weights"])
    if not config["lexical_only"]:
        return (await run_search(request, who, db, settings, index_guard, query_vectors, weights)).results
    if problem := await index_guard.problem(db):
        raise HTTPException(503, problem)
    parsed = parse_query(request.query)
    vector = await asyncio.to_thread(query_vectors.query, parsed.text)
    candidates = Candidates(0, max(config["ranking"]["candidates"]["lexical"], request.top_k))
    calibration = await active_calibration(db)
    page = await hybrid_search(
        db, request, vector, who.groups, candidates, weights, parsed=parsed, calibration=calibration
    )
    return page.results


def _shown(result: SearchResult) -> dict[str, Any]:
    return result.model_dump(
        mode="json",
        include={"document_title", "document_type_label", "court_label", "document_date", "citation",
                 "section_path", "page_number", "chunk_text", "highlights", "ementa", "document_url"},
    )  # fmt: skip


async def _make_list(
    panel: store.PanelRow,
    position: int,
    who: Identity,
    db: asyncpg.Pool,
    settings: Settings,
    index_guard: IndexGuard,
    query_vectors: QueryCache,
) -> None:
    query = panel.queries[position - 1]
    request = SearchRequest(query=query, filters=SearchFilters(**panel.filters), top_k=panel.depth)
    found = {
        team: await _ranked(config, request, who, db, settings, index_guard, query_vectors)
        for team, config in (("a", panel.a), ("b", panel.b))
    }
    by_work = {team: {r.work_id: r for r in results} for team, results in found.items()}
    picks = team_draft(
        [r.work_id for r in found["a"]],
        [r.work_id for r in found["b"]],
        panel.depth,
        seeded_random(panel.seed, who.user, position),
    )
    items = []
    for rank, pick in enumerate(picks, start=1):
        result = by_work[pick.team][pick.key]
        items.append(
            store.Item(rank, pick.team, pick.rank_in_team, result.work_id, uuid.UUID(result.document_id),
                       result.passage_id, _shown(result))
        )  # fmt: skip
    await store.save_list(db, panel.id, position, who, items)
    await audit.record(
        db,
        who,
        "panel.list",
        document_ids=[item.document_id for item in items],
        query=query,
        filters=panel.filters or None,
        detail={"panel_id": panel.id, "position": position, "results": len(items)},
    )


@router.get("/panels/{panel_id}/next", response_model=PanelQuery, responses=problems.responses(404, 503))
async def next_query(
    panel_id: str,
    who: SearcherDep,
    db: DbDep,
    settings: SettingsDep,
    throttle: ThrottleDep,
    index_guard: IndexGuardDep,
    query_vectors: QueryVectorsDep,
    position: Annotated[
        int | None, Query(ge=1, le=1000, description="This query instead of the next unjudged one.")
    ] = None,
) -> PanelQuery:
    """The judge's next query whose results they have not all judged (or `position`), with its merged list."""
    panel = await _panel_for(db, panel_id, who)
    if position is not None and position > len(panel.queries):
        raise HTTPException(404, f"the panel has {len(panel.queries)} queries")
    progress = await store.progress(db, panel.id, who)
    complete = sum(1 for _, listed, shown, judged in progress if listed and judged >= shown)
    if position is None:
        position = next((p for p, listed, shown, judged in progress if not listed or judged < shown), None)
    base = {"panel_id": panel.id, "name": panel.name, "queries": len(panel.queries), "judged_queries": complete}
    if position is None:
        return PanelQuery(done=True, **base)
    if not await store.has_list(db, panel.id, position, who.user):
        await throttle(db, who, "search")
        await _make_list(panel, position, who, db, settings, index_guard, query_vectors)
    results = [
        PanelResult(shown_rank=item.shown_rank, document_id=item.document_id, passage_id=item.passage_id,
                    relevant=relevant, **item.shown)
        for item, relevant in await store.visible_items(db, panel.id, position, who)
    ]  # fmt: skip
    return PanelQuery(done=False, position=position, query=panel.queries[position - 1], results=results, **base)


@router.post(
    "/panels/{panel_id}/judgments",
    status_code=201,
    response_model=Judgment,
    responses=problems.responses(404) | {200: {"model": Judgment, "description": "An earlier judgment, changed."}},
)
async def judge(panel_id: str, body: PanelJudgmentRequest, who: SearcherDep, db: DbDep) -> JSONResponse:
    """201 with a new judgment, 200 with a changed one; 404 for a result not in this judge's list or a document
    they may no longer see."""
    panel = await _panel_for(db, panel_id, who)
    shown = await store.item(db, panel.id, body.position, who.user, body.shown_rank)
    if shown is None:
        raise HTTPException(404, "no such result in your list for this query")
    await visible_document(db, shown.document_id, who)  # the wall: their groups now, not when the list was made
    query = panel.queries[body.position - 1]
    configuration = {"interleaving": "team-draft", "panel": panel.id, "a": panel.a["ranking"], "b": panel.b["ranking"]}
    configuration["id"] = hashlib.sha256(json.dumps(configuration, sort_keys=True).encode()).hexdigest()[:12]
    judgment, created = await judgment_store.upsert(
        db,
        who,
        query=query,
        document_id=shown.document_id,
        passage_id=shown.passage_id,
        relevant=body.relevant,
        note=body.note,
        filters=panel.filters,
        sort="relevance",
        ranking=configuration,
        panel_id=panel.id,
        shown_rank=body.shown_rank,
    )
    await audit.record(
        db,
        who,
        "judgment.record",
        document_ids=[shown.document_id],
        query=query,
        filters=panel.filters or None,
        detail={"judgment_id": judgment.id, "passage_id": shown.passage_id, "relevant": body.relevant,
                "changed": not created, "panel_id": panel.id, "shown_rank": body.shown_rank},
    )  # fmt: skip
    return JSONResponse(judgment.model_dump(mode="json"), status_code=201 if created else 200)


@router.get("/panels/{panel_id}/report", response_model=PanelReport, responses=problems.responses(404))
async def report(panel_id: str, who: AdminDep, db: DbDep) -> PanelReport:
    """Which configuration won: per query the team-draft credit summed over its judges."""
    panel = await store.get(db, panel_id)
    if panel is None:
        raise HTTPException(404, "panel not found")
    outcomes = [
        QueryOutcome(
            position=row["position"], query=row["query"], judges=row["judges"], shown=row["shown"],
            judged=row["judged"], credit_a=row["credit_a"], credit_b=row["credit_b"],
            winner=winner(row["credit_a"], row["credit_b"]) if row["judged"] else None,
        )
        for row in await store.credits(db, panel.id)
    ]  # fmt: skip
    wins_a = sum(o.winner == "a" for o in outcomes)
    wins_b = sum(o.winner == "b" for o in outcomes)
    await audit.record(db, who, "panel.report", detail={"panel_id": panel.id})
    return PanelReport(
        panel=_panel(panel),
        per_query=outcomes,
        wins_a=wins_a,
        wins_b=wins_b,
        ties=sum(o.winner == "tie" for o in outcomes),
        unjudged=sum(o.winner is None for o in outcomes),
        credit_a=sum(o.credit_a for o in outcomes),
        credit_b=sum(o.credit_b for o in outcomes),
        p_value=sign_test(wins_a, wins_b),
        winner=winner(wins_a, wins_b),
    )
