"""Hybrid retrieval: dense (pgvector HNSW) and Portuguese full-text candidates, ranked by BM25 and dense fused.

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
from typing import Annotated

import asyncpg
import numpy as np
from pydantic import AfterValidator, BaseModel, Field, field_validator

from services.annotator.citations import extract_citations
from services.search.concepts import concept_index
from services.search.ranking import CollectionStatistics, PoolEntry, Ranking, rank_pool
from shared.legal_codes import label, normalize_court, normalize_document_type

DEFAULT_RANKING = Ranking()
INFORMATIVE = 0.2  # share of chunks above which a lexeme is too common to preselect candidates on
# Chunks the full-text preselection may rank at most (the sum of its lexemes' document frequencies, an upper
# bound of their OR's matches): ts_rank reads each match's tsvector, so this bounds its cost on a large index.
PRESELECTION_BUDGET = 5000


@dataclass(frozen=True)
class Candidates:
    """How many nearest chunks and how many full-text matches make the pool that ranking sees.

    Lexical matches are preselected by ts_rank, which is not BM25: a deeper list (300) keeps BM25's own
    best in the pool (JurisTCU ALL nDCG@10 64.5 -> 65.2 against 100).
    """

    dense: int = 100
    lexical: int = 300

    def at_least(self, wanted: int) -> "Candidates":
        return Candidates(max(self.dense, wanted), max(self.lexical, wanted))


FACET_FIELDS = ("document_type", "court", "relator", "judging_body")


def _storable(value: str) -> str:
    """PostgreSQL text holds neither NUL nor half a surrogate pair (JSON can carry both): such a query or
    filter is a 422 here, not a statement that fails with a 500."""
    if "\x00" in value:
        raise ValueError("text cannot contain NUL characters")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as err:
        raise ValueError("text is not valid Unicode (it holds a lone surrogate)") from err
    return value


Text = Annotated[str, AfterValidator(_storable)]


class SearchFilters(BaseModel):
    document_type: list[Text] | None = None
    court: list[Text] | None = None
    date_from: date | None = None
    date_to: date | None = None
    relator: list[Text] | None = None
    judging_body: list[Text] | None = None
    cited_law: list[Text] | None = Field(
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
    query: Text = Field(min_length=1, max_length=2000)
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
# ($1 query vector, $7 dense candidates, $8 full-text preselection tsquery, $12 lexical candidates)
# A cited-law prefix is compared with starts_with, not LIKE: a "%" or "_" a caller types is no wildcard.
FILTERS = """
      public.precedente_visible(c.access_groups, c.deny_groups, $2::text[])
      AND ($3::text[] IS NULL OR c.document_type = ANY($3))
      AND ($4::text[] IS NULL OR c.court = ANY($4))
      AND ($5::date IS NULL OR c.document_date >= $5)
      AND ($6::date IS NULL OR c.document_date <= $6)
      AND ($9::text[] IS NULL OR c.relator = ANY($9))
      AND ($10::text[] IS NULL OR c.judging_body = ANY($10))
      AND ($11::text[] IS NULL OR EXISTS (
            SELECT 1 FROM unnest(c.citations) cited, unnest($11::text[]) wanted
            WHERE cited = wanted OR starts_with(cited, wanted || ',')))
"""

# Dense and lexical candidates under the same filters; the lexical ones preselected by ts_rank on
# $8, the query's informative lexemes (see preselection_query), then all re-ranked in ranking.py.
_CANDIDATES = f"""
WITH dense AS MATERIALIZED (
    SELECT c.id FROM chunks c
    WHERE {FILTERS}
    ORDER BY c.embedding <=> $1
    LIMIT $7
), lexical AS MATERIALIZED (
    SELECT c.id
    FROM chunks c, (SELECT $8::tsquery AS query) q
    WHERE q.query <> ''::tsquery AND c.tsv @@ q.query AND {FILTERS}
    ORDER BY ts_rank(c.tsv, q.query) DESC
    LIMIT $12
), candidates AS (
    SELECT id FROM dense UNION SELECT id FROM lexical
)
"""

# $13: the query's lexemes. Each candidate's count of each of them is what BM25 needs from its text, and
# where the first one stands (positions are sorted) what the lead needs.
_POOL = """
SELECT c.id, c.document_id, c.char_start, c.char_end, c.embedding,
       public.tsvector_token_count(c.tsv) AS lexemes, tf.terms, tf.counts, tf.firsts,
       c.document_type, c.court, c.relator, c.judging_body
