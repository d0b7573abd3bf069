"""What a search reads before its candidate statement, once per search: the collection's totals, the query's
lexemes as the index stems them with their statistics, and the languages the query is centred on (which other
languages' nearest passages join the pool, and which of them are read exactly). What derives from the statistics is
kept in this process until their next refresh (REFRESHED)."""

from dataclasses import dataclass, field
from typing import Any

import asyncpg
import numpy as np

from precedente.services.search.engine.candidates import HNSW_EF_SEARCH_MAX, Candidates
from precedente.services.search.engine.ranking import CollectionStatistics
from precedente.services.search.languages import language_query_vectors, language_statistics, query_language
from precedente.services.search.syntax import ParsedQuery
from precedente.shared.infra.lexicon import MISSING, STATISTICS_VERSION, RefreshedCache

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


# The collection's totals, and which refresh the statistics are of (shared/infra/lexicon.py): what search derived from
# them before that refresh (a query's lexemes, the language centroids) is kept in this process until the next one.
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


async def query_terms(
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
    ef_search = min(max(limit * 2, 40), HNSW_EF_SEARCH_MAX)  # as fetch_candidates sets it
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


async def centring(
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


async def pool_context(
    conn: asyncpg.Connection,
    parsed: ParsedQuery,
    query_vector: np.ndarray,
    candidates: Candidates,
    db: object = None,
    expansion: str = "",
) -> tuple[list[str], CollectionStatistics, Centring]:
    """What the candidate statement needs beyond the request, read once per search: the query's lexemes, their
    statistics, and the languages it is centred on. `expansion`: other names of the firm's concepts the query
    names (ConceptIndex.expansion), whose lexemes join the query's on the lexical side only."""
    totals = await collection_totals(conn)
    lexical = f"{parsed.text} {expansion}" if expansion else parsed.text
    lexemes, stats = await query_terms(conn, lexical, totals, db)
    return lexemes, stats, await centring(conn, parsed.text, query_vector, totals, db, candidates)
