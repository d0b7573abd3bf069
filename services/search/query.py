"""Hybrid retrieval in one SQL statement: dense (pgvector HNSW) and Portuguese full text, fused by rank.

Filters and the caller's access list sit inside both candidate queries, so a document the caller
may not see is never a candidate, and a selective filter still fills the list (iterative index
scans keep the HNSW scan going until enough rows pass the filter). Facet counts are taken over
the same candidates, so they describe what this query found under these filters and count only
documents the caller may see.
"""

import re
import unicodedata
from dataclasses import dataclass
from datetime import date
from functools import cached_property
from typing import Literal

import asyncpg
import numpy as np
from pydantic import BaseModel, Field, field_validator

from services.annotator.citations import extract_citations
from shared.contracts import EVERYONE
from shared.legal_codes import label, normalize_court, normalize_document_type

RRF_K = 60
FACET_FIELDS = ("document_type", "court", "relator", "judging_body")


class SearchFilters(BaseModel):
    document_type: list[str] | None = None
    court: list[str] | None = None
    date_from: date | None = None
    date_to: date | None = None
    relator: list[str] | None = None
    judging_body: list[str] | None = None
    cited_law: list[str] | None = Field(
        None, description='Canonical citation prefixes, e.g. "Lei 8.078/1990" matches any of its articles.'
    )

    @field_validator("document_type", "court", "relator", "judging_body", "cited_law", mode="before")
    @classmethod
    def _one_or_many(cls, value: object) -> object:
        if isinstance(value, str):
            return [value]
        return value

    @field_validator("document_type")
    @classmethod
    def _type_codes(cls, values: list[str] | None) -> list[str] | None:
        """Labels as lawyers write them ("Acórdão") become the stored codes ("acordao")."""
        return [normalize_document_type(v) or v for v in values] if values else values

    @field_validator("court")
    @classmethod
    def _court_codes(cls, values: list[str] | None) -> list[str] | None:
        return [normalize_court(v) or v for v in values] if values else values

    @field_validator("cited_law")
    @classmethod
    def _citation_ids(cls, values: list[str] | None) -> list[str] | None:
        """ "Lei 8.078/90, art. 14" as typed becomes the stored id ("CDC, art. 14"): the most specific one."""
        return [(extract_citations(v) or [v])[-1] for v in values] if values else values


class SearchRequest(BaseModel):
    query: str = Field(min_length=1, max_length=2000)
    filters: SearchFilters = Field(default_factory=SearchFilters)
    top_k: int = Field(5, ge=1, le=200)


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
    section_path: str | None = None
    char_start: int = Field(0, description="Offset of chunk_text in the document's cleaned text.")
    char_end: int = 0
    document_type_label: str | None = None
    court_label: str | None = None
    highlights: list[tuple[int, int]] = Field(
        default_factory=list, description="[start, end) offsets in chunk_text of the words matching the query."
    )


# $2 groups, $3 types, $4 courts, $5 from, $6 to, $9 relators, $10 judging bodies, $11 cited-law prefixes
FILTERS = f"""
      (c.access_groups && $2::text[] OR c.access_groups @> ARRAY['{EVERYONE}'])
      AND ($3::text[] IS NULL OR c.document_type = ANY($3))
      AND ($4::text[] IS NULL OR c.court = ANY($4))
      AND ($5::date IS NULL OR c.document_date >= $5)
      AND ($6::date IS NULL OR c.document_date <= $6)
      AND ($9::text[] IS NULL OR c.relator = ANY($9))
      AND ($10::text[] IS NULL OR c.judging_body = ANY($10))
      AND ($11::text[] IS NULL OR EXISTS (
            SELECT 1 FROM unnest(c.citations) cited, unnest($11::text[]) wanted
            WHERE cited = wanted OR cited LIKE wanted || ',%'))
"""

