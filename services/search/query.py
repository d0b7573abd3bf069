"""Hybrid retrieval: dense (pgvector HNSW) and Portuguese full-text candidates, ranked by BM25 and dense fused.

Filters and the caller's access list sit inside both candidate queries, so a document the caller
may not see is never a candidate, and a selective filter still fills the list (iterative index
scans keep the HNSW scan going until enough rows pass the filter). Facet counts are taken over
the same candidates, so they describe what this query found under these filters and count only
documents the caller may see; a facet with a selection is counted without it (facet_counts).
"""

import asyncio
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date
from typing import Annotated, Any, Literal

import asyncpg
import numpy as np
from pydantic import AfterValidator, BaseModel, ConfigDict, Field, StringConstraints, WithJsonSchema, field_validator

from services.search.ementa import ementas
from services.search.explain import GENERIC_STEMS, explain, highlight_spans
from services.search.grouping import Passage, WorkGroup, group_by_work
from services.search.languages import language_query_vectors, language_statistics, query_language
from services.search.ranking import CollectionStatistics, PoolEntry, PoolScores, Ranking, pool_matrix, score_pool
from services.search.relevance import (
    Grade,
    RelevanceFeatures,
    RelevanceModel,
    coverage,
    idf_weights,
    known_terms,
    relevance_model,
    specificity,
)
from services.search.store.relevance import active_calibration
from services.search.syntax import ParsedQuery, parse_query, required_clause
from shared.legal.citations import extract_citations
from shared.legal.citing import CitationFields, format_citation
from shared.legal.codes import (
    DECISION_TYPES,
    label,
    normalize_court,
    normalize_document_subtype,
    normalize_document_type,
)
from shared.legal.process_numbers import CNJ, CNJ_DIGITS
from shared.lexicon import MISSING, STATISTICS_VERSION, RefreshedCache

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


FACET_FIELDS = ("document_type", "document_subtype", "court", "relator", "judging_body", "procedural_class")
HNSW_EF_SEARCH_MAX = 1000  # pgvector's bound of hnsw.ef_search


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

FilterValue = Annotated[str, StringConstraints(min_length=1), AfterValidator(_storable)]
_FILTER_VALUE = {"type": "string", "minLength": 1}
# One value or a list of them (the web page sends one; the validators below make a list of one): the contract
# says both, and nothing else passes (a number, an object, an empty string).
OneOrMany = Annotated[
    list[FilterValue] | None,
    WithJsonSchema({"anyOf": [_FILTER_VALUE, {"type": "array", "items": _FILTER_VALUE}, {"type": "null"}]}),
]


class SearchFilters(BaseModel):
    model_config = ConfigDict(extra="forbid")  # a misspelt filter is a 422, not a filter silently ignored

    document_type: OneOrMany = None
    document_subtype: OneOrMany = Field(
        None, description='Which act, work or filing: "lei", "resolucao", "artigo", "tese" (codes or labels).'
    )
    court: OneOrMany = None
    date_from: date | None = None
    date_to: date | None = None
    relator: OneOrMany = None
    judging_body: OneOrMany = None
    procedural_class: OneOrMany = Field(
        None, description='The classe processual as extracted: "Recurso Especial", "Agravo de Instrumento".'
    )
    cited_law: OneOrMany = Field(
        None, description='Canonical citation prefixes, e.g. "Lei 8.078/1990" matches any of its articles.'
    )

    @field_validator(
        "document_type",
        "document_subtype",
        "court",
        "relator",
        "judging_body",
        "procedural_class",
        "cited_law",
        mode="before",
    )
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

    @field_validator("document_subtype")
    @classmethod
    def _subtype_codes(cls, values: list[str] | None) -> list[str] | None:
        """ "Diretiva (UE)" or "Tese de doutorado" as the page shows them become the stored codes."""
        return [normalize_document_subtype(v) or v for v in values] if values else values

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
    top_k: int = Field(5, ge=1, le=200, description="Works per page.")
    offset: int = Field(0, ge=0, le=1000, description="Works to skip: the second page of five is offset 5.")
    sort: Literal["relevance", "date"] = Field(
        "relevance",
        description='"date": newest first, the works graded "forte" or "provável" before the weak ones.',
    )


class OtherPassage(BaseModel):
    """Another passage of the same work that says something else (repeats of the best one are dropped)."""

    passage_id: int
    document_id: str
    chunk_text: str
    page_number: int
    page_end: int
    section_path: str | None = None
    char_start: int = 0
    char_end: int = 0
    highlights: list[tuple[int, int]] = Field(default_factory=list)
    document_url: str


class DocumentCopy(BaseModel):
    """Another file of the same decision or act (a scan, an ementa-only extract), visible to the caller."""

    document_id: str
    title: str
    filename: str
    document_type: str | None = None
    page_count: int | None = None
    document_url: str


class SearchResult(BaseModel):
    """One work (a decision, an act, a parecer): its best passage, and what a lawyer needs to cite it."""

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
    passage_id: int = Field(0, description="The passage (chunk) id: GET /documents/{document_id}?passage= marks it.")
    work_id: str = Field("", description="The decision or act this file is a copy of; one result per work.")
    relevance: Literal["forte", "provável", "fraca"] = Field(
        "fraca", description="Calibrated grade (services/search/relevance.py): how likely a judge calls it relevant."
    )
    relevance_probability: float = Field(0.0, description="The calibrated probability behind the grade.")
    explanation_span: tuple[int, int] | None = Field(
        None, description="[start, end) in chunk_text of the sentence that carries the query's concept."
    )
    other_passages: list[OtherPassage] = Field(default_factory=list, description="Up to two more of the work's.")
    copies: list[DocumentCopy] = Field(default_factory=list, description="The work's other files you may see.")
    citation: str | None = Field(None, description="The reference to paste in a petition, from the metadata.")
    ementa: str | None = None
    document_url: str = Field("", description="The original, opening at the passage's page (marked in PDFs).")
    process_number: str | None = None
    procedural_class: str | None = None
    relator: str | None = None
    judging_body: str | None = None
    judgment_date: date | None = None
    publication_date: date | None = None
    document_subtype: str | None = Field(
        None, description='Which act, work or filing: "lei", "resolucao", "artigo", "tese" (shared/legal/codes.py).'
    )
    document_subtype_label: str | None = None
    act_number: str | None = Field(None, description='An act\'s number as printed: "125", "2011/83/EU".')
    issuing_body: str | None = Field(None, description='Who issued an act: "Conselho Nacional de Justiça".')
    authors: list[str] = Field(default_factory=list, description="A work of doctrine's authors, as printed.")
    venue: str | None = Field(None, description="Where a work of doctrine appeared: journal, university, publisher.")
    year: int | None = Field(None, description="The year a work of doctrine appeared.")
    language: str | None = Field(None, description='The document\'s language, ISO 639-1 ("pt", "en"); "und": unknown.')
    unread_pages: list[int] = Field(
        default_factory=list,
        description="Pages of this document left out of the index (a photo, a scanned annex OCR could not read):"
        " nothing on them was searched.",
    )


