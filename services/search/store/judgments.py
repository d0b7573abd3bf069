"""The firm's judgments of results (migration 0016): who judged which passage relevant for which query, under
which filters and ranking. Search never reads them: a judgment changes nothing anyone sees; `precedente eval
--judgments` and the relevance grade's calibration do.
"""

import hashlib
import json
import re
import uuid
from dataclasses import asdict
from datetime import datetime
from functools import cache
from typing import Any

import asyncpg
from pydantic import BaseModel, Field

from precedente.services.search.engine.ranking import Ranking
from precedente.services.search.engine.relevance import MODEL_FILE
from precedente.shared.accounts import Identity
from precedente.shared.legal.text import fold_lower
from precedente.shared.settings import Settings

Db = asyncpg.Pool | asyncpg.Connection


class Judgment(BaseModel):
    id: int
    judge: str = Field(description="Who judged: the credential's user.")
    judge_groups: list[str] = Field(description="Their groups when they judged (practice groups).")
    query: str
    query_key: str = Field(description="The query folded and lower-cased: one judgment per judge, query and passage.")
    document_id: uuid.UUID
    passage_id: int
    relevant: bool
    note: str | None
    filters: dict[str, Any] = Field(description="The search filters of the judged list.")
    sort: str
    ranking: dict[str, Any] = Field(description="The ranking configuration that produced the list; `id` names it.")
    ranking_id: str
    panel_id: str | None = None
    shown_rank: int | None = None
    document_type: str | None = Field(None, description="The judged document's type now (per-type figures).")
    created_at: datetime
    updated_at: datetime


def normalise_query(text: str) -> str:
    """What makes two queries the same one: accents, case and runs of spaces do not count."""
    return re.sub(r"\s+", " ", fold_lower(text)).strip()


@cache
def relevance_model_digest() -> str:
    return hashlib.sha256(MODEL_FILE.read_bytes()).hexdigest()[:16]


def ranking_configuration(
    settings: Settings, ranking: Ranking, embedding_model: str, calibration: int | None = None
) -> dict[str, Any]:
    """Everything that decides the order and grades of a list: the fusion weights (services/search/engine/ranking.py),
    the relevance model file and the firm's active calibration of it (migration 0019), the embedding model, the
    candidate pools and the LLM reranker; `id` is a digest of the rest, so two lists with one id were ranked
    and graded alike."""
    configuration: dict[str, Any] = {
        "weights": asdict(ranking),
        "candidates": {"dense": settings.search_candidates, "lexical": settings.search_lexical_candidates},
        "relevance_model": relevance_model_digest(),
        "calibration": calibration,
        "embedding_model": embedding_model,
        "rerank": None
        if settings.rerank_llm_provider == "none"
        else {"provider": settings.rerank_llm_provider, "model": settings.rerank_llm_model},
    }
    digest = hashlib.sha256(json.dumps(configuration, sort_keys=True).encode()).hexdigest()[:12]
    return {"id": digest, **configuration}


async def passage_in(db: Db, document_id: uuid.UUID, passage_id: int) -> bool:
    """Whether the passage is one of this document's (a passage of another document is not judged through it)."""
    return bool(
        await db.fetchval(
            "SELECT EXISTS (SELECT 1 FROM chunks WHERE id = $1 AND document_id = $2)", passage_id, document_id
        )
    )


# The judged document's type now: the ledger's, else its passage's (the indexer copies it onto chunks).
SELECT = (
    "SELECT j.*, COALESCE(d.document_type, (SELECT c.document_type FROM chunks c WHERE c.id = j.passage_id))"
    " AS document_type FROM judgments j LEFT JOIN documents d ON d.id = j.document_id"
)


async def upsert(
    db: Db,
    who: Identity,
    *,
    query: str,
    document_id: uuid.UUID,
    passage_id: int,
    relevant: bool,
    note: str | None,
    filters: dict[str, Any],
    sort: str,
    ranking: dict[str, Any],
    panel_id: str | None = None,
    shown_rank: int | None = None,
) -> tuple[Judgment, bool]:
    """The judge's judgment of this passage for this query, made or changed; and whether it is new."""
    row = await db.fetchrow(
        "INSERT INTO judgments (judge, judge_kind, judge_groups, query, query_key, document_id, passage_id, relevant,"
        " note, filters, sort, ranking, ranking_id, panel_id, shown_rank)"
        " VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)"
        " ON CONFLICT (judge, query_key, passage_id) DO UPDATE SET judge_groups = EXCLUDED.judge_groups,"
        " query = EXCLUDED.query, document_id = EXCLUDED.document_id, relevant = EXCLUDED.relevant,"
        " note = EXCLUDED.note, filters = EXCLUDED.filters, sort = EXCLUDED.sort, ranking = EXCLUDED.ranking,"
        " ranking_id = EXCLUDED.ranking_id, panel_id = EXCLUDED.panel_id, shown_rank = EXCLUDED.shown_rank,"
        " updated_at = clock_timestamp()"
        " RETURNING id, (xmax = 0) AS inserted",
        who.user,
        who.kind,
        sorted(who.groups),
        query,
        normalise_query(query),
        document_id,
        passage_id,
        relevant,
        note,
        filters,
        sort,
        ranking,
        ranking["id"],
        panel_id,
        shown_rank,
    )
    stored = await db.fetchrow(f"{SELECT} WHERE j.id = $1", row["id"])
    return Judgment(**dict(stored)), bool(row["inserted"])


def _where(
    judge: str | None, since: datetime | None, until: datetime | None, query: str | None
) -> tuple[str, list[Any]]:
    clause = (
        " WHERE ($1::text IS NULL OR j.judge = $1) AND ($2::timestamptz IS NULL OR j.updated_at >= $2)"
        " AND ($3::timestamptz IS NULL OR j.updated_at < $3)"
        " AND ($4::text IS NULL OR strpos(j.query_key, $4) > 0)"
    )
    return clause, [judge, since, until, normalise_query(query) if query else None]


async def read(
    db: Db,
    *,
    judge: str | None = None,
    since: datetime | None = None,
    until: datetime | None = None,
    query: str | None = None,
    limit: int = 1000,
    offset: int = 0,
) -> tuple[list[Judgment], int]:
    """Judgments, oldest change first (stable paging), and how many match in all. `query` matches a part of the
    normalised query; `since` inclusive, `until` exclusive, on the last change."""
    where, arguments = _where(judge, since, until, query)
    total = await db.fetchval(f"SELECT count(*) FROM judgments j{where}", *arguments)
    rows = await db.fetch(f"{SELECT}{where} ORDER BY j.updated_at, j.id LIMIT $5 OFFSET $6", *arguments, limit, offset)
    return [Judgment(**dict(row)) for row in rows], int(total)