_CANDIDATES = f"""
WITH dense AS MATERIALIZED (
    SELECT c.id, c.embedding <=> $1 AS distance
    FROM chunks c
    WHERE {FILTERS}
    ORDER BY c.embedding <=> $1
    LIMIT $7
), dense_ranked AS (
    SELECT id, row_number() OVER (ORDER BY distance) AS rank,
           (avg(distance) OVER () - distance) / nullif(stddev_pop(distance) OVER (), 0) AS z
    FROM dense
), lexical AS (
    SELECT id, row_number() OVER (ORDER BY rank_value DESC) AS rank,
           (rank_value - avg(rank_value) OVER ()) / nullif(stddev_pop(rank_value) OVER (), 0) AS z
    FROM (
        SELECT c.id, ts_rank(c.tsv, q.query) AS rank_value
        FROM chunks c,
             (SELECT replace(plainto_tsquery('public.pt_unaccent', $8)::text, '&', '|')::tsquery AS query) q
        WHERE q.query <> ''::tsquery AND c.tsv @@ q.query AND {FILTERS}
        ORDER BY rank_value DESC
        LIMIT $7
    ) ranked
), fused AS (
    SELECT id, FUSED_SCORE AS score
    FROM dense_ranked d FULL OUTER JOIN lexical l USING (id)
)
"""

_RRF_SCORE = f"coalesce(1.0 / ({RRF_K} + d.rank), 0) + coalesce(1.0 / ({RRF_K} + l.rank), 0)"
# A candidate missing from one list counts as that list's worst; a list with no spread counts as 0.
_WEIGHTED_SCORE = (
    "{w} * coalesce(d.z, (SELECT min(z) FROM dense_ranked), 0) + {lw} * coalesce(l.z, (SELECT min(z) FROM lexical), 0)"
)

_RESULTS = """
SELECT c.id, c.document_id, c.text, c.page_start, c.page_end, c.char_start, c.char_end, c.section_path,
       c.document_type, c.court, c.document_date,
       coalesce(d.title, d.filename) AS title, 1 - (c.embedding <=> $1) AS similarity, f.score
FROM fused f
JOIN chunks c ON c.id = f.id
JOIN documents d ON d.id = c.document_id
ORDER BY f.score DESC, similarity DESC
LIMIT $12
"""

_FACETS = """
SELECT field, value, count(DISTINCT document_id) AS documents
FROM fused f
JOIN chunks c ON c.id = f.id
CROSS JOIN LATERAL (VALUES ('document_type', c.document_type), ('court', c.court), ('relator', c.relator),
                           ('judging_body', c.judging_body)) AS facet(field, value)
WHERE value IS NOT NULL
GROUP BY field, value
ORDER BY field, documents DESC, value
"""


@dataclass(frozen=True)
class Fusion:
    """How dense and lexical candidates are combined: reciprocal ranks, or z-scored scores weighted."""

    method: Literal["rrf", "weighted"] = "rrf"
    dense_weight: float = 0.7

    @cached_property
    def candidates_sql(self) -> str:
        if self.method == "rrf":
            score = _RRF_SCORE
        else:
            weight = min(max(self.dense_weight, 0.0), 1.0)
            score = _WEIGHTED_SCORE.format(w=f"{weight:.4f}", lw=f"{1 - weight:.4f}")
        return _CANDIDATES.replace("FUSED_SCORE", score)

    @property
    def results_sql(self) -> str:
        return self.candidates_sql + _RESULTS

    @property
    def facets_sql(self) -> str:
        return self.candidates_sql + _FACETS


def _fold(text: str) -> str:
    return "".join(ch for ch in unicodedata.normalize("NFD", text.lower()) if unicodedata.category(ch) != "Mn")


# Query words that say nothing about the concept; they are neither highlighted nor named.
_STOPWORDS_TEXT = (
    "para pela pelo pelas pelos como sobre entre quando mais menos isso esta este essa esse aquele aquela "
    "qual quais onde seja sido sendo tem temos deve devem pode podem cabe caso casos sera seria ser quem "
    "porque pois tambem ainda apenas mesmo mesma outro outra outros outras todo toda todos todas numa num "
    "dos das nos nas com sem"
)
STOPWORDS = frozenset(_STOPWORDS_TEXT.split())


def _matches(query: str, passage: str) -> list[tuple[int, int, str]]:
    """Spans of passage words sharing a stem-like prefix (6 letters, accent-insensitive) with a query word.

    Each span comes with the query word it matches, so the explanation names exactly what is highlighted.
    """
    stems: dict[str, str] = {}
    for word in re.findall(r"\w{4,}", query):
        folded = _fold(word)
        if folded not in STOPWORDS:
            stems.setdefault(folded[:6], word)
    found = []
    for match in re.finditer(r"\w{4,}", passage):
        folded = _fold(match.group())
        for stem, word in stems.items():
            if folded.startswith(stem):
                found.append((match.start(), match.end(), word))
                break
    return found