# The nearest passages' order: the HNSW index's own expression (migration 0024), half-precision vectors in half
# the float index's memory; chunks.embedding stays float and the pool scores it exactly. The dimension is the
# query vector's, which is the index's (index_state): _candidates writes it in (with_dimensions). $1 comes as a
# float vector (its first use types it), made half here: a small language's exact list orders by the float one.
NEAREST = "c.embedding::halfvec(@dimensions) <=> $1::vector(@dimensions)::halfvec(@dimensions)"


def with_dimensions(sql: str, dimensions: int) -> str:
    """`sql` with NEAREST's dimension written in: the cast must be the index's, typmod included."""
    return sql.replace("@dimensions", str(int(dimensions)))


# $2 groups, $3 types, $4 courts, $5 from, $6 to, $9 relators, $10 judging bodies, $11 cited-law prefixes,
# $16 subtypes, $17 classes processuais (kept on documents only: looked up there, and only when asked for)
# ($1 query vector, $7 dense candidates, $8 full-text preselection tsquery, $12 lexical candidates,
# $13 the query's lexemes, $14 the syntax requirement or NULL, $15 the CNJ numbers the query names, digits only,
# $18 the other languages whose own nearest passages join the pool, by the HNSW index: services/search/languages.py;
# $19 those whose own nearest are read exactly, being few: exact_languages)
# A cited-law prefix is compared with starts_with, not LIKE: a "%" or "_" a caller types is no wildcard.
FILTERS = """
      public.precedente_visible(c.access_groups, c.deny_groups, $2::text[])
      AND ($3::text[] IS NULL OR c.document_type = ANY($3))
      AND ($16::text[] IS NULL OR c.document_subtype = ANY($16))
      AND ($4::text[] IS NULL OR c.court = ANY($4))
      AND ($5::date IS NULL OR c.document_date >= $5)
      AND ($6::date IS NULL OR c.document_date <= $6)
      AND ($9::text[] IS NULL OR c.relator = ANY($9))
      AND ($10::text[] IS NULL OR c.judging_body = ANY($10))
      AND ($17::text[] IS NULL OR EXISTS (
            SELECT 1 FROM documents pc WHERE pc.id = c.document_id AND pc.procedural_class = ANY($17)))
      AND ($11::text[] IS NULL OR EXISTS (
            SELECT 1 FROM unnest(c.citations) cited, unnest($11::text[]) wanted
            WHERE cited = wanted OR starts_with(cited, wanted || ',')))
      AND """ + required_clause("$14")  # the lawyer's syntax: phrases, exclusions, OU (services/search/syntax.py)

# Dense and lexical candidates under the same filters; the lexical ones preselected by ts_rank on
# $8, the query's informative lexemes (see preselection_query), then all re-ranked in ranking.py.
# The nearest passages are mostly the query's language (multilingual-e5 puts it 0.02-0.03 closer, whatever
# a passage says): each other language $18 names adds its own nearest $7, which ranking.py centres onto the
# query's language. Within a language the centring is a constant, so its nearest by <=> $1 are its best
# (languages.language_query_vectors); an empty $18 (one language, the usual case) scans nothing more.
# A language of few passages ($19, exact_languages) is read whole through chunks_language (migration 0025) and
# sorted by its float distance, the HNSW walk would start among the query language's neighbours and have to visit
# most of the index to reach it. pgvector's function, not its operator <=> (the same distance): no vector index
# serves a function, so a float HNSW index left beside chunks_embedding cannot turn this back into a walk. The
# filters test the language's rows (OFFSET 0 keeps them out of its scan): ANDed into bitmaps of the access and
# filter indexes they read a million entries for 6,000 rows (1M chunks: 99 ms against 36 without a filter).
# The languages are one array the planner sees (`language = ANY($19)`, custom plans), each one's $7 taken by
# row_number: a LATERAL over unnest($19) hid the value from it, so it guessed a language's rows as the table's
# over its distinct languages and scanned the whole table whenever few languages made that a large share
# (bench/load.py, 194k chunks while the archive arrived: PostgreSQL CPU per search 139 ms, now 27; searches/s
# 9.6 -> 25.1).
_CANDIDATES = f"""
WITH dense AS MATERIALIZED (
    SELECT c.id FROM chunks c
    WHERE {FILTERS}
    ORDER BY {NEAREST}
    LIMIT $7
), dense_languages AS MATERIALIZED (
    SELECT nearest.id FROM unnest($18::text[]) other(language)
    CROSS JOIN LATERAL (
        SELECT c.id FROM chunks c
        WHERE c.language = other.language AND {FILTERS}
        ORDER BY {NEAREST}
        LIMIT $7
    ) nearest
), dense_exact_languages AS MATERIALIZED (
    SELECT ranked.id FROM (
        SELECT c.id, row_number() OVER (PARTITION BY c.language ORDER BY cosine_distance(c.embedding, $1)) AS place
        FROM (SELECT * FROM chunks WHERE language = ANY($19::text[]) OFFSET 0) c
        WHERE {FILTERS}
    ) ranked
    WHERE ranked.place <= $7
), lexical AS MATERIALIZED (
    SELECT c.id
    FROM chunks c, (SELECT $8::tsquery AS query) q
    WHERE q.query <> ''::tsquery AND c.tsv @@ q.query AND {FILTERS}
    ORDER BY ts_rank(c.tsv, q.query) DESC
    LIMIT $12
), identified AS MATERIALIZED (
    SELECT c.id FROM chunks c JOIN documents d ON d.id = c.document_id
    WHERE $15::text[] IS NOT NULL AND regexp_replace(d.process_number, '\\D', '', 'g') = ANY($15) AND {FILTERS}
    ORDER BY c.ordinal
    LIMIT 20
), candidates AS (
    SELECT id FROM dense UNION SELECT id FROM dense_languages UNION SELECT id FROM dense_exact_languages
    UNION SELECT id FROM lexical UNION SELECT id FROM identified
)
"""