FROM candidates
JOIN chunks c USING (id)
CROSS JOIN LATERAL (
    SELECT coalesce(array_agg(u.lexeme), '{}') AS terms,
           coalesce(array_agg(coalesce(array_length(u.positions, 1), 1)), '{}') AS counts,
           coalesce(array_agg(coalesce(u.positions[1], 1)), '{}') AS firsts
    FROM unnest(c.tsv) u
    WHERE u.lexeme = ANY($13::text[])
) tf
"""

_QUERY_LEXEMES = """
SELECT q.lexeme, coalesce(l.chunks, 0) AS chunks
FROM unnest(to_tsvector('public.pt_unaccent', $1)) q
LEFT JOIN lexicon l USING (lexeme)
"""

_DETAILS = """
SELECT c.id, c.document_id, c.text, c.page_start, c.page_end, c.char_start, c.char_end, c.section_path,
       c.document_type, c.court, c.document_date, coalesce(d.title, d.filename) AS title
FROM chunks c
JOIN documents d ON d.id = c.document_id
WHERE c.id = ANY($1::bigint[])
"""


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
    """Character offsets in the passage of the words that match the query and of the concepts it names
    in other words ("empresa de pequeno porte" for "epp"), for the UI to highlight; sorted, disjoint."""
    spans = [(start, end) for start, end, _ in _matches(query, passage)]
    spans += [span for _, found in concept_index().in_passage(query, passage) for span in found]
    merged: list[tuple[int, int]] = []
    for start, end in sorted(spans):
        if merged and start < merged[-1][1]:
            merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
        else:
            merged.append((start, end))
    return merged


def shared_terms(query: str, passage: str, limit: int = 4) -> list[str]:
    """The query words found in the passage, in the order the passage uses them."""
    found: list[str] = []
    for _, _, word in _matches(query, passage):
        if word not in found:
            found.append(word)
    return found[:limit]


def explain(
    query: str,
    passage: str,
    similarity: float,
    page: int,
    section: str | None = None,
    court: str | None = None,
    year: int | None = None,
) -> str:
    """One line, in the lawyer's language, on why this passage came up, built only from the passage and
    its metadata: closeness, the concept it carries under another name, shared words, where, which court."""
    closeness = "alta" if similarity >= 0.85 else "média" if similarity >= 0.78 else "baixa"
    line = f"Proximidade semântica {closeness} com a consulta ({similarity:.2f})"
    for match, found in concept_index().in_passage(query, passage)[:2]:
        start, end = found[0]
        line += f"; conceito: {passage[start:end]} (= {match.written})"
    if terms := shared_terms(query, passage):
        line += "; termos em comum: " + ", ".join(terms)
    line += f"; {section}, página {page}" if section else f"; página {page}"
    origin = " ".join(part for part in (court, str(year) if year else None) if part)
    return line + (f"; {origin}." if origin else ".")


def _arguments(
    request: SearchRequest, query_vector: np.ndarray, groups: list[str], candidates: Candidates, preselection: str
) -> list:
    f = request.filters
    return [
        query_vector, groups, f.document_type, f.court, f.date_from, f.date_to, candidates.dense, preselection,
        f.relator, f.judging_body, f.cited_law, candidates.lexical,
    ]  # fmt: skip


async def _query_terms(conn: asyncpg.Connection, query: str) -> tuple[list[str], CollectionStatistics]:
    """The query's lexemes as the index stems them, with the collection statistics BM25 needs for them."""
    rows = await conn.fetch(_QUERY_LEXEMES, query)
    totals = await conn.fetchrow("SELECT chunks, mean_lexemes FROM lexicon_totals")
    stats = CollectionStatistics(
        chunks=totals["chunks"] if totals else 0,
        mean_lexemes=totals["mean_lexemes"] if totals else 0.0,
        document_frequency={row["lexeme"]: row["chunks"] for row in rows},
    )
    return [row["lexeme"] for row in rows], stats


async def _candidates(
    conn: asyncpg.Connection, sql: str, arguments: list, candidates: Candidates
) -> list[asyncpg.Record]:
    """Run a candidate query with an HNSW search wide enough, and iterative, for filtered scans."""
    async with conn.transaction():
        await conn.execute("SET LOCAL hnsw.iterative_scan = relaxed_order")
        # A generic plan of a reused statement guesses the optional filters wrong and drops the vector index.
        await conn.execute("SET LOCAL plan_cache_mode = force_custom_plan")
        await conn.execute(f"SET LOCAL hnsw.ef_search = {max(candidates.dense * 2, 40)}")
        return await conn.fetch(sql, *arguments)