def highlight_spans(query: str, passage: str) -> list[tuple[int, int]]:
    """Character offsets in the passage of the words that match the query, for the UI to highlight."""
    return [(start, end) for start, end, _ in _matches(query, passage)]


def shared_terms(query: str, passage: str, limit: int = 4) -> list[str]:
    """The query words found in the passage, in the order the passage uses them."""
    found: list[str] = []
    for _, _, word in _matches(query, passage):
        if word not in found:
            found.append(word)
    return found[:limit]


def explain(query: str, passage: str, similarity: float, page: int, section: str | None = None) -> str:
    """One line, in the lawyer's language, on why this passage came up. Never legal text of our own."""
    terms = shared_terms(query, passage)
    closeness = "alta" if similarity >= 0.85 else "média" if similarity >= 0.78 else "baixa"
    line = f"Proximidade semântica {closeness} com a consulta ({similarity:.2f})"
    if terms:
        line += "; termos em comum: " + ", ".join(terms)
    where = f"{section}, página {page}" if section else f"página {page}"
    return line + f"; {where}."


def _arguments(request: SearchRequest, query_vector: np.ndarray, groups: list[str], candidates: int) -> list:
    f = request.filters
    return [
        query_vector, groups, f.document_type, f.court, f.date_from, f.date_to, candidates, request.query,
        f.relator, f.judging_body, f.cited_law,
    ]  # fmt: skip


async def _fetch(db: asyncpg.Pool, sql: str, arguments: list, candidates: int) -> list[asyncpg.Record]:
    """Run a candidate query with an HNSW search wide enough, and iterative, for filtered scans."""
    async with db.acquire() as conn, conn.transaction():
        await conn.execute("SET LOCAL hnsw.iterative_scan = relaxed_order")
        await conn.execute(f"SET LOCAL hnsw.ef_search = {max(candidates * 2, 40)}")
        return await conn.fetch(sql, *arguments)


def _overlaps(a: asyncpg.Record, b: asyncpg.Record) -> bool:
    """Two passages of one document sharing more than half of the shorter (the ementa and its chunk)."""
    if a["document_id"] != b["document_id"]:
        return False
    shared = min(a["char_end"], b["char_end"]) - max(a["char_start"], b["char_start"])
    shorter = min(a["char_end"] - a["char_start"], b["char_end"] - b["char_start"])
    return shorter > 0 and shared > shorter / 2


async def hybrid_search(
    db: asyncpg.Pool,
    request: SearchRequest,
    query_vector: np.ndarray,
    groups: list[str],
    candidates: int,
    fusion: Fusion = Fusion(),
) -> list[SearchResult]:
    arguments = [*_arguments(request, query_vector, groups, candidates), request.top_k * 3]
    rows = await _fetch(db, fusion.results_sql, arguments, candidates)
    kept: list[asyncpg.Record] = []
    for row in rows:
        if len(kept) == request.top_k:
            break
        if not any(_overlaps(row, other) for other in kept):
            kept.append(row)
    return [
        SearchResult(
            chunk_text=r["text"],
            document_title=r["title"],
            document_date=r["document_date"],
            document_type=r["document_type"],
            relevance_explanation=explain(
                request.query, r["text"], float(r["similarity"]), r["page_start"], r["section_path"]
            ),
            similarity_score=round(float(r["similarity"]), 4),
            page_number=r["page_start"],
            document_id=str(r["document_id"]),
            court=r["court"],
            page_end=r["page_end"],
            section_path=r["section_path"],
            char_start=r["char_start"],
            char_end=r["char_end"],
            document_type_label=label("document_type", r["document_type"]),
            court_label=label("court", r["court"]),
            highlights=highlight_spans(request.query, r["text"]),
        )
        for r in kept
    ]


async def facet_counts(
    db: asyncpg.Pool,
    request: SearchRequest,
    query_vector: np.ndarray,
    groups: list[str],
    candidates: int,
    fusion: Fusion = Fusion(),
) -> dict[str, dict[str, int]]:
    """Documents per value of each facet among this query's candidates, under the same filters and access."""
    rows = await _fetch(db, fusion.facets_sql, _arguments(request, query_vector, groups, candidates), candidates)
    facets: dict[str, dict[str, int]] = {field: {} for field in FACET_FIELDS}
    for row in rows:
        facets[row["field"]][row["value"]] = row["documents"]
    return facets