# $13: the query's lexemes. Each candidate's count of each of them is what BM25 needs from its text, and
# where the first one stands (positions are sorted) what the lead needs; its length (lexemes) is stored
# (chunks.lexeme_count, migration 0021). Only the query's lexemes are unnested: setweight marks them (binary
# searches in C) and ts_filter keeps them, where unnesting the whole tsvector of every candidate to count and
# pick them was most of the pool's cost. The first setweight clears any weight (to_tsvector gives none), so
# only the query's lexemes are kept; every lexeme of a to_tsvector has positions, which ts_filter requires.
# The embedding comes as pgvector's binary form (bytea), which pool_vectors reads for the whole pool in one numpy
# pass: decoding each vector in Python (the driver's codec) was about 6% of the search service's CPU (py-spy).
# `identified` tests $15 first: without case numbers in the query (almost always) no row's number is rewritten.
_POOL = """
SELECT c.id, c.document_id, c.char_start, c.char_end, public.vector_send(c.embedding) AS embedding, c.language,
       c.lexeme_count AS lexemes, tf.terms, tf.counts, tf.firsts,
       c.document_type, c.document_subtype, c.court, c.relator, c.judging_body, c.document_date,
       d.procedural_class,
       coalesce(d.work_id, d.id)::text AS work_id,
       coalesce($15::text[] IS NOT NULL AND regexp_replace(d.process_number, '\\D', '', 'g') = ANY($15), false)
           AS identified
FROM candidates
JOIN chunks c USING (id)
JOIN documents d ON d.id = c.document_id
CROSS JOIN LATERAL (
    SELECT coalesce(array_agg(u.lexeme), '{}') AS terms,
           coalesce(array_agg(coalesce(array_length(u.positions, 1), 1)), '{}') AS counts,
           coalesce(array_agg(coalesce(u.positions[1], 1)), '{}') AS firsts
    FROM unnest(ts_filter(setweight(setweight(c.tsv, 'D'), 'A', $13::text[]), '{a}')) u
) tf
"""

# The query stemmed under each language the index holds ($2; migration 0014), each stem with the query words
# it stands for (positions: the same parser numbers the words alike under every language) and its chunk count.
_QUERY_LEXEMES = """
SELECT s.language, q.lexeme, q.positions, coalesce(l.chunks, 0) AS chunks
FROM unnest($2::text[]) s(language)
CROSS JOIN LATERAL unnest(to_tsvector(public.language_config(s.language), $1)) q
LEFT JOIN lexicon l ON l.lexeme = q.lexeme
"""
QUERY_LANGUAGE = "pt"  # what a query is read as first: the firm's own language


def query_lexemes(rows: list[Any], languages: list[str]) -> tuple[list[str], dict[str, int]]:
    """The lexemes that stand for the query's words, and their chunk counts, from `rows` (_QUERY_LEXEMES).

    A word is read in Portuguese first; where the index does not know its Portuguese stem, the stems other
    languages of the index give it and the index knows take its place ("protection" is "protect" in English).
    A word Portuguese drops (a stop word) is dropped, and so is one another language drops that Portuguese
    does not know ("the"). A Portuguese collection therefore gets exactly the Portuguese lexemes, and the
    calibrated grades, it had before languages were detected; the one known stem per word keeps coverage
    an honest share of the query's words.
    """
    stems: dict[int, dict[str, tuple[str, int]]] = {}
    for row in rows:
        for position in row["positions"] or [0]:
            stems.setdefault(position, {})[row["language"]] = (row["lexeme"], row["chunks"])
    chosen: list[str] = []
    frequency: dict[str, int] = {}
    for position in sorted(stems):
        readings = stems[position]
        if QUERY_LANGUAGE not in readings:
            continue
        lexeme, chunks = readings[QUERY_LANGUAGE]
        if chunks == 0:
            known = [(lx, n) for language, (lx, n) in readings.items() if language != QUERY_LANGUAGE and n > 0]
            if known:
                lexeme, chunks = max(known, key=lambda stem: stem[1])
            elif any(language not in readings for language in languages):
                continue
        chosen.append(lexeme)
        frequency[lexeme] = chunks
    return list(dict.fromkeys(chosen)), frequency


_DETAILS = """
SELECT c.id, c.document_id, c.text, c.page_start, c.page_end, c.char_start, c.char_end, c.section_path, c.citations
FROM chunks c
WHERE c.id = ANY($1::bigint[])
"""

# The metadata a card shows and a citation is built from, of the documents whose passages are shown.
_DOCUMENTS = """
SELECT d.id, coalesce(d.title, d.filename) AS title, d.filename, d.content_type, d.document_type, d.court,
       d.document_date, d.process_number, d.procedural_class, d.relator, d.judging_body, d.judgment_date,
       d.publication_date, d.page_count, d.document_subtype, d.act_number, d.issuing_body, d.authors, d.venue,
       d.year, d.language, d.unread_pages
FROM documents d
WHERE d.id = ANY($1::uuid[])
"""

# The other files of these works the caller may see ($2: the caller's groups), oldest first.
_COPIES = """
SELECT d.id, coalesce(d.work_id, d.id) AS work_id, coalesce(d.title, d.filename) AS title, d.filename,
       d.content_type, d.document_type, d.page_count
FROM documents d
WHERE coalesce(d.work_id, d.id) = ANY($1::uuid[]) AND d.stage <> 'deleted'  -- index documents_work
  AND public.precedente_visible(d.access_groups, d.deny_groups, $2::text[])
ORDER BY d.created_at, d.id
"""


def _arguments(
    request: SearchRequest, query_vector: np.ndarray, groups: list[str], candidates: Candidates, preselection: str
) -> list:
    f = request.filters
    return [
        query_vector, groups, f.document_type, f.court, f.date_from, f.date_to, candidates.dense, preselection,
        f.relator, f.judging_body, f.cited_law, candidates.lexical,
    ]  # fmt: skip


# The collection's totals, and which refresh the statistics are of (shared/lexicon.py): what search derived from them
# before that refresh (a query's lexemes, the language centroids) is kept in this process until the next one.
_TOTALS = f"SELECT chunks, mean_lexemes, languages, {STATISTICS_VERSION} AS version FROM lexicon_totals"
REFRESHED = RefreshedCache()


@dataclass(frozen=True)
class Totals:
    """lexicon_totals, and the version of the statistics (None: not known, nothing is kept)."""

    chunks: int
    mean_lexemes: float
    languages: list[str]
    version: str | None = None


