"""Hybrid retrieval in one SQL statement: dense (pgvector HNSW) and Portuguese full text, fused by rank.

Filters and the caller's access list sit inside both candidate queries, so a document the caller
may not see is never a candidate, and a selective filter still fills the list (iterative index
scans keep the HNSW scan going until enough rows pass the filter).
"""

import re
import unicodedata
from datetime import date

import asyncpg
import numpy as np
from pydantic import BaseModel, Field, field_validator

from shared.contracts import EVERYONE

RRF_K = 60


class SearchFilters(BaseModel):
    document_type: list[str] | None = None
    court: list[str] | None = None
    date_from: date | None = None
    date_to: date | None = None

    @field_validator("document_type", "court", mode="before")
    @classmethod
    def _one_or_many(cls, value: object) -> object:
        if isinstance(value, str):
            return [value]
        return value


class SearchRequest(BaseModel):
    query: str = Field(min_length=1, max_length=2000)
    filters: SearchFilters = Field(default_factory=SearchFilters)
    top_k: int = Field(5, ge=1, le=100)


class SearchResult(BaseModel):
    chunk_text: str
    document_title: str
    document_date: date | None
    document_type: str | None
    relevance_explanation: str
    similarity_score: float
    page_number: int
    document_id: str
    court: str | None
    page_end: int


HYBRID_SQL = f"""
WITH dense AS MATERIALIZED (
    SELECT id, embedding <=> $1 AS distance
    FROM chunks
    WHERE (access_groups && $2::text[] OR access_groups @> ARRAY['{EVERYONE}'])
      AND ($3::text[] IS NULL OR document_type = ANY($3))
      AND ($4::text[] IS NULL OR court = ANY($4))
      AND ($5::date IS NULL OR document_date >= $5)
      AND ($6::date IS NULL OR document_date <= $6)
    ORDER BY embedding <=> $1
    LIMIT $7
), dense_ranked AS (
    SELECT id, row_number() OVER (ORDER BY distance) AS rank FROM dense
), lexical AS (
    SELECT id, row_number() OVER (ORDER BY rank_value DESC) AS rank FROM (
        SELECT c.id, ts_rank(c.tsv, q.query) AS rank_value
        FROM chunks c,
             (SELECT replace(plainto_tsquery('public.pt_unaccent', $8)::text, '&', '|')::tsquery AS query) q
        WHERE q.query <> ''::tsquery AND c.tsv @@ q.query
          AND (c.access_groups && $2::text[] OR c.access_groups @> ARRAY['{EVERYONE}'])
          AND ($3::text[] IS NULL OR c.document_type = ANY($3))
          AND ($4::text[] IS NULL OR c.court = ANY($4))
          AND ($5::date IS NULL OR c.document_date >= $5)
          AND ($6::date IS NULL OR c.document_date <= $6)
        ORDER BY rank_value DESC
        LIMIT $7
    ) ranked
), fused AS (
    SELECT id,
           coalesce(1.0 / ({RRF_K} + d.rank), 0) + coalesce(1.0 / ({RRF_K} + l.rank), 0) AS score
    FROM dense_ranked d FULL OUTER JOIN lexical l USING (id)
)
SELECT c.id, c.document_id, c.text, c.page_start, c.page_end, c.document_type, c.court, c.document_date,
       coalesce(d.title, d.filename) AS title, 1 - (c.embedding <=> $1) AS similarity, f.score
FROM fused f
JOIN chunks c ON c.id = f.id
JOIN documents d ON d.id = c.document_id
ORDER BY f.score DESC, similarity DESC
LIMIT $9
"""


def _fold(text: str) -> str:
    return "".join(ch for ch in unicodedata.normalize("NFD", text.lower()) if unicodedata.category(ch) != "Mn")


def shared_terms(query: str, passage: str, limit: int = 4) -> list[str]:
    """Query words (4+ letters) whose stem-like prefix occurs in the passage, accent-insensitive."""
    folded = _fold(passage)
    found: list[str] = []
    for word in re.findall(r"\w{4,}", query):
        stem = _fold(word)[:6]
        if re.search(rf"\b{re.escape(stem)}", folded) and word.lower() not in (w.lower() for w in found):
            found.append(word)
    return found[:limit]


def explain(query: str, passage: str, similarity: float, page: int) -> str:
    """One line, in the lawyer's language, on why this passage came up. Never legal text of our own."""
    terms = shared_terms(query, passage)
    closeness = "alta" if similarity >= 0.85 else "média" if similarity >= 0.78 else "baixa"
    line = f"Proximidade semântica {closeness} com a consulta ({similarity:.2f})"
    if terms:
        line += "; termos em comum: " + ", ".join(terms)
    return line + f"; página {page}."


async def hybrid_search(
    db: asyncpg.Pool, request: SearchRequest, query_vector: np.ndarray, groups: list[str], candidates: int
) -> list[SearchResult]:
    f = request.filters
    async with db.acquire() as conn, conn.transaction():
        await conn.execute("SET LOCAL hnsw.iterative_scan = relaxed_order")
        await conn.execute(f"SET LOCAL hnsw.ef_search = {max(candidates * 2, 40)}")
        rows = await conn.fetch(
            HYBRID_SQL,
            query_vector,
            groups,
            f.document_type,
            f.court,
            f.date_from,
            f.date_to,
            candidates,
            request.query,
            request.top_k,
        )
    return [
        SearchResult(
            chunk_text=r["text"],
            document_title=r["title"],
            document_date=r["document_date"],
            document_type=r["document_type"],
            relevance_explanation=explain(request.query, r["text"], float(r["similarity"]), r["page_start"]),
            similarity_score=round(float(r["similarity"]), 4),
            page_number=r["page_start"],
            document_id=str(r["document_id"]),
            court=r["court"],
            page_end=r["page_end"],
        )
        for r in rows
    ]