def _overlaps(a: asyncpg.Record, b: asyncpg.Record) -> bool:
    """Two passages of one document sharing more than half of the shorter (the ementa and its chunk)."""
    if a["document_id"] != b["document_id"]:
        return False
    shared = min(a["char_end"], b["char_end"]) - max(a["char_start"], b["char_start"])
    shorter = min(a["char_end"] - a["char_start"], b["char_end"] - b["char_start"])
    return shorter > 0 and shared > shorter / 2


def preselection_query(lexemes: list[str], stats: CollectionStatistics) -> str:
    """The tsquery that preselects full-text candidates: an OR of the query's informative lexemes.

    An OR of every lexeme makes PostgreSQL rank most of a large collection ("contrato", "público" are in
    half of it: 1.4 s of CPU per query at 100,000 chunks). Lexemes in at most a fifth of the chunks carry
    the query; when there are none (only common words), no full-text preselection runs: the dense
    candidates make the pool and BM25 still scores it on every lexeme. On JurisTCU this ranks as well
    as the OR of everything (ALL nDCG@10 65.3 against 65.2); a 5% bar lost two G1 queries' hit@5. On a
    large index even those can match a fifth of it: the rarest are taken first, up to PRESELECTION_BUDGET
    matches (on JurisTCU no query reaches it, so its figures stand; at 100,000 chunks it cuts the
    preselection's cost by about four).
    """
    if not lexemes:
        return ""
    total = max(stats.chunks, 1)
    frequency = stats.document_frequency
    informative = [lx for lx in dict.fromkeys(lexemes) if frequency.get(lx, 0) <= INFORMATIVE * total]
    chosen, matches = [], 0
    for lexeme in sorted(informative, key=lambda lx: frequency.get(lx, 0)):  # the rarest carry the most
        matches += frequency.get(lexeme, 0)
        if matches > PRESELECTION_BUDGET:
            break
        chosen.append(lexeme)
    quoted = ["'" + lx.replace("\\", "\\\\").replace("'", "''") + "'" for lx in chosen]
    return " | ".join(quoted)


@dataclass(frozen=True)
class SearchPage:
    results: list[SearchResult]
    facets: dict[str, dict[str, int]]


def _facets(rows: list[asyncpg.Record]) -> dict[str, dict[str, int]]:
    """Documents per value of each facet among the candidates: what this query found under these filters."""
    documents: dict[str, dict[str, set]] = {field: {} for field in FACET_FIELDS}
    for row in rows:
        for field in FACET_FIELDS:
            if row[field] is not None:
                documents[field].setdefault(row[field], set()).add(row["document_id"])
    return {
        field: dict(sorted(((value, len(ids)) for value, ids in values.items()), key=lambda item: (-item[1], item[0])))
        for field, values in documents.items()
    }


async def hybrid_search(
    db: asyncpg.Pool,
    request: SearchRequest,
    query_vector: np.ndarray,
    groups: list[str],
    candidates: Candidates,
    ranking: Ranking = DEFAULT_RANKING,
    limit: int | None = None,
) -> SearchPage:
    """The best `limit` (default top_k) passages, one per stretch of a document, best first, and the
    facet counts of the candidates they were ranked among."""
    limit = limit or request.top_k
    async with db.acquire() as conn:
        lexemes, stats = await _query_terms(conn, request.query)
        preselection = preselection_query(lexemes, stats)
        arguments = [*_arguments(request, query_vector, groups, candidates, preselection), lexemes]
        rows = await _candidates(conn, _CANDIDATES + _POOL, arguments, candidates)
        pool = [
            PoolEntry(
                row["id"],
                row["embedding"].to_numpy(),
                row["lexemes"],
                dict(zip(row["terms"], row["counts"], strict=True)),
                dict(zip(row["terms"], row["firsts"], strict=True)),
            )
            for row in rows
        ]
        scores = rank_pool(pool, query_vector, lexemes, stats, ranking)
        kept: list[int] = []
        for i in np.argsort(-scores, kind="stable"):
            if len(kept) == limit:
                break
            if not any(_overlaps(rows[i], rows[other]) for other in kept):
                kept.append(int(i))
        details = {row["id"]: row for row in await conn.fetch(_DETAILS, [rows[i]["id"] for i in kept])}
    results = []
    for i in kept:
        r = details[rows[i]["id"]]
        similarity = float(pool[i].embedding @ query_vector)
        results.append(
            SearchResult(
                chunk_text=r["text"],
                document_title=r["title"],
                document_date=r["document_date"],
                document_type=r["document_type"],
                relevance_explanation=explain(
                    request.query,
                    r["text"],
                    similarity,
                    r["page_start"],
                    r["section_path"],
                    label("court", r["court"]),
                    r["document_date"].year if r["document_date"] else None,
                ),
                similarity_score=round(similarity, 4),
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
        )
    return SearchPage(results, _facets(rows))