async def collection_totals(conn: asyncpg.Connection) -> Totals:
    try:
        row = await conn.fetchrow(_TOTALS)
    except asyncpg.UndefinedTableError:  # an index before migration 0023: no centroids, so no version either
        row = await conn.fetchrow("SELECT chunks, mean_lexemes, languages, NULL AS version FROM lexicon_totals")
    if row is None:
        return Totals(0, 0.0, [])
    return Totals(row["chunks"], row["mean_lexemes"], list(row["languages"]), row["version"])


async def _query_terms(
    conn: asyncpg.Connection, query: str, totals: Totals | None = None, db: object = None
) -> tuple[list[str], CollectionStatistics]:
    """The query's lexemes as the index stems them, with the collection statistics BM25 needs for them.
    With `db` (the pool) the lexemes of a query seen since the last refresh are not looked up again."""
    totals = totals or await collection_totals(conn)
    languages = list(dict.fromkeys([QUERY_LANGUAGE, *totals.languages]))
    key = ("lexemes", query, tuple(languages))
    found = REFRESHED.get(db, totals.version, key) if db is not None else MISSING
    if found is MISSING:
        found = query_lexemes(await conn.fetch(_QUERY_LEXEMES, query, languages), languages)
        if db is not None:
            REFRESHED.put(db, totals.version, key, found)
    lexemes, frequency = found
    stats = CollectionStatistics(
        chunks=totals.chunks, mean_lexemes=totals.mean_lexemes, document_frequency=dict(frequency)
    )
    return list(lexemes), stats


async def _candidates(
    conn: asyncpg.Connection, sql: str, arguments: list, candidates: Candidates
) -> list[asyncpg.Record]:
    """Run a candidate query with an HNSW search wide enough, and iterative, for filtered scans."""
    # One round trip for the three settings (a simple-protocol batch), not one each.
    async with conn.transaction():
        await conn.execute(
            "SET LOCAL hnsw.iterative_scan = relaxed_order;"
            # A generic plan of a reused statement guesses the optional filters wrong and drops the vector index.
            " SET LOCAL plan_cache_mode = force_custom_plan;"
            # Wider than pgvector allows (1,000: a deep page asks for more) is an error; iterative scans go on.
            f" SET LOCAL hnsw.ef_search = {min(max(candidates.dense * 2, 40), HNSW_EF_SEARCH_MAX)}"
        )
        return await conn.fetch(with_dimensions(sql, len(arguments[0])), *arguments)


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
    total: int = 0  # works among the candidates: what paging can reach
    relevant_total: int = 0  # of them, graded "forte" or "provável"
    no_strong_match: bool = True  # no work is at least "provável": say so, show the closest as weak
    features: list[RelevanceFeatures] = field(default_factory=list)  # of each result (bench/calibrate.py fits on them)
    vague: bool = False  # a query of one common word: every grade is "fraca" (vague_query)


def _facets(rows: list[asyncpg.Record], fields: tuple[str, ...] = FACET_FIELDS) -> dict[str, dict[str, int]]:
    """Works per value of each facet among the candidates: the population `total` counts, so "Acórdão (2)" beside
    the filter means two of the works listed, whatever number of files (copies) each has.

    The works are group_by_work's: one per work_id among the rows (it makes a group of every candidate's work,
    whatever it keeps of the passages). A work carries a value when one of its candidate passages does, so one
    whose files disagree (a PDF typed acórdão, its extract typed decisão monocrática; a copy filed under another
    court) is counted under each value it has. That is the filters' own rule: a filter keeps a work when one of
    its candidate passages passes, so ticking a value keeps every work counted under it (with the same
    candidates, the total it then shows is the count it showed). Counting a work under its best file's value
    only would hide a work the filter still returns, and needs the wider candidates ranked. Hence a facet whose
    values are one per work sums to `total` less the works without a value; where files disagree, to more.
    """
    works: dict[str, dict[str, set[str]]] = {facet: {} for facet in fields}
    for row in rows:
        work = row["work_id"]
        for facet in fields:
            value = row[facet]
            if value is not None:
                works[facet].setdefault(value, set()).add(work)
    return {facet: _by_count({value: len(ids) for value, ids in values.items()}) for facet, values in works.items()}


def _by_count(counts: dict[str, int]) -> dict[str, int]:
    return dict(sorted(counts.items(), key=lambda item: (-item[1], item[0])))


def without_own_selection(request: SearchRequest, facet: str) -> SearchRequest:
    """The request with one facet's selection dropped, every other filter kept: what that facet counts over."""
    return request.model_copy(update={"filters": request.filters.model_copy(update={facet: None})})


def facets_statement(candidates_sql: str) -> str:
    """A candidate statement as a facet count reads it: the pool's own statement as a subquery, the same
    parameters, only the work and the facet columns read."""
    columns = ", ".join(f"pool.{name}" for name in ("work_id", *FACET_FIELDS))
    return f"{candidates_sql}SELECT {columns} FROM ({_POOL}) pool"


async def wider_facets(
    db: asyncpg.Pool,
    request: SearchRequest,
    arguments: Callable[[SearchRequest], list],
    candidates: Candidates,
    sql: str,
) -> dict[str, dict[str, int]]:
    """Each facet with a selection counted over the candidates of every other filter but its own: one more
    candidate statement per such facet (none, the usual case, costs nothing), each on a connection of its own,
    all at once: at 1M chunks with court and type ticked they were two statements of ~50 ms after the search's."""

    async def one(facet: str) -> tuple[str, dict[str, int]]:
        async with db.acquire() as conn:
            rows = await _candidates(conn, sql, arguments(without_own_selection(request, facet)), candidates)
        return facet, _facets(rows, (facet,))[facet]

    selected = [facet for facet in FACET_FIELDS if getattr(request.filters, facet)]
    return dict(await asyncio.gather(*(one(facet) for facet in selected)))


def facet_counts(
    rows: list[asyncpg.Record], request: SearchRequest, wider: dict[str, dict[str, int]]
) -> dict[str, dict[str, int]]:
    """Facet counts as faceted search gives them (works, as _facets counts them): a facet without a selection is
    counted over this search's rows; one with a selection over the candidates of every other filter but its
    own (`wider`), so its other values stay reachable (STJ selected, TJSP still offered with its count), except its
    selected values, counted over this search's rows: the count beside a ticked value is how many of the listed
    works carry it (one value ticked: the search's total). The wider candidates are not those of the search, so
    their count of a selected value can fall short of what the selected search finds (its nearest and full-text
    lists reach further under the filter)."""
    facets = _facets(rows)
    for facet, others in wider.items():
        # This search's rows carry only selected values (the filter and the facet read the same column).
        selected = set(getattr(request.filters, facet)) | set(facets[facet])
        facets[facet] = _by_count({value: n for value, n in others.items() if value not in selected} | facets[facet])
    return facets


def document_url(document_id: object, content_type: str | None, page: int, passage_id: int) -> str:
    """The original at the passage's page; a PDF is served with the passage marked (GET /documents/{id})."""
    if content_type and content_type.startswith("application/pdf"):
        return f"/documents/{document_id}?passage={passage_id}#page={page}"
    return f"/documents/{document_id}"


@dataclass(frozen=True)
class GradedWork:
    group: WorkGroup
    features: RelevanceFeatures
    probability: float
    grade: Grade


VAGUE_SHARE = 0.5
"""A query of one word names no subject when the word is one of legal writing's own ("direito", "processo",
"recurso": explain.GENERIC_STEMS) or is in more than half of the chunks: its results are never more than
"fraca". A collection's subject is still one ("arbitragem" in an arbitration practice's archive); two words
or more are left to the model."""


def vague_query(lexemes: list[str], stats: CollectionStatistics) -> bool:
    distinct = set(lexemes)
    if len(distinct) != 1:
        return False
    (lexeme,) = distinct
    common = stats.document_frequency.get(lexeme, 0) > VAGUE_SHARE * max(stats.chunks, 1)
    return common or lexeme[:6] in GENERIC_STEMS


def grade_works(
    groups: list[WorkGroup],
    pool: list[PoolEntry],
    scores: PoolScores,
    lexemes: list[str],
    stats: CollectionStatistics,
    model: RelevanceModel,
    vague: bool = False,
) -> list[GradedWork]:
    """Each work's calibrated grade, from its best passage's features (services/search/relevance.py); all
    "fraca" for a vague query."""
    if not groups:
        return []
    weights = idf_weights(lexemes, stats.document_frequency, stats.chunks)
    known = known_terms(weights, stats.document_frequency)
    specific = specificity(weights, stats.document_frequency, stats.chunks)
    background = float(np.median(scores.dense)) if len(scores.dense) else 0.0
    mean, spread = float(scores.fused.mean()), float(scores.fused.std()) or 1.0
    graded = []
    for group in groups:
        i = group.best
        features = RelevanceFeatures(
            similarity=float(scores.dense[i]),
            similarity_gap=float(scores.dense[i]) - background,
            coverage=coverage(weights, pool[i].term_counts),
            lead=float(scores.opening[i]),
            standing=(float(scores.fused[i]) - mean) / spread,
            known_terms=known,
            specificity=specific,
        )
        probability = model.probability(features)
        grade = "fraca" if vague else model.grade(probability)
        graded.append(GradedWork(group, features, probability, grade))
    return graded


def process_numbers(query: str) -> list[str]:
    """The CNJ case numbers a query names (as printed or as 20 bare digits), digits only."""
    return list(dict.fromkeys("".join(m.groups()) for pattern in (CNJ, CNJ_DIGITS) for m in pattern.finditer(query)))


def _identified_first(works: list[GradedWork], rows: list[asyncpg.Record], strong: float) -> list[GradedWork]:
    """A work whose case number the query names is what the lawyer asked for: first, and "forte"."""
    named = {row["work_id"] for row in rows if row["identified"]}
    if not named:
        return works
    first = [
        GradedWork(w.group, w.features, max(w.probability, strong), "forte")
        for w in works
        if rows[w.group.best]["work_id"] in named
    ]
    return first + [w for w in works if rows[w.group.best]["work_id"] not in named]


# Works that state the law themselves (the decision, the act) and works about them (a comment, a parecer, a
# compilation, a petition quoting them): where one of the latter says what one of the former says, the lawyer cites
# the former. SAME_PASSAGE: the cosine of two best passages that hold the same text (a comment's copy of the ementa
# it comments measured 0.980 to the decision's own, REsp 1.602.076/SP). Over the archive's 23.9 million pairs of an
# about-passage and a source passage of different works, 21 reach it, each a source's text quoted (that ementa, the
# OAB code's preamble, the arbitration law); the 99.99th percentile is 0.917.
SOURCE_TYPES = DECISION_TYPES | {"sumula", "ato_normativo", "ato_administrativo"}
ABOUT_SOURCE_TYPES = frozenset({"doutrina", "jurisprudencia_compilada", "parecer", "peticao", "email"})
SAME_PASSAGE = 0.95


def _sources_first(works: list[GradedWork], rows: list[asyncpg.Record], embeddings: np.ndarray) -> list[GradedWork]:
    """A work about a source (a comment quoting the decision's ementa) that outranks the source saying the same
    passage goes right after it: the decision, not the comment on it, is what is cited. Nothing else moves."""

    def kind(work: GradedWork) -> object:
        return rows[work.group.best]["document_type"]

    if not any(kind(w) in ABOUT_SOURCE_TYPES for w in works) or not any(kind(w) in SOURCE_TYPES for w in works):
        return works
    unit = embeddings / np.maximum(np.linalg.norm(embeddings, axis=1, keepdims=True), 1e-12)
    ordered: list[GradedWork] = []
    placed: set[int] = set()
    for i, work in enumerate(works):
        if i in placed:
            continue
        if kind(work) in ABOUT_SOURCE_TYPES:
            about = unit[work.group.best]
            for j in range(i + 1, len(works)):
                source = works[j]
                if j not in placed and kind(source) in SOURCE_TYPES and unit[source.group.best] @ about >= SAME_PASSAGE:
                    ordered.append(source)
                    placed.add(j)
        ordered.append(work)
        placed.add(i)
    return ordered


def _by_date(works: list[GradedWork], rows: list[asyncpg.Record]) -> list[GradedWork]:
    """Newest first, the works at least "provável" before the weak ones; undated last in each."""

    def newest(work: GradedWork) -> tuple[bool, date]:
        when = rows[work.group.best]["document_date"]
        return when is not None, when or date.min

    strong = [w for w in works if w.grade != "fraca"]
    weak = [w for w in works if w.grade == "fraca"]
    return sorted(strong, key=newest, reverse=True) + sorted(weak, key=newest, reverse=True)


def pool_arguments(
    request: SearchRequest,
    query_vector: np.ndarray,
    groups: list[str],
    candidates: Candidates,
    lexemes: list[str],
    stats: CollectionStatistics,
    parsed: ParsedQuery | None = None,
    languages: list[str] | None = None,
    exact: list[str] | None = None,
) -> list:
    """The parameters of _CANDIDATES + _POOL ($1 to $19) for this request; `languages`: the other languages
    whose own nearest passages join the pool (language_query_vectors; none: the one dense list), those of them
    in `exact` read exactly ($19), the others by the HNSW index ($18)."""
    preselection = preselection_query(lexemes, stats)
    required = (parsed or parse_query(request.query)).required
    numbers = process_numbers(request.query) or None
    arguments = _arguments(request, query_vector, groups, candidates, preselection)
    return [
        *arguments, lexemes, required, numbers, request.filters.document_subtype, request.filters.procedural_class,
        [language for language in languages or [] if language not in (exact or [])],
        [language for language in languages or [] if language in (exact or [])],
    ]  # fmt: skip


# How the nearest passages of a language other than the query's are read (exact_languages): exactly, all its rows
# through chunks_language and sorted, or by the HNSW walk, which starts among the query language's neighbours and
# must visit about LIMIT / share tuples (its ef_search at least, pgvector's max_scan_tuples at most: the iterative
# scan stops there, short of rows). Per-row and per-visit costs measured at 1,000,000 chunks (bench/search_scale.py
# index kept in /tmp/scale-1m, 384 dimensions, 6,120 of them labelled English, LIMIT 100, 80 JurisTCU queries):
# the exact list 37.6 ms p50 for 6,120 rows (no filter: every row's distance), 11.5 ms under court + type; the walk
# 88 ms p50 for about 16,300 visits (100 / 0.6%), 88 ms at 20,000 under the filter (and 12 rows of 100).
EXACT_ROW_MS = 0.006  # btree fetch, access test, float distance and sort, per passage of the language
HNSW_VISIT_MS = 0.005  # per tuple the walk visits
HNSW_MAX_SCAN_TUPLES = 20_000  # pgvector's hnsw.max_scan_tuples (the search leaves it at its default)


def exact_languages(counts: dict[str, int], total: int, limit: int, languages: list[str]) -> list[str]:
    """Those of `languages` whose own nearest `limit` passages are cheaper read exactly than by the HNSW walk,
    from their passage counts (language_centroids.chunks) and the index's (`total`). Exactly also means complete:
    a filter only lengthens the walk (it must find `limit` passing rows), never the exact read, so the choice
    is made without it. At 1M chunks and a limit of 100 the two meet near 9,000 passages (0.9%)."""
    ef_search = min(max(limit * 2, 40), HNSW_EF_SEARCH_MAX)  # as _candidates sets it
    chosen = []
    for language in languages:
        count = counts.get(language, 0)
        if count <= 0:
            continue
        visits = min(max(limit * max(total, count) / count, ef_search), HNSW_MAX_SCAN_TUPLES)
        if count * EXACT_ROW_MS <= visits * HNSW_VISIT_MS:
            chosen.append(language)
    return chosen


@dataclass(frozen=True)
class Centring:
    """The index's language centroids, the language the query is read as, and the other languages whose own
    nearest passages join the pool (services/search/languages.py), those of them read exactly (exact_languages)."""

    centroids: dict[str, np.ndarray]
    query_language: str | None
    languages: list[str]
    exact: list[str] = field(default_factory=list)


async def _centring(
    conn: asyncpg.Connection,
    query: str,
    query_vector: np.ndarray,
    totals: Totals | None = None,
    db: object = None,
    candidates: Candidates | None = None,
) -> Centring:
    """With `db` and the statistics' version (`totals`), the centroids and their counts are read once per refresh.
    `candidates`: how many nearest passages each language adds, which decides which are read exactly."""
    version = totals.version if totals is not None and db is not None else None
    found = REFRESHED.get(db, version, "centroids")
    if found is MISSING:
        found = await language_statistics(conn)
        REFRESHED.put(db, version, "centroids", found)
    centroids, counts = found
    language = query_language(query, centroids)
    others = list(language_query_vectors(query_vector, centroids, language))
    total = totals.chunks if totals is not None and totals.chunks else sum(counts.values())
    exact = exact_languages(counts, total, (candidates or Candidates()).dense, others)
    return Centring(centroids, language, others, exact)


async def _pool_query(
    conn: asyncpg.Connection, parsed: ParsedQuery, query_vector: np.ndarray, candidates: Candidates, db: object = None
) -> tuple[list[str], CollectionStatistics, Centring]:
    """What the candidate statement needs beyond the request, read once per search: the query's lexemes, their
    statistics, and the languages it is centred on."""
    totals = await collection_totals(conn)
    lexemes, stats = await _query_terms(conn, parsed.text, totals, db)
    return lexemes, stats, await _centring(conn, parsed.text, query_vector, totals, db, candidates)


async def _pool(
    conn: asyncpg.Connection, arguments: list, candidates: Candidates
) -> tuple[list[asyncpg.Record], list[PoolEntry]]:
    rows = await _candidates(conn, _CANDIDATES + _POOL, arguments, candidates)
    vectors = pool_vectors(rows)
    pool = [
        PoolEntry(
            row["id"],
            vectors[i],
            row["lexemes"],
            dict(zip(row["terms"], row["counts"], strict=True)),
            dict(zip(row["terms"], row["firsts"], strict=True)),
            row["language"],
        )
        for i, row in enumerate(rows)
    ]
    return rows, pool


def pool_vectors(rows: list[asyncpg.Record]) -> np.ndarray:
    """The pool's embeddings, row i of rows[i], from _POOL's binary `embedding` (pgvector's send format: the
    dimension and a reserved word, two big-endian int16, then big-endian float4s): the same float32s the driver's
    codec decodes, one matrix for all rows."""
    if not rows:
        return np.zeros((0, 1), dtype=np.float32)
    data = b"".join(row["embedding"] for row in rows)
    width = 4 + 4 * int.from_bytes(data[:2], "big")
    if len(data) != width * len(rows):
        raise ValueError("pool embeddings of different dimensions")
    return np.frombuffer(data, dtype=np.uint8).reshape(len(rows), width)[:, 4:].view(">f4").astype(np.float32)


async def _shown_records(
    conn: asyncpg.Connection, shown: list[GradedWork], rows: list[asyncpg.Record], groups: list[str]
) -> tuple[dict[int, asyncpg.Record], list[asyncpg.Record], dict[uuid.UUID, asyncpg.Record], dict[uuid.UUID, str]]:
    """What the shown works' cards read beyond the pool: their passages' details, the works' other files the
    caller may see, those documents' rows and their ementas."""
    chunk_ids = [rows[i]["id"] for work in shown for i in (work.group.best, *work.group.others)]
    details = {row["id"]: row for row in await conn.fetch(_DETAILS, chunk_ids)}
    work_ids = list({uuid.UUID(rows[work.group.best]["work_id"]) for work in shown})
    copies = await conn.fetch(_COPIES, work_ids, groups)
    document_ids = list({detail["document_id"] for detail in details.values()} | {c["id"] for c in copies})
    documents = {row["id"]: row for row in await conn.fetch(_DOCUMENTS, document_ids)}
    return details, copies, documents, await ementas(conn, document_ids)


async def hybrid_search(
    db: asyncpg.Pool,
    request: SearchRequest,
    query_vector: np.ndarray,
    groups: list[str],
    candidates: Candidates,
    ranking: Ranking = DEFAULT_RANKING,
    limit: int | None = None,
) -> SearchPage:
    """The works (decisions, acts, pareceres) that carry the query, one entry each, best first (or newest
    first), `limit` (default top_k) of them from `offset`, graded, and the facet counts of the candidates."""
    limit = limit or request.top_k
    parsed = parse_query(request.query)
    async with db.acquire() as conn:
        lexemes, stats, centring = await _pool_query(conn, parsed, query_vector, candidates, db)

        def arguments(search: SearchRequest) -> list:
            return pool_arguments(
                search, query_vector, groups, candidates, lexemes, stats, parsed, centring.languages, centring.exact
            )

        # The facets' own statements run beside this search's, on connections of their own (awaited once this
        # one is released: a pool of one connection serves them after it).
        wider = asyncio.ensure_future(wider_facets(db, request, arguments, candidates, facets_statement(_CANDIDATES)))
        try:
            rows, pool = await _pool(conn, arguments(request), candidates)
            embeddings = pool_matrix(pool) if pool else np.zeros((0, 1))  # ranking's and grouping's, built once
            scores = score_pool(
                pool, query_vector, lexemes, stats, ranking, embeddings, centring.centroids, centring.query_language
            )
            order = [int(i) for i in np.argsort(-scores.fused, kind="stable")]
            passages = [
                Passage(i, row["work_id"], str(row["document_id"]), row["char_start"], row["char_end"])
                for i, row in enumerate(rows)
            ]
            model = relevance_model().calibrated(await active_calibration(db, conn))  # the firm's, if any
            vague = vague_query(lexemes, stats)
            works = grade_works(group_by_work(order, passages, embeddings), pool, scores, lexemes, stats, model, vague)
            works = _identified_first(_sources_first(works, rows, embeddings), rows, model.strong)
            ranked = _by_date(works, rows) if request.sort == "date" else works
            shown = ranked[request.offset : request.offset + limit]
            details, copies, documents, ementa_of = await _shown_records(conn, shown, rows, groups)
        except BaseException:
            wider.cancel()
            await asyncio.gather(wider, return_exceptions=True)
            raise
    facets = facet_counts(rows, request, await wider)
    results = [_result(parsed.text, work, rows, details, documents, copies, ementa_of) for work in shown]
    relevant = sum(work.grade != "fraca" for work in works)
    features = [work.features for work in shown]
    return SearchPage(results, facets, len(works), relevant, relevant == 0, features, vague)


def _passage(query: str, chunk: asyncpg.Record, content_type: str | None) -> dict[str, Any]:
    """What a result and each of its other passages say of their passage."""
    return {
        "passage_id": chunk["id"],
        "document_id": str(chunk["document_id"]),
        "chunk_text": chunk["text"],
        "page_number": chunk["page_start"],
        "page_end": chunk["page_end"],
        "section_path": chunk["section_path"],
        "char_start": chunk["char_start"],
        "char_end": chunk["char_end"],
        "highlights": highlight_spans(query, chunk["text"]),
        "document_url": document_url(chunk["document_id"], content_type, chunk["page_start"], chunk["id"]),
    }


_DESCRIBING = (
    "process_number", "procedural_class", "relator", "judging_body", "judgment_date", "publication_date",
    "document_subtype", "act_number", "issuing_body", "venue", "year",
)  # fmt: skip


def _result(
    query: str,
    work: GradedWork,
    rows: list[asyncpg.Record],
    details: dict[int, asyncpg.Record],
    documents: dict[uuid.UUID, asyncpg.Record],
    copies: list[asyncpg.Record],
    ementa_of: dict[uuid.UUID, str],
) -> SearchResult:
    """One work's entry: its best passage explained, its other passages, its other files, how to cite it."""
    best = details[rows[work.group.best]["id"]]
    work_id = rows[work.group.best]["work_id"]
    files = [c for c in copies if str(c["work_id"]) == work_id]
    # The card describes the work from its best-described file (an ementa-only extract may lack the relator).
    described = [documents[best["document_id"]], *(documents[c["id"]] for c in files if c["id"] in documents)]
    document = max(described, key=lambda d: sum(d[name] is not None for name in _DESCRIBING) + bool(d["authors"]))
    explanation = explain(query, best["text"], best["section_path"], list(best["citations"]))
    others = [
        OtherPassage(**_passage(query, other, documents[other["document_id"]]["content_type"]))
        for other in (details[rows[i]["id"]] for i in work.group.others)
    ]
    ementa = ementa_of.get(best["document_id"]) or next(
        (ementa_of[c["id"]] for c in files if c["id"] in ementa_of), None
    )
    return SearchResult(
        **_passage(query, best, described[0]["content_type"]),
        document_title=document["title"],
        document_date=document["document_date"],
        document_type=document["document_type"],
        relevance_explanation=explanation.text,
        explanation_span=explanation.sentence,
        similarity_score=round(work.features.similarity, 4),
        court=document["court"],
        document_type_label=label("document_type", document["document_type"]),
        court_label=label("court", document["court"]),
        work_id=work_id,
        relevance=work.grade,
        relevance_probability=round(work.probability, 3),
        other_passages=others,
        copies=[
            DocumentCopy(
                document_id=str(c["id"]),
                title=c["title"],
                filename=c["filename"],
                document_type=c["document_type"],
                page_count=c["page_count"],
                document_url=f"/documents/{c['id']}",
            )
            for c in files
            if c["id"] != best["document_id"]
        ],
        citation=format_citation(CitationFields.from_mapping(document)),
        ementa=ementa,
        process_number=document["process_number"],
        procedural_class=document["procedural_class"],
        relator=document["relator"],
        judging_body=document["judging_body"],
        judgment_date=document["judgment_date"],
        publication_date=document["publication_date"],
        document_subtype=document["document_subtype"],
        document_subtype_label=label("document_subtype", document["document_subtype"]),
        act_number=document["act_number"],
        issuing_body=document["issuing_body"],
        authors=list(document["authors"] or []),
        venue=document["venue"],
        year=document["year"],
        language=document["language"],
        unread_pages=list(document["unread_pages"] or []),
    )


# --- "Mais como este": the passages nearest one passage (POST /search/similar) ---------------------------------


class SimilarRequest(BaseModel):
    """The passages nearest one passage the caller may see, under the same filters and access list as a search."""

    model_config = ConfigDict(extra="forbid")

    passage_id: int = Field(ge=1, le=2**63 - 1, description="A result's passage_id (or one of its other_passages').")
    filters: SearchFilters = Field(default_factory=SearchFilters)
    top_k: int = Field(10, ge=1, le=200, description="Works per page.")
    offset: int = Field(0, ge=0, le=1000, description="Works to skip.")
    sort: Literal["relevance", "date"] = Field("relevance", description='"relevance": nearest first; "date": newest.')


# The passage if the caller may see it and its document stands ($2: the caller's groups), with every file of its
# work: they are what "more like this" leaves out (the lawyer is reading that decision already).
_SIMILAR_SOURCE = """
SELECT c.id, c.embedding, c.document_id, c.page_start, coalesce(d.work_id, d.id)::text AS work_id,
       array(SELECT w.id FROM documents w WHERE coalesce(w.work_id, w.id) = coalesce(d.work_id, d.id)) AS work_files
FROM chunks c JOIN documents d ON d.id = c.document_id
WHERE c.id = $1 AND d.stage <> 'deleted'
  AND public.precedente_visible(c.access_groups, c.deny_groups, $2::text[])
  AND public.precedente_visible(d.access_groups, d.deny_groups, $2::text[])
"""

# The nearest chunks under the search's own FILTERS (the access wall among them), the source work's files out
# ($20). Dense only: nearness is the embedding's. $8, $12 (the full-text preselection's), $18 and $19 (the other
# languages') are typed here so pool_arguments' numbering serves as it is; that CTE is never read, so it never runs.
_SIMILAR_CANDIDATES = f"""
WITH candidates AS MATERIALIZED (
    SELECT c.id FROM chunks c
    WHERE {FILTERS} AND NOT (c.document_id = ANY($20::uuid[]))
    ORDER BY {NEAREST}
    LIMIT $7
), unused AS (
    SELECT $8::text AS preselection, $12::int AS lexical, $18::text[] AS languages, $19::text[] AS exact_languages
)
"""

# Cosine of two passages (multilingual-e5's scale, where unrelated legal passages still score about 0.75):
# at or above SIMILAR_STRONG they say the same thing, at or above SIMILAR_PROBABLE they treat the same subject.
SIMILAR_STRONG = 0.9
SIMILAR_PROBABLE = 0.85


@dataclass(frozen=True)
class SimilarSource:
    passage_id: int
    document_id: uuid.UUID
    work_id: str
    vector: np.ndarray
    work_files: list[uuid.UUID]
    title: str
    citation: str | None
    page_number: int


async def similar_source(db: asyncpg.Pool, passage_id: int, groups: list[str]) -> SimilarSource | None:
    """The passage "Mais como este" starts from, or None when it is missing or behind the caller's wall (alike)."""
    row = await db.fetchrow(_SIMILAR_SOURCE, passage_id, groups)
    if row is None:
        return None
    document = await db.fetchrow(_DOCUMENTS, [row["document_id"]])
    vector = np.asarray(row["embedding"].to_numpy(), dtype=np.float32)
    citation = format_citation(CitationFields.from_mapping(document))
    return SimilarSource(
        row["id"], row["document_id"], row["work_id"], vector, list(row["work_files"]), document["title"], citation,
        row["page_start"],
    )  # fmt: skip


def similar_grade(similarity: float) -> Grade:
    if similarity >= SIMILAR_STRONG:
        return "forte"
    return "provável" if similarity >= SIMILAR_PROBABLE else "fraca"


def similar_explanation(similarity: float) -> str:
    near = {"forte": "diz quase o mesmo que", "provável": "trata do mesmo assunto que", "fraca": "é o mais próximo de"}
    return f"Pelo sentido, {near[similar_grade(similarity)]} o trecho escolhido (semelhança {similarity:.2f})."


async def similar_search(
    db: asyncpg.Pool, request: SimilarRequest, source: SimilarSource, groups: list[str], candidates: Candidates
) -> SearchPage:
    """Works near `source` (its stored embedding is the query vector), one entry each, nearest first (or newest),
    graded by their best passage's nearness, the source's own work left out; the facets of the candidates, a
    facet with a selection counted without it, as hybrid_search does."""
    search = SearchRequest.model_construct(
        query="", filters=request.filters, top_k=request.top_k, offset=request.offset, sort=request.sort
    )
    parsed = ParsedQuery(text="")
    stats = CollectionStatistics(chunks=0, mean_lexemes=0.0, document_frequency={})
    sql = _SIMILAR_CANDIDATES + _POOL

    def arguments(wanted: SearchRequest) -> list:
        return [*pool_arguments(wanted, source.vector, groups, candidates, [], stats, parsed), source.work_files]

    async with db.acquire() as conn:
        rows = await _candidates(conn, sql, arguments(search), candidates)
        embeddings = pool_vectors(rows)
        dense = embeddings @ source.vector if rows else np.zeros(0)
        order = [int(i) for i in np.argsort(-dense, kind="stable")]
        passages = [
            Passage(i, row["work_id"], str(row["document_id"]), row["char_start"], row["char_end"])
            for i, row in enumerate(rows)
        ]
        background = float(np.median(dense)) if len(dense) else 0.0
        works = []
        for group in group_by_work(order, passages, embeddings):
            similarity = float(dense[group.best])
            features = RelevanceFeatures(similarity, similarity - background, 0.0, 0.0, 0.0, 0.0, 0.0)
            works.append(GradedWork(group, features, similarity, similar_grade(similarity)))
        ranked = _by_date(works, rows) if request.sort == "date" else works
        shown = ranked[request.offset : request.offset + request.top_k]
        details, copies, documents, ementa_of = await _shown_records(conn, shown, rows, groups)
    wider = await wider_facets(db, search, arguments, candidates, facets_statement(_SIMILAR_CANDIDATES))
    facets = facet_counts(rows, search, wider)
    results = []
    for work in shown:
        result = _result("", work, rows, details, documents, copies, ementa_of)
        results.append(
            result.model_copy(
                update={
                    "relevance_explanation": similar_explanation(work.features.similarity),
                    "explanation_span": None,
                }
            )
        )
    relevant = sum(work.grade != "fraca" for work in works)
    return SearchPage(results, facets, len(works), relevant, relevant == 0, [], False)
